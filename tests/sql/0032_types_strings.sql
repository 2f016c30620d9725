-- String and FixedString: escapes in literals, zero bytes, unicode, conversions and basic functions
SELECT 'simple', '', 'it''s', 'it\'s', 'back\\slash', 'tab\tand\nnewline', 'cr\r', 'nul\0byte', 'bell\a', '\x41\x42';
SELECT 'unicode ☃ ü 日本 🦆', length('ü'), lengthUTF8('ü☃'), upper('ü'), upperUTF8('ü');
SELECT length('nul\0byte'), hex('nul\0byte'), hex('\xff'), unhex('414243');
SELECT concat('a', 'b'), 'a' || 'b' || 'c', concat('x', 1, 2.5), concat('', '');
SELECT toString(1), toString(-1.5), toString(true), toString(toDate('2024-01-02')), toString([1, 2]), toString(NULL);
SELECT toFixedString('ab', 4), length(toFixedString('ab', 4)), hex(toFixedString('ab', 4)), toFixedString('abcd', 4);
SELECT toFixedString('abcde', 4); -- { serverError TOO_LARGE_STRING_SIZE }
SELECT toTypeName(toFixedString('a', 3)), toTypeName('a'), toTypeName(concat('a', toFixedString('b', 2)));
SELECT toFixedString('a', 3) = 'a', toFixedString('a', 3) = 'a\0\0', toString(toFixedString('a', 2));
SELECT substring('hello', 2), substring('hello', 2, 3), substring('hello', -3), substring('hello', 10), left('hello', 2), right('hello', 2);
SELECT position('hello', 'l'), position('hello', 'z'), positionCaseInsensitive('HELLO', 'l'), locate('hello', 'lo');
SELECT lower('ABC'), upper('abc'), reverse('abc'), repeat('ab', 3), trim('  x  '), ltrim('  x'), rtrim('x  '), trimBoth('--x--', '-');
SELECT replaceAll('aXbXc', 'X', '-'), replaceOne('aXbXc', 'X', '-'), replaceRegexpAll('a1b22c', '\\d+', '#'), splitByChar(',', 'a,b,,c'), splitByString('::', 'a::b');
SELECT startsWith('hello', 'he'), endsWith('hello', 'lo'), 'hello' LIKE 'h%', 'hello' LIKE '_ello', 'hello' ILIKE 'H%', 'hello' NOT LIKE '%z%', match('abc', '^a.c$');
SELECT empty(''), notEmpty(''), empty('x'), isNull(''), '' = '';
SELECT 'a' < 'b', 'B' < 'a', 'abc' > 'ab', 'ä' > 'z', 'x' = 'x ';
SELECT format('{} and {}', 'a', 'b'), leftPad('7', 3, '0'), rightPad('7', 3, '*');
SELECT base64Encode('hello'), base64Decode('aGVsbG8='), lower(hex(MD5('abc')));
SELECT toString(number) AS s, length(s) FROM numbers(11) ORDER BY s;
SELECT arrayStringConcat(['a', 'b', 'c'], '-'), arrayStringConcat(['x']);
SELECT 'tab\there' AS x FORMAT CSV;
SELECT 'tab\there' AS x FORMAT TSVRaw;
SELECT 'quote"s' AS x, 'apos''s' AS y FORMAT JSONEachRow;
