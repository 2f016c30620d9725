-- min/max without GROUP BY reduce each batch of integers without NULLs in vector lanes.
SELECT max(number), min(number), max(toInt8(number)), min(toInt8(number)), max(toInt16(number) - 5), min(toUInt16(number + 3)) FROM numbers(100000);
SELECT max(toInt32(number) - 50000), min(toInt64(number) - 50000), max(toUInt32(number * 7 % 1000)), min(toDate('2020-01-01') + number % 1000) FROM numbers(70000);
SELECT max(x), min(x) FROM (SELECT if(number % 3 = 0, NULL, number) AS x FROM numbers(100));
SELECT max(number), min(number) FROM numbers(0);
SELECT max(number), min(number) FROM numbers(10) WHERE number > 100;
SELECT min(toUInt256(number)), max(toInt128(number) - 10), max(toUInt64(18446744073709551615 - number)) FROM numbers(10);
SELECT maxIf(number, number % 2 = 1), minIf(number, number > 3) FROM numbers(6);
SELECT number, max(number) OVER (ORDER BY number ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM numbers(4) ORDER BY number;
