-- Lightweight DELETE: rows are masked by a _row_exists column until a merge.
CREATE TABLE t (k UInt64, v String, p UInt8) ENGINE = MergeTree PARTITION BY p ORDER BY k SETTINGS min_bytes_for_wide_part = 0;
INSERT INTO t SELECT number, toString(number), 0 FROM numbers(10);
INSERT INTO t SELECT number + 100, toString(number), 1 FROM numbers(10);
DELETE FROM t WHERE k % 3 = 0;
SELECT count() FROM t;
SELECT count() FROM t WHERE k > 100;
SELECT sum(k), max(v) FROM t;
SELECT name, rows, part_type, has_lightweight_delete FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active ORDER BY name;
SELECT name, column, type, column_position, default_kind FROM system.parts_columns WHERE database = currentDatabase() AND table = 't' AND active ORDER BY name, column_position;
SELECT mutation_id, parts_to_do, is_done FROM system.mutations WHERE database = currentDatabase() AND table = 't' ORDER BY mutation_id;
SELECT k, _row_exists FROM t ORDER BY k LIMIT 5;
SELECT k, _row_exists FROM t ORDER BY k LIMIT 5 SETTINGS apply_deleted_mask = 0;
SELECT count() FROM t SETTINGS apply_deleted_mask = 0;
SELECT count() FROM t WHERE _row_exists = 0 SETTINGS apply_deleted_mask = 0;
SELECT _row_exists, count() FROM t GROUP BY 1;
SELECT count() FROM t PREWHERE v != '1' WHERE k < 5;
SELECT * FROM t WHERE k = 3;
SELECT * FROM t WHERE k IN (4, 6, 7) ORDER BY k;
SELECT * FROM t ORDER BY k LIMIT 3;
-- Every row of a part masked: the part keeps its rows until a merge.
DELETE FROM t WHERE k >= 100;
SELECT name, rows, has_lightweight_delete FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active ORDER BY name;
SELECT count(), sum(k) FROM t;
-- A delete matching nothing in a part only renames it.
DELETE FROM t WHERE k = 1000;
SELECT name, rows, has_lightweight_delete FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active ORDER BY name;
-- An ALTER DELETE and an UPDATE on masked parts.
ALTER TABLE t UPDATE v = 'u' WHERE k = 4 SETTINGS mutations_sync = 1;
ALTER TABLE t DELETE WHERE k = 5 SETTINGS mutations_sync = 1;
SELECT * FROM t ORDER BY k;
SELECT name, rows, has_lightweight_delete FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active ORDER BY name;
-- A merge drops the masked rows and the mask.
DELETE FROM t WHERE k = 7;
OPTIMIZE TABLE t FINAL;
SELECT name, rows, has_lightweight_delete FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active ORDER BY name;
SELECT * FROM t ORDER BY k;
SELECT count() FROM t SETTINGS apply_deleted_mask = 0;

-- Compact parts, and FINAL of a ReplacingMergeTree.
CREATE TABLE r (k UInt64, v UInt64) ENGINE = ReplacingMergeTree ORDER BY k;
INSERT INTO r SELECT number % 5, number FROM numbers(10);
INSERT INTO r SELECT number % 5, number + 100 FROM numbers(5);
DELETE FROM r WHERE v >= 102;
SELECT name, rows, part_type, has_lightweight_delete FROM system.parts WHERE database = currentDatabase() AND table = 'r' AND active ORDER BY name;
SELECT * FROM r FINAL ORDER BY k;
SELECT name, column, column_position FROM system.parts_columns WHERE database = currentDatabase() AND table = 'r' AND active ORDER BY name, column_position;
SELECT count() FROM r;
DELETE FROM r WHERE k = 0 SETTINGS lightweight_deletes_sync = 2;
SELECT * FROM r FINAL ORDER BY k;
SELECT k, v, _row_exists FROM r ORDER BY k, v SETTINGS apply_deleted_mask = 0;
OPTIMIZE TABLE r FINAL;
SELECT * FROM r ORDER BY k;
SELECT mutation_id, command FROM system.mutations WHERE database = currentDatabase() AND table = 'r' ORDER BY mutation_id;
