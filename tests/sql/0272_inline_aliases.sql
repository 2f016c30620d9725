-- Aliases defined inside expressions resolve like SELECT-list aliases, anywhere in the
-- same SELECT; a subexpression is named after its alias.
SELECT k, count() FROM numbers(10) GROUP BY number % 3 AS k ORDER BY k;
SELECT number FROM numbers(10) WHERE (number + 1 AS y) > 5 AND y < 9 ORDER BY number;
SELECT number FROM numbers(4) ORDER BY (number % 2 AS p), p, number;
SELECT (1 AS a) + a;
SELECT (number AS a) + 1 AS b, b * 2, a FROM numbers(2) ORDER BY a;
SELECT number FROM numbers(5) ORDER BY number AS x DESC LIMIT 2;
SELECT number FROM numbers(5) WHERE number > 1 AS c ORDER BY number;
SELECT count() FROM numbers(10) WHERE (number % 2 AS p) = 0 GROUP BY p;
SELECT (1 AS a), (1 AS a);
SELECT plus(number AS a, 1), a * 2 FROM numbers(2) ORDER BY a;
SELECT a FROM numbers(3) WHERE (number * 2 AS a) > 1 ORDER BY a;
SELECT sum(number), k FROM numbers(10) GROUP BY number % 3 AS k HAVING k > 0 ORDER BY k;
SELECT number AS x FROM numbers(3) ORDER BY (x * 2 AS z) DESC, z;
SELECT (number AS n, n + 1) FROM numbers(2) ORDER BY n;
SELECT [number AS n, 3], n FROM numbers(2) ORDER BY n;
SELECT count() AS c FROM numbers(10) GROUP BY (number % 3 AS k), k ORDER BY k;
SELECT (SELECT 1 AS a) AS b, (2 AS c);
SELECT k FROM (SELECT number FROM numbers(5)) WHERE (number AS k) > 2 ORDER BY k;
SELECT sum(number AS v), v FROM numbers(3) GROUP BY v ORDER BY v;
SELECT CAST(number AS String) AS s, (number + 1 AS n) FROM numbers(2) AS t ORDER BY n;
SELECT (number + 1 AS x), (number AS y) * 2, plus(number AS z, 1), [number AS n, 3], (1 AS w) FROM numbers(2) ORDER BY x DESC FORMAT TSVWithNames;
SELECT 1 AS a, 2 AS a; -- { serverError MULTIPLE_EXPRESSIONS_FOR_ALIAS }
SELECT number AS a, (number + 1 AS a) FROM numbers(2); -- { serverError MULTIPLE_EXPRESSIONS_FOR_ALIAS }
SELECT (number + 1 AS a), a FROM numbers(2) WHERE (number * 3 AS a) > 0; -- { serverError MULTIPLE_EXPRESSIONS_FOR_ALIAS }
