-- countDigits: digits of integers and of decimals' unscaled values.
SELECT countDigits(toInt8(42)), countDigits(toInt32(-0)), countDigits(toInt64(-1234)), countDigits(toDecimal32(0.2, 4)), toTypeName(countDigits(1)), countDigits(toUInt64(18446744073709551615)), countDigits(toDecimal128(-123.45, 3));
SELECT countDigits(toInt256(-1e30)), countDigits(toInt128(-1)), countDigits(toDecimal64(0, 3)), countDigits(toDecimal32(-0.001, 3)), countDigits(toUInt256(0)), countDigits(true), countDigits(toDecimal256(1, 50));
SELECT countDigits(toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935')), countDigits(toInt64(-9223372036854775808));
SELECT number, countDigits(number * 999), countDigits(toDecimal64(number / 7, 5)) FROM numbers(5) ORDER BY number;
SELECT countDigits(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT countDigits(toDate('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- intExp2 / intExp10: UInt64, saturating.
SELECT intExp2(3), toTypeName(intExp2(3)), intExp2(-1), intExp2(64), intExp2(63), intExp2(1.7), intExp10(3), toTypeName(intExp10(3)), intExp10(19), intExp10(20), intExp10(-1), intExp10(2.9), intExp10(toInt64(-100));
SELECT intExp2(-1.5), intExp10(-0.5), intExp2(inf), intExp10(toUInt64(18446744073709551615)), intExp2(toFloat32(3.9)), intExp10(-inf), intExp2(true), intExp2(toInt8(-128)), intExp10(1e300);
SELECT number, intExp2(number * 7), intExp10(number * 3) FROM numbers(5) ORDER BY number;
SELECT intExp2(nan); -- { serverError BAD_ARGUMENTS }
SELECT intExp10(nan); -- { serverError BAD_ARGUMENTS }
SELECT intExp2('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT intExp2(toInt128(5)); -- { serverError NOT_IMPLEMENTED }
SELECT intExp10(toDecimal32(2.5, 1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT intExp2(toDate('1970-01-04')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- isPrime / isProbablePrime
SELECT groupArray(number) FROM numbers(100) WHERE isPrime(number);
SELECT toTypeName(isPrime(7)), isPrime(toUInt64(18446744073709551557)), isPrime(toUInt64(18446744073709551615)), isPrime(toUInt32(4294967291)), isPrime(true), isPrime(toUInt16(65521));
SELECT isProbablePrime(toUInt128('170141183460469231731687303715884105727')), isProbablePrime(toUInt128('170141183460469231731687303715884105729')), isProbablePrime(toUInt256(91)), isProbablePrime(toUInt64(3215031751)), toTypeName(isProbablePrime(7));
SELECT countIf(isPrime(number)), countIf(isProbablePrime(number)) FROM numbers(10000);
SELECT isPrime(-7); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT isPrime(toUInt128(7)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT isProbablePrime(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- sqr: multiply(x, x)
SELECT sqr(3), toTypeName(sqr(3)), sqr(toInt8(100)), toTypeName(sqr(toInt8(100))), sqr(1.5), sqr(-2), toTypeName(sqr(-2)), sqr(toUInt64(5)), toTypeName(sqr(toUInt64(5)));
SELECT sqr(toDecimal32(1.5, 2)), toTypeName(sqr(toDecimal32(1.5, 2))), sqr(toInt128(3)), toTypeName(sqr(toInt128(3))), sqr(toNullable(3)), toTypeName(sqr(toNullable(3))), sqr(NULL), toTypeName(sqr(NULL)), sqr(toUInt32(65536));
SELECT number, sqr(number), sqr(toInt32(number) - 2) FROM numbers(4) ORDER BY number;
SELECT sqr('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sqr(1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- midpoint: the mean of the non-NULL arguments in their supertype, toward zero.
SELECT midpoint(1, 3), toTypeName(midpoint(1, 3)), midpoint(toUInt8(1), toUInt8(4)), midpoint(1.0, 2), toTypeName(midpoint(1.0, 2)), midpoint(1, 2, 3, 4), midpoint(1, 2, 9), midpoint(1, 1, 1, 10), midpoint(1);
SELECT midpoint(-1, 2), midpoint(toInt8(-3), toInt8(0)), midpoint(toUInt64(18446744073709551615), toUInt64(18446744073709551613)), midpoint(toInt8(100), toUInt8(200)), toTypeName(midpoint(toInt8(100), toUInt8(200)));
SELECT midpoint(toInt64(9223372036854775807), toInt64(9223372036854775805)), midpoint(toInt64(-9223372036854775808), toInt64(9223372036854775807)), midpoint(toInt8(-128), toInt8(-127));
SELECT midpoint(toDate('2024-01-01'), toDate('2024-01-04')), toTypeName(midpoint(toDate('2024-01-01'), toDate('2024-01-04'))), midpoint(toDate('2024-01-01'), toDate32('2024-01-05')), toTypeName(midpoint(toDate('2024-01-01'), toDate32('2024-01-05')));
SELECT midpoint(toDateTime('2024-01-01 00:00:00', 'UTC'), toDateTime('2024-01-01 00:00:03', 'UTC')), toTypeName(midpoint(toDateTime('2024-01-01 00:00:00', 'UTC'), toDateTime('2024-01-01 00:00:03', 'UTC')));
SELECT midpoint(toDateTime64('2024-01-01 00:00:00.001', 3, 'UTC'), toDateTime64('2024-01-01 00:00:00.004', 3, 'UTC')), toTypeName(midpoint(toDateTime64('2024-01-01 00:00:00.001', 3, 'UTC'), toDateTime64('2024-01-01 00:00:00.004', 3, 'UTC')));
SELECT midpoint(toDecimal32(1.5, 2), 2), toTypeName(midpoint(toDecimal32(1.5, 2), 2)), midpoint(toDecimal32(1.5, 2), toDecimal64(2.25, 3)), toTypeName(midpoint(toDecimal32(1.5, 2), toDecimal64(2.25, 3))), midpoint(toDecimal32(-1.01, 2), toDecimal32(0, 2));
SELECT midpoint(toInt128(1), toInt128(4)), toTypeName(midpoint(toInt128(1), 4)), midpoint(toUInt256(3), 0), midpoint(toFloat32(1), toFloat32(2)), toTypeName(midpoint(toFloat32(1), toFloat32(2))), toTypeName(midpoint(toFloat32(1), 2));
SELECT midpoint(1.0, nan), midpoint(inf, -inf), midpoint(1, -inf), midpoint(true, false), toTypeName(midpoint(true, false));
SELECT midpoint(NULL, 1), toTypeName(midpoint(NULL, 1)), midpoint(toNullable(1), NULL, 5), toTypeName(midpoint(toNullable(1), NULL, 5)), midpoint(NULL), toTypeName(midpoint(NULL, NULL));
SELECT number, midpoint(number, 10), midpoint(if(number % 2 = 0, NULL, number), 3, number * 2) FROM numbers(4) ORDER BY number;
SELECT midpoint(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT midpoint('a', 'b'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT midpoint([1], [2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT midpoint(1, 'a'); -- { serverError NO_COMMON_TYPE }
SELECT midpoint(toDate('2024-01-01'), 3); -- { serverError NO_COMMON_TYPE }
SELECT midpoint(toUInt64(1), toInt64(-4)); -- { serverError NO_COMMON_TYPE }
