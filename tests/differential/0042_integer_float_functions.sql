-- abs: signed integers become unsigned of their width, so the minimum has an answer
SELECT abs(-128), abs(toInt8(-128)), abs(toInt16(-32768)), abs(toInt32(-5)), abs(-9223372036854775808), abs(toUInt8(200)), abs(-1.5), abs(toFloat32(-2.5)), abs(toDecimal32(-1.25, 2)) FORMAT TSVWithNamesAndTypes;
SELECT number - 3 AS n, abs(n), toTypeName(abs(n)) FROM numbers(6);
SELECT abs(toNullable(-3)), abs(NULL), toTypeName(abs(toNullable(toInt16(-3))));
-- negate keeps signed types and widens unsigned ones; modulo of a signed dividend is one size up
SELECT -toInt8(-128), negate(toInt8(1)), negate(toUInt8(1)), negate(toUInt64(1)), negate(1.5) FORMAT TSVWithNamesAndTypes;
SELECT toInt8(-7) % toInt8(2), toInt16(-7) % toUInt8(2), toUInt16(7) % toInt8(2), toInt8(1) % toInt32(1), toInt64(-7) % toInt64(2), -7 % -2, 7 % 2 FORMAT TSVWithNamesAndTypes;
SELECT moduloOrZero(toInt8(-7), toInt8(0)), toTypeName(moduloOrZero(toInt8(1), toInt8(1))), intDivOrZero(toInt8(-7), toInt8(2));
-- Bit functions and their result types
SELECT bitAnd(12, 10), bitOr(12, 10), bitXor(12, 10), bitNot(toUInt8(0)), bitNot(toInt8(0)), bitShiftLeft(1, 10), bitShiftLeft(toUInt16(1), 10), bitShiftRight(1024, 3), bitShiftRight(toInt8(-8), 1) FORMAT TSVWithNamesAndTypes;
SELECT bitAnd(toUInt8(255), toInt8(-1)), bitOr(toUInt16(1), toInt8(-2)), bitXor(toUInt64(18446744073709551615), 1), bitShiftLeft(toInt64(1), 63), bitShiftLeft(toUInt64(1), 64), bitTest(5, 0), bitTest(5, 1), bitCount(7), bitCount(toInt8(-1)), bitCount(toUInt64(18446744073709551615)) FORMAT TSVWithNamesAndTypes;
SELECT number, bitAnd(number, 3), bitShiftLeft(number, number), bitXor(number, 255) FROM numbers(5);
SELECT bitAnd(toNullable(3), 1), bitAnd(NULL, 1), bitAnd(true, 3);
SELECT bitAnd(1.5, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitShiftLeft(1, -1); -- { serverError ARGUMENT_OUT_OF_BOUND }
-- round: floats half to even after scaling, integers and decimals half away from zero; roundBankers half to even everywhere
SELECT round(2.5), round(3.5), round(-2.5), round(0.5), round(1.5), round(2.675, 2), round(1234.5, -2), round(-0.4), round(nan), round(-inf), round(2.5, 400) FORMAT TSVWithNamesAndTypes;
SELECT round(15, -1), round(25, -1), round(-25, -1), round(toUInt8(250), -2), round(1250, -2), round(5, 1) FORMAT TSVWithNamesAndTypes;
SELECT round(toDecimal32(2.5, 1)), round(toDecimal32(-2.45, 2), 1), round(toDecimal64(2.675, 3), 2), round(toDecimal128(-0.5, 1)), round(toFloat32(2.5)), round(toFloat32(1.2345), 2) FORMAT TSVWithNamesAndTypes;
SELECT roundBankers(2.5), roundBankers(3.5), roundBankers(25, -1), roundBankers(35, -1), roundBankers(toDecimal32(2.5, 1)), roundBankers(toDecimal32(-3.5, 1)), roundBankers(2.675, 2);
SELECT number / 4 AS x, round(x), round(x, 1), roundBankers(x, 1), round(1.55, number) FROM numbers(8);
-- Float sums in ClickHouse's order (16 running partial sums per block)
SELECT sum(0.1) FROM numbers(10);
SELECT sum(0.1) FROM numbers(100);
SELECT sum(number / 7) FROM numbers(1000);
SELECT sum(toFloat32(0.1)) FROM numbers(37);
SELECT sum(if(number % 3 = 0, NULL, number * 0.1)) FROM numbers(50);
SELECT sum(x) FROM (SELECT number * 0.3 AS x FROM numbers(20) WHERE number > 100);
