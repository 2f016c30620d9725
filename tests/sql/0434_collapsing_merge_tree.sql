-- CollapsingMergeTree: rows of one sorting key cancel out by their Int8 sign.
CREATE TABLE c (k UInt32, v String, s Int8) ENGINE = CollapsingMergeTree(s) ORDER BY k;
-- One INSERT block is collapsed when written (optimize_on_insert): key 1 keeps its
-- last state, key 2 (two states) its last, key 3 (two cancels) its first, key 4 (state
-- then cancel) nothing.
INSERT INTO c VALUES (1, 'a', 1), (1, 'a', -1), (1, 'b', 1), (2, 'x', 1), (2, 'y', 1), (3, 'p', -1), (3, 'q', -1), (4, 'm', 1), (4, 'n', -1);
SELECT * FROM c ORDER BY k, s, v;
INSERT INTO c VALUES (2, 'w', -1), (4, 'o', -1), (5, 'e', -1), (5, 'f', 1), (6, 'g', 1);
INSERT INTO c VALUES (6, 'g', -1), (6, 'h', 1), (7, 'i', -1);
-- FINAL collapses across parts and shows no cancel row.
SELECT * FROM c FINAL ORDER BY k, s, v;
SELECT k, sum(s) FROM c GROUP BY k HAVING sum(s) > 0 ORDER BY k;
OPTIMIZE TABLE c FINAL;
SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 'c' AND active;
-- A merge keeps unmatched cancels (5: cancel then state keeps both).
SELECT * FROM c ORDER BY k, s, v;
SELECT * FROM c FINAL ORDER BY k, s, v;
-- Signs other than 1 and -1 are refused; nothing of the INSERT is kept.
INSERT INTO c VALUES (8, 'z', 1), (9, 'z', 0); -- { serverError INCORRECT_DATA }
INSERT INTO c VALUES (9, 'z', 2); -- { serverError INCORRECT_DATA }
SELECT count() FROM c WHERE k >= 8;
-- Composite keys and partitions.
CREATE TABLE cp (d Date, id UInt64, n Int64, s Int8) ENGINE = CollapsingMergeTree(s) PARTITION BY toYYYYMM(d) ORDER BY (id, d);
INSERT INTO cp SELECT toDate('2024-01-01') + number % 40, number % 7, number, 1 FROM numbers(100);
INSERT INTO cp SELECT toDate('2024-01-01') + number % 40, number % 7, number, -1 FROM numbers(50);
SELECT count(), sum(n), sum(s) FROM cp FINAL;
SELECT toYYYYMM(d) AS m, id, count() FROM cp FINAL GROUP BY m, id ORDER BY m, id;
OPTIMIZE TABLE cp FINAL;
SELECT count(), sum(n * s), sum(s) FROM cp;
SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'c';
-- The sign column must exist and be Int8.
CREATE TABLE bad1 (k UInt32, s UInt8) ENGINE = CollapsingMergeTree(s) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
CREATE TABLE bad2 (k UInt32, s Nullable(Int8)) ENGINE = CollapsingMergeTree(s) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
CREATE TABLE bad3 (k UInt32, s Int8) ENGINE = CollapsingMergeTree(x) ORDER BY k; -- { serverError NO_SUCH_COLUMN_IN_TABLE }
CREATE TABLE bad4 (k UInt32, s Int8) ENGINE = CollapsingMergeTree ORDER BY k; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
