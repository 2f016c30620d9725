-- Point queries with the same text and other literals (the key-value fast path remembers a query's shape by its normalized text): keys, IN lists, LIMIT, SETTINGS values, formats, aliases, and the same texts after the table changes under them
CREATE TABLE kv (id UInt64, v String) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 4;
INSERT INTO kv SELECT number, toString(number * 10) FROM numbers(100);
SELECT * FROM kv WHERE id = 5;
SELECT * FROM kv WHERE id = 6;
SELECT * FROM kv WHERE id = 1000;
SELECT * FROM kv WHERE id = -1;
SELECT * FROM kv WHERE id = 7.5;
SELECT * FROM kv WHERE id = 99999999999999999999999;
SELECT * FROM kv WHERE id = '8';
SELECT * FROM kv WHERE id IN (1, 2, 3) LIMIT 2;
SELECT * FROM kv WHERE id IN (97, 98, 99) LIMIT 1;
SELECT * FROM kv WHERE id IN (7, 8, 9) LIMIT 0;
SELECT * FROM kv WHERE id IN (7, 8, 9) LIMIT 5;
SELECT v FROM kv WHERE id = 7 SETTINGS use_uncompressed_cache = 1;
SELECT v FROM kv WHERE id = 8 SETTINGS use_uncompressed_cache = 0;
SELECT v FROM kv WHERE id = 9 SETTINGS use_uncompressed_cache = 1;
SELECT v AS x FROM kv WHERE id = 9 FORMAT JSONEachRow;
SELECT v AS x FROM kv WHERE id = 10 FORMAT JSONEachRow;
SELECT v AS x FROM kv WHERE 11 = id FORMAT JSONEachRow;
SELECT * FROM kv WHERE id = 12 SETTINGS max_threads = 'abc'; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT * FROM kv WHERE id = 13 SETTINGS max_threads = 'abd'; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT * FROM kv WHERE id = 13 SETTINGS max_threads = 1;
SELECT * FROM kv WHERE id = 14 SETTINGS max_threads = 1;
SELECT * FROM kv WHERE id = 15 SETTINGS readonly = 1;
SELECT * FROM kv WHERE id = 16 SETTINGS readonly = 1;
SELECT * FROM kv WHERE id = 18 SETTINGS final = 1;
DROP TABLE kv;
SELECT * FROM kv WHERE id = 5; -- { serverError UNKNOWN_TABLE }
CREATE TABLE kv (id String, v UInt8) ENGINE = MergeTree ORDER BY id;
INSERT INTO kv VALUES ('5', 1), ('6', 2);
SELECT * FROM kv WHERE id = '6';
SELECT * FROM kv WHERE id = '5';
SELECT * FROM kv WHERE id = '7';
SELECT * FROM kv WHERE id IN ('5', '6', 'x') LIMIT 5;
SELECT * FROM kv WHERE id IN ('5', '6', 'x') LIMIT 1;
DROP TABLE kv;
CREATE TABLE kv (k FixedString(3), id UInt64, v UInt8) ENGINE = MergeTree ORDER BY k;
INSERT INTO kv VALUES ('ab', 5, 1), ('abc', 6, 2);
SELECT * FROM kv WHERE id = 5;
SELECT * FROM kv WHERE id = 6;
SELECT * FROM kv WHERE k = 'ab';
SELECT * FROM kv WHERE k = 'abc';
SELECT * FROM kv WHERE k = 'abcd';
