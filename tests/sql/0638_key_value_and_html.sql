-- extractKeyValuePairs (and its aliases and escaping form), decodeHTMLComponent,
-- encodeXMLComponent and extractTextFromHTML, with ClickHouse's rules for noisy input.
SELECT extractKeyValuePairs('name:neymar, age:31 team:psg,nationality:brazil'), toTypeName(extractKeyValuePairs('a:b'));
SELECT extractKeyValuePairs('name:"neymar", "age":31 team:psg,nationality:brazil');
SELECT extractKeyValuePairs('age=31; name=neymar', '=', ';'), extractKeyValuePairs('age=31 name=neymar', '=', ' ', '\'');
SELECT mapFromString('a:1,b:2'), str_to_map('a:1,b:2'), STR_TO_MAP('x:y');
SELECT extractKeyValuePairs('a:1,b:2,a:3'), extractKeyValuePairs('k1:v1 k2:v2', ':', ' ,', '"');
SELECT extractKeyValuePairs(''), extractKeyValuePairs('a:b c::d e:f'), extractKeyValuePairs(' a : b '), extractKeyValuePairs('a:"b c" d:"e');
SELECT extractKeyValuePairs('a:b\\c'), extractKeyValuePairs('a:b:c d:e'), extractKeyValuePairs('"a b":c'), extractKeyValuePairs('a"b:c'), extractKeyValuePairs('a:b"c d:e');
SELECT extractKeyValuePairs('a:'), extractKeyValuePairs(':b c:d'), extractKeyValuePairs('a,b:c'), extractKeyValuePairs('a:1;b:2', ''), extractKeyValuePairs('a:1;b:2', ':', '');
SELECT extractKeyValuePairs('a"b:c', ':', ' ,;', '"', 'invalid'), extractKeyValuePairs('a"b:c', ':', ' ,;', '"', 'accept'), extractKeyValuePairs('a"b:c', ':', ' ,;', '"', 'promote'), extractKeyValuePairs('a"b:c', ':', ' ,;', '"', 'PROMOTE');
SELECT extractKeyValuePairs('x:1 y:"2" z', ':', ' ', '"', 'accept'), extractKeyValuePairs(toNullable('a:b')), extractKeyValuePairs(toFixedString('a:1', 3));
SELECT extractKeyValuePairsWithEscaping('a:"x\\ny"'), extractKeyValuePairsWithEscaping('a:b\\c d:e\\x41'), extractKeyValuePairsWithEscaping('name:\\"neymar\\", age:31', ':', ', ', '"');
SELECT extractKeyValuePairsWithEscaping('a:\\x4'), extractKeyValuePairsWithEscaping('a:b\\'), extractKeyValuePairsWithEscaping('a\\nb:c d:\\N\\t\\0x'), extractKeyValuePairsWithEscaping('k:\\"v\\"');
SELECT s, extractKeyValuePairs(s)['b'] FROM (SELECT arrayJoin(['a:1 b:2', 'b:x', 'c:3']) AS s) ORDER BY s;
SELECT extractKeyValuePairs('a:b', '::'); -- { serverError BAD_ARGUMENTS }
SELECT extractKeyValuePairs('a:1', ':', ',', '""'); -- { serverError BAD_ARGUMENTS }
SELECT extractKeyValuePairs(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT extractKeyValuePairs('x', ':', ',', '"', 'extra'); -- { serverError BAD_ARGUMENTS }
SELECT extractKeyValuePairs('a:1 b:2', ':', ' ', '"', 'accept', 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT extractKeyValuePairs(materialize('a:1'), materialize(':')); -- { serverError ILLEGAL_COLUMN }
-- HTML and XML components.
SELECT decodeHTMLComponent('&lt;a href=&quot;x&quot;&gt;&amp;&#39;&#x41;&#65;&apos;&copy;&unknown;&#xZZ;&#;&amp'), toTypeName(decodeHTMLComponent('a'));
SELECT decodeHTMLComponent('&#128512;&#x1F600;&#1114112;&#99999999999;&Auml;&euro;&hellip;&NotANamedEntity;&AMP;&amp;amp;');
SELECT decodeHTMLComponent('&a &lt;'), decodeHTMLComponent('&&lt;'), decodeHTMLComponent('x&#65x;&#65;'), decodeHTMLComponent('&#x;&#X41;&#0065;&#-1;&# 65;&#+65;');
SELECT decodeHTMLComponent('&NotNestedGreaterGreater;&nGt;&acE;&fjlig;'), hex(decodeHTMLComponent('&#0;')), hex(decodeHTMLComponent('&nbsp;')), hex(decodeHTMLComponent('&#128;'));
SELECT encodeXMLComponent('<a href="x">&\'</a>'), decodeXMLComponent('&lt;&#65;&nbsp;'), decodeHTMLComponent(encodeXMLComponent('<a href="x">&\'</a>'));
SELECT decodeHTMLComponent(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT decodeHTMLComponent(toFixedString('&lt;', 4)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT extractTextFromHTML('<p>Hello<b>world</b></p>  <!-- c -->x<script>var a = \'</p>\';</script>y'), extractTextFromHTML('a<![CDATA[<b> c ]]>d<style >x</style >e');
SELECT extractTextFromHTML('<!-- unterminated abc'), extractTextFromHTML('<script x'), extractTextFromHTML('  a \t b  <br/>c<!---->d'), extractTextFromHTML('<script:a>Hello</script:a> w');
SELECT extractTextFromHTML('<html><head><title>T</title><style>p {}</style></head><body><p>One&amp;two</p><script><![CDATA[</script>]]> x</script>three</body></html>');
SELECT extractTextFromHTML('<script>var x = "<!--"; </script> var y = "-->"; alert(x + y);</script>'), extractTextFromHTML('<a test=">">text</a>'), extractTextFromHTML('<hello'), extractTextFromHTML('');
SELECT extractTextFromHTML(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
