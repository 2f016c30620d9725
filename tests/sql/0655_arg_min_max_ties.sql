-- Which row argMin/argMax pick on ties: ClickHouse's block rule without GROUP BY (numeric keys), first row with GROUP BY.
SELECT argMax(number, number % 5), argMin(number, number % 5), argMin(number, 4 - number % 5) FROM numbers(10);
SELECT k, argMax(number, number % 5), argMin(number, 4 - number % 5) FROM numbers(20) GROUP BY number % 2 AS k ORDER BY k;
SELECT argMax(number, toString(number % 5)), argMax(number, toInt128(number % 5)), argMax(number, toNullable(number % 5)) FROM numbers(10);
SELECT argMax(number, toDate(number % 5)), argMax(number, toDecimal64(number % 5, 2)), argMax(number, toDecimal128(number % 5, 2)) FROM numbers(10);
SELECT argMax(number, 1), argMax(number, number > 3) FROM numbers(10);
SELECT k, argMaxIf(number, number % 5, number > 2), argAndMax(number, number % 3) FROM numbers(20) GROUP BY number % 3 AS k ORDER BY k;
SELECT k, argMax(s, v) FROM (SELECT number % 4 AS k, toString(number) AS s, intDiv(number, 8) AS v FROM numbers(32)) GROUP BY k ORDER BY k;
SELECT argAndMin(number, number % 3) FROM numbers(10);
SELECT k, argMax(number, number % 7) FROM numbers(5000) GROUP BY number % 10 AS k ORDER BY k;
SELECT argMax(number, number % 7), argMin(number, number % 7 + 1) FROM numbers(5000);
SELECT argMaxIf(number, number % 5, number > 2) FROM numbers(10) WHERE number < 4;
