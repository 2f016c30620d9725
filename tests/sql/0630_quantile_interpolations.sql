-- quantileExactInclusive/Exclusive, quantileInterpolatedWeighted and their quantiles*/median forms.
CREATE TABLE t (g UInt8, x UInt64, i Int32, f Float32, d Date, w UInt16) ENGINE = MergeTree ORDER BY x;
INSERT INTO t SELECT number % 3, number, toInt32(number * 37 % 101) - 50, number / 7, toDate('2024-01-01') + number * 3, number % 5 + 1 FROM numbers(40);

SELECT quantileExactInclusive(0.3)(x), quantileExactExclusive(0.3)(x), quantilesExactInclusive(0, 0.25, 0.5, 0.9, 1)(x), quantilesExactExclusive(0.01, 0.25, 0.5, 0.99)(x) FROM t;
SELECT toTypeName(quantileExactInclusive(0.3)(x)), toTypeName(quantileExactExclusive(0.3)(i)), toTypeName(quantilesExactInclusive(0.3)(f)) FROM t;
SELECT quantileExactInclusive(0.7)(i), quantileExactExclusive(0.7)(f), quantileExactInclusive(0.5)(d) FROM t;
SELECT g, quantileExactInclusive(0.4)(i), quantileExactExclusive(0.4)(i) FROM t GROUP BY g ORDER BY g;
SELECT quantileExactExclusive(0.5)(x), quantileExactInclusive(0.5)(x) FROM t WHERE x > 100;
SELECT quantileExactExclusive(1)(x) FROM t; -- { serverError BAD_ARGUMENTS }

SELECT quantileInterpolatedWeighted(0.3)(x, w), medianInterpolatedWeighted(i, w), quantilesInterpolatedWeighted(0.1, 0.5, 0.99)(f, w) FROM t;
SELECT toTypeName(quantileInterpolatedWeighted(0.3)(x, w)), toTypeName(medianInterpolatedWeighted(i, w)), toTypeName(quantileInterpolatedWeighted(f, w)) FROM t;
SELECT g, quantileInterpolatedWeighted(0.75)(i, w), quantilesInterpolatedWeighted(0.2, 0.8)(x, w) FROM t GROUP BY g ORDER BY g;
SELECT quantileInterpolatedWeighted(0.3)(x, w) FROM t WHERE x > 100;
SELECT hex(quantileInterpolatedWeightedState(0.5)(x, w)) FROM t WHERE x < 3;
SELECT quantileInterpolatedWeightedMerge(0.5)(s) FROM (SELECT g, quantileInterpolatedWeightedState(0.5)(x, w) AS s FROM t GROUP BY g);
SELECT quantileExactInclusiveIf(0.5)(x, g = 1), quantileInterpolatedWeightedArgMax(0.5)(x, w, g) FROM t;

-- quantileTDigestWeighted: each value a centroid of its weight.
SELECT quantileTDigestWeighted(0.5)(number, number % 3), quantilesTDigestWeighted(0.1, 0.9)(number, 2), medianTDigestWeighted(toFloat32(number) / 3, 1), toTypeName(quantileTDigestWeighted(number, 1)) FROM numbers(1000);
SELECT hex(quantileTDigestWeightedState(0.5)(number, number % 3)) FROM numbers(4);
SELECT number % 3 AS g, quantileTDigestWeighted(0.3)(number * 7, number % 5) FROM numbers(5000) GROUP BY g ORDER BY g;
