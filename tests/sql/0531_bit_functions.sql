-- bitRotateLeft / bitRotateRight: the wider operand's width, signed if either is.
SELECT bitRotateLeft(toUInt8(129), 1), toTypeName(bitRotateLeft(toUInt8(129), 1)), bitRotateLeft(toInt8(-127), 1);
SELECT bitRotateRight(toUInt16(1), 1), bitRotateRight(toInt32(1), 33), bitRotateLeft(1, 65), toTypeName(bitRotateLeft(1, 65));
SELECT bitRotateLeft(toUInt64(1), -1), toTypeName(bitRotateLeft(toUInt64(1), -1)), bitRotateLeft(toUInt8(1), toInt8(-1)), bitRotateRight(toUInt8(1), toInt8(-1));
SELECT bitRotateLeft(toUInt8(1), toUInt32(9)), toTypeName(bitRotateLeft(toUInt8(1), toUInt32(9))), bitRotateLeft(toUInt8(1), toUInt8(200)), bitRotateLeft(toInt8(-128), toUInt8(1)), bitRotateLeft(true, 1);
SELECT number, bitRotateLeft(toUInt16(number + 1), number * 5), bitRotateRight(toInt8(-number), number) FROM numbers(5) ORDER BY number;
SELECT bitRotateLeft(1.5, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitRotateLeft(toUInt8(1), 1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitRotateLeft(toInt128(1), 1); -- { serverError NOT_IMPLEMENTED }
-- bitSlice: bits chosen as substring chooses bytes, padded to whole bytes. (Only slices
-- that are valid UTF-8: Granary's String cannot hold other bytes yet.)
SELECT hex(bitSlice('Hello', 1, 8)), hex(bitSlice('Hello', 1, 9)), hex(bitSlice('Hello', 3, 5)), hex(bitSlice('Hello', 0, 4)), toTypeName(bitSlice('Hello', 2));
SELECT hex(bitSlice('Hello', 0)), hex(bitSlice('Hello', -50)), hex(bitSlice('Hello', 41)), hex(bitSlice('Hello', 3, 0)), hex(bitSlice('Hello', -8, -4)), hex(bitSlice('', 1, 3)), hex(bitSlice('Hello', -50, 45));
SELECT hex(bitSlice('Hello', 1, toInt64(-100))), hex(bitSlice('Hello', -1, -4)), bitSlice(toFixedString('ab', 2), 1, 4), bitSlice('0123', 2), bitSlice('Hello', -16, -9);
SELECT number, hex(bitSlice(toString(number * 12345), number + 1, number * 3 - 4)) FROM numbers(6) WHERE number IN (0, 1, 4) ORDER BY number;
SELECT number, bitSlice('01234567', number * 8 + 2, 7 + number) FROM numbers(4) ORDER BY number;
SELECT bitSlice(123, 1, 4); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- bitTestAll / bitTestAny
SELECT bitTestAll(43, 0, 1, 3, 5), bitTestAny(43, 2, 4), bitTestAll(43, 0, 2), toTypeName(bitTestAll(43, 0)), bitTestAny(43, 2, 3), bitTestAll(true, 0), bitTestAll(43, true);
SELECT bitTestAll(toInt8(-1), 7), bitTestAny(toUInt16(43), 15), bitTestAll(43, toUInt64(0), toUInt8(1));
SELECT number, bitTestAll(number, 0), bitTestAll(43, number), bitTestAny(number, 0, 1) FROM numbers(4) ORDER BY number;
SELECT bitTestAll(43); -- { serverError TOO_FEW_ARGUMENTS_FOR_FUNCTION }
SELECT bitTestAll(toUInt8(43), 8); -- { serverError PARAMETER_OUT_OF_BOUND }
SELECT bitTestAll(1.5, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitTestAll(43, -1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitTestAll(43, toInt64(1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitTestAny(toInt128(1), 1); -- { serverError ILLEGAL_COLUMN }
-- bitPositionsToArray, bitmaskToArray, bitmaskToList
SELECT bitPositionsToArray(toInt8(-1)), bitPositionsToArray(0), toTypeName(bitPositionsToArray(0)), bitPositionsToArray(true), bitPositionsToArray(toUInt64(18446744073709551615));
SELECT bitPositionsToArray(toInt128(-1)) = range(128), bitPositionsToArray(toUInt256(5));
SELECT bitmaskToArray(50), toTypeName(bitmaskToArray(50)), bitmaskToArray(toInt8(-1)), toTypeName(bitmaskToArray(toInt8(-1))), bitmaskToArray(true), toTypeName(bitmaskToArray(true));
SELECT bitmaskToList(50), bitmaskToList(toInt8(-1)), bitmaskToList(0), toTypeName(bitmaskToList(1)), bitmaskToList(toInt64(-9223372036854775808)), bitmaskToArray(toInt64(-9223372036854775808));
SELECT bitmaskToArray(toInt128(1)), toTypeName(bitmaskToArray(toInt128(1))), bitmaskToList(toInt128('-170141183460469231731687303715884105728')), bitmaskToArray(toUInt256(6));
SELECT number, bitmaskToArray(number * 37), bitmaskToList(toInt16(-number)) FROM numbers(4) ORDER BY number;
SELECT bitPositionsToArray(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmaskToArray(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- byteSwap
SELECT byteSwap(3351772109), toTypeName(byteSwap(3351772109)), byteSwap(toInt16(1)), byteSwap(toUInt8(5)), byteSwap(toInt64(-2)), byteSwap(true), toTypeName(byteSwap(true));
SELECT byteSwap(toInt128(1)), toTypeName(byteSwap(toInt128(1))), byteSwap(toUInt256(1)), byteSwap(byteSwap(toInt256(-12345)));
SELECT number, byteSwap(toUInt32(number * 1000003)), byteSwap(toInt16(number * 300)) FROM numbers(4) ORDER BY number;
SELECT byteSwap(1.5); -- { serverError NOT_IMPLEMENTED }
SELECT byteSwap('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT byteSwap(toDate('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- bitHammingDistance
SELECT bitHammingDistance(111, 121), toTypeName(bitHammingDistance(111, 121)), bitHammingDistance(toInt8(-1), toUInt64(0)), bitHammingDistance(toUInt8(255), toUInt16(0)), bitHammingDistance(toInt8(-1), toUInt8(0)), bitHammingDistance(1.5, 1), bitHammingDistance(true, 0);
SELECT bitHammingDistance('a', 'b'), toTypeName(bitHammingDistance('a', 'b')), bitHammingDistance('abc', 'ab'), bitHammingDistance('abc', 'abd'), bitHammingDistance('', '');
SELECT number, bitHammingDistance(number, number * 7), bitHammingDistance(toString(number), 'xyz') FROM numbers(4) ORDER BY number;
SELECT bitHammingDistance(toInt128(-1), 0); -- { serverError ILLEGAL_COLUMN }
SELECT bitHammingDistance('a', 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitHammingDistance(toFixedString('a', 1), 'b'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
