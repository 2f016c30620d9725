-- hasSubsequence and its CaseInsensitive / UTF8 forms
SELECT hasSubsequence('garbage', 'arg'), hasSubsequence('garbage', 'gra'), hasSubsequenceCaseInsensitive('garbage', 'ARG'), hasSubsequenceUTF8('привет', 'пив'), hasSubsequenceCaseInsensitiveUTF8('ПРИвет', 'пив'), toTypeName(hasSubsequence('a', 'b'));
SELECT hasSubsequence('abc', ''), hasSubsequence('', 'a'), hasSubsequence('', ''), hasSubsequence(materialize('abc'), materialize('ac')), hasSubsequenceCaseInsensitive('ПРИвет', 'пив'), hasSubsequenceUTF8('пр', 'р'), hasSubsequence('пр', 'р');
SELECT hasSubsequence(NULL, 'a'), hasSubsequence(toNullable('abc'), 'b'), toTypeName(hasSubsequence(toNullable('abc'), 'b'));
SELECT number, hasSubsequence(toString(number * 1234567), '14'), hasSubsequenceCaseInsensitive(concat('AbC', toString(number)), 'ac1') FROM numbers(4) ORDER BY number;
SELECT hasSubsequence(toFixedString('abc', 3), 'ac'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT hasSubsequence('a', 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT hasSubsequence([1, 2, 3], [1, 3]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- xxh3_128
SELECT hex(xxh3_128('abc')), toTypeName(xxh3_128('abc')), hex(xxh3_128('')), hex(xxh3_128(1)), hex(xxh3_128('a', 'b'));
SELECT xxh3_128([1, 2]), xxh3_128(tuple()), xxh3_128(), xxh3_128((1, 'x')), xxh3_128(NULL), xxh3_128([NULL, 1]), xxh3_128(toFixedString('ab', 2));
SELECT number, xxh3_128(number), xxh3_128(toString(number), number) FROM numbers(3) ORDER BY number;
-- hiveHash of an empty array or map is that of its length alone
SELECT hiveHash([]), hiveHash(materialize(CAST([], 'Array(String)'))), hiveHash(map()), hiveHash(tuple()), hiveHash(tuple([]));
SELECT hiveHash(['a']); -- { serverError NOT_IMPLEMENTED }
SELECT hiveHash([[]]); -- { serverError NOT_IMPLEMENTED }
SELECT hiveHash((1, [])); -- { serverError NOT_IMPLEMENTED }
