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
CREATE TABLE j (a UInt8, b String, c Nullable(Float64)) ENGINE = Memory;
INSERT INTO j FORMAT JSON {"meta": [{"name": "a", "type": "UInt8"}, {"name": "b", "type": "String"}], "data": [{"a": 1, "b": "x"}, {"b": "only b"}], "rows": 2, "statistics": {"elapsed": 0.1}};
INSERT INTO j FORMAT JSONCompact {"meta": [{"name": "c", "type": "Nullable(Float64)"}, {"name": "a", "type": "UInt8"}], "data": [[1.5, 3], [null, 4]], "rows": 2};
INSERT INTO j FORMAT JSON {"meta": [{"name": "a", "type": "UInt8"}], "data": []};
SELECT * FROM j ORDER BY a, b;
SELECT a, b FROM j ORDER BY a, b FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
CREATE TABLE w (x Int8, y UInt8, z UInt32, v Int64, u UInt64) ENGINE = Memory;
INSERT INTO w FORMAT CSV 1000,300,4294967297,9223372036854775808,18446744073709551616
;
INSERT INTO w FORMAT TSV -129	256	1	-9223372036854775809	2
;
INSERT INTO w FORMAT JSONEachRow {"x": 200, "y": 511, "z": 4294967296, "v": 3, "u": 3};
INSERT INTO w FORMAT CSV 1,-1,1,1,1
; -- { serverError CANNOT_PARSE_NUMBER }
SELECT * FROM w ORDER BY u;
