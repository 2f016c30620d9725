-- Result names of joined columns that share a name, and qualified names next to
-- temporary tables.
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
SELECT s FROM test_0651_join_names_temporary.t;
INSERT INTO test_0651_join_names_temporary.t VALUES ('regular 2');
SELECT s FROM test_0651_join_names_temporary.t ORDER BY s;
SELECT count() FROM t;
