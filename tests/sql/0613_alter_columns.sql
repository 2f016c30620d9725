-- ALTER TABLE ... ADD/DROP/RENAME/MODIFY/COMMENT COLUMN on MergeTree, with parts written before.
CREATE TABLE t (k UInt32, s String, v Int64) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 4;
INSERT INTO t SELECT number, toString(number), number * 10 FROM numbers(10);
ALTER TABLE t ADD COLUMN w UInt8 DEFAULT 3;
ALTER TABLE t ADD COLUMN f Float64 FIRST, ADD COLUMN d UInt64 DEFAULT 42 AFTER s;
SELECT * FROM t ORDER BY k;
INSERT INTO t (k, s, v, w) VALUES (100, '1000', 5, 9);
SELECT k, w, d FROM t ORDER BY k;
ALTER TABLE t DROP COLUMN f;
ALTER TABLE t RENAME COLUMN s TO name;
SELECT * FROM t WHERE k < 3 ORDER BY k;
ALTER TABLE t MODIFY COLUMN v Int32;
SELECT any(toTypeName(v)), sum(v) FROM t;
ALTER TABLE t MODIFY COLUMN name UInt32;
SELECT name + 1 FROM t WHERE k < 3 ORDER BY k;
ALTER TABLE t MODIFY COLUMN w DEFAULT 7;
INSERT INTO t (k) VALUES (200);
SELECT k, w FROM t WHERE k = 200;
ALTER TABLE t COMMENT COLUMN w 'the w', MODIFY COLUMN d COMMENT 'the d';
ALTER TABLE t MODIFY COMMENT 'table comment';
SELECT name, type, default_kind, default_expression, comment FROM system.columns WHERE database = currentDatabase() AND table = 't' ORDER BY position;
SELECT comment FROM system.tables WHERE database = currentDatabase() AND name = 't';
SHOW CREATE TABLE t;
ALTER TABLE t ADD COLUMN IF NOT EXISTS w String, DROP COLUMN IF EXISTS nope, RENAME COLUMN IF EXISTS nope TO nope2, MODIFY COLUMN IF EXISTS nope UInt8;
ALTER TABLE t ADD COLUMN w UInt8; -- { serverError DUPLICATE_COLUMN }
ALTER TABLE t DROP COLUMN nope; -- { serverError NOT_FOUND_COLUMN_IN_BLOCK }
ALTER TABLE t DROP COLUMN k; -- { serverError ALTER_OF_COLUMN_IS_FORBIDDEN }
ALTER TABLE t RENAME COLUMN k TO k2; -- { serverError ALTER_OF_COLUMN_IS_FORBIDDEN }
ALTER TABLE t RENAME COLUMN w TO d; -- { serverError DUPLICATE_COLUMN }
ALTER TABLE t ADD COLUMN z UInt8 AFTER nope; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
ALTER TABLE t MODIFY COLUMN nope UInt8; -- { serverError NOT_FOUND_COLUMN_IN_BLOCK }
ALTER TABLE t MODIFY SETTING nope_setting = 1; -- { serverError UNKNOWN_SETTING }
OPTIMIZE TABLE t FINAL;
SELECT count(), sum(v), sumIf(w, k >= 100), sum(d) FROM t;
-- A rename survives merges, and a column dropped then added again starts from defaults.
ALTER TABLE t RENAME COLUMN d TO d2;
INSERT INTO t (k, v) VALUES (300, 1);
OPTIMIZE TABLE t FINAL;
SELECT k, name, d2 FROM t WHERE k IN (1, 100, 300) ORDER BY k;
ALTER TABLE t MODIFY SETTING old_parts_lifetime = 100;
ALTER TABLE t RESET SETTING old_parts_lifetime;
SHOW CREATE TABLE t;
-- A value that does not convert fails the ALTER.
CREATE TABLE bad (k UInt32, s String) ENGINE = MergeTree ORDER BY k;
INSERT INTO bad VALUES (1, '5'), (2, 'x');
ALTER TABLE bad MODIFY COLUMN s UInt32; -- { serverError UNFINISHED }
