-- Views and materialized views: errors, DDL and what INSERT into a view does
CREATE TABLE src (id UInt64, v UInt32, s String) ENGINE = MergeTree ORDER BY id;
CREATE TABLE dst (id UInt64, total UInt64, extra String DEFAULT 'dflt') ENGINE = MergeTree ORDER BY id;
CREATE MATERIALIZED VIEW bad_mv TO dst AS SELECT id, v AS total, s AS nothere FROM src; -- { serverError THERE_IS_NO_COLUMN }
CREATE MATERIALIZED VIEW missing_mv TO nonexistent AS SELECT id FROM src; -- { serverError UNKNOWN_TABLE }
CREATE MATERIALIZED VIEW mv TO dst AS SELECT id, toString(v) AS total FROM src;
INSERT INTO src VALUES (1, 2, 'a'), (3, 4, 'b');
SELECT * FROM dst ORDER BY id;
SELECT * FROM mv ORDER BY id;
SELECT mv.id, toTypeName(total) FROM mv WHERE mv.total > '3';
DESCRIBE mv;
-- An INSERT into a materialized view writes its target
CREATE MATERIALIZED VIEW same_types_mv TO dst AS SELECT id, toUInt64(v) AS total FROM src;
INSERT INTO same_types_mv VALUES (5, 6);
SELECT * FROM dst ORDER BY id;
-- TRUNCATE of a view with a TO table leaves the table alone
TRUNCATE TABLE mv;
SELECT count() FROM dst;
CREATE MATERIALIZED VIEW mv AS SELECT 1 AS x; -- { serverError TABLE_ALREADY_EXISTS }
CREATE MATERIALIZED VIEW IF NOT EXISTS mv AS SELECT 1 AS x;
DROP VIEW same_types_mv;
-- A chain of views: each target feeds the next view
CREATE TABLE t2 (id UInt64, total UInt64) ENGINE = MergeTree ORDER BY id;
CREATE MATERIALIZED VIEW chained_mv TO t2 AS SELECT id, toUInt64(total) * 10 AS total FROM dst;
INSERT INTO src VALUES (8, 99, 'x'), (9, 9, 'y');
SELECT id, total FROM t2 ORDER BY id;
-- Plain views
CREATE VIEW v AS SELECT id, v * 2 AS w FROM src;
CREATE VIEW v AS SELECT 1; -- { serverError TABLE_ALREADY_EXISTS }
SELECT * FROM v ORDER BY id;
INSERT INTO v VALUES (1, 2); -- { serverError NOT_IMPLEMENTED }
EXISTS TABLE v;
CREATE OR REPLACE VIEW v AS SELECT id FROM src WHERE id > 2;
SELECT * FROM v ORDER BY id;
SELECT count() FROM (SELECT * FROM v) AS sub;
WITH v AS (SELECT 42 AS id) SELECT * FROM v;
DROP VIEW src; -- { serverError INCORRECT_QUERY }
DROP VIEW v;
SELECT * FROM v; -- { serverError UNKNOWN_TABLE }
-- Parameterized views
CREATE VIEW pv AS SELECT id, s FROM src WHERE v > {m:UInt32} AND s != {skip:String};
SELECT * FROM pv(m = 3, skip = 'y') ORDER BY id;
SELECT * FROM pv(m = 0, skip = 'nothing') ORDER BY id;
-- Inner tables: the engine given, dropped with the view
CREATE MATERIALIZED VIEW inner_mv ENGINE = MergeTree ORDER BY id POPULATE AS SELECT id, s FROM src WHERE v > 1;
SELECT * FROM inner_mv ORDER BY id;
INSERT INTO src VALUES (10, 10, 'z');
SELECT * FROM inner_mv ORDER BY id;
SELECT count() FROM system.tables WHERE database = currentDatabase() AND name LIKE '.inner_id.%';
DROP TABLE inner_mv;
SELECT count() FROM system.tables WHERE database = currentDatabase() AND name LIKE '.inner_id.%';
