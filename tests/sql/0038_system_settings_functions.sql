-- system.settings, system.functions, system.build_options, system.formats: stable columns only
SELECT name, value, changed, type FROM system.settings WHERE name IN ('max_threads', 'max_block_size', 'max_execution_time', 'readonly', 'output_format_json_quote_64bit_integers', 'date_time_output_format', 'join_use_nulls') AND name != 'max_threads' ORDER BY name;
SELECT name, changed FROM system.settings WHERE name = 'max_threads';
SELECT name, value, changed FROM system.settings WHERE name = 'max_block_size' SETTINGS max_block_size = 1234;
SELECT count() > 100 FROM system.settings;
SELECT name, type, default FROM system.settings WHERE name = 'max_result_rows';
SELECT name, is_aggregate, case_insensitive FROM system.functions WHERE name IN ('count', 'sum', 'avg', 'min', 'max', 'any', 'uniqExact', 'groupArray', 'toString', 'toUInt64', 'toDateTime', 'concat', 'length', 'if', 'multiIf', 'now', 'plus', 'numbers') ORDER BY name;
SELECT name, alias_to FROM system.functions WHERE name IN ('substr', 'lcase', 'ucase', 'mid') ORDER BY name;
SELECT count() > 100, countIf(is_aggregate) > 10 FROM system.functions;
SELECT count() FROM system.build_options WHERE name IN ('VERSION_FULL', 'VERSION_DESCRIBE', 'SYSTEM');
SELECT name, is_input, is_output FROM system.formats WHERE name IN ('TabSeparated', 'TabSeparatedWithNames', 'TabSeparatedWithNamesAndTypes', 'CSV', 'CSVWithNames', 'JSONEachRow', 'JSON', 'JSONCompact', 'Values', 'Pretty', 'PrettyCompact', 'Null') ORDER BY name;
SELECT name FROM system.table_engines WHERE name IN ('Memory', 'Null') ORDER BY name;
SHOW SETTINGS LIKE 'max_block_siz%';
SHOW SETTING max_block_size;
