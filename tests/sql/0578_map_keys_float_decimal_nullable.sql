-- SimpleAggregateFunction(sumMap|minMap|maxMap, Tuple(Array(K), Array(V))) keyed by floats,
-- decimals, DateTime64, Nullable and composite types, ordered as ClickHouse orders its
-- Fields: NULL first, -0 merged with 0, every NaN one key after +inf, arrays and tuples
-- element by element; in FINAL reads and through OPTIMIZE FINAL.
CREATE TABLE f (k UInt8,
    f64 SimpleAggregateFunction(sumMap, Tuple(Array(Float64), Array(UInt64))),
    f32 SimpleAggregateFunction(minMap, Tuple(Array(Float32), Array(Int32))),
    dec SimpleAggregateFunction(maxMap, Tuple(Array(Decimal(10, 2)), Array(Float64))),
    dec256 SimpleAggregateFunction(sumMap, Tuple(Array(Decimal(50, 3)), Array(Int64))),
    dt64 SimpleAggregateFunction(sumMap, Tuple(Array(DateTime64(3, 'UTC')), Array(UInt64)))) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO f VALUES (1, ([2.5, -0., nan, -inf, 1e308], [1, 2, 3, 4, 5]), ([1.5, -2.25], [1, 2]), ([1.25, -3], [1, nan]),
    ([12345678901234567890.125, -1], [1, 2]), (['2020-01-01 00:00:00.500', '2019-12-31 23:59:59.999'], [1, 2]));
INSERT INTO f VALUES (1, ([2.5, nan, 0, inf], [10, 20, 30, 40]), ([-2.25, 0.5], [-7, 3]), ([-3, 1.25, 0.01], [2, 0.5, -1]),
    ([-1, 0.001], [-2, 5]), (['2020-01-01 00:00:00.500', '2020-01-01 00:00:00.499'], [10, 20]));
SELECT * FROM f FINAL FORMAT Vertical;
OPTIMIZE TABLE f FINAL;
SELECT * FROM f FORMAT Vertical;
-- Nullable keys: NULL is one key, before the others.
CREATE TABLE n (k UInt8,
    ni SimpleAggregateFunction(sumMap, Tuple(Array(Nullable(Int32)), Array(Int64))),
    ns SimpleAggregateFunction(maxMap, Tuple(Array(Nullable(String)), Array(String))),
    nf SimpleAggregateFunction(minMap, Tuple(Array(Nullable(Float64)), Array(Float32)))) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO n VALUES (1, ([NULL, 2, 1], [1, 2, 3]), ([NULL, 'b', 'a'], ['x', 'y', 'z']), ([NULL, nan], [nan, 1]));
INSERT INTO n VALUES (1, ([1, NULL, -5], [10, -1, 7]), (['a', NULL], ['zz', 'w']), ([nan, NULL, -1], [0.5, 2, 3]));
INSERT INTO n VALUES (2, ([NULL], [4]), ([NULL], ['q']), ([NULL], [1]));
SELECT * FROM n FINAL ORDER BY k FORMAT Vertical;
OPTIMIZE TABLE n FINAL;
SELECT * FROM n ORDER BY k FORMAT Vertical;
-- Arrays, tuples and maps as keys; min/max of arrays and tuples.
CREATE TABLE c (k UInt8,
    a SimpleAggregateFunction(sumMap, Tuple(Array(Array(Int32)), Array(UInt64))),
    t SimpleAggregateFunction(sumMap, Tuple(Array(Tuple(Int32, String)), Array(UInt64))),
    m SimpleAggregateFunction(sumMap, Tuple(Array(Map(String, UInt8)), Array(UInt64))),
    v SimpleAggregateFunction(maxMap, Tuple(Array(UInt8), Array(Array(Int32)))),
    w SimpleAggregateFunction(minMap, Tuple(Array(UInt8), Array(Tuple(Int32, String))))) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO c VALUES (1, ([[1, 2], [1], []], [1, 2, 3]), ([(1, 'b'), (0, 'z')], [1, 3]), ([{'a': 1}, {}], [1, 2]), ([1, 2], [[1, 2], [5]]), ([1, 2], [(1, 'b'), (2, 'a')]));
INSERT INTO c VALUES (1, ([[0, 5], [1], [1, 2, 0]], [4, 5, 6]), ([(1, 'a'), (1, 'b')], [2, 4]), ([{'a': 1}, {'a': 0, 'b': 1}], [3, 4]), ([1, 2], [[1, 3], [4, 9]]), ([1, 2], [(1, 'a'), (2, 'b')]));
SELECT * FROM c FINAL FORMAT Vertical;
OPTIMIZE TABLE c FINAL;
SELECT * FROM c FORMAT Vertical;
-- Keys lose LowCardinality and keep Nullable; values lose both.
CREATE TABLE bad (k UInt8, m SimpleAggregateFunction(sumMap, Tuple(Array(Array(LowCardinality(String))), Array(UInt64)))) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (k UInt8, m SimpleAggregateFunction(sumMap, Tuple(Array(Nullable(Float64)), Array(Nullable(Float64))))) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (k UInt8, m SimpleAggregateFunction(sumMap, Tuple(Array(Float64), Array(DateTime64(3))))) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- SummingMergeTree nested maps keyed by these types are not summed: the first row's
-- arrays stay, as in ClickHouse.
CREATE TABLE s (k UInt8, `fMap.id` Array(Float64), `fMap.v` Array(UInt64), `dMap.id` Array(Decimal(10, 2)), `dMap.v` Array(UInt64),
    `tMap.id` Array(DateTime64(3, 'UTC')), `tMap.v` Array(UInt64), `nMap.id` Array(Nullable(Int32)), `nMap.v` Array(UInt64), x UInt64) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO s VALUES (1, [2.5, 1.5], [1, 2], [2.5, 1.5], [1, 2], ['2020-01-01 00:00:00.500'], [1], [NULL, 2], [1, 2], 1);
INSERT INTO s VALUES (1, [1.5, -3], [10, 20], [1.5, -3], [10, 20], ['2019-01-01 00:00:00'], [10], [2, 1], [10, 20], 2);
SELECT * FROM s FINAL FORMAT Vertical;
OPTIMIZE TABLE s FINAL;
SELECT * FROM s FORMAT Vertical;
