-- Integer arithmetic with a constant operand (the divisor turned into a multiplication).
SELECT number, number % 7, intDiv(number, 7), number * 2654435761 % 1000000, number + 18446744073709551615, number - 3 FROM numbers(12) ORDER BY number;
SELECT x, x % 7, x % -7, intDiv(x, 7), intDiv(x, -7), x % 1, intDiv(x, 1), x * -3, x - 5 FROM (SELECT toInt64(number) - 6 AS x FROM numbers(13)) ORDER BY x;
SELECT toInt64(-9223372036854775808) % 7, intDiv(toInt64(-9223372036854775808), 7), intDiv(toInt64(-9223372036854775808), 1);
SELECT toUInt64(18446744073709551615) % 1000, intDiv(toUInt64(18446744073709551615), 3), toUInt64(18446744073709551615) % 18446744073709551615;
SELECT toUInt8(number) % 3 AS m, toTypeName(m), toInt16(number) * 1000 AS p, toTypeName(p), intDiv(toUInt32(number), 2) AS q, toTypeName(q) FROM numbers(4) ORDER BY number;
SELECT n % 5, intDiv(n, 5) FROM (SELECT if(number % 2 = 0, NULL, number) AS n FROM numbers(6)) ORDER BY n NULLS FIRST;
SELECT number % NULL, intDiv(number, NULL) FROM numbers(2);
SELECT number % 0 FROM numbers(2); -- { serverError ILLEGAL_DIVISION }
SELECT intDiv(number, 0) FROM numbers(2); -- { serverError ILLEGAL_DIVISION }
SELECT intDiv(toInt64(-9223372036854775808) + number, -1) FROM numbers(1); -- { serverError ILLEGAL_DIVISION }
SELECT (toInt64(-9223372036854775808) + number) % -1 FROM numbers(2);
SELECT (toInt64(-9223372036854775807) + number) % -1, intDiv(toInt64(9) + number, -1) FROM numbers(2);
