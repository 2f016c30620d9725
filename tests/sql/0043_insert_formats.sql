-- INSERT ... FORMAT X with the data inline after the query: every input format over the foundation types, read back
CREATE TABLE t_tsv (id UInt8, i64 Int64, u64 UInt64, f64 Float64, f32 Float32, b Bool, s String, fs FixedString(3), d Date, d32 Date32, dt DateTime, dt64 DateTime64(3), dec Decimal(10, 2), n Nullable(Int32), ns Nullable(String), lc LowCardinality(String), a Array(UInt16), as Array(String)) ENGINE = Memory;
INSERT INTO t_tsv FORMAT TSV
1	-9223372036854775808	18446744073709551615	0.1	1e21	true	tab\there	abc	2024-02-29	1900-01-01	2024-01-02 03:04:05	2024-01-02 03:04:05.678	-12.5	\N	x	low	[1,2]	['a','b\'c']
2	0	0	-0	inf	false			1970-01-01	2299-12-31	1970-01-01 00:00:00	1970-01-01 00:00:00.000	0	7	\N		[]	[]
3	42	42	nan	-inf	1	back\\slash\nnew	a\0b	2000-01-01	2000-01-01	2000-01-01 00:00:00	2000-01-01 00:00:00.1	99999999.99	-1	\\N	ü☃	[65535]	['']
;
SELECT * FROM t_tsv ORDER BY id;
CREATE TABLE t_tsvwithnames (id UInt8, i64 Int64, u64 UInt64, f64 Float64, f32 Float32, b Bool, s String, fs FixedString(3), d Date, d32 Date32, dt DateTime, dt64 DateTime64(3), dec Decimal(10, 2), n Nullable(Int32), ns Nullable(String), lc LowCardinality(String), a Array(UInt16), as Array(String)) ENGINE = Memory;
INSERT INTO t_tsvwithnames FORMAT TSVWithNames
id	s	f64	n
1	x	1.5	\N
2	y	-2	3
;
SELECT * FROM t_tsvwithnames ORDER BY id;
CREATE TABLE t_csv (id UInt8, i64 Int64, u64 UInt64, f64 Float64, f32 Float32, b Bool, s String, fs FixedString(3), d Date, d32 Date32, dt DateTime, dt64 DateTime64(3), dec Decimal(10, 2), n Nullable(Int32), ns Nullable(String), lc LowCardinality(String), a Array(UInt16), as Array(String)) ENGINE = Memory;
INSERT INTO t_csv FORMAT CSV
1,-1,1,0.5,0.25,true,"a,b",abc,2024-02-29,1900-01-01,"2024-01-02 03:04:05","2024-01-02 03:04:05.678",1.25,\N,"q""uote",lc,"[1,2]","['x','y']"
2,2,2,1e-7,3.5,false,"multi
line",,1970-01-01,1970-01-01,1970-01-01 00:00:00,1970-01-01 00:00:00.000,-0.01,5,,"",[],[]
3,3,3,inf,nan,0,plain,x,2024-01-01,2024-01-01,1700000000,1700000000.5,3,\N,\N,z,"[3]","[]"
;
SELECT * FROM t_csv ORDER BY id;
CREATE TABLE t_csvwithnames (id UInt8, i64 Int64, u64 UInt64, f64 Float64, f32 Float32, b Bool, s String, fs FixedString(3), d Date, d32 Date32, dt DateTime, dt64 DateTime64(3), dec Decimal(10, 2), n Nullable(Int32), ns Nullable(String), lc LowCardinality(String), a Array(UInt16), as Array(String)) ENGINE = Memory;
INSERT INTO t_csvwithnames FORMAT CSVWithNames
ns,id,s
"n1",1,"s1"
,2,s2
;
SELECT * FROM t_csvwithnames ORDER BY id;
CREATE TABLE t_jsoneachrow (id UInt8, i64 Int64, u64 UInt64, f64 Float64, f32 Float32, b Bool, s String, fs FixedString(3), d Date, d32 Date32, dt DateTime, dt64 DateTime64(3), dec Decimal(10, 2), n Nullable(Int32), ns Nullable(String), lc LowCardinality(String), a Array(UInt16), as Array(String)) ENGINE = Memory;
INSERT INTO t_jsoneachrow FORMAT JSONEachRow
{"id":1,"i64":-1,"u64":"18446744073709551615","f64":0.1,"f32":1e21,"b":true,"s":"tab\there \"q\" \u00fc","fs":"abc","d":"2024-02-29","d32":"1900-01-01","dt":"2024-01-02 03:04:05","dt64":"2024-01-02 03:04:05.678","dec":-12.5,"n":null,"ns":"x","lc":"low","a":[1,2],"as":["a","b"]}
{"id":2,"s":"only some columns","n":7}
{"id":3,"f64":"1.5","b":false,"d":19000,"dt":1700000000,"a":[],"as":[],"unknown_key":1}
;
SELECT * FROM t_jsoneachrow ORDER BY id;
CREATE TABLE t_values (id UInt8, i64 Int64, u64 UInt64, f64 Float64, f32 Float32, b Bool, s String, fs FixedString(3), d Date, d32 Date32, dt DateTime, dt64 DateTime64(3), dec Decimal(10, 2), n Nullable(Int32), ns Nullable(String), lc LowCardinality(String), a Array(UInt16), as Array(String)) ENGINE = Memory;
INSERT INTO t_values VALUES (1, -1, 1, 0.5, 0.25, true, 'it''s', 'abc', '2024-02-29', '1900-01-01', '2024-01-02 03:04:05', '2024-01-02 03:04:05.678', 1.25, NULL, 'x', 'lc', [1, 2], ['a', 'b']), (2, 2, 2, -1e-7, 3.5, false, 'esc\\aped\n', '', '1970-01-01', '1970-01-01', '1970-01-01 00:00:00', '1970-01-01 00:00:00.000', -0.01, 5, NULL, '', [], []);
SELECT * FROM t_values ORDER BY id;
SELECT * FROM t_jsoneachrow ORDER BY id FORMAT JSONEachRow;
INSERT INTO t_tsv FORMAT TSV
; -- { serverError NO_DATA_TO_INSERT }
SELECT count() FROM t_tsv;
