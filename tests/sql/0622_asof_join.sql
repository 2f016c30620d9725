-- ASOF JOIN: each left row meets the closest right row with equal keys on the side its inequality allows
CREATE TABLE asof_l (k UInt8, t UInt32, v String) ENGINE = Memory;
CREATE TABLE asof_r (k UInt8, t UInt32, w String) ENGINE = Memory;
INSERT INTO asof_l VALUES (1, 10, 'a'), (1, 20, 'b'), (2, 5, 'c'), (3, 7, 'd'), (1, 3, 'e');
INSERT INTO asof_r VALUES (1, 5, 'x'), (1, 15, 'y'), (1, 20, 'z'), (2, 6, 'p'), (2, 5, 'q');
SELECT l.k, l.t, v, r.t, w FROM asof_l AS l ASOF JOIN asof_r AS r ON l.k = r.k AND l.t >= r.t ORDER BY l.k, l.t;
SELECT l.k, l.t, v, r.t, w FROM asof_l AS l ASOF LEFT JOIN asof_r AS r ON l.k = r.k AND l.t >= r.t ORDER BY l.k, l.t;
SELECT l.k, l.t, v, r.t, w FROM asof_l AS l ASOF JOIN asof_r AS r ON l.k = r.k AND l.t > r.t ORDER BY l.k, l.t;
SELECT l.k, l.t, v, r.t, w FROM asof_l AS l ASOF JOIN asof_r AS r ON l.k = r.k AND l.t <= r.t ORDER BY l.k, l.t;
SELECT l.k, l.t, v, r.t, w FROM asof_l AS l ASOF JOIN asof_r AS r ON l.k = r.k AND l.t < r.t ORDER BY l.k, l.t;
-- the inequality written right side first
SELECT l.k, l.t, v, r.t, w FROM asof_l AS l ASOF JOIN asof_r AS r ON r.k = l.k AND r.t < l.t ORDER BY l.k, l.t;
-- LEFT: unmatched rows get defaults, or NULLs with join_use_nulls
SELECT toTypeName(r.t), toTypeName(w) FROM asof_l AS l ASOF LEFT JOIN asof_r AS r ON l.k = r.k AND l.t >= r.t LIMIT 1;
SELECT l.k, l.t, r.t, w FROM asof_l AS l ASOF LEFT JOIN asof_r AS r ON l.k = r.k AND l.t >= r.t ORDER BY l.k, l.t SETTINGS join_use_nulls = 1;
-- USING (keys..., asof column): left.t >= right.t
SELECT * FROM asof_l ASOF JOIN asof_r USING (k, t) ORDER BY k, t;
SELECT * FROM asof_l ASOF LEFT JOIN asof_r USING (k, t) ORDER BY k, t;
SELECT k, t, w FROM asof_l ASOF JOIN asof_r USING (k, t) WHERE t > 5 ORDER BY k, t;
-- conditions on one table
SELECT count() FROM asof_l AS l ASOF JOIN asof_r AS r ON l.k = r.k AND l.t >= r.t AND l.v = 'a';
SELECT l.v, r.w FROM asof_l AS l ASOF JOIN asof_r AS r ON l.k = r.k AND l.t >= r.t AND r.w != 'z' ORDER BY l.v;
-- dates and a computed key
SELECT l.d, r.d, r.price FROM (SELECT toDate('2024-01-01') + number * 3 AS d, number % 2 AS g FROM numbers(5)) AS l
  ASOF JOIN (SELECT toDate('2024-01-02') + number * 2 AS d, number % 2 AS g, number * 10 AS price FROM numbers(6)) AS r
  ON l.g = r.g AND l.d >= r.d ORDER BY l.d;
-- errors as in ClickHouse
SELECT count() FROM asof_l AS l ASOF JOIN asof_r AS r ON l.k = r.k; -- { serverError INVALID_JOIN_ON_EXPRESSION }
SELECT count() FROM asof_l AS l ASOF JOIN asof_r AS r ON l.k = r.k AND l.t >= r.t AND l.t <= r.t; -- { serverError INVALID_JOIN_ON_EXPRESSION }
SELECT count() FROM asof_l AS l ASOF RIGHT JOIN asof_r AS r ON l.k = r.k AND l.t >= r.t; -- { serverError NOT_IMPLEMENTED }
SELECT count() FROM asof_l AS l ASOF JOIN asof_r AS r ON l.t >= r.t; -- { serverError NOT_IMPLEMENTED }
-- the right side is held in the query's memory, within max_memory_usage
SELECT count() FROM asof_l AS l ASOF JOIN (SELECT number % 3 AS k, number AS t FROM numbers(1000000)) AS r ON l.k = r.k AND l.t >= r.t SETTINGS max_memory_usage = 1000000; -- { serverError MEMORY_LIMIT_EXCEEDED }
SELECT count() FROM asof_l AS l ASOF JOIN (SELECT number % 3 AS k, number AS t FROM numbers(1000000)) AS r ON l.k = r.k AND l.t >= r.t;
DROP TABLE asof_l;
DROP TABLE asof_r;
