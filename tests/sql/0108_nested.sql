-- Nested columns: stored as Array subcolumns n.a, n.b; `n` is the group of them.
CREATE TABLE t (id UInt32, n Nested(a UInt32, b String)) ENGINE = MergeTree ORDER BY id;
INSERT INTO t VALUES (1, [1, 2], ['x', 'y']), (2, [3], ['z']), (3, [], []);
DESCRIBE TABLE t;
SHOW CREATE TABLE t;
CREATE TABLE s (x UInt8) ENGINE = ReplacingMergeTree ORDER BY x SETTINGS min_bytes_for_wide_part = 0;
SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = 's';
SELECT n FROM t ORDER BY id FORMAT TSVWithNamesAndTypes;
SELECT t.n FROM t ORDER BY id;
SELECT id, length(n) FROM t ORDER BY id;
SELECT n.a, n.b FROM t ORDER BY id FORMAT TSVWithNamesAndTypes;
SELECT id, n.a, n.b FROM t ARRAY JOIN n ORDER BY id, n.a FORMAT TSVWithNamesAndTypes;
SELECT * FROM t ARRAY JOIN n ORDER BY id, n.a FORMAT TSVWithNamesAndTypes;
SELECT id, n.a FROM t LEFT ARRAY JOIN n ORDER BY id, n.a;
SELECT id, n FROM t ARRAY JOIN n ORDER BY id, n.a FORMAT TSVWithNamesAndTypes;
SELECT id, n.a, n.b, m.a, m.b FROM t ARRAY JOIN n AS m ORDER BY id, m.a FORMAT TSVWithNamesAndTypes;
SELECT id, m FROM t ARRAY JOIN n AS m ORDER BY id, m.a FORMAT TSVWithNamesAndTypes;
SELECT id, n.a FROM t ARRAY JOIN n WHERE n.a > 1 ORDER BY n.a DESC;
SELECT n.a, n.b FROM (SELECT * FROM t) ARRAY JOIN n ORDER BY n.a;
SELECT id, n.a, n.b FROM t ARRAY JOIN n.a ORDER BY id, n.a FORMAT TSVWithNamesAndTypes;
SELECT sum(n.a) FROM (SELECT n.a FROM t ARRAY JOIN n ORDER BY n.a);
SELECT id FROM t ORDER BY n.a DESC;
INSERT INTO t VALUES (4, [1, 2], ['x']); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
INSERT INTO t (id, n.a, n.b) VALUES (4, [1], ['q', 'r']); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
INSERT INTO t (id, n.a) VALUES (5, [7, 8]);
SELECT id, n FROM t WHERE id = 5;
-- The group is the names: columns written `n.x` make a Nested column too.
CREATE TABLE flat (id UInt32, `g.k` Array(UInt8), `g.v` Array(String), `g.s` String) ENGINE = Memory;
INSERT INTO flat VALUES (1, [1, 2], ['p', 'q'], 'one');
INSERT INTO flat VALUES (2, [1], [], 'two'); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT g FROM flat FORMAT TSVWithNamesAndTypes;
SELECT id, g.k, g.v, g.s FROM flat ARRAY JOIN g;
SELECT id, e.k, e.v FROM flat ARRAY JOIN g AS e;
SHOW CREATE TABLE flat;
-- `*` does not show ARRAY JOIN aliases.
SELECT * FROM t ARRAY JOIN n AS m ORDER BY id, m.a FORMAT TSVWithNames;
SELECT *, m.b FROM t ARRAY JOIN n AS m ORDER BY id, m.a FORMAT TSVWithNames;
SELECT * FROM (SELECT 1 AS id, [1, 2] AS arr) ARRAY JOIN arr AS x FORMAT TSVWithNames;
SELECT *, x FROM (SELECT 1 AS id, [1, 2] AS arr) ARRAY JOIN arr AS x, arr AS y ORDER BY x FORMAT TSVWithNames;
SELECT * EXCEPT (id) FROM (SELECT 1 AS id, [1, 2] AS arr) ARRAY JOIN arr AS x FORMAT TSVWithNames;
