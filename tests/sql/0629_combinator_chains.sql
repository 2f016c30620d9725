-- -Map, -ArgMin/-ArgMax, -Resample and -If on any aggregate, nested with the other combinators.
CREATE TABLE t (g UInt8, x UInt64, k Int32, s String, m Map(String, UInt64), mi Map(UInt16, Float64)) ENGINE = MergeTree ORDER BY x;
INSERT INTO t SELECT number % 3, number, toInt32(number % 7) - 3, toString(number % 4), map('a', number, toString(number % 2), number * 10), map(toUInt16(number % 5), number / 4) FROM numbers(50);

-- -Map
SELECT avgMap(m), sumMap(m), maxMap(m), countMap(m), uniqMap(m), toTypeName(avgMap(m)) FROM t;
SELECT g, avgMap(m), minMap(mi), groupArrayMap(mi) FROM t WHERE x < 12 GROUP BY g ORDER BY g;
SELECT quantileMap(0.5)(mi), toTypeName(quantileMap(0.5)(mi)) FROM t;
SELECT avgMapOrNull(m), avgOrNullMap(m), avgOrDefaultMap(m) FROM t WHERE x > 100;
SELECT avgMapMerge(st) FROM (SELECT g, avgMapState(m) AS st FROM t GROUP BY g);
SELECT toTypeName(avgMapState(m)), finalizeAggregation(avgMapState(m)) FROM t;
SELECT avgMap(x) FROM t; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT avgMap(m, m) FROM t; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }

-- -ArgMin / -ArgMax
SELECT sumArgMax(x, k), sumArgMin(x, k), countArgMax(k), avgArgMin(x, s), groupArrayArgMax(x, g) FROM t WHERE x < 20;
SELECT g, sumArgMax(x, k), uniqArgMin(s, k), toTypeName(sumArgMax(x, k)) FROM t GROUP BY g ORDER BY g;
SELECT sumArgMaxIf(x, k, x < 30), sumIfArgMax(x, x < 30, k), sumArgMaxOrNull(x, k) FROM t;
SELECT sumArgMaxOrNull(x, k), sumOrNullArgMax(x, k) FROM t WHERE x > 100;
SELECT sumMapArgMax(m, k), avgMapArgMin(m, k) FROM t;
SELECT sumArrayArgMax([x, 1], k), sumArgMaxArray([x, 1], [k, k]) FROM t;
SELECT toTypeName(sumArgMaxState(x, k)), finalizeAggregation(sumArgMaxState(x, k)) FROM t;
SELECT sumArgMaxMerge(st) FROM (SELECT g, sumArgMaxState(x, k) AS st FROM t GROUP BY g);
SELECT sumArgMax(x, toString(k)), maxArgMin(x, x % 5 = 0) FROM t;

-- -Resample
SELECT sumResample(0, 50, 10)(x, x), countResample(-3, 4, 2)(x, k), toTypeName(sumResample(0, 50, 10)(x, x)) FROM t;
SELECT g, avgResample(-3, 3, 3)(x, k) FROM t GROUP BY g ORDER BY g;
SELECT quantileResample(0.5, 0, 30, 10)(x, x), quantilesResample(0.1, 0.9, 0, 30, 15)(x, x) FROM t;
SELECT sumForEachResample(0, 20, 10)([x, 1], x), uniqResample(10, 0, 5)(s, x) FROM t;
SELECT toTypeName(sumResampleState(0, 50, 10)(x, x)), toTypeName(quantileResampleState(0.5, 0, 30, 10)(x, x)) FROM t;
SELECT sumResampleMerge(0, 50, 10)(st) FROM (SELECT g, sumResampleState(0, 50, 10)(x, x) AS st FROM t GROUP BY g);
SELECT sumResampleIf(0, 50, 25)(x, x, g = 1), sumMapResample(0, 50, 25)(m, x) FROM t;
SELECT sumResample(0, 10, 0)(x, x) FROM t; -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT sumResample(0, 10)(x, x) FROM t; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }

-- -If outside other combinators, and -Array inside -If
SELECT sumArrayIf([x, 1], g = 0), avgArgMaxIf(x, k, g = 2), sumIfArray([x, 2], [x % 2 = 0, 1]) FROM t;
