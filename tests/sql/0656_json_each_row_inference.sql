-- Schema inference reads JSONEachRow objects however they are separated, as ClickHouse does.
SELECT * FROM format(JSONEachRow, '{"a":1}{"a":2}');
SELECT * FROM format(JSONEachRow, '[{"a":1},{"a":2}]');
SELECT * FROM format(JSONEachRow, '{"a":1,
"b": "x"}
{"a":2, "b": "y"}');
SELECT * FROM format(JSONEachRow, '{"a":1} garbage'); -- { serverError CANNOT_EXTRACT_TABLE_STRUCTURE }
