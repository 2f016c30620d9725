-- subqueries in FROM, IN, scalar subqueries, EXISTS, nested subqueries
CREATE TABLE t (id UInt32, grp String, v Int64) ENGINE = Memory;
INSERT INTO t VALUES (1, 'a', 10), (2, 'a', 20), (3, 'b', 30), (4, 'b', -5), (5, 'c', 0);
SELECT * FROM (SELECT id, v * 2 AS dv FROM t) ORDER BY id;
SELECT grp, total FROM (SELECT grp, sum(v) AS total FROM t GROUP BY grp) WHERE total > 10 ORDER BY grp;
SELECT id FROM t WHERE v IN (SELECT max(v) FROM t GROUP BY grp) ORDER BY id;
SELECT id FROM t WHERE grp NOT IN (SELECT grp FROM t WHERE v < 0) ORDER BY id;
SELECT id FROM t WHERE (grp, v) IN (SELECT 'a', 20 UNION ALL SELECT 'b', 30) ORDER BY id;
SELECT id, v, (SELECT max(v) FROM t) AS mx FROM t ORDER BY id;
SELECT id FROM t WHERE v > (SELECT avg(v) FROM t) ORDER BY id;
SELECT (SELECT count() FROM t), (SELECT sum(number) FROM numbers(10));
SELECT (SELECT id FROM t WHERE v = 999);
SELECT EXISTS (SELECT 1 FROM t WHERE v > 25), EXISTS (SELECT 1 FROM t WHERE v > 100);
SELECT count() FROM (SELECT * FROM (SELECT * FROM (SELECT number FROM numbers(100) WHERE number % 2 = 0) WHERE number % 3 = 0) WHERE number % 5 = 0);
SELECT x FROM (SELECT number AS x FROM numbers(10) ORDER BY x DESC LIMIT 3) ORDER BY x;
SELECT id FROM t WHERE id IN (1, 3, 5) AND id NOT IN (3) ORDER BY id;
SELECT id FROM t WHERE id IN (SELECT number FROM numbers(3)) ORDER BY id;
SELECT number FROM numbers(10) WHERE number IN (SELECT id FROM t WHERE grp = 'b') ORDER BY number;
SELECT grp, (SELECT count() FROM t) AS all_rows, count() FROM t GROUP BY grp ORDER BY grp;
SELECT 1 IN (SELECT 1), 2 IN (SELECT 1), NULL IN (SELECT 1);
SELECT (SELECT number FROM numbers(3)); -- { serverError INCORRECT_RESULT_OF_SCALAR_SUBQUERY }
SELECT * FROM (SELECT 1 AS a, 2 AS b) AS s;
SELECT s.a FROM (SELECT 1 AS a) AS s;
