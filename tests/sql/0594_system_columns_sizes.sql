-- system.columns reports each column's data summed over active parts; compact parts (columns in one file) report zeros, as ClickHouse does
CREATE TABLE compact_sizes (id UInt64, s String) ENGINE = MergeTree ORDER BY id;
INSERT INTO compact_sizes SELECT number, toString(number) FROM numbers(1000);
SELECT name, data_compressed_bytes, data_uncompressed_bytes, marks_bytes FROM system.columns WHERE database = currentDatabase() AND table = 'compact_sizes' ORDER BY name;
CREATE TABLE wide_sizes (id UInt64, s String) ENGINE = MergeTree ORDER BY id SETTINGS min_bytes_for_wide_part = 0;
INSERT INTO wide_sizes SELECT number, toString(number) FROM numbers(100000);
INSERT INTO wide_sizes SELECT number + 100000, toString(number) FROM numbers(100000);
SELECT name, data_compressed_bytes > 0, data_compressed_bytes < data_uncompressed_bytes, data_uncompressed_bytes >= 1600000, marks_bytes > 0 FROM system.columns WHERE database = currentDatabase() AND table = 'wide_sizes' ORDER BY name;
SELECT (SELECT sum(data_compressed_bytes) FROM system.columns WHERE database = currentDatabase() AND table = 'wide_sizes') = (SELECT sum(data_compressed_bytes) FROM system.parts WHERE database = currentDatabase() AND table = 'wide_sizes' AND active);
SELECT (SELECT sum(data_uncompressed_bytes) FROM system.columns WHERE database = currentDatabase() AND table = 'wide_sizes') = (SELECT sum(data_uncompressed_bytes) FROM system.parts WHERE database = currentDatabase() AND table = 'wide_sizes' AND active);
SELECT name, data_compressed_bytes FROM system.columns WHERE database = 'system' AND table = 'one';
-- system.parts_columns: a row per column of each part
SELECT table, column, column_position, type, column_data_compressed_bytes, column_data_uncompressed_bytes, column_marks_bytes FROM system.parts_columns WHERE database = currentDatabase() AND table = 'compact_sizes' ORDER BY column;
SELECT column, min(column_data_compressed_bytes > 0), min(column_bytes_on_disk = column_data_compressed_bytes + column_marks_bytes), sum(rows) FROM system.parts_columns WHERE database = currentDatabase() AND table = 'wide_sizes' AND active GROUP BY column ORDER BY column;
SELECT (SELECT sum(column_data_compressed_bytes) FROM system.parts_columns WHERE database = currentDatabase() AND table = 'wide_sizes' AND active) = (SELECT sum(data_compressed_bytes) FROM system.columns WHERE database = currentDatabase() AND table = 'wide_sizes');
