CREATE TABLE j (k UInt64, v String, n Nullable(Int32)) ENGINE = Join(ANY, LEFT, k);
INSERT INTO j VALUES (1, 'a', 1), (2, 'b', NULL), (1, 'c', 3);
SELECT * FROM j ORDER BY k;
SELECT joinGet('j', 'v', toUInt64(1)), joinGet('j', 'v', toUInt64(5)), joinGetOrNull('j', 'v', toUInt64(5)), joinGet('j', 'n', toUInt64(2));
SELECT toTypeName(joinGet('j', 'n', toUInt64(2))), toTypeName(joinGet('j', 'v', toUInt64(1))), toTypeName(joinGetOrNull('j', 'v', toUInt64(5)));
SELECT number, joinGet('j', 'v', number) FROM numbers(4) ORDER BY number;
SELECT joinGet('j', 'v', 'x'); -- { serverError TYPE_MISMATCH }
SELECT joinGet('j', 'v', 1); -- { serverError TYPE_MISMATCH }
SELECT name, engine, total_rows FROM system.tables WHERE database = currentDatabase() AND name = 'j';
CREATE TABLE j_last (k UInt64, v String) ENGINE = Join(ANY, LEFT, k) SETTINGS join_any_take_last_row = 1;
INSERT INTO j_last VALUES (1, 'a'), (1, 'b');
SELECT * FROM j_last;
CREATE TABLE j2 (a UInt32, b String, v Float64) ENGINE = Join(ANY, LEFT, a, b);
INSERT INTO j2 VALUES (1, 'x', 0.5), (2, 'y', 1.5);
SELECT joinGet('j2', 'v', toUInt32(2), 'y'), joinGet('j2', 'v', toUInt32(2), 'x');
CREATE TABLE j_all (k UInt64, v String) ENGINE = Join(ALL, INNER, k);
INSERT INTO j_all VALUES (1, 'a'), (1, 'b');
SELECT * FROM j_all ORDER BY v;
TRUNCATE TABLE j;
SELECT count() FROM j;
CREATE TABLE bad1 (k UInt64) ENGINE = Join(ANY, LEFT, z); -- { serverError NO_SUCH_COLUMN_IN_TABLE }
CREATE TABLE bad2 (k UInt64) ENGINE = Join(FOO, LEFT, k); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad3 (k UInt64) ENGINE = Join(ANY, LEFT); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
