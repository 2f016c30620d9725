-- groupArrayLast(N), groupArraySorted(N), groupArrayMovingSum/Avg([window]), groupConcat([sep[, limit]]): results, types, NULLs, GROUP BY, combinators, -State bytes and -State/-Merge through an AggregatingMergeTree.
DROP TABLE IF EXISTS m;
CREATE TABLE m (k UInt8, u UInt32, i Int16, f Float64, s String, d Date, n Nullable(UInt16), ns Nullable(String)) ENGINE = Memory;
INSERT INTO m SELECT number % 3, number * 37 % 101, toInt16(number * 7) - 100, number / 4, concat('s', toString(number * 13 % 29)), toDate('2024-03-01') + number * 3 % 17, if(number % 4 = 1, NULL, number * 11 % 50), if(number % 5 = 2, NULL, toString(number % 7)) FROM numbers(40);
INSERT INTO m SELECT number % 3, number * 53 % 89, toInt16(-number * 5), -number / 8, concat('t', toString(number % 9)), toDate('2023-12-25') + number, if(number % 2 = 1, NULL, number), if(number % 3 = 0, NULL, 'x') FROM numbers(25);
DROP TABLE IF EXISTS t;
CREATE TABLE t (k UInt8, u UInt32, i Int16, f Float64, s String, d Date, n Nullable(UInt16), ns Nullable(String)) ENGINE = MergeTree ORDER BY k;
INSERT INTO t SELECT * FROM m WHERE u < 50;
INSERT INTO t SELECT * FROM m WHERE u >= 50;
-- Order-independent over the MergeTree table with GROUP BY.
SELECT k, groupArraySorted(4)(u), groupArraySorted(3)(i), groupArraySorted(5)(s), groupArraySorted(2)(d), groupArraySorted(4)(n), groupArraySorted(3)(ns), groupArraySorted(100)(f) FROM t GROUP BY k ORDER BY k;
SELECT groupArraySorted(6)(u), groupArraySorted(3)(s), groupArraySortedIf(3)(i, k = 1), groupArraySortedArray(4)([u, i]) FROM t;
SELECT toTypeName(groupArraySorted(2)(n)), toTypeName(groupArrayLast(2)(ns)), toTypeName(groupArrayMovingSum(i)), toTypeName(groupArrayMovingSum(n)), toTypeName(groupArrayMovingAvg(u)), toTypeName(groupArrayMovingSum(f)), toTypeName(groupConcat(n)), toTypeName(groupConcat(s)) FROM t;
-- Order-dependent: the Memory table read by one thread.
SELECT groupArrayLast(5)(u), groupArrayLast(3)(s), groupArrayLast(4)(n), groupArrayLast(2)(ns), groupArrayLast(100)(d) FROM m WHERE k = 1 SETTINGS max_threads = 1;
SELECT groupArrayMovingSum(u), groupArrayMovingSum(4)(i), groupArrayMovingSum(3)(n), groupArrayMovingAvg(u), groupArrayMovingAvg(4)(f) FROM m WHERE k = 2 SETTINGS max_threads = 1;
SELECT groupConcat(u), groupConcat(', ')(s), groupConcat('-', 4)(n), groupConcat(ns), groupConcat(';', 3)(d), groupConcat('|')(f) FROM m WHERE k = 0 SETTINGS max_threads = 1;
SELECT groupArrayLast(3)(number), groupArrayMovingSum(number), groupArrayMovingSum(3)(number), groupArrayMovingAvg(number), groupArrayMovingAvg(3)(number), groupConcat(number), groupConcat(', ', 3)(number) FROM numbers(10);
SELECT groupArrayMovingSum(toInt8(number) - 3), groupArrayMovingAvg(toFloat32(number) / 3), groupArrayMovingSum(toFloat32(number)) FROM numbers(5);
SELECT groupArrayLast(2)(number), groupArraySorted(2)(number), groupArrayMovingSum(number), groupConcat(number), groupConcat(toNullable(number)) FROM numbers(0);
SELECT hex(groupArrayLastState(3)(number)), hex(groupArrayLastState(3)(toString(number))), hex(groupArrayMovingSumState(number)), hex(groupArrayMovingAvgState(3)(toUInt8(number))), hex(groupConcatState(', ', 3)(number)), hex(groupConcatState(number)), hex(groupConcatState(', ')(toNullable(number))) FROM numbers(10) SETTINGS max_threads = 1;
DROP TABLE IF EXISTS states;
CREATE TABLE states (p UInt8, last AggregateFunction(groupArrayLast(4), UInt32), sorted AggregateFunction(groupArraySorted(3), String), msum AggregateFunction(groupArrayMovingSum(2), Int16), mavg AggregateFunction(groupArrayMovingAvg, Nullable(UInt16)), cat AggregateFunction(groupConcat(','), String), cat3 AggregateFunction(groupConcat('+', 3), Nullable(String))) ENGINE = AggregatingMergeTree ORDER BY p;
INSERT INTO states SELECT 1, groupArrayLastState(4)(u), groupArraySortedState(3)(s), groupArrayMovingSumState(2)(i), groupArrayMovingAvgState(n), groupConcatState(',')(s), groupConcatState('+', 3)(ns) FROM m WHERE k = 0 SETTINGS max_threads = 1;
INSERT INTO states SELECT 1, groupArrayLastState(4)(u), groupArraySortedState(3)(s), groupArrayMovingSumState(2)(i), groupArrayMovingAvgState(n), groupConcatState(',')(s), groupConcatState('+', 3)(ns) FROM m WHERE k = 1 SETTINGS max_threads = 1;
SELECT p, groupArrayLastMerge(4)(last), groupArraySortedMerge(3)(sorted), groupArrayMovingSumMerge(2)(msum), groupArrayMovingAvgMerge(mavg), groupConcatMerge(',')(cat), groupConcatMerge('+', 3)(cat3) FROM states GROUP BY p ORDER BY p SETTINGS max_threads = 1;
OPTIMIZE TABLE states FINAL;
SELECT p, groupArrayLastMerge(4)(last), groupArraySortedMerge(3)(sorted), groupArrayMovingSumMerge(2)(msum), groupArrayMovingAvgMerge(mavg), groupConcatMerge(',')(cat), groupConcatMerge('+', 3)(cat3), hex(last), hex(msum), hex(cat3) FROM states GROUP BY p, last, msum, cat3 ORDER BY p;
SELECT groupArrayLast(number) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT groupArraySorted(0)(number) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT groupArrayMovingSum(0)(number) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT groupArrayMovingSum(s) FROM m; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT groupConcat(1)(number) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT groupConcat(',', 0)(number) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
