-- ClickHouse's value window functions: lagInFrame/leadInFrame stay inside the frame,
-- lag/lead look at the whole partition; a missing row gives the type's default (0, '')
-- and the result keeps the argument's type (not Nullable); first_value/last_value skip
-- NULLs, nth_value does not.
SELECT number, lagInFrame(number) OVER (ORDER BY number) AS a, leadInFrame(number) OVER (ORDER BY number) AS b, leadInFrame(number) OVER (ORDER BY number ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS c, lagInFrame(number, 2, 100) OVER (ORDER BY number ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS d FROM numbers(5) ORDER BY number;
SELECT number, lag(number) OVER (ORDER BY number) AS a, lead(number) OVER (ORDER BY number) AS b, lag(toString(number)) OVER (ORDER BY number) AS c, toTypeName(a), toTypeName(c) FROM numbers(3) ORDER BY number;
SELECT number, toTypeName(first_value(number) OVER (ORDER BY number)) AS t1, toTypeName(last_value(number) OVER ()) AS t2, toTypeName(nth_value(number, 2) OVER (ORDER BY number)) AS t3, nth_value(number, 2) OVER (ORDER BY number) AS n2, first_value(number) OVER (ORDER BY number ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) AS f FROM numbers(4) ORDER BY number;
SELECT n, x, first_value(x) OVER (ORDER BY n) AS a, last_value(x) OVER (ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS b, nth_value(x, 2) OVER (ORDER BY n) AS c, lagInFrame(x) OVER (ORDER BY n) AS d, lag(x, 1, 7) OVER (ORDER BY n) AS e, toTypeName(a), toTypeName(c), toTypeName(d) FROM (SELECT number AS n, if(number % 2 = 0, NULL, number) AS x FROM numbers(4)) ORDER BY n;
SELECT number AS k, first_value(toString(k)) OVER (ORDER BY k ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) AS a, nth_value(k, 3) OVER (PARTITION BY k % 2 ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS b, lagInFrame(k, 1) OVER (PARTITION BY k % 2 ORDER BY k) AS c, leadInFrame(k, 2, 99) OVER (ORDER BY k ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS d, lead(k, 2) OVER (ORDER BY k) AS e, leadInFrame(k, 1) OVER (ORDER BY k ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS f FROM numbers(6) ORDER BY k;
SELECT toTypeName(lagInFrame(number) OVER ()), toTypeName(lag(toNullable(number)) OVER ()), toTypeName(leadInFrame(toString(number), 1, 'z') OVER ()), leadInFrame(toString(number), 1, 'z') OVER () FROM numbers(1);
SELECT number, lagInFrame(number, number) OVER (ORDER BY number ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS a, leadInFrame(toDate('2020-01-01'), 1) OVER (ORDER BY number ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS b FROM numbers(3) ORDER BY number;
SELECT lagInFrame(number, 1, 'a') OVER () FROM numbers(2); -- { serverError BAD_ARGUMENTS }
SELECT lagInFrame(number, -1) OVER () FROM numbers(2); -- { serverError BAD_ARGUMENTS }
SELECT lagInFrame(toUInt8(number), 1, 1000) OVER () FROM numbers(2); -- { serverError BAD_ARGUMENTS }
SELECT lagInFrame() OVER () FROM numbers(2); -- { serverError TOO_FEW_ARGUMENTS_FOR_FUNCTION }
