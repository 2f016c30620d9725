-- File tables have the virtual columns of file(): _path, _file, _size, _time, _etag,
-- readable by name and left out of SELECT *.
CREATE TABLE named (x UInt8, s String) ENGINE = File(CSV, 'test_0628_named.csv');
INSERT INTO named SETTINGS engine_file_truncate_on_insert = 1 VALUES (1, 'a'), (2, 'bb');
SELECT * FROM named ORDER BY x;
SELECT _file, _size, endsWith(_path, '/test_0628_named.csv'), x FROM named ORDER BY x;
SELECT toTypeName(_path), toTypeName(_file), toTypeName(_size), toTypeName(_time), _time IS NOT NULL FROM named LIMIT 1;
SELECT count() FROM named WHERE _file = 'test_0628_named.csv';
SELECT count() FROM named WHERE _file = 'other.csv';
SELECT s, length(_file) AS n FROM named ORDER BY s;
-- File(format): the table's own data.<format>.
CREATE TABLE own (x UInt8) ENGINE = File(TSV);
INSERT INTO own VALUES (5);
SELECT _file, _size, endsWith(_path, '/data.TSV'), x FROM own;
-- A stored column of the same name hides the virtual one.
CREATE TABLE shadow (_file String, x UInt8) ENGINE = File(CSV, 'test_0628_shadow.csv');
INSERT INTO shadow SETTINGS engine_file_truncate_on_insert = 1 VALUES ('mine', 1);
SELECT _file, _size, x FROM shadow;
-- Of File, URL and S3, only S3 takes PARTITION BY.
CREATE TABLE partitioned (x UInt8) ENGINE = File(CSV, 'test_0628_{_partition_id}.csv') PARTITION BY x; -- { serverError BAD_ARGUMENTS }
CREATE TABLE ordered (x UInt8) ENGINE = File(CSV, 'test_0628_o.csv') ORDER BY x; -- { serverError BAD_ARGUMENTS }
