-- -State in a GROUP BY of many groups (a groups accumulator of the base aggregate, each
-- group's state serialized at the end): the state bytes, their finalization and merges
-- equal ClickHouse's, with argument types that need a cast, NULLs and filters (Float sums are
-- compared finalized: their last bit depends on how rows were split among threads).
SELECT k, hex(sumState(v)), hex(sumState(toUInt32(v))), finalizeAggregation(sumState(toFloat64(v) / 3)) FROM (SELECT number % 1000 AS k, number AS v FROM numbers(200000)) GROUP BY k ORDER BY k LIMIT 20;
SELECT k, hex(countState()), hex(minState(v)), hex(maxState(toInt16(v))), hex(avgState(v)) FROM (SELECT number % 777 AS k, number AS v FROM numbers(100000)) GROUP BY k ORDER BY k LIMIT 20;
SELECT k, finalizeAggregation(sumState(v)), finalizeAggregation(avgState(v)), finalizeAggregation(minState(v)) FROM (SELECT number % 5000 AS k, number AS v FROM numbers(100000)) GROUP BY k ORDER BY k LIMIT 10;
SELECT k, hex(sumState(if(v % 3 = 0, NULL, v))), hex(sumStateIf(v, v % 2 = 0)) FROM (SELECT number % 300 AS k, number AS v FROM numbers(30000)) GROUP BY k ORDER BY k LIMIT 20;
SELECT sumMerge(s), count() FROM (SELECT number % 4000 AS k, sumState(number) AS s FROM numbers(100000) GROUP BY k);
SELECT k % 10 AS kk, sumMerge(s), avgMerge(a) FROM (SELECT number % 4000 AS k, sumState(number) AS s, avgState(toUInt32(number)) AS a FROM numbers(100000) GROUP BY k) GROUP BY kk ORDER BY kk;
SELECT hex(sumState(toUInt64(1))), hex(sumState(toUInt8(number))) FROM numbers(100) GROUP BY number % 3 ORDER BY 1, 2;
