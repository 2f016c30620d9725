-- The other MergeTree virtual columns: starting offsets, granules, block numbers and the constant ones.
CREATE TABLE t (a UInt32, s String) ENGINE = MergeTree PARTITION BY a % 2 ORDER BY a SETTINGS index_granularity = 3;
SYSTEM STOP MERGES t;
INSERT INTO t SELECT number, toString(number) FROM numbers(7);
INSERT INTO t SELECT number + 100, toString(number) FROM numbers(4);
SELECT _part, _part_index, _part_starting_offset, _part_offset, _part_granule_offset, _part_data_version, _block_number, _block_offset, a FROM t ORDER BY a;
SELECT _row_exists, _disk_name, _sample_factor, _distance, count() FROM t GROUP BY ALL;
SELECT toTypeName(_part_starting_offset), toTypeName(_part_granule_offset), toTypeName(_part_data_version), toTypeName(_block_number), toTypeName(_block_offset), toTypeName(_row_exists), toTypeName(_disk_name), toTypeName(_sample_factor), toTypeName(_distance) FROM t LIMIT 1;
-- Starting offsets and part indexes count every active part, also those the filters drop.
SELECT _part, _part_index, _part_starting_offset, _part_offset, a FROM t WHERE _part = '1_2_2_0' ORDER BY a;
SELECT _part_starting_offset, _part_offset, a FROM t WHERE a >= 100 ORDER BY a;
SELECT a, _part_granule_offset, _block_offset FROM t PREWHERE a IN (5, 6, 102) ORDER BY a;
SELECT a FROM t WHERE _part_granule_offset = 1 ORDER BY a;
SELECT a FROM t WHERE _block_number = 3 AND _block_offset = 1;
SELECT _block_number, count(), min(_block_offset), max(_block_offset) FROM t GROUP BY _block_number ORDER BY _block_number;
SELECT count() FROM t WHERE _part_data_version = 4 AND _row_exists = 1 AND _disk_name = 'default';
-- A merged part: the block number is its min block, the block offset the row in the part.
CREATE TABLE m (a UInt32) ENGINE = MergeTree ORDER BY a SETTINGS index_granularity = 2;
INSERT INTO m SELECT number * 2 FROM numbers(3);
INSERT INTO m SELECT number * 2 + 1 FROM numbers(3);
OPTIMIZE TABLE m FINAL;
SELECT _part, _part_starting_offset, _part_offset, _part_granule_offset, _part_data_version, _block_number, _block_offset, a FROM m ORDER BY a;
-- Under FINAL each surviving row keeps the values of its version.
CREATE TABLE r (k UInt32, v String, ver UInt32) ENGINE = ReplacingMergeTree(ver) ORDER BY k SETTINGS index_granularity = 2;
SYSTEM STOP MERGES r;
INSERT INTO r SELECT number, 'a' || toString(number), 1 FROM numbers(5);
INSERT INTO r SELECT number * 2, 'b' || toString(number), 2 FROM numbers(3);
SELECT k, v, _part_starting_offset, _part_granule_offset, _block_number, _block_offset, _part_data_version FROM r FINAL ORDER BY k;
SELECT k, v FROM r FINAL WHERE _part_granule_offset = 1 ORDER BY k;
