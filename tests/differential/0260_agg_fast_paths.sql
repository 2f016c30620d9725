-- uniq's hashing without per-row Options (NULLs in any argument skip the row) and Float64
-- sums over columns without NULLs (ClickHouse's 16 partial sums, same order).
SELECT sum(toFloat64(number) / 3) FROM numbers(1000003);
SELECT sum(if(number % 4 = 0, NULL, toFloat64(number) / 7)) FROM numbers(100017);
SELECT sum(toFloat64(number)) FROM numbers(15);
SELECT uniq(if(number % 3 = 0, NULL, toString(number))) FROM numbers(300000);
SELECT uniq(if(number % 3 = 0, NULL, toString(number)), if(number % 5 = 0, NULL, number)) FROM numbers(300000);
SELECT number % 3 AS k, uniq(if(number % 4 = 0, NULL, toString(number))), uniq(toString(number), number % 11) FROM numbers(300000) GROUP BY k ORDER BY k;
SELECT uniqCombined(toString(number), number % 7), uniqCombined64(if(number % 2 = 0, NULL, number), toString(number)) FROM numbers(200000);
SELECT uniq(toUInt16(number % 60000)), uniq(toInt16(number)), uniq(toUInt8(number)), uniq(toInt64(number) - 100000) FROM numbers(200000);
SELECT uniq(toUInt16(number), toInt8(number)), uniq(toFloat64(number) / 3, number), uniq(toInt32(number) - 5, toString(number % 100)) FROM numbers(200000);
SELECT uniqIf(toString(number), number % 3 = 1), uniqIf(number, number % 5 = 0) FROM numbers(200000);
SELECT number % 5 AS k, uniqIf(toString(number), number % 3 = 1) FROM numbers(100000) GROUP BY k ORDER BY k;
