-- groupArrayInsertAt (the first value per position wins; the default and size parameters, converted as ClickHouse converts them) and exponentialMovingAverage(half_decay): results, result types, -State bytes and a round trip through an AggregatingMergeTree.
SELECT groupArrayInsertAt(toString(number), number * 2), groupArrayInsertAt('-')(toString(number), number * 2), groupArrayInsertAt('-', 5)(toString(number), number * 2) FROM numbers(5);
SELECT hex(groupArrayInsertAtState(toString(number), number * 2)), hex(groupArrayInsertAtState(number, number * 2)), toTypeName(groupArrayInsertAtState(number, number * 2)) FROM numbers(3);
DROP TABLE IF EXISTS ia1;
CREATE TABLE ia1 (x Nullable(UInt64), p UInt8) ENGINE = Memory;
INSERT INTO ia1 VALUES (0, 0), (NULL, 2), (4, 4), (5, 0);
SELECT groupArrayInsertAt(x, p), toTypeName(groupArrayInsertAt(x, p)), hex(groupArrayInsertAtState(x, p)) FROM ia1;
DROP TABLE ia1;
SELECT hex(groupArrayInsertAtState(CAST(NULL, 'Nullable(UInt8)'), number)), hex(groupArrayInsertAtState(number, number)), groupArrayInsertAt(number, number) FROM numbers(0);
SELECT groupArrayInsertAt(number, toNullable(number * 2)), groupArrayInsertAt(NULL, 4)(number, number), groupArrayInsertAt(-1.5)(toFloat32(number), number * 2), groupArrayInsertAt(7, 2)(toUInt8(number), number + 1) FROM numbers(3);
SELECT hex(groupArrayInsertAtState(toFixedString('ab', 2), number)), hex(groupArrayInsertAtState(toDecimal32(1.5, 2), number)), hex(groupArrayInsertAtState(toDate('2020-01-01'), number)), groupArrayInsertAt(toDate('2020-01-01'), number) FROM numbers(2);
SELECT hex(groupArrayInsertAtState(x, 0)), groupArrayInsertAt(x, 1) FROM (SELECT true AS x);
SELECT k, groupArrayInsertAt(number, intDiv(number, 3)), groupArrayInsertAt(100, 4)(number, intDiv(number, 2)) FROM numbers(9) GROUP BY number % 3 AS k ORDER BY k;
SELECT groupArrayInsertAt(number, 16777215) FROM numbers(3); -- { serverError TOO_LARGE_ARRAY_SIZE }
SELECT groupArrayInsertAt(number, -1) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT groupArrayInsertAt(number, toInt8(1)) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT groupArrayInsertAt(1, 2, 3)(number, 1) FROM numbers(3); -- { serverError TOO_MANY_ARGUMENTS_FOR_FUNCTION }
SELECT groupArrayInsertAt('x')(number, 1) FROM numbers(3); -- { serverError TYPE_MISMATCH }
SELECT groupArrayInsertAt(1.5)(number, 1) FROM numbers(3); -- { serverError CANNOT_CONVERT_TYPE }
SELECT groupArrayInsertAt(300)(toUInt8(number), 1) FROM numbers(3); -- { serverError CANNOT_CONVERT_TYPE }
SELECT groupArrayInsertAt(1, 100000000)(number, 1) FROM numbers(3); -- { serverError TOO_LARGE_ARRAY_SIZE }
SELECT groupArrayInsertAt(number) FROM numbers(3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT exponentialMovingAverage(5)(number, number), hex(exponentialMovingAverageState(5)(number, number)), toTypeName(exponentialMovingAverageState(5)(number, number)) FROM numbers(10);
SELECT exponentialMovingAverage(5)(toNullable(number), number), toTypeName(exponentialMovingAverage(5)(toNullable(number), number)), hex(exponentialMovingAverageState(5)(toNullable(number), number)) FROM numbers(10);
SELECT exponentialMovingAverage(5)(number, number), exponentialMovingAverage(5)(toNullable(number), number), hex(exponentialMovingAverageState(5)(toNullable(number), number)) FROM numbers(0);
SELECT exponentialMovingAverage(0)(number, number), exponentialMovingAverage(-1.5)(number, number), exponentialMovingAverage(5)(toDecimal32(number, 2), number), exponentialMovingAverage(5)(true, number), exponentialMovingAverage(2.5)(toFloat32(number) * 1.5, 10 - number), exponentialMovingAverage(5)(toInt128(number), toUInt256(number)) FROM numbers(10);
DROP TABLE IF EXISTS ema1;
CREATE TABLE ema1 (x Float64, t Float64) ENGINE = Memory;
INSERT INTO ema1 VALUES (1, 10), (2, 10), (5, 3);
SELECT exponentialMovingAverage(5)(x, t) FROM ema1;
DROP TABLE ema1;
SELECT k, exponentialMovingAverage(3)(number, number) FROM numbers(20) GROUP BY number % 3 AS k ORDER BY k;
SELECT exponentialMovingAverage(number, number) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT exponentialMovingAverage(1, 2)(number, number) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT exponentialMovingAverage('a')(number, number) FROM numbers(10); -- { serverError CANNOT_CONVERT_TYPE }
SELECT exponentialMovingAverage(5)(number) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT exponentialMovingAverage(5)(toDate(number), number) FROM numbers(10); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT exponentialMovingAverage(5)('a', number) FROM numbers(10); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
DROP TABLE IF EXISTS ia;
CREATE TABLE ia (k UInt8, a AggregateFunction(groupArrayInsertAt, String, UInt64), e AggregateFunction(exponentialMovingAverage(4), UInt64, UInt64)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO ia SELECT number % 2, groupArrayInsertAtState(toString(number), number), exponentialMovingAverageState(4)(number, number) FROM numbers(6) GROUP BY number % 2;
INSERT INTO ia SELECT number % 2, groupArrayInsertAtState(toString(number), number + 3), exponentialMovingAverageState(4)(number, number) FROM numbers(3, 6) GROUP BY number % 2;
SELECT k, groupArrayInsertAtMerge(a), exponentialMovingAverageMerge(4)(e) FROM ia GROUP BY k ORDER BY k;
OPTIMIZE TABLE ia FINAL;
SELECT k, groupArrayInsertAtMerge(a), exponentialMovingAverageMerge(4)(e), hex(a), hex(e) FROM ia GROUP BY k, a, e ORDER BY k;
DROP TABLE ia;
