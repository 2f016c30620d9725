-- FROM t FINAL: refused for engines that do not merge rows (ILLEGAL_FINAL), for subqueries and CTEs (UNSUPPORTED_METHOD); ignored on a view; the `final` setting is ignored where FINAL means nothing
CREATE TABLE plain (k UInt8, v UInt8) ENGINE = MergeTree ORDER BY k;
CREATE TABLE rep (k UInt8, v UInt8) ENGINE = ReplacingMergeTree ORDER BY k;
CREATE TABLE mem (k UInt8) ENGINE = Memory;
CREATE TABLE nul (k UInt8) ENGINE = Null;
INSERT INTO plain VALUES (1, 1), (1, 2);
INSERT INTO rep VALUES (1, 1);
INSERT INTO rep VALUES (1, 2);
INSERT INTO mem VALUES (1);
SELECT * FROM plain FINAL; -- { serverError ILLEGAL_FINAL }
SELECT count() FROM plain AS p FINAL WHERE k = 1; -- { serverError ILLEGAL_FINAL }
SELECT * FROM mem FINAL; -- { serverError 181 }
SELECT * FROM nul FINAL; -- { serverError ILLEGAL_FINAL }
SELECT * FROM numbers(2) FINAL; -- { serverError ILLEGAL_FINAL }
SELECT * FROM system.one FINAL; -- { serverError ILLEGAL_FINAL }
SELECT * FROM rep FINAL JOIN plain FINAL ON rep.k = plain.k; -- { serverError ILLEGAL_FINAL }
SELECT * FROM rep WHERE k IN (SELECT k FROM plain FINAL); -- { serverError ILLEGAL_FINAL }
SELECT * FROM plain FINAL SETTINGS final = 1; -- { serverError ILLEGAL_FINAL }
SELECT * FROM (SELECT 1) FINAL; -- { serverError UNSUPPORTED_METHOD }
SELECT * FROM (SELECT * FROM plain) AS s FINAL; -- { serverError UNSUPPORTED_METHOD }
WITH c AS (SELECT 1) SELECT * FROM c FINAL; -- { serverError UNSUPPORTED_METHOD }
SELECT * FROM missing FINAL; -- { serverError UNKNOWN_TABLE }
SELECT * FROM rep FINAL;
SELECT r.k, r.v, p.v FROM rep AS r FINAL JOIN plain AS p ON r.k = p.k ORDER BY p.v;
SELECT * FROM plain ORDER BY v SETTINGS final = 1;
SELECT * FROM mem SETTINGS final = 1;
SELECT * FROM rep SETTINGS final = 1;
CREATE VIEW pv AS SELECT * FROM plain;
SELECT * FROM pv FINAL ORDER BY v;
CREATE MATERIALIZED VIEW mv ENGINE = MergeTree ORDER BY k AS SELECT k FROM plain;
SELECT * FROM mv FINAL; -- { serverError ILLEGAL_FINAL }
