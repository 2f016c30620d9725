-- Asynchronous inserts: their settings in system.settings (async_insert itself defaults to 0, as in ClickHouse 24.8, while chdb 26 says 1: left out), the queue's system table, and INSERTs with async_insert = 1 and wait_for_async_insert = 1, whose rows are visible when they return.
SELECT name, value, changed, type, default FROM system.settings WHERE name IN ('async_insert_busy_timeout_max_ms', 'async_insert_busy_timeout_ms', 'async_insert_deduplicate', 'async_insert_max_data_size', 'async_insert_max_query_number', 'wait_for_async_insert', 'wait_for_async_insert_timeout') ORDER BY name;
SELECT name, value, changed FROM system.settings WHERE name IN ('async_insert', 'wait_for_async_insert', 'async_insert_max_data_size') ORDER BY name SETTINGS async_insert = 1, wait_for_async_insert = 0, async_insert_max_data_size = 1000;
SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'asynchronous_inserts' ORDER BY position;
SET async_insert = 'maybe'; -- { serverError CANNOT_PARSE_BOOL }
CREATE TABLE t_async (k UInt32, s String DEFAULT 'd', n Nullable(Int64)) ENGINE = MergeTree ORDER BY k;
INSERT INTO t_async SETTINGS async_insert = 1, wait_for_async_insert = 1, async_insert_busy_timeout_ms = 10 VALUES (1, 'a', NULL), (2, 'b', 2);
INSERT INTO t_async (k, n) SETTINGS async_insert = 1, async_insert_busy_timeout_ms = 10 VALUES (3, 1 + 2);
INSERT INTO t_async SETTINGS async_insert = 1, async_insert_busy_timeout_ms = 10 VALUES ('a', 'x', 1); -- { serverError CANNOT_PARSE_TEXT }
INSERT INTO t_async SETTINGS async_insert = 1 SELECT number + 10, toString(number), number FROM numbers(3);
SELECT * FROM t_async ORDER BY k;
SELECT count() FROM system.asynchronous_inserts;
