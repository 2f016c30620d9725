-- WITH TOTALS in the subquery that is the only FROM item: the totals row passes through the outer SELECT list, not its WHERE, ORDER BY or LIMIT; an aggregating outer query drops it
SELECT * FROM (SELECT number % 2 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS) ORDER BY k;
SELECT k + 1, c * 10 FROM (SELECT number % 2 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS) ORDER BY k;
SELECT k FROM (SELECT number % 2 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS) WHERE k = 1;
SELECT count() FROM (SELECT number % 2 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS);
SELECT sum(c) FROM (SELECT number % 2 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS);
SELECT * FROM (SELECT number % 2 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS) ORDER BY k LIMIT 1;
SELECT s.c FROM (SELECT number % 3 AS k, sum(number) AS c FROM numbers(10) GROUP BY k WITH TOTALS) AS s ORDER BY s.c;
SELECT k, c FROM (SELECT number % 2 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS) ORDER BY k FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
