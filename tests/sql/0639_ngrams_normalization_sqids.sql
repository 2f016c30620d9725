-- ngramDistance / ngramSearch (ClickHouse's hashed n-gram counts), normalizeQuery and
-- normalizedQueryHash (its lexer), the Unicode normalization forms, sqidEncode / sqidDecode.
SELECT ngramDistance('ClickHouse', 'ClickHouse'), ngramDistance('ClickHouse', 'ClickHous'), ngramDistance('abc', 'xyz'), toTypeName(ngramDistance('a', 'b')), ngramDistance('', ''), ngramDistance('', 'abc');
SELECT ngramDistanceCaseInsensitive('ClickHouse', 'clickhouse'), ngramDistanceUTF8('привет мир', 'привет'), ngramDistanceCaseInsensitiveUTF8('ПРИВЕТ', 'привет');
SELECT ngramSearch('Hello World', 'World'), ngramSearchCaseInsensitive('Hello World', 'world'), ngramSearchUTF8('привет мир', 'мир'), ngramSearchCaseInsensitiveUTF8('ПРИВЕТ МИР', 'мир'), toTypeName(ngramSearch('a', 'b'));
SELECT ngramDistance(materialize('abcdef'), 'abc'), ngramDistance('abc', materialize('abcdef')), ngramDistance(toNullable('abcde'), 'abcdf');
SELECT round(ngramDistance('The quick brown fox jumps over the lazy dog', 'The quick brown dog jumps over the lazy fox'), 6), round(ngramSearch('The quick brown fox jumps over the lazy dog', 'lazy cat'), 6);
SELECT s, round(ngramDistance(s, 'clickhouse database'), 6), round(ngramSearchCaseInsensitive(s, 'HOUSE'), 6), round(ngramDistanceCaseInsensitiveUTF8(s, 'ClickHouse Database'), 6) FROM (SELECT arrayJoin(['ClickHouse database', 'clickhouse', 'duckdb', 'house of cards', 'Столбцовая база']) AS s) ORDER BY s;
SELECT ngramDistance(1, 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT ngramSearch('a'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT normalizeQuery('SELECT 1, \'abc\', 1.5e3, [1,2,3], (1, \'a\'), x IN (1, 2, 3) FROM t WHERE y = -5 AND z = "col"  -- comment'), toTypeName(normalizeQuery('a'));
SELECT normalizeQueryKeepNames('SELECT 1 AS a, `col` FROM t WHERE x = 1'), normalizeQuery('SELECT 1 AS a, `col` FROM t WHERE x = 1');
SELECT normalizedQueryHash('SELECT 1'), normalizedQueryHash('SELECT 2'), normalizedQueryHashKeepNames('SELECT 1'), toTypeName(normalizedQueryHash('a'));
SELECT normalizedQueryHash('SELECT * FROM t123'), normalizedQueryHash('SELECT * FROM t456'), normalizedQueryHashKeepNames('SELECT * FROM t123'), normalizedQueryHashKeepNames('SELECT * FROM t456');
SELECT normalizedQueryHash('SELECT 1, 2, 3 FROM t'), normalizedQueryHash('SELECT 1 FROM t'), normalizedQueryHash('select x   from /* c */ t where a in (1, 2)'), normalizedQueryHash('select x from t where a in (3)');
SELECT normalizeQuery('select   *\nfrom\ttable_123 /* c */ where a=0x1F and b=\'\'  ;'), normalizeQuery('SELECT [1, 2], [], (), f(1,2), tuple(1,2,3), arr[1], 1 + 2, NULL, true, x.1');
SELECT normalizeQuery('SELECT a1, a_2, abc123, abc_xyz_1234, `q1`, "dq2", db.t3, _4 FROM t'), normalizeQueryKeepNames('SELECT a1, a_2, abc123, abc_xyz_1234, `q1`, "dq2", db.t3, _4 FROM t');
SELECT normalizeQuery('insert into t values (1,2),(3,4)'), normalizeQuery('SELECT {p:UInt8}, $1, ?'), normalizeQuery('SELECT $$heredoc$$, $tag$x$tag$, 1.5, .5, 1e-3, 0b101, 0x1p4');
SELECT normalizeQuery('  SELECT f(-1, +2, 3), x-1, 1_000, 123abc, `a b`, "550e8400-e29b-41d4-a716-446655440000" # comment'), normalizeQuery('SELECT /* a /* nested */ b */ 1'), normalizeQuery('SELECT \'unterminated');
SELECT normalizeQuery(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- Unicode normalization.
SELECT normalizeUTF8NFC('é'), length(normalizeUTF8NFC(concat('e', char(0xCC, 0x81)))), normalizeUTF8NFD('é'), length(normalizeUTF8NFD('é')), normalizeUTF8NFKC('ﬁ①'), normalizeUTF8NFKD('ﬁ①'), toTypeName(normalizeUTF8NFC('a'));
SELECT hex(normalizeUTF8NFD('Åström')), hex(normalizeUTF8NFC(normalizeUTF8NFD('Åström'))), normalizeUTF8NFKD('ｶﾞ'), normalizeUTF8NFKC('ｶﾞ'), normalizeUTF8NFC('');
SELECT normalizeUTF8NFC(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- Sqids with the library's defaults (alphabet, blocklist).
SELECT sqidEncode(1, 2, 3), sqidDecode('86Rf07'), toTypeName(sqidEncode(1)), toTypeName(sqidDecode('a'));
SELECT sqidEncode(0), sqidEncode(toUInt64(18446744073709551615)), sqidDecode('bM'), sqidDecode('!!'), sqidDecode(''), sqidDecode('eIkvoXH40Lmd');
SELECT sqidEncode(toUInt8(1), toUInt16(2), toUInt32(3), toUInt64(4)), sqidDecode(sqidEncode(toUInt8(1), toUInt16(2), toUInt32(3), toUInt64(4)));
SELECT groupArray(sqidEncode(number)) FROM (SELECT number FROM numbers(100) ORDER BY number);
SELECT cityHash64(groupArray(sqidEncode(number, number * 7))), countIf(sqidDecode(sqidEncode(number, number * 7)) != [number, number * 7]) FROM (SELECT number FROM numbers(3000) ORDER BY number);
SELECT cityHash64(groupArray(sqidEncode(number * 1000003, 5, number))) FROM (SELECT number FROM numbers(3000) ORDER BY number);
SELECT sqidEncode('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sqidEncode(-1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sqidEncode(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
