-- A scalar subquery of several columns without a row is NULL (ClickHouse types it Nullable(Tuple) then; Granary keeps the named tuple type, so toTypeName is not compared here).
SELECT (SELECT 1, 2 WHERE 0);
SELECT (SELECT 1, 2 WHERE 0) AS t, isNull(t) FROM numbers(2);
SELECT (SELECT number, 'a' FROM numbers(3) WHERE number = 5) AS t FORMAT JSONEachRow;
SELECT (SELECT number AS a, 'x' AS b FROM numbers(3) WHERE number = 5 ORDER BY a LIMIT 1) AS t, isNotNull(t);
SELECT (SELECT number AS a, 'x' AS b FROM numbers(3) WHERE number = 1) AS t, isNull(t), t.a;
