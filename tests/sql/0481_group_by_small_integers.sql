-- GROUP BY a one- or two-byte integer key indexes a table of its whole domain instead of hashing.
SELECT number % 100 AS k, count(), sum(number), avg(number), min(number), max(number) FROM numbers(100000) GROUP BY k ORDER BY k LIMIT 5;
SELECT toInt8(number) AS k, count(), sum(number) FROM numbers(1000) GROUP BY k ORDER BY k LIMIT 4;
SELECT toInt8(number) AS k, count() FROM numbers(1000) GROUP BY k ORDER BY k DESC LIMIT 3;
SELECT toUInt16(number * 7) AS k, count(), uniqExact(number % 3) FROM numbers(200000) GROUP BY k ORDER BY count() DESC, k LIMIT 4;
SELECT toInt16(number) - 100 AS k, count() FROM numbers(300) GROUP BY k ORDER BY k LIMIT 3;
SELECT if(number % 5 = 0, NULL, toUInt8(number % 7)) AS k, count(), sum(number) FROM numbers(1000) GROUP BY k ORDER BY k;
SELECT number % 3 = 0 AS k, count() FROM numbers(10) GROUP BY k ORDER BY k;
SELECT toUInt8(number % 4) AS k, count() AS c FROM numbers(100) WHERE number > 50 GROUP BY k HAVING c > 12 ORDER BY k;
SELECT toUInt8(number) AS k, count() FROM numbers(10) WHERE number > 100 GROUP BY k;
SELECT count(), sum(c) FROM (SELECT toUInt16(number % 60000) AS k, count() AS c FROM numbers(100000) GROUP BY k) SETTINGS max_threads = 2;
SELECT toInt8(number % 200) AS k, groupArray(number) FROM numbers(300) WHERE number % 100 = 7 GROUP BY k ORDER BY k;
DROP TABLE IF EXISTS small_keys;
CREATE TABLE small_keys (id UInt64, tag UInt8, level Int16, v Float64) ENGINE = MergeTree ORDER BY id;
INSERT INTO small_keys SELECT number, number % 13, toInt16(number % 700) - 350, number / 4 FROM numbers(50000);
SELECT tag, count(), sum(v), min(level), max(level) FROM small_keys GROUP BY tag ORDER BY tag LIMIT 4;
SELECT level, count(), avg(v) FROM small_keys GROUP BY level ORDER BY level LIMIT 3;
SELECT tag, count() FROM small_keys GROUP BY tag ORDER BY count() DESC, tag LIMIT 3 SETTINGS max_threads = 2;
DROP TABLE small_keys;
