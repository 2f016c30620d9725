-- ENGINE = File(format): data.<format> in the table directory, appended by INSERT
CREATE TABLE f (a UInt8, s String) ENGINE = File('CSV');
SELECT count() FROM f; -- { serverError FILE_DOESNT_EXIST }
INSERT INTO f VALUES (1, 'x'), (2, 'y');
INSERT INTO f VALUES (3, 'z');
SELECT * FROM f ORDER BY a;
SELECT engine, engine_full FROM system.tables WHERE database = currentDatabase() AND name = 'f';
SHOW CREATE TABLE f;
TRUNCATE TABLE f;
SELECT count() FROM f;
INSERT INTO f SELECT number, toString(number * 10) FROM numbers(4);
SELECT * FROM f ORDER BY a;
CREATE TABLE fj (a UInt8, d Date) ENGINE = File('JSONEachRow');
INSERT INTO fj VALUES (5, '2024-01-01');
INSERT INTO fj VALUES (6, '2024-02-02');
SELECT * FROM fj ORDER BY a;
-- Formats that cannot be appended to need engine_file_truncate_on_insert
CREATE TABLE fp (a UInt8) ENGINE = File('Parquet');
INSERT INTO fp VALUES (5);
INSERT INTO fp VALUES (6); -- { serverError CANNOT_APPEND_TO_FILE }
INSERT INTO fp SETTINGS engine_file_truncate_on_insert = 1 VALUES (7);
SELECT * FROM fp ORDER BY a;
CREATE TABLE bad (a UInt8) ENGINE = File('NoSuchFormat'); -- { serverError UNKNOWN_FORMAT }
CREATE TABLE bad2 (a UInt8) ENGINE = File; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT name FROM system.table_engines WHERE name IN ('File', 'URL', 'S3') ORDER BY name;
DROP TABLE f;
DROP TABLE fj;
DROP TABLE fp;
