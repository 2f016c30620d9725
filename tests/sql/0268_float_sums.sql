-- Float sums where ClickHouse's summation order is deterministic (one thread), compared
-- digit for digit: without GROUP BY each block is summed in 16 running partial sums
-- (addManyImpl), in a GROUP BY each row is added to its group in order. Not covered
-- (known to differ in the last digits): a single 8-bit GROUP BY key, which ClickHouse
-- sums through a lookup table of 4 partial sums per block (addBatchLookupTable8), and
-- several threads, whose partial sums meet in an order that depends on scheduling.
SELECT sum(x) FROM (SELECT number * 0.1 AS x FROM numbers(100000)) SETTINGS max_threads = 1;
SELECT sum(x) FROM (SELECT number * 0.1 AS x FROM numbers(1000003)) SETTINGS max_threads = 1;
SELECT sum(x) FROM (SELECT (number % 1000) / 7 AS x FROM numbers(300000)) SETTINGS max_threads = 1;
SELECT avg(x) FROM (SELECT number * 0.1 AS x FROM numbers(1000003)) SETTINGS max_threads = 1;
SELECT sum(toFloat32(number) / 3), avg(toFloat32(number) / 3) FROM numbers(100000) SETTINGS max_threads = 1;
SELECT k, sum(x), avg(x) FROM (SELECT number % 300 AS k, number * 0.1 AS x FROM numbers(100000)) GROUP BY k ORDER BY k LIMIT 20 SETTINGS max_threads = 1;
SELECT k, sum(x), avg(x) FROM (SELECT toString(number % 7) AS k, number * 0.1 AS x FROM numbers(100000)) GROUP BY k ORDER BY k SETTINGS max_threads = 1;
SELECT k, sum(x) FROM (SELECT toUInt16(number % 7) AS k, number * 0.1 AS x FROM numbers(100000)) GROUP BY k ORDER BY k SETTINGS max_threads = 1;
SELECT k, sum(x) FROM (SELECT toUInt32(number % 7) AS k, number / 3 AS x FROM numbers(200000)) GROUP BY k ORDER BY k SETTINGS max_threads = 1;
