-- OPTIMIZE ... FINAL CLEANUP that deletes every row of a partition leaves an empty active
-- part (0 rows, 0 marks), as ClickHouse does; reads, FINAL, inserts and merges go on.
CREATE TABLE r (p UInt8, k UInt32, v String, ver UInt32, del UInt8) ENGINE = ReplacingMergeTree(ver, del) PARTITION BY p ORDER BY k SETTINGS allow_experimental_replacing_merge_with_cleanup = 1;
INSERT INTO r VALUES (1, 1, 'a', 1, 0), (1, 2, 'b', 1, 0), (2, 1, 'c', 1, 0);
INSERT INTO r VALUES (1, 1, 'a', 2, 1), (1, 2, 'b', 2, 1);
OPTIMIZE TABLE r FINAL CLEANUP;
SELECT partition, rows, marks, active FROM system.parts WHERE database = currentDatabase() AND table = 'r' AND active ORDER BY partition;
SELECT * FROM r ORDER BY p, k;
SELECT * FROM r FINAL ORDER BY p, k;
SELECT count(), sum(k) FROM r WHERE p = 1;
SELECT count() FROM r FINAL WHERE p = 1;
SELECT * FROM r WHERE k = 1 ORDER BY p;
SELECT p, count() FROM r GROUP BY p ORDER BY p;
SELECT max(k), min(k) FROM r;
SELECT * FROM r ORDER BY k DESC LIMIT 1;
SELECT _partition_id, count() FROM r GROUP BY _partition_id ORDER BY _partition_id;
-- CLEANUP again, and FINAL, on the empty part alone: still one empty part.
OPTIMIZE TABLE r PARTITION 1 FINAL CLEANUP;
OPTIMIZE TABLE r PARTITION 1 FINAL;
SELECT partition, rows, marks, active FROM system.parts WHERE database = currentDatabase() AND table = 'r' AND active ORDER BY partition;
-- New rows in the partition merge with the empty part.
INSERT INTO r VALUES (1, 5, 'e', 1, 0), (1, 1, 'a', 3, 0);
-- (Only partition 1: ClickHouse 26.9's FINAL loses partition 2's row here, a bug.)
SELECT * FROM r FINAL WHERE p = 1 ORDER BY p, k;
OPTIMIZE TABLE r FINAL;
SELECT partition, rows, active FROM system.parts WHERE database = currentDatabase() AND table = 'r' AND active ORDER BY partition;
SELECT * FROM r ORDER BY p, k;
-- A whole table deleted; then a merge picks the empty part up with new parts.
CREATE TABLE g (k UInt32, ver UInt32, del UInt8) ENGINE = ReplacingMergeTree(ver, del) ORDER BY k SETTINGS allow_experimental_replacing_merge_with_cleanup = 1;
INSERT INTO g VALUES (1, 1, 1), (2, 1, 1);
OPTIMIZE TABLE g FINAL CLEANUP;
SELECT rows, marks, active FROM system.parts WHERE database = currentDatabase() AND table = 'g' AND active;
SELECT count() FROM g;
SELECT count() FROM g FINAL;
INSERT INTO g VALUES (4, 2, 0);
INSERT INTO g VALUES (5, 2, 0);
OPTIMIZE TABLE g FINAL;
SELECT rows, active FROM system.parts WHERE database = currentDatabase() AND table = 'g' AND active;
SELECT * FROM g FINAL ORDER BY k;
-- Merges of other engines that leave no row keep an empty part too.
CREATE TABLE c (k UInt32, sign Int8) ENGINE = CollapsingMergeTree(sign) ORDER BY k;
INSERT INTO c VALUES (1, 1);
INSERT INTO c VALUES (1, -1);
OPTIMIZE TABLE c FINAL;
SELECT rows, marks, active FROM system.parts WHERE database = currentDatabase() AND table = 'c' AND active;
SELECT count() FROM c;
CREATE TABLE s (d Date, k UInt32, v Int32) ENGINE = SummingMergeTree PARTITION BY toYYYYMM(d) ORDER BY k;
INSERT INTO s VALUES ('2024-01-05', 1, 1), ('2024-02-05', 1, 5);
INSERT INTO s VALUES ('2024-01-07', 1, -1);
OPTIMIZE TABLE s FINAL;
SELECT partition, rows, marks, active FROM system.parts WHERE database = currentDatabase() AND table = 's' AND active ORDER BY partition;
SELECT * FROM s ORDER BY d;
SELECT * FROM s WHERE d = '2024-01-05';
