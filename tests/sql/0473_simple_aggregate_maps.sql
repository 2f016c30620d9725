-- SimpleAggregateFunction(sumMap|minMap|maxMap, Tuple(Array(K), Array(V), ...)): per key,
-- keys sorted; sumMap leaves out keys whose sums are all zero, also in a single row.
CREATE TABLE c (k UInt32, sm SimpleAggregateFunction(sumMap, Tuple(Array(String), Array(Int64), Array(Float64)))) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO c VALUES (1, (['b', 'a', 'b'], [1, 2, 3], [0, 0, 1])), (1, (['a', 'c'], [-2, 0], [0, 0])), (2, ([], [], [])), (3, (['z', 'y'], [0, 1], [0, 0]));
SELECT * FROM c ORDER BY k;
INSERT INTO c VALUES (1, (['c', 'b'], [5, -4], [0, -1])), (3, (['y'], [-1], [0.5]));
SELECT * FROM c FINAL ORDER BY k;
OPTIMIZE TABLE c FINAL;
SELECT * FROM c ORDER BY k;
CREATE TABLE e (k UInt32, mn SimpleAggregateFunction(minMap, Tuple(Array(Int32), Array(Int64))), mx SimpleAggregateFunction(maxMap, Tuple(Array(Int32), Array(UInt8)))) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO e VALUES (1, ([2, 1, 2], [5, 0, -1]), ([2, 1, 2], [5, 0, 1])), (1, ([3], [0]), ([1], [7])), (2, ([1], [0]), ([1], [0]));
INSERT INTO e VALUES (1, ([1, 3], [-5, 9]), ([3, 2], [200, 1]));
SELECT * FROM e FINAL ORDER BY k;
-- In a SummingMergeTree beside summed columns.
CREATE TABLE s (k UInt32, n UInt64, sm SimpleAggregateFunction(sumMap, Tuple(Array(UInt16), Array(UInt64)))) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO s VALUES (1, 1, ([2, 1], [1, 1])), (1, 1, ([1], [3])), (2, 0, ([5], [0]));
SELECT * FROM s ORDER BY k;
-- sumMap's values must be of the type it sums into.
CREATE TABLE bad1 (k UInt32, v SimpleAggregateFunction(sumMap, Tuple(Array(UInt8), Array(UInt8)))) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
