-- DEFAULT expressions that read other columns, MATERIALIZED, ALIAS and EPHEMERAL columns:
-- what INSERT fills, what SELECT * shows, and the errors
CREATE TABLE kinds (a UInt64, b UInt64 DEFAULT a * 2, c Date MATERIALIZED toDate(a), e String ALIAS toString(a), f UInt8 EPHEMERAL 5, g UInt64 DEFAULT f + b) ENGINE = MergeTree ORDER BY a;
INSERT INTO kinds (a) VALUES (1);
INSERT INTO kinds VALUES (2, 3); -- { serverError SYNTAX_ERROR }
INSERT INTO kinds VALUES (2, 3, 4);
INSERT INTO kinds (a, f) VALUES (3, 10);
INSERT INTO kinds (a, c) VALUES (4, '2020-01-01'); -- { serverError ILLEGAL_COLUMN }
INSERT INTO kinds (a, e) VALUES (4, 'x'); -- { serverError NO_SUCH_COLUMN_IN_TABLE }
INSERT INTO kinds (a, b, g) VALUES (5, NULL, NULL);
INSERT INTO kinds (a, f) SELECT number + 10, number FROM numbers(3);
INSERT INTO kinds FORMAT CSV 20,\N,\N
;
INSERT INTO kinds (a, f) FORMAT JSONEachRow {"a": 30, "f": 7}
;
SELECT * FROM kinds ORDER BY a;
SELECT a, b, c, e, g FROM kinds ORDER BY a;
SELECT kinds.* FROM kinds ORDER BY a;
SELECT * EXCEPT (b) FROM kinds ORDER BY a;
SELECT *, c FROM kinds ORDER BY a;
SELECT * FROM (SELECT * FROM kinds) ORDER BY a FORMAT TSVWithNames;
SELECT * FROM kinds WHERE a = 3;
SELECT * FROM kinds WHERE a = 3 SETTINGS asterisk_include_materialized_columns = 1;
SELECT * FROM kinds ORDER BY a SETTINGS asterisk_include_materialized_columns = 1 FORMAT TSVWithNames;
DESCRIBE kinds;
SELECT name, default_kind, default_expression FROM system.columns WHERE database = currentDatabase() AND table = 'kinds' ORDER BY position;
-- The DEFAULT of a given column replaces its NULLs when the type cannot hold them
CREATE TABLE nulls (a UInt8, b UInt8 DEFAULT 5, s String DEFAULT concat('s', toString(a))) ENGINE = Memory;
INSERT INTO nulls VALUES (1, NULL, NULL);
INSERT INTO nulls SELECT 2, NULL, NULL;
INSERT INTO nulls FORMAT CSV 3,\N,\N
;
INSERT INTO nulls FORMAT JSONEachRow {"a": 4, "b": null, "s": null}
;
SELECT * FROM nulls ORDER BY a;
-- Chains and copies
CREATE TABLE chain (a UInt64, b UInt64 DEFAULT a + 1, c String ALIAS concat('v', toString(b)), d UInt64 MATERIALIZED b * 10) ENGINE = Memory;
INSERT INTO chain (a) SELECT number FROM numbers(3);
SELECT a, b, c, d FROM chain ORDER BY a;
CREATE TABLE chain_copy AS chain;
INSERT INTO chain_copy SELECT * FROM chain;
SELECT a, b, c, d FROM chain_copy ORDER BY a;
-- Bad expressions fail at CREATE
CREATE TABLE cyclic (a UInt64 DEFAULT b, b UInt64 DEFAULT a) ENGINE = Memory; -- { serverError CYCLIC_ALIASES }
CREATE TABLE unknown (a UInt64 DEFAULT zzz) ENGINE = Memory; -- { serverError UNKNOWN_IDENTIFIER }
