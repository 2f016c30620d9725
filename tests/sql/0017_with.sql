-- WITH: constant expressions, expression aliases and common table expressions
WITH 5 AS five SELECT number * five FROM numbers(3);
WITH 'x' AS s, 2 AS n SELECT concat(s, toString(n)), n * n;
WITH number * 2 AS doubled SELECT doubled FROM numbers(4) WHERE doubled > 2;
WITH (SELECT max(number) FROM numbers(10)) AS mx SELECT number FROM numbers(12) WHERE number > mx;
WITH t AS (SELECT number AS n FROM numbers(5)) SELECT sum(n), count() FROM t;
WITH a AS (SELECT number AS x FROM numbers(4)), b AS (SELECT x * 10 AS y FROM a) SELECT y FROM b ORDER BY y;
WITH t AS (SELECT number AS n FROM numbers(3)) SELECT l.n, r.n FROM t AS l JOIN t AS r ON l.n = r.n ORDER BY l.n;
WITH t AS (SELECT number % 3 AS k, number AS v FROM numbers(9)) SELECT k, groupArray(v) FROM (SELECT * FROM t ORDER BY v) GROUP BY k ORDER BY k;
WITH 10 AS lim SELECT number FROM numbers(100) WHERE number < lim ORDER BY number DESC LIMIT 3;
WITH [1, 2, 3] AS arr SELECT arr, length(arr);
WITH toDate('2024-03-01') AS d SELECT d, d - 1, toYear(d);
CREATE TABLE src (id UInt8, name String) ENGINE = Memory;
INSERT INTO src VALUES (1, 'a'), (2, 'b');
WITH filtered AS (SELECT * FROM src WHERE id > 1) SELECT name FROM filtered;
WITH x AS (SELECT 1) SELECT * FROM missing_cte; -- { serverError UNKNOWN_TABLE }
