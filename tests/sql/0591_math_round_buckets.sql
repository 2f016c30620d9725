-- roundAge, roundDuration, roundToExp2
SELECT x, roundAge(x), roundDuration(x), roundToExp2(x) FROM (SELECT arrayJoin([-5, 0, 1, 2, 9, 10, 17, 18, 24, 25, 30, 35, 44, 45, 54, 55, 59, 60, 100, 119, 120, 179, 180, 240, 299, 300, 600, 1200, 1800, 3599, 3600, 7200, 18000, 35999, 36000, 100000]) AS x) ORDER BY x;
SELECT roundAge(1.5), roundAge(0.5), roundDuration(9.99), roundDuration(toFloat32(30.5)), roundAge(toUInt64(18446744073709551615)), roundDuration(toInt8(-1));
SELECT toTypeName(roundAge(toUInt64(30))), toTypeName(roundDuration(toInt8(30))), toTypeName(roundAge(30.5)), toTypeName(roundDuration(30.5));
SELECT roundToExp2(toUInt8(255)), roundToExp2(toInt8(127)), roundToExp2(toInt16(-30)), roundToExp2(toUInt64(18446744073709551615)), roundToExp2(toInt64(9223372036854775807));
SELECT roundToExp2(0.3), roundToExp2(-0.5), roundToExp2(1e300), roundToExp2(toFloat32(100.5)), roundToExp2(nan), roundToExp2(-inf), roundToExp2(0.), roundToExp2(1);
SELECT toTypeName(roundToExp2(toUInt16(1))), toTypeName(roundToExp2(toInt32(1))), toTypeName(roundToExp2(toFloat32(1))), toTypeName(roundToExp2(toNullable(1)));
SELECT roundAge(toDecimal32(5.5, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT roundDuration('1'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT roundToExp2(toDecimal32(5.5, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
