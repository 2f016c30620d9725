-- uniqCombined, uniqCombined64, uniqHLL12 with ClickHouse's containers: exact below 16 / 2^12-2^13
-- keys, HyperLogLog (with bias correction for uniqCombined) above; results and states are ClickHouse's.
SELECT uniqCombined(number), uniqCombined64(number), uniqHLL12(number) FROM numbers(10);
SELECT uniqCombined(number), uniqCombined64(number), uniqHLL12(number) FROM numbers(5000);
SELECT uniqCombined(number), uniqCombined64(number), uniqHLL12(number) FROM numbers(50000);
SELECT uniqCombined(number), uniqCombined64(number), uniqHLL12(number) FROM numbers(300000);
SELECT uniqCombined(number), uniqCombined64(number), uniqHLL12(number) FROM numbers(1500000);
SELECT uniqCombined(concat('k', toString(number))), uniqCombined64(concat('k', toString(number))), uniqHLL12(concat('k', toString(number))) FROM numbers(200000);
SELECT uniqCombined(toFloat64(number) / 3), uniqHLL12(toFloat32(number)), uniqCombined(toInt32(number) - 50000), uniqHLL12(toInt16(number)) FROM numbers(100000);
SELECT uniqCombined(toDate('2020-01-01') + number % 1000), uniqHLL12(toDateTime('2020-01-01 00:00:00', 'UTC') + number), uniqCombined(toFixedString(toString(number % 777), 3)) FROM numbers(100000);
SELECT uniqCombined(number, number % 7), uniqCombined64(number % 1000, 'x'), uniqHLL12(number, 1), uniqCombined((number % 5000, toString(number % 3))) FROM numbers(200000);
SELECT uniqCombined(toUUID(concat('00112233-4455-6677-8899-', leftPad(toString(number), 12, '0')))), uniqHLL12(toIPv4(number)), uniqCombined(toIPv6(toIPv4(number))) FROM numbers(30000);
-- NULLs are skipped.
SELECT uniqCombined(x), uniqCombined64(x), uniqHLL12(x) FROM (SELECT if(number % 3 = 0, NULL, number % 1000) AS x FROM numbers(10000));
SELECT number % 3 AS k, uniqCombined(number), uniqCombined64(number), uniqHLL12(number) FROM numbers(100000) GROUP BY k ORDER BY k;
-- Combinators.
SELECT uniqCombinedIf(number, number % 2 = 0), uniqHLL12If(number, number % 3 = 0), uniqCombined64If(number, number < 10) FROM numbers(100000);
SELECT uniqCombinedArray(arr), uniqHLL12Array(arr), uniqCombinedForEach(arr) FROM (SELECT [number % 50, number % 7] AS arr FROM numbers(1000));
SELECT uniqCombinedOrNull(number), uniqHLL12OrNull(number), uniqCombinedOrDefault(number) FROM numbers(0);
SELECT uniqCombinedDistinct(number % 100), uniqHLL12Distinct(number % 100) FROM numbers(1000);
-- States: ClickHouse's bytes (small set, hash set, HyperLogLog) and merges.
SELECT hex(uniqCombinedState(number)), hex(uniqHLL12State(number)), hex(uniqCombined64State(toString(number))) FROM numbers(3);
SELECT hex(uniqCombinedState(number)) FROM numbers(40);
SELECT length(hex(uniqCombinedState(number))), length(hex(uniqCombined64State(number))), length(hex(uniqHLL12State(number))), toTypeName(uniqCombinedState(number)) FROM numbers(100000);
SELECT hex(uniqCombinedState(toNullable(1))), hex(uniqCombinedState(CAST(NULL AS Nullable(UInt8)))), hex(uniqHLL12State(toFloat64(1.5))), hex(uniqHLL12State(toUUID('00112233-4455-6677-8899-aabbccddeeff')));
SELECT uniqCombinedMerge(s), uniqHLL12Merge(h), uniqCombined64Merge(w) FROM (SELECT number % 4 AS k, uniqCombinedState(number) AS s, uniqHLL12State(number) AS h, uniqCombined64State(number) AS w FROM numbers(200000) GROUP BY k);
SELECT finalizeAggregation(uniqCombinedState(number)), hex(uniqCombinedMergeState(s)) FROM (SELECT number, uniqCombinedState(number) AS s FROM numbers(20) GROUP BY number) GROUP BY number % 1 FORMAT Null;
-- The precision parameter of uniqCombined (12..20; only 17 has bias correction).
SELECT uniqCombined(12)(number), uniqCombined(20)(number), uniqCombined64(13)(number), uniqCombined(12.5)(number), toTypeName(uniqCombinedState(12)(number)) FROM numbers(100000);
SELECT uniqCombined(11)(number) FROM numbers(3); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT uniqCombined(12, 13)(number) FROM numbers(3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT uniqHLL12(12)(number) FROM numbers(3); -- { serverError AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS }
SELECT uniqCombinedMerge(12)(s), uniqCombinedIf(14)(number % 20000, number % 2 = 0) FROM (SELECT number, uniqCombinedState(12)(number) AS s FROM numbers(100000) GROUP BY number);
-- AggregatingMergeTree: states stored, merged by OPTIMIZE, finished by -Merge.
CREATE TABLE amt (k UInt8, u AggregateFunction(uniqCombined, UInt64), h AggregateFunction(uniqHLL12, String), p AggregateFunction(uniqCombined(13), UInt64)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO amt SELECT number % 2, uniqCombinedState(number), uniqHLL12State(toString(number)), uniqCombinedState(13)(number) FROM numbers(30000) GROUP BY number % 2;
INSERT INTO amt SELECT number % 2, uniqCombinedState(number), uniqHLL12State(toString(number)), uniqCombinedState(13)(number) FROM numbers(20000, 30000) GROUP BY number % 2;
INSERT INTO amt SELECT number % 3, uniqCombinedState(number), uniqHLL12State(toString(number)), uniqCombinedState(13)(number) FROM numbers(5) GROUP BY number % 3;
SELECT k, uniqCombinedMerge(u), uniqHLL12Merge(h), uniqCombinedMerge(13)(p) FROM amt GROUP BY k ORDER BY k;
OPTIMIZE TABLE amt FINAL;
SELECT k, finalizeAggregation(u), finalizeAggregation(h), finalizeAggregation(p), length(hex(u)), length(hex(p)) FROM amt ORDER BY k;
SELECT count() FROM amt;
DROP TABLE amt;
-- topK / topKWeighted: ClickHouse's Filtered Space-Saving (3 * N counters), equal counts in ClickHouse's order.
SELECT topK(number % 7), topK(3)(number % 7), topK(3, 5)(number % 7), toTypeName(topK(3)(number % 7)) FROM numbers(100);
SELECT topK(3, 2, 'counts')(number % 7), topK(2, 1, 'counts')(toString(intHash32(number) % 200)) FROM numbers(50000);
SELECT topK(toString(number % 13)), topK(5)(intDiv(number, 100)), topK(toDate(number % 3)) FROM numbers(1000);
SELECT topK(intHash32(number) % 1000), topK(5)(toString(intHash32(number) % 1000)) FROM numbers(50000);
SELECT topKWeighted(number % 7, number), topKWeighted(4)(intHash32(number) % 500, number % 7), topKWeighted(number, -1) FROM numbers(100);
SELECT topK(x), toTypeName(topK(x)) FROM (SELECT if(number % 3 = 0, NULL, number % 5) AS x FROM numbers(100));
SELECT topK((number % 3, toString(number % 2))), topK([number % 3]), topK(3)(number) FROM numbers(30);
SELECT topK(3)(number) FROM numbers(0);
SELECT topKIf(number % 5, number % 2 = 0), topKArray(arr) FROM (SELECT number, [number % 3, number % 4] AS arr FROM numbers(100));
-- Without ties: ClickHouse hands the subquery's state over unserialized (all its counters), Granary
-- as ClickHouse's bytes (the best `reserved` counters), so equal counters past those may come out otherwise.
SELECT topKMerge(3)(s) FROM (SELECT topKState(3)(toUInt8(sqrt(number))) AS s FROM numbers(100));
SELECT number % 2 AS k, topK(2)(number % 5) FROM numbers(100) GROUP BY k ORDER BY k;
SELECT topK(0)(number) FROM numbers(3); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT topK(3, 'counts')(number) FROM numbers(3); -- { serverError CANNOT_CONVERT_TYPE }
SELECT topKWeighted(number, 1.5) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- groupUniqArray: distinct values in the order of ClickHouse's hash set.
SELECT groupUniqArray(number % 7), groupUniqArray(number), groupUniqArray(toInt8(number) - 5) FROM numbers(20);
SELECT groupUniqArray(number * 37 % 1000) FROM numbers(300);
SELECT groupUniqArray(toString(number % 13)), groupUniqArray(concat('abcdefgh', toString(number % 11))), groupUniqArray(toFixedString(toString(number % 9), 2)) FROM numbers(100);
SELECT groupUniqArray(number / 4), groupUniqArray(toFloat32(number) / 4), groupUniqArray(toDate('2020-01-01') + number % 5), groupUniqArray(toIPv4(number * 1000)) FROM numbers(12);
SELECT groupUniqArray(x) FROM (SELECT if(number % 3 = 0, NULL, number % 10) AS x FROM numbers(100));
SELECT groupUniqArray(3)(number % 7), groupUniqArray(5)(toString(number % 30)), toTypeName(groupUniqArray(3)(number)) FROM numbers(300);
SELECT number % 2 AS k, groupUniqArray(number) FROM numbers(20) GROUP BY k ORDER BY k;
SELECT groupUniqArrayIf(number % 50, number % 3 = 0), groupUniqArrayArray(arr) FROM (SELECT number, [number % 4, number % 6] AS arr FROM numbers(200));
SELECT arraySlice(groupUniqArray(number), 1, 10), length(groupUniqArray(number)) FROM numbers(2000);
SELECT groupUniqArray(0)(number) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
