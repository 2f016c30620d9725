-- Filters through monotonic functions of key columns, and keys that are monotonic
-- functions of filtered columns: results must not change when granules are pruned.
CREATE TABLE ev (ts DateTime('UTC'), id UInt64, v String) ENGINE = MergeTree ORDER BY ts SETTINGS index_granularity = 64;
INSERT INTO ev SELECT toDateTime('2024-01-01 00:00:00', 'UTC') + number * 97, number, toString(number) FROM numbers(20000);
SELECT count(), min(id), max(id) FROM ev WHERE toDate(ts) = '2024-01-05';
SELECT count() FROM ev WHERE '2024-01-05' = toDate(ts);
SELECT count() FROM ev WHERE toStartOfHour(ts) = '2024-01-05 10:00:00';
SELECT count() FROM ev WHERE toYYYYMM(ts) = 202401;
SELECT count() FROM ev WHERE toYYYYMMDD(ts) BETWEEN 20240103 AND 20240104;
SELECT count() FROM ev WHERE toDate(ts) > '2024-01-10' AND toDate(ts) <= '2024-01-12';
SELECT count() FROM ev WHERE toUnixTimestamp(ts) < 1704200000;
SELECT count() FROM ev WHERE toMonth(ts) = 1 AND toHour(ts) = 3;
SELECT count() FROM ev WHERE intDiv(toUnixTimestamp(ts), 86400) = 19727;
CREATE TABLE ev2 (ts DateTime('UTC'), id UInt64) ENGINE = MergeTree ORDER BY (toStartOfHour(ts), id) SETTINGS index_granularity = 64;
INSERT INTO ev2 SELECT toDateTime('2024-01-01 00:00:00', 'UTC') + number * 53, number FROM numbers(20000);
SELECT count(), min(id), max(id) FROM ev2 WHERE ts >= '2024-01-05 10:30:00' AND ts < '2024-01-05 12:00:00';
SELECT count() FROM ev2 WHERE ts = '2024-01-05 10:31:27';
SELECT count() FROM ev2 WHERE ts > '2024-01-07 00:00:00';
SELECT count() FROM ev2 WHERE '2024-01-02 00:00:00' > ts;
SELECT count() FROM ev2 WHERE toStartOfHour(ts) = '2024-01-05 10:00:00';
SELECT count() FROM ev2 WHERE id = 5000;
CREATE TABLE ev3 (d Date, k UInt32, n UInt64) ENGINE = MergeTree PARTITION BY toYYYYMM(d) ORDER BY (intDiv(k, 10), d) SETTINGS index_granularity = 32;
INSERT INTO ev3 SELECT toDate('2023-11-01') + number % 120, number % 1000, number FROM numbers(30000);
SELECT count(), sum(n) FROM ev3 WHERE k = 537;
SELECT count(), sum(n) FROM ev3 WHERE k >= 990;
SELECT count(), sum(n) FROM ev3 WHERE toYYYYMM(d) = 202312;
SELECT count(), sum(n) FROM ev3 WHERE d >= '2024-02-01' AND k < 20;
SELECT count() FROM ev3 WHERE toStartOfMonth(d) = '2024-01-01';
