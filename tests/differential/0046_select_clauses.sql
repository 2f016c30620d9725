-- Hexadecimal and binary literals, scalar subqueries (Nullable, tuples), EXISTS and IN in the SELECT list
SELECT 0x10, 0xff, 0XfF, 0b101, 0x10 + 1, toTypeName(0x10), toTypeName(0xFFFFFFFF), -0x10;
SELECT x'41', 0x1f * 2;
SELECT (SELECT 1 WHERE 0), (SELECT number FROM numbers(3) WHERE number > 5), toTypeName((SELECT 1)), toTypeName((SELECT 1 WHERE 0));
SELECT (SELECT 1, 'a'), (SELECT number, toString(number) FROM numbers(2) WHERE number = 1);
SELECT (SELECT [1, 2]), length((SELECT [1, 2]));
SELECT number, number IN (SELECT 1), number NOT IN (SELECT 1), number IN (SELECT number * 2 FROM numbers(2)) FROM numbers(4) ORDER BY number;
SELECT number, number IN (SELECT max(number) FROM numbers(3)), number IN (SELECT 1 UNION ALL SELECT NULL) FROM numbers(4) ORDER BY number;
SELECT 1 IN (SELECT 1), 2 IN (SELECT 1), NULL IN (SELECT 1), toTypeName(1 IN (SELECT 1));
SELECT EXISTS (SELECT 1), EXISTS (SELECT 1 WHERE 0), NOT EXISTS (SELECT 1 WHERE 0), toTypeName(EXISTS (SELECT 1));
SELECT EXISTS (SELECT max(number) FROM numbers(0)), EXISTS (SELECT number FROM numbers(5) LIMIT 0);
SELECT n1.number, EXISTS (SELECT 1 FROM numbers(2) AS n2 WHERE n2.number = n1.number) FROM numbers(3) AS n1 ORDER BY n1.number;
SELECT number, (number, 1) IN (SELECT 1, 1) FROM numbers(3) ORDER BY number;
SELECT number FROM numbers(6) WHERE number IN (SELECT 2 UNION ALL SELECT 4) ORDER BY number;
-- ORDER BY: NULLs last in both directions, NaN next to NULL
SELECT x FROM (SELECT arrayJoin([2.5, NULL, -1, 0, nan, inf, -inf]) AS x) ORDER BY x;
SELECT x FROM (SELECT arrayJoin([2.5, NULL, -1, 0, nan, inf, -inf]) AS x) ORDER BY x DESC;
SELECT x FROM (SELECT arrayJoin([2.5, NULL, -1, 0, nan, inf, -inf]) AS x) ORDER BY x NULLS FIRST;
SELECT x FROM (SELECT arrayJoin([2.5, NULL, -1, 0, nan, inf, -inf]) AS x) ORDER BY x DESC NULLS FIRST;
SELECT x FROM (SELECT arrayJoin([2.5, -1, nan, 0]) AS x) ORDER BY x DESC;
SELECT x FROM (SELECT arrayJoin(['b', NULL, 'a']) AS x) ORDER BY x DESC;
-- OFFSET ... FETCH
SELECT number FROM numbers(10) ORDER BY number OFFSET 2 ROWS FETCH FIRST 3 ROWS ONLY;
SELECT number FROM numbers(10) ORDER BY number DESC OFFSET 1 ROW FETCH NEXT 2 ROWS ONLY;
SELECT number FROM numbers(10) ORDER BY number FETCH FIRST 2 ROWS ONLY;
-- LIMIT BY expressions that are not result columns
SELECT number FROM numbers(20) ORDER BY number LIMIT 2 BY number % 3;
SELECT number AS n FROM numbers(20) ORDER BY n DESC LIMIT 1 BY intDiv(n, 5);
SELECT number, toString(number) AS s FROM numbers(12) ORDER BY number LIMIT 1 OFFSET 1 BY number % 4, intDiv(number, 8);
SELECT * FROM numbers(9) ORDER BY number LIMIT 1 BY number % 3 LIMIT 2;
-- UNION errors
SELECT 1 UNION ALL SELECT 1, 2; -- { serverError UNION_ALL_RESULT_STRUCTURES_MISMATCH }
-- WITH FILL in subqueries of FROM
SELECT * FROM (SELECT number FROM numbers(10) WHERE number % 3 = 0 ORDER BY number WITH FILL) ORDER BY number;
SELECT count(), sum(n) FROM (SELECT number * 2 AS n FROM numbers(5) ORDER BY n WITH FILL);
SELECT s.n, s.c FROM (SELECT number * 3 AS n, 'x' AS c FROM numbers(3) ORDER BY n WITH FILL STEP 1) AS s ORDER BY s.n;
SELECT * FROM (SELECT toDate('2024-01-01') + number * 2 AS d FROM numbers(3) ORDER BY d WITH FILL) ORDER BY d;
SELECT n, v FROM (SELECT number * 2 AS n, number AS v FROM numbers(3) ORDER BY n WITH FILL INTERPOLATE (v AS v + 10)) ORDER BY n;
SELECT a.n, b.n FROM (SELECT number * 2 AS n FROM numbers(3) ORDER BY n WITH FILL) AS a JOIN (SELECT number AS n FROM numbers(5)) AS b ON a.n = b.n ORDER BY a.n;
