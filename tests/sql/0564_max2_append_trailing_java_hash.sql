-- max2, min2: Float64, a > b ? a : b (NaN handling follows from that)
SELECT max2(1, 2), toTypeName(max2(1, 2)), min2(-1.5, toInt8(3)), toTypeName(min2(-1.5, toInt8(3))), max2(nan, 1), min2(1, nan);
SELECT max2(toNullable(1), 2), toTypeName(max2(toNullable(1), 2)), max2(toUInt64(18446744073709551615), 1);
SELECT number, max2(number, 2), min2(number, 1.5) FROM numbers(4) ORDER BY number;
SELECT max2('a', 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- appendTrailingCharIfAbsent: a one-byte constant, not added to an empty string
SELECT appendTrailingCharIfAbsent('abc', '/'), appendTrailingCharIfAbsent('abc/', '/'), appendTrailingCharIfAbsent('', '/'), toTypeName(appendTrailingCharIfAbsent('a', '/'));
SELECT appendTrailingCharIfAbsent(s, '/') FROM (SELECT arrayJoin(['x', 'y/', '', '/']) AS s) ORDER BY s;
SELECT appendTrailingCharIfAbsent(toNullable('a'), '.'), toTypeName(appendTrailingCharIfAbsent(toNullable('a'), '.'));
SELECT appendTrailingCharIfAbsent('a', 'xy'); -- { serverError BAD_ARGUMENTS }
SELECT appendTrailingCharIfAbsent('a', ''); -- { serverError BAD_ARGUMENTS }
SELECT appendTrailingCharIfAbsent(materialize('a'), materialize('/')); -- { serverError ILLEGAL_COLUMN }
SELECT appendTrailingCharIfAbsent(toFixedString('ab', 3), '/'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- javaHash of strings (UTF-8 bytes as signed bytes) and signed integers
SELECT javaHash('abc'), toTypeName(javaHash('abc')), javaHash(''), javaHash('Hello, world!'), javaHash('é');
SELECT javaHash(toInt32(123)), javaHash(toInt64(-1)), javaHash(toInt64(4294967296)), javaHash(toInt8(-5)), javaHash(toInt16(300));
SELECT javaHash(toNullable('a')), javaHash(toFixedString('a', 1)), javaHash(materialize('abc'));
SELECT s, javaHash(s) FROM (SELECT arrayJoin(['a', 'ab', 'abc', 'hello world']) AS s) ORDER BY s;
SELECT javaHash(toUInt8(5)); -- { serverError NOT_IMPLEMENTED }
SELECT javaHash('a', 'b'); -- { serverError NOT_IMPLEMENTED }
