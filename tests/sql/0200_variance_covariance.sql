-- varPop, varSamp, stddevPop, stddevSamp, covarPop, covarSamp, corr and the Stable forms:
-- ClickHouse's sums and rounding, nan (inf for Stable) on too few rows, Float32 in Float32 out.
SELECT varPop(x), varSamp(x), stddevPop(x), stddevSamp(x), toTypeName(varPop(x)) FROM (SELECT number AS x FROM numbers(10));
SELECT varPop(x), varSamp(x), stddevPop(x), stddevSamp(x), covarPop(x, x), covarSamp(x, x), corr(x, x) FROM (SELECT number AS x FROM numbers(0));
SELECT varPop(x), varSamp(x), stddevPop(x), stddevSamp(x), covarPop(x, x), covarSamp(x, x), corr(x, x) FROM (SELECT number AS x FROM numbers(1));
SELECT varPopStable(x), varSampStable(x), stddevPopStable(x), stddevSampStable(x), covarPopStable(x, x), covarSampStable(x, x), corrStable(x, x) FROM (SELECT number AS x FROM numbers(0));
SELECT varPopStable(x), varSampStable(x), stddevPopStable(x), stddevSampStable(x), covarPopStable(x, x), covarSampStable(x, x), corrStable(x, x) FROM (SELECT number AS x FROM numbers(1));
SELECT varPop(x), varSamp(x), stddevPop(x), covarPop(x, number), corr(x, number % 11) FROM (SELECT number / 7 + 1e6 AS x, number FROM numbers(1000));
SELECT varPopStable(x), varSampStable(x), covarPopStable(x, y), covarSampStable(x, y), corrStable(x, y), stddevSampStable(x) FROM (SELECT number / 7 + 1e6 AS x, sin(number) AS y FROM numbers(1000));
SELECT varPop(x), varSamp(x), stddevPop(x), covarPop(x, x), corr(x, x), toTypeName(varPop(x)), toTypeName(corr(x, x)), toTypeName(corr(x, 1)), toTypeName(varPopStable(x)) FROM (SELECT toFloat32(number / 7) AS x FROM numbers(1000));
SELECT toTypeName(varSamp(toDecimal32(x, 2))), varPop(toInt8(x) - 50) FROM (SELECT number / 3 AS x FROM numbers(100));
SELECT k, varPop(x), varSamp(x), stddevSamp(x), covarSamp(x, y), corr(x, y) FROM (SELECT number % 3 AS k, number AS x, number * number % 17 AS y FROM numbers(50)) GROUP BY k ORDER BY k;
-- NULLs are skipped; the result is Nullable, NULL when nothing is left.
SELECT varPop(x), toTypeName(varPop(x)), corr(x, 1), toTypeName(corr(x, x)), covarSamp(x, number) FROM (SELECT if(number % 2, NULL, number) AS x, number FROM numbers(10));
SELECT varPop(x), varSampOrNull(x), toTypeName(varSampOrNull(x)) FROM (SELECT toNullable(number) AS x FROM numbers(0));
SELECT varPopOrNull(number), varSampOrDefault(number), stddevPopIf(number, number > 5), corrIf(number, number * 2, number < 3) FROM numbers(10);
SELECT varPopArray([1, 2, 3, 4]), covarSampArray([1, 2, 3], [3, 1, 2]);
SELECT STDDEV_POP(number), stddev_samp(number), VAR_POP(number), var_samp(number), COVAR_POP(number, number), covar_samp(number, 1), STD(number), STDDEV(number) FROM numbers(5);
-- States are ClickHouse's bytes.
SELECT hex(varPopState(x)), hex(covarPopState(x, x)), hex(corrState(x, x)), hex(varPopStableState(x)), hex(covarSampStableState(x, x)), hex(corrStableState(x, x)) FROM (SELECT number AS x FROM numbers(3));
SELECT hex(varPopState(x)), toTypeName(varPopState(x)), hex(varSampState(toFloat32(1))) FROM (SELECT toNullable(number) AS x FROM numbers(3));
SELECT varSampMerge(s), stddevSampMerge(t) FROM (SELECT varSampState(number) AS s, stddevSampState(number) AS t FROM numbers(10) GROUP BY number % 3);
SELECT finalizeAggregation(s) FROM (SELECT varSampState(number) AS s FROM numbers(10));
CREATE TABLE stats (k UInt8, v AggregateFunction(varSamp, Float64), c AggregateFunction(corr, Float64, Float64), s AggregateFunction(stddevPopStable, UInt64)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO stats SELECT number % 2, varSampState(number / 4), corrState(number / 4, (number % 7) / 2), stddevPopStableState(number) FROM numbers(100) GROUP BY number % 2;
INSERT INTO stats SELECT number % 2, varSampState(number / 4), corrState(number / 4, (number % 7) / 2), stddevPopStableState(number) FROM numbers(100, 50) GROUP BY number % 2;
SELECT k, varSampMerge(v), corrMerge(c), stddevPopStableMerge(s) FROM stats GROUP BY k ORDER BY k;
OPTIMIZE TABLE stats FINAL;
SELECT k, finalizeAggregation(v), finalizeAggregation(c), finalizeAggregation(s), hex(s) FROM stats ORDER BY k;
SELECT number % 2 AS k, varSamp(number / 4), corr(number / 4, (number % 7) / 2), stddevPopStable(number) FROM numbers(150) GROUP BY k ORDER BY k;
SELECT varPop('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT corr(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
