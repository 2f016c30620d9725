-- multiMatchAny / multiMatchAnyIndex / multiMatchAllIndices: regular-expression sets (indices in the order their earliest matches end).
SELECT multiMatchAny('hello world', ['wor.d', 'xyz']), multiMatchAnyIndex('hello world', ['xyz', 'l+o', 'h']), multiMatchAllIndices('hello world', ['xyz', 'l+o', 'h']);
SELECT toTypeName(multiMatchAny('a', ['a'])), toTypeName(multiMatchAnyIndex('a', ['a'])), toTypeName(multiMatchAllIndices('a', ['a']));
SELECT multiMatchAny('ABC', ['(?i)b']), multiMatchAny('a\nb', ['a.b']), multiMatchAnyIndex('abc', ['^b', 'c$', 'a']), multiMatchAllIndices('xx', ['', 'x', 'y']), multiMatchAny('abc', ['\\d']);
SELECT multiMatchAny('', ['^$']), multiMatchAnyIndex('', ['x', '']), multiMatchAllIndices('abab', ['b', 'a', 'ab', 'ba']), multiMatchAllIndices('abc', ['bc', 'abc', 'c']), multiMatchAnyIndex('abc', ['abc', 'bc']);
SELECT multiMatchAny(toNullable('abc'), ['b']), toTypeName(multiMatchAny(toNullable('abc'), ['b'])), multiMatchAny(NULL, ['b']), toTypeName(multiMatchAllIndices(toNullable('abc'), ['b']));
SELECT multiMatchAny(toLowCardinality('abc'), ['b']), toTypeName(multiMatchAny(toLowCardinality('abc'), ['b'])), toTypeName(multiMatchAllIndices(toLowCardinality('abc'), ['b']));
SELECT number, s, multiMatchAny(s, ['^a', '\\d+$']), multiMatchAnyIndex(s, ['^a', '\\d+$']), multiMatchAllIndices(s, ['^a', '\\d+$', '[a-c]{2}']) FROM (SELECT number, arrayElement(['abc', 'x12', 'ab9', '', 'zz'], number + 1) AS s FROM numbers(5)) ORDER BY number;
SELECT number, multiMatchAllIndices(s, p), multiMatchAny(s, p) FROM (SELECT number, ['ab', 'cd', 'x'][number + 1] AS s, [['a', 'b'], ['d', 'c'], ['y']][number + 1] AS p FROM numbers(3)) ORDER BY number;
SELECT multiMatchAny('abc', ['(a', 'b']); -- { serverError BAD_ARGUMENTS }
SELECT multiMatchAny('abc', []); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiMatchAny(1, ['b']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiMatchAny('abc', [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiMatchAny(toFixedString('abc', 3), ['b']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiMatchAny('abc', materialize(['b'])); -- { serverError ILLEGAL_COLUMN }
SELECT multiMatchAny('abc', ['a'], 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
