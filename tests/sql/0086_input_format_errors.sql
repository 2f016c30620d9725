-- Error codes of bad numbers and truncated rows in text input formats, as ClickHouse reports them
CREATE TABLE t (s String, id UInt32, n Nullable(Int8), f Float64) ENGINE = Memory;
INSERT INTO t FORMAT CSV a,x,1,1.5
; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO t FORMAT CSV a,3x,1,1.5
; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO t FORMAT CSV a,3,1,x
; -- { serverError CANNOT_PARSE_NUMBER }
INSERT INTO t FORMAT CSV a,3,1,1.5x
; -- { serverError INCORRECT_DATA }
INSERT INTO t FORMAT CSV a,3,x,1.5
; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO t FORMAT CSV a,"x",1,1.5
; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO t FORMAT TSV a	x	1	1.5
; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO t FORMAT TSV a	3	1	1.5x
; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO t FORMAT JSONEachRow {"id": "three"}; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO t FORMAT JSONEachRow {"id": "x"}; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO t FORMAT JSONEachRow {"f": "fifty"}; -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
INSERT INTO t FORMAT JSONEachRow {"id": 1} {"id": 2; -- { serverError CANNOT_READ_ALL_DATA }
INSERT INTO t FORMAT CSV a,"5",,2
b,6,\N,3
;
INSERT INTO t FORMAT JSONEachRow {"s": "c", "id": "7", "f": "4.5"};
SELECT * FROM t ORDER BY id;
CREATE TABLE arrays (a Array(String), t Tuple(String, UInt8)) ENGINE = Memory;
INSERT INTO arrays FORMAT TSV ['it\'s','tab\there']	('q\'uote',1)
;
SELECT * FROM arrays;
SELECT 'x"y' AS a, 1 AS b FORMAT CSV SETTINGS output_format_csv_crlf_end_of_line = 1;
