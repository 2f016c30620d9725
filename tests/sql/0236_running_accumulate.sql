-- runningAccumulate(state [, key]) over sorted -State values (needs allow_deprecated_error_prone_window_functions, as in ClickHouse).
SELECT k, runningAccumulate(s) FROM (SELECT number AS k, sumState(number) AS s FROM numbers(5) GROUP BY k ORDER BY k); -- { serverError DEPRECATED_FUNCTION }
SET allow_deprecated_error_prone_window_functions = 1;
SELECT k, runningAccumulate(s) FROM (SELECT number AS k, sumState(number) AS s FROM numbers(5) GROUP BY k ORDER BY k);
SELECT grouping, item, runningAccumulate(state, grouping) AS res FROM (SELECT toInt8(number / 4) AS grouping, number AS item, sumState(number) AS state FROM numbers(15) GROUP BY item ORDER BY item ASC);
SELECT toTypeName(runningAccumulate(s)), runningAccumulate(s) FROM (SELECT uniqState(number) AS s FROM numbers(3));
SELECT k, runningAccumulate(s) FROM (SELECT number % 3 AS k, avgState(number) AS s FROM numbers(10) GROUP BY k ORDER BY k);
SELECT k, runningAccumulate(s), runningAccumulate(s, k % 2) FROM (SELECT number AS k, maxState(number * 7 % 5) AS s FROM numbers(6) GROUP BY k ORDER BY k);
SELECT k, runningAccumulate(s, toNullable(k % 2)), toTypeName(runningAccumulate(s, toNullable(k % 2))) FROM (SELECT number AS k, sumState(number) AS s FROM numbers(5) GROUP BY k ORDER BY k);
SELECT runningAccumulate(s) FROM (SELECT sumStateIf(number, 0) AS s FROM numbers(3));
SELECT runningAccumulate(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT runningAccumulate(s, 1, 2) FROM (SELECT sumState(1) AS s); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
