-- Decimal256: toDecimal256, its precision (76) and scales, conversions both ways
SELECT toDecimal256('1.1', 10), toDecimal256(-123.456, 3), toDecimal256(42, 0), toDecimal256('12345678901234567890123456789012345678901234567890.5', 2), toDecimal256('-0.001', 2) FORMAT TSVWithNamesAndTypes;
SELECT toDecimal256(toDecimal32(1.25, 2), 4), toDecimal256(toDecimal128('12345678901234567890.123', 3), 1), toDecimal256(toUInt64(18446744073709551615), 5), toDecimal256(toInt64(-9223372036854775808), 0), toDecimal256('1e3', 2);
SELECT toFloat64(toDecimal256(2.5, 3)), toInt32(toDecimal256(-7.9, 1)), toUInt8(toDecimal256(255.9, 2)), toString(toDecimal256(1.5, 3)), toDecimal128(toDecimal256(3.14159, 5), 2), toDecimal32(toDecimal256('-99.5', 1), 0);
SELECT CAST('3.75' AS Decimal(50, 2)), CAST(1.5 AS Decimal256(4)), toTypeName(CAST(1 AS Decimal(40, 1))), CAST(toDecimal256(2, 1) AS Float32);
SELECT toDecimal256OrNull('x', 2), toDecimal256OrZero('x', 2), toDecimal256OrNull('1.5', 1), toTypeName(toDecimal256OrNull('1', 2));
SELECT toDecimal256('abc', 2); -- { serverError CANNOT_PARSE_TEXT }
SELECT toDecimal256(1, 77); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT toDecimal256(inf, 2); -- { serverError DECIMAL_OVERFLOW }
SELECT toDecimal256(1e80, 2); -- { serverError DECIMAL_OVERFLOW }
SELECT toDecimal32(-inf, 2); -- { serverError DECIMAL_OVERFLOW }
-- Arithmetic keeps Decimal256 (76 digits): scales add for *, stay the dividend's for /
SELECT toDecimal256(1.5, 3) + 1, toDecimal256(2, 1) * toDecimal256(3, 1), toDecimal256(10, 2) / toDecimal256(3, 1), toDecimal256(1, 2) - toDecimal32(0.5, 1), toDecimal256(7, 0) % 3 FORMAT TSVWithNamesAndTypes;
SELECT toDecimal256(1, 2) / 0; -- { serverError ILLEGAL_DIVISION }
SELECT abs(toDecimal256(-3.5, 1)), -toDecimal256(2, 1), round(toDecimal256(2.55, 2), 1), toDecimal256(2, 1) > 1.5, toDecimal256(2, 1) = 2 FORMAT TSVWithNamesAndTypes;
-- Aggregates and supertypes with Decimal256
SELECT sum(toDecimal256(number, 2)), sum(toDecimal256(number, 2) * toDecimal256(0.5, 1)), min(toDecimal256(number, 1)), max(toDecimal256(number, 1)), toTypeName(sum(toDecimal256(1, 2))) FROM numbers(10);
SELECT toTypeName([toDecimal256(1, 2), toDecimal32(1, 2)]), toTypeName(if(number = 0, toDecimal256(1, 2), toDecimal64(2, 4))) FROM numbers(1);
