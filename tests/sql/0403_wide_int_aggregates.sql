-- Aggregates, grouping, ordering, DISTINCT, IN and joins over wide integers.
DROP TABLE IF EXISTS w;
CREATE TABLE w (k UInt8, i Int128, u UInt128, j Int256, v UInt256) ENGINE = Memory;
INSERT INTO w SELECT number % 3, toInt128(number) * toInt128('10000000000000000000000') - 7, toUInt128(number) * toUInt128('100000000000000000000000'), toInt256(number) - 5, toUInt256(number % 4) FROM numbers(10);
SELECT count(), sum(i), sum(u), sum(j), sum(v), min(i), max(i), min(j), max(u), avg(i), avg(j), any(k) FROM w;
SELECT toTypeName(sum(i)), toTypeName(sum(u)), toTypeName(sum(j)), toTypeName(sum(v)), toTypeName(avg(i)), toTypeName(min(u)), toTypeName(max(v)), toTypeName(any(j)), toTypeName(argMax(i, j)) FROM w;
SELECT k, sum(i), min(j), max(u), uniqExact(v), uniq(v), groupArray(v), argMin(i, j), argMax(u, j) FROM w GROUP BY k ORDER BY k;
SELECT sumIf(i, k = 1), countIf(j > 0), maxIf(u, k = 2), uniqExactIf(v, k = 0) FROM w;
SELECT v, count() FROM w GROUP BY v ORDER BY v;
SELECT DISTINCT v FROM w ORDER BY v DESC;
SELECT j FROM w ORDER BY j DESC LIMIT 3;
SELECT i FROM w WHERE i IN (SELECT i FROM w WHERE k = 1) ORDER BY i;
SELECT count() FROM w WHERE j IN (-5, 0, 4);
SELECT a.k, a.j, b.k FROM w AS a INNER JOIN w AS b ON a.j = b.j + 1 ORDER BY a.j;
SELECT x, count() FROM (SELECT toUInt128(number % 2) AS x FROM numbers(10)) GROUP BY x ORDER BY x;
-- sum wraps around as the type does.
SELECT sum(x) FROM (SELECT toInt128('170141183460469231731687303715884105727') AS x FROM numbers(2));
SELECT sum(x) FROM (SELECT toUInt128('340282366920938463463374607431768211455') AS x FROM numbers(3));
SELECT sum(x), toTypeName(sum(x)) FROM (SELECT toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935') AS x FROM numbers(2));
SELECT sumMerge(s), maxMerge(m) FROM (SELECT sumState(i) AS s, maxState(u) AS m FROM w);
-- UInt256 values from 2^255 up, compared, sorted and aggregated.
SELECT v FROM (SELECT arrayJoin([toUInt256('57896044618658097711785492504343953926634992332820282019728792003956564819968'), toUInt256(1), toUInt256('57896044618658097711785492504343953926634992332820282019728792003956564819967')]) AS v) ORDER BY toString(v);
SELECT arraySum([toInt128(1), toInt128(2)]), arraySum([toUInt128('340282366920938463463374607431768211455'), toUInt128(2)]), toTypeName(arraySum([toUInt256(1)])), arrayMax([toInt128(1), toInt128(-2)]), arrayMin([toUInt256(3), toUInt256(2)]);
SELECT cityHash64(toInt128(1)), cityHash64(toUInt128(1)), cityHash64(toUInt256(1)), cityHash64(toInt256(-1)), sipHash64(toInt128(1)), xxHash64(toInt128(1));
SELECT k, sum(j) FROM w GROUP BY k WITH TOTALS ORDER BY k;
SELECT * FROM (SELECT toUInt128(number) AS a FROM numbers(3)) AS l JOIN (SELECT toUInt64(number) AS a FROM numbers(2)) AS r USING (a) ORDER BY a;
SELECT i FROM w ORDER BY i LIMIT 2 BY k;
SELECT quantile(0.5)(i), median(i - 100), quantileExact(0.3)(i), toTypeName(quantileExact(0.3)(i)), quantiles(0.1, 0.9)(i), quantileExactWeighted(0.5)(i, k), quantileDeterministic(0.5)(i, k) FROM w;
SELECT quantileTDigest(0.5)(i) FROM w; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
DROP TABLE w;
