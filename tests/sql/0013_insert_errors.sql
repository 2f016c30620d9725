-- bad INSERT rows fail as a whole: nothing of the failed INSERT is visible afterwards
CREATE TABLE t (id UInt32, name String, d Date, n Nullable(Int8)) ENGINE = Memory;
INSERT INTO t VALUES (1, 'a', '2024-01-01', 1);
INSERT INTO t VALUES (2, 'b', '2024-01-02', 2), ('x', 'c', '2024-01-03', 3); -- { serverError CANNOT_PARSE_TEXT }
SELECT count() FROM t;
INSERT INTO t VALUES (2, 'b', '2024-01-02', 2), (3, 'c', 'not a date', 3); -- { serverError CANNOT_PARSE_DATE }
SELECT count() FROM t;
INSERT INTO t VALUES (2, 'b', '2024-01-02', 2), (3, 'c'); -- { serverError SYNTAX_ERROR }
SELECT count() FROM t;
INSERT INTO t VALUES (2, 'b', '2024-01-02', 2), (3, 'c', '2024-01-03', 3, 4); -- { serverError SYNTAX_ERROR }
SELECT count() FROM t;
INSERT INTO t VALUES (2, 'unterminated); -- { serverError SYNTAX_ERROR }
SELECT count() FROM t;
INSERT INTO t FORMAT CSV 2,b,2024-01-02,2
3,c,garbage,3
; -- { serverError CANNOT_PARSE_DATE }
SELECT count() FROM t;
INSERT INTO t FORMAT CSV 2,b,2024-01-02,2
x,c,2024-01-03,3
; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT count() FROM t;
INSERT INTO t FORMAT CSV 2,b,2024-01-02,2
3,c,2024-01-03,x
; -- { serverError INCORRECT_DATA }
SELECT count() FROM t;
INSERT INTO t FORMAT TSV 2	b	2024-01-02	2
x	c	2024-01-03	3
; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT count() FROM t;
INSERT INTO t FORMAT JSONEachRow {"id": 2, "name": "b"} {"id": "three", "name": "c"}; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT count() FROM t;
INSERT INTO t FORMAT JSONEachRow {"id": 2, "name": "b"} {"id": 3, "name": "c"; -- { serverError CANNOT_READ_ALL_DATA }
SELECT count() FROM t;
INSERT INTO t SELECT number, 'x', today(), NULL FROM numbers(3) WHERE throwIf(number = 2, 'boom') = 0; -- { serverError FUNCTION_THROW_IF_VALUE_IS_NON_ZERO }
SELECT count() FROM t;
INSERT INTO t SELECT toUInt32('nope'), 'x', today(), NULL; -- { serverError CANNOT_PARSE_TEXT }
INSERT INTO t (id, nope) VALUES (1, 2); -- { serverError NO_SUCH_COLUMN_IN_TABLE }
INSERT INTO t (id, id) VALUES (1, 2); -- { serverError DUPLICATE_COLUMN }
INSERT INTO missing VALUES (1); -- { serverError UNKNOWN_TABLE }
INSERT INTO t FORMAT NoSuchFormat 1; -- { serverError UNKNOWN_FORMAT }
SELECT * FROM t;
