-- Merge engine and merge() table function, with the _table and _database virtual columns
CREATE TABLE t1 (a UInt8, s String) ENGINE = Memory;
CREATE TABLE t2 (a UInt16, s String, extra UInt8) ENGINE = Memory;
CREATE TABLE other (a UInt8) ENGINE = Memory;
INSERT INTO t1 VALUES (1, 'x'), (3, 'z');
INSERT INTO t2 VALUES (2, 'y', 9);
INSERT INTO other VALUES (100);
SELECT * FROM merge(currentDatabase(), '^t') ORDER BY a FORMAT TSVWithNamesAndTypes;
SELECT *, _table FROM merge(currentDatabase(), '^t') ORDER BY a;
SELECT _table, count(), sum(a) FROM merge(currentDatabase(), '^t') GROUP BY _table ORDER BY _table;
SELECT count() FROM merge(currentDatabase(), '^t') WHERE _database = currentDatabase();
SELECT toTypeName(_table) FROM merge(currentDatabase(), 't1') LIMIT 1;
SELECT a FROM merge('^oth') ORDER BY a;
CREATE TABLE m (a UInt32, s String) ENGINE = Merge(currentDatabase(), '^t');
SELECT * FROM m ORDER BY a FORMAT TSVWithNamesAndTypes;
SELECT a, _table FROM m WHERE _table = 't2';
SELECT a, s FROM m WHERE a > 1 ORDER BY a;
-- Tables created after the Merge table are read too; the Merge table itself is not
CREATE TABLE t3 (a UInt8) ENGINE = Memory;
INSERT INTO t3 VALUES (7);
SELECT a, s, _table FROM m ORDER BY a;
CREATE TABLE everything (a UInt64) ENGINE = Merge(currentDatabase(), '^(t|oth|ev)');
SELECT sum(a) FROM everything;
SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'm';
INSERT INTO m VALUES (1, 'a'); -- { serverError NOT_IMPLEMENTED }
CREATE TABLE bad (a UInt8) ENGINE = Merge(currentDatabase()); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT * FROM merge(currentDatabase(), '^nothing_matches'); -- { serverError CANNOT_EXTRACT_TABLE_STRUCTURE }
SELECT name FROM system.table_engines WHERE name = 'Merge';
SELECT name FROM system.table_functions WHERE name = 'merge';
