-- studentTTest, welchTTest, studentTTestOneSample, meanZTest (moments as ClickHouse's -State bytes), mannWhitneyUTest, kolmogorovSmirnovTest (both samples kept whole) and the scalar proportionsZTest: statistics, result types, states, combinators, parameter and type errors. P-values and confidence intervals come from Granary's own Student's t and normal distributions, within about 1e-14 of Boost's, so they are compared rounded to 10 decimals.
DROP TABLE IF EXISTS t;
CREATE TABLE t (v Float64, g UInt8) ENGINE = Memory;
INSERT INTO t SELECT sin(number) * 10 + number % 3, number % 2 FROM numbers(60);
WITH studentTTest(v, g) AS r SELECT r.1, round(r.2, 10) FROM t;
WITH studentTTest(0.95)(v, g) AS r SELECT r.1, round(r.2, 10), round(r.3, 10), round(r.4, 10) FROM t;
WITH welchTTest(v * v, g) AS r SELECT r.1, round(r.2, 10) FROM t;
WITH welchTTest(0.9)(v * v, g) AS r SELECT r.1, round(r.2, 10), round(r.3, 8), round(r.4, 8) FROM t;
WITH studentTTestOneSample(v, 0.5) AS r SELECT r.1, round(r.2, 10) FROM t;
WITH studentTTestOneSample(0.99)(v, -3) AS r SELECT r.1, round(r.2, 10), round(r.3, 10), round(r.4, 10) FROM t;
SELECT meanZTest(0.7, 0.45, 0.95)(v, g) FROM t;
SELECT mannWhitneyUTest(v, g), mannWhitneyUTest('less')(v, g), mannWhitneyUTest('greater', 0)(v, g) FROM t;
SELECT kolmogorovSmirnovTest(v, g), kolmogorovSmirnovTest('less', 'exact')(v, g), kolmogorovSmirnovTest('greater', 'asymp')(v, g) FROM t;
SELECT toTypeName(studentTTest(v, g)), toTypeName(welchTTest(0.95)(v, g)), toTypeName(studentTTestOneSample(v, 1)) FROM t;
SELECT toTypeName(meanZTest(1., 1., 0.9)(v, g)), toTypeName(mannWhitneyUTest(v, g)), toTypeName(kolmogorovSmirnovTest(v, g)) FROM t;
SELECT hex(studentTTestState(v, g)), hex(welchTTestState(v, g)) FROM t;
SELECT hex(meanZTestState(1., 2., 0.95)(v, g)), hex(studentTTestOneSampleState(v, 2)) FROM t;
SELECT hex(mannWhitneyUTestState(number, number % 3 = 0)), hex(kolmogorovSmirnovTestState(number, number % 3 = 0)) FROM numbers(10);
SELECT k, mannWhitneyUTest(sin(number), number % 2), kolmogorovSmirnovTest(cos(number) * number, number % 2 = 0) FROM numbers(100) GROUP BY number % 3 AS k ORDER BY k;
SELECT kolmogorovSmirnovTest('two-sided', 'asymp')(sin(number), number % 3 = 0), kolmogorovSmirnovTest('less', 'asymp')(sin(number), number % 3 = 0) FROM numbers(1000);
-- degenerate samples: too few rows or no spread give NaN; the rank tests want both samples
SELECT studentTTest(number, number % 2), welchTTest(number, number % 2), studentTTestOneSample(number, 1) FROM numbers(0);
SELECT studentTTest(1, number % 2), welchTTest(number, number < 1), studentTTestOneSample(7, 1) FROM numbers(7);
SELECT meanZTest(1., 2., 0.95)(number, number % 2) FROM numbers(0);
SELECT mannWhitneyUTest(1, number % 2) FROM numbers(4);
SELECT mannWhitneyUTest(number, number < 2), mannWhitneyUTest(number, number >= 2) FROM numbers(7);
SELECT mannWhitneyUTest(number, 0) FROM numbers(5); -- { serverError BAD_ARGUMENTS }
SELECT kolmogorovSmirnovTest(number, 1) FROM numbers(5); -- { serverError BAD_ARGUMENTS }
-- NULLs, combinators; studentTTestOneSample's states keep the first population mean when merged (ClickHouse's merge drops it, and its -Merge results test against 0), so they are not merged here
SELECT studentTTest(toNullable(number), number % 2), toTypeName(studentTTest(toNullable(number), number % 2)) FROM numbers(10);
SELECT hex(studentTTestState(toNullable(number), number % 2)), studentTTest(NULL::Nullable(Float64), 1) FROM numbers(10);
SELECT studentTTestIf(number, number % 2, number > 3), mannWhitneyUTestOrNull(number, number % 2), mannWhitneyUTestArray([1, 2, 3, 4, 5], [0, 1, 0, 1, 1]) FROM numbers(10);
SELECT meanZTestOrNull(1., 1., 0.95)(number, number % 2), studentTTestOrNull(number, number % 2) FROM numbers(0);
DROP TABLE IF EXISTS st;
CREATE TABLE st (k UInt8, s AggregateFunction(studentTTest, Float64, UInt8), z AggregateFunction(meanZTest(1., 2., 0.95), Float64, UInt8), m AggregateFunction(mannWhitneyUTest, Float64, UInt8)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO st SELECT k, studentTTestState(v, g), meanZTestState(1., 2., 0.95)(v, g), mannWhitneyUTestState(v, g) FROM (SELECT number % 2 AS k, toFloat64(number * 7 % 13) AS v, toUInt8(number % 3 = 0) AS g FROM numbers(40)) GROUP BY k;
INSERT INTO st SELECT k, studentTTestState(v, g), meanZTestState(1., 2., 0.95)(v, g), mannWhitneyUTestState(v, g) FROM (SELECT number % 2 AS k, toFloat64(number * 5 % 11) AS v, toUInt8(number % 4 = 0) AS g FROM numbers(40, 40)) GROUP BY k;
WITH studentTTestMerge(s) AS a, meanZTestMerge(1., 2., 0.95)(z) AS b SELECT k, a.1, round(a.2, 10), b, mannWhitneyUTestMerge(m) FROM st GROUP BY k ORDER BY k;
OPTIMIZE TABLE st FINAL;
SELECT k, hex(s), hex(z), length(hex(m)) FROM st ORDER BY k;
DROP TABLE st;
-- the scalar proportionsZTest
SELECT proportionsZTest(10, 11, 100, 101, 0.95, 'pooled'), proportionsZTest(10, 11, 100, 101, 0.95, 'unpooled');
SELECT toTypeName(proportionsZTest(10, 11, 100, 101, 0.95, 'pooled'));
WITH proportionsZTest(toUInt32(number + 1), 11, 100, 101, 0.9, 'pooled') AS r SELECT r.1, r.2, round(r.3, 12), round(r.4, 12) FROM numbers(3);
SELECT proportionsZTest(0, 11, 100, 101, 0.95, 'unpooled'), proportionsZTest(10, 11, 100, 101, 1.5, 'pooled');
SELECT proportionsZTest(10, 11, 100, 101, 0.95, 'x'); -- { serverError BAD_ARGUMENTS }
SELECT proportionsZTest(-10, 11, 100, 101, 0.95, 'pooled'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT proportionsZTest(10, 11, 100, 101, 1, 'pooled'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT proportionsZTest(1024, 1025, 2, 2, 'unpooled'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- parameters and argument types
SELECT studentTTest(1)(number, number % 2) FROM numbers(10); -- { serverError BAD_GET }
SELECT studentTTest(1.5)(number, number % 2) FROM numbers(10); -- { serverError BAD_ARGUMENTS }
SELECT studentTTest(0.9, 0.8)(number, number % 2) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT welchTTest(0.9, 0.8)(number, number % 2) FROM numbers(10); -- { serverError TOO_MANY_ARGUMENTS_FOR_FUNCTION }
SELECT studentTTest('a', 1); -- { serverError BAD_ARGUMENTS }
SELECT studentTTest(1, 2, 3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT studentTTestOneSample(number) FROM numbers(5); -- { serverError BAD_ARGUMENTS }
SELECT studentTTestOneSample(0.9, 0.8)(number, 1) FROM numbers(5); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT meanZTest(1., 2.)(number, number % 2) FROM numbers(5); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT meanZTest(-1., 2., 0.95)(number, number % 2) FROM numbers(5); -- { serverError BAD_ARGUMENTS }
SELECT meanZTest(1., 2., 1.)(number, number % 2) FROM numbers(5); -- { serverError BAD_ARGUMENTS }
SELECT mannWhitneyUTest('sideways')(number, number % 2) FROM numbers(5); -- { serverError BAD_ARGUMENTS }
SELECT mannWhitneyUTest(1)(number, number % 2) FROM numbers(5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mannWhitneyUTest('less', 'x')(number, number % 2) FROM numbers(5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mannWhitneyUTest('less', 1, 2)(number, number % 2) FROM numbers(5); -- { serverError TOO_MANY_ARGUMENTS_FOR_FUNCTION }
SELECT mannWhitneyUTest('a', 1); -- { serverError NOT_IMPLEMENTED }
SELECT kolmogorovSmirnovTest('less', 'x')(number, number % 2) FROM numbers(5); -- { serverError BAD_ARGUMENTS }
SELECT kolmogorovSmirnovTest('less', 'exact', 1)(number, number % 2) FROM numbers(5); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT kolmogorovSmirnovTest(toDate(number), number % 2) FROM numbers(5); -- { serverError NOT_IMPLEMENTED }
SELECT name, is_aggregate, case_insensitive FROM system.functions WHERE name IN ('studentTTest', 'welchTTest', 'meanZTest', 'studentTTestOneSample', 'mannWhitneyUTest', 'kolmogorovSmirnovTest', 'proportionsZTest') ORDER BY name;
DROP TABLE t;
