-- Table TTL: rules, SHOW CREATE, expired rows kept by INSERT and removed by OPTIMIZE FINAL and MATERIALIZE TTL.
CREATE TABLE t (d Date, k UInt32, v String) ENGINE = MergeTree ORDER BY k TTL d + INTERVAL 1 DAY, d + interval 2 MONTH DELETE WHERE v = 'w' SETTINGS index_granularity = 8192;
SHOW CREATE TABLE t;
SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = 't';
SELECT create_table_query FROM system.tables WHERE database = currentDatabase() AND name = 't';
SYSTEM STOP MERGES t;
INSERT INTO t VALUES ('2000-01-01', 1, 'a'), ('2100-01-01', 2, 'b'), ('2100-01-01', 3, 'w');
SELECT count() FROM t;
SELECT name, rows, delete_ttl_info_min, delete_ttl_info_max FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active;
SYSTEM START MERGES t;
OPTIMIZE TABLE t FINAL;
SELECT * FROM t ORDER BY k;
SELECT rows, delete_ttl_info_min, delete_ttl_info_max FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active;
-- DELETE WHERE: only the rows matching the condition go.
CREATE TABLE w (d Date, k UInt32, v String) ENGINE = MergeTree ORDER BY k TTL d + INTERVAL 1 DAY WHERE v = 'old';
SYSTEM STOP MERGES w;
INSERT INTO w VALUES ('2000-01-01', 1, 'old'), ('2000-01-01', 2, 'new'), ('2100-01-01', 3, 'old');
SYSTEM START MERGES w;
OPTIMIZE TABLE w FINAL;
SELECT * FROM w ORDER BY k;
-- MODIFY TTL materializes the new rules (materialize_ttl_after_modify), REMOVE TTL drops them.
CREATE TABLE m (d DateTime, k UInt32) ENGINE = MergeTree ORDER BY k PARTITION BY k % 2;
INSERT INTO m VALUES ('1999-12-31 10:00:00', 1), ('1999-12-31 10:00:00', 2), ('2099-12-31 10:00:00', 3), ('2099-12-31 10:00:00', 4);
ALTER TABLE m MODIFY TTL d + INTERVAL 1 HOUR SETTINGS mutations_sync = 2;
SELECT * FROM m ORDER BY k;
SELECT command, is_done FROM system.mutations WHERE database = currentDatabase() AND table = 'm';
SHOW CREATE TABLE m;
ALTER TABLE m REMOVE TTL;
SHOW CREATE TABLE m;
ALTER TABLE m REMOVE TTL; -- { serverError BAD_ARGUMENTS }
ALTER TABLE m MATERIALIZE TTL; -- { serverError INCORRECT_QUERY }
INSERT INTO m VALUES ('1999-12-31 10:00:00', 5);
OPTIMIZE TABLE m FINAL;
SELECT * FROM m ORDER BY k;
-- Without materialize_ttl_after_modify the rule waits for MATERIALIZE TTL (or a merge).
ALTER TABLE m MODIFY TTL d + INTERVAL 1 DAY SETTINGS materialize_ttl_after_modify = 0;
SELECT count() FROM system.mutations WHERE database = currentDatabase() AND table = 'm';
ALTER TABLE m MATERIALIZE TTL IN PARTITION 0 SETTINGS mutations_sync = 2;
SELECT * FROM m ORDER BY k;
ALTER TABLE m MATERIALIZE TTL SETTINGS mutations_sync = 2;
SELECT * FROM m ORDER BY k;
SELECT command, is_done FROM system.mutations WHERE database = currentDatabase() AND table = 'm' ORDER BY mutation_id;
-- Errors as ClickHouse reports them.
CREATE TABLE e1 (d Date, k UInt8) ENGINE = MergeTree ORDER BY k TTL d + INTERVAL 1 DAY TO DISK 'other'; -- { serverError BAD_TTL_EXPRESSION }
CREATE TABLE e2 (d Date, k UInt8) ENGINE = MergeTree ORDER BY k TTL d + INTERVAL 1 DAY TO VOLUME 'other'; -- { serverError BAD_TTL_EXPRESSION }
CREATE TABLE e3 (d Date, k UInt8) ENGINE = MergeTree ORDER BY k TTL k; -- { serverError BAD_TTL_EXPRESSION }
CREATE TABLE e4 (d Date, k UInt8) ENGINE = MergeTree ORDER BY k TTL toDate('2000-01-01'); -- { serverError BAD_ARGUMENTS }
CREATE TABLE e5 (d Date, k UInt8) ENGINE = MergeTree ORDER BY k TTL d + INTERVAL 1 DAY, d + INTERVAL 2 DAY; -- { serverError BAD_TTL_EXPRESSION }
-- ttl_only_drop_parts: a part goes only when every row expired.
CREATE TABLE p (d Date, k UInt32) ENGINE = MergeTree ORDER BY k PARTITION BY k TTL d + INTERVAL 1 DAY SETTINGS ttl_only_drop_parts = 1;
SYSTEM STOP MERGES p;
INSERT INTO p VALUES ('2000-01-01', 1), ('2000-01-01', 2), ('2100-01-01', 2);
SELECT k FROM p ORDER BY k;
SYSTEM START MERGES p;
ALTER TABLE p MATERIALIZE TTL SETTINGS mutations_sync = 2;
SELECT d, k FROM p ORDER BY k, d;
