-- values(): with a structure, tuples or single values; without one, columns c1, c2...
SELECT * FROM values('a UInt8, b String', (1, 'x'), (2, 'y')) FORMAT TSVWithNamesAndTypes;
SELECT * FROM values((1, 'x'), (2, 'y')) FORMAT TSVWithNamesAndTypes;
SELECT * FROM values(1, 2, 300) FORMAT TSVWithNamesAndTypes;
SELECT * FROM values('a Nullable(UInt8)', NULL, 3) FORMAT TSVWithNamesAndTypes;
SELECT * FROM values('x Date, y Array(UInt8)', ('2020-01-01', [1, 2]), ('2021-03-04', [])) FORMAT TSVWithNamesAndTypes;
SELECT * FROM values('person String', 'Noah', 'Emma') FORMAT TSVWithNamesAndTypes;
SELECT sum(a), groupArray(b) FROM values('a UInt32, b String', (10, 'p'), (20, 'q'), (30, 'r'));
SELECT * FROM values('a UInt8', 1, 'x'); -- { serverError TYPE_MISMATCH }
-- format(): given or inferred structure
SELECT * FROM format(CSV, 'a UInt8, b String', '1,x\n2,y') FORMAT TSVWithNamesAndTypes;
SELECT * FROM format(CSV, '1,x\n2,y') FORMAT TSVWithNamesAndTypes;
SELECT * FROM format(JSONEachRow, '{"a":1,"b":"x"}\n{"a":2}') FORMAT TSVWithNamesAndTypes;
SELECT * FROM format(TSVWithNames, 'k\tv\n1\tone\n2\ttwo') ORDER BY k FORMAT TSVWithNamesAndTypes;
SELECT count() FROM format(CSV, 'a UInt8', '1\n2\n3');
SELECT * FROM format(CSV, 'a UInt8', 'x'); -- { serverError INCORRECT_DATA }
SELECT * FROM format(NoSuchFormat, 'a UInt8', '1'); -- { serverError UNKNOWN_FORMAT }
-- generateRandom(): seeded, endless; its values are not ClickHouse's, so only shapes are compared
SELECT toTypeName(a), toTypeName(b), toTypeName(c) FROM generateRandom('a UInt8, b String, c Array(Nullable(Int32))', 1, 10, 2) LIMIT 1;
SELECT count() FROM (SELECT * FROM generateRandom('a UInt8, b String', 1, 10, 2) LIMIT 7);
SELECT max(length(s)) <= 5, max(length(arr)) <= 3, count() FROM (SELECT * FROM generateRandom('s String, arr Array(UInt8)', 42, 5, 3) LIMIT 1000);
SELECT countIf(d >= '1970-01-01') FROM (SELECT * FROM generateRandom('d Date', 3) LIMIT 100);
SELECT count() FROM (SELECT * FROM generateRandom('e Enum8(\'a\' = 1, \'b\' = 2)', 3) LIMIT 50) WHERE e IN ('a', 'b');
-- ENGINE = GenerateRandom
CREATE TABLE gr (a UInt8, s String, m Map(String, UInt64)) ENGINE = GenerateRandom(1, 5, 3);
SELECT count(), max(length(s)) <= 5, max(length(m)) <= 3 FROM (SELECT * FROM gr LIMIT 100);
SELECT engine, engine_full, total_rows FROM system.tables WHERE database = currentDatabase() AND name = 'gr';
SHOW CREATE TABLE gr;
INSERT INTO gr VALUES (1, 'x', map('k', 1)); -- { serverError NOT_IMPLEMENTED }
TRUNCATE TABLE gr; -- { serverError NOT_IMPLEMENTED }
SELECT name FROM system.table_functions WHERE name IN ('values', 'format', 'generateRandom') ORDER BY name;
SELECT name FROM system.table_engines WHERE name = 'GenerateRandom';
