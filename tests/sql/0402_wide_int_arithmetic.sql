-- Arithmetic and comparisons with wide integers: ClickHouse's result types, wrapping.
SELECT toTypeName(toUInt64(1) + toInt128(1)), toTypeName(toInt128(1) * 2), toTypeName(toUInt128(1) + 1), toTypeName(toUInt128(1) - 1), toTypeName(toUInt128(1) + toInt8(1));
SELECT toTypeName(toUInt256(1) + toInt128(1)), toTypeName(toInt256(1) + toUInt128(1)), toTypeName(toUInt128(1) * toUInt128(1)), toTypeName(toInt256(1) - toUInt256(1));
SELECT toTypeName(intDiv(toInt128(7), 2)), toTypeName(intDiv(7, toInt128(2))), toTypeName(intDiv(toUInt8(7), toUInt256(2))), toTypeName(intDiv(toInt128(7), 2.5));
SELECT toTypeName(toInt128(7) % 2), toTypeName(toInt128(7) % toInt128(2)), toTypeName(7 % toInt128(2)), toTypeName(toUInt128(7) % 2), toTypeName(toUInt256(7) % toUInt64(3)), toTypeName(toInt64(-7) % toUInt128(2)), toTypeName(toInt128(-7) % 2.5);
SELECT toTypeName(toInt128(1) / 2), toTypeName(-toUInt128(1)), toTypeName(-toInt256(1)), toTypeName(abs(toInt128(-1))), toTypeName(abs(toInt256(-1))), toTypeName(abs(toUInt128(1)));
SELECT toInt128(5) + 3, toInt128(5) - 8, toInt128(-6) * 7, intDiv(toInt128(-7), 2), toInt128(-7) % 2, toInt128(-5) % toInt128(3), toInt128(-7) / 2, toUInt256(5) / 2;
SELECT intDiv(toInt128(7), 2.5), toInt128(-7) % 2.5, 7 % toInt128(2), intDiv(toUInt8(7), toUInt256(2));
SELECT -toInt128(5), -toUInt128(1), abs(toInt128(-5)), abs(toInt128('-170141183460469231731687303715884105728')), -toInt128('-170141183460469231731687303715884105728');
-- Overflow wraps.
SELECT toInt128('170141183460469231731687303715884105727') + 1, toUInt128('340282366920938463463374607431768211455') + 1, toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935') + 1, toInt256('57896044618658097711785492504343953926634992332820282019728792003956564819967') * 2;
SELECT toUInt128(0) - 1, toInt128('85070591730234615865843651857942052864') * 4, toUInt128('18446744073709551616') * toUInt128('18446744073709551616');
SELECT toInt128(1) / 0, toInt128(-1) / 0, toInt128(1) / toInt128(0);
SELECT intDiv(toInt128(1), 0); -- { serverError ILLEGAL_DIVISION }
SELECT toInt256(1) % 0; -- { serverError ILLEGAL_DIVISION }
SELECT intDiv(toInt128('-170141183460469231731687303715884105728'), -1); -- { serverError ILLEGAL_DIVISION }
SELECT intDivOrZero(toInt128(5), 0), intDivOrZero(toInt128(7), 2), moduloOrZero(toUInt256(7), 0), moduloOrZero(toInt128(-7), 3), intDivOrZero(toInt128('-170141183460469231731687303715884105728'), -1), intDivOrZero(toInt128(7), 0.), toTypeName(moduloOrZero(toInt128(5), 2));
SELECT toInt128(1) + 1.5; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toInt128(1) * 1.5; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- Comparisons with other numeric types.
SELECT toInt128(1) = 1, toUInt256(5) > toInt8(-1), toInt128(-1) < toUInt64(1), toInt128(2) = 2.0, toInt128(1) = 1.5, toInt128(3) > 2.5, toUInt128(3) = toInt128(3), toInt256(-1) < toUInt128(0);
SELECT toInt128(1) IN (1, 2), toUInt128(3) IN (toInt128(3)), toInt256(5) NOT IN (1, 2), toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935') = toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935');
SELECT number FROM numbers(10) WHERE toInt128(number) * toInt128('1000000000000000000000') > toInt128('5000000000000000000000') ORDER BY number;
SELECT number FROM numbers(10) WHERE toUInt256(number) IN (2, 4, 11) ORDER BY number;
SELECT greatest(toInt128(1), 2), least(toInt128(-1), 2), toTypeName(if(number = 0, toInt128(1), 2)), if(number = 0, toInt128(1), 2) FROM numbers(2);
SELECT [toInt128(1), toUInt64(2)], toTypeName([toInt128(1), toUInt64(2)]), toTypeName([toUInt128(1), toInt8(2)]), toTypeName([toUInt128(1), toInt128(2)]), toTypeName([toInt128(1), toInt256(2)]);
SELECT bitAnd(toInt128(12), 10), bitOr(toUInt256(1), 2), bitXor(toInt128(5), toInt128(3)), bitNot(toInt128(0)), toTypeName(bitAnd(toInt128(12), 10));
