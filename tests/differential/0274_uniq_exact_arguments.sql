-- uniqExact with several arguments counts the distinct combinations of rows where no
-- argument is NULL; over a tuple, NULL elements are values. Hundreds of thousands of
-- rows with Nullable and String columns.
SELECT uniqExact(a, b), uniqExact((a, b)), uniqExact(s, n), uniqExact((s, n)), uniqExact(n), uniqExact(s, a) FROM (SELECT number % 1000 AS a, intDiv(number, 7) % 333 AS b, toString(number % 4567) AS s, if(number % 5 = 0, NULL, number % 77) AS n FROM numbers(120000));
SELECT uniqExact(n, s), uniqExact(a, n, s), uniqExact((a, n, s)), uniqExact(a, b) FROM (SELECT number % 1000 AS a, intDiv(number, 7) % 333 AS b, toString(number % 4567) AS s, if(number % 5 = 0, NULL, number % 77) AS n FROM numbers(120000));
SELECT k, uniqExact(s, n), uniqExact(n, k) FROM (SELECT number % 3 AS k, toString(number % 4567) AS s, if(number % 5 = 0, NULL, number % 77) AS n FROM numbers(120000)) GROUP BY k ORDER BY k;
SELECT uniqExact(arr), uniqExact(arr, a) FROM (SELECT arrayMap(x -> (x * number) % 100000, range(number % 10)) AS arr, number % 3 AS a FROM numbers(100000));
SELECT uniq(range(number % 1000)), uniqExact(range(number % 1000)), uniq(arrayMap(x -> toString(x + number), range(number % 50))) FROM numbers(5000);
