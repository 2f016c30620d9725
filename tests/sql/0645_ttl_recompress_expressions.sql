-- TTL expressions take ClickHouse's forms (they go through the query front end): DateTime + seconds, Date + days, functions.
CREATE TABLE a (d DateTime, k UInt32) ENGINE = MergeTree ORDER BY k TTL d + 1;
CREATE TABLE b (d Date, k UInt32) ENGINE = MergeTree ORDER BY k TTL d + 30 WHERE k > 1;
CREATE TABLE c (t String, k UInt32) ENGINE = MergeTree ORDER BY k TTL toDateTime(t) + INTERVAL 1 HOUR, toDate(t) + 14 WHERE k = 2;
SHOW CREATE TABLE a;
SHOW CREATE TABLE b;
SHOW CREATE TABLE c;
SYSTEM STOP MERGES a;
SYSTEM STOP MERGES b;
SYSTEM STOP MERGES c;
INSERT INTO a VALUES ('2000-01-01 00:00:00', 1), ('2100-01-01 00:00:00', 2);
INSERT INTO b VALUES ('2000-01-01', 1), ('2000-01-01', 2), ('2100-01-01', 3);
INSERT INTO c VALUES ('2000-01-01 00:00:00', 1), ('2100-01-01 00:00:00', 2);
SELECT delete_ttl_info_min, delete_ttl_info_max FROM system.parts WHERE database = currentDatabase() AND table = 'a' AND active;
SELECT rows_where_ttl_info.expression, rows_where_ttl_info.min, rows_where_ttl_info.max FROM system.parts WHERE database = currentDatabase() AND table = 'b' AND active;
SELECT delete_ttl_info_min, rows_where_ttl_info.expression, rows_where_ttl_info.min FROM system.parts WHERE database = currentDatabase() AND table = 'c' AND active;
SYSTEM START MERGES a;
SYSTEM START MERGES b;
SYSTEM START MERGES c;
OPTIMIZE TABLE a FINAL;
OPTIMIZE TABLE b FINAL;
OPTIMIZE TABLE c FINAL;
SELECT * FROM a ORDER BY k;
SELECT * FROM b ORDER BY k;
SELECT * FROM c ORDER BY k;
-- RECOMPRESS: ranges in system.parts; a part whose rows are all past a rule is written with its codec at the next merge.
CREATE TABLE r (d Date, k UInt32, x UInt64) ENGINE = MergeTree ORDER BY k TTL d + 4 RECOMPRESS CODEC(ZSTD(3)), d + 10 RECOMPRESS CODEC(ZSTD(5)), d + 36500 RECOMPRESS CODEC(ZSTD(7));
SHOW CREATE TABLE r;
SYSTEM STOP MERGES r;
INSERT INTO r VALUES ('2000-01-01', 1, 1), ('2001-01-01', 2, 1);
SELECT recompression_ttl_info.expression, recompression_ttl_info.min, recompression_ttl_info.max, default_compression_codec FROM system.parts WHERE database = currentDatabase() AND table = 'r' AND active;
SYSTEM START MERGES r;
OPTIMIZE TABLE r FINAL;
SELECT recompression_ttl_info.expression, default_compression_codec FROM system.parts WHERE database = currentDatabase() AND table = 'r' AND active;
SELECT * FROM r ORDER BY k;
-- A rule not yet past for every row leaves the codec alone.
CREATE TABLE q (d Date, k UInt32) ENGINE = MergeTree ORDER BY k TTL d + 1 RECOMPRESS CODEC(ZSTD(1));
INSERT INTO q VALUES ('2000-01-01', 1), ('2100-01-01', 2);
OPTIMIZE TABLE q FINAL;
SELECT default_compression_codec, recompression_ttl_info.min, recompression_ttl_info.max FROM system.parts WHERE database = currentDatabase() AND table = 'q' AND active;
-- Moves stay refused: there is one disk.
CREATE TABLE v (d Date, k UInt32) ENGINE = MergeTree ORDER BY k TTL d TO DISK 'other'; -- { serverError BAD_TTL_EXPRESSION }
CREATE TABLE v (d Date, k UInt32) ENGINE = MergeTree ORDER BY k TTL d TO VOLUME 'other'; -- { serverError BAD_TTL_EXPRESSION }
