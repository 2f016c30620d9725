-- CREATE TABLE ... AS SELECT, CREATE TABLE ... AS other, column types inferred from the query
CREATE TABLE t1 ENGINE = Memory AS SELECT number AS n, toString(number) AS s, number * 1.5 AS f, toDate('2024-01-01') + number AS d FROM numbers(5);
DESCRIBE t1;
SELECT * FROM t1 ORDER BY n;
CREATE TABLE t2 ENGINE = Memory AS SELECT n % 2 AS k, count() AS c, sum(f) AS total FROM t1 GROUP BY k;
DESCRIBE t2;
SELECT * FROM t2 ORDER BY k;
CREATE TABLE t3 (k UInt8, label String) ENGINE = Memory AS SELECT number, concat('label', toString(number)) FROM numbers(3);
DESCRIBE t3;
SELECT * FROM t3 ORDER BY k;
CREATE TABLE t4 AS t1;
DESCRIBE t4;
SELECT count() FROM t4;
CREATE TABLE t5 AS t1 ENGINE = Null;
SHOW CREATE TABLE t5;
INSERT INTO t5 SELECT * FROM t1;
SELECT count() FROM t5;
CREATE TABLE t6 ENGINE = Memory AS SELECT CAST(NULL AS Nullable(String)) AS ns, [1, 2] AS arr, toDecimal32(1.25, 2) AS dec, toLowCardinality('x') AS lc, true AS b;
DESCRIBE t6;
SELECT * FROM t6;
CREATE TABLE IF NOT EXISTS t1 ENGINE = Memory AS SELECT 1 AS other;
DESCRIBE t1;
SELECT count() FROM t1;
CREATE TABLE t1 ENGINE = Memory AS SELECT 1; -- { serverError TABLE_ALREADY_EXISTS }
CREATE TABLE t7 ENGINE = Memory AS SELECT * FROM missing; -- { serverError UNKNOWN_TABLE }
EXISTS TABLE t7;
CREATE TABLE t8 ENGINE = Memory AS SELECT number FROM numbers(0);
SELECT count() FROM t8;
DESCRIBE t8;
CREATE TABLE t9 ENGINE = Memory AS WITH 10 AS ten SELECT number * ten AS x FROM numbers(3);
SELECT x FROM t9 ORDER BY x;
