-- errors: unknown table/database/function/column/setting/type/engine/format, syntax errors, type errors; the server goes on afterwards
CREATE TABLE t (id UInt32, s String) ENGINE = Memory;
INSERT INTO t VALUES (1, 'a');
SELECT * FROM no_such_table; -- { serverError UNKNOWN_TABLE }
SELECT * FROM no_such_db.t; -- { serverError UNKNOWN_DATABASE }
SELECT no_such_function(1); -- { serverError UNKNOWN_FUNCTION }
SELECT no_such_column FROM t; -- { serverError UNKNOWN_IDENTIFIER }
SELECT t.nope FROM t; -- { serverError UNKNOWN_IDENTIFIER }
SELECT 1 SETTINGS no_such_setting = 1; -- { serverError UNKNOWN_SETTING }
SELECT CAST(1 AS NoSuchType); -- { serverError UNKNOWN_TYPE }
CREATE TABLE bad (x NoSuchType) ENGINE = Memory; -- { serverError UNKNOWN_TYPE }
CREATE TABLE bad (x UInt8) ENGINE = NoSuchEngine; -- { serverError UNKNOWN_STORAGE }
CREATE TABLE bad (x UInt8, x UInt8) ENGINE = Memory; -- { serverError ILLEGAL_COLUMN }
SELECT 1 FORMAT NoSuchFormat; -- { serverError UNKNOWN_FORMAT }
SELEC 1; -- { serverError SYNTAX_ERROR }
SELECT 1 +; -- { serverError SYNTAX_ERROR }
SELECT (1; -- { serverError SYNTAX_ERROR }
SELECT 'unterminated; -- { serverError SYNTAX_ERROR }
SELECT * FROM; -- { serverError SYNTAX_ERROR }
SELECT 1 FROM t WHERE; -- { serverError SYNTAX_ERROR }
CREATE TABLE (x UInt8) ENGINE = Memory; -- { serverError SYNTAX_ERROR }
SELECT 1 LIMIT 'a'; -- { serverError 440 }
SELECT 1 + 'a'; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT length(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sum('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toDate(1.5, 2, 3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT toUInt64('abc'); -- { serverError CANNOT_PARSE_TEXT }
SELECT toDate('2024-99'); -- { serverError CANNOT_PARSE_DATE }
SELECT CAST('x' AS Int32); -- { serverError CANNOT_PARSE_TEXT }
SELECT sum(count()) FROM t; -- { serverError ILLEGAL_AGGREGATION }
SELECT id, count() FROM t; -- { serverError NOT_AN_AGGREGATE }
SELECT throwIf(1, 'custom message'); -- { serverError FUNCTION_THROW_IF_VALUE_IS_NON_ZERO }
SELECT * FROM t WHERE s = 1; -- { serverError 386 }
DROP TABLE no_such_table; -- { serverError UNKNOWN_TABLE }
DROP DATABASE no_such_db_0039; -- { serverError UNKNOWN_DATABASE }
USE no_such_db_0039; -- { serverError UNKNOWN_DATABASE }
SHOW TABLES FROM no_such_db_0039; -- { serverError UNKNOWN_DATABASE }
INSERT INTO t VALUES (1); -- { serverError SYNTAX_ERROR }
SELECT count() FROM t;
SELECT 'still working';
