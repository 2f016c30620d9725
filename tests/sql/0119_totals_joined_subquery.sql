-- WITH TOTALS in a joined subquery: its totals row joined with defaults for the other side's columns, under the outer projections (either side of the join).
SELECT a.k, a.c, b.v FROM (SELECT number % 2 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS) AS a JOIN (SELECT number AS k, toString(number) AS v FROM numbers(2)) AS b ON a.k = b.k ORDER BY a.k;
SELECT a.k, a.c, b.v, b.k FROM (SELECT number % 2 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS) AS a LEFT JOIN (SELECT number + 1 AS k, toString(number + 5) AS v FROM numbers(3)) AS b ON a.k = b.k ORDER BY a.k;
SELECT b.v, a.c, a.k FROM (SELECT number + 1 AS k, toString(number + 5) AS v FROM numbers(3)) AS b JOIN (SELECT number % 2 AS k, sum(number) AS c FROM numbers(10) GROUP BY k WITH TOTALS) AS a ON a.k = b.k ORDER BY b.v;
SELECT * FROM (SELECT number % 3 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS) AS a JOIN (SELECT number AS k, number * 10 AS w FROM numbers(3)) AS b USING (k) ORDER BY k;
SELECT a.k, b.w FROM (SELECT number % 3 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS) AS a JOIN (SELECT number AS k, number * 10 AS w FROM numbers(3)) AS b ON a.k = b.k ORDER BY a.k FORMAT TSVWithNames;
SELECT count() FROM (SELECT number % 3 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS) AS a JOIN (SELECT number AS k FROM numbers(3)) AS b ON a.k = b.k;
