-- sparkbar: ClickHouse's bar rendering (buckets averaged, eight levels) and its state bytes.
SELECT sparkbar(9)(x, y) FROM (SELECT number AS x, number * number AS y FROM numbers(10));
SELECT sparkbar(5, 2, 8)(x, y), sparkBar(5, 2, 8)(x, toFloat64(y) / 3) FROM (SELECT number AS x, number AS y FROM numbers(10));
SELECT sparkbar(4)(toDate('2020-01-01') + number, number + 1) FROM numbers(20);
SELECT sparkbar(20)(x, y) FROM (SELECT number % 37 AS x, sin(number) + 1 AS y FROM numbers(500));
SELECT sparkbar(7)(x, y) FROM (SELECT toUInt32(number * 13 % 101) AS x, toFloat32(number % 17) AS y FROM numbers(300));
SELECT sparkbar(10)(x, y) FROM (SELECT toUInt16(number % 300) AS x, toInt32(number % 50) - 10 AS y FROM numbers(1000));
SELECT sparkbar(3)(x, y) FROM (SELECT number AS x, 18446744073709551615 AS y FROM numbers(3));
SELECT sparkbar(4)(x, y) FROM (SELECT number AS x, toUInt8(250) AS y FROM numbers(8));
SELECT sparkbar(5)(x, y), sparkbar(5)(x, -y) FROM (SELECT number AS x, toInt32(1) AS y FROM numbers(0));
SELECT sparkbar(5)(x, y) FROM (SELECT number AS x, toInt32(-1) AS y FROM numbers(3));
SELECT sparkbar(9)(toUInt8(number), toNullable(number)) FROM numbers(10);
SELECT k, sparkbar(6)(number, number % 5) FROM numbers(40) GROUP BY number % 3 AS k ORDER BY k;
SELECT hex(sparkbarState(9)(x, y)) FROM (SELECT number AS x, number * number AS y FROM numbers(10));
SELECT hex(sparkbarState(9)(x, y)) FROM (SELECT toUInt8(number) AS x, toFloat64(number) - 3 AS y FROM numbers(5));
SELECT sparkbarMerge(9)(s) FROM (SELECT sparkbarState(9)(number, number % 7) AS s FROM numbers(100) GROUP BY number % 4);
SELECT sparkbar(1)(number, 1) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT sparkbar(5, 8, 2)(number, 1) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT sparkbar(5, 1)(number, 1) FROM numbers(3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT sparkbar(5)(toInt32(number), 1) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sparkbar(5)(number, 'a') FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sparkbar(5)(number) FROM numbers(3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }

-- analysisOfVariance (anova): F statistic and p-value (rounded: the F distribution's last bits are Boost's).
SELECT round(tupleElement(r, 1), 12), round(tupleElement(r, 2), 12), toTypeName(r) FROM (SELECT analysisOfVariance(number, number % 3) AS r FROM numbers(30));
SELECT round(tupleElement(r, 1), 12), round(tupleElement(r, 2), 12) FROM (SELECT anova(number * number, number % 4) AS r FROM numbers(40));
SELECT round(tupleElement(r, 1), 12), round(tupleElement(r, 2), 12) FROM (SELECT analysisOfVariance(sin(number), number % 7) AS r FROM numbers(1000));
SELECT analysisOfVariance(1, number % 2), analysisOfVariance(toNullable(number), number % 2) FROM numbers(4);
SELECT hex(analysisOfVarianceState(x, g)) FROM (SELECT arrayJoin([1, 2, 3]) AS x, toUInt8(if(x > 1, 2, 0)) AS g);
SELECT analysisOfVariance(number, number % 3) FROM numbers(2); -- { serverError BAD_ARGUMENTS }
SELECT analysisOfVariance(number, toUInt8(0)) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT analysisOfVariance(number, 1000000) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT analysisOfVariance(number, toInt8(1)) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT analysisOfVariance('a', number % 2) FROM numbers(4); -- { serverError BAD_ARGUMENTS }
SELECT analysisOfVariance(number) FROM numbers(4); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }

-- quantileGK / quantilesGK / medianGK: ClickHouse's Greenwald-Khanna summary.
SELECT quantileGK(100, 0.5)(number), quantilesGK(100, 0.1, 0.5, 0.9)(number), quantilesGK(10, 0.9, 0.1, 0.5)(number) FROM numbers(1000);
SELECT quantileGK(100, 0.5)(number * 1.5), toTypeName(quantileGK(100, 0.5)(toFloat32(number))), medianGK(10)(number) FROM numbers(1000);
SELECT quantileGK(1000, 0.3)(number * 7 % 1000), quantilesGK(50, 0.25, 0.75)(number * 7919 % 100003) FROM numbers(60000);
SELECT quantileGK(10, 0.5)(toDate('2020-01-01') + number), quantileGK(100, 0.5)(x) FROM (SELECT number, toNullable(number) AS x FROM numbers(10));
SELECT quantileGK(10, 0.5)(number), quantilesGK(10, 0.5)(number) FROM numbers(0);
SELECT hex(quantileGKState(100, 0.5)(number)) FROM numbers(5);
SELECT quantileGKMerge(100, 0.5)(s) FROM (SELECT quantileGKState(100, 0.5)(number) AS s FROM numbers(1000) GROUP BY number % 2);
SELECT quantileGK(0.5)(number) FROM numbers(10); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantileGK(number) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT quantileGK(0, 0.5)(number) FROM numbers(10); -- { serverError BAD_ARGUMENTS }
SELECT quantileGK(10, 1.5)(number) FROM numbers(10); -- { serverError PARAMETER_OUT_OF_BOUND }
SELECT quantilesGK(10)(number) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT quantileGK(10, 0.5)('a') FROM numbers(10); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }

-- quantileDD / quantilesDD / medianDD: ClickHouse's DDSketch.
SELECT quantileDD(0.01, 0.5)(number), quantilesDD(0.01, 0.1, 0.5, 0.9)(number), toTypeName(quantileDD(0.01, 0.5)(number)) FROM numbers(1000);
SELECT quantileDD(0.5)(number), medianDD(0.01)(number), quantileDD(0.01, 0.5)(toFloat32(number)) FROM numbers(10);
SELECT quantilesDD(0.05, 0, 0.25, 0.5, 1)(toInt64(number) - 500), quantileDD(0.02, 0.7)(toFloat64(number) / 7 - 30) FROM numbers(1000);
SELECT quantileDD(0.01, 0.5)(number), quantilesDD(0.01, 0.5)(number) FROM numbers(0);
SELECT hex(quantileDDState(0.01, 0.5)(number)), hex(quantileDDState(0.01, 0.5)(toInt64(number) - 2)), hex(quantileDDState(0.01, 0.5)(number * 1000)) FROM numbers(5);
SELECT quantileDDMerge(0.01, 0.5)(s) FROM (SELECT quantileDDState(0.01, 0.5)(number) AS s FROM numbers(1000) GROUP BY number % 3);
SELECT quantileDD(1, 0.5)(number) FROM numbers(10); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantileDD(number) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT quantileDD(0.01, 2)(number) FROM numbers(10); -- { serverError PARAMETER_OUT_OF_BOUND }

SELECT name, is_aggregate, alias_to FROM system.functions WHERE name IN ('sparkbar', 'sparkBar', 'analysisOfVariance', 'anova', 'quantileGK', 'quantilesGK', 'medianGK', 'quantileDD', 'quantilesDD', 'medianDD') ORDER BY name;
