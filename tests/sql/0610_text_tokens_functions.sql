-- tokens
SELECT tokens('test1,;\\ test2,;\\ test3,;\\   test4'), tokens('a b  c'), tokens(''), tokens('привет мир'), tokens('a_b-c.d'), toTypeName(tokens('a'));
SELECT alphaTokens('abca1abc'), alphaTokens('abc привет 12de'), alphaTokens(''), toTypeName(alphaTokens('a'));
SELECT ngrams('ClickHouse', 3), ngrams('abc', 4), ngrams('', 2), ngrams('абв', 2), ngrams('ab', 1), toTypeName(ngrams('a', 1));
SELECT ngrams('abc', 0); -- { serverError BAD_ARGUMENTS }
SELECT s, tokens(s), alphaTokens(s), ngrams(s, 2) FROM (SELECT arrayJoin(['x y', 'a1', '']) AS s) ORDER BY s;
SELECT hasToken('Hello World', 'Hello'), hasToken('Hello World', 'lo'), hasTokenCaseInsensitive('Hello World', 'hello'), hasTokenOrNull('Hello World', 'a b'), hasTokenCaseInsensitiveOrNull('a', 'A');
SELECT hasToken('a.b', 'a'), hasToken('abc', 'abc'), hasToken('xabc', 'abc'), hasToken('a_b', 'a'), hasToken('привет мир', 'мир'), hasToken('', ''), hasToken('abc', ''), hasToken(toNullable('a b'), 'a'), toTypeName(hasTokenOrNull('a', 'a')), toTypeName(hasToken('a', 'a'));
SELECT s, hasToken(s, 'ab'), hasTokenCaseInsensitive(s, 'ab') FROM (SELECT arrayJoin(['ab cd', 'AB', 'abc', 'x,ab']) AS s) ORDER BY s;
SELECT hasToken('Hello World', 'a b'); -- { serverError BAD_ARGUMENTS }
SELECT hasToken('a', materialize('a')); -- { serverError ILLEGAL_COLUMN }
-- characters
SELECT translateUTF8('Hello, World!', 'delor', 'DELOR'), translateUTF8('абв', 'б', 'Б'), translateUTF8('abc', 'ab', 'x'), translateUTF8('aaa', 'aa', 'xy'), translateUTF8('abc', '', ''), translateUTF8('абв', 'аб', 'xy');
SELECT translateUTF8('abc', 'a', 'xyz'); -- { serverError BAD_ARGUMENTS }
SELECT initcapUTF8('hello wORLD абв-где'), initcapUTF8('hello-world FOO_bar 1abc ab1c'), initcapUTF8(''), initcapUTF8('ÄBC äbc'), initcapUTF8('ﬁsh ßa'), toTypeName(initcapUTF8('a'));
SELECT overlayUTF8('абвгд', 'XY', 2), overlayUTF8('абвгд', 'XY', 2, 1), overlayUTF8('абвгд', 'XY', 0), overlayUTF8('абвгд', 'XY', -1), overlayUTF8('абвгд', 'XY', 10), overlayUTF8('абвгд', 'XY', 2, 0), overlayUTF8('абвгд', 'XY', 2, 10), overlayUTF8('абвгд', 'XY', -2, 1);
SELECT overlayUTF8('abcde', 'XY', -10), overlayUTF8('abcde', 'XY', 1, -1), overlayUTF8('abcde', 'XY', -1, 0), toTypeName(overlayUTF8('a', 'b', 1)), overlayUTF8(toNullable('abc'), 'X', 1), toTypeName(overlayUTF8(toNullable('abc'), 'X', 1));
SELECT number, overlayUTF8('abc', 'X', number + 1) FROM numbers(3) ORDER BY number;
-- XML
SELECT encodeXMLComponent('<a> & "x" \'y\''), decodeXMLComponent('&lt;a&gt; &amp;amp; &quot;x&quot; &apos; &#x41; &#65; &nbsp;'), decodeXMLComponent('&#1055;&#x41F;&lt&gt;&bogus; &amp');
SELECT decodeXMLComponent(encodeXMLComponent('1 < 2 && "q"')), toTypeName(encodeXMLComponent('a'));
-- regular expression groups
SELECT extractAllGroupsHorizontal('abc=111, def=222, ghi=333', '("[^"]+"|\\w+)=("[^"]+"|\\w+)'), extractAllGroupsVertical('abc=111, def=222, ghi=333', '("[^"]+"|\\w+)=("[^"]+"|\\w+)'), toTypeName(extractAllGroupsVertical('a', '(a)'));
SELECT extractAllGroupsHorizontal('a1b2', '(\\w)(\\d)?'), extractAllGroupsVertical('a1b2', '(\\w)(\\d)?'), extractAllGroupsVertical('', '(a)'), extractAllGroupsHorizontal('', '(a)'), extractAllGroupsVertical('abc', '(x)?b');
SELECT s, extractAllGroupsVertical(s, '(\\d+)-(\\d+)') FROM (SELECT arrayJoin(['1-2 3-4', 'none', '10-20']) AS s) ORDER BY s;
SELECT extractAllGroupsHorizontal('a', 'a'); -- { serverError BAD_ARGUMENTS }
SELECT name FROM system.functions WHERE name IN ('tokens', 'alphaTokens', 'ngrams', 'hasToken', 'hasTokenOrNull', 'hasTokenCaseInsensitive', 'hasTokenCaseInsensitiveOrNull', 'translateUTF8', 'initcapUTF8', 'overlayUTF8', 'encodeXMLComponent', 'decodeXMLComponent', 'extractAllGroupsHorizontal', 'extractAllGroupsVertical') ORDER BY name;
