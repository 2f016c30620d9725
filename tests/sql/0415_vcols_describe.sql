-- DESCRIBE with describe_include_virtual_columns: the virtual columns after the stored ones, with is_virtual.
CREATE TABLE t (a UInt32 COMMENT 'the a', s String DEFAULT 'x' CODEC(ZSTD(1))) ENGINE = MergeTree ORDER BY a;
DESCRIBE t SETTINGS describe_include_virtual_columns = 1;
DESCRIBE t SETTINGS describe_include_virtual_columns = 0;
DESCRIBE TABLE t SETTINGS describe_include_virtual_columns = 1, describe_compact_output = 1;
DESCRIBE t SETTINGS describe_compact_output = 1;
CREATE TABLE p (k UInt32, d Date) ENGINE = ReplacingMergeTree PARTITION BY (toYYYYMM(d), k) ORDER BY k;
DESCRIBE p SETTINGS describe_include_virtual_columns = 1;
-- A stored column hides the virtual column of its name.
CREATE TABLE h (a UInt32, _part String) ENGINE = MergeTree ORDER BY a;
SET describe_include_virtual_columns = 1;
DESCRIBE h FORMAT TSVWithNames;
DESCRIBE (SELECT 1 AS x, 'y' AS y);
SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = 't' ORDER BY position;
