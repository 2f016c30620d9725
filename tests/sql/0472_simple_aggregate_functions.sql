-- SimpleAggregateFunction columns of AggregatingMergeTree and SummingMergeTree, combined
-- by their function when rows of one sorting key meet.
CREATE TABLE a (k UInt32, a SimpleAggregateFunction(anyLast, Nullable(String)), b SimpleAggregateFunction(max, Nullable(Int32)), c SimpleAggregateFunction(any, Nullable(Int32)), m SimpleAggregateFunction(min, String), u SimpleAggregateFunction(groupUniqArrayArray, Array(UInt32)), g SimpleAggregateFunction(groupArrayArray, Array(String)), o SimpleAggregateFunction(groupBitOr, UInt8), x SimpleAggregateFunction(groupBitXor, Int8), an SimpleAggregateFunction(groupBitAnd, Nullable(Int16)), s SimpleAggregateFunction(sum, Nullable(Int64)), w SimpleAggregateFunction(sumWithOverflow, UInt8)) ENGINE = AggregatingMergeTree ORDER BY k;
-- One INSERT block is combined when written (optimize_on_insert).
INSERT INTO a VALUES (1, 'x', 1, NULL, 'b', [1, 2], ['a'], 1, -128, NULL, NULL, 200), (1, NULL, NULL, 5, 'a', [2, 3, 3], ['b', 'c'], 4, 1, -2, NULL, 100), (3, NULL, NULL, NULL, '', [5, 5], [], 0, 0, NULL, NULL, 0);
SELECT k, a, b, c, m, arraySort(CAST(u AS Array(UInt32))), g, o, x, an, s, w FROM a ORDER BY k;
INSERT INTO a VALUES (1, 'y', 7, 6, 'c', [], [], 8, 2, 6, 5, 1), (2, NULL, NULL, NULL, 'z', [5, 5], [], 0, 0, 0, 1, 0);
INSERT INTO a VALUES (1, NULL, -1, 9, 'a', [4, 1], ['d'], 16, -1, 3, -2, 255);
SELECT k, a, b, c, m, arraySort(CAST(u AS Array(UInt32))), g, o, x, an, s, w FROM a FINAL ORDER BY k;
OPTIMIZE TABLE a FINAL;
SELECT k, a, b, c, m, arraySort(CAST(u AS Array(UInt32))), g, o, x, an, s, w FROM a ORDER BY k;
-- any_respect_nulls / anyLast_respect_nulls keep a NULL too.
CREATE TABLE r (k UInt32, f SimpleAggregateFunction(any_respect_nulls, Nullable(String)), l SimpleAggregateFunction(anyLast_respect_nulls, Nullable(String))) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO r VALUES (1, NULL, 'a'), (1, 'b', NULL), (2, 'c', 'd'), (2, NULL, 'e');
SELECT * FROM r ORDER BY k;
-- In a SummingMergeTree they are combined beside the summed columns.
CREATE TABLE s (k UInt32, n UInt32, a SimpleAggregateFunction(anyLast, String), u SimpleAggregateFunction(groupArrayArray, Array(UInt32))) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO s VALUES (1, 1, 'x', [1]), (1, 0, 'y', [1, 2]), (2, 0, 'z', [3]);
INSERT INTO s VALUES (1, 2, 'w', [7]);
SELECT * FROM s FINAL ORDER BY k;
-- Such columns keep rows whose sums are all zero, as in ClickHouse.
CREATE TABLE z (k UInt32, n UInt32, a SimpleAggregateFunction(sum, Int64)) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO z VALUES (1, 0, 0), (2, 0, 1), (3, 1, 0);
SELECT * FROM z ORDER BY k;
-- Types the functions refuse.
CREATE TABLE bad1 (k UInt32, v SimpleAggregateFunction(sum, UInt32)) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad2 (k UInt32, v SimpleAggregateFunction(sum, Float32)) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad3 (k UInt32, v SimpleAggregateFunction(sum, Decimal(10, 2))) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad4 (k UInt32, v SimpleAggregateFunction(groupBitOr, Float64)) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
CREATE TABLE bad5 (k UInt32, v SimpleAggregateFunction(groupArrayArray, UInt32)) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
CREATE TABLE bad6 (k UInt32, v SimpleAggregateFunction(groupArrayArray, Array(Nullable(String)))) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad7 (k UInt32, v SimpleAggregateFunction(uniq, UInt32)) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE ok1 (k UInt32, v SimpleAggregateFunction(sum, Decimal(38, 2)), w SimpleAggregateFunction(sum, Float64), x SimpleAggregateFunction(sum, Int128)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO ok1 VALUES (1, 1.25, 0.5, 1), (1, 2.5, 0.25, -3);
SELECT * FROM ok1;
