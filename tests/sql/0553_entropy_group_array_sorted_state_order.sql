-- entropy and groupArraySorted -State bytes in ClickHouse's order: entropy's counts in the iteration order of its hash map (CRC32 of numbers, the low half of the 128-bit hash of other values; growth and key moves as ClickHouse's HashTable), groupArraySorted's values in its max-heap's array order; results from the same order; -State/-Merge through an AggregatingMergeTree.
SELECT hex(entropyState(number % 5)), hex(entropyState(toString(number % 4))), entropy(number % 5), entropy(toString(number % 4)) FROM numbers(20);
SELECT hex(entropyState(number * 7919 % 1000)), entropy(number * 7919 % 1000) FROM numbers(3000);
SELECT hex(entropyState(toString(number % 37))), entropy(toString(number % 37)) FROM numbers(300);
SELECT hex(entropyState(toFloat64(number % 13) / 3)), hex(entropyState(toInt8(number % 9) - 4)), entropy(toInt8(number % 9) - 4), hex(entropyState(toDate(number % 7))), hex(entropyState((number % 3, 'x'))) FROM numbers(50);
SELECT entropy(number % 300), entropy(toString(number % 101)), entropy(toFloat32(number % 17)), entropy(number % 2 = 0) FROM numbers(5000);
SELECT number % 4 AS k, hex(entropyState(number % 23)), entropy(number % 23) FROM numbers(200) GROUP BY k ORDER BY k;
SELECT hex(groupArraySortedState(5)(number * 7 % 11)), hex(groupArraySortedState(3)(toString(number * 7 % 11))), hex(groupArraySortedState(30)(number * 7 % 11)) FROM numbers(20);
SELECT hex(groupArraySortedState(4)(toDecimal32(number * 7 % 11, 2))), hex(groupArraySortedState(4)(toDate32(number * 7 % 11))), hex(groupArraySortedState(4)(toFixedString(toString(number * 7 % 11), 2))), hex(groupArraySortedState(3)(toDecimal128(number * 7 % 11, 2))) FROM numbers(20);
SELECT hex(groupArraySortedState(4)(toDate(number * 7 % 11))), hex(groupArraySortedState(4)(toDateTime(number * 7 % 11, 'UTC'))), groupArraySorted(4)(toDecimal32(number * 7 % 11, 2)), groupArraySorted(4)(toFixedString(toString(number * 7 % 11), 2)) FROM numbers(20);
SELECT hex(groupArraySortedState(4)(toFloat64(number * 7 % 11) - 3)), hex(groupArraySortedState(6)(toInt32(number * 13 % 17) - 8)), groupArraySorted(6)(toInt32(number * 13 % 17) - 8), hex(groupArraySortedState(7)(number * 7919 % 1000)) FROM numbers(500);
SELECT number % 3 AS k, hex(groupArraySortedState(4)(number * 37 % 101)), groupArraySorted(4)(number * 37 % 101) FROM numbers(90) GROUP BY k ORDER BY k;
DROP TABLE IF EXISTS st;
CREATE TABLE st (k UInt8, e AggregateFunction(entropy, UInt64), s AggregateFunction(entropy, String), g AggregateFunction(groupArraySorted(5), UInt64), gs AggregateFunction(groupArraySorted(3), String)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO st SELECT number % 2, entropyState(toUInt64(number * 7 % 41)), entropyState(toString(number % 29)), groupArraySortedState(5)(toUInt64(number * 7919 % 1000)), groupArraySortedState(3)(toString(number * 31 % 97)) FROM numbers(100) GROUP BY number % 2 SETTINGS max_threads = 1;
INSERT INTO st SELECT number % 2, entropyState(toUInt64(number * 7 % 41)), entropyState(toString(number % 29)), groupArraySortedState(5)(toUInt64(number * 7919 % 1000)), groupArraySortedState(3)(toString(number * 31 % 97)) FROM numbers(100, 100) GROUP BY number % 2 SETTINGS max_threads = 1;
SELECT k, entropyMerge(e), entropyMerge(s), groupArraySortedMerge(5)(g), groupArraySortedMerge(3)(gs) FROM st GROUP BY k ORDER BY k;
OPTIMIZE TABLE st FINAL;
SELECT k, entropyMerge(e), entropyMerge(s), groupArraySortedMerge(5)(g), groupArraySortedMerge(3)(gs), hex(e), hex(s), hex(g), hex(gs) FROM st GROUP BY k, e, s, g, gs ORDER BY k;
