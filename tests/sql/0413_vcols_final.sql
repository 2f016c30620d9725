-- Virtual columns under FINAL: each surviving row keeps the values of the version it came from.
-- Part names are cut before the level: ClickHouse gives level 1 to parts that optimize_on_insert merged.
CREATE TABLE r (k UInt32, v String, ver UInt32) ENGINE = ReplacingMergeTree(ver) ORDER BY k SETTINGS index_granularity = 2;
SYSTEM STOP MERGES r;
INSERT INTO r SELECT number, 'a' || toString(number), 1 FROM numbers(6);
INSERT INTO r SELECT number * 2, 'b' || toString(number), 2 FROM numbers(3);
INSERT INTO r SELECT 4, 'old', 0;
SELECT substring(_part, 1, length(_part) - 2) AS p, _part_offset, k, v, ver FROM r FINAL ORDER BY k;
SELECT k, _part_index, _partition_id, _table FROM r FINAL ORDER BY k;
SELECT k, v FROM r FINAL WHERE _part_offset = 1 ORDER BY k;
SELECT k, v, _part_offset FROM r FINAL WHERE _part LIKE 'all_1_1_%' ORDER BY k;
SELECT k, v FROM r FINAL WHERE _part_index = 1 ORDER BY k;
SELECT substring(_part, 1, length(_part) - 2) AS p, count() FROM r FINAL GROUP BY p ORDER BY p;
SELECT k, _part_offset FROM r FINAL ORDER BY k LIMIT 2;
CREATE TABLE s (k UInt32, n UInt64, tag String) ENGINE = SummingMergeTree(n) PARTITION BY k % 2 ORDER BY k;
SYSTEM STOP MERGES s;
INSERT INTO s SELECT number, 1, 'x' FROM numbers(4);
INSERT INTO s SELECT number + 2, 10, 'y' FROM numbers(4);
SELECT k, n, tag, substring(_part, 1, length(_part) - 2), _part_offset, _partition_id, _partition_value FROM s FINAL ORDER BY k;
CREATE TABLE a (k UInt32, m AggregateFunction(max, UInt32), s SimpleAggregateFunction(sum, UInt64)) ENGINE = AggregatingMergeTree ORDER BY k;
SYSTEM STOP MERGES a;
INSERT INTO a SELECT number % 3, maxState(toUInt32(number)), sum(number) FROM numbers(6) GROUP BY number % 3;
INSERT INTO a SELECT number % 2, maxState(toUInt32(number * 10)), sum(number) FROM numbers(4) GROUP BY number % 2;
SELECT k, maxMerge(m), sum(s), any(substring(_part, 1, length(_part) - 2)), any(_part_offset) FROM a FINAL GROUP BY k ORDER BY k;
SELECT k, _part_index, _part_offset FROM a FINAL ORDER BY k;
