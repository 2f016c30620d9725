-- CREATE TABLE without ENGINE: default_table_engine (MergeTree, ordered by tuple() unless told).
CREATE TABLE plain (x UInt8);
SHOW CREATE TABLE plain;
CREATE TABLE ordered (x UInt8, s String) ORDER BY x;
SELECT engine, sorting_key FROM system.tables WHERE database = currentDatabase() AND name = 'ordered';
INSERT INTO ordered VALUES (2, 'b'), (1, 'a');
SELECT * FROM ordered ORDER BY x;
SET default_table_engine = 'Memory';
CREATE TABLE in_memory (x UInt8);
SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'in_memory';
SET default_table_engine = 'None';
CREATE TABLE nothing (x UInt8); -- { serverError ENGINE_REQUIRED }
SET default_table_engine = 'MergeTree';
SELECT name, value FROM system.settings WHERE name IN ('default_table_engine', 'default_temporary_table_engine') ORDER BY name;

-- CREATE TEMPORARY TABLE: Memory by default, no database, hides a table of its name.
CREATE TEMPORARY TABLE tmp (x UInt8, s String);
SHOW CREATE TEMPORARY TABLE tmp;
INSERT INTO tmp VALUES (1, 'one'), (2, 'two');
SELECT * FROM tmp ORDER BY x;
SELECT name, database, engine, is_temporary FROM system.tables WHERE name = 'tmp';
EXISTS TEMPORARY TABLE tmp;
CREATE TEMPORARY TABLE tmp (x UInt8); -- { serverError TABLE_ALREADY_EXISTS }
CREATE TEMPORARY TABLE IF NOT EXISTS tmp (x UInt8);
CREATE TEMPORARY TABLE default.tmp2 (x UInt8); -- { serverError BAD_DATABASE_FOR_TEMPORARY_TABLE }
CREATE TABLE shadowed (x UInt8) ENGINE = Memory;
INSERT INTO shadowed VALUES (7);
CREATE TEMPORARY TABLE shadowed (x UInt8);
INSERT INTO shadowed VALUES (42);
SELECT * FROM shadowed;
DROP TEMPORARY TABLE shadowed;
SELECT * FROM shadowed;
DROP TEMPORARY TABLE shadowed; -- { serverError UNKNOWN_TABLE }
DROP TEMPORARY TABLE IF EXISTS shadowed;
CREATE TEMPORARY TABLE from_select AS SELECT number AS n FROM numbers(3);
SELECT sum(n), count() FROM from_select;
SET default_temporary_table_engine = 'Log';
CREATE TEMPORARY TABLE logged (x UInt8);
SHOW CREATE TEMPORARY TABLE logged;
INSERT INTO logged VALUES (3);
SELECT * FROM logged;
DROP TABLE logged;
SELECT name FROM system.tables WHERE is_temporary ORDER BY name;
SELECT * FROM input('x UInt8'); -- { serverError INVALID_USAGE_OF_INPUT }
