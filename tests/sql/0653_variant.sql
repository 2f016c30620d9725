-- Variant(T1, ...): tables, text input choosing the type by parsing, output, variantType,
-- variantElement, v.T subcolumns, CAST.
SELECT toTypeName(1::Variant(UInt64, String)), toTypeName(CAST(NULL AS Variant(String, Array(UInt8), Date)));
SELECT 'a'::Variant(UInt64, String) AS v, variantType(v), toTypeName(variantType(v));
SELECT 1::Variant(UInt64, String) AS v, variantType(v), '5'::Variant(UInt64, String) AS w, variantType(w), NULL::Variant(UInt64, String) AS n, variantType(n);
SELECT toUInt64(7)::Variant(UInt64, String) AS v, variantElement(v, 'UInt64'), variantElement(v, 'String'), toTypeName(variantElement(v, 'UInt64'));
SELECT variantElement(1::Variant(UInt64, String), 'Date'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT variantType(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT 1::Variant(UInt64, Nullable(String)); -- { serverError BAD_ARGUMENTS }

CREATE TABLE v_mem (k UInt32, v Variant(UInt64, String, Array(UInt64))) ENGINE = Memory;
INSERT INTO v_mem VALUES (1, 42), (2, 'hello'), (3, [1, 2]), (4, NULL), (5, '43');
SELECT k, v, variantType(v), variantElement(v, 'UInt64'), v.String, toTypeName(v), toTypeName(v.String) FROM v_mem ORDER BY k;

CREATE TABLE v_mt (k UInt32, v Variant(UInt64, String, Array(UInt64), Float64, Date)) ENGINE = MergeTree ORDER BY k;
INSERT INTO v_mt FORMAT TSV 1	42
2	hello
3	[1,2]
4	\N
5	-1
6	1.5
7	2024-01-01
;
INSERT INTO v_mt FORMAT JSONEachRow {"k": 9, "v": "12"} {"k": 10, "v": 13} {"k": 11, "v": [1]} {"k": 12, "v": null} {"k": 13, "v": "abc"}
;
INSERT INTO v_mt VALUES (14, 'x'), (15, -2.5), (16, [7, 8]), (17, NULL);
SELECT k, v, variantType(v) FROM v_mt ORDER BY k;
SELECT k, v.Float64, v.Date, v.UInt64, variantElement(v, 'String') FROM v_mt ORDER BY k;
SELECT variantType(v) AS t, count() FROM v_mt GROUP BY t ORDER BY t;
SELECT k FROM v_mt WHERE variantType(v) = 'String' ORDER BY k;
SELECT k FROM v_mt WHERE v IS NULL ORDER BY k;
SELECT k, v FROM v_mt ORDER BY k FORMAT JSONEachRow;
SELECT k, v FROM v_mt ORDER BY k FORMAT CSV;
SELECT k, v FROM v_mt WHERE k < 5 ORDER BY k FORMAT Values;
SELECT k, v FROM v_mt WHERE k IN (1, 2, 4) ORDER BY k FORMAT TSVWithNamesAndTypes;
DESCRIBE TABLE v_mt;
