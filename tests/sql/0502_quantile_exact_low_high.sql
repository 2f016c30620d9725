-- quantileExactLow/High and their quantiles/median forms: even and odd counts, levels, types, NULLs, GROUP BY, parts merged, -State bytes and -State/-Merge through an AggregatingMergeTree.
DROP TABLE IF EXISTS t;
CREATE TABLE t (k UInt8, u UInt32, i Int16, f Float64, d Date, dec Decimal(9, 2), n Nullable(UInt8)) ENGINE = MergeTree ORDER BY k;
INSERT INTO t SELECT number % 4, number * 7 % 101, toInt16(number) - 40, number / 3, toDate('2024-01-01') + number, toDecimal32(number % 23, 2), if(number % 3 = 0, NULL, number % 17) FROM numbers(50);
INSERT INTO t SELECT number % 4, number * 13 % 97, toInt16(number * 3), -number / 7, toDate('2023-06-01') + number * 2, toDecimal32(number * 3 % 11, 2), if(number % 2 = 0, NULL, number) FROM numbers(31);
DROP TABLE IF EXISTS m;
CREATE TABLE m (k UInt8, u UInt32, i Int16, f Float64, d Date, dec Decimal(9, 2), n Nullable(UInt8)) ENGINE = Memory;
INSERT INTO m SELECT * FROM t;
SELECT k, count(), quantileExactLow(u), quantileExactHigh(u), quantileExact(u), medianExactLow(i), medianExactHigh(i), quantileExactLow(0.5)(f), quantileExactHigh(0.5)(f), quantileExactLow(d), quantileExactHigh(dec), quantileExactLow(n), quantileExactHigh(n) FROM t GROUP BY k ORDER BY k;
SELECT quantilesExactLow(0, 0.1, 0.25, 0.5, 0.75, 0.9, 1)(u), quantilesExactHigh(0, 0.1, 0.25, 0.5, 0.75, 0.9, 1)(u), quantilesExactLow(0.5, 0.3)(n), quantilesExactHigh(0.5)(dec) FROM m;
SELECT k, quantilesExactLow(0.2, 0.5)(i), quantilesExactHigh(0.5, 0.8)(f) FROM m GROUP BY k ORDER BY k;
SELECT toTypeName(quantileExactLow(u)), toTypeName(quantileExactHigh(n)), toTypeName(quantilesExactLow(0.5)(n)), toTypeName(quantileExactHigh(d)), toTypeName(quantileExactLow(dec)), toTypeName(medianExactHigh(f)) FROM t;
SELECT quantileExactLow(u), quantileExactHigh(n), quantilesExactLow(0.5)(u) FROM t WHERE k > 10;
SELECT quantileExactLowIf(u, k = 1), quantileExactHighArray([u, i]), quantileExactLowOrNull(n) FROM t;
SELECT n, quantilesExactLow(0, 0.1, 0.25, 0.3, 0.5, 0.6, 0.75, 0.99, 1)(number), quantilesExactHigh(0, 0.1, 0.25, 0.3, 0.5, 0.6, 0.75, 0.99, 1)(number) FROM (SELECT arrayJoin(range(1, 12)) AS n) ARRAY JOIN range(n) AS number GROUP BY n ORDER BY n;
SELECT hex(quantileExactLowState(number)), hex(quantileExactHighState(toNullable(number))), hex(quantilesExactLowState(0.5)(number)) FROM numbers(3);
DROP TABLE IF EXISTS states;
CREATE TABLE states (k UInt8, lo AggregateFunction(quantileExactLow, UInt32), hi AggregateFunction(quantileExactHigh(0.5), Nullable(UInt8)), los AggregateFunction(quantilesExactLow(0.25, 0.5), Int16)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO states SELECT k, quantileExactLowState(u), quantileExactHighState(0.5)(n), quantilesExactLowState(0.25, 0.5)(i) FROM t WHERE u < 40 GROUP BY k;
INSERT INTO states SELECT k, quantileExactLowState(u), quantileExactHighState(0.5)(n), quantilesExactLowState(0.25, 0.5)(i) FROM t WHERE u >= 40 GROUP BY k;
SELECT k, quantileExactLowMerge(lo), quantileExactHighMerge(0.5)(hi), quantilesExactLowMerge(0.25, 0.5)(los) FROM states GROUP BY k ORDER BY k;
OPTIMIZE TABLE states FINAL;
SELECT k, quantileExactLowMerge(lo), quantileExactHighMerge(0.5)(hi), quantilesExactLowMerge(0.25, 0.5)(los) FROM states GROUP BY k ORDER BY k;
SELECT quantileExactLow('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
