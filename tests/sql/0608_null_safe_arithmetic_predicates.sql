-- OrNull arithmetic: NULL where the operator would fail
SELECT divideOrNull(1, 0), divideOrNull(1, 2), toTypeName(divideOrNull(1, 2)), divideOrNull(toNullable(4), 2), toTypeName(divideOrNull(toNullable(4), 2)), divideOrNull(NULL, 1), toTypeName(divideOrNull(NULL, 1));
SELECT divideOrNull(1.0, 0.), divideOrNull(1.0, 0), divideOrNull(0, 0), divideOrNull(toFloat32(1), 2), toTypeName(divideOrNull(toFloat32(1), 2));
SELECT divideOrNull(toDecimal32(1, 2), toDecimal32(3, 1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT intDivOrNull(7, 2), intDivOrNull(7, 0), toTypeName(intDivOrNull(7, 2)), intDivOrNull(-7, 2), intDivOrNull(7.5, 2), toTypeName(intDivOrNull(7.5, 2)), intDivOrNull(toInt64(-9223372036854775808), -1), intDivOrNull(7, 0.);
SELECT moduloOrNull(7, 3), moduloOrNull(7, 0), toTypeName(moduloOrNull(7, 3)), moduloOrNull(-7, 3), moduloOrNull(7.5, 2), moduloOrNull(7.5, 0), toTypeName(moduloOrNull(toInt32(7), toUInt8(3)));
SELECT positiveModuloOrNull(-7, 3), positiveModuloOrNull(7, 0), toTypeName(positiveModuloOrNull(-7, 3)), positiveModuloOrNull(-7.5, 2), toTypeName(positiveModuloOrNull(toInt32(-7), toUInt8(3)));
SELECT number, divideOrNull(10, number), intDivOrNull(10, number), moduloOrNull(10, number), positiveModuloOrNull(-10, number) FROM numbers(3) ORDER BY number;
-- predicates
SELECT isZeroOrNull(0), isZeroOrNull(1), isZeroOrNull(NULL), isZeroOrNull(toNullable(0)), toTypeName(isZeroOrNull(toNullable(1))), isZeroOrNull(0.0), isZeroOrNull(-0.0);
SELECT number, isZeroOrNull(if(number = 1, NULL, number)) FROM numbers(3) ORDER BY number;
SELECT isZeroOrNull('a'); -- { serverError BAD_ARGUMENTS }
SELECT isDistinctFrom(1, 1), isDistinctFrom(1, NULL), isDistinctFrom(NULL, NULL), isNotDistinctFrom(NULL, NULL), isNotDistinctFrom(1, NULL), toTypeName(isDistinctFrom(NULL, NULL)), isDistinctFrom(1, 1.0), isDistinctFrom('a', 'b');
SELECT number, isDistinctFrom(if(number = 0, NULL, number), if(number = 2, NULL, 1)), isNotDistinctFrom(if(number = 0, NULL, number), if(number = 2, NULL, 1)) FROM numbers(3) ORDER BY number;
SELECT firstNonDefault(0, 1, 2), firstNonDefault('', 'a'), firstNonDefault(0, 0), toTypeName(firstNonDefault(0, 1)), firstNonDefault(NULL, 0, 3), toTypeName(firstNonDefault(NULL, 0, 3)), firstNonDefault(toNullable(0), 5);
SELECT number, firstNonDefault(number % 2, 10) FROM numbers(3) ORDER BY number;
SELECT firstNonDefault(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT notHas([1, 2], 1), notHas([1, 2], 3), toTypeName(notHas([1], 1)), notHas([NULL, 1], NULL), notHas(['a'], 'b');
-- regular expressions and searches
SELECT notMatch('abc', 'b'), notMatch('abc', 'x'), matchCaseInsensitive('ABC', 'b'), notMatchCaseInsensitive('ABC', 'b'), toTypeName(notMatch('a', 'a')), matchCaseInsensitive('abc', ''), notMatch('abc', '');
SELECT s, notMatch(s, 'b+'), matchCaseInsensitive(s, 'B+'), notMatchCaseInsensitive(s, 'B+') FROM (SELECT arrayJoin(['abc', 'ABB', 'xyz']) AS s) ORDER BY s;
SELECT multiSearchAnyUTF8('абв', ['б', 'x']), multiSearchAnyCaseInsensitive('ABC', ['b']), multiSearchAnyCaseInsensitiveUTF8('АБВ', ['б']), multiSearchAnyUTF8('abc', ['x']), toTypeName(multiSearchAnyUTF8('a', ['a'])), multiSearchAnyCaseInsensitive('', ['']);
SELECT regexpQuoteMeta('a.b*c'), regexpQuoteMeta('[]{}()|^$?+\\'), regexpQuoteMeta('a:b-c'), regexpQuoteMeta('абв'), toTypeName(regexpQuoteMeta('a'));
-- decimals
SELECT multiplyDecimal(toDecimal32(1.5, 2), toDecimal32(2.25, 3)), toTypeName(multiplyDecimal(toDecimal32(1.5, 2), toDecimal32(2.25, 3))), divideDecimal(toDecimal32(1, 2), toDecimal32(3, 3)), toTypeName(divideDecimal(toDecimal32(1, 2), toDecimal32(3, 3)));
SELECT multiplyDecimal(toDecimal64(1.5, 2), toDecimal32(2, 1), 5), toTypeName(multiplyDecimal(toDecimal64(1.5, 2), toDecimal32(2, 1), 5));
SELECT multiplyDecimal(toDecimal32(-1.5, 2), toDecimal32(2.25, 3)), multiplyDecimal(toDecimal32(1.55, 2), toDecimal32(1.55, 2), 1), multiplyDecimal(toDecimal32(-1.55, 2), toDecimal32(1.55, 2), 1), divideDecimal(toDecimal32(-1, 2), toDecimal32(3, 3)), divideDecimal(toDecimal32(2, 0), toDecimal32(3, 0), 10), toTypeName(divideDecimal(toDecimal32(2, 0), toDecimal32(3, 0), 10));
SELECT multiplyDecimal(toNullable(toDecimal32(1, 2)), toDecimal32(1, 2)), toTypeName(multiplyDecimal(toNullable(toDecimal32(1, 2)), toDecimal32(1, 2)));
SELECT divideDecimal(toDecimal32(1, 2), toDecimal32(0, 3)); -- { serverError ILLEGAL_DIVISION }
SELECT multiplyDecimal(1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiplyDecimal(toDecimal32(1, 2), toDecimal32(1, 2), 77); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiplyDecimal(toDecimal32(1, 2), toDecimal32(1, 2), materialize(2)); -- { serverError ILLEGAL_COLUMN }
SELECT toDecimalString(1.5, 3), toDecimalString(toDecimal32(1.25, 2), 1), toDecimalString(-2, 2), toTypeName(toDecimalString(1, 1)), toDecimalString(1/3, 10), toDecimalString(toUInt64(18446744073709551615), 2);
SELECT toDecimalString(toDecimal32(-1.25, 2), 1), toDecimalString(toDecimal32(1.35, 2), 1), toDecimalString(toDecimal32(1.249, 3), 2), toDecimalString(toDecimal64(123.456, 3), 0), toDecimalString(toDecimal32(1.5, 1), 0), toDecimalString(toDecimal32(2.5, 1), 0), toDecimalString(toDecimal32(-2.5, 1), 0);
SELECT toDecimalString(2.5, 0), toDecimalString(0.125, 2), toDecimalString(1e20, 2), toDecimalString(-0.0, 2), toDecimalString(nan, 2), toDecimalString(inf, 1), toDecimalString(toFloat32(0.1), 10), toDecimalString(toInt8(-5), 3);
SELECT toDecimalString(toInt8(5), 0), toDecimalString(toDecimal32(5, 0), 2), toDecimalString(toDecimal32(5, 0), 0), toDecimalString(toDecimal32(-0.04, 2), 1), toDecimalString(-0.04, 1), toDecimalString(-0.4, 0);
SELECT number, toDecimalString(number, 2) FROM numbers(2) ORDER BY number;
SELECT toDecimalString('a', 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toDecimalString(1.5, 61); -- { serverError CANNOT_PRINT_FLOAT_OR_DOUBLE_NUMBER }
SELECT toDecimalString(1.5, 78); -- { serverError CANNOT_PRINT_FLOAT_OR_DOUBLE_NUMBER }
SELECT isDecimalOverflow(toDecimal64(1000000000, 0), 9), isDecimalOverflow(toDecimal32(999999999, 0), 9), isDecimalOverflow(toDecimal32(100, 0), 2), isDecimalOverflow(toDecimal32(99, 0)), toTypeName(isDecimalOverflow(toDecimal32(1, 0))), isDecimalOverflow(toDecimal32(-100, 0), 2), isDecimalOverflow(toDecimal64(-99.5, 1), 3);
SELECT name FROM system.functions WHERE name IN ('divideOrNull', 'intDivOrNull', 'moduloOrNull', 'positiveModuloOrNull', 'isZeroOrNull', 'isDistinctFrom', 'isNotDistinctFrom', 'firstNonDefault', 'notHas', 'notMatch', 'matchCaseInsensitive', 'notMatchCaseInsensitive', 'multiSearchAnyUTF8', 'multiSearchAnyCaseInsensitive', 'multiSearchAnyCaseInsensitiveUTF8', 'regexpQuoteMeta', 'multiplyDecimal', 'divideDecimal', 'toDecimalString', 'isDecimalOverflow') ORDER BY name;
