-- JSONExtract with a type: numbers in range or the default, Nullable for what does not convert.
SELECT JSONExtract('{"a":1}', 'a', 'Int8'), JSONExtract('{"a":300}', 'a', 'Int8'), JSONExtract('{"a":300}', 'a', 'UInt8'), JSONExtract('{"a":-1}', 'a', 'UInt16'), JSONExtract('{"a":1.5}', 'a', 'Float32'), JSONExtract('{"a":"x"}', 'a', 'String'), JSONExtract('{"a":1}', 'a', 'String');
SELECT JSONExtract('{"a":1}', 'b', 'Nullable(Int64)'), JSONExtract('{"a":null}', 'a', 'Nullable(Int64)'), JSONExtract('{"a":"x"}', 'a', 'Nullable(Int64)'), JSONExtract('{"a":"5"}', 'a', 'Nullable(Int64)'), JSONExtract('bad', 'Nullable(String)'), JSONExtract('{"a":1}', 'a', 'Nullable(String)');
SELECT JSONExtract('{"a":true}', 'a', 'Bool'), JSONExtract('{"a":1}', 'a', 'Bool'), JSONExtract('{"a":"true"}', 'a', 'Bool'), JSONExtract('{"a":1.0}', 'a', 'Bool'), JSONExtract('{"a":true}', 'a', 'UInt8'), JSONExtract('{"a":true}', 'a', 'Int64'), JSONExtract('{"a":true}', 'a', 'Float64'), JSONExtract('{"a":1.5}', 'a', 'Int64');
SELECT JSONExtract('{"a":"x"}', 'a', 'Int64'), JSONExtract('{"a":"12"}', 'a', 'Int64'), JSONExtract('{"a":"1e2"}', 'a', 'Int64'), JSONExtract('{"a":12}', 'a', 'Float32'), JSONExtract('{"a":[1]}', 'a', 'String'), JSONExtract('{"a":null}', 'a', 'String'), JSONExtract('{"a":null}', 'a', 'Array(Int8)');
SELECT JSONExtract('{"a":18446744073709551615}', 'a', 'UInt64'), JSONExtract('{"a":-32768}', 'a', 'Int16'), JSONExtract('{"a":-32769}', 'a', 'Int16'), JSONExtract('{"a":4294967295}', 'a', 'UInt32'), JSONExtract('{"a":2147483648}', 'a', 'Int32'), JSONExtract('{"a":0.1}', 'a', 'Float32');
-- Arrays, tuples (by name from objects, by position otherwise), maps, LowCardinality.
SELECT JSONExtract('{"a":[1,2,"3",null,"x"]}', 'a', 'Array(Int32)'), JSONExtract('{"a":[1,2,"3",null,"x"]}', 'a', 'Array(Nullable(Int32))'), JSONExtract('{"a":1}', 'a', 'Array(Int32)'), JSONExtract('[[1],[2,3]]', 'Array(Array(UInt8))'), JSONExtract('["a", 1, [2]]', 'Array(String)');
SELECT JSONExtract('{"a":[1,"x"]}', 'a', 'Tuple(Int8, String)'), JSONExtract('{"a":{"n":1,"s":"x"}}', 'a', 'Tuple(s String, n Int8)'), JSONExtract('{"a":[1]}', 'a', 'Tuple(Int8, String)'), JSONExtract('{"a":{"n":1}}', 'a', 'Tuple(Int8, String)'), JSONExtract('{"a":[1,"x",3]}', 'a', 'Tuple(Int8, String)');
SELECT JSONExtract('{"a":{"x":1,"y":"2","z":"q"}}', 'a', 'Map(String, Int32)'), JSONExtract('{"a":[1]}', 'a', 'Map(String, Int32)'), JSONExtract('{"x":1, "y":null}', 'Map(String, Nullable(Int32))'), toTypeName(JSONExtract('{"x":1}', 'LowCardinality(String)')), JSONExtract('{"x":"y"}', 'x', 'LowCardinality(String)');
SELECT JSONExtract('{"a":{"b":[{"c":1},{"c":2}]}}', 'a', 'b', 'Array(Tuple(c UInt8))'), JSONExtract('{"m":{"k":[1,2]}}', 'm', 'Map(String, Array(Float64))'), JSONExtract('[{"a":"x"},{"a":"y"}]', 'Array(Map(String, String))');
SELECT toTypeName(JSONExtract('1', 'Int8')), toTypeName(JSONExtract(toNullable('1'), 'Int8')), toTypeName(JSONExtract('1', 'Tuple(a Int8)')), toTypeName(JSONExtract('{}', 'Map(String, Array(Nullable(Float32)))'));
SELECT JSONExtractCaseInsensitive('{"AbC":{"X":5}}', 'abc', 'x', 'Int32'), JSONExtractCaseInsensitive('{"A":{"B":7}}', 'a', 'Tuple(b Int32)'), JSONExtract('{"A":{"B":7}}', 'A', 'Tuple(b Int32)');
-- Keys and values.
SELECT JSONExtractKeysAndValues('{"x":1,"y":"2","z":"q"}', 'Int8'), JSONExtractKeysAndValues('{"a":{"x":[1]}}', 'a', 'Array(Int8)'), JSONExtractKeysAndValues('[1]', 'Int8'), toTypeName(JSONExtractKeysAndValues('{}', 'Int8'));
SELECT JSONExtractKeysAndValuesRaw('{"a" : [1, 2], "b": "x"}'), toTypeName(JSONExtractKeysAndValuesRaw('{}')), JSONExtractKeysAndValuesRaw('{"a":{"b":1}}', 'a'), JSONExtractKeysAndValuesRaw('bad'), JSONExtractKeysAndValuesCaseInsensitive('{"A":{"b":1}}', 'a', 'UInt8'), JSONExtractKeysAndValuesRawCaseInsensitive('{"A":{"b":1}}', 'a');
-- Errors: the type must be a constant, known, and one JSONExtract can make.
SELECT JSONExtract('1', 'Blah'); -- { serverError UNKNOWN_TYPE }
SELECT JSONExtract('1', x) FROM (SELECT 'Int8' AS x); -- { serverError ILLEGAL_COLUMN }
SELECT JSONExtract('1', 'Nothing'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT JSONExtract('1'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT JSONExtractKeysAndValues('{}', 'Nope'); -- { serverError UNKNOWN_TYPE }
