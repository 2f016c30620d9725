-- MergeTree: system.parts, CHECK TABLE, partition commands, DELETE mutations, FINAL,
-- OPTIMIZE ... PARTITION, SYSTEM STOP/START MERGES.
CREATE TABLE t (d Date, id UInt64, s String) ENGINE = MergeTree PARTITION BY toYYYYMM(d) ORDER BY id;
SYSTEM STOP MERGES t;
INSERT INTO t VALUES ('2024-01-02', 1, 'a'), ('2024-02-03', 2, 'b'), ('2024-01-05', 3, 'c');
INSERT INTO t VALUES ('2024-03-01', 4, 'd'), ('2024-01-09', 5, 'e');
SELECT partition, name, partition_id, active, marks, rows, level, min_block_number, max_block_number FROM system.parts WHERE database = currentDatabase() AND table = 't' ORDER BY name;
SELECT count(), sum(rows) FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active = 1;
SELECT engine, total_rows FROM system.tables WHERE database = currentDatabase() AND name = 't';
CHECK TABLE t SETTINGS check_query_single_value_result = 1;
CHECK TABLE t PARTITION 202402;
OPTIMIZE TABLE t FINAL; -- { serverError ABORTED }
SYSTEM START MERGES t;
OPTIMIZE TABLE t PARTITION 202401 FINAL;
SELECT name, rows, level FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active = 1 ORDER BY name;
SELECT * FROM t ORDER BY id;
ALTER TABLE t DROP PARTITION 202402;
SELECT * FROM t ORDER BY id;
ALTER TABLE t DETACH PARTITION 202403;
SELECT * FROM t ORDER BY id;
ALTER TABLE t ATTACH PARTITION 202403;
SELECT * FROM t ORDER BY id;
ALTER TABLE t DELETE WHERE s = 'c' SETTINGS mutations_sync = 2;
SELECT * FROM t ORDER BY id;
SET mutations_sync = 1;
ALTER TABLE t DELETE WHERE id > 4;
SELECT * FROM t ORDER BY id;
SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active = 1 AND partition_id = '202401';
ALTER TABLE t DROP PARTITION (202401, 1); -- { serverError INVALID_PARTITION_VALUE }
ALTER TABLE t DROP PARTITION ID '202401';
SELECT * FROM t ORDER BY id;
CHECK TABLE t SETTINGS check_query_single_value_result = 1;
CREATE TABLE r (k UInt32, v String, ver UInt32) ENGINE = ReplacingMergeTree(ver) ORDER BY k;
SYSTEM STOP MERGES r;
INSERT INTO r VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 1);
INSERT INTO r VALUES (1, 'a2', 2), (2, 'b0', 0);
INSERT INTO r VALUES (3, 'c3', 3), (4, 'd', 1);
SELECT count() FROM r;
SELECT * FROM r FINAL ORDER BY k;
SELECT k, v FROM r FINAL WHERE k = 2;
SELECT count() FROM r FINAL WHERE ver >= 1;
SELECT * FROM r FINAL ORDER BY k LIMIT 2;
CREATE TABLE sm (k String, n UInt64, x Float64) ENGINE = SummingMergeTree ORDER BY k;
SYSTEM STOP MERGES sm;
INSERT INTO sm VALUES ('a', 1, 0.5), ('b', 2, 1);
INSERT INTO sm VALUES ('a', 10, 0.25), ('c', 1, 1);
INSERT INTO sm VALUES ('b', 5, 2), ('a', 100, 0);
SELECT * FROM sm FINAL ORDER BY k;
SELECT sum(n) FROM sm FINAL WHERE k >= 'b';
SELECT k, n FROM sm ORDER BY k, n;
CREATE TABLE m (k UInt32) ENGINE = Memory;
CHECK TABLE m; -- { serverError NOT_IMPLEMENTED }
