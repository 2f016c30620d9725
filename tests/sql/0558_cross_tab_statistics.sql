-- cramersV, cramersVBiasCorrected, contingency and theilsU: φ² and the uncertainty coefficient from counts of each value and each pair (ClickHouse sums them in its hash tables' order, Granary in its own, so the results are compared rounded to 12 decimals; the -State bytes are Granary's own).
SELECT round(cramersV(number % 3, number % 5), 12), round(cramersVBiasCorrected(number % 3, number % 5), 12), round(theilsU(number % 3, number % 5), 12), round(contingency(number % 3, number % 5), 12) FROM numbers(100);
SELECT round(cramersV(number % 3, number % 7 = 0), 12), round(cramersVBiasCorrected(number % 3, number % 7 = 0), 12), round(theilsU(number % 3, number % 7 = 0), 12), round(contingency(number % 3, number % 7 = 0), 12) FROM numbers(100);
SELECT round(cramersV(a, b), 12), round(cramersVBiasCorrected(a, b), 12), round(theilsU(a, b), 12), round(theilsU(b, a), 12), round(contingency(a, b), 12) FROM (SELECT toString(number % 4) AS a, intDiv(number, 7) % 3 AS b FROM numbers(200));
SELECT cramersV(toString(number % 4), number % 2), theilsU(number % 2, toString(number % 4)), cramersV(number, number), contingency(number % 2, number % 2) FROM numbers(10);
SELECT toTypeName(cramersV(1, 2)), cramersV(1, 2), cramersVBiasCorrected(1, 2), theilsU(1, 2), contingency(1, 2) FROM numbers(0);
SELECT cramersV(1, 2), cramersVBiasCorrected(1, 2), theilsU(1, 2), contingency(1, 2);
SELECT cramersV(1, number), theilsU(1, number), theilsU(number, 1), contingency(1, number) FROM numbers(5);
SELECT cramersV([number % 2], number % 3), cramersV(toDate(number % 4), number % 2 = 0) FROM numbers(12);
SELECT cramersV(toNullable(number % 3), number % 2), toTypeName(cramersV(toNullable(number % 3), number % 2)), cramersV(if(number = 0, NULL, number % 3), number % 2) FROM numbers(20);
SELECT k, round(cramersV(number % 4, number % 6), 12), round(theilsU(number % 4, number % 6), 12) FROM numbers(300) GROUP BY number % 3 AS k ORDER BY k;
SELECT round(cramersVIf(number % 3, number % 5, number > 10), 12), cramersVOrNull(number, number) FROM numbers(50);
DROP TABLE IF EXISTS ct;
CREATE TABLE ct (k UInt8, v AggregateFunction(cramersV, UInt8, UInt8), u AggregateFunction(theilsU, UInt8, UInt8)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO ct SELECT number % 2, cramersVState(number % 3, number % 5), theilsUState(number % 3, number % 5) FROM numbers(100) GROUP BY number % 2;
INSERT INTO ct SELECT number % 2, cramersVState(number % 3, number % 5), theilsUState(number % 3, number % 5) FROM numbers(100, 77) GROUP BY number % 2;
SELECT k, round(cramersVMerge(v), 12), round(theilsUMerge(u), 12) FROM ct GROUP BY k ORDER BY k;
OPTIMIZE TABLE ct FINAL;
SELECT k, round(cramersVMerge(v), 12), round(theilsUMerge(u), 12) FROM ct GROUP BY k ORDER BY k;
DROP TABLE ct;
SELECT cramersV(1, 2, 3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT theilsU(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT cramersV(1)(1, 2); -- { serverError AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS }
SELECT name, is_aggregate FROM system.functions WHERE name IN ('cramersV', 'cramersVBiasCorrected', 'contingency', 'theilsU') ORDER BY name;
