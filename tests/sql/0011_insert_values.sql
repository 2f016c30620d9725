-- INSERT ... VALUES: column lists, defaults, expressions, NULLs, several inserts
CREATE TABLE t (id UInt32, name String DEFAULT 'none', score Float64 DEFAULT 0.5, tag Nullable(String), tags Array(String)) ENGINE = Memory;
INSERT INTO t VALUES (1, 'a', 1.25, 'x', ['p']);
INSERT INTO t (id, name) VALUES (2, 'b');
INSERT INTO t (name, id) VALUES ('c', 3), ('d', 4);
INSERT INTO t (id) VALUES (5);
INSERT INTO t VALUES (6, 'f', -1, NULL, []), (7, 'g', 1e10, 'y', ['q', 'r']);
INSERT INTO t VALUES (8, 'h', 2 + 3, concat('a', 'b'), ['z']);
INSERT INTO t (id, tag) VALUES (9, NULL);
INSERT INTO TABLE t (id, name) VALUES (11, 'k');
INSERT INTO t VALUES(12,'l',3.5,'t',['u'])
;
INSERT INTO t (id, name) VALUES (13, 'it''s'), (14, 'back\\slash'), (15, 'tab\there'), (16, 'new\nline'), (17, 'uni ☃ ü');
SELECT * FROM t ORDER BY id;
SELECT count(), countIf(tag IS NULL), sum(score) FROM t;
SELECT id, name FROM t WHERE id >= 13 ORDER BY id FORMAT CSV;
CREATE TABLE nums (a Int64, b UInt8, c Float32) ENGINE = Memory;
INSERT INTO nums VALUES (-1, 255, -1.5), (9223372036854775807, 0, 3.4e38), (-9223372036854775808, 1, 1e-30);
INSERT INTO nums VALUES (+5, 7, .5), (0x10, 0b101, 1.);
SELECT * FROM nums ORDER BY a;
CREATE TABLE dates (d Date, dt DateTime, dt64 DateTime64(3)) ENGINE = Memory;
INSERT INTO dates VALUES ('2024-01-31', '2024-01-31 23:59:59', '2024-01-31 23:59:59.999'), ('1970-01-01', '1970-01-01 00:00:00', '1970-01-01 00:00:00.000');
INSERT INTO dates VALUES (toDate('2000-02-29'), toDateTime('2000-02-29 12:00:00'), toDateTime64('2000-02-29 12:00:00.5', 3));
SELECT * FROM dates ORDER BY d;
CREATE TABLE nul (x UInt64) ENGINE = Null;
INSERT INTO nul VALUES (1), (2);
SELECT count() FROM nul;
INSERT INTO missing VALUES (1); -- { serverError UNKNOWN_TABLE }
INSERT INTO t (id, nope) VALUES (1, 2); -- { serverError NO_SUCH_COLUMN_IN_TABLE }
SELECT count() FROM t;
