-- OPTIMIZE ... FINAL re-merges a partition's single part: the level goes up, and each
-- engine's merge runs again (duplicates, sums, collapsing, aggregate states).
CREATE TABLE plain (k UInt32, v UInt32) ENGINE = MergeTree ORDER BY k;
INSERT INTO plain VALUES (1, 1), (1, 2), (2, 3);
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'plain' AND active;
OPTIMIZE TABLE plain FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'plain' AND active;
OPTIMIZE TABLE plain FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'plain' AND active;
OPTIMIZE TABLE plain FINAL SETTINGS optimize_skip_merged_partitions = 1;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'plain' AND active;
SELECT * FROM plain ORDER BY ALL;

-- A fresh part (level 0) is merged even with optimize_skip_merged_partitions.
CREATE TABLE fresh (k UInt32, v UInt32) ENGINE = MergeTree ORDER BY k;
INSERT INTO fresh VALUES (2, 1), (1, 2);
OPTIMIZE TABLE fresh FINAL SETTINGS optimize_skip_merged_partitions = 1;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'fresh' AND active;

-- Partitions: only the named one is merged.
CREATE TABLE parted (p UInt8, k UInt32) ENGINE = MergeTree PARTITION BY p ORDER BY k;
INSERT INTO parted VALUES (1, 1), (2, 2);
OPTIMIZE TABLE parted PARTITION 2 FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'parted' AND active ORDER BY name;
OPTIMIZE TABLE parted FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'parted' AND active ORDER BY name;

-- An INSERT block of a collapsing engine is collapsed when written (level 1), and
-- OPTIMIZE FINAL merges it again.
CREATE TABLE replacing (k UInt32, v UInt32) ENGINE = ReplacingMergeTree ORDER BY k;
INSERT INTO replacing VALUES (1, 1), (1, 2), (2, 3);
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'replacing' AND active;
SELECT * FROM replacing ORDER BY ALL;
OPTIMIZE TABLE replacing FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'replacing' AND active;
OPTIMIZE TABLE replacing FINAL SETTINGS optimize_skip_merged_partitions = 1;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'replacing' AND active;

-- Without optimize_on_insert the block keeps its duplicates (level 0) until OPTIMIZE.
CREATE TABLE replacing_raw (k UInt32, v UInt32, ver UInt8) ENGINE = ReplacingMergeTree(ver) ORDER BY k;
INSERT INTO replacing_raw SETTINGS optimize_on_insert = 0 VALUES (1, 1, 2), (1, 2, 1), (2, 3, 1), (2, 4, 1);
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'replacing_raw' AND active;
SELECT * FROM replacing_raw ORDER BY ALL;
SELECT * FROM replacing_raw FINAL ORDER BY ALL;
OPTIMIZE TABLE replacing_raw FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'replacing_raw' AND active;
SELECT * FROM replacing_raw ORDER BY ALL;

CREATE TABLE summing (k UInt32, v UInt32) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO summing SETTINGS optimize_on_insert = 0 VALUES (1, 1), (1, 2), (2, 3);
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'summing' AND active;
OPTIMIZE TABLE summing FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'summing' AND active;
SELECT * FROM summing ORDER BY ALL;

CREATE TABLE collapsing (k UInt32, v UInt32, s Int8) ENGINE = CollapsingMergeTree(s) ORDER BY k;
INSERT INTO collapsing SETTINGS optimize_on_insert = 0 VALUES (1, 1, 1), (1, 1, -1), (2, 3, 1);
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'collapsing' AND active;
OPTIMIZE TABLE collapsing FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'collapsing' AND active;
SELECT * FROM collapsing ORDER BY ALL;

CREATE TABLE versioned (k UInt32, v UInt32, s Int8, ver UInt8) ENGINE = VersionedCollapsingMergeTree(s, ver) ORDER BY k;
INSERT INTO versioned SETTINGS optimize_on_insert = 0 VALUES (1, 1, 1, 1), (1, 1, -1, 1), (2, 3, 1, 1);
OPTIMIZE TABLE versioned FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'versioned' AND active;
SELECT * FROM versioned ORDER BY ALL;

CREATE TABLE aggregating (k UInt32, s SimpleAggregateFunction(sum, UInt64), u AggregateFunction(uniq, UInt32)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO aggregating SETTINGS optimize_on_insert = 0 SELECT number % 2, number, uniqState(toUInt32(number)) FROM numbers(6) GROUP BY number;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'aggregating' AND active;
OPTIMIZE TABLE aggregating FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'aggregating' AND active;
SELECT k, s, uniqMerge(u) FROM aggregating GROUP BY k, s ORDER BY k;

-- An empty table has nothing to merge.
CREATE TABLE empty (k UInt32) ENGINE = MergeTree ORDER BY k;
OPTIMIZE TABLE empty FINAL;
SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 'empty';
