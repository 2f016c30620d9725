-- uniqExact with several arguments counts distinct combinations, skipping rows where one argument is NULL; a tuple argument counts NULL elements as values.
SELECT uniqExact(a, b), uniqExact((a, b)), uniqExact(s, n), uniqExact((s, n)), uniqExact(n) FROM (SELECT number % 1000 AS a, intDiv(number, 7) % 333 AS b, toString(number % 5000) AS s, if(number % 11 = 0, NULL, number % 77) AS n FROM numbers(200000));
SELECT k, uniqExact(s, n), uniqExact(n, s, a) FROM (SELECT number % 3 AS k, number % 1000 AS a, toString(number % 500) AS s, if(number % 11 = 0, NULL, number % 77) AS n FROM numbers(150000)) GROUP BY k ORDER BY k;
SELECT uniqExact(x, y) FROM (SELECT toNullable(1) AS x, NULL AS y);
SELECT uniqExact(number, number % 3), uniqExact(number % 2, toString(number)) AS u FROM numbers(10) FORMAT TSVWithNames;
-- uniq over Arrays: ClickHouse hashes an Array of fixed-size values as its elements' bytes (CityHash64), other Arrays with SipHash; past 65536 distinct values the sample depends on those hashes.
SELECT uniq(arr), uniqExact(arr) FROM (SELECT [number, number % 7] AS arr FROM numbers(200000));
SELECT uniq(arr) FROM (SELECT [toString(number), 'x'] AS arr FROM numbers(200000));
SELECT uniq(arr) FROM (SELECT [toUInt8(number % 256), toUInt8(intDiv(number, 256) % 256), toUInt8(intDiv(number, 65536))] AS arr FROM numbers(150000));
SELECT uniq(arr) FROM (SELECT [toNullable(number), if(number % 3 = 0, NULL, number)] AS arr FROM numbers(120000));
SELECT uniq(arr) FROM (SELECT [[number], [number % 5, 1]] AS arr FROM numbers(100000));
SELECT uniq(arr, number % 3) FROM (SELECT [toDate('2020-01-01') + number % 1000, toDate('2020-01-01')] AS arr, number FROM numbers(200000));
SELECT uniq((arr, s)) FROM (SELECT [number % 400, 1] AS arr, toString(number % 700) AS s FROM numbers(300000));
SELECT uniqCombined(arr) FROM (SELECT [number, number % 7] AS arr FROM numbers(200000));
SELECT hex(uniqState([1, 2]::Array(UInt64))), hex(uniqState(['a', 'b'])), hex(uniqState([toNullable(1::UInt8)])), hex(uniqState(CAST([] AS Array(UInt8))));
