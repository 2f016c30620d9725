-- Nested columns: flattened into Array subcolumns n.a, n.b; unquoted dotted names; ARRAY JOIN of subcolumns; equal array sizes enforced; missing subcolumns filled to the sibling's size
CREATE TABLE nt (id UInt8, n Nested(a UInt8, b String), other Nested(x Float64)) ENGINE = MergeTree ORDER BY id;
DESCRIBE nt;
INSERT INTO nt VALUES (1, [1, 2], ['x', 'y'], [0.5]);
INSERT INTO nt (id, `n.a`, `n.b`) VALUES (2, [3], ['z']);
INSERT INTO nt (id, n.a, n.b, other.x) VALUES (4, [5], ['w'], [1.5, 2.5]);
INSERT INTO nt (id, n.a) VALUES (5, [7, 8, 9]);
INSERT INTO nt VALUES (3, [1], ['x', 'y'], []); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
INSERT INTO nt (id, n.a, n.b) SELECT 6, [1], []; -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT * FROM nt ORDER BY id;
SELECT n.a, n.b, `n.a`, other.x FROM nt ORDER BY id;
SELECT t.n.a, t.other.x FROM nt AS t ORDER BY id;
SELECT nt.n.b FROM nt ORDER BY id;
SELECT id, n.a, n.b FROM nt ARRAY JOIN n.a, n.b ORDER BY id, n.a;
SELECT id, a FROM nt ARRAY JOIN n.a AS a ORDER BY id, a;
SELECT id, n.a FROM nt ARRAY JOIN n.a WHERE n.a > 2 ORDER BY id;
SELECT toTypeName(n.a), length(n.b), arraySum(n.a) FROM nt ORDER BY id;
SELECT id FROM nt WHERE has(n.b, 'z');
SELECT n.c FROM nt; -- { serverError UNKNOWN_IDENTIFIER }
SELECT * FROM nt ORDER BY id FORMAT TSVWithNamesAndTypes;
