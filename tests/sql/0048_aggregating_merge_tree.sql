-- AggregatingMergeTree: AggregateFunction states merged, SimpleAggregateFunction values
-- combined, at merge time and under FINAL (the seed telecom rollup pattern).
CREATE TABLE agg (day Date, probe UInt32, users AggregateFunction(uniq, UInt64), bytes AggregateFunction(sum, UInt64), hits AggregateFunction(count), avg_ms AggregateFunction(avg, Float64), top AggregateFunction(argMax, String, UInt64), peak SimpleAggregateFunction(max, UInt64), low SimpleAggregateFunction(min, UInt64), total SimpleAggregateFunction(sum, UInt64), last SimpleAggregateFunction(anyLast, String)) ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(day) ORDER BY (day, probe);
INSERT INTO agg SELECT toDate('2024-01-01') + number % 3 AS day, number % 5 AS probe, uniqState(number), sumState(number), countState(), avgState(number / 10), argMaxState(toString(number), number), max(number), min(number), sum(number), 'first' FROM numbers(1000) GROUP BY day, probe;
INSERT INTO agg SELECT toDate('2024-01-01') + number % 3 AS day, number % 5 AS probe, uniqState(number + 500), sumState(number), countState(), avgState(number / 20), argMaxState(toString(number * 3), number * 3), max(number * 2), min(number + 7), sum(number), 'second' FROM numbers(800) GROUP BY day, probe;
INSERT INTO agg SELECT toDate('2024-02-01') AS day, 1 AS probe, uniqState(number), sumState(number), countState(), avgState(toFloat64(number)), argMaxState('x', number), max(number), min(number), sum(number), 'feb' FROM numbers(10) GROUP BY day, probe;
SELECT day, probe, uniqMerge(users), sumMerge(bytes), countMerge(hits), round(avgMerge(avg_ms), 2), argMaxMerge(top), max(peak), min(low), sum(total) FROM agg GROUP BY day, probe ORDER BY day, probe;
SELECT day, probe, finalizeAggregation(users), finalizeAggregation(bytes), peak, low, total, last FROM agg FINAL ORDER BY day, probe;
OPTIMIZE TABLE agg FINAL;
SELECT count() FROM agg;
SELECT day, probe, finalizeAggregation(users), finalizeAggregation(bytes), finalizeAggregation(hits), argMaxMerge(top), peak, low, total, last FROM agg GROUP BY day, probe, users, bytes, hits, peak, low, total, last ORDER BY day, probe;
SELECT toStartOfMonth(day) AS m, uniqMerge(users), sumMerge(bytes), sum(total) FROM agg GROUP BY m ORDER BY m;
SELECT toTypeName(peak), toTypeName(users), toTypeName(top) FROM agg LIMIT 1;
-- A materialized rollup written by INSERT ... SELECT ... -State from a MergeTree table.
CREATE TABLE raw (ts DateTime, probe UInt32, user UInt64, bytes UInt64) ENGINE = MergeTree ORDER BY (probe, ts);
INSERT INTO raw SELECT toDateTime('2024-03-01 00:00:00') + number * 37, number % 4, number % 97, number * 3 FROM numbers(5000);
CREATE TABLE rollup (hour DateTime, probe UInt32, users AggregateFunction(uniq, UInt64), bytes AggregateFunction(sum, UInt64)) ENGINE = AggregatingMergeTree ORDER BY (hour, probe);
INSERT INTO rollup SELECT toStartOfHour(ts), probe, uniqState(user), sumState(bytes) FROM raw WHERE ts < '2024-03-01 12:00:00' GROUP BY 1, 2;
INSERT INTO rollup SELECT toStartOfHour(ts), probe, uniqState(user), sumState(bytes) FROM raw WHERE ts >= '2024-03-01 12:00:00' GROUP BY 1, 2;
SELECT probe, uniqMerge(users), sumMerge(bytes) FROM rollup GROUP BY probe ORDER BY probe;
SELECT probe, uniq(user), sum(bytes) FROM raw GROUP BY probe ORDER BY probe;
-- Columns that are neither keys nor measures need the explicit setting.
CREATE TABLE bad (k UInt32, v String, n AggregateFunction(sum, UInt64)) ENGINE = AggregatingMergeTree ORDER BY k; -- { serverError BAD_ARGUMENTS }
CREATE TABLE dims (k UInt32, v String, n SimpleAggregateFunction(sum, UInt64)) ENGINE = AggregatingMergeTree ORDER BY k SETTINGS allow_dimensions_outside_sorting_key = 1;
INSERT INTO dims VALUES (1, 'a', 1), (1, 'b', 2), (2, 'c', 3);
SELECT k, v, n FROM dims FINAL ORDER BY k;
CREATE TABLE bad_args (k UInt32, n SimpleAggregateFunction(sum, UInt64)) ENGINE = AggregatingMergeTree(k) ORDER BY k; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
