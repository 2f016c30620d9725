-- uniq is ClickHouse's UniquesHashSet: exact below 65536 distinct hashes, sampled above,
-- so these must match ClickHouse's estimates digit for digit.
SELECT uniq(number) FROM numbers(1000000);
SELECT uniq(toString(number)) FROM numbers(1000000);
SELECT uniq(number % 100000) FROM numbers(1000000);
SELECT uniq(number, number % 7) FROM numbers(1000000);
SELECT uniq(toString(number), number % 3) FROM numbers(300000);
SELECT uniq((number, toString(number))) FROM numbers(300000);
SELECT uniq(toFloat64(number)), uniq(toFloat32(number)) FROM numbers(300000);
SELECT uniq(toInt32(number) - 150000), uniq(toInt8(number % 256 - 128)) FROM numbers(300000);
SELECT uniq(toDate(number % 50000)), uniq(toDateTime(number)) FROM numbers(300000);
SELECT uniq(if(number % 3 = 0, NULL, number)) FROM numbers(300000);
SELECT uniq(if(number % 3 = 0, NULL, number), number % 5) FROM numbers(300000);
SELECT uniq(x) FROM (SELECT CAST(NULL AS Nullable(UInt64)) AS x FROM numbers(10));
SELECT uniq(number) FROM numbers(0);
SELECT number % 3 AS k, uniq(number), uniq(toString(number)) FROM numbers(500000) GROUP BY k ORDER BY k;
SELECT uniqIf(number, number % 2 = 0) FROM numbers(400000);
SELECT uniqMerge(s) FROM (SELECT uniqState(number) AS s FROM numbers(600000) GROUP BY number % 4);
SELECT finalizeAggregation(uniqState(number)) FROM numbers(200000);
SELECT hex(uniqState(number)) FROM numbers(3);
SELECT hex(uniqState(toNullable(number))) FROM numbers(3);
SELECT hex(uniqState(toString(number), toUInt8(1))) FROM numbers(2);
SELECT toTypeName(uniqState(number, 'a')), toTypeName(uniq(number));
SELECT uniq(-0.0), uniq(toFloat64(number) - number) FROM numbers(3);
SELECT uniq(toDecimal64(number, 2)), uniq(toDecimal32(number % 1000, 1)) FROM numbers(200000);
