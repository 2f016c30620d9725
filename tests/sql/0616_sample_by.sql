-- SAMPLE BY: the sampling key must be an element of the primary key, of one unsigned integer type
CREATE TABLE bad (x UInt64) ENGINE = MergeTree ORDER BY x SAMPLE BY intHash32(x); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (x UInt64) ENGINE = MergeTree ORDER BY intHash32(x) SAMPLE BY intHash32(x) + 1; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (x UInt64) ENGINE = MergeTree PRIMARY KEY intHash32(x) ORDER BY (intHash32(x), x) SAMPLE BY x; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (x UInt64) ENGINE = MergeTree ORDER BY tuple() SAMPLE BY x; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (x Int64) ENGINE = MergeTree ORDER BY x SAMPLE BY x; -- { serverError ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER }
CREATE TABLE bad (x Float64) ENGINE = MergeTree ORDER BY x SAMPLE BY x; -- { serverError ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER }
CREATE TABLE bad (x UInt64, y UInt32) ENGINE = MergeTree ORDER BY (x, y) SAMPLE BY (x, y); -- { serverError ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER }
CREATE TABLE bad (x UInt64) ENGINE = MergeTree ORDER BY x SAMPLE BY y; -- { serverError UNKNOWN_IDENTIFIER }
CREATE TABLE bad (x UInt64) ENGINE = Memory SAMPLE BY x; -- { serverError BAD_ARGUMENTS }
-- Sampling keys of each unsigned width over the same 100000 rows
CREATE TABLE s32 (x UInt64, v UInt64) ENGINE = MergeTree ORDER BY intHash32(x) SAMPLE BY intHash32(x);
CREATE TABLE s64 (x UInt64) ENGINE = MergeTree ORDER BY (cityHash64(x), x) SAMPLE BY cityHash64(x) SETTINGS index_granularity = 1024;
CREATE TABLE s16 (x UInt64) ENGINE = MergeTree ORDER BY (toUInt16(intHash32(x) % 65536), x) SAMPLE BY toUInt16(intHash32(x) % 65536);
CREATE TABLE s8 (x UInt64) ENGINE = MergeTree ORDER BY (toUInt8(x % 256), x) SAMPLE BY toUInt8(x % 256);
INSERT INTO s32 SELECT number, number % 7 FROM numbers(100000);
INSERT INTO s64 SELECT number FROM numbers(100000);
INSERT INTO s16 SELECT number FROM numbers(100000);
INSERT INTO s8 SELECT number FROM numbers(100000);
SHOW CREATE TABLE s32;
SELECT name, sampling_key, engine_full FROM system.tables WHERE database = currentDatabase() ORDER BY name;
SELECT create_table_query FROM system.tables WHERE database = currentDatabase() AND name = 's64';
-- Relative sizes, fractions, offsets; _sample_factor is 1 / the relative size
SELECT count(), sum(_sample_factor), min(_sample_factor), max(_sample_factor) FROM s32 SAMPLE 0.1;
SELECT count(), sum(_sample_factor) FROM s32 SAMPLE 1/10;
SELECT count() FROM s32 SAMPLE 1/10 OFFSET 1/2;
SELECT count() FROM s32 SAMPLE 0.1 OFFSET 0.95;
SELECT count() FROM s32 SAMPLE 2/3;
SELECT count() FROM s32 SAMPLE 1e-1;
SELECT count() FROM s32 SAMPLE 1./10.;
SELECT count() FROM s32 SAMPLE 0.5 OFFSET 0.5;
SELECT count() FROM s32 SAMPLE 0.5 OFFSET 0;
SELECT x, _sample_factor FROM s32 SAMPLE 0.01 ORDER BY x LIMIT 5;
SELECT count(), sum(v) FROM s32 SAMPLE 0.3 WHERE v < 3;
-- Numbers of rows: made relative to the rows the key condition leaves
SELECT count(), round(sum(_sample_factor)) FROM s32 SAMPLE 1000;
SELECT count() FROM s32 SAMPLE 1000 WHERE x < 50000;
SELECT count() FROM s32 SAMPLE 1000 WHERE intHash32(x) < 100000000;
SELECT count() FROM s32 SAMPLE 1.5;
SELECT count() FROM s32 SAMPLE 1E1;
SELECT count() FROM s32 SAMPLE 100 OFFSET 50000;
SELECT count() FROM s32 SAMPLE 0.5 OFFSET 100;
SELECT count(), sum(_sample_factor) FROM s32 SAMPLE 200000;
-- SAMPLE 0 and SAMPLE 1 read everything; an offset of 1 reads nothing
SELECT count(), sum(_sample_factor) FROM s32 SAMPLE 0;
SELECT count(), sum(_sample_factor) FROM s32 SAMPLE 1;
SELECT count() FROM s32 SAMPLE 0.5 OFFSET 1;
SELECT count() FROM s32 SAMPLE 1/4294967296;
SELECT count() FROM s32 SAMPLE 0 OFFSET 0.5; -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT count() FROM s32 SAMPLE 1 OFFSET 0.5; -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT count() FROM s32 SAMPLE 1/0; -- { serverError STD_EXCEPTION }
SELECT count() FROM s32 SAMPLE -1; -- { serverError SYNTAX_ERROR }
SELECT count() FROM s32 TABLESAMPLE 0.1; -- { serverError SYNTAX_ERROR }
-- Other key widths
SELECT count(), sum(_sample_factor) FROM s64 SAMPLE 0.1;
SELECT count() FROM s64 SAMPLE 1/3 OFFSET 2/3;
SELECT count() FROM s64 SAMPLE 500;
SELECT count() FROM s16 SAMPLE 0.1;
SELECT count() FROM s16 SAMPLE 1/7 OFFSET 3/7;
SELECT count() FROM s8 SAMPLE 0.1;
SELECT count() FROM s8 SAMPLE 0.4 OFFSET 0.8;
SELECT count() FROM s8 SAMPLE 1/1000;
-- Aliases, joins and subqueries: each table reference samples on its own
SELECT count() FROM s32 AS a SAMPLE 0.5;
SELECT count() FROM s32 a SAMPLE 0.5 WHERE a.x < 1000;
SELECT count(), sum(a._sample_factor) FROM s32 AS a SAMPLE 0.5 JOIN s32 AS b ON a.x = b.x;
SELECT count(), sum(b._sample_factor) FROM s8 AS a JOIN s32 AS b SAMPLE 0.25 ON a.x = b.x;
SELECT count() FROM s32 AS a JOIN s32 AS b SAMPLE 0.5 ON a.x = b.x;
SELECT count() FROM s32 AS a LEFT JOIN s32 AS b SAMPLE 0.5 ON a.x = b.x;
SELECT count() FROM s32 SAMPLE 0.1 WHERE x IN (SELECT x FROM s32);
SELECT count() FROM (SELECT * FROM s32 SAMPLE 0.1);
SELECT count() FROM s32 SAMPLE 0.1 PREWHERE v > 1 WHERE x > 10;
-- Views ignore SAMPLE; a view's own SAMPLE applies; a materialized view samples its target
CREATE VIEW v AS SELECT * FROM s32;
CREATE VIEW v_sampled AS SELECT * FROM s32 SAMPLE 0.1;
SELECT count() FROM v SAMPLE 0.1;
SELECT count() FROM v_sampled;
CREATE TABLE mv_target (x UInt64) ENGINE = MergeTree ORDER BY intHash32(x) SAMPLE BY intHash32(x);
CREATE MATERIALIZED VIEW mv TO mv_target AS SELECT x FROM s8;
INSERT INTO s8 SELECT number FROM numbers(100000, 1000);
SELECT count() FROM mv SAMPLE 0.5;
SELECT count() FROM mv_target SAMPLE 0.5;
-- Tables that cannot sample
CREATE TABLE plain (x UInt64) ENGINE = MergeTree ORDER BY x;
SELECT count() FROM plain SAMPLE 0.1; -- { serverError SAMPLING_NOT_SUPPORTED }
SELECT count() FROM system.one SAMPLE 0.1; -- { serverError SAMPLING_NOT_SUPPORTED }
WITH c AS (SELECT * FROM s32) SELECT count() FROM c SAMPLE 0.1; -- { serverError UNSUPPORTED_METHOD }
-- The sampling key's columns cannot be dropped; FINAL samples before rows collapse
ALTER TABLE s32 DROP COLUMN x; -- { serverError ALTER_OF_COLUMN_IS_FORBIDDEN }
CREATE TABLE r (x UInt64, ver UInt64) ENGINE = ReplacingMergeTree(ver) ORDER BY intHash32(x) SAMPLE BY intHash32(x);
INSERT INTO r SELECT number % 50000, number FROM numbers(100000);
SELECT count(), sum(ver) FROM r FINAL SAMPLE 0.1;
SELECT count() FROM r SAMPLE 0.1;
-- ALTER ... MODIFY SAMPLE BY / REMOVE SAMPLE BY change the sampling key, checked as at CREATE
CREATE TABLE am (x UInt64, y UInt32) ENGINE = MergeTree ORDER BY (intHash32(x), y);
INSERT INTO am SELECT number, number FROM numbers(1000);
SELECT count() FROM am SAMPLE 0.5; -- { serverError SAMPLING_NOT_SUPPORTED }
ALTER TABLE am MODIFY SAMPLE BY x; -- { serverError BAD_ARGUMENTS }
ALTER TABLE am MODIFY SAMPLE BY toInt32(y); -- { serverError BAD_ARGUMENTS }
ALTER TABLE am MODIFY SAMPLE BY y;
SELECT count() FROM am SAMPLE 0.5;
ALTER TABLE am MODIFY SAMPLE BY intHash32(x);
SHOW CREATE TABLE am;
SELECT count() FROM am SAMPLE 0.5;
SELECT sampling_key FROM system.tables WHERE database = currentDatabase() AND name = 'am';
ALTER TABLE am REMOVE SAMPLE BY;
SELECT sampling_key FROM system.tables WHERE database = currentDatabase() AND name = 'am';
SELECT count() FROM am SAMPLE 0.5; -- { serverError SAMPLING_NOT_SUPPORTED }
ALTER TABLE am REMOVE SAMPLE BY; -- { serverError BAD_ARGUMENTS }
CREATE TABLE mem (x UInt64) ENGINE = Memory;
ALTER TABLE mem MODIFY SAMPLE BY x; -- { serverError NOT_IMPLEMENTED }
