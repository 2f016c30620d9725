-- The new string and array functions over columns: Nullable and LowCardinality
-- inputs, many rows, constant and non-constant arguments mixed.
SELECT s, replaceOne(s, 'a', 'A'), replaceRegexpAll(s, 'a+', '_'), match(s, '^b'), extract(s, 'a(n)'), extractAll(s, '[an]+') FROM (SELECT arrayJoin(['banana', NULL, '', 'apple']) AS s);
SELECT toTypeName(replaceOne(s, 'a', 'A')), toTypeName(extractAll(s, 'a')), toTypeName(splitByChar(',', s)), toTypeName(leftPad(s, 3)) FROM (SELECT toNullable('a') AS s);
SELECT s, splitByString(',', s), arrayStringConcat(splitByChar(',', s), '|'), concatWithSeparator('/', s, 'x'), format('<{}>', s) FROM (SELECT arrayJoin(['a,b', NULL, '', ',']) AS s);
SELECT s, lowerUTF8(s), upperUTF8(s), reverseUTF8(s), substringUTF8(s, 2), positionUTF8(s, 'ü'), leftPadUTF8(s, 4, '·') FROM (SELECT arrayJoin(['Über', NULL, 'bü', '']) AS s);
SELECT s, base64Encode(s), tryBase64Decode(base64Encode(s)), hex(s), unhex(hex(s)), countSubstrings(s, 'o') FROM (SELECT arrayJoin(['foo', NULL, '', 'bob']) AS s);
SELECT lc, replaceOne(lc, 'x', 'y'), match(lc, 'x'), splitByChar('-', lc), upperUTF8(lc), positionUTF8(lc, '-'), trimBoth(lc, 'x') FROM (SELECT toLowCardinality(arrayJoin(['x-1', 'y-2', 'x'])) AS lc);
SELECT number, leftPad(toString(number), 3, '0'), rightPad(toString(number), number, '.'), char(number + 97), concatWithSeparator('', toString(number), 'x') FROM numbers(4);
SELECT number, arrayElement(a, number + 1), a[-1], arraySlice(a, 1, number), indexOf(a, number), arrayCount(x -> x > number, a), arraySum(x -> x * number, a) FROM (SELECT number, [1, 2, 3] AS a FROM numbers(4));
SELECT n, arrayConcat(a, [n]), arrayDistinct(arrayConcat(a, a)), arrayUniq(a), arrayMin(a), arrayMax(a), arraySort(x -> -x, a) FROM (SELECT number AS n, range(number) AS a FROM numbers(4));
SELECT k, arraySort(groupArray(v)), arrayStringConcat(arraySort(groupArray(toString(v))), ','), arrayCount(x -> x > 2, groupArray(v)) FROM (SELECT number % 2 AS k, number AS v FROM numbers(7)) GROUP BY k ORDER BY k;
SELECT s FROM (SELECT arrayJoin(['abc', 'abd', 'xyz', 'a']) AS s) WHERE match(s, '^ab') ORDER BY s;
SELECT s FROM (SELECT arrayJoin(['abc', 'abd', 'xyz', 'a']) AS s) WHERE positionUTF8(s, 'b') > 0 AND notEmpty(extractAll(s, 'c')) ORDER BY s;
SELECT count() FROM numbers(100) WHERE match(toString(number), '^[1-3]7$');
SELECT sum(length(replaceRegexpAll(toString(number), '[02468]', ''))) FROM numbers(1000);
SELECT arraySum(arrayMap(x -> countSubstrings(x, '1'), splitByChar(',', arrayStringConcat(groupArray(toString(number)), ',')))) FROM numbers(200);
