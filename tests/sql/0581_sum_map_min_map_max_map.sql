-- sumMap / minMap / maxMap over arrays (a tuple of arrays, sums widened, keys sorted, zero
-- sums left out) and over a Map (the -Map combinator of sum/min/max), their relatives
-- sumMapWithOverflow, sumMapFiltered(WithOverflow), *MappedArrays, the -State bytes of
-- both forms (Map states in the order of ClickHouse's unordered_map) and round trips
-- through AggregatingMergeTree.
SELECT sumMap([1, 2], [3, 4]), toTypeName(sumMap([1, 2], [3, 4])), sumMap(([1, 2], [3, 4])), sumMap([1, 1], [2, -2]);
SELECT sumMap(k, v), toTypeName(sumMap(k, v)), minMap(k, v), maxMap(k, v) FROM (SELECT [number % 3, 5] AS k, [toInt8(number), -1] AS v FROM numbers(5));
SELECT sumMap([1, 2], [toInt8(-1), 1], [1.5, 2.5]), maxMap(['b', 'a'], [3.5, 4], [1, 2]), minMap([1, 2, 1], [5, 4, 3]);
SELECT sumMap([toDecimal32(1, 2)], [toDecimal32(1.5, 3)]), toTypeName(sumMap([toDecimal32(1, 2)], [toDecimal32(1.5, 3)])), toTypeName(sumMap(['a'], [toFloat32(1)])), toTypeName(sumMap([1], [toInt128(1)]));
SELECT sumMap([1, 2], [toNullable(3), NULL]), minMap([1, 2], [toNullable(3), NULL]), toTypeName(minMap([1, 2], [toNullable(3), NULL]));
SELECT minMap([1, 1], [nan, 1]), maxMap([1, 1], [1, nan]), minMap([nan, 0, -0., 1], [1, 2, 3, 4]);
SELECT sumMap([toDate('2020-01-01')], [1]), sumMap([toFixedString('ab', 2)], [1]), sumMap([toUInt128(1)], [toUInt256(2)]);
SELECT maxMap(map(1, 2)), toTypeName(maxMap(map(1, 2))), sumMap(map('a', 1, 'b', 2)), toTypeName(sumMap(map('a', toFloat32(1)))), toTypeName(sumMap(map(1, toDecimal32(1, 2)))), sumMap(map(1, 0));
SELECT sumMap(m), minMap(m), maxMap(m) FROM (SELECT map(number % 2, number) AS m FROM numbers(5));
SELECT g, sumMap([k, 10], [k, 1]), maxMap(map(k % 2, k)), minMap(map(toString(k % 2), k)) FROM (SELECT number AS k, number % 3 AS g FROM numbers(10)) GROUP BY g ORDER BY g;
SELECT sumMap(k, v) FROM (SELECT [1] AS k, [1] AS v WHERE 0);
SELECT sumMap(m) FROM (SELECT map(1, 1) AS m WHERE 0);
-- Relatives.
SELECT sumMapWithOverflow([1, 2], [toUInt8(200), 4]), toTypeName(sumMapWithOverflow([1, 2], [toUInt8(200), 4])) FROM numbers(2);
SELECT sumMapWithOverflow([1], [toUInt8(128)]) FROM numbers(2);
SELECT sumMappedArrays([1, 2], [3, 4]), minMappedArrays([1, 2], [3, 4]), maxMappedArrays(([1, 2], [5, 6]));
SELECT sumMapFiltered([1])([1, 2], [3, 4]), toTypeName(sumMapFiltered([1])([1, 2], [3, 4])), sumMapFiltered([])([1], [1]);
SELECT sumMapFiltered([1])([toInt8(1)], [1]), sumMapFiltered([-1])([toInt8(-1)], [1]), sumMapFiltered([1.0])([1], [1]), sumMapFiltered(['a'])(['a', 'b'], [1, 2]);
SELECT sumMapFilteredWithOverflow([1])([1, 2], [toUInt8(200), 4]) FROM numbers(2);
-- Combinators.
SELECT sumMapIf([1, 2], [3, 4], 1), sumMapOrNull([1], [2]), toTypeName(sumMapOrNull([1], [2])), sumMapArray([[1]], [[2]]), sumMapForEach([[1]], [[2]]);
SELECT sumMapDistinct([1], [2]), sumMapFilteredIf([1])([1], [1], 1) FROM numbers(3);
SELECT g, minMapOrNull(a, b), maxMapIf(a, b, g > 0) FROM (SELECT number % 2 AS g, [number % 4, 7] AS a, [toInt16(number), -1] AS b FROM numbers(8)) GROUP BY g ORDER BY g;
-- States.
SELECT hex(sumMapState([1, 2], [3, 4])), toTypeName(sumMapState([1, 2], [3, 4])), hex(minMapState([1, 2], [3, 4])), toTypeName(minMapState([toInt8(1), 2], [-3, 4]));
SELECT hex(maxMapState(['a', 'b'], [3.5, 4], [1, 2])), hex(maxMapState([1, 2], ['a', 'b'])), hex(sumMapState(([1, 2], [3, 4]))), toTypeName(sumMapState(([1, 2], [3, 4])));
SELECT hex(sumMapState([toDecimal32(1, 2)], [toDecimal32(1.5, 3)])), hex(minMapState([toNullable(1)], [toNullable(2)])), hex(minMapState([1, 2], [toNullable(3), NULL])), hex(sumMapState([toNullable(1), NULL], [1, 2]));
SELECT hex(sumMapWithOverflowState([1, 2], [3, 4])), toTypeName(sumMapWithOverflowState([1, 2], [3, 4])), hex(sumMapFilteredState([1])([1, 2], [3, 4])), toTypeName(sumMapFilteredState([1])([1, 2], [3, 4]));
SELECT toTypeName(sumMapFilteredState([1, 2])([1], [1])), toTypeName(sumMapFilteredState(['a', 'b'])(['a'], [1])), toTypeName(sumMapFilteredWithOverflowState([-1, 300])([1], [1]));
SELECT hex(sumMapState(map(1, 2))), toTypeName(sumMapState(map(1, 2))), hex(maxMapState(map(1, 2))), hex(sumMapState(map(1, 2, 3, 4, 2, 5))), hex(sumMapState(map('a', 1, 'b', 2, 'c', 3)));
SELECT hex(sumMapState(map(1, toDecimal32(1, 2)))), hex(minMapState(map(1, 'ab'))), hex(maxMapState(map(1, toFloat32(1))));
SELECT hex(sumMapState(map(number * 7 % 30, 1))) FROM numbers(30);
SELECT hex(maxMapState(map(toInt8(number) - 5, number))) FROM numbers(13);
SELECT hex(minMapState(map(toString(number), number))) FROM numbers(15);
SELECT cityHash64(hex(sumMapState(map(number * 1000000007, 1)))) FROM numbers(1000);
SELECT g, hex(sumMapState(a, b)) FROM (SELECT number % 2 AS g, [number % 4, 7] AS a, [toInt16(number), -1] AS b FROM numbers(8)) GROUP BY g ORDER BY g;
SELECT finalizeAggregation(sumMapState([1], [2])), sumMapMerge(s) FROM (SELECT sumMapState([number], [1]) AS s FROM numbers(3));
SELECT sumMapMerge(s), maxMapMerge(t) FROM (SELECT sumMapState(map(number % 3, number)) AS s, maxMapState(map(number % 3, number)) AS t FROM numbers(9) GROUP BY number % 2);
SELECT sumMapFilteredMerge([1])(s) FROM (SELECT sumMapFilteredState([1])([number % 2], [1]) AS s FROM numbers(5));
CREATE TABLE t (k UInt8, s AggregateFunction(1, sumMap, Array(UInt8), Array(Int32)), m AggregateFunction(maxMap, Map(String, Float64))) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO t SELECT number % 2, sumMapState([toUInt8(number % 3)], [toInt32(number)]), maxMapState(map(toString(number % 2), number / 2)) FROM numbers(6) GROUP BY number;
INSERT INTO t SELECT number % 2, sumMapState([toUInt8(number % 3)], [toInt32(number)]), maxMapState(map(toString(number % 2), number / 2)) FROM numbers(6) GROUP BY number;
OPTIMIZE TABLE t FINAL;
SELECT k, sumMapMerge(s), maxMapMerge(m), hex(sumMapMergeState(s)) FROM t GROUP BY k ORDER BY k;
SELECT k, finalizeAggregation(s), hex(m) FROM t ORDER BY k;
-- Errors.
SELECT sumMap([1, 2], [3]); -- { serverError BAD_ARGUMENTS }
SELECT sumMap(1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sumMap([1, 2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sumMap([1], ['x']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sumMap(map(1, 2), map(1, 2)); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT maxMappedArrays(map(1, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sumMapWithOverflow(map(1, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sumMapFiltered()([1], [1]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT sumMapFiltered([1], [2])([1], [1]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT sumMapFiltered(1)([1], [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sumMapFiltered([1])(map(1, 1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT name, is_aggregate FROM system.functions WHERE name IN ('sumMappedArrays', 'minMappedArrays', 'maxMappedArrays', 'sumMapWithOverflow', 'sumMapFiltered', 'sumMapFilteredWithOverflow') ORDER BY name;
