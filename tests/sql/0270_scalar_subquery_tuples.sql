-- A scalar subquery of several columns is a tuple named after its columns; its ORDER BY
-- and LIMIT may use the columns' aliases.
SELECT (SELECT 1 AS a, 'x' AS b) AS t, toTypeName(t), tupleElement((SELECT 1 AS a, 2 AS b), 'a') AS e;
SELECT (SELECT number AS n, toString(number) AS s FROM numbers(3) ORDER BY n DESC LIMIT 1) AS t, toTypeName(t), tupleElement(t, 'n'), t.2;
SELECT (SELECT number, toString(number) FROM numbers(5) ORDER BY number DESC LIMIT 1 OFFSET 1) AS t, toTypeName(t);
SELECT (SELECT number % 3 AS k, count() AS c FROM numbers(10) GROUP BY k ORDER BY c, k DESC LIMIT 1) AS t, toTypeName(t);
SELECT number, (SELECT count(), max(number) FROM numbers(3) WHERE number < 2) AS t FROM numbers(2) ORDER BY number;
