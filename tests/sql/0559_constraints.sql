-- CHECK constraints fail the whole INSERT at the first row that breaks them; ASSUME ones
-- are only kept; ADD/DROP CONSTRAINT
CREATE TABLE checked (a UInt64, b String, CONSTRAINT pos CHECK a > 0, CONSTRAINT short ASSUME length(b) < 10) ENGINE = MergeTree ORDER BY a;
INSERT INTO checked VALUES (1, 'x');
INSERT INTO checked VALUES (2, 'y'), (0, 'z'); -- { serverError VIOLATED_CONSTRAINT }
INSERT INTO checked SELECT number, 'n' FROM numbers(3); -- { serverError VIOLATED_CONSTRAINT }
INSERT INTO checked FORMAT CSV 5,"a long string that breaks the assumption"
;
SELECT * FROM checked ORDER BY a;
SHOW CREATE TABLE checked;
SELECT create_table_query FROM system.tables WHERE database = currentDatabase() AND name = 'checked';
ALTER TABLE checked ADD CONSTRAINT small CHECK a < 100;
INSERT INTO checked VALUES (200, 'w'); -- { serverError VIOLATED_CONSTRAINT }
ALTER TABLE checked ADD CONSTRAINT small CHECK a < 10; -- { serverError ILLEGAL_COLUMN }
ALTER TABLE checked ADD CONSTRAINT IF NOT EXISTS small CHECK a < 10;
ALTER TABLE checked DROP CONSTRAINT small;
INSERT INTO checked VALUES (200, 'w');
ALTER TABLE checked DROP CONSTRAINT nope; -- { serverError BAD_ARGUMENTS }
ALTER TABLE checked DROP CONSTRAINT IF EXISTS nope;
SELECT * FROM checked ORDER BY a;
-- Constraints see the defaults
CREATE TABLE checked_defaults (a UInt64, b UInt64 DEFAULT a * 2, CONSTRAINT even CHECK b % 2 = 0, CONSTRAINT bounded CHECK b < 10) ENGINE = Memory;
INSERT INTO checked_defaults (a) VALUES (1), (2);
INSERT INTO checked_defaults (a) VALUES (7); -- { serverError VIOLATED_CONSTRAINT }
INSERT INTO checked_defaults VALUES (1, 3); -- { serverError VIOLATED_CONSTRAINT }
SELECT * FROM checked_defaults ORDER BY a;
-- NULL is a violation; a non-boolean CHECK is an error
CREATE TABLE checked_nulls (a Nullable(UInt64), CONSTRAINT pos CHECK a > 0) ENGINE = Memory;
INSERT INTO checked_nulls VALUES (NULL); -- { serverError VIOLATED_CONSTRAINT }
INSERT INTO checked_nulls VALUES (3);
SELECT * FROM checked_nulls;
CREATE TABLE checked_number (a UInt64, CONSTRAINT x CHECK a) ENGINE = Memory;
INSERT INTO checked_number VALUES (1); -- { serverError UNSUPPORTED_METHOD }
CREATE TABLE checked_unknown (a UInt64, CONSTRAINT x CHECK zz > 0) ENGINE = Memory; -- { serverError UNKNOWN_IDENTIFIER }
