-- JSONExtractString / Int / UInt / Float / Bool / Raw / ArrayRaw: conversions between kinds.
SELECT JSONExtractString('{"a":"h\\u00e9\\ud83d\\ude00"}', 'a'), JSONExtractString('{"a":1}', 'a'), JSONExtractString('bad', 'a'), JSONExtractString('"x"'), JSONExtractString('"a\\u0000b"') = 'a\0b';
SELECT JSONExtractString('{"a":[1, 2]}', 'a'), JSONExtractString('{"a":true}', 'a'), JSONExtractString('{"a":null}', 'a'), JSONExtractString('{"a":1.50}', 'a'), JSONExtractString('{"a":{"b" : 1}}', 'a'), JSONExtractString('123456789012345678901234');
SELECT JSONExtractInt('{"a":1.9}', 'a'), JSONExtractInt('{"a":"12"}', 'a'), JSONExtractInt('{"a":true}', 'a'), JSONExtractInt('{"a":-3}', 'a'), JSONExtractUInt('{"a":-3}', 'a'), JSONExtractInt('{"a":18446744073709551615}', 'a'), JSONExtractFloat('{"a":"1.5"}', 'a'), JSONExtractFloat('{"a":1e3}', 'a');
SELECT JSONExtractInt('{"a":"-12"}', 'a'), JSONExtractInt('{"a":"1e2"}', 'a'), JSONExtractInt('{"a":" 12"}', 'a'), JSONExtractInt('{"a":"12x"}', 'a'), JSONExtractUInt('{"a":"12.5"}', 'a'), JSONExtractFloat('{"a":"abc"}', 'a'), JSONExtractFloat('{"a":true}', 'a'), JSONExtractUInt('{"a":1e19}', 'a'), JSONExtractInt('{"a":1e19}', 'a'), JSONExtractInt('{"a":-1.9}', 'a');
SELECT JSONExtractUInt('{"a":"-1"}', 'a'), JSONExtractInt('{"a":"1e19"}', 'a'), JSONExtractInt('{"a":"+5"}', 'a'), JSONExtractInt('{"a":"0x10"}', 'a'), JSONExtractInt('{"a":"5."}', 'a'), JSONExtractFloat('{"a":"inf"}', 'a'), JSONExtractFloat('{"a":"1e400"}', 'a'), JSONExtractFloat('{"a":1e400}', 'a'), JSONExtractInt('{"a":"9223372036854775808"}', 'a'), JSONExtractInt('{"a":"-9223372036854775808"}', 'a');
SELECT JSONExtractUInt('{"a":true}', 'a'), JSONExtractFloat('{"a":18446744073709551615}', 'a'), JSONExtractInt('{"a":9223372036854775808}', 'a'), JSONExtractUInt('{"a":9.3e18}', 'a'), JSONExtractInt('{"a":-9.3e18}', 'a'), JSONExtractFloat('123456789012345678901234'), JSONExtractInt('{"a":null}', 'a');
SELECT JSONExtractBool('{"a":true}', 'a'), JSONExtractBool('{"a":1}', 'a'), JSONExtractBool('{"a":"true"}', 'a'), JSONExtractBool('{"a":0.5}', 'a'), JSONExtractBool('{"a":0}', 'a'), JSONExtractBool('{"a":"1"}', 'a'), JSONExtractBool('{"a":null}', 'a'), JSONExtractBool('{"a":2}', 'a'), JSONExtractBool('{"a":1.5}', 'a'), JSONExtractBool('{"a":-1}', 'a'), JSONExtractBool('{"a":1.0}', 'a');
-- Raw values are printed again: no spaces, numbers and strings in ClickHouse's text.
SELECT JSONExtractRaw('{"a":{"b": [1, 2 ,"x"]}}', 'a'), JSONExtractRaw('{"a":"x\\n"}', 'a'), JSONExtractRaw('bad'), JSONExtractRaw('{"a" : 1.50}', 'a'), JSONExtractRaw(' { "a" : 1 } ');
SELECT JSONExtractRaw('[1e3, 1.0, 0.1, 1E-7, 123456789012345678901234, -0, -0.0, 1.5e300, 12345678901234567890, 3.14159265358979323846]');
SELECT JSONExtractRaw('["\\u00e9", "\\/", "\\u0001", "a\\tb", "\\ud83d\\ude00", "\\"q\\""]'), JSONExtractRaw('"\\u001f\\b\\f\\r"'), JSONExtractRaw('"\\u2028"');
SELECT JSONExtractRaw('[100000000000000000000.0, 1e21, 1e15, 123456789.125, 0.000001, 0.0000001, 1.7976931348623157e308, 5e-324, -9223372036854775808]'), JSONExtractRaw('[true,false,null,{},[], {"a":[]}]');
SELECT JSONExtractArrayRaw('{"a":[1, "x", {"b":2}]}', 'a'), JSONExtractArrayRaw('{"a":1}', 'a'), JSONExtractArrayRaw('[]'), JSONExtractArrayRaw('[[1, 2], {"x" : [ ]}]'), JSONExtractArrayRaw('bad');
-- Case-insensitive keys (ASCII).
SELECT JSONExtractStringCaseInsensitive('{"ABC":"x"}', 'abc'), JSONExtractIntCaseInsensitive('{"Key":{"SUB":7}}', 'key', 'sub'), JSONExtractUIntCaseInsensitive('{"a":5}', 'A'), JSONExtractFloatCaseInsensitive('{"a":5.5}', 'A'), JSONExtractBoolCaseInsensitive('{"a":true}', 'A'), JSONExtractRawCaseInsensitive('{"aA":[1]}', 'Aa'), JSONExtractArrayRawCaseInsensitive('{"aA":[1]}', 'AA'), JSONExtractKeysCaseInsensitive('{"X":{"y":1}}', 'x'), JSONExtractString('{"ABC":"x"}', 'abc');
-- NULLs: a NULL document or path gives NULL, a Nullable document a Nullable result.
SELECT JSONExtractInt(NULL, 'a'), JSONExtractInt('{"a":1}', NULL), toTypeName(JSONExtractInt(toNullable('{"a":1}'), 'a')), toTypeName(JSONExtractRaw(toNullable('1'))), toTypeName(JSONType(toNullable('1')));
SELECT toTypeName(JSONExtractString(toLowCardinality('{"a":"x"}'), 'a')), JSONExtractString(toLowCardinality('{"a":"x"}'), 'a');
SELECT JSONExtractString(toFixedString('{"a":"x"}', 9), 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT JSONExtractInt('{"a":1}', 1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT JSONExtractInt(1, 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT JSONHas(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
