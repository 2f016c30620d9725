-- arraySymmetricDifference: in some arrays but not all (sorted: ClickHouse's order is its hash table's).
SELECT arraySort(arraySymmetricDifference([1, 2, 3], [2, 3, 4])), arraySort(arraySymmetricDifference([1, 2, 2], [3])), arraySort(arraySymmetricDifference([1, 2], [2, 3], [3, 4])), arraySymmetricDifference([1, 1]), arraySymmetricDifference([1, 2]);
SELECT arraySort(arraySymmetricDifference([1], [1.5])), toTypeName(arraySymmetricDifference([1], [1.5])), arraySymmetricDifference([NULL, 1], [1]), toTypeName(arraySymmetricDifference([NULL, 1], [1])), arraySymmetricDifference([1, NULL], [NULL]);
SELECT arraySort(arraySymmetricDifference(['a', 'b'], ['b', 'c'])), arraySymmetricDifference([], []), toTypeName(arraySymmetricDifference([], [])), arraySort(arraySymmetricDifference([5, 4, 3, 2, 1], [10, 20, 30, 40, 50, 60]));
SELECT number, arraySort(arraySymmetricDifference(range(number), range(2, number + 2))) FROM numbers(5) ORDER BY number;
SELECT arraySymmetricDifference(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arraySymmetricDifference([1], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- arrayAutocorrelation
SELECT arrayAutocorrelation([1, 2, 3, 4, 5]), toTypeName(arrayAutocorrelation([1, 2, 3, 4, 5])), arrayAutocorrelation([1, 2, 3, 4, 5], 2), arrayAutocorrelation([]), arrayAutocorrelation([1, 1, 1]);
SELECT arrayAutocorrelation([toFloat32(1.5), 2, 3.5]), arrayAutocorrelation([3, 1.5, 2.25, 7, 0.1]), arrayAutocorrelation([1, 2, 3], 10), arrayAutocorrelation([1, 2, 3], 0), arrayAutocorrelation([toDecimal32(1, 2), 2]);
SELECT number, arrayAutocorrelation(arrayMap(x -> (x * 7) % 5, range(number + 2)), number) FROM numbers(4) ORDER BY number;
SELECT arrayAutocorrelation(['a']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayAutocorrelation([1, NULL]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayAutocorrelation([1, 2, 3], -1); -- { serverError BAD_ARGUMENTS }
SELECT arrayAutocorrelation([1, 2], 1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayAutocorrelation([1], 1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- arrayNormalizedGini
SELECT arrayNormalizedGini([0.9, 0.3, 0.8, 0.7], [6, 1, 0, 2]), toTypeName(arrayNormalizedGini([0.9, 0.3, 0.8, 0.7], [6, 1, 0, 2])), arrayNormalizedGini([1, 2, 3], [1, 2, 3]);
SELECT arrayNormalizedGini([1, 2, 3], [0, 0, 0]), arrayNormalizedGini([1], [1]), arrayNormalizedGini([3, 2, 1], [1, 2, 3]), arrayNormalizedGini([1, 1, 2], [1, 2, 3]);
SELECT number, arrayNormalizedGini(arrayMap(x -> (x * 3) % 7, range(5)), arrayMap(x -> x + number, range(5))) FROM numbers(3) ORDER BY number;
SELECT arrayNormalizedGini([1, 2], [1, 2, 3]); -- { serverError ILLEGAL_COLUMN }
SELECT arrayNormalizedGini(['a'], [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayNormalizedGini([1, 2, 3], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayNormalizedGini([], []); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- arrayReduceInRanges
SELECT arrayReduceInRanges('sum', [(1, 5), (2, 3), (3, 4), (4, 4)], [1000000, 200000, 30000, 4000, 500, 60, 7]), toTypeName(arrayReduceInRanges('sum', [(1, 5)], [1, 2]));
SELECT arrayReduceInRanges('groupArray', [(-2, 5), (0, 3), (2, 0), (7, 1), (1, 100), (-10, 8), (4, 1), (5, 1)], [1, 2, 3, 4]);
SELECT arrayReduceInRanges('argMax', [(1, 2)], [1, 2], [3, 4]), arrayReduceInRanges('uniq', [(1, 3)], ['a', 'b', 'a']), arrayReduceInRanges('avg', [(1, 2), (2, 2)], [1, 2, 3]), toTypeName(arrayReduceInRanges('avg', [(1, 2)], [1, 2, 3]));
SELECT arrayReduceInRanges('sumIf', [(1, 3), (2, 2)], [1, 2, 3], [1, 0, 1]), arrayReduceInRanges('uniqDistinct', [(1, 3)], [1, 1, 2]), arrayReduceInRanges('groupArray', [(1, 3)], [1, NULL, 2]), arrayReduceInRanges('count', [(1, 2)], [1, 2, 3]);
SELECT arrayReduceInRanges('sum', [(1, 2)], [NULL, NULL]), arrayReduceInRanges('sum', [(1, 2)], [toNullable(1), NULL]), arrayReduceInRanges('sum', [(1, toUInt64(2))], [1, 2]), arrayReduceInRanges('quantile(0.5)', [(1, 3)], [1, 2, 3]);
SELECT arrayReduceInRanges('sum', r, a) FROM (SELECT [(1, 2), (2, 1)] AS r, [10, 20, 30] AS a UNION ALL SELECT [(1, 1)], [5]) ORDER BY 1;
SELECT arrayReduceInRanges('max', [(1, 2)], [1, 2], [3, 4]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayReduceInRanges('sum', [(1.5, 2)], [1, 2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayReduceInRanges('sum', [(-1, -2)], [1, 2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayReduceInRanges('sum', [1], [1, 2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayReduceInRanges('sumx', [(1, 1)], [1, 2]); -- { serverError UNKNOWN_AGGREGATE_FUNCTION }
SELECT arrayReduceInRanges(materialize('sum'), [(1, 1)], [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- indexOfAssumeSorted: a binary search, so an unsorted array may miss.
SELECT indexOfAssumeSorted([1, 3, 5, 7], 5), indexOfAssumeSorted([1, 3, 5, 7], 4), toTypeName(indexOfAssumeSorted([1, 3, 5, 7], 5)), indexOfAssumeSorted([], 1), indexOfAssumeSorted([1, 1, 1, 2], 1), indexOfAssumeSorted([1, 2, 2, 2, 2, 2, 3], 2);
SELECT indexOfAssumeSorted([1, 3, 5, 7], 7.0), indexOfAssumeSorted([1, 3, 5, 7], toInt64(-1)), indexOfAssumeSorted(['a', 'b', 'c'], 'b'), indexOfAssumeSorted([3, 2, 1], 3), indexOfAssumeSorted([1, 2, NULL], NULL);
SELECT number, indexOfAssumeSorted(range(0, 20, 2), number), indexOfAssumeSorted([number, number + 1], 1) FROM numbers(5) ORDER BY number;
SELECT indexOfAssumeSorted([1, 2, 3], 'a'); -- { serverError NO_COMMON_TYPE }
SELECT indexOfAssumeSorted(1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
