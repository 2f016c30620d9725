-- multiSearchFirstIndex / multiSearchFirstPosition / multiSearchAllPositions and their CaseInsensitive / UTF8 forms.
SELECT multiSearchFirstIndex('hello world', ['world', 'hello']), multiSearchFirstPosition('hello world', ['world', 'lo']), multiSearchAllPositions('hello world', ['o', 'x', '', 'hello']);
SELECT toTypeName(multiSearchFirstIndex('a', ['a'])), toTypeName(multiSearchFirstPosition('a', ['a'])), toTypeName(multiSearchAllPositions('a', ['a']));
SELECT multiSearchFirstIndex('abc', ['', 'a']), multiSearchFirstPosition('abc', ['x', '']), multiSearchFirstPosition('', ['']), multiSearchAllPositions('', ['', 'a']), multiSearchFirstIndex('', ['a']);
SELECT toTypeName(multiSearchFirstIndex(toNullable('a'), ['a'])), toTypeName(multiSearchAllPositions(toNullable('a'), ['a'])), multiSearchAllPositions(NULL, ['a']), multiSearchFirstIndex(NULL, ['a']);
SELECT toTypeName(multiSearchFirstIndex(toLowCardinality('a'), ['a'])), toTypeName(multiSearchAllPositions(toLowCardinality('a'), ['a'])), multiSearchFirstPosition(toLowCardinality('xab'), ['b']);
SELECT multiSearchAllPositionsUTF8('привет мир', ['мир', 'и']), multiSearchFirstPositionUTF8('привет мир', ['мир', 'ет']), multiSearchFirstIndexUTF8('привет', ['x', 'в']);
SELECT multiSearchFirstPositionCaseInsensitive('Hello', ['LL', 'x']), multiSearchAllPositionsCaseInsensitive('ABCabc', ['bc', 'C']), multiSearchFirstIndexCaseInsensitive('ABC', ['x', 'b']);
SELECT multiSearchFirstIndexCaseInsensitiveUTF8('ПРИВЕТ', ['x', 'вет']), multiSearchAllPositionsCaseInsensitiveUTF8('ПРИВЕТ', ['вет']), multiSearchFirstPositionCaseInsensitiveUTF8('aÄb', ['äB']);
SELECT multiSearchFirstPosition(materialize('abc'), emptyArrayString()), multiSearchAllPositions(materialize('abc'), emptyArrayString());
SELECT number, s, multiSearchFirstIndex(s, ['c', 'b']), multiSearchFirstPosition(s, ['c', 'b']), multiSearchAllPositions(s, ['c', 'b', '']) FROM (SELECT number, arrayElement(['abc', '', 'bcb', 'xyz'], number + 1) AS s FROM numbers(4)) ORDER BY number;
SELECT number, multiSearchAllPositions(s, n), multiSearchFirstIndex(s, n) FROM (SELECT number, arrayElement(['abc', 'bcb', 'xyz'], number + 1) AS s, arrayElement([['c'], ['x', 'b'], []], number + 1) AS n FROM numbers(3)) ORDER BY number;
SELECT multiSearchFirstIndex(s, ['b']) FROM (SELECT if(number = 1, NULL, 'ab') AS s FROM numbers(3)) ORDER BY 1;
SELECT multiSearchFirstIndex('abc', []); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiSearchFirstIndex('abc', [toNullable('c')]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiSearchFirstPosition('abc', [toFixedString('c', 1)]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiSearchFirstIndex(1, ['c']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiSearchFirstIndex(materialize('abc'), ['x', 'c']), multiSearchAllPositionsCaseInsensitiveUTF8(materialize('ÄBC äbc'), ['äb', 'C', 'z']), multiSearchFirstPositionUTF8(materialize('жёлтый'), ['тый', 'ёл']);
SELECT s, multiSearchAllPositionsCaseInsensitive(s, ['A', 'bc', '']), multiSearchFirstIndexUTF8(s, ['é', 'b']) FROM (SELECT arrayJoin(['abcABC', 'é b', '', 'xyz']) AS s) ORDER BY s;
SELECT multiSearchFirstIndex('abc', materialize(['c'])); -- { serverError ILLEGAL_COLUMN }
SELECT multiSearchAllPositions('abc'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
