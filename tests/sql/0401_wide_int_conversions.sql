-- Conversions to and from Int128, UInt128, Int256, UInt256.
SELECT toInt128(toInt8(-1)), toUInt128(toInt8(-1)), toInt256(toUInt64(18446744073709551615)), toUInt256(toInt64(-1));
SELECT toInt128(3.7), toInt128(-3.7), toUInt128(-1.0), toInt256(-1e18), toInt128(true), toInt128(toDate('2020-01-01'));
SELECT toInt128(toDecimal64(12.5, 2)), toInt256(toDecimal128(-7.9, 3)), toUInt128(toDecimal32(3.99, 2));
SELECT toUInt128(toDecimal64(-1.5, 2)); -- { serverError DECIMAL_OVERFLOW }
-- Out of range text wraps around, as ClickHouse reads wide integers.
SELECT toInt128('170141183460469231731687303715884105728'), toInt128('99999999999999999999999999999999999999999999'), toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639936');
SELECT toInt128('+12'), toInt128('-0'), toUInt128('+0');
SELECT toInt128('abc'); -- { serverError CANNOT_PARSE_TEXT }
SELECT toInt128('12 '); -- { serverError CANNOT_PARSE_TEXT }
SELECT toInt128('1.5'); -- { serverError CANNOT_PARSE_TEXT }
SELECT toInt128(''); -- { serverError ATTEMPT_TO_READ_AFTER_EOF }
SELECT toUInt128('-1'); -- { serverError CANNOT_PARSE_NUMBER }
SELECT toUInt256('-5'); -- { serverError CANNOT_PARSE_NUMBER }
SELECT toInt128(nan); -- { serverError CANNOT_CONVERT_TYPE }
SELECT toInt128OrZero('abc'), toInt128OrNull('abc'), toUInt128OrZero('-1'), toUInt256OrNull(''), toInt256OrZero('123'), toTypeName(toInt128OrNull('1'));
SELECT toInt128OrZero('170141183460469231731687303715884105728');
SELECT toInt128OrZero(5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toInt128OrDefault('x', toInt128(7)), toUInt128OrDefault('5'), toInt256OrDefault(toInt8(-1)), toUInt256OrDefault('-1'), toTypeName(toUInt256OrDefault('1'));
SELECT toInt256OrDefault(CAST(NULL AS Nullable(String))), toTypeName(toInt256OrDefault(toNullable('1'))), toInt128OrDefault(x, toInt128(-9)) FROM (SELECT arrayJoin(['1', 'y']) AS x);
SELECT toUInt128OrDefault('x', toNullable(toUInt128(5))); -- { serverError BAD_ARGUMENTS }
-- Back to narrower types: integers wrap, floats round, strings and decimals are exact.
SELECT toInt8(toInt128('300')), toUInt8(toInt128(-1)), toInt64(toUInt128('340282366920938463463374607431768211455')), toUInt64(toInt256('18446744073709551617'));
SELECT toInt128(toUInt256('340282366920938463463374607431768211457')), toUInt128(toInt256(-1)), toInt256(toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935'));
SELECT toFloat64(toInt128('170141183460469231731687303715884105727')), toFloat64(toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935')), toFloat32(toInt128(-3));
SELECT toString(toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935')), toString(toInt128(-42)), toBool(toInt128(2)), toBool(toUInt256(0));
SELECT toDecimal128(toInt128(5), 2), toDecimal32(toInt128(1000000), 0), toDecimal256(toUInt256(12), 3), toDecimal64(toInt256(-7), 1);
SELECT CAST(toInt128(-1) AS UInt128), CAST(toUInt128(300) AS UInt8), CAST('-9' AS Int256), CAST(toInt128(1) AS String);
SELECT toInt128(number) * toInt128(number), toUInt256(number) FROM numbers(3);
SELECT toInt128(x) FROM (SELECT arrayJoin(['1', '-2', '30']) AS x);
SELECT reinterpretAsUInt128('a'), reinterpretAsInt128(toUInt128('340282366920938463463374607431768211455')), reinterpretAsUInt256(toInt8(-1)), reinterpretAsInt256(toInt128(-1)), hex(reinterpretAsString(toUInt128(258))), reinterpretAsUInt64(toInt128(-1));
SELECT toTypeName(reinterpretAsUInt128('a')), reinterpret(toInt256(-2), 'UInt256'), reinterpretAsFixedString(toInt128(65)) = 'A';
