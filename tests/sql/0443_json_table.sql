-- JSON functions over a MergeTree table: String, Nullable(String) and LowCardinality(String) documents, paths from columns.
CREATE TABLE events (id UInt32, doc String, maybe Nullable(String), lc LowCardinality(String), key String, pos Int32) ENGINE = MergeTree ORDER BY id;
INSERT INTO events VALUES
    (1, '{"user":{"name":"ann","age":31,"tags":["a","b"]},"score":1.5,"ok":true}', '{"v":1}', '{"k":"x"}', 'user', 1),
    (2, '{"user":{"name":"bob","age":"27","tags":[]},"score":-2,"ok":false}', NULL, '{"k":"y"}', 'score', -1),
    (3, 'not json', '{"v":"3"}', '{"k":"x"}', 'ok', 2),
    (4, '{"user":{"name":"\\u00e9ve","age":null,"tags":["c"]},"score":"7","extra":{"n":[1,2,3]}}', '{"v":null}', 'oops', 'extra', -2),
    (5, '[10, 20, {"user": 1}]', '[]', '{"k":"z"}', 'user', 3);
SELECT id, JSONType(doc), JSONHas(doc, 'user'), JSONLength(doc), JSONExtractString(doc, 'user', 'name'), JSONExtractInt(doc, 'user', 'age'), JSONExtractFloat(doc, 'score'), JSONExtractBool(doc, 'ok') FROM events ORDER BY id;
SELECT id, JSONExtractRaw(doc, key), JSONType(doc, key), JSONExtractRaw(doc, pos), JSONExtractArrayRaw(doc, 'user', 'tags'), JSONExtractKeys(doc) FROM events ORDER BY id;
SELECT id, JSONExtractInt(maybe, 'v'), toTypeName(JSONExtractInt(maybe, 'v')), JSONExtract(maybe, 'v', 'Nullable(UInt8)'), isValidJSON(maybe), JSONExtractString(lc, 'k'), toTypeName(JSONExtractString(lc, 'k')) FROM events ORDER BY id;
SELECT id, JSONExtract(doc, 'user', 'Tuple(name String, age Nullable(UInt8), tags Array(String))'), JSONExtract(doc, 'extra', 'Map(String, Array(Int64))') FROM events ORDER BY id;
SELECT id, JSONExtractKeysAndValues(doc, 'user', 'String'), JSONExtractKeysAndValuesRaw(doc, key) FROM events ORDER BY id;
SELECT JSONExtractString(doc, 'user', 'name') AS name, count() FROM events WHERE JSONHas(doc, 'user', 'name') GROUP BY name ORDER BY name;
SELECT lc, countIf(JSONExtractString(lc, 'k') = 'x') FROM events GROUP BY lc ORDER BY lc;
SELECT sum(JSONExtractUInt(concat('{"n":', toString(number), '}'), 'n')), sum(JSONLength(concat('[', repeat('1,', number % 5), '0]'))), countIf(isValidJSON(if(number % 3 = 0, 'x', '{}'))) FROM numbers(1000);
