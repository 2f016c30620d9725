-- finalizeAggregation and the merges of AggregatingMergeTree work on whole columns of
-- states (each row its own group of the base aggregate's groups accumulator; sum states
-- decoded straight from their bytes). Results must be those of one state at a time.
CREATE TABLE agg_states (k UInt8, s AggregateFunction(sum, UInt64), sn AggregateFunction(sum, Nullable(UInt32)), sf AggregateFunction(sum, Float64), si AggregateFunction(sum, Int32), c AggregateFunction(count), a AggregateFunction(avg, Float64), u AggregateFunction(uniq, UInt64), m AggregateFunction(min, String), y AggregateFunction(any, Int32)) ENGINE = AggregatingMergeTree ORDER BY k;
SYSTEM STOP MERGES agg_states;
INSERT INTO agg_states SELECT number % 5, sumState(number), sumState(if(number % 3 = 0, NULL, toUInt32(number))), sumState(number / 4), sumState(toInt32(toInt32(number) - 50)), countState(), avgState(number * 1.5), uniqState(toUInt64(number % 7)), minState(toString(number)), anyState(toInt32(number)) FROM numbers(100) GROUP BY number % 5;
INSERT INTO agg_states SELECT number % 3, sumState(number), sumState(if(number > 1000, toUInt32(number), NULL)), sumState(-number / 8), sumState(toInt32(toInt32(number) - 2000)), countState(), avgState(number * 0.5), uniqState(toUInt64(number % 11)), minState(toString(number)), anyState(toInt32(number)) FROM numbers(1000, 50) GROUP BY number % 3;
SELECT k, finalizeAggregation(s), finalizeAggregation(sn), finalizeAggregation(sf), finalizeAggregation(si), finalizeAggregation(c), finalizeAggregation(a), finalizeAggregation(u), finalizeAggregation(m) FROM agg_states ORDER BY k, finalizeAggregation(c);
SELECT k, sumMerge(s), sumMerge(sn), sumMerge(sf), sumMerge(si), countMerge(c), avgMerge(a), uniqMerge(u), minMerge(m) FROM agg_states GROUP BY k ORDER BY k;
SELECT sumMerge(s), sumMerge(sn), sumMerge(sf), sumMerge(si), countMerge(c), avgMerge(a), uniqMerge(u), minMerge(m) FROM agg_states WHERE k != 2;
SYSTEM START MERGES agg_states;
OPTIMIZE TABLE agg_states FINAL;
SELECT k, finalizeAggregation(s), finalizeAggregation(sn), finalizeAggregation(sf), finalizeAggregation(si), finalizeAggregation(c), finalizeAggregation(a), finalizeAggregation(u), finalizeAggregation(m) FROM agg_states ORDER BY k;
SELECT finalizeAggregation(s), finalizeAggregation(n), finalizeAggregation(c) FROM (SELECT sumState(number) AS s, sumState(toNullable(number)) AS n, countState() AS c FROM numbers(0));
SELECT number, finalizeAggregation(s) FROM (SELECT number, sumState(number * 3) AS s FROM numbers(5) GROUP BY number) ORDER BY number;
DROP TABLE agg_states;
-- count (VarUInt), and min/max/any/anyLast of numbers (a set flag, then the number).
CREATE TABLE agg_flags (k UInt8, c AggregateFunction(count), mi AggregateFunction(min, Int16), ma AggregateFunction(max, Float64), an AggregateFunction(any, UInt64), al AggregateFunction(anyLast, Float32), mu AggregateFunction(max, UInt8)) ENGINE = AggregatingMergeTree ORDER BY k;
SYSTEM STOP MERGES agg_flags;
INSERT INTO agg_flags SELECT number % 4, countState(), minState(toInt16(toInt16(number) - 300)), maxState(number * 0.25), anyState(number), anyLastState(toFloat32(number)), maxState(toUInt8(number % 200)) FROM numbers(1000) GROUP BY number % 4;
INSERT INTO agg_flags SELECT number % 2, countState(), minState(toInt16(-number)), maxState(-1.5 * number), anyState(number + 7), anyLastState(toFloat32(-number)), maxState(toUInt8(number)) FROM numbers(10) GROUP BY number % 2;
INSERT INTO agg_flags SELECT 9, countState(), minState(toInt16(number)), maxState(toFloat64(number)), anyState(number), anyLastState(toFloat32(number)), maxState(toUInt8(number)) FROM numbers(0);
SELECT k, finalizeAggregation(c), finalizeAggregation(mi), finalizeAggregation(ma), finalizeAggregation(mu) FROM agg_flags ORDER BY k, finalizeAggregation(c);
SELECT k, countMerge(c), minMerge(mi), maxMerge(ma), maxMerge(mu) FROM agg_flags GROUP BY k ORDER BY k;
SELECT countMerge(c), minMerge(mi), maxMerge(ma), maxMerge(mu) FROM agg_flags WHERE k != 1;
SELECT k, toTypeName(anyMerge(an)), anyMerge(an) IS NOT NULL, anyLastMerge(al) IS NOT NULL FROM agg_flags WHERE k = 9 GROUP BY k;
DROP TABLE agg_flags;
-- avg of signed, unsigned and float numbers: the sum in 8 bytes, then a VarUInt count.
CREATE TABLE agg_avg (k UInt8, ai AggregateFunction(avg, Int32), au AggregateFunction(avg, UInt64), af AggregateFunction(avg, Float32)) ENGINE = AggregatingMergeTree ORDER BY k;
SYSTEM STOP MERGES agg_avg;
INSERT INTO agg_avg SELECT number % 3, avgState(toInt32(toInt32(number) - 700)), avgState(number * 1000), avgState(toFloat32(number / 3)) FROM numbers(1000) GROUP BY number % 3;
INSERT INTO agg_avg SELECT number % 2, avgState(toInt32(-number)), avgState(number), avgState(toFloat32(-1.25)) FROM numbers(300) GROUP BY number % 2;
INSERT INTO agg_avg SELECT 7, avgState(toInt32(number)), avgState(number), avgState(toFloat32(number)) FROM numbers(0);
SELECT k, finalizeAggregation(ai), finalizeAggregation(au), round(finalizeAggregation(af), 6) FROM agg_avg ORDER BY k, finalizeAggregation(au);
SELECT k, avgMerge(ai), avgMerge(au), round(avgMerge(af), 6) FROM agg_avg GROUP BY k ORDER BY k;
DROP TABLE agg_avg;
