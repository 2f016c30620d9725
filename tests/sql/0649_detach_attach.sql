-- DETACH / ATTACH of tables, views, dictionaries and databases.
CREATE TABLE t (a UInt8) ENGINE = MergeTree ORDER BY a;
INSERT INTO t VALUES (1), (2);
DETACH TABLE t;
SELECT * FROM t; -- { serverError UNKNOWN_TABLE }
SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 't';
DETACH TABLE t; -- { serverError UNKNOWN_TABLE }
DETACH TABLE IF EXISTS t;
CREATE TABLE t (a UInt8) ENGINE = MergeTree ORDER BY a; -- { serverError TABLE_ALREADY_EXISTS }
DROP TABLE t; -- { serverError UNKNOWN_TABLE }
ATTACH TABLE t;
SELECT * FROM t ORDER BY a;
ATTACH TABLE t; -- { serverError TABLE_ALREADY_EXISTS }
ATTACH TABLE IF NOT EXISTS t;
ATTACH TABLE nope; -- { serverError CANNOT_GET_CREATE_TABLE_QUERY }
DETACH TABLE t SYNC;
ATTACH TABLE t;
INSERT INTO t VALUES (3);
SELECT * FROM t ORDER BY a;
CREATE TABLE m (a UInt8) ENGINE = Memory;
INSERT INTO m VALUES (7);
DETACH TABLE m;
ATTACH TABLE m;
SELECT count() FROM m;
CREATE VIEW v AS SELECT a * 10 AS x FROM t;
DETACH VIEW v;
SELECT * FROM v; -- { serverError UNKNOWN_TABLE }
ATTACH TABLE v;
SELECT * FROM v ORDER BY x;
DETACH TABLE v;
ATTACH VIEW v; -- { serverError SYNTAX_ERROR }
ATTACH TABLE v;
SELECT count() FROM v;
CREATE TABLE src (a UInt8) ENGINE = Memory;
CREATE TABLE dst (a UInt8) ENGINE = Memory;
CREATE MATERIALIZED VIEW mv TO dst AS SELECT a + 100 AS a FROM src;
INSERT INTO src VALUES (1);
DETACH TABLE mv;
INSERT INTO src VALUES (2);
ATTACH TABLE mv;
INSERT INTO src VALUES (3);
SELECT a FROM dst ORDER BY a;
CREATE DICTIONARY dict (k UInt64, v String) PRIMARY KEY k SOURCE(CLICKHOUSE(QUERY 'SELECT 1 AS k, \'one\' AS v')) LAYOUT(FLAT()) LIFETIME(0);
SELECT dictGet('dict', 'v', toUInt64(1));
DETACH DICTIONARY dict;
SELECT dictGet('dict', 'v', toUInt64(1)); -- { serverError BAD_ARGUMENTS }
SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'dict';
ATTACH DICTIONARY dict;
SELECT dictGet('dict', 'v', toUInt64(1));
SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name;
CREATE DATABASE test_0649_other;
CREATE TABLE test_0649_other.o (s String) ENGINE = MergeTree ORDER BY s;
INSERT INTO test_0649_other.o VALUES ('kept');
DETACH DATABASE test_0649_other;
SELECT * FROM test_0649_other.o; -- { serverError UNKNOWN_DATABASE }
SELECT count() FROM system.databases WHERE name = 'test_0649_other';
DETACH DATABASE test_0649_other; -- { serverError UNKNOWN_DATABASE }
DETACH DATABASE IF EXISTS test_0649_other;
ATTACH DATABASE test_0649_other;
ATTACH DATABASE test_0649_other; -- { serverError DATABASE_ALREADY_EXISTS }
ATTACH DATABASE IF NOT EXISTS test_0649_other;
SELECT * FROM test_0649_other.o;
DETACH DATABASE test_0649_other PERMANENTLY; -- { serverError NOT_IMPLEMENTED }
DROP DATABASE test_0649_other;
