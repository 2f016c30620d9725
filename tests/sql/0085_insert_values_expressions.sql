-- INSERT ... VALUES: rows the literal parser rejects are evaluated as expressions and converted as CAST does; malformed rows and INSERT errors
CREATE TABLE t (id UInt32, i8 Int8, n Nullable(Int16), s String, d Date, f Float32, a Array(UInt8)) ENGINE = Memory;
INSERT INTO t VALUES (1, 1, 1, 'lit', '2024-01-02', 0.5, [1]), (2, 200, -40000, 7, 19000, 1e100, [256, 1 + 1]);
INSERT INTO t VALUES (3, -129, NULL, concat('a', 'b'), toDate('2024-02-29') + 1, 0x10, [0b11]), (4, 5, 6, 'after an expression row', '2024-03-01', 1., []);
INSERT INTO t (id, s) VALUES (-1, 'wraps'), (4294967297, 'wraps to one'), (7.9, 'truncated'), ('8', 'quoted number');
INSERT INTO t (id, i8, s) VALUES (9, 1, 'trailing comma', ) (10, 2, 'no comma between rows');
INSERT INTO t (id, n, s) VALUES (NULL, NULL, NULL), (11, 1 + 2 * 3, upper('expr'));
SELECT * FROM t ORDER BY id, s;
INSERT INTO t (id, s) VALUES (12, 'a'), (13); -- { serverError SYNTAX_ERROR }
INSERT INTO t (id, s) VALUES (12, 'a', 'b'); -- { serverError SYNTAX_ERROR }
INSERT INTO t (id, s) VALUES (12, 'unterminated); -- { serverError SYNTAX_ERROR }
INSERT INTO t (id, s) VALUES (12, 'a'), 5; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO t (id, s) VALUES ('x', 'a'); -- { serverError CANNOT_PARSE_TEXT }
INSERT INTO t (id, d) VALUES (12, 'not a date'); -- { serverError CANNOT_PARSE_DATE }
INSERT INTO t (id, s) VALUES (12, nosuchcolumn); -- { serverError UNKNOWN_IDENTIFIER }
INSERT INTO t (id, s) VALUES (12, nosuchfunction(1)); -- { serverError UNKNOWN_FUNCTION }
INSERT INTO t (id, id) VALUES (12, 13); -- { serverError DUPLICATE_COLUMN }
INSERT INTO t VALUES; -- { serverError NO_DATA_TO_INSERT }
INSERT INTO t FORMAT CSV
; -- { serverError NO_DATA_TO_INSERT }
SELECT count() FROM t;
CREATE TABLE nul (x UInt8) ENGINE = Null;
TRUNCATE TABLE nul; -- { serverError NOT_IMPLEMENTED }
CREATE TABLE lb (n UInt64) ENGINE = Memory;
INSERT INTO lb SELECT number FROM numbers(10) ORDER BY number LIMIT 1 BY number % 3;
INSERT INTO lb SELECT number FROM numbers(10) ORDER BY number DESC LIMIT 1 OFFSET 1 BY number % 3;
INSERT INTO lb SELECT number * 100 FROM numbers(10) ORDER BY number LIMIT 1 BY intDiv(number, 5);
SELECT * FROM lb ORDER BY n;
