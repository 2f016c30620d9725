-- -Merge over many groups (the vectorized groups accumulator): NULL states, -MergeIf,
-- a GROUP BY of an expression, states of a Nullable argument, no rows.
DROP TABLE IF EXISTS merge_groups;
CREATE TABLE merge_groups (k UInt32, st AggregateFunction(sum, UInt64), n AggregateFunction(sum, Nullable(UInt64)), a AggregateFunction(avg, Int32), m AggregateFunction(max, String)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO merge_groups SELECT number % 1000, sumState(number), sumState(if(number % 3 = 0, NULL, number)), avgState(toInt32(number)), maxState(toString(number)) FROM numbers(100000) GROUP BY number % 1000, number % 7;
SELECT k, sumMerge(st), sumMerge(n), sumMergeIf(st, k % 2 = 0), avgMerge(a), maxMerge(m) FROM merge_groups GROUP BY k ORDER BY k LIMIT 5;
SELECT sum(x), sum(y), round(sum(z), 3), count() FROM (SELECT k, sumMerge(st) AS x, sumMerge(n) AS y, avgMerge(a) AS z FROM merge_groups GROUP BY k);
SELECT k % 3 AS r, sumMerge(st), maxMerge(m) FROM merge_groups WHERE k < 10 GROUP BY r ORDER BY r;
SELECT sumMerge(st) FROM merge_groups WHERE k > 5000;
DROP TABLE merge_groups;
