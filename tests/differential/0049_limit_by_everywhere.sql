-- LIMIT BY inside subqueries (all forms) and over expressions that are not selected
SELECT count() FROM (SELECT number FROM numbers(10) ORDER BY number LIMIT 1 BY number % 3);
SELECT * FROM (SELECT number, number % 3 AS k FROM numbers(10) ORDER BY number DESC LIMIT 2 BY k) ORDER BY number;
SELECT * FROM (SELECT number FROM numbers(10) ORDER BY number LIMIT 1 OFFSET 1 BY number % 3) ORDER BY number;
SELECT * FROM (SELECT number FROM numbers(10) ORDER BY number LIMIT 1, 2 BY number % 3) ORDER BY number;
SELECT sum(number) FROM (SELECT number FROM numbers(20) ORDER BY number DESC LIMIT 1 BY intDiv(number, 5));
SELECT k, count() FROM (SELECT number % 4 AS k, number FROM numbers(40) ORDER BY number LIMIT 3 BY k) GROUP BY k ORDER BY k;
SELECT * FROM (SELECT number AS n, toString(n) AS s FROM numbers(12) ORDER BY 1 DESC LIMIT 1 BY n % 4, intDiv(n, 8)) ORDER BY n;
SELECT number FROM numbers(30) WHERE number IN (SELECT number FROM numbers(30) ORDER BY number LIMIT 1 BY intDiv(number, 10)) ORDER BY number;
SELECT number FROM numbers(10) ORDER BY number LIMIT 1 OFFSET 1 BY number % 3;
SELECT number FROM numbers(10) ORDER BY number LIMIT 2 BY number % 3 LIMIT 4;
