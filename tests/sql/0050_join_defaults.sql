-- join_use_nulls = 0 (the default): the unmatched side of an outer join gets its type's
-- default, Nullable columns stay NULL, USING keys show the matched side's key.
CREATE TABLE l (id UInt32, name String, d Date, n Nullable(Int32)) ENGINE = Memory;
CREATE TABLE r (id UInt32, score Float64, tag String, m Nullable(String)) ENGINE = Memory;
INSERT INTO l VALUES (1, 'a', '2024-01-02', 5), (2, 'b', '2024-01-03', NULL), (3, 'c', '2024-01-04', 7);
INSERT INTO r VALUES (2, 2.5, 'x', 'p'), (3, 3.5, 'y', NULL), (4, 4.5, 'z', 'q');
SELECT l.id, name, r.id, score, tag, m FROM l LEFT JOIN r ON l.id = r.id ORDER BY l.id;
SELECT l.id, name, d, n, r.id, score FROM l RIGHT JOIN r ON l.id = r.id ORDER BY r.id;
SELECT id, name, d, score, tag FROM l FULL JOIN r USING (id) ORDER BY id;
SELECT id, name, score FROM l LEFT JOIN r USING (id) ORDER BY id;
SELECT toTypeName(score), toTypeName(tag), toTypeName(m) FROM l LEFT JOIN r ON l.id = r.id LIMIT 1;
SELECT count(), sum(score), countIf(tag = '') FROM l LEFT JOIN r ON l.id = r.id;
SELECT l.id, score FROM l LEFT JOIN r ON l.id = r.id ORDER BY l.id SETTINGS join_use_nulls = 1;
SELECT toTypeName(score) FROM l LEFT JOIN r ON l.id = r.id LIMIT 1 SETTINGS join_use_nulls = 1;
