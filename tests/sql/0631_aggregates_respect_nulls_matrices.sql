-- argAndMin/argAndMax, any_respect_nulls and its aliases, the covariance matrices, largestTriangleThreeBuckets.
CREATE TABLE t (g UInt8, s String, x Int32, n Nullable(UInt8), f Float64) ENGINE = MergeTree ORDER BY tuple();
INSERT INTO t VALUES (0, 'a', 3, NULL, 1.5), (1, 'b', 1, 2, -2), (2, 'c', 5, NULL, 4.25), (0, 'd', 6, 7, 0), (1, 'e', -4, NULL, 3), (2, 'f', 2, 1, 9);

SELECT argAndMin(s, x), argAndMax(s, x), toTypeName(argAndMax(s, x)), argAndMax(f, s) FROM t;
SELECT g, argAndMin(s, f), argAndMax(x, s) FROM t GROUP BY g ORDER BY g;
SELECT argAndMin(s, x) FROM t WHERE x > 100;

SELECT any_respect_nulls(n), anyRespectNulls(n), anyLast_respect_nulls(n), anyLastRespectNulls(n), toTypeName(any_respect_nulls(n)) FROM t;
SELECT first_value_respect_nulls(n), last_value_respect_nulls(n), any_value_respect_nulls(s) FROM t;
SELECT first_value(n) RESPECT NULLS, last_value(n) RESPECT NULLS, any(n) RESPECT NULLS, anyLast(n) RESPECT NULLS FROM t;
SELECT any_respect_nulls(x), anyLast_respect_nulls(x), toTypeName(anyLast_respect_nulls(x)) FROM t;

SELECT corrMatrix(x, f, g), covarSampMatrix(x, f), covarPopMatrix(x, f, g) FROM t;
SELECT corrMatrix(number, number * number, number % 7), covarSampMatrix(number, number % 7), covarPopMatrix(number, number % 7) FROM numbers(10);
SELECT toTypeName(corrMatrix(x, f)), covarSampMatrix(x) FROM t WHERE x = 1;
SELECT hex(covarPopMatrixState(number, number % 7)), hex(corrMatrixState(number)) FROM numbers(3);
SELECT g, covarPopMatrix(x, f) FROM t GROUP BY g ORDER BY g;
SELECT corrMatrix(s) FROM t; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }

SELECT largestTriangleThreeBuckets(4)(x, y) FROM values('x Float64, y Float64', (1, 10), (2, 20), (3, 15), (4, 30), (5, 5), (6, 25), (7, 8));
SELECT lttb(3)(toDate('2024-01-01') + number, number * 3 % 7), lttb(2)(toDateTime('2024-01-01 00:00:00', 'UTC') + number, toFloat32(number)) FROM numbers(10);
SELECT toTypeName(largestTriangleThreeBuckets(4)(x, f)), largestTriangleThreeBuckets(1)(x, f), largestTriangleThreeBuckets(2)(x, f), largestTriangleThreeBuckets(10)(x, f) FROM t;
SELECT largestTriangleThreeBuckets(5)(number, sin(number)) FROM numbers(100);
SELECT largestTriangleThreeBuckets(x, f) FROM t; -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }

SELECT singleValueOrNull(x), toTypeName(singleValueOrNull(x)) FROM values('x UInt8', 1, 1, 1);
SELECT singleValueOrNull(g), singleValueOrNull(s), singleValueOrNull(f) FROM t WHERE s IN ('a', 'd');
SELECT singleValueOrNull(n), toTypeName(singleValueOrNull(n)), singleValueOrNull(x) FROM t;
SELECT number % 2 AS g, singleValueOrNull(intDiv(number, 10) + g) FROM numbers(10) GROUP BY g ORDER BY g;
SELECT singleValueOrNull(number) FROM numbers(0);
SELECT singleValueOrNull(x) FROM values('x Nullable(String)', 'a', NULL, 'a');
