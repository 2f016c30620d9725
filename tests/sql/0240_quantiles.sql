-- Parametric aggregates and the quantile family. quantile (reservoir sampling) and
-- quantileTDigest depend on the order rows arrive in once the sample (8192 values) or
-- the digest (2048 additions) is full: large inputs run with max_threads = 1, so rows
-- reach one aggregate state in order, as ClickHouse's single-stream numbers() does.
SELECT quantile(0.5)(number), quantile(number), median(number), quantiles(0.1, 0.5, 0.9)(number) FROM numbers(10);
SELECT quantileExact(0.3)(number), quantileExact(0)(number), quantileExact(1)(number), quantilesExact(0, 0.1, 0.5, 0.99, 1)(number), medianExact(number) FROM numbers(10);
SELECT quantileTDigest(0.3)(number), quantilesTDigest(0.9, 0.1)(number), medianTDigest(number) FROM numbers(10);
SELECT quantileExactWeighted(0.5)(number, number % 3), quantilesExactWeighted(0.1, 0.9)(number, toUInt8(2)), medianExactWeighted(number, toUInt8(1)) FROM numbers(100);
SELECT quantiles(0.9, 0.1, 0.5)(number), quantilesExact(0.9, 0.1)(number) FROM numbers(10);
SELECT quantile(0.5)(number) AS q FROM numbers(10) GROUP BY number % 2 ORDER BY q;
SELECT number % 7 AS k, quantile(0.5)(number), medianExact(number), quantilesTDigest(0.1, 0.9)(number) FROM numbers(1000) GROUP BY k ORDER BY k;
SELECT quantile(0.9)(number), quantileIf(0.5)(number, number > 1), median(number) FROM numbers(3) FORMAT TSVWithNames;

SELECT quantileDeterministic(0.5)(number, number), quantilesDeterministic(0.1, 0.9)(number, number), medianDeterministic(toDate(number), number), quantileDeterministic(number, intHash32(number)) FROM numbers(100);
SELECT quantileDeterministic(0.5)(x, number), quantilesDeterministic(0.01, 0.99)(x, number * 7) FROM (SELECT number, (number * 7919) % 100003 / 3.0 AS x FROM numbers(100000));
SELECT hex(quantileDeterministicState(0.5)(number, number)), hex(quantileDeterministicState(0.5)(toUInt8(number), number)), hex(quantileDeterministicState(0.5)(toFloat32(number), number)) FROM numbers(3);
SELECT quantileDeterministicMerge(0.5)(s), quantilesDeterministicMerge(0.25, 0.75)(s) FROM (SELECT quantileDeterministicState(number, number) AS s FROM numbers(30000) GROUP BY number % 7);

-- result types
SELECT toTypeName(quantile(toUInt8(1))), toTypeName(quantile(toFloat32(1))), toTypeName(quantileExact(toFloat32(1))), toTypeName(quantileExact(toInt16(1))), toTypeName(quantileTDigest(1)), toTypeName(quantileTDigest(toFloat64(1)));
SELECT toTypeName(quantile(toDate('2020-01-01'))), toTypeName(quantileExact(toDateTime('2020-01-01 00:00:00', 'UTC'))), toTypeName(quantileTDigest(toDate('2020-01-01'))), toTypeName(quantile(toDecimal32(1, 2))), toTypeName(quantiles(0.5)(toDecimal64(1, 3)));
SELECT toTypeName(quantiles(0.5)(toUInt8(1))), toTypeName(quantilesExact(0.5)(toUInt8(1))), toTypeName(quantilesTDigest(0.5)(toUInt8(1))), toTypeName(quantileExactWeighted(0.5)(toFloat32(1), toUInt8(1)));

-- Date, DateTime, Decimal, Float32, signed arguments
SELECT quantile(0.5)(x), quantile(0.3)(x), quantileExact(0.5)(x), quantileTDigest(0.3)(x) FROM (SELECT toDate(number * 3) AS x FROM numbers(10));
SELECT quantile(0.5)(x), quantileExact(0.5)(x), quantileTDigest(0.5)(x), quantile(0.3)(x) FROM (SELECT toDateTime(1000000000 + number * 17, 'UTC') AS x FROM numbers(10));
SELECT quantile(0.5)(x), quantileExact(0.5)(x), median(x), quantiles(0.1, 0.5)(x), quantileExact(0.3)(x) FROM (SELECT toDecimal32(number / 4, 2) AS x FROM numbers(10));
SELECT quantile(0.5)(x), quantileExact(0.5)(x), quantileTDigest(x), quantile(0.3)(x) FROM (SELECT toFloat32(number) / 3 AS x FROM numbers(10));
SELECT quantile(0.5)(x), quantileExact(0.5)(x), quantileTDigest(x), quantile(0.3)(x) FROM (SELECT toInt8(number) - 5 AS x FROM numbers(10));
SELECT quantileExactWeighted(0.3)(x, w), medianExactWeighted(x, w) FROM (SELECT toDate(number) AS x, number % 4 AS w FROM numbers(20));

-- NULLs and empty sets
SELECT quantile(x), quantileExact(x), quantileTDigest(x), quantiles(0.1)(x), median(x) FROM (SELECT toNullable(number) AS x FROM numbers(0));
SELECT quantile(x), quantileExact(x), quantileTDigest(x), quantilesExact(0.5)(x) FROM (SELECT number AS x FROM numbers(0));
SELECT quantile(0.5)(x), quantileExact(0.5)(x) FROM (SELECT toDecimal32(number, 2) AS x FROM numbers(0));
SELECT quantile(0.5)(x), quantileExact(0.5)(x), quantileTDigest(x) FROM (SELECT toDate(number) AS x FROM numbers(0));
SELECT quantile(0.5)(x), quantileExact(x), toTypeName(quantile(x)), toTypeName(quantileExact(x)) FROM (SELECT if(number % 3 = 0, NULL, number) AS x FROM numbers(10));
SELECT quantilesExact(0.1, 0.5)(x), quantilesTDigest(0.1, 0.5)(x), medianExact(x), medianTDigest(x) FROM (SELECT toNullable(number) AS x FROM numbers(10));

-- large inputs: the sampler replaces samples, the digest compresses
SELECT quantile(0.5)(x), quantiles(0.1, 0.9)(x), quantileTDigest(0.5)(x), quantilesTDigest(0.01, 0.5, 0.99)(x) FROM (SELECT (number * 7919) % 100003 / 3.0 AS x FROM numbers(100000)) SETTINGS max_threads = 1;
SELECT quantileExact(0.5)(x), quantilesExact(0.25, 0.75)(x) FROM (SELECT (number * 7919) % 100003 / 3.0 AS x FROM numbers(100000));
SELECT k, quantile(0.5)(x), quantileTDigest(0.9)(x) FROM (SELECT number % 3 AS k, intHash32(number) % 1000000 AS x FROM numbers(100000)) GROUP BY k ORDER BY k SETTINGS max_threads = 1;
SELECT quantileTDigest(0.5)(toFloat32(x)), quantile(0.99)(toUInt32(x)) FROM (SELECT sipHash64(number) % 1000 AS x FROM numbers(30000)) SETTINGS max_threads = 1;
SELECT length(hex(quantileState(x))), length(hex(quantileTDigestState(x))), substring(hex(quantileState(x)), 1, 120) FROM (SELECT number % 1000 AS x FROM numbers(20000)) SETTINGS max_threads = 1;
SELECT hex(quantileTDigestState(x)) FROM (SELECT number % 100 AS x FROM numbers(3000)) SETTINGS max_threads = 1;

-- combinators
SELECT quantileOrNull(number), quantileIf(0.9)(number, number > 5), quantileArray(0.5)([number, number * 2]), quantileForEach(0.5)([number, number * 2]), quantileDistinct(0.5)(number % 3) FROM numbers(10);
SELECT quantilesIf(0.1, 0.5)(number, number > 3), quantileExactIf(0.5)(number, number < 3), quantilesOrNull(0.5)(number), quantileOrDefault(0.5)(number), quantileOrNull(0.5)(number) FROM numbers(10) WHERE number > 100;
SELECT quantilesForEach(0.5, 0.9)([number, number * 3]), quantileTDigestArray([number, 1]), medianOrNull(number), quantilesDistinct(0.5)(number % 4) FROM numbers(7);
SELECT toTypeName(quantilesState(0.5, 0.9)(number)), toTypeName(quantileState(number)), toTypeName(medianState(number)), toTypeName(quantileState(0.5)(number)), toTypeName(quantileState(1.)(number)), toTypeName(quantileState(0.50)(number)) FROM numbers(10);
SELECT toTypeName(quantileTDigestState(0.5)(toNullable(number))), toTypeName(quantileExactWeightedState(0.5)(number, toUInt8(1))) FROM numbers(10);
SELECT hex(quantileState(0.5)(number)), hex(quantileExactState(0.5)(number)), hex(quantileTDigestState(0.5)(number)) FROM numbers(3);
SELECT hex(quantileState(0.5)(toNullable(number))), hex(quantileState(0.5)(toFloat32(number))), hex(quantileState(toDate(number))) FROM numbers(3);
SELECT hex(quantileState(number)), hex(quantileExactState(number)), hex(quantileTDigestState(number)), hex(quantileExactState(toNullable(number))) FROM numbers(0);
SELECT quantilesMerge(0.5, 0.9)(s), quantilesMerge(0.5)(s) FROM (SELECT quantilesState(0.5, 0.9)(number) AS s FROM numbers(10));
SELECT finalizeAggregation(s) FROM (SELECT quantilesState(0.5, 0.9)(number) AS s FROM numbers(10));
SELECT quantileMerge(s), quantileMerge(0.1)(s), medianMerge(s) FROM (SELECT quantileState(0.9)(number) AS s FROM numbers(10));
SELECT quantileTDigestMerge(0.5)(s), quantileExactMerge(0.5)(e) FROM (SELECT quantileTDigestState(number) AS s, quantileExactState(number) AS e FROM numbers(100) GROUP BY number % 4);
SELECT finalizeAggregation(quantilesState(0.2, 0.8)(number)), finalizeAggregation(quantileExactWeightedState(0.5)(number, toUInt8(3))) FROM numbers(10);
SELECT toTypeName(quantileMergeState(0.1)(s)), quantilesMerge(0.5)(s) FROM (SELECT quantileState(0.9)(number) AS s FROM numbers(10));
SELECT quantileMerge(0.5)(s) FROM (SELECT quantileState(0.5)(number) AS s FROM numbers(100) GROUP BY number % 10);
SELECT quantile(0.5)(x) FROM (SELECT number AS x FROM numbers(10)) GROUP BY x % 2 WITH TOTALS ORDER BY 1;

-- states in an AggregatingMergeTree, merged by OPTIMIZE FINAL
CREATE TABLE agg (k UInt8, s AggregateFunction(quantiles(0.5, 0.9), UInt64), e AggregateFunction(quantileExact, Float64), d AggregateFunction(quantileTDigest(0.25), Int64), n AggregateFunction(quantile, Nullable(Int32))) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO agg SELECT number % 2, quantilesState(0.5, 0.9)(number), quantileExactState(toFloat64(number) / 3), quantileTDigestState(0.25)(toInt32(number) - 50), quantileState(if(number % 5 = 0, NULL, toInt32(number))) FROM numbers(100) GROUP BY number % 2;
INSERT INTO agg SELECT number % 2, quantilesState(0.5, 0.9)(number + 1000), quantileExactState(toFloat64(number)), quantileTDigestState(0.25)(toInt64(number)), quantileState(toNullable(toInt32(number))) FROM numbers(50) GROUP BY number % 2;
SELECT k, quantilesMerge(0.5, 0.9)(s), quantileExactMerge(e), quantileTDigestMerge(0.25)(d), quantileMerge(n) FROM agg GROUP BY k ORDER BY k;
OPTIMIZE TABLE agg FINAL;
SELECT count() FROM agg;
SELECT k, finalizeAggregation(s), finalizeAggregation(e), finalizeAggregation(d), finalizeAggregation(n), length(hex(e)), length(hex(d)) FROM agg ORDER BY k;
SELECT toTypeName(s), toTypeName(d) FROM agg LIMIT 1;
CREATE TABLE agg_written (k UInt8, s AggregateFunction(quantiles(0.5,0.9), UInt64)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO agg_written SELECT 1, quantilesState(0.5, 0.9)(number) FROM numbers(10);
SELECT toTypeName(s), finalizeAggregation(s) FROM agg_written;

-- errors
SELECT sum(1)(number) FROM numbers(10); -- { serverError AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS }
SELECT uniqState(1)(number) FROM numbers(3); -- { serverError AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS }
SELECT quantile(1.5)(number) FROM numbers(10); -- { serverError PARAMETER_OUT_OF_BOUND }
SELECT quantile(-0.1)(number) FROM numbers(10); -- { serverError PARAMETER_OUT_OF_BOUND }
SELECT quantilesTDigest(0.5, 2)(number) FROM numbers(10); -- { serverError PARAMETER_OUT_OF_BOUND }
SELECT quantile('a')(number) FROM numbers(10); -- { serverError CANNOT_CONVERT_TYPE }
SELECT quantile(0.1, 0.2)(number) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT quantiles()(number) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT quantile(number, 1) FROM numbers(10); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT quantile(0.5)(toString(number)) FROM numbers(10); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantileTDigest(0.5)(toDecimal32(1, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantileDeterministic(0.5)(number, toFloat64(number)) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantileExactWeighted(0.5)(number, 'a') FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantileDeterministic(number) FROM numbers(100); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT quantilesMerge(s) FROM (SELECT quantilesState(0.5, 0.9)(number) AS s FROM numbers(10)); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT sumMerge(s) FROM (SELECT quantileState(0.9)(number) AS s FROM numbers(10)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
