-- uniq over a tuple with a Nullable (or nested Tuple) element: ClickHouse hashes such
-- tuples with SipHash over each element's updateHashWithValue (a NULL flag byte, then the
-- value; a String as its length plus one, its bytes and a zero byte) instead of combining
-- CityHashes. NULL elements count as values; NULL top-level arguments skip the row.
-- Hundreds of thousands of rows, so that uniq's sampling and uniqCombined's HyperLogLog
-- take over from exact counting.
SELECT uniq((s, n)), uniq(s, n), uniqCombined(s, n), uniqHLL12(s, n), uniqExact((s, n)), uniqCombined((s, n)), uniqHLL12((s, n)), uniqCombined64((s, n)) FROM (SELECT toString(number % 1000) AS s, if(number % 3 = 0, NULL, number % 777) AS n FROM numbers(200000));
SELECT uniq((s, n)), uniqCombined((s, n)), uniqHLL12((s, n)), uniqExact((s, n)) FROM (SELECT toString(number) AS s, if(number % 3 = 0, NULL, toNullable(number)) AS n FROM numbers(300000));
SELECT hex(uniqState((s, n))) FROM (SELECT toString(number) AS s, if(number % 3 = 0, NULL, toNullable(number)) AS n FROM numbers(5));
SELECT hex(uniqState((toNullable(number), toNullable(toString(number))))), hex(uniqCombinedState((number, toNullable(toUInt8(number))))) FROM numbers(6);
SELECT uniq(tuple(number, tuple(number % 3, 'x'))) FROM numbers(150000);
SELECT uniq((toDate(number), toNullable(toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')), number)) FROM numbers(150000);
SELECT uniq((number, toNullable(toInt8(number)), toNullable(toFloat32(number)), toNullable(toDecimal32(number, 2)))) FROM numbers(150000);
SELECT uniq((number, if(number % 2, NULL, toFixedString(toString(number % 100), 3)), toNullable(toDateTime(number)))) FROM numbers(150000);
SELECT uniq((toNullable(toLowCardinality(toString(number))), 1)) FROM numbers(150000);
SELECT uniqCombined(x), uniqHLL12(x), uniq(x) FROM (SELECT (number % 50000, if(number % 4 = 0, NULL, number % 3)) AS x FROM numbers(300000));
SELECT number % 3 AS k, uniq((toString(number), toNullable(number % 11))), uniqCombined((toString(number), toNullable(number % 11))) FROM numbers(200000) GROUP BY k ORDER BY k;
SELECT uniqMerge(s) FROM (SELECT uniqState((toString(number), toNullable(number % 13))) AS s FROM numbers(200000) GROUP BY number % 7);
