-- intDiv and % by a constant run as a multiplication and shifts (libdivide's algorithm):
-- every class of divisor (power of two, 64-bit and 65-bit multipliers, near 2^63 and
-- 2^64) against dividends over the whole range, signed and unsigned.
SELECT
    sum(intDiv(x, 1)), sum(x % 1),
    sum(intDiv(x, 2)), sum(x % 2),
    sum(intDiv(x, 3)), sum(x % 3),
    sum(intDiv(x, 7)), sum(x % 7),
    sum(intDiv(x, 10)), sum(x % 10),
    sum(intDiv(x, 64)), sum(x % 64),
    sum(intDiv(x, 641)), sum(x % 641),
    sum(intDiv(x, 1000)), sum(x % 1000),
    sum(intDiv(x, 5000000)), sum(x % 5000000),
    sum(intDiv(x, 4294967296)), sum(x % 4294967296),
    sum(intDiv(x, 4294967297)), sum(x % 4294967297),
    sum(intDiv(x, 9223372036854775807)), sum(x % 9223372036854775807),
    sum(intDiv(x, 9223372036854775808)), sum(x % 9223372036854775808),
    sum(intDiv(x, 9223372036854775809)), sum(x % 9223372036854775809),
    sum(intDiv(x, 18446744073709551615)), sum(x % 18446744073709551615)
FROM (SELECT bitShiftRight(cityHash64(number), number % 64) AS x FROM numbers(3000));
SELECT
    sum(intDiv(y, 3)), sum(y % 3),
    sum(intDiv(y, -3)), sum(y % -3),
    sum(intDiv(y, 7)), sum(y % 7),
    sum(intDiv(y, -7)), sum(y % -7),
    sum(intDiv(y, 1000)), sum(y % 1000),
    sum(intDiv(y, -1000)), sum(y % -1000),
    sum(intDiv(y, 4)), sum(y % 4),
    sum(intDiv(y, -4)), sum(y % -4),
    sum(intDiv(y, 9223372036854775807)), sum(y % 9223372036854775807),
    sum(intDiv(y, -9223372036854775807)), sum(y % -9223372036854775807)
FROM (SELECT toInt64(bitShiftRight(cityHash64(number), number % 64)) AS y FROM numbers(3000));
SELECT x, intDiv(x, 3), x % 3, intDiv(x, 7), x % 7, intDiv(x, 18446744073709551615), x % 18446744073709551615, intDiv(x, 9223372036854775809), x % 9223372036854775809 FROM (SELECT arrayJoin([0, 1, 2, 3, 6, 7, 8, 9223372036854775807, 9223372036854775808, 9223372036854775809, 18446744073709551614, 18446744073709551615]) AS x) ORDER BY x;
SELECT x, intDiv(x, 3), x % 3, intDiv(x, -7), x % -7, intDiv(x, 1000), x % 1000, intDiv(x, -9223372036854775807), x % -9223372036854775807, intDiv(x, 4), x % -4 FROM (SELECT arrayJoin([toInt64(-9223372036854775808), -9223372036854775807, -1001, -1000, -999, -7, -1, 0, 1, 6, 7, 999, 1000, toInt64(9223372036854775807)]) AS x) ORDER BY x;
SELECT sum(number % 7), sum(intDiv(number, 7)), sum(intDiv(toInt64(number) - 500000, 9)), sum((toInt64(number) - 500000) % 9) FROM numbers(1000000);
SELECT intDiv(number, 0) FROM numbers(3); -- { serverError ILLEGAL_DIVISION }
SELECT number % 0 FROM numbers(3); -- { serverError ILLEGAL_DIVISION }
SELECT intDiv(toInt64(number) - 5, -1), (toInt64(number) - 5) % -1 FROM numbers(3);
-- The most negative divisor: refused for signed 32/64-bit dividends, as ClickHouse's constant kernel does.
SELECT (toInt64(number) - 5) % toInt64(-9223372036854775808) FROM numbers(3); -- { serverError ILLEGAL_DIVISION }
SELECT toInt32(number) % toInt8(-128) FROM numbers(3); -- { serverError ILLEGAL_DIVISION }
SELECT toInt64(number) % toNullable(toInt16(-32768)) FROM numbers(3); -- { serverError ILLEGAL_DIVISION }
SELECT toInt16(number) % toInt16(-32768), toInt8(number) % toInt8(-128), toUInt32(number) % toInt32(-2147483648), toInt32(number) % toInt64(-9223372036854775808), moduloOrZero(toInt64(number), toInt64(-9223372036854775808)), intDiv(toInt64(number) - 5, toInt64(-9223372036854775808)) FROM numbers(3);
