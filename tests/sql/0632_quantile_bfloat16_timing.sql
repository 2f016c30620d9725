-- quantileBFloat16 / quantileBFloat16Weighted (values cut to bfloat16) and quantileTiming / quantileTimingWeighted, with their quantiles*/median forms.
SELECT quantileBFloat16(0.5)(number), quantileBFloat16(0.9)(number * 1.7), quantilesBFloat16(0.1, 0.5, 0.99)(number), toTypeName(quantileBFloat16(0.5)(number)), toTypeName(quantileBFloat16(0.5)(toFloat32(number))) FROM numbers(1000);
SELECT quantileBFloat16Weighted(0.5)(number, number % 3), medianBFloat16(number), medianBFloat16Weighted(number, 1) FROM numbers(3);
SELECT quantileBFloat16(0.5)(x), quantileBFloat16(0)(x), quantileBFloat16(1)(x) FROM values('x Int32', -5, 100, 3);
SELECT quantileBFloat16(0.5)(x), quantilesBFloat16Weighted(0.2, 0.7)(x, 2), toTypeName(quantileBFloat16(x)) FROM values('x Nullable(Float64)', -5.3, NULL, 3.14159, 1e10);
SELECT quantileBFloat16(0.5)(number), quantilesBFloat16(0.5)(number), toTypeName(quantilesBFloat16(0.5)(number)) FROM numbers(0);
SELECT number % 3 AS g, quantileBFloat16(0.3)(number * 12345), medianBFloat16Weighted(number, number) FROM numbers(300) GROUP BY g ORDER BY g;
SELECT quantileBFloat16Merge(0.5)(s), toTypeName(any(s)) FROM (SELECT number % 3 AS g, quantileBFloat16State(0.5)(number) AS s FROM numbers(300) GROUP BY g);
SELECT quantileBFloat16If(0.5)(number, number % 2 = 0), quantileBFloat16ArgMax(0.5)(number, number % 10), quantileBFloat16Resample(0.5, 0, 100, 50)(number, number) FROM numbers(100);
SELECT quantileBFloat16(2)(number) FROM numbers(3); -- { serverError PARAMETER_OUT_OF_BOUND }
SELECT quantilesBFloat16(number) FROM numbers(3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT quantileBFloat16('a') FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }

-- quantileTiming: exact while small (tiny, then medium), a histogram past 5671 values.
SELECT quantileTiming(0.5)(number), quantileTiming(0.9)(number * 37 % 50000), quantilesTiming(0.1, 0.5, 0.99)(number % 2000), toTypeName(quantileTiming(0.5)(number)) FROM numbers(1000);
SELECT quantileTimingWeighted(0.5)(number, number % 3 + 1), quantileTiming(0.5)(toFloat64(number) / 3) FROM numbers(100);
SELECT quantileTiming(0.5)(number), quantilesTiming(0.5)(number) FROM numbers(0);
SELECT hex(quantileTimingState(0.5)(number)) FROM numbers(3);
SELECT quantileTiming(0.5)(number % 40000), quantilesTiming(0.05, 0.5, 0.95, 1)(number * 7 % 31000), medianTiming(number % 3000) FROM numbers(20000);
SELECT quantileTimingWeighted(0.7)(number % 2000, number % 7), quantilesTimingWeighted(0.2, 0.9)(number, 40) FROM numbers(3000);
SELECT number % 3 AS g, quantileTiming(0.3)(number * 13 % 35000), medianTimingWeighted(number, 2) FROM numbers(30000) GROUP BY g ORDER BY g;
SELECT quantileTimingMerge(0.5)(s) FROM (SELECT number % 5 AS g, quantileTimingState(0.5)(number * 3) AS s FROM numbers(10000) GROUP BY g);
SELECT quantileTiming(0.5)(x), quantileTiming(0.1)(x), toTypeName(quantileTiming(x)) FROM values('x Nullable(Int32)', -5, 100, NULL, 3, -2);
SELECT length(hex(quantileTimingState(0.5)(number))), substring(hex(quantileTimingState(0.5)(number)), 1, 60) FROM numbers(6000);
SELECT quantileTimingIf(0.5)(number, number % 2 = 1), quantileTimingResample(0.5, 0, 200, 100)(number, number) FROM numbers(200);
SELECT quantileTiming('a') FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
