-- JSONType, JSONHas, JSONLength on constants: kinds, paths of keys and positions, invalid documents.
SELECT JSONType('{"a":1}'), JSONType('{"a":1}', 'a'), JSONType('[1]'), JSONType('"x"'), JSONType('1.5'), JSONType('-1'), JSONType('true'), JSONType('null'), JSONType('bad'), JSONType('18446744073709551615');
SELECT toTypeName(JSONType('1')), JSONType('{"a":1}', 'b'), JSONType('123456789012345678901234'), JSONType('-9223372036854775809'), JSONType('');
SELECT JSONHas('{"a":1}', 'a'), JSONHas('{"a":1}', 'b'), JSONHas('bad', 'a'), JSONHas('{"a":[1,2]}', 'a', -1), JSONHas('{"a":1}');
SELECT JSONHas('{"a":1}', 'a', 'b'), JSONHas('[1,2]', 0), JSONHas('[1,2]', 2), JSONHas('[1,2]', 3), JSONHas('[1,2]', -2), JSONHas('[1,2]', -3), JSONHas('{"a":{"b":1}}', 'a', 'b');
SELECT JSONLength('{"a":1,"b":2}'), JSONLength('[1,2,3]'), JSONLength('"abc"'), JSONLength('bad'), JSONLength('{"a":[1,2]}', 'a'), JSONLength('{}'), JSONLength('[ ]'), JSONLength('{"a":{"b":1}}', 'a', 'b');
SELECT toTypeName(JSONHas('1', 'a')), toTypeName(JSONLength('1')), toTypeName(JSONExtractInt('1')), toTypeName(JSONExtractUInt('1')), toTypeName(JSONExtractFloat('1')), toTypeName(JSONExtractBool('1')), toTypeName(JSONExtractRaw('1')), toTypeName(JSONExtractArrayRaw('1')), toTypeName(JSONExtractKeys('1')), toTypeName(JSONExtractString('1'));
-- Positions into objects, negative positions, 0 and past the end.
SELECT JSONExtractInt('{"a":[10,20,30]}', 'a', 1), JSONExtractInt('{"a":[10,20,30]}', 'a', -1), JSONExtractInt('{"a":[10,20,30]}', 'a', 0), JSONExtractInt('{"a":[10,20,30]}', 'a', 4), JSONExtractInt('{"a":1,"b":2}', 2), JSONExtractInt('{"a":1,"b":2}', -2), JSONExtractString('{"a":1,"b":"x"}', toUInt8(2));
-- Whole documents are validated: trailing text, trailing commas, leading zeros, NaN, single quotes.
SELECT JSONExtractRaw('{"a":1,"a":2}', 'a'), JSONExtractRaw('{"a":1} x'), JSONExtractRaw('{"a":1,}'), JSONExtractRaw('[1,2'), JSONExtractRaw(''), JSONExtractRaw('  '), JSONExtractRaw('{"a":01}', 'a'), JSONExtractRaw('{"a":.5}'), JSONExtractRaw('{"a":NaN}'), JSONExtractRaw('{\'a\':1}');
SELECT isValidJSON('{"a":1}'), isValidJSON('[1,'), isValidJSON('"\\ud800"'), isValidJSON('1e400'), isValidJSON(' 1 '), isValidJSON('{"a":[{}]}'), isValidJSON('tru'), isValidJSON('"\\ud83d\\ude00"');
SELECT JSONExtractRaw(repeat('[', 1025) || repeat(']', 1025)) = '', JSONExtractRaw(repeat('[', 1024) || repeat(']', 1024)) = '', JSONExtractRaw(repeat('[', 10000) || repeat(']', 10000)) = '';
-- Keys with escapes, found by their decoded text.
SELECT JSONExtractKeys('{"a\\"b":1, "\\u00e9":2}'), JSONHas('{"\\u00e9":1}', 'é'), JSONExtractInt('{"\\u00e9":1}', 'é'), JSONExtractKeys('{"a":1,"b":{"c":2}}'), JSONExtractKeys('{"a":1,"b":{"c":2}}', 'b'), JSONExtractKeys('[1]');
