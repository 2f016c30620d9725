-- accurateCast keeps a value exactly or fails; OrNull gives NULL, OrDefault the default.
SELECT accurateCastOrNull(300, 'UInt8'), accurateCastOrNull(100, 'UInt8'), accurateCastOrNull(-1, 'UInt64'), accurateCastOrNull(toInt64(-5), 'Int8'), accurateCastOrNull(255, 'Int8');
SELECT accurateCastOrNull(1.5, 'Int32'), accurateCastOrNull(2.0, 'UInt8'), accurateCastOrNull(-0.0, 'UInt8'), accurateCastOrNull(256.0, 'UInt8'), accurateCastOrNull(nan, 'Int32');
SELECT accurateCastOrNull(16777217, 'Float32'), accurateCastOrNull(16777216, 'Float32'), accurateCastOrNull(0.1, 'Float32'), accurateCastOrNull(0.5, 'Float32'), accurateCastOrNull(1e300, 'Float32'), accurateCastOrNull(toFloat64(inf), 'Float32'), accurateCastOrNull(9007199254740993, 'Float64');
SELECT accurateCastOrNull('300', 'UInt8'), accurateCastOrNull('12', 'Int32'), accurateCastOrNull('abc', 'Int32'), accurateCastOrNull('1.5', 'Float32'), accurateCastOrNull('2024-01-01', 'Date'), accurateCastOrNull(5, 'String');
SELECT toTypeName(accurateCastOrNull(5, 'UInt8')), toTypeName(accurateCastOrNull(toNullable(3), 'UInt8')), accurateCastOrNull(NULL, 'UInt8'), accurateCastOrNull(toNullable(300), 'UInt8');
SELECT number, accurateCastOrNull(number - 2, 'UInt8'), accurateCastOrNull(number * 100, 'Int8'), accurateCastOrNull(number / 2, 'UInt16') FROM numbers(5) ORDER BY number;
SELECT accurateCastOrDefault(300, 'UInt8'), accurateCastOrDefault(-1, 'UInt32', toUInt32(7)), accurateCastOrDefault('x', 'Int32', toInt32(-1)), toTypeName(accurateCastOrDefault(300, 'UInt8'));
SELECT accurateCast(100, 'UInt8'), accurateCast(2.0, 'Int32'), accurateCast('12', 'Int32'), toTypeName(accurateCast(1, 'Int16'));
SELECT accurateCast(300, 'UInt8'); -- { serverError CANNOT_CONVERT_TYPE }
SELECT accurateCast(1.5, 'Int32'); -- { serverError CANNOT_CONVERT_TYPE }
SELECT accurateCast(number - 1, 'UInt8') FROM numbers(3); -- { serverError CANNOT_CONVERT_TYPE }
SELECT accurateCastOrDefault(300, 'UInt8', toUInt16(5)); -- { serverError BAD_ARGUMENTS }
SELECT sum(accurateCastOrNull(number, 'Int8')), count(accurateCastOrNull(number, 'Int8')) FROM numbers(1000);
-- Wide integers: ClickHouse's wrapping conversion, kept when it converts back with its sign.
SELECT accurateCastOrNull(toInt128(300), 'UInt8'), accurateCastOrNull(toInt128(100), 'UInt8'), accurateCastOrNull(toUInt256(5), 'Int128'), accurateCastOrNull(-1, 'UInt128'), accurateCastOrNull(toInt256(-7), 'Int8');
SELECT accurateCastOrNull(1.5, 'Int128'), accurateCastOrNull(2.0, 'UInt256'), accurateCastOrNull(toUInt128('340282366920938463463374607431768211455'), 'Int128'), accurateCastOrNull(toUInt128('340282366920938463463374607431768211455'), 'UInt256');
SELECT accurateCastOrNull(toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935'), 'Int256'), accurateCastOrDefault(toInt128(-3), 'UInt64'), accurateCast(toInt256(42), 'UInt8');
SELECT number, accurateCastOrNull(toInt128(number) * 100 - 150, 'UInt8') FROM numbers(4) ORDER BY number;
SELECT accurateCast(toInt128(-1), 'UInt32'); -- { serverError CANNOT_CONVERT_TYPE }
