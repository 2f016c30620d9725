-- SimpleAggregateFunction(sumMap|minMap|maxMap, Tuple(Array(K), Array(V))) with every key
-- type ClickHouse orders (Enum, IPv4/IPv6, UUID, wide integers, dates, FixedString),
-- ordered as ClickHouse orders them, in merges and FINAL.
CREATE TABLE k (k UInt8,
    e SimpleAggregateFunction(sumMap, Tuple(Array(Enum8('z' = -1, 'a' = 1, 'b' = 2)), Array(UInt64))),
    e16 SimpleAggregateFunction(minMap, Tuple(Array(Enum16('x' = 300, 'y' = -300)), Array(UInt32))),
    ip4 SimpleAggregateFunction(maxMap, Tuple(Array(IPv4), Array(Int32))),
    ip6 SimpleAggregateFunction(sumMap, Tuple(Array(IPv6), Array(Int64))),
    uuid SimpleAggregateFunction(sumMap, Tuple(Array(UUID), Array(UInt64)))) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO k VALUES (1, (['b', 'z'], [1, 2]), (['x', 'y'], [1, 2]), (['255.0.0.0', '0.0.0.255'], [1, 2]), (['ff00::', '::ffff:1.2.3.4'], [1, 2]),
    (['00000000-0000-0000-ff00-000000000000', 'ff000000-0000-0000-0000-000000000000'], [1, 2]));
INSERT INTO k VALUES (1, (['a', 'b'], [3, 4]), (['y'], [5]), (['1.0.0.0', '255.0.0.0'], [3, -4]), (['::1', '1::', '::100'], [3, 4, 5]),
    (['00000000-0000-0001-0000-000000000000', '00000000-0000-0000-0000-000000000001', '00000001-0000-0000-0000-000000000000'], [3, 4, 5]));
SELECT * FROM k FINAL FORMAT Vertical;
OPTIMIZE TABLE k FINAL;
SELECT * FROM k FORMAT Vertical;
-- Wide integers as keys and as values (sums wrap in the value's type).
CREATE TABLE w (k UInt8,
    i128 SimpleAggregateFunction(sumMap, Tuple(Array(Int128), Array(Int128))),
    u128 SimpleAggregateFunction(maxMap, Tuple(Array(UInt128), Array(UInt128))),
    i256 SimpleAggregateFunction(minMap, Tuple(Array(Int256), Array(Int256))),
    u256 SimpleAggregateFunction(sumMap, Tuple(Array(UInt256), Array(UInt256)))) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO w VALUES (1, ([-170141183460469231731687303715884105728, 5], [-1, 7]), ([340282366920938463463374607431768211455, 18446744073709551616], [1, 2]),
    ([-57896044618658097711785492504343953926634992332820282019728792003956564819968, -1], [1, -1]),
    ([115792089237316195423570985008687907853269984665640564039457584007913129639935, 1], [115792089237316195423570985008687907853269984665640564039457584007913129639935, 1]));
INSERT INTO w VALUES (1, ([5, 0], [170141183460469231731687303715884105727, 1]), ([18446744073709551616, 1], [340282366920938463463374607431768211455, 3]),
    ([-1, 18446744073709551616], [-5, 9]), ([57896044618658097711785492504343953926634992332820282019728792003956564819968, 1], [2, 115792089237316195423570985008687907853269984665640564039457584007913129639935]));
SELECT * FROM w FINAL FORMAT Vertical;
OPTIMIZE TABLE w FINAL;
SELECT * FROM w FORMAT Vertical;
-- Dates, strings and FixedString keys; min/max of strings, dates and UUIDs.
CREATE TABLE d (k UInt8,
    d SimpleAggregateFunction(sumMap, Tuple(Array(Date), Array(Float64))),
    d32 SimpleAggregateFunction(maxMap, Tuple(Array(Date32), Array(String))),
    dt SimpleAggregateFunction(minMap, Tuple(Array(DateTime('UTC')), Array(Date))),
    fs SimpleAggregateFunction(maxMap, Tuple(Array(FixedString(2)), Array(UUID))),
    s SimpleAggregateFunction(minMap, Tuple(Array(String), Array(UInt256)))) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO d VALUES (1, (['2024-01-02', '1970-01-01'], [0.5, 1]), (['1900-01-01', '2200-01-01'], ['b', 'a']), (['2024-01-01 00:00:00'], ['2024-02-02']),
    (['ab', 'a'], ['00000000-0000-0000-ff00-000000000000', 'ff000000-0000-0000-0000-000000000000']), (['x', ''], [1, 115792089237316195423570985008687907853269984665640564039457584007913129639935]));
INSERT INTO d VALUES (1, (['2024-01-02'], [-0.5]), (['1900-01-01'], ['c']), (['2024-01-01 00:00:00', '1999-12-31 23:59:59'], ['2024-01-02', '2000-01-01']),
    (['ab', 'a'], ['00000000-0000-0001-0000-000000000000', '00000000-0000-0000-0000-000000000001']), ([''], [2]));
SELECT * FROM d FINAL FORMAT Vertical;
OPTIMIZE TABLE d FINAL;
SELECT * FROM d FORMAT Vertical;
-- Types ClickHouse refuses.
CREATE TABLE bad (k UInt8, m SimpleAggregateFunction(sumMap, Tuple(Array(LowCardinality(String)), Array(UInt64)))) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (k UInt8, m SimpleAggregateFunction(sumMap, Tuple(Array(UInt8), Array(String)))) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
CREATE TABLE bad (k UInt8, m SimpleAggregateFunction(minMap, Tuple(Array(UInt8), Array(Nullable(Int64))))) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
