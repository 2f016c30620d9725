-- Result names of joined columns that share a name, qualified names next to temporary
-- tables, EPHEMERAL columns (not readable) and ALIAS columns (computed when read).
CREATE TABLE x (a UInt8, b String) ENGINE = Memory;
CREATE TABLE y (a UInt8, c String) ENGINE = Memory;
INSERT INTO x VALUES (1, 'x1'), (2, 'x2');
INSERT INTO y VALUES (1, 'y1'), (3, 'y3');
SELECT x.a, y.a FROM x JOIN y ON x.a = y.a FORMAT TSVWithNames;
SELECT y.a, x.a FROM x JOIN y ON x.a = y.a FORMAT TSVWithNames;
SELECT * FROM x JOIN y ON x.a = y.a FORMAT TSVWithNames;
SELECT * FROM x JOIN y USING a FORMAT TSVWithNames;
SELECT x.*, y.* FROM x JOIN y ON x.a = y.a FORMAT TSVWithNames;
SELECT l.a, r.a, l.b, r.c FROM x AS l LEFT JOIN y AS r ON l.a = r.a ORDER BY l.a FORMAT TSVWithNames;
SELECT x.a, y.a FROM x JOIN y USING a FORMAT TSVWithNames;
SELECT x.a AS xa, y.a FROM x JOIN y ON x.a = y.a FORMAT TSVWithNames;
SELECT x.b, y.c FROM x JOIN y ON x.a = y.a FORMAT TSVWithNames;
SELECT y.a, x.a FROM x JOIN y ON x.a = y.a ORDER BY y.a LIMIT 1 FORMAT TSVWithNames;
SELECT DISTINCT x.a, y.a, y.c FROM x JOIN y ON x.a = y.a FORMAT TSVWithNames;
SELECT * FROM x AS p JOIN x AS q ON p.a = q.a ORDER BY p.a FORMAT TSVWithNames;
CREATE TABLE t (s String) ENGINE = Memory;
INSERT INTO t VALUES ('regular');
CREATE TEMPORARY TABLE t (s String);
INSERT INTO t VALUES ('temporary');
SELECT s FROM t;
SELECT s FROM test_0651_names_and_computed_columns.t;
INSERT INTO test_0651_names_and_computed_columns.t VALUES ('regular 2');
SELECT s FROM test_0651_names_and_computed_columns.t ORDER BY s;
SELECT count() FROM t;
CREATE TABLE e (id UInt8, e UInt8 EPHEMERAL, d UInt8 DEFAULT e * 2, al UInt16 ALIAS id + 100) ENGINE = MergeTree ORDER BY id;
INSERT INTO e (id, e) VALUES (1, 5);
INSERT INTO e (id) VALUES (2);
SELECT * FROM e ORDER BY id FORMAT TSVWithNames;
SELECT e FROM e; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
SELECT id FROM e WHERE e = 5; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
SELECT al FROM e ORDER BY al FORMAT TSVWithNames;
SELECT * FROM e ORDER BY id FORMAT TSVWithNames SETTINGS asterisk_include_alias_columns = 1;
ALTER TABLE e MODIFY COLUMN al UInt16 ALIAS id + 200;
SELECT id, al FROM e ORDER BY id;
SELECT id, al FROM e WHERE id = 1;
SELECT x.al, x.id FROM e AS x WHERE x.al > 201;
SELECT *, al FROM e ORDER BY id FORMAT TSVWithNames;
SELECT sum(al), toTypeName(any(al)) FROM e;
SELECT count() FROM (SELECT * FROM e);
CREATE TABLE r (k UInt8, v UInt8, twice UInt16 ALIAS v * 2) ENGINE = ReplacingMergeTree ORDER BY k;
INSERT INTO r VALUES (1, 1);
INSERT INTO r VALUES (1, 5);
SELECT k, twice FROM r FINAL;
