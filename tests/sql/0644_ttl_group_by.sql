-- TTL GROUP BY: expired rows with the same key prefix collapse into one row at merges, OPTIMIZE FINAL and MATERIALIZE TTL.
CREATE TABLE g (d Date, k1 UInt32, k2 UInt32, x UInt64, y String) ENGINE = MergeTree ORDER BY (k1, k2) TTL d + INTERVAL 1 DAY GROUP BY k1 SET x = sum(x);
SHOW CREATE TABLE g;
SYSTEM STOP MERGES g;
INSERT INTO g VALUES ('2000-01-01', 1, 1, 10, 'a'), ('2000-01-02', 1, 2, 20, 'b'), ('2000-01-01', 2, 1, 5, 'c'), ('2100-01-01', 1, 3, 7, 'd');
SELECT * FROM g ORDER BY k1, k2;
SELECT rows, group_by_ttl_info.expression, group_by_ttl_info.min, group_by_ttl_info.max, rows_where_ttl_info.expression, move_ttl_info.expression, recompression_ttl_info.expression FROM system.parts WHERE database = currentDatabase() AND table = 'g' AND active;
SYSTEM START MERGES g;
OPTIMIZE TABLE g FINAL;
-- Columns without SET take the first expired row's value; an unexpired row of a key stays as it is.
SELECT * FROM g ORDER BY k1, k2;
SELECT rows, group_by_ttl_info.expression, group_by_ttl_info.min, group_by_ttl_info.max FROM system.parts WHERE database = currentDatabase() AND table = 'g' AND active;
-- Several parts, several keys, several SET columns; results are cast to the column type.
CREATE TABLE s (d DateTime, k1 String, k2 UInt8, v UInt64, a Float64, m Int32, c String) ENGINE = MergeTree ORDER BY (k1, k2) TTL d + 3600 GROUP BY k1, k2 SET v = avg(v), a = sum(a), m = max(m);
SYSTEM STOP MERGES s;
INSERT INTO s VALUES ('2000-01-01 00:00:00', 'x', 1, 1, 0.5, 3, 'p'), ('2000-01-01 05:00:00', 'x', 1, 2, 1.5, -3, 'q'), ('2000-01-01 00:00:00', 'x', 2, 4, 1, 8, 'r');
INSERT INTO s VALUES ('2000-01-01 00:00:00', 'x', 1, 6, 2, 10, 's'), ('2099-01-01 00:00:00', 'y', 1, 9, 9, 9, 't'), ('1999-06-01 00:00:00', 'y', 1, 1, 1, 1, 'u');
SYSTEM START MERGES s;
OPTIMIZE TABLE s FINAL;
SELECT k1, k2, v, a, m FROM s ORDER BY k1, k2, d;
SELECT count() FROM s;
-- With a DELETE ... WHERE rule: deletes run first, the GROUP BY rule then collapses what is left.
CREATE TABLE w (d Date, k1 UInt32, k2 UInt32, x UInt64) ENGINE = MergeTree ORDER BY (k1, k2) TTL d + 100 DELETE WHERE x = 0, d GROUP BY k1 SET x = sum(x);
SHOW CREATE TABLE w;
SYSTEM STOP MERGES w;
INSERT INTO w VALUES ('2000-01-01', 1, 1, 0), ('2000-01-01', 1, 2, 2), ('2000-01-01', 1, 3, 4), ('2000-01-01', 2, 3, 4), ('2100-01-01', 2, 4, 0);
SYSTEM START MERGES w;
OPTIMIZE TABLE w FINAL;
SELECT * FROM w ORDER BY k1, k2;
SELECT rows, rows_where_ttl_info.expression, rows_where_ttl_info.min, rows_where_ttl_info.max, group_by_ttl_info.min, group_by_ttl_info.max FROM system.parts WHERE database = currentDatabase() AND table = 'w' AND active;
-- MATERIALIZE TTL applies a GROUP BY rule added by MODIFY TTL.
CREATE TABLE m (d Date, k UInt32, v UInt32) ENGINE = MergeTree ORDER BY k;
INSERT INTO m VALUES ('2000-01-01', 1, 1), ('2000-01-01', 1, 2), ('2000-01-01', 2, 3), ('2000-01-01', 2, 4);
ALTER TABLE m MODIFY TTL d GROUP BY k SET v = min(v) SETTINGS materialize_ttl_after_modify = 0;
ALTER TABLE m MATERIALIZE TTL SETTINGS mutations_sync = 2;
SELECT * FROM m ORDER BY k;
SHOW CREATE TABLE m;
-- Errors, with ClickHouse's codes.
CREATE TABLE e (d Date, k1 UInt32, k2 UInt32, x UInt64) ENGINE = MergeTree ORDER BY (k1, k2) TTL d GROUP BY k2; -- { serverError BAD_TTL_EXPRESSION }
CREATE TABLE e (d Date, k1 UInt32, k2 UInt32, x UInt64) ENGINE = MergeTree ORDER BY (k1, k2) TTL d GROUP BY k1 SET x = 5; -- { serverError BAD_TTL_EXPRESSION }
CREATE TABLE e (d Date, k1 UInt32, k2 UInt32, x UInt64) ENGINE = MergeTree ORDER BY (k1, k2) TTL d GROUP BY k1 SET zz = max(x); -- { serverError NO_SUCH_COLUMN_IN_TABLE }
