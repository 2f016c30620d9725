-- Column ALTERs of MergeTree parts (wide parts are made by hard links, see
-- tests/test_lightweight_delete.py), MATERIALIZE COLUMN and finished_mutations_to_keep.
CREATE TABLE w (k UInt32, s String, v UInt64) ENGINE = MergeTree ORDER BY k SETTINGS min_bytes_for_wide_part = 0;
CREATE TABLE c (k UInt32, s String, v UInt64) ENGINE = MergeTree ORDER BY k;
INSERT INTO w SELECT number, toString(number), number * 10 FROM numbers(6);
INSERT INTO c SELECT number, toString(number), number * 10 FROM numbers(6);
ALTER TABLE w ADD COLUMN d UInt64 DEFAULT k + 1;
ALTER TABLE c ADD COLUMN d UInt64 DEFAULT k + 1;
SELECT * FROM w ORDER BY k;
SELECT * FROM c ORDER BY k;
ALTER TABLE w RENAME COLUMN s TO t;
ALTER TABLE c RENAME COLUMN s TO t;
ALTER TABLE w MODIFY COLUMN t UInt64;
ALTER TABLE c MODIFY COLUMN t UInt64;
SELECT k, t, toTypeName(t) FROM w ORDER BY k;
SELECT k, t, toTypeName(t) FROM c ORDER BY k;
ALTER TABLE w DROP COLUMN v;
ALTER TABLE c DROP COLUMN v;
SELECT * FROM w ORDER BY k;
SELECT * FROM c ORDER BY k;
SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = 'w' ORDER BY position;
-- Lightweight delete, then a column change of the masked parts.
DELETE FROM w WHERE k % 2 = 0;
DELETE FROM c WHERE k % 2 = 0;
ALTER TABLE w ADD COLUMN e String DEFAULT 'x';
ALTER TABLE c ADD COLUMN e String DEFAULT 'x';
SELECT * FROM w ORDER BY k;
SELECT * FROM c ORDER BY k;
SELECT count() FROM w;
INSERT INTO w (k) VALUES (100);
OPTIMIZE TABLE w FINAL;
SELECT * FROM w ORDER BY k;

-- MATERIALIZE COLUMN: a mutation computing the column from its expression.
CREATE TABLE m (k UInt32, s String, p UInt64 MATERIALIZED k * 2, q UInt64 DEFAULT k * 3) ENGINE = MergeTree ORDER BY k SETTINGS finished_mutations_to_keep = 5;
INSERT INTO m (k, s) SELECT number, toString(number) FROM numbers(4);
ALTER TABLE m MATERIALIZE COLUMN p SETTINGS mutations_sync = 1;
SELECT k, p, q FROM m ORDER BY k;
SELECT mutation_id, command, is_done FROM system.mutations WHERE database = currentDatabase() AND table = 'm' ORDER BY mutation_id;
ALTER TABLE m MATERIALIZE COLUMN nope; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
ALTER TABLE m MATERIALIZE COLUMN s; -- { serverError BAD_ARGUMENTS }
ALTER TABLE m MATERIALIZE COLUMN k; -- { serverError CANNOT_UPDATE_COLUMN }
SELECT name, value FROM system.merge_tree_settings WHERE name IN ('finished_mutations_to_keep', 'lightweight_mutation_projection_mode') ORDER BY name;
CREATE TABLE p (k UInt32) ENGINE = MergeTree ORDER BY k SETTINGS lightweight_mutation_projection_mode = 'drop';
SELECT name FROM system.tables WHERE database = currentDatabase() AND name = 'p';
