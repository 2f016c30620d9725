-- hex and formatReadable* of Int128, UInt128, Int256 and UInt256.
SELECT hex(toUInt128(255)), hex(toInt256(-1)), hex(toUInt256(65535)), hex(toInt128(0)), hex(toInt128(-1));
SELECT hex(toUInt128('340282366920938463463374607431768211455')), hex(toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935')), hex(toNullable(toInt128(16))), hex(CAST(NULL AS Nullable(Int256)));
SELECT number, hex(toInt128(number) - 2), hex(toUInt256(number) * 4096) FROM numbers(4) ORDER BY number;
SELECT formatReadableQuantity(toInt256(1234567)), formatReadableQuantity(toUInt128(12)), formatReadableSize(toUInt128(1048576)), formatReadableQuantity(toInt128(-5000000));
SELECT formatReadableQuantity(toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935')), formatReadableDecimalSize(toInt256(1500));
