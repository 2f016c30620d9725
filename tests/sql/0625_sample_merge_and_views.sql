-- SAMPLE through Merge tables, merge(), views and materialized views
CREATE TABLE a (x UInt64) ENGINE = MergeTree ORDER BY intHash32(x) SAMPLE BY intHash32(x);
CREATE TABLE b (x UInt64) ENGINE = MergeTree ORDER BY (cityHash64(x), x) SAMPLE BY cityHash64(x);
CREATE TABLE plain (x UInt64) ENGINE = MergeTree ORDER BY x;
INSERT INTO a SELECT number FROM numbers(50000);
INSERT INTO b SELECT number FROM numbers(50000, 30000);
INSERT INTO plain SELECT number FROM numbers(1000);
-- A Merge table hands SAMPLE to each table it reads; each computes its own range
CREATE TABLE m_ab (x UInt64) ENGINE = Merge(currentDatabase(), '^[ab]$');
SELECT count(), sum(x) FROM m_ab SAMPLE 0.1;
SELECT _table, count() FROM m_ab SAMPLE 1/4 OFFSET 1/2 GROUP BY _table ORDER BY _table;
SELECT count() FROM m_ab SAMPLE 1000;
SELECT count() FROM m_ab SAMPLE 1;
SELECT count() FROM merge(currentDatabase(), '^[ab]$') SAMPLE 0.1;
SELECT count() FROM merge(currentDatabase(), '^a$') AS t SAMPLE 0.5 WHERE t.x < 1000;
-- Every table must sample
CREATE TABLE m_all (x UInt64) ENGINE = Merge(currentDatabase(), '^(a|b|plain)$');
SELECT count() FROM m_all SAMPLE 0.1; -- { serverError SAMPLING_NOT_SUPPORTED }
SELECT count() FROM m_all;
SELECT count() FROM merge(currentDatabase(), '^plain$') SAMPLE 0.1; -- { serverError SAMPLING_NOT_SUPPORTED }
SELECT count() FROM numbers(100) SAMPLE 0.1; -- { serverError SAMPLING_NOT_SUPPORTED }
-- A view reads everything whatever SAMPLE says; its own query's SAMPLE applies
CREATE VIEW v AS SELECT x FROM a WHERE x % 2 = 0;
CREATE VIEW v_plain AS SELECT x FROM plain;
SELECT count() FROM v SAMPLE 0.1;
SELECT count() FROM v_plain SAMPLE 0.1;
CREATE VIEW v_sampled AS SELECT x FROM a SAMPLE 0.1;
SELECT count() FROM v_sampled;
SELECT count() FROM v_sampled SAMPLE 0.5;
-- A materialized view samples its target (its own inner table or a TO table)
CREATE MATERIALIZED VIEW mv_inner ENGINE = MergeTree ORDER BY intHash32(x) SAMPLE BY intHash32(x) AS SELECT x FROM plain;
CREATE TABLE target_plain (x UInt64) ENGINE = MergeTree ORDER BY x;
CREATE MATERIALIZED VIEW mv_plain TO target_plain AS SELECT x FROM plain;
INSERT INTO plain SELECT number FROM numbers(1000, 20000);
SELECT count() FROM mv_inner SAMPLE 0.25;
SELECT count() FROM mv_inner SAMPLE 0.25 OFFSET 0.75;
SELECT count() FROM mv_plain;
SELECT count() FROM mv_plain SAMPLE 0.25; -- { serverError SAMPLING_NOT_SUPPORTED }
