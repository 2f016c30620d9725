-- ReplacingMergeTree(ver, is_deleted): the latest version of a key wins; a deleted one
-- stays through merges, but FINAL does not show it and OPTIMIZE ... FINAL CLEANUP drops it.
CREATE TABLE r (k UInt32, v String, ver UInt32, del UInt8) ENGINE = ReplacingMergeTree(ver, del) ORDER BY k SETTINGS allow_experimental_replacing_merge_with_cleanup = 1;
-- One INSERT block is collapsed when written (optimize_on_insert), deleted rows kept.
INSERT INTO r VALUES (1, 'a', 1, 0), (1, 'a1', 2, 1), (2, 'b', 1, 1), (2, 'b1', 1, 0), (3, 'c', 5, 0), (3, 'c0', 4, 1);
SELECT * FROM r ORDER BY k;
INSERT INTO r VALUES (4, 'd', 1, 0), (5, 'e', 1, 0), (6, 'f', 1, 1);
INSERT INTO r VALUES (1, 'a2', 3, 0), (4, 'd1', 2, 1), (5, 'e0', 0, 1), (6, 'f1', 2, 0);
-- FINAL: the latest version of every key, without the deleted ones.
SELECT * FROM r FINAL ORDER BY k;
SELECT count(), sum(ver) FROM r FINAL;
-- Filters apply after the merge: a deleted latest version is not found, older ones neither.
SELECT * FROM r FINAL WHERE del = 1 ORDER BY k;
SELECT * FROM r FINAL WHERE v = 'd' ORDER BY k;
SELECT * FROM r FINAL PREWHERE del = 1 ORDER BY k;
-- OPTIMIZE FINAL keeps the latest version, deleted or not.
OPTIMIZE TABLE r FINAL;
SELECT * FROM r ORDER BY k;
SELECT * FROM r FINAL ORDER BY k;
-- CLEANUP without FINAL does nothing more than a merge.
OPTIMIZE TABLE r CLEANUP;
SELECT count() FROM r;
-- FINAL CLEANUP drops the deleted rows, also from a single part.
OPTIMIZE TABLE r FINAL CLEANUP;
SELECT * FROM r ORDER BY k;
INSERT INTO r VALUES (7, 'g', 1, 1), (8, 'h', 1, 0);
OPTIMIZE TABLE r FINAL;
SELECT * FROM r ORDER BY k;
OPTIMIZE TABLE r FINAL CLEANUP;
SELECT * FROM r ORDER BY k;
SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 'r' AND active;
-- Every row of a table deleted: nothing left.
CREATE TABLE gone (k UInt32, ver UInt32, del UInt8) ENGINE = ReplacingMergeTree(ver, del) ORDER BY k SETTINGS allow_experimental_replacing_merge_with_cleanup = 1;
INSERT INTO gone VALUES (1, 1, 1), (2, 1, 1);
SELECT count() FROM gone FINAL;
OPTIMIZE TABLE gone FINAL CLEANUP;
SELECT count() FROM gone;
-- is_deleted values other than 0 and 1 are refused; nothing of the INSERT is kept.
INSERT INTO r VALUES (9, 'z', 1, 0), (10, 'z', 1, 2); -- { serverError INCORRECT_DATA }
SELECT count() FROM r WHERE k >= 9;
-- Partitions: CLEANUP of one partition leaves the other.
CREATE TABLE rp (d Date, k UInt64, n Int64, ver UInt64, del UInt8) ENGINE = ReplacingMergeTree(ver, del) PARTITION BY toYYYYMM(d) ORDER BY (k, d) SETTINGS allow_experimental_replacing_merge_with_cleanup = 1;
INSERT INTO rp SELECT toDate('2024-01-20') + number % 20, number % 13, number, number, number % 3 = 0 FROM numbers(200);
INSERT INTO rp SELECT toDate('2024-01-20') + number % 20, number % 13, -number, number + 100, number % 5 = 0 FROM numbers(100);
SELECT toYYYYMM(d) AS m, count(), sum(n), sum(ver) FROM rp FINAL GROUP BY m ORDER BY m;
OPTIMIZE TABLE rp PARTITION 202401 FINAL CLEANUP;
SELECT count(), sum(n), sum(del) FROM rp WHERE toYYYYMM(d) = 202401;
SELECT toYYYYMM(d) AS m, count(), sum(n), sum(ver) FROM rp FINAL GROUP BY m ORDER BY m;
-- Bool works as is_deleted.
CREATE TABLE rb (k UInt32, ver UInt32, del Bool) ENGINE = ReplacingMergeTree(ver, del) ORDER BY k;
INSERT INTO rb VALUES (1, 1, true), (2, 1, false), (3, 2, false);
INSERT INTO rb VALUES (3, 3, true);
SELECT * FROM rb FINAL ORDER BY k;
-- A single argument is the version, whatever its name.
CREATE TABLE r1 (k UInt32, del UInt8) ENGINE = ReplacingMergeTree(del) ORDER BY k;
INSERT INTO r1 VALUES (1, 1), (1, 0);
SELECT * FROM r1 FINAL;
SELECT name, engine, engine_full FROM system.tables WHERE database = currentDatabase() AND name IN ('r', 'r1') ORDER BY name;
-- CLEANUP needs the table setting and a ReplacingMergeTree.
CREATE TABLE nocleanup (k UInt32, ver UInt32, del UInt8) ENGINE = ReplacingMergeTree(ver, del) ORDER BY k SETTINGS clean_deleted_rows = 'Always';
INSERT INTO nocleanup VALUES (1, 1, 1);
INSERT INTO nocleanup VALUES (2, 1, 1);
OPTIMIZE TABLE nocleanup FINAL CLEANUP; -- { serverError SUPPORT_IS_DISABLED }
-- clean_deleted_rows is obsolete: OPTIMIZE FINAL keeps the deleted rows.
OPTIMIZE TABLE nocleanup FINAL;
SELECT * FROM nocleanup ORDER BY k;
CREATE TABLE plain (k UInt32) ENGINE = MergeTree ORDER BY k SETTINGS allow_experimental_replacing_merge_with_cleanup = 1;
OPTIMIZE TABLE plain FINAL CLEANUP; -- { serverError CANNOT_ASSIGN_OPTIMIZE }
-- Bad definitions.
CREATE TABLE bad1 (k UInt32, ver UInt32, del UInt16) ENGINE = ReplacingMergeTree(ver, del) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
CREATE TABLE bad2 (k UInt32, ver UInt32, del Nullable(UInt8)) ENGINE = ReplacingMergeTree(ver, del) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
CREATE TABLE bad3 (k UInt32, ver UInt32, del Int8) ENGINE = ReplacingMergeTree(ver, del) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
CREATE TABLE bad4 (k UInt32, ver UInt32, del UInt8) ENGINE = ReplacingMergeTree(ver, nope) ORDER BY k; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
CREATE TABLE bad5 (k UInt32, ver UInt32, del UInt8) ENGINE = ReplacingMergeTree(ver, ver) ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad6 (k UInt32, ver UInt32, del UInt8) ENGINE = ReplacingMergeTree(ver, del, k) ORDER BY k; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
CREATE TABLE bad7 (k UInt32, ver UInt32, del UInt8) ENGINE = ReplacingMergeTree(ver, del) ORDER BY k SETTINGS clean_deleted_rows = 'Sometimes'; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad8 (k UInt32, ver UInt32, del UInt8) ENGINE = ReplacingMergeTree(ver, del) ORDER BY k SETTINGS allow_experimental_replacing_merge_with_cleanup = 2; -- { serverError CANNOT_CONVERT_TYPE }
CREATE TABLE bad9 (k UInt32, ver String, del UInt8) ENGINE = ReplacingMergeTree(ver, del) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = 'nocleanup';
