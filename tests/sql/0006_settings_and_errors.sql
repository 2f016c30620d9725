SET max_threads = 2;
SELECT 1 SETTINGS max_threads = 1;
SELECT 1 SETTINGS no_such_setting = 1; -- { serverError UNKNOWN_SETTING }
SELECT * FROM no_such_table; -- { serverError UNKNOWN_TABLE }
SELECT * FROM no_such_db.t; -- { serverError UNKNOWN_DATABASE }
SELEC 1; -- { serverError SYNTAX_ERROR }
SELECT no_such_function(1); -- { serverError UNKNOWN_FUNCTION }
SHOW SETTINGS LIKE 'max_block_siz%';
USE no_such_db; -- { serverError UNKNOWN_DATABASE }
SELECT toUInt64('abc'); -- { serverError CANNOT_PARSE_TEXT }
SELECT 'still working';
