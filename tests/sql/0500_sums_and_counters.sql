-- sumKahan, sumWithOverflow, deltaSum, deltaSumTimestamp: results, types, NULLs, GROUP BY, -If/-Array/-OrNull, parts merged, -State bytes and -State/-Merge through an AggregatingMergeTree.
DROP TABLE IF EXISTS t;
CREATE TABLE t (k UInt8, ts DateTime, x Float64, u UInt8, i Int16, n Nullable(UInt32), f Float32) ENGINE = MergeTree ORDER BY (k, ts);
INSERT INTO t SELECT number % 3, toDateTime('2024-01-01 00:00:00') + number * 7, number / 3 + 0.1, toUInt8(number * 37 % 256), toInt16(number * 1000 - 30000), if(number % 5 = 0, NULL, number % 11), toFloat32(number / 7) FROM numbers(40);
INSERT INTO t SELECT number % 3, toDateTime('2024-01-01 00:00:00') + 1000 + number * 5, number * 1.1, toUInt8(number * 91 % 256), toInt16(number * 3000), if(number % 3 = 0, NULL, number % 13), toFloat32(number) FROM numbers(40);
INSERT INTO t SELECT 2, toDateTime('2024-01-02 00:00:00') + number, 1e15 + number / 10, toUInt8(255 - number), toInt16(-number * 2000), NULL, toFloat32(1e8) FROM numbers(17);
SELECT k, sumKahan(x), sumKahan(u), sumKahan(n), sumKahan(f), sumWithOverflow(u), sumWithOverflow(i), sumWithOverflow(n) FROM t GROUP BY k ORDER BY k;
SELECT sumKahan(x), sumWithOverflow(u), sumWithOverflow(i), sumWithOverflow(n) FROM t;
SELECT toTypeName(sumKahan(u)), toTypeName(sumKahan(n)), toTypeName(sumWithOverflow(u)), toTypeName(sumWithOverflow(n)), toTypeName(sumWithOverflow(f)), toTypeName(sumWithOverflow(i)) FROM t;
SELECT sumKahan(x), sumKahan(n), sumWithOverflow(u), sumWithOverflow(n) FROM t WHERE k > 5;
SELECT sumKahanIf(x, k = 1), sumWithOverflowIf(u, k = 2), sumKahanArray([x, x]), sumWithOverflowOrNull(n) FROM t;
SELECT sumKahan(number / 3), hex(sumKahanState(number / 3)), hex(sumKahanState(toNullable(number / 3))), hex(sumWithOverflowState(toUInt8(number))), sumWithOverflow(toUInt8(number)) FROM numbers(100);
SELECT sumKahan(0.1) FROM numbers(1000);
-- Order-dependent: one part (and a Memory table) read by one thread, rows in key order.
DROP TABLE IF EXISTS d;
CREATE TABLE d (k UInt8, ts DateTime, x Float64, u UInt8, i Int16, n Nullable(UInt32), f Float32) ENGINE = MergeTree ORDER BY (k, ts);
INSERT INTO d SELECT * FROM t;
DROP TABLE IF EXISTS dm;
CREATE TABLE dm (k UInt8, ts DateTime, x Float64, u UInt8, i Int16, n Nullable(UInt32), f Float32) ENGINE = Memory;
INSERT INTO dm SELECT * FROM d ORDER BY k, ts SETTINGS max_threads = 1;
SELECT deltaSum(u), deltaSum(i), deltaSum(n), deltaSum(x), deltaSumTimestamp(u, ts), deltaSumTimestamp(n, ts), deltaSumTimestamp(i, toUInt32(ts)) FROM dm WHERE k = 1 SETTINGS max_threads = 1;
SELECT deltaSum(u), deltaSum(n), deltaSumTimestamp(u, ts), deltaSumTimestamp(n, ts) FROM dm SETTINGS max_threads = 1;
SELECT toTypeName(deltaSum(u)), toTypeName(deltaSum(n)), toTypeName(deltaSum(f)), toTypeName(deltaSumTimestamp(n, ts)), toTypeName(deltaSumTimestamp(x, toDate(ts))) FROM t;
SELECT deltaSum(arrayJoin([1, 2, 3, 0, 3, 4, 2, 3])), deltaSum(arrayJoin([1.5, 2.5, 1.0, 4.0])), deltaSumTimestamp(p.1, p.2) FROM (SELECT arrayJoin([(1, 1::UInt32), (5, 2), (2, 3), (7, 4)]) AS p) SETTINGS max_threads = 1;
SELECT deltaSum(number), deltaSum(toNullable(number)), deltaSumTimestamp(number, number) FROM numbers(0);
SELECT hex(deltaSumState(toUInt8(number % 7))), hex(deltaSumState(toNullable(toUInt8(number % 7)))), hex(deltaSumTimestampState(number % 7, toDateTime(number))), hex(deltaSumState(toNullable(number))) FROM numbers(20) SETTINGS max_threads = 1;
SELECT hex(deltaSumState(toNullable(number))), hex(sumKahanState(toNullable(number))) FROM numbers(0);
DROP TABLE IF EXISTS states;
CREATE TABLE states (p UInt8, kahan AggregateFunction(sumKahan, Float64), overflow AggregateFunction(sumWithOverflow, UInt8), delta AggregateFunction(deltaSum, UInt8), delta_n AggregateFunction(deltaSum, Nullable(UInt32)), delta_ts AggregateFunction(deltaSumTimestamp, UInt8, DateTime), kahan_n AggregateFunction(sumKahan, Nullable(UInt32))) ENGINE = AggregatingMergeTree ORDER BY p;
INSERT INTO states SELECT 1, sumKahanState(x), sumWithOverflowState(u), deltaSumState(u), deltaSumState(n), deltaSumTimestampState(u, ts), sumKahanState(n) FROM dm WHERE ts < '2024-01-01 00:10:00' SETTINGS max_threads = 1;
INSERT INTO states SELECT 1, sumKahanState(x), sumWithOverflowState(u), deltaSumState(u), deltaSumState(n), deltaSumTimestampState(u, ts), sumKahanState(n) FROM dm WHERE ts >= '2024-01-01 00:10:00' AND ts < '2024-01-02 00:00:00' SETTINGS max_threads = 1;
INSERT INTO states SELECT 1, sumKahanState(x), sumWithOverflowState(u), deltaSumState(u), deltaSumState(n), deltaSumTimestampState(u, ts), sumKahanState(n) FROM dm WHERE ts >= '2024-01-02 00:00:00' SETTINGS max_threads = 1;
SELECT p, sumKahanMerge(kahan), sumWithOverflowMerge(overflow), deltaSumMerge(delta), deltaSumMerge(delta_n), deltaSumTimestampMerge(delta_ts), sumKahanMerge(kahan_n) FROM states GROUP BY p ORDER BY p SETTINGS max_threads = 1;
OPTIMIZE TABLE states FINAL;
SELECT p, sumKahanMerge(kahan), sumWithOverflowMerge(overflow), deltaSumMerge(delta), deltaSumMerge(delta_n), deltaSumTimestampMerge(delta_ts), sumKahanMerge(kahan_n), hex(overflow), hex(delta_ts), count() FROM states GROUP BY p, overflow, delta_ts ORDER BY p;
SELECT sumKahan('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT deltaSum(1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT deltaSumTimestamp(1, toInt8(1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT deltaSumTimestamp(1, toDate32(1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT deltaSumTimestamp(toFloat32(1.5), 2.5), deltaSumTimestamp(3, toDate(5));
SELECT sumKahan(1)(number) FROM numbers(2); -- { serverError AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS }
