-- entropy, boundingRatio, simpleLinearRegression, anyHeavy, uniqUpTo: results, types, NULLs, GROUP BY, combinators, parts merged, -State bytes and -State/-Merge through an AggregatingMergeTree.
DROP TABLE IF EXISTS t;
CREATE TABLE t (k UInt8, x Float64, u UInt8, i Int32, n Nullable(UInt16), s String, ns Nullable(String)) ENGINE = MergeTree ORDER BY k;
INSERT INTO t SELECT number % 3, number * 1.5 - 7, toUInt8(number % 5), toInt32(number * number) - 50, if(number % 4 = 0, NULL, number % 6), toString(number % 7), if(number % 3 = 1, NULL, concat('v', toString(number % 4))) FROM numbers(60);
INSERT INTO t SELECT number % 3, number * 2.5 + 1, toUInt8(number % 2), toInt32(number * 3), if(number % 2 = 0, NULL, number % 3), toString(number % 2), concat('w', toString(number % 3)) FROM numbers(30);
DROP TABLE IF EXISTS m;
CREATE TABLE m (k UInt8, x Float64, u UInt8, i Int32, n Nullable(UInt16), s String, ns Nullable(String)) ENGINE = Memory;
-- In one order (the parts of t are read in parallel): anyHeavy depends on the order of rows.
INSERT INTO m SELECT * FROM t ORDER BY k, x, i, s, u SETTINGS max_threads = 1;
SELECT k, round(entropy(u), 12), round(entropy(s), 12), round(entropy(ns), 12), round(entropy(n), 12), boundingRatio(x, i), boundingRatio(i, n), simpleLinearRegression(x, i), simpleLinearRegression(u, n) FROM t GROUP BY k ORDER BY k;
SELECT round(entropy(u), 12), round(entropy(s), 12), round(entropy(n), 12), boundingRatio(x, i), simpleLinearRegression(i, x), uniqUpTo(u), uniqUpTo(3)(s), uniqUpTo(20)(i), uniqUpTo(4)(n) FROM m;
SELECT k, uniqUpTo(u), uniqUpTo(2)(u), uniqUpTo(10)(s), uniqUpTo(3)(ns), uniqUpTo(0)(x), uniqUpTo(100)(i) FROM t GROUP BY k ORDER BY k;
SELECT toTypeName(round(entropy(n), 12)), toTypeName(round(entropy(s), 12)), toTypeName(boundingRatio(x, n)), toTypeName(simpleLinearRegression(x, n)), toTypeName(simpleLinearRegression(x, i)), toTypeName(anyHeavy(n)), toTypeName(anyHeavy(s)), toTypeName(uniqUpTo(3)(n)) FROM t;
SELECT round(entropy(u), 12), boundingRatio(x, i), simpleLinearRegression(x, i), anyHeavy(u), anyHeavy(s), uniqUpTo(3)(u) FROM t WHERE k > 5;
SELECT round(entropy(n), 12), boundingRatio(x, n), simpleLinearRegression(x, n), anyHeavy(n), uniqUpTo(3)(n) FROM t WHERE k > 5;
SELECT round(entropyIf(u, k = 1), 12), boundingRatioIf(x, i, k = 2), uniqUpToIf(3)(s, k = 0), round(entropyArray([u, u + 1]), 12), uniqUpToArray(50)([u, u + 10]), round(entropyOrNull(u), 12) FROM t;
-- Order-dependent: a Memory table read by one thread.
SELECT anyHeavy(u), anyHeavy(s), anyHeavy(ns), anyHeavy(n), anyHeavy(x) FROM m WHERE k = 1 SETTINGS max_threads = 1;
SELECT anyHeavy(u), anyHeavy(s), anyHeavy(ns) FROM m SETTINGS max_threads = 1;
SELECT anyHeavy(arrayJoin([1, 2, 3, 3, 3, 1])), anyHeavy(arrayJoin(['a', 'b', 'b', 'c'])), round(entropy(arrayJoin([1, 1, 2, 3])), 12), simpleLinearRegression(arrayJoin([1, 2, 3]), arrayJoin([1, 2, 3]));
SELECT simpleLinearRegression(number, number * 2 + 1), boundingRatio(number, number * 3), simpleLinearRegression(5, number), boundingRatio(1, number) FROM numbers(10);
SELECT hex(entropyState(toUInt8(7))), hex(entropyState(toString('0'))), hex(boundingRatioState(number, number * 2)), hex(simpleLinearRegressionState(number, number * 2 + 1)) FROM numbers(10);
SELECT hex(anyHeavyState(number % 3)), hex(anyHeavyState(toString(number % 3))), hex(anyHeavyState(toNullable(toString(number % 3)))), hex(uniqUpToState(5)(number % 4)), hex(uniqUpToState(2)(number % 4)), hex(uniqUpToState(3)(toString(number % 3))), hex(uniqUpToState(3)(toNullable(number % 3))) FROM numbers(10) SETTINGS max_threads = 1;
SELECT hex(boundingRatioState(number, number)), hex(anyHeavyState(number)), hex(anyHeavyState(toString(number))), hex(uniqUpToState(3)(toNullable(number))), hex(entropyState(toNullable(number))) FROM numbers(0);
DROP TABLE IF EXISTS states;
CREATE TABLE states (p UInt8, e AggregateFunction(entropy, UInt8), es AggregateFunction(entropy, String), b AggregateFunction(boundingRatio, Float64, Int32), r AggregateFunction(simpleLinearRegression, Float64, Int32), h AggregateFunction(anyHeavy, UInt8), hs AggregateFunction(anyHeavy, Nullable(String)), q AggregateFunction(uniqUpTo(4), String), qn AggregateFunction(uniqUpTo(20), Nullable(UInt16))) ENGINE = AggregatingMergeTree ORDER BY p;
INSERT INTO states SELECT 1, entropyState(u), entropyState(s), boundingRatioState(x, i), simpleLinearRegressionState(x, i), anyHeavyState(u), anyHeavyState(ns), uniqUpToState(4)(s), uniqUpToState(20)(n) FROM m WHERE x < 20 SETTINGS max_threads = 1;
INSERT INTO states SELECT 1, entropyState(u), entropyState(s), boundingRatioState(x, i), simpleLinearRegressionState(x, i), anyHeavyState(u), anyHeavyState(ns), uniqUpToState(4)(s), uniqUpToState(20)(n) FROM m WHERE x >= 20 AND x < 50 SETTINGS max_threads = 1;
INSERT INTO states SELECT 1, entropyState(u), entropyState(s), boundingRatioState(x, i), simpleLinearRegressionState(x, i), anyHeavyState(u), anyHeavyState(ns), uniqUpToState(4)(s), uniqUpToState(20)(n) FROM m WHERE x >= 50 SETTINGS max_threads = 1;
SELECT p, round(entropyMerge(e), 12), round(entropyMerge(es), 12), boundingRatioMerge(b), simpleLinearRegressionMerge(r), anyHeavyMerge(h), anyHeavyMerge(hs), uniqUpToMerge(4)(q), uniqUpToMerge(20)(qn) FROM states GROUP BY p ORDER BY p SETTINGS max_threads = 1;
OPTIMIZE TABLE states FINAL;
SELECT p, round(entropyMerge(e), 12), round(entropyMerge(es), 12), boundingRatioMerge(b), simpleLinearRegressionMerge(r), anyHeavyMerge(h), anyHeavyMerge(hs), uniqUpToMerge(4)(q), uniqUpToMerge(20)(qn), hex(b), hex(r), hex(h), hex(hs), hex(qn) FROM states GROUP BY p, b, r, h, hs, qn ORDER BY p;
SELECT boundingRatio('a', 1); -- { serverError BAD_ARGUMENTS }
SELECT simpleLinearRegression(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT uniqUpTo(101)(number) FROM numbers(3); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT entropy(1)(number) FROM numbers(3); -- { serverError AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS }
