-- INSERT ... VALUES converts like ClickHouse: numbers wrap, NULL becomes the default, strings and numbers convert
CREATE TABLE t (id UInt32, name String, d Date, n Nullable(Int8), i8 Int8, f Float32) ENGINE = Memory;
INSERT INTO t (id, name) VALUES (-1, 'negative');
INSERT INTO t (id, name) VALUES (4294967296, 'wraps to zero');
INSERT INTO t (id, name) VALUES (4294967297, 'wraps to one');
INSERT INTO t (id, name) VALUES ('5', 'quoted number');
INSERT INTO t (id, name) VALUES (6, 7);
INSERT INTO t (id, name) VALUES (7.9, 'float truncated');
INSERT INTO t (id, d) VALUES (8, '2024-1-2');
INSERT INTO t (id, d) VALUES (9, 19000);
INSERT INTO t (id, n, i8) VALUES (10, 1000, 200);
INSERT INTO t (id, name, n) VALUES (NULL, NULL, NULL);
INSERT INTO t (id, f) VALUES (11, 0.1), (12, 16777217), (13, 1e100);
INSERT INTO t (id, name) VALUES (14, 'x'), (15, 'y') , (16,'z');
SELECT * FROM t ORDER BY id, name;
CREATE TABLE s (a Array(String), fs FixedString(2), b Bool, dt DateTime, dec Decimal(5, 2)) ENGINE = Memory;
INSERT INTO s VALUES (['a', 'b'], 'x', 1, '2024-01-02 03:04:05', 1.005);
INSERT INTO s VALUES ([], '', 0, 1700000000, -999.99);
INSERT INTO s VALUES (['it''s'], 'xy', true, '2024-01-02', '3.14159');
INSERT INTO s VALUES (['q'], 'toolong', false, '2024-01-02 03:04:05', 1); -- { serverError TOO_LARGE_STRING_SIZE }
INSERT INTO s VALUES (['q'], 'ok', false, '2024-01-02 03:04:05', 1000); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT * FROM s ORDER BY dt;
SELECT hex(fs), length(fs) FROM s ORDER BY dt;
