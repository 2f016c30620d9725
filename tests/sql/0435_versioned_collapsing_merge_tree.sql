-- VersionedCollapsingMergeTree(sign, version): rows of one key and version cancel in
-- pairs of opposite sign, whatever order they arrive in.
CREATE TABLE v (k UInt32, x String, s Int8, ver UInt16) ENGINE = VersionedCollapsingMergeTree(s, ver) ORDER BY k;
SELECT sorting_key, primary_key FROM system.tables WHERE database = currentDatabase() AND name = 'v';
INSERT INTO v VALUES (1, 'a', 1, 1), (1, 'a', -1, 1), (1, 'b', 1, 2), (2, 'x', 1, 1), (2, 'y', 1, 1), (3, 'p', -1, 1), (3, 'q', 1, 1), (3, 'r', 1, 1), (4, 'm', -1, 5), (4, 'n', 1, 4);
SELECT * FROM v ORDER BY k, ver, x;
-- The cancel may come first (key 6), and signs are not checked (key 5).
INSERT INTO v VALUES (1, 'c', -1, 2), (2, 'z', -1, 1), (4, 'n', -1, 4), (5, 'e', 0, 1), (5, 'f', 3, 1), (6, 'g', -1, 7);
INSERT INTO v VALUES (6, 'g', 1, 7), (6, 'h', 1, 8);
SELECT * FROM v FINAL ORDER BY k, ver, x;
OPTIMIZE TABLE v FINAL;
SELECT * FROM v ORDER BY k, ver, x;
SELECT * FROM v WHERE k = 6 ORDER BY ver;
-- Version already in ORDER BY; Date/DateTime versions.
CREATE TABLE v2 (k UInt32, s Int8, ver UInt8) ENGINE = VersionedCollapsingMergeTree(s, ver) ORDER BY (k, ver);
CREATE TABLE v3 (k UInt32, s Int8, ver DateTime) ENGINE = VersionedCollapsingMergeTree(s, ver) PARTITION BY k % 2 ORDER BY k;
INSERT INTO v3 SELECT number % 10, 1, toDateTime('2024-01-01 00:00:00') + number FROM numbers(40);
INSERT INTO v3 SELECT number % 10, -1, toDateTime('2024-01-01 00:00:00') + number FROM numbers(25);
SELECT count(), sum(s) FROM v3 FINAL;
SELECT k, count() FROM v3 FINAL GROUP BY k ORDER BY k;
SELECT name, sorting_key FROM system.tables WHERE database = currentDatabase() AND name IN ('v2', 'v3') ORDER BY name;
CREATE TABLE bad1 (k UInt32, s Int8, ver String) ENGINE = VersionedCollapsingMergeTree(s, ver) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
CREATE TABLE bad2 (k UInt32, s Int8, ver UInt8) ENGINE = VersionedCollapsingMergeTree(s) ORDER BY k; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
CREATE TABLE bad3 (k UInt32, s UInt8, ver UInt8) ENGINE = VersionedCollapsingMergeTree(s, ver) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
CREATE TABLE bad4 (k UInt32, x String) ENGINE = ReplacingMergeTree(x) ORDER BY k; -- { serverError BAD_TYPE_OF_FIELD }
