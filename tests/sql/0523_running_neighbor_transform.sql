-- runningDifference(StartingWithFirstValue) and neighbor (block-local, behind allow_deprecated_error_prone_window_functions), transform with a column default.
CREATE TABLE t (id UInt32, u8 UInt8, i64 Int64, u64 UInt64, f Float32, n Nullable(Int32), d Date, dt DateTime('UTC'), s String) ENGINE = MergeTree ORDER BY id;
INSERT INTO t VALUES (1, 1, -5, 10, 1.5, 1, '2020-01-01', '2020-01-01 00:00:00', 'a'), (2, 5, 100, 3, -2.25, NULL, '2020-01-05', '2020-01-01 00:01:00', 'b'), (3, 2, -9223372036854775808, 18446744073709551615, 0, 2, '2019-12-31', '2020-01-01 00:00:30', 'c'), (4, 255, 9223372036854775807, 0, 10, 10, '2020-03-01', '2021-01-01 00:00:00', 'd'), (5, 0, 0, 7, 1e10, NULL, '2020-03-01', '2021-01-01 00:00:00', 'e'), (6, 3, 1, 1, -1, 3, '2020-03-02', '2021-01-01 00:00:01', 'f');
SELECT runningDifference(number) FROM numbers(3); -- { serverError DEPRECATED_FUNCTION }
SELECT neighbor(number, 1) FROM numbers(3); -- { serverError DEPRECATED_FUNCTION }
SELECT runningDifferenceStartingWithFirstValue(number) FROM numbers(3); -- { serverError DEPRECATED_FUNCTION }
SET allow_deprecated_error_prone_window_functions = 1;
SELECT id, runningDifference(u8) AS a, toTypeName(a), runningDifference(i64) AS b, toTypeName(b), runningDifference(u64) AS c, toTypeName(c), runningDifference(f) AS e, toTypeName(e) FROM (SELECT * FROM t ORDER BY id);
SELECT id, runningDifference(n) AS a, toTypeName(a), runningDifferenceStartingWithFirstValue(n) AS b, runningDifference(d) AS c, toTypeName(c), runningDifference(dt) AS e, toTypeName(e), runningDifferenceStartingWithFirstValue(u8) FROM (SELECT * FROM t ORDER BY id);
SELECT runningDifference(x), runningDifferenceStartingWithFirstValue(x), toTypeName(runningDifference(x)) FROM (SELECT arrayJoin([1, 5, 2, 10]) AS x);
SELECT runningDifference(toUInt16(x)) AS g, toTypeName(g), runningDifference(toInt8(x)) AS h, toTypeName(h), runningDifference(toUInt32(x)) AS k, toTypeName(k) FROM (SELECT arrayJoin([1, 5, 2, 10]) AS x);
SELECT runningDifference(s) FROM t; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT runningDifference(toDecimal32(1, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT id, neighbor(u8, 1), neighbor(u8, -1), neighbor(u8, 2, 99) AS c, toTypeName(c), neighbor(s, -2), neighbor(s, 1, 'z'), neighbor(n, 1), neighbor(u64, toInt8(id % 3) - 1) FROM (SELECT * FROM t ORDER BY id);
SELECT neighbor(x, 1), neighbor(x, -1), neighbor(x, 2, 99), neighbor(x, number % 3 - 1), toTypeName(neighbor(x, 1)) FROM (SELECT number, number * 10 AS x FROM numbers(5));
SELECT neighbor(toNullable(x), 1), toTypeName(neighbor(toNullable(x), 1)), neighbor(x, 1, NULL), toTypeName(neighbor(x, 1, NULL)), neighbor(toString(x), -1), neighbor(x, 1, number) FROM (SELECT number, number * 10 AS x FROM numbers(3));
SELECT neighbor(x, 1, toUInt8(5)) AS a, toTypeName(a), neighbor(toUInt8(x), 1, 1000) AS b, toTypeName(b) FROM (SELECT number AS x FROM numbers(3));
SELECT neighbor(number, 1, 'a') FROM numbers(3); -- { serverError NO_COMMON_TYPE }
SELECT neighbor(number, 1.5) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT transform(number, [1, 2], [10, 20], number) AS x, toTypeName(x) FROM numbers(4);
SELECT transform(number, [1, 2], [10, 20], toUInt64(number + 100)) AS x, toTypeName(x) FROM numbers(4);
SELECT transform(number, [1, 2], [1000, 20], toUInt8(number)) AS x, toTypeName(x) FROM numbers(4);
SELECT transform(number, [1, 2], [10.5, 20], toUInt32(number)) AS x, toTypeName(x) FROM numbers(4);
SELECT transform(number, [1, 2], [10.5, 20], number) FROM numbers(4); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT transform(number, [1, 2], [10, 20], toNullable(number)) AS x, toTypeName(x) FROM numbers(4);
SELECT id, transform(u64, [3, 7], [30, 70], u64) AS x, toTypeName(x), transform(u8, [1, 255], [100, 200], u64), transform(s, ['a', 'c'], ['A', 'C'], s) FROM t ORDER BY id;
SELECT transform(number, [1, 2], [-10, 20], number) FROM numbers(4); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
