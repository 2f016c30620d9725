-- Background merges follow ClickHouse's SimpleMergeSelector: a few fresh small parts stay
-- as they are, so an OPTIMIZE FINAL soon after them merges them itself (level 1, or one
-- more than the INSERT blocks' level), as in ClickHouse; STOP/START MERGES fix the order.
CREATE TABLE plain (k UInt32, v UInt32) ENGINE = MergeTree ORDER BY k;
SYSTEM STOP MERGES plain;
INSERT INTO plain VALUES (1, 1);
INSERT INTO plain VALUES (2, 2);
INSERT INTO plain VALUES (3, 3);
SYSTEM START MERGES plain;
SELECT sleep(1) FORMAT Null;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'plain' AND active ORDER BY name;
OPTIMIZE TABLE plain FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'plain' AND active ORDER BY name;
-- A plain OPTIMIZE merges them whatever their number; OPTIMIZE FINAL then merges the
-- merged part again.
INSERT INTO plain VALUES (4, 4);
OPTIMIZE TABLE plain;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'plain' AND active ORDER BY name;
OPTIMIZE TABLE plain FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'plain' AND active ORDER BY name;

-- Collapsed INSERT blocks are level 1: OPTIMIZE FINAL makes level 2.
CREATE TABLE replacing (k UInt32, v UInt32) ENGINE = ReplacingMergeTree ORDER BY k;
INSERT INTO replacing VALUES (1, 1);
INSERT INTO replacing VALUES (1, 2);
INSERT INTO replacing VALUES (2, 3);
SELECT sleep(1) FORMAT Null;
OPTIMIZE TABLE replacing FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'replacing' AND active ORDER BY name;
SELECT * FROM replacing ORDER BY ALL;

-- Partitions are merged one by one, each from its own parts.
CREATE TABLE parted (p UInt8, k UInt32) ENGINE = SummingMergeTree PARTITION BY p ORDER BY k;
INSERT INTO parted SETTINGS optimize_on_insert = 0 VALUES (1, 1), (2, 1);
INSERT INTO parted SETTINGS optimize_on_insert = 0 VALUES (1, 2), (2, 2);
INSERT INTO parted SETTINGS optimize_on_insert = 0 VALUES (2, 3);
SELECT sleep(1) FORMAT Null;
OPTIMIZE TABLE parted FINAL;
SELECT name, level, rows FROM system.parts WHERE database = currentDatabase() AND table = 'parted' AND active ORDER BY name;
