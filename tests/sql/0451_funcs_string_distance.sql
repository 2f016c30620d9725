-- String distances and similarities: bytes vs UTF-8, empty strings, table columns, NULLs.
DROP TABLE IF EXISTS pairs;
CREATE TABLE pairs (id UInt32, a String, b Nullable(String)) ENGINE = MergeTree ORDER BY id;
INSERT INTO pairs VALUES (1, 'kitten', 'sitting'), (2, 'MARTHA', 'MARHTA'), (3, '', 'abc'), (4, 'ca', 'abc'), (5, 'clickhouse', NULL), (6, 'я тут', 'я там'), (7, 'dixon', 'dicksonx');
SELECT id, editDistance(a, b), levenshteinDistance(a, 'mouse'), editDistanceUTF8(a, b), damerauLevenshteinDistance(a, b), byteHammingDistance(a, b) FROM pairs ORDER BY id;
SELECT id, jaroSimilarity(a, b), jaroWinklerSimilarity(a, b), stringJaccardIndex(a, b), stringJaccardIndexUTF8(a, b), toTypeName(jaroSimilarity(a, b)) FROM pairs ORDER BY id;
SELECT editDistance('clickhouse', 'mouse'), damerauLevenshteinDistance('ab', 'ba'), editDistanceUTF8('我是谁', '我是我'), jaroSimilarity('', ''), jaroWinklerSimilarity('xy', ''), stringJaccardIndex('', 'a'), jaroWinklerSimilarity('abc', 'abd');
SELECT editDistance(toFixedString('ab', 2), 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
