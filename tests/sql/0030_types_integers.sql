-- integer types: bounds, literal types, arithmetic result types, overflow, conversions
SELECT 0, 255, 256, 65535, 65536, 4294967295, 4294967296, 18446744073709551615;
SELECT toTypeName(0), toTypeName(255), toTypeName(256), toTypeName(65536), toTypeName(4294967296), toTypeName(-1), toTypeName(-129), toTypeName(-32769), toTypeName(-2147483649);
SELECT toUInt8(255), toUInt16(65535), toUInt32(4294967295), toUInt64(18446744073709551615);
SELECT toInt8(-128), toInt16(-32768), toInt32(-2147483648), toInt64(-9223372036854775808);
SELECT toUInt8(256), toUInt8(-1), toInt8(128), toInt8(255), toUInt16(70000), toInt32(4294967295);
SELECT toUInt8('255'), toInt8('-128'), toUInt64('18446744073709551615'), toInt64('-9223372036854775808');
SELECT toUInt8(3.99), toInt8(-3.99), toUInt32(1e9), toInt64(1e18);
SELECT toUInt8OrZero('x'), toUInt8OrNull('x'), toInt32OrZero('12a'), toInt32OrNull('-12');
SELECT 1 + 1, toTypeName(1 + 1), 255 + 1, toTypeName(toUInt8(255) + toUInt8(1));
SELECT toUInt8(200) + toUInt8(100), toInt8(100) + toInt8(100), toUInt32(1) - toUInt32(2), toUInt64(0) - 1;
SELECT 18446744073709551615 + 1, 9223372036854775807 + 1, -9223372036854775808 - 1;
SELECT toTypeName(toUInt8(1) * toUInt8(1)), toTypeName(toInt8(1) * toUInt8(1)), toTypeName(toUInt32(1) + toInt64(1)), toTypeName(toUInt64(1) + toInt64(1));
SELECT 7 / 2, toTypeName(7 / 2), intDiv(7, 2), toTypeName(intDiv(7, 2)), 7 % 2, -7 % 2, 7 % -2, intDiv(-7, 2);
SELECT 6 * 7, 2 * -3, -2 * -3, 1 - 2, 0 - 0;
SELECT abs(-128), abs(toInt8(-128)), -toInt8(-128), negate(5), toTypeName(negate(toUInt8(5)));
SELECT bitAnd(12, 10), bitOr(12, 10), bitXor(12, 10), bitShiftLeft(1, 10), bitShiftRight(1024, 3), bitNot(toUInt8(0));
SELECT greatest(1, 2, 3), least(-1, 0, 1), greatest(toUInt8(1), toInt16(-1));
SELECT intDiv(1, 0); -- { serverError ILLEGAL_DIVISION }
SELECT 1 % 0; -- { serverError ILLEGAL_DIVISION }
SELECT intDivOrZero(1, 0), moduloOrZero(1, 0), 1 / 0, -1 / 0;
SELECT toUInt8('-1'); -- { serverError CANNOT_PARSE_NUMBER }
SELECT toInt32('abc'); -- { serverError CANNOT_PARSE_TEXT }
SELECT number, toUInt8(number * 100) FROM numbers(4);
SELECT sum(toUInt8(200)) FROM numbers(10);
SELECT toTypeName(sum(toUInt8(1))), toTypeName(sum(toInt8(1))), toTypeName(avg(1)), toTypeName(count());
SELECT CAST(300 AS UInt8), CAST(-1 AS UInt64), CAST('42' AS Int16), CAST(1.9 AS Int32), 5::UInt16, '7'::Int64;
SELECT toString(18446744073709551615), toString(-9223372036854775808), toString(toUInt8(7));
