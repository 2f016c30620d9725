-- Code-point functions (lowerUTF8, upperUTF8, substringUTF8, reverseUTF8) and
-- substring search (position, positionUTF8, the case-insensitive forms, locate,
-- countSubstrings): positions 1-based, start positions unsigned, empty needles.
SELECT lowerUTF8('ÄÖÜ'), upperUTF8('straße'), upperUTF8('ǅ'), lowerUTF8('ǅ'), lowerUTF8('İ'), upperUTF8('ﬁ'), upperUTF8('ΐ'), lowerUTF8('ΑΣ'), upperUTF8('ß'), upperUTF8('ÿ'), toTypeName(lowerUTF8('a'));
SELECT hex(lowerUTF8('Ⱥ')), hex(upperUTF8('ⱥ')), hex(upperUTF8('ɐ')), hex(lowerUTF8('ẞ')), lowerUTF8(''), upperUTF8('abc'), lower('ÄB'), upper('äb');
SELECT lowerUTF8(s), upperUTF8(s) FROM (SELECT arrayJoin(['Mixed Case', '', 'ÉCOLE', NULL]) AS s);
SELECT lowerUTF8(toFixedString('ÄB', 3));
SELECT lowerUTF8(1);
SELECT substringUTF8('日本語', 2, 1), substringUTF8('日本語', -1), substringUTF8('日本語', 0), substringUTF8('日本語', 2), substringUTF8('日本語', -5, 3), substringUTF8('日本語', 2, -1), substringUTF8('日本語', 10), toTypeName(substringUTF8('a', 1));
SELECT substringUTF8('abc', 1, 0), substringUTF8('abc', materialize(2), materialize(1)), substringUTF8('abc', 1.5), substring('abc', 1.5), substring('abcdef', 2.7, 1.2), substringUTF8('abcdef', 2.7, 1.2);
SELECT substringUTF8(s, 2, 2) FROM (SELECT arrayJoin(['añbc', '', 'ü', '日本語']) AS s);
SELECT substringUTF8(toFixedString('日本', 6), 2);
SELECT substringUTF8('abc', toDecimal32(2, 0));
SELECT reverseUTF8('ab☃'), reverseUTF8(''), reverseUTF8('日本語'), reverseUTF8(toNullable('ab')), reverse('abc'), reverse(''), reverse(toFixedString('ab', 3)), toTypeName(reverse(toFixedString('ab', 3)));
SELECT reverse([1, 2, 3]), reverse(['a', NULL]), toTypeName(reverse([1, NULL])), reverse(NULL), reverse(toNullable('ab')), toTypeName(reverse(toNullable(toFixedString('ab', 2))));
SELECT reverseUTF8(toFixedString('ab', 3));
SELECT reverse(1);
SELECT positionUTF8('日本語', '語'), positionUTF8('日本語', ''), positionUTF8('日本語', '', 2), positionUTF8('日本語', '', 5), positionUTF8('日本語', '本', 3), positionUTF8('日本語', 'x'), positionUTF8('日本語', '本', 0), toTypeName(positionUTF8('a', 'a'));
SELECT positionUTF8('abcabc', 'c', 4), positionUTF8('日本語日', '日', 2), position('abc', '', 10), position('abc', '', 4), position('abc', 'b', 0), positionUTF8('日本語', '', 4), positionUTF8('', ''), positionUTF8('', '', 2);
SELECT position('日本語', '語'), position('hello', 'l'), position('hello', 'z'), position('abcabc', 'bc', 3), position(toFixedString('ab', 3), 'b'), positionUTF8(toFixedString('ab', 2), 'b');
SELECT positionCaseInsensitive('ABC', 'b'), positionCaseInsensitiveUTF8('ÄBC', 'bc'), positionCaseInsensitiveUTF8('aÄb', 'äB'), positionCaseInsensitive('aÄb', 'äB'), positionCaseInsensitiveUTF8('straße', 'SS'), positionCaseInsensitiveUTF8('İx', 'x'), positionCaseInsensitiveUTF8('ΑΣ', 'σ');
SELECT positionCaseInsensitive('abc', '', 2), positionCaseInsensitiveUTF8('日本語', '', 4), positionCaseInsensitiveUTF8('abcABC', 'c', 4), toTypeName(positionCaseInsensitive('a', 'a'));
SELECT locate('hello', 'lo'), locate('lo', 'hello'), locate('l', 'hello', 4), toTypeName(locate('a', 'b')), instr('abc', 'b');
SELECT position(s, 'b'), positionUTF8(s, 'ü'), positionCaseInsensitive(s, 'B') FROM (SELECT arrayJoin(['abc', 'übü', '', 'BBB']) AS s);
SELECT position('abc', n) FROM (SELECT arrayJoin(['', 'c', 'x']) AS n);
SELECT position(s, n) FROM (SELECT arrayJoin([['abc', 'c'], ['aaa', ''], ['', 'a']]) AS t, t[1] AS s, t[2] AS n);
SELECT position(NULL, 'a'), position(toNullable('ab'), 'b'), toTypeName(position(toNullable('ab'), 'b'));
SELECT position('abc', 1);
SELECT position(1, 'a');
SELECT position('abc', 'b', 1.5);
SELECT position('abc', 'b', -1);
SELECT position('abc', 'b', toInt64(2));
SELECT countSubstrings('aaaa', 'aa'), countSubstrings('abc', ''), countSubstrings('', ''), countSubstrings('abcabc', 'bc', 3), countSubstrings('abc', 'c', 10), toTypeName(countSubstrings('a', 'a')), countSubstrings('abc', 'b', 0);
SELECT countSubstringsCaseInsensitive('AbAb', 'ab'), countSubstringsCaseInsensitive('ÄÄ', 'ä'), countSubstringsCaseInsensitiveUTF8('ÄÄ', 'ä'), countSubstringsCaseInsensitiveUTF8('aAaA', 'AA'), countSubstrings('日本日本', '日');
SELECT countSubstrings(s, 'a') FROM (SELECT arrayJoin(['banana', '', 'xyz', 'aaa']) AS s);
SELECT countSubstrings('abc', 'b', -1);
SELECT countSubstrings(NULL, 'a'), countSubstrings(toNullable('aa'), 'a');
