-- if/multiIf pick fixed-width values 64 rows per mask word: blocks that are not a
-- multiple of 64 rows, sliced columns, constant branches, NULLs in either branch.
SELECT sum(if(number % 3 = 0, number, 1000 + number)), sum(if(number % 5 = 1, 7, number)), sum(if(number % 7 = 2, number, 9)) FROM numbers(1000003);
SELECT number, if(number % 2 = 1, toUInt8(number), toInt16(-number)) AS x, toTypeName(x) FROM numbers(70) WHERE number > 60 ORDER BY number;
SELECT number, if(number % 3 = 0, NULL, number) AS x, toTypeName(x), if(number % 4 = 1, number * 10, NULL) AS y FROM numbers(130) WHERE number >= 125 ORDER BY number;
SELECT number, multiIf(number < 2, 'a', number < 4, 'b', 'c') AS s, multiIf(number = 1, 1.5, number = 3, toFloat64(number), -1) AS f, multiIf(number % 2 = 0, toNullable(number), NULL) AS n FROM numbers(6) ORDER BY number;
SELECT if(number > 1, toDateTime('2020-01-01 00:00:00', 'UTC'), toDateTime('2021-01-01 00:00:00', 'UTC')) AS d, toTypeName(d), if(number > 2, toDecimal32(1.5, 2), NULL) AS dec, toTypeName(dec), if(number > 0, toDate('2024-02-29'), toDate('2000-01-01')) AS dd FROM numbers(4);
SELECT if(1, number, 7), if(0, number, 7), if(NULL, number, 7), if(number = 2, 1, 0) FROM numbers(4);
SELECT multiIf(number < 100, 1, number < 1000, toNullable(2), 3) AS m, count() FROM numbers(1000000) GROUP BY m ORDER BY m;
SELECT countIf(x = 0), sum(x) FROM (SELECT if(cityHash64(number, 2) % 10 = 0, 0, 13800000000 + cityHash64(number, 3) % 5000) AS x FROM numbers(200000));
SELECT if(toNullable(number) % 2 = 0, 'even', 'odd') AS p, count() FROM numbers(101) GROUP BY p ORDER BY p;
SELECT toInt8(number * 50) AS a, toUInt8(-toInt64(number)) AS b, toInt64(toUInt64(18446744073709551615) - number) AS c, toUInt16(toInt8(-number)) AS d FROM numbers(4);
