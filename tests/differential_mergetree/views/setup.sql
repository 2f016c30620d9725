-- Views, parameterized views and materialized views: what each view holds after INSERTs
-- of several sizes and block cuts into its source, in chdb and in Granary.
CREATE DATABASE IF NOT EXISTS vw;
CREATE TABLE vw.events (ts DateTime, user_id UInt64, kind String, amount UInt32) ENGINE = MergeTree ORDER BY (user_id, ts);
CREATE TABLE vw.dims (kind String, label String) ENGINE = MergeTree ORDER BY kind;
INSERT INTO vw.dims VALUES ('click', 'Click'), ('view', 'Page view'), ('buy', 'Purchase');
-- A rollup kept by SummingMergeTree, fed per block.
CREATE TABLE vw.daily (day Date, kind String, events UInt64, amount UInt64) ENGINE = SummingMergeTree ORDER BY (day, kind);
CREATE MATERIALIZED VIEW vw.daily_mv TO vw.daily AS SELECT toDate(ts) AS day, kind, count() AS events, sum(amount) AS amount FROM vw.events GROUP BY day, kind;
-- AggregatingMergeTree with states, in an inner table.
CREATE MATERIALIZED VIEW vw.users_mv ENGINE = AggregatingMergeTree ORDER BY kind AS SELECT kind, uniqState(user_id) AS users, sumState(amount) AS total FROM vw.events GROUP BY kind;
-- A filter, a join with a dimension table and a column default of the target.
CREATE TABLE vw.big_buys (user_id UInt64, label String, amount UInt64, note String DEFAULT 'none') ENGINE = MergeTree ORDER BY user_id;
CREATE MATERIALIZED VIEW vw.big_buys_mv TO vw.big_buys AS SELECT e.user_id AS user_id, d.label AS label, e.amount AS amount FROM vw.events AS e INNER JOIN vw.dims AS d ON e.kind = d.kind WHERE e.amount >= 90;
-- A chain: the target of one view is the source of another.
CREATE TABLE vw.big_buys_count (label String, n UInt64) ENGINE = SummingMergeTree ORDER BY label;
CREATE MATERIALIZED VIEW vw.big_buys_count_mv TO vw.big_buys_count AS SELECT label, count() AS n FROM vw.big_buys GROUP BY label;
-- POPULATE from rows already there.
CREATE TABLE vw.before (id UInt64, v String) ENGINE = MergeTree ORDER BY id;
INSERT INTO vw.before SELECT number, toString(number * 7) FROM numbers(20);
CREATE MATERIALIZED VIEW vw.before_mv ENGINE = MergeTree ORDER BY id POPULATE AS SELECT id, length(v) AS len FROM vw.before WHERE id % 3 = 0;
INSERT INTO vw.before SELECT number, 'x' FROM numbers(100, 10);
-- Plain and parameterized views, and a view reading a view.
CREATE VIEW vw.buys AS SELECT user_id, amount FROM vw.events WHERE kind = 'buy';
CREATE VIEW vw.top_buyers AS SELECT user_id, sum(amount) AS spent FROM vw.buys GROUP BY user_id;
CREATE VIEW vw.by_kind AS SELECT user_id, amount FROM vw.events WHERE kind = {k:String} AND amount >= {min_amount:UInt32};
-- Rows: one small INSERT, then INSERT ... SELECT cut into blocks of 1000 rows.
INSERT INTO vw.events VALUES ('2024-05-01 10:00:00', 1, 'click', 0), ('2024-05-01 11:00:00', 2, 'buy', 95), ('2024-05-02 09:30:00', 1, 'buy', 40);
INSERT INTO vw.events SELECT toDateTime('2024-05-01 00:00:00') + number * 3600, number % 97, ['click', 'view', 'buy'][number % 3 + 1], (number * 37) % 101 FROM numbers(5000) SETTINGS max_block_size = 1000, min_insert_block_size_rows = 1000, max_insert_threads = 1, max_threads = 1;
-- An INSERT into a materialized view writes its target.
INSERT INTO vw.before_mv VALUES (1000, 4);
