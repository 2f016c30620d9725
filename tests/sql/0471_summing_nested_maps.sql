-- SummingMergeTree sums nested structures whose name ends in Map by key, as sumMap:
-- keys sorted, entries whose values are all zero removed; rows are then never dropped.
CREATE TABLE s (k UInt32, n Int64, statsMap Nested(id UInt32, hits UInt64, bytes Int64)) ENGINE = SummingMergeTree ORDER BY k;
DESCRIBE TABLE s;
-- One INSERT block is summed when written (optimize_on_insert), also a key of one row.
INSERT INTO s VALUES (1, 1, [3, 1], [10, 20], [1, 2]), (1, 2, [1, 5], [5, 0], [1, 0]), (2, 0, [7], [1], [-1]), (3, 5, [], [], []), (6, 0, [4, 4, 2], [1, 0, 0], [0, 0, 7]);
SELECT * FROM s ORDER BY k;
INSERT INTO s VALUES (2, 0, [7], [-1], [1]), (3, -5, [], [], []), (4, 0, [1], [0], [0]), (5, 0, [], [], []);
INSERT INTO s VALUES (1, 10, [2, 3], [1, 1], [1, -1]), (6, 1, [2, 9], [0, 0], [-7, 0]);
SELECT * FROM s FINAL ORDER BY k;
OPTIMIZE TABLE s FINAL;
SELECT * FROM s ORDER BY k;
SELECT k, statsMap.id, statsMap.hits FROM s ARRAY JOIN statsMap WHERE k = 1 ORDER BY statsMap.id;
-- Key and value types: strings and dates as keys, floats and Nullable values, wrapping sums.
CREATE TABLE t (k UInt32, nameMap Nested(name String, cnt UInt8, d Decimal(10, 2)), dayMap Nested(day Date, x Float64, y Nullable(Int32))) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO t VALUES (1, ['b', 'a'], [200, 2], [1.25, 0], ['2024-01-02', '2024-01-01'], [0.5, 1], [NULL, 3]);
INSERT INTO t VALUES (1, ['a', 'c', 'b'], [3, 0, 100], [-0.5, 0, 2], ['2024-01-01', '2024-01-03'], [-1, 0], [-3, NULL]);
SELECT * FROM t FINAL;
OPTIMIZE TABLE t FINAL;
SELECT * FROM t;
-- Several key columns (first column, *ID, *Key, *Type): ClickHouse's older rule, an entry
-- goes once a sum makes it zero, and a key of a single row keeps its arrays.
CREATE TABLE c (k UInt32, n UInt32, xMap Nested(id Int32, vKey String, hits Int64)) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO c VALUES (1, 1, [1, 1, 2], ['a', 'b', 'a'], [1, 2, 3]), (1, 0, [1, 2], ['b', 'a'], [5, -3]), (2, 0, [1, 1], ['x', 'x'], [0, 0]), (3, 0, [], [], []);
SELECT * FROM c ORDER BY k;
INSERT INTO c VALUES (1, 0, [-1, 1], ['z', 'a'], [4, -1]);
SELECT * FROM c FINAL ORDER BY k;
-- Not summed (the first row's arrays are kept): no Map suffix, a single column, values
-- that are not numbers, keys that are not integers or strings, and Map typed columns.
CREATE TABLE o (k UInt32, n UInt32, stats Nested(id UInt32, hits Int64), oneMap Nested(id UInt32), strMap Nested(id UInt32, s String), fMap Nested(id Float64, v Int64), m Map(String, UInt64)) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO o VALUES (1, 1, [2, 1], [1, 1], [3], [2, 1], ['a', 'b'], [1.5, 0.5], [1, 2], {'b': 1, 'a': 2}), (1, 1, [1], [5], [4], [1], ['c'], [0.5], [3], {'a': 3});
SELECT * FROM o;
-- An explicit column list: the maps are summed anyway; listing the structure is allowed,
-- a listed column that cannot be summed keeps its first value.
CREATE TABLE e (k UInt32, n Int64, m Int64, note String, statsMap Nested(id UInt32, hits UInt64)) ENGINE = SummingMergeTree((n, statsMap, note)) ORDER BY k;
INSERT INTO e VALUES (1, 1, 1, 'x', [3, 1], [10, 20]), (1, 2, 2, 'y', [1, 5], [5, 0]);
SELECT * FROM e;
CREATE TABLE bad1 (k UInt32, n UInt32) ENGINE = SummingMergeTree(k) ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad2 (k UInt32, n UInt32) ENGINE = SummingMergeTree(nope) ORDER BY k; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
