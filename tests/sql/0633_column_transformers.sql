-- Column transformers after *, t.* and COLUMNS('re'): EXCEPT, REPLACE and APPLY, chained left to right
DROP TABLE IF EXISTS ct;
CREATE TABLE ct (a UInt32, b String, ab Int64) ENGINE = MergeTree ORDER BY a;
INSERT INTO ct VALUES (1, 'x', 10), (2, 'y', 20), (3, 'zz', 30);
SELECT * APPLY(toString) FROM ct ORDER BY a FORMAT TSVWithNamesAndTypes;
SELECT * APPLY toString FROM ct ORDER BY a FORMAT TSVWithNames;
SELECT * APPLY(toTypeName) FROM ct LIMIT 1 FORMAT TSVWithNames;
SELECT COLUMNS('a.*') APPLY(sum) FROM ct FORMAT TSVWithNamesAndTypes;
SELECT COLUMNS('a') EXCEPT (ab) APPLY(max) FROM ct FORMAT TSVWithNamesAndTypes;
SELECT * EXCEPT (b) REPLACE (ab + 1 AS ab) APPLY(x -> x * 2) FROM ct ORDER BY a FORMAT TSVWithNamesAndTypes;
SELECT * EXCEPT (b) APPLY(quantile(0.5)) FROM ct FORMAT TSVWithNamesAndTypes;
SELECT * EXCEPT (b) APPLY(sum) APPLY(toString) FROM ct FORMAT TSVWithNamesAndTypes;
SELECT ct.* EXCEPT (b) APPLY(x -> x + 1) FROM ct ORDER BY a FORMAT TSVWithNamesAndTypes;
SELECT * EXCEPT (b) APPLY(x -> x + 1) REPLACE (a * 10 AS a) FROM ct ORDER BY ab FORMAT TSVWithNames;
SELECT * APPLY(x -> x) FROM ct ORDER BY a FORMAT TSVWithNames;
SELECT a, * EXCEPT (a, ab) APPLY(length) FROM ct ORDER BY a FORMAT TSVWithNames;
SELECT * EXCEPT (nope) FROM ct ORDER BY a;
SELECT * EXCEPT b REPLACE (a + 1 AS a) FROM ct ORDER BY a FORMAT TSVWithNames;
SELECT * REPLACE (concat(b, '!') AS b, 0 AS nope) FROM ct ORDER BY a;
SELECT number, COLUMNS('n') APPLY(x -> x * 10) FROM numbers(3) ORDER BY number;
SELECT * FROM (SELECT * EXCEPT (b) APPLY(toString) FROM ct) ORDER BY 1;
SELECT count() FROM (SELECT * APPLY(toString) FROM ct);
SELECT * EXCEPT STRICT (nope) FROM ct; -- { serverError BAD_ARGUMENTS }
SELECT * REPLACE STRICT (1 AS nope) FROM ct; -- { serverError BAD_ARGUMENTS }
SELECT * APPLY(nosuchfunc) FROM ct; -- { serverError UNKNOWN_FUNCTION }
SELECT * APPLY(sum) FROM ct; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT * APPLY(x, y -> x) FROM ct; -- { serverError SYNTAX_ERROR }
SELECT * EXCEPT (id) APPLY(toString) FROM (SELECT 1 AS id, [1, 2] AS arr, 7 AS k) ARRAY JOIN arr AS x ORDER BY 1 FORMAT TSVWithNames;
