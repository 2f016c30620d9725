-- Data-skipping index DDL: argument checks, ALTER ADD/DROP/MATERIALIZE/CLEAR INDEX,
-- and which parts an index is built for.
CREATE TABLE e1 (a UInt64, INDEX i a TYPE set GRANULARITY 1) ENGINE = MergeTree ORDER BY a; -- { serverError INCORRECT_QUERY }
CREATE TABLE e2 (a UInt64, INDEX i a TYPE set('x') GRANULARITY 1) ENGINE = MergeTree ORDER BY a; -- { serverError INCORRECT_QUERY }
CREATE TABLE e3 (a UInt64, INDEX i a TYPE bloom_filter(2) GRANULARITY 1) ENGINE = MergeTree ORDER BY a; -- { serverError BAD_ARGUMENTS }
CREATE TABLE e4 (a UInt64, INDEX i a TYPE bloom_filter(0.1, 2) GRANULARITY 1) ENGINE = MergeTree ORDER BY a; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
CREATE TABLE e5 (a String, INDEX i a TYPE tokenbf_v1(100) GRANULARITY 1) ENGINE = MergeTree ORDER BY a; -- { serverError BAD_ARGUMENTS }
CREATE TABLE e6 (a UInt64, INDEX i a TYPE tokenbf_v1(100, 2, 0) GRANULARITY 1) ENGINE = MergeTree ORDER BY a; -- { serverError BAD_ARGUMENTS }
CREATE TABLE e7 (a String, INDEX i a TYPE ngrambf_v1(0, 100, 2, 0) GRANULARITY 1) ENGINE = MergeTree ORDER BY a; -- { serverError BAD_ARGUMENTS }
CREATE TABLE e8 (a String, INDEX i a TYPE ngrambf_v1(3, 100, 2, -1) GRANULARITY 1) ENGINE = MergeTree ORDER BY a; -- { serverError BAD_ARGUMENTS }
CREATE TABLE e9 (a String, INDEX i a TYPE tokenbf_v1(0, 2, 0) GRANULARITY 1) ENGINE = MergeTree ORDER BY a; -- { serverError BAD_ARGUMENTS }
CREATE TABLE e10 (a String, INDEX i a TYPE foo GRANULARITY 1) ENGINE = MergeTree ORDER BY a; -- { serverError INCORRECT_QUERY }
CREATE TABLE e11 (a String, INDEX i a TYPE minmax GRANULARITY 0) ENGINE = MergeTree ORDER BY a; -- { serverError BAD_ARGUMENTS }
CREATE TABLE e12 (a String, INDEX i b TYPE minmax GRANULARITY 1) ENGINE = MergeTree ORDER BY a; -- { serverError UNKNOWN_IDENTIFIER }
CREATE TABLE e13 (a String, INDEX i a TYPE minmax, INDEX i a TYPE set(0)) ENGINE = MergeTree ORDER BY a; -- { serverError ILLEGAL_INDEX }
CREATE TABLE e14 (a Nullable(String), INDEX i a TYPE tokenbf_v1(100, 2, 0) GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError BAD_ARGUMENTS }
CREATE TABLE e15 (a UInt64, INDEX i rand() TYPE minmax) ENGINE = MergeTree ORDER BY a; -- { serverError BAD_ARGUMENTS }
CREATE TABLE ok1 (a LowCardinality(String), b Array(String), INDEX i a TYPE ngrambf_v1(3, 100, 2, 0), INDEX j b TYPE tokenbf_v1(100, 2, 0), INDEX k a TYPE minmax(1)) ENGINE = MergeTree ORDER BY tuple();
SELECT name, type, type_full, expr, granularity FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = 'ok1' ORDER BY name;
DROP TABLE ok1;
-- ALTER ADD INDEX builds for new parts only; MATERIALIZE INDEX builds for the others.
CREATE TABLE t (a UInt64, b UInt64) ENGINE = MergeTree ORDER BY tuple() SETTINGS index_granularity = 100;
INSERT INTO t SELECT number, number % 10 FROM numbers(5000);
ALTER TABLE t ADD INDEX ia a TYPE minmax GRANULARITY 1;
ALTER TABLE t ADD INDEX ia b TYPE minmax GRANULARITY 1; -- { serverError ILLEGAL_COLUMN }
ALTER TABLE t ADD INDEX IF NOT EXISTS ia b TYPE minmax GRANULARITY 1;
ALTER TABLE t ADD INDEX ib b TYPE set(3) GRANULARITY 2 FIRST;
ALTER TABLE t ADD INDEX ic b TYPE set(3) AFTER ia;
ALTER TABLE t ADD INDEX id b TYPE set(3) AFTER zz; -- { serverError BAD_ARGUMENTS }
ALTER TABLE t ADD INDEX ie c TYPE minmax; -- { serverError UNKNOWN_IDENTIFIER }
SELECT name, type_full, expr, granularity FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = 't';
ALTER TABLE t DROP INDEX zz; -- { serverError BAD_ARGUMENTS }
ALTER TABLE t DROP INDEX ic;
ALTER TABLE t DROP INDEX ib;
SELECT name FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = 't';
-- The old part has no index file yet: everything is read.
SELECT count(), sum(a) FROM t WHERE a > 4900 SETTINGS max_rows_to_read = 4999; -- { serverError TOO_MANY_ROWS }
INSERT INTO t SELECT number + 5000, number % 10 FROM numbers(5000);
SELECT count(), sum(a) FROM t WHERE a > 9900 SETTINGS max_rows_to_read = 5100;
SET mutations_sync = 2;
ALTER TABLE t MATERIALIZE INDEX ia;
SELECT count(), sum(a) FROM t WHERE a > 4900 AND a < 5100 SETTINGS max_rows_to_read = 300;
SELECT count(), sum(a) FROM t WHERE a > 4900 AND a < 5100 SETTINGS use_skip_indexes = 0;
ALTER TABLE t CLEAR INDEX ia;
SELECT count(), sum(a) FROM t WHERE a > 4900 AND a < 5100 SETTINGS max_rows_to_read = 300; -- { serverError TOO_MANY_ROWS }
ALTER TABLE t MATERIALIZE INDEX ia;
SELECT count(), sum(a) FROM t WHERE a > 4900 AND a < 5100 SETTINGS max_rows_to_read = 300;
SELECT replaceRegexpAll(command, '\\s+', ' '), is_done FROM system.mutations WHERE database = currentDatabase() AND table = 't' ORDER BY create_time, mutation_id;
ALTER TABLE t DROP INDEX ia;
ALTER TABLE t DROP INDEX IF EXISTS ia;
SELECT count(), sum(a) FROM t WHERE a > 4900 AND a < 5100 SETTINGS max_rows_to_read = 300; -- { serverError TOO_MANY_ROWS }
SHOW CREATE TABLE t;
DROP TABLE t;
