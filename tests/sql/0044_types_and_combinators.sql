SELECT toTypeName(1), toTypeName(-1), toTypeName(300), toTypeName(-129), toTypeName(70000), toTypeName(5000000000);
SELECT 1 + 1, toTypeName(1 + 1), 255 + 1, toTypeName(300 * 2), toTypeName(1 - 1), toUInt64(0) - 1;
SELECT number % 60, toTypeName(number % 60), toTypeName(number + 1), toTypeName(-number) FROM numbers(3);
SELECT toDate('2024-01-01') + 1, toTypeName(toDate('2024-01-01') + 1), toTypeName(intDiv(7, 2)), toTypeName(7 / 2);
SELECT toTypeName(toDecimal32(1.5, 2) + 1), toDecimal32(1.5, 2) * toDecimal64(2, 3), toTypeName(toDecimal32(1.5, 2) * toDecimal64(2, 3));
SELECT intDivOrZero(7, 0), moduloOrZero(7, 0), intDivOrZero(-7, 2);
SELECT countIf(number > 5), sumIf(number, number % 2 = 0), countDistinct(number % 3), sumOrNull(number), maxOrNullIf(number, number > 100), avgOrDefaultIf(number, number > 100) FROM numbers(10);
SELECT finalizeAggregation(sumState(number)), toTypeName(sumState(number)) FROM numbers(10);
SELECT k, sumMerge(s), countMerge(c), maxMerge(m) FROM (SELECT number % 2 AS k, sumState(number) AS s, countState(number) AS c, maxState(number) AS m FROM numbers(10) GROUP BY k) GROUP BY k ORDER BY k;
