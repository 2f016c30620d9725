-- histogram(bins): ClickHouse's adaptive histogram (closest points fused in its queue order, near-equal means fused at the end), result type, -State bytes, NULLs skipped without a flag, parameter and argument errors, and a round trip through an AggregatingMergeTree.
SELECT histogram(3)(number), toTypeName(histogram(3)(number)), hex(histogramState(3)(number)) FROM numbers(10);
SELECT histogram(3)(toNullable(number)), toTypeName(histogram(3)(toNullable(number))), hex(histogramState(3)(toNullable(number))) FROM numbers(10);
SELECT histogram(3)(number), hex(histogramState(3)(number)), histogram(3)(toNullable(number)), hex(histogramState(3)(toNullable(number))) FROM numbers(0);
SELECT histogram(5)(sin(number) * 100), histogram(1)(number), histogram(4)(toInt8(number) - 20), histogram(2)(toFloat32(number) / 3) FROM numbers(40);
SELECT histogram(10)(number * number % 101), hex(histogramState(4)(number * 7 % 13)) FROM numbers(500);
SELECT histogram(3)(x) FROM (SELECT 1 AS x UNION ALL SELECT 1 UNION ALL SELECT 1);
SELECT histogram(3)(toInt128(number)) FROM numbers(3);
SELECT k, histogram(3)(number) FROM numbers(30) GROUP BY number % 3 AS k ORDER BY k;
SELECT histogram(3.5)(number) FROM numbers(3); -- { serverError UNSUPPORTED_PARAMETER }
SELECT histogram(-1)(number) FROM numbers(3); -- { serverError UNSUPPORTED_PARAMETER }
SELECT histogram(251)(number) FROM numbers(3); -- { serverError PARAMETER_OUT_OF_BOUND }
SELECT histogram(0)(number) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT histogram(number) FROM numbers(3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT histogram(3)(toDate(number)) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT histogram(3)(toDecimal32(number, 2)) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT histogram(3)(number / 0) FROM numbers(3); -- { serverError INCORRECT_DATA }
DROP TABLE IF EXISTS hs;
CREATE TABLE hs (k UInt8, h AggregateFunction(histogram(3), UInt64)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO hs SELECT number % 2, histogramState(3)(number) FROM numbers(20) GROUP BY number % 2;
INSERT INTO hs SELECT number % 2, histogramState(3)(number) FROM numbers(100, 20) GROUP BY number % 2;
SELECT k, histogramMerge(3)(h) FROM hs GROUP BY k ORDER BY k;
OPTIMIZE TABLE hs FINAL;
SELECT k, histogramMerge(3)(h), hex(h) FROM hs GROUP BY k, h ORDER BY k;
DROP TABLE hs;
