-- ORDER BY ... WITH FILL [FROM] [TO] [STEP] and INTERPOLATE
SELECT number * 3 AS n, 'x' AS s, toNullable(number) AS z FROM numbers(4) ORDER BY n WITH FILL;
SELECT number * 3 AS n FROM numbers(4) ORDER BY n WITH FILL FROM 2 TO 12 STEP 2;
SELECT number * 3 AS n FROM numbers(4) ORDER BY n DESC WITH FILL;
SELECT toInt32(number) * 3 AS n FROM numbers(4) ORDER BY n DESC WITH FILL STEP -2;
SELECT number * 3 AS n FROM numbers(4) ORDER BY n WITH FILL LIMIT 5;
SELECT number * 2 AS n FROM numbers(3) ORDER BY n WITH FILL TO 10 LIMIT 2, 4;
SELECT 'x' AS s FROM numbers(3) ORDER BY number * 2 WITH FILL;
SELECT number * 3 AS n FROM numbers(3) ORDER BY 1 WITH FILL;
SELECT arrayJoin([0, 2, 4, 6, 8, 50, 52, 54, 100, 102, 104]) AS n ORDER BY n WITH FILL STEP 10;
SELECT toInt8(number * 100) AS n FROM numbers(2) ORDER BY n WITH FILL FROM 90 TO 130 STEP 20;
SELECT number AS n FROM numbers(0) ORDER BY n WITH FILL FROM 1 TO 4;
SELECT toFloat64(number) / 2 AS f FROM numbers(3) ORDER BY f WITH FILL STEP 0.3;
SELECT toNullable(number * 3) AS n FROM numbers(3) ORDER BY n WITH FILL;
SELECT if(number = 1, NULL, number * 3) AS n FROM numbers(4) ORDER BY n WITH FILL;
SELECT number % 3 AS k, count() AS c FROM numbers(10) WHERE number % 3 != 1 GROUP BY k ORDER BY k WITH FILL;
SELECT DISTINCT number % 4 * 2 AS n FROM numbers(10) ORDER BY n WITH FILL;
-- dates and times, INTERVAL steps
SELECT toDate('2024-01-01') + number * 5 AS d, number AS v FROM numbers(3) ORDER BY d WITH FILL STEP INTERVAL 2 DAY;
SELECT toDate('2024-01-31') + number * 60 AS d FROM numbers(2) ORDER BY d WITH FILL STEP INTERVAL 1 MONTH;
SELECT toDate('2024-01-01') + number * 3 AS d FROM numbers(2) ORDER BY d WITH FILL FROM 19720 TO 19730;
SELECT toDate('2024-01-01') + number * 3 AS d FROM numbers(2) ORDER BY d WITH FILL FROM toDate('2023-12-30') TO toDate('2024-01-09');
SELECT toDate('2024-01-01') + number * 20 AS d FROM numbers(3) ORDER BY d DESC WITH FILL STEP INTERVAL -1 WEEK;
SELECT toDateTime('2024-01-01 00:00:00', 'UTC') + number * 7200 AS t FROM numbers(2) ORDER BY t WITH FILL STEP INTERVAL 30 MINUTE;
SELECT toDateTime('2024-03-30 12:00:00', 'Europe/Berlin') + number * 86400 * 2 AS t FROM numbers(2) ORDER BY t WITH FILL STEP INTERVAL 1 DAY;
SELECT toDateTime('2024-01-31 10:00:00', 'UTC') AS t FROM numbers(1) ORDER BY t WITH FILL TO toDateTime('2024-06-01 00:00:00', 'UTC') STEP INTERVAL 1 MONTH;
SELECT toDateTime64('2024-01-01 00:00:00', 3, 'UTC') + number * 2 AS t FROM numbers(2) ORDER BY t WITH FILL;
SELECT toDateTime64('2024-01-01 00:00:00', 3, 'UTC') + number AS t FROM numbers(2) ORDER BY t WITH FILL STEP INTERVAL 250 MILLISECOND;
-- several WITH FILL keys, sorting prefixes, streaming across blocks
SELECT number % 2 AS k, number * 3 AS n FROM numbers(6) ORDER BY k, n WITH FILL;
SELECT number % 2 AS k, number * 3 AS n FROM numbers(6) ORDER BY k WITH FILL, n WITH FILL;
SELECT number % 3 AS a, number * 2 AS b FROM numbers(6) ORDER BY a WITH FILL FROM 0 TO 5, b WITH FILL TO 12 STEP 3;
SELECT number % 3 AS k, number * 3 AS n FROM numbers(20) ORDER BY k WITH FILL FROM 0 TO 4, n WITH FILL STEP 10 SETTINGS max_block_size = 2;
SELECT intDiv(number, 5) AS k, number * 3 AS n FROM numbers(20) ORDER BY k, n WITH FILL FROM 0 TO 70 STEP 5 SETTINGS max_block_size = 4;
SELECT intDiv(number, 5) AS k, number * 3 AS n FROM numbers(20) ORDER BY k DESC, n DESC WITH FILL STEP -4 SETTINGS max_block_size = 3;
SELECT number * 7 AS n, number AS v FROM numbers(20) ORDER BY n WITH FILL STEP 2 INTERPOLATE (v AS v * 2) SETTINGS max_block_size = 3;
-- INTERPOLATE
SELECT number * 3 AS n, number AS v FROM numbers(3) ORDER BY n WITH FILL INTERPOLATE (v AS v + 10);
SELECT number * 3 AS n, number AS v, 'a' AS s FROM numbers(3) ORDER BY n WITH FILL INTERPOLATE;
SELECT number * 5 AS n, 'v' AS s FROM numbers(3) ORDER BY n DESC WITH FILL FROM 12 TO 1 STEP -3 INTERPOLATE (s AS concat(s, 'x'));
SELECT intDiv(number, 5) AS k, toString(k) AS s, number * 3 AS n, number AS v FROM numbers(20) ORDER BY k, s, n WITH FILL TO 70 STEP 5 INTERPOLATE (v) SETTINGS max_block_size = 7;
-- errors
SELECT toDecimal32(number, 2) AS d FROM numbers(3) ORDER BY d WITH FILL STEP 0.5;
SELECT toString(number) AS n FROM numbers(3) ORDER BY n WITH FILL;
SELECT number * 3 AS n FROM numbers(3) ORDER BY n WITH FILL STEP 0;
SELECT number * 3 AS n FROM numbers(3) ORDER BY n WITH FILL STEP -1;
SELECT number * 3 AS n FROM numbers(3) ORDER BY n WITH FILL FROM -2;
SELECT toDate('2024-01-01') AS d FROM numbers(1) ORDER BY d WITH FILL TO toDate('2024-01-03') STEP INTERVAL 1 HOUR;
SELECT number * 3 AS n FROM numbers(3) ORDER BY n WITH FILL STEP INTERVAL 1 DAY;
SELECT number * 3 AS n FROM numbers(3) ORDER BY n WITH FILL INTERPOLATE (zz AS 1);
SELECT number * 3 AS n, number AS v FROM numbers(3) ORDER BY n WITH FILL INTERPOLATE (n AS 1);
SELECT toUInt8(number * 100) AS n FROM numbers(2) ORDER BY n WITH FILL TO 300 STEP 100;
-- a key repeated after its WITH FILL counts once; FROM and TO must be in sorting order
SELECT number * 3 AS n FROM numbers(3) ORDER BY n WITH FILL STEP 1, n;
SELECT number * 3 AS n FROM numbers(3) ORDER BY n, n WITH FILL;
SELECT number AS n FROM numbers(3) ORDER BY n WITH FILL FROM 10 TO 1;
SELECT number AS n FROM numbers(3) ORDER BY n DESC WITH FILL FROM 1 TO 10;
SELECT number AS n FROM numbers(3) ORDER BY n WITH FILL FROM 2 TO 2;
SELECT 1 AS x ORDER BY x WITH FILL TO 5;
WITH t AS (SELECT number * 2 AS n FROM numbers(3)) SELECT n FROM t ORDER BY n WITH FILL;
