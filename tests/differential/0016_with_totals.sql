-- GROUP BY ... WITH TOTALS: the totals row after an empty line
SELECT number % 2 AS a, count() AS c FROM numbers(6) GROUP BY a WITH TOTALS ORDER BY a;
SELECT number % 3 AS a, toString(a) AS s, count() * 2 AS c2, avg(number) FROM numbers(10) GROUP BY a WITH TOTALS ORDER BY a LIMIT 1;
SELECT number % 3 AS a, count() AS c FROM numbers(10) WHERE number > 100 GROUP BY a WITH TOTALS;
SELECT count() AS c FROM numbers(10) GROUP BY number % 2 WITH TOTALS ORDER BY c;
SELECT toNullable(number % 2) AS a, count() FROM numbers(10) GROUP BY a WITH TOTALS ORDER BY a;
SELECT toDate('2024-01-01') + number % 3 AS d, 'x' AS s, max(number), min(toString(number)) FROM numbers(10) GROUP BY d WITH TOTALS ORDER BY d;
SELECT number % 2 AS a FROM numbers(10) GROUP BY a WITH TOTALS ORDER BY a;
SELECT a, c FROM (SELECT number % 2 AS a, count() AS c FROM numbers(6) GROUP BY a) GROUP BY a, c WITH TOTALS ORDER BY a;
SELECT number % 2 AS a, number % 3 AS b, uniqExact(number % 4), sumIf(number, number > 3) FROM numbers(20) GROUP BY a, b WITH TOTALS ORDER BY a, b;
-- with ROLLUP / CUBE, WITH FILL
SELECT number % 2 AS a, number % 3 AS b, count() AS c FROM numbers(10) GROUP BY a, b WITH ROLLUP WITH TOTALS ORDER BY a, b, c;
SELECT number % 2 AS a, number % 3 AS b, count() AS c FROM numbers(10) GROUP BY CUBE(a, b) WITH TOTALS ORDER BY a, b, c;
SELECT number % 4 AS a, count() AS c FROM numbers(10) GROUP BY a WITH TOTALS ORDER BY a WITH FILL TO 6;
-- HAVING: totals over the groups that pass it (totals_mode = 'after_having_exclusive')
SELECT number % 3 AS a, count() AS c, sum(number) AS s FROM numbers(10) GROUP BY a WITH TOTALS HAVING c > 3 ORDER BY a;
SELECT number % 3 AS a, count() AS c FROM numbers(10) GROUP BY a WITH TOTALS HAVING c < 4 ORDER BY a;
SELECT number % 5 AS a, number % 2 AS b, sum(number) AS s FROM numbers(50) GROUP BY a, b WITH TOTALS HAVING s > 120 ORDER BY a, b;
SELECT if(number % 4 = 0, NULL, number % 4) AS a, count() AS c FROM numbers(20) GROUP BY a WITH TOTALS HAVING c >= 5 ORDER BY a;
SELECT number % 3 AS a, count() AS c FROM numbers(10) GROUP BY a WITH TOTALS HAVING c > 100;
