-- SETTINGS and FORMAT clauses in queries, SET in a session, SHOW SETTINGS LIKE
SELECT number FROM numbers(3) SETTINGS max_threads = 1;
SELECT number FROM numbers(3) FORMAT CSV;
SELECT number FROM numbers(2) SETTINGS max_block_size = 1 FORMAT JSONEachRow;
SELECT number FROM numbers(2) FORMAT JSONEachRow SETTINGS max_block_size = 1;
SELECT getSetting('max_threads') SETTINGS max_threads = 3;
SELECT getSetting('max_block_size') SETTINGS max_block_size = 1000, max_threads = 2;
SELECT name, value, changed FROM system.settings WHERE name = 'max_block_size' SETTINGS max_block_size = 777;
SET max_block_size = 4321;
SELECT getSetting('max_block_size');
SELECT name, value, changed FROM system.settings WHERE name = 'max_block_size';
SELECT getSetting('max_block_size') SETTINGS max_block_size = 5;
SELECT getSetting('max_block_size');
SET max_block_size = 65409;
SELECT getSetting('max_block_size');
SET max_threads = 1, max_execution_time = 100;
SELECT getSetting('max_threads'), getSetting('max_execution_time');
SHOW SETTINGS LIKE 'max_block_size';
SHOW SETTINGS ILIKE 'MAX_EXECUTION_TIM_';
SHOW CHANGED SETTINGS LIKE 'max_execution_time';
SELECT 'a' AS x, 1 AS y FORMAT CSV SETTINGS format_csv_delimiter = ';';
SELECT 'a"b' AS x FORMAT CSV SETTINGS output_format_csv_crlf_end_of_line = 1;
SELECT 1 AS n FORMAT JSON SETTINGS output_format_write_statistics = 0, output_format_json_quote_64bit_integers = 0;
SELECT toUInt64(1) AS n FORMAT JSONEachRow SETTINGS output_format_json_quote_64bit_integers = 1;
SELECT toUInt64(1) AS n FORMAT JSONEachRow SETTINGS output_format_json_quote_64bit_integers = 0;
SELECT 1 SETTINGS no_such_setting = 1; -- { serverError UNKNOWN_SETTING }
SET no_such_setting = 1; -- { serverError UNKNOWN_SETTING }
SELECT 1 SETTINGS max_threads = 'many'; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT 1 FORMAT NoSuchFormat; -- { serverError UNKNOWN_FORMAT }
SELECT getSetting('no_such_setting'); -- { serverError UNKNOWN_SETTING }
