-- The -ForEach aggregate combinator (and -ForEachIf, -IfForEach)
SELECT sumForEach(arr) FROM (SELECT [1, 2] AS arr UNION ALL SELECT [3, 4, 5]);
SELECT avgForEach(arr), maxForEach(arr), minForEach(arr), countForEach(arr) FROM (SELECT [1, 2] AS arr UNION ALL SELECT [3, 4, 5]);
SELECT toTypeName(sumArray(arr)), toTypeName(sumForEach(arr)), toTypeName(avgForEach(arr)), toTypeName(maxForEach(arr)), toTypeName(countForEach(arr)) FROM (SELECT CAST([1, 2], 'Array(UInt8)') AS arr);
SELECT toTypeName(sumForEach(arr)), toTypeName(uniqForEach(arr)) FROM (SELECT range(3) AS arr);
SELECT uniqForEach(a) FROM (SELECT [1, 2] AS a UNION ALL SELECT [1, 3]);
SELECT sumForEach(a) FROM (SELECT [toNullable(1), NULL] AS a UNION ALL SELECT [NULL, 2]);
SELECT maxForEach(s), minForEach(s) FROM (SELECT ['a', 'zz'] AS s UNION ALL SELECT ['b']);
SELECT sumForEach(arr) FROM (SELECT [1, 2] AS arr) WHERE 1 = 0;
SELECT k, sumForEach(a) FROM (SELECT number % 2 AS k, [number, number * 10] AS a FROM numbers(10)) GROUP BY k ORDER BY k;
SELECT k, avgForEach(a), maxForEach(a), countForEach(a) FROM (SELECT number % 3 AS k, range(number % 4) AS a FROM numbers(1000)) GROUP BY k ORDER BY k SETTINGS max_threads = 4, max_block_size = 7;
SELECT sumForEach([number, 1]), avgForEach([number, number * 2]) FROM numbers(100000);
-- -ForEachIf: a condition per row; -IfForEach: a condition per element
SELECT sumForEachIf(arr, c) FROM (SELECT [1, 2] AS arr, 1 AS c UNION ALL SELECT [3, 4, 5], 0);
SELECT sumIfForEach(arr, c), maxIfForEach(arr, c) FROM (SELECT CAST([1, 2], 'Array(UInt32)') AS arr, [1, 0] AS c UNION ALL SELECT CAST([3, 4, 5], 'Array(UInt32)'), [1, 1, 0]);
SELECT k, sumForEachIf(a, number % 3 = 0), sumIfForEach(a, [number > 4, number < 4]) FROM (SELECT number, number % 2 AS k, [number, number * 10] AS a FROM numbers(10)) GROUP BY k ORDER BY k;
-- errors
SELECT sumForEach(x) FROM (SELECT 1 AS x);
SELECT sumForEach(a, b) FROM (SELECT [1, 2] AS a, [3, 4] AS b);
