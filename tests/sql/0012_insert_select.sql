-- INSERT ... SELECT: conversions, column lists, from tables and table functions
CREATE TABLE src (id UInt64, s String, f Float64) ENGINE = Memory;
INSERT INTO src SELECT number, toString(number * 3), number / 4 FROM numbers(10);
SELECT count(), sum(id), sum(f) FROM src;
CREATE TABLE dst (s String, id UInt32, doubled Int64 DEFAULT -1, f Float32) ENGINE = Memory;
INSERT INTO dst (id, s, f) SELECT id, s, f FROM src WHERE id % 2 = 0;
SELECT * FROM dst ORDER BY id;
INSERT INTO dst SELECT s, id, id * 2, f FROM src WHERE id >= 8;
SELECT * FROM dst ORDER BY id, doubled;
INSERT INTO dst (id) SELECT number + 100 FROM numbers(2);
SELECT * FROM dst WHERE id >= 100 ORDER BY id;
CREATE TABLE copy AS src;
INSERT INTO copy SELECT * FROM src;
INSERT INTO copy SELECT * FROM copy;
SELECT count(), uniqExact(id) FROM copy;
INSERT INTO copy SELECT id, s, f FROM src ORDER BY id DESC LIMIT 2;
SELECT count() FROM copy;
CREATE TABLE conv (u8 UInt8, s String, d Date, n Nullable(UInt8), a Array(UInt16)) ENGINE = Memory;
INSERT INTO conv SELECT number, number, toDate('2024-01-01') + number, if(number % 2 = 0, NULL, number), [number, number + 1] FROM numbers(4);
SELECT * FROM conv ORDER BY u8;
INSERT INTO conv (s, u8) SELECT 'from string', toUInt8('77');
SELECT * FROM conv WHERE u8 = 77;
CREATE TABLE sink (x UInt64) ENGINE = Null;
INSERT INTO sink SELECT number FROM numbers(100000);
SELECT count() FROM sink;
INSERT INTO src SELECT * FROM missing; -- { serverError UNKNOWN_TABLE }
SELECT count() FROM src;
INSERT INTO src (id) SELECT 1, 2; -- { serverError NUMBER_OF_COLUMNS_DOESNT_MATCH }
SELECT count() FROM src;
