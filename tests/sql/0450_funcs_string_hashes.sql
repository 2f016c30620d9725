-- Checksums, sign, bin, and the smaller String functions, over constants, a table and NULLs.
DROP TABLE IF EXISTS words;
CREATE TABLE words (id UInt32, s String, t Nullable(String), n Int64) ENGINE = MergeTree ORDER BY id;
INSERT INTO words VALUES (1, 'hello', 'Hello', -3), (2, '', NULL, 0), (3, 'www.clickhouse.com', 'WWW.ClickHouse.COM', 7), (4, 'Ashcraft', 'ashcroft', 255), (5, 'абвг', 'АБВ', -1);
SELECT id, CRC32(s), CRC32IEEE(s), CRC64(s), xxh3(s), CRC32(t), toTypeName(CRC32(t)) FROM words ORDER BY id;
SELECT CRC32('hello'), CRC32IEEE('hello'), CRC64('hello'), xxh3('hello'), xxh3(5), xxh3('a', 'b'), toTypeName(CRC64('a')), toTypeName(CRC32IEEE('a'));
SELECT CRC32(5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT id, sign(n), sign(toFloat64(n) / 2), toTypeName(sign(n)) FROM words ORDER BY id;
SELECT sign(-inf), sign(nan), sign(-0.), sign(toDecimal32(-1.5, 2)), sign(toNullable(2)), sign(NULL);
SELECT id, bin(n), bin(toUInt8(id)), bin(s), hex(n) FROM words ORDER BY id;
SELECT bin(1.5), bin(toFloat32(1.5)), bin(toUInt16(5)), bin('ab');
SELECT id, concat('[', space(toInt32(id) - 2), ']'), soundex(s), firstLine(concat(s, '\n', s)), isValidUTF8(s) FROM words ORDER BY id;
SELECT soundex('Robert'), soundex(''), soundex('123'), soundex('Tymczak'), soundex('Pfister'), soundex('  Rob ert'), soundex('Lloyd'), soundex('Honeyman'), soundex(toNullable('ab')), firstLine('ab\rc');
SELECT space(2000000); -- { serverError TOO_LARGE_STRING_SIZE }
SELECT soundex(toFixedString('ab', 2)); -- { serverError ILLEGAL_COLUMN }
SELECT id, startsWithCaseInsensitive(s, t), endsWithCaseInsensitive(s, 'COM'), startsWithUTF8(s, 'аб'), endsWithUTF8(s, 'вг'), startsWithCaseInsensitiveUTF8(t, 'аб'), endsWithCaseInsensitiveUTF8(s, 'ВГ') FROM words ORDER BY id;
SELECT id, leftUTF8(s, 2), rightUTF8(s, 2), leftUTF8(s, -1), rightUTF8(s, -1), leftUTF8(t, toInt8(id) - 3) FROM words ORDER BY id;
SELECT id, substringIndex(s, '.', 2), substringIndex(s, '.', -2), substringIndex(s, '.', toInt64(id) - 3), SUBSTRING_INDEX(t, '.', 1), substringIndexUTF8(s, 'б', 1) FROM words ORDER BY id;
SELECT substringIndex('a.b.c', '.', 0), substringIndex('a.b.c', '.', -5), substringIndex('a.b', ',', 1);
SELECT substringIndex('a', '..', 1); -- { serverError BAD_ARGUMENTS }
SELECT id, countMatches(s, 'o'), countMatchesCaseInsensitive(t, 'c'), countMatches(s, '[a-z]+'), regexpExtract(s, '(\\w+)\\.(\\w+)', 2), regexpExtract(s, '(\\w+)\\.(\\w+)'), REGEXP_EXTRACT(s, 'l+', 0) FROM words ORDER BY id;
SELECT countMatches('aaa', 'a*'), countMatches('abc', ''), regexpExtract('ab', '(x)?b', 1), regexpExtract(toNullable('a1'), '\\d', 0), toTypeName(regexpExtract(toNullable('a1'), '\\d', 0));
SELECT regexpExtract('100-200', '(\\d+)', 5); -- { serverError INDEX_OF_POSITIONAL_ARGUMENT_IS_OUT_OF_RANGE }
SELECT countMatches('a', materialize('a')); -- { serverError ILLEGAL_COLUMN }
