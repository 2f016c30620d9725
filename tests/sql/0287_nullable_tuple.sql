-- Nullable(Tuple(...)) is a type of its own (ClickHouse 25+): if/NULL, toNullable and arrays with NULL make it; isNull, ifNull, tupleElement (NULL for a NULL tuple) and assumeNotNull read it.
SELECT if(number > 1, NULL, (1, 'a')) AS t, toTypeName(t), isNull(t), ifNull(t, (2, 'b')), tupleElement(t, 1), t.2 FROM numbers(3);
SELECT if(number > 1, NULL, (1, 'a')) AS t, isNull(t), tupleElement(t, 2) FROM numbers(3) FORMAT JSONEachRow;
SELECT toTypeName(ifNull(t, (2, 'b'))), toTypeName(assumeNotNull(t)), toTypeName(tupleElement(t, 1)), toTypeName(t.2) FROM (SELECT if(number > 1, NULL, (1, 'a')) AS t FROM numbers(3)) LIMIT 1;
SELECT assumeNotNull(t) FROM (SELECT if(number > 1, NULL, (1, 'a')) AS t FROM numbers(2));
SELECT toTypeName(toNullable((1, 'a')));
SELECT [(1, 'a'), NULL] AS x, toTypeName(x);
SELECT CAST(NULL, 'Nullable(Tuple(a UInt8, b String))') AS t, toTypeName(t), tupleElement(t, 'a'), isNull(t);
SELECT CAST((1, 'x'), 'Nullable(Tuple(a UInt8, b String))') AS t, toTypeName(t) FORMAT TSVWithNamesAndTypes;
SELECT if(number > 1, (1, 'a'), (2000, 'b')) AS x, toTypeName(x) FROM numbers(3);
DROP TABLE IF EXISTS nt_0287;
CREATE TABLE nt_0287 (k UInt8, t Nullable(Tuple(a UInt8, b String))) ENGINE = Memory;
INSERT INTO nt_0287 VALUES (1, (1, 'x')), (2, NULL);
INSERT INTO nt_0287 SELECT 3, if(number = 0, NULL, (3, 'z')) FROM numbers(1);
SELECT k, t, isNull(t), t.a FROM nt_0287 ORDER BY k;
SELECT k, t FROM nt_0287 ORDER BY k FORMAT JSONEachRow;
SELECT toTypeName(t) FROM nt_0287 LIMIT 1;
DROP TABLE nt_0287;
DROP TABLE IF EXISTS nt_mt_0287;
CREATE TABLE nt_mt_0287 (k UInt8, t Nullable(Tuple(a UInt8, b String))) ENGINE = MergeTree ORDER BY k;
INSERT INTO nt_mt_0287 VALUES (1, NULL), (2, (3, 'q'));
INSERT INTO nt_mt_0287 FORMAT JSONEachRow {"k":3,"t":null} {"k":4,"t":{"a":5,"b":"r"}}
;
SELECT *, t.a, isNull(t) FROM nt_mt_0287 ORDER BY k;
DROP TABLE nt_mt_0287;
