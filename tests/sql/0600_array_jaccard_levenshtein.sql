-- arrayJaccardIndex, arrayLevenshteinDistance, arrayLevenshteinDistanceWeighted and arraySimilarity
SELECT arrayJaccardIndex([1, 2], [2, 3]) AS j, toTypeName(j), arrayJaccardIndex([1, 1, 2], [1]), arrayJaccardIndex([1], []);
SELECT arrayJaccardIndex([1, 2], [2.0, 3]), arrayJaccardIndex(['a', 'b'], ['b']), arrayJaccardIndex([toNullable(1), NULL], [NULL, 2]), arrayJaccardIndex([1, 2, 3], [toInt64(-1), 3]);
SELECT arrayJaccardIndex([1, 2], [toInt64(2)]), arrayJaccardIndex(['a'], [toFixedString('a', 1)]);
SELECT number, arrayJaccardIndex([number, 1], [number % 2]) FROM numbers(3);
SELECT arrayJaccardIndex([], []); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayJaccardIndex([1, 2], ['a']); -- { serverError NO_COMMON_TYPE }
SELECT arrayJaccardIndex(1, [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayJaccardIndex([1]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayLevenshteinDistance([1, 2, 4], [1, 2, 3]) AS d, toTypeName(d), arrayLevenshteinDistance(['a', 'b'], ['b']), arrayLevenshteinDistance([1, 2, 3], []);
SELECT arrayLevenshteinDistance(['kitten'], ['sitting']), arrayLevenshteinDistance([1, 2, 3, 4, 5], [5, 4, 3, 2, 1]), arrayLevenshteinDistance([NULL, 1], [NULL, 2]), arrayLevenshteinDistance([1.0], [1]);
SELECT arrayLevenshteinDistance([1], [toNullable(1)]), arrayLevenshteinDistance([1], [toInt64(1)]), arrayLevenshteinDistance(['a'], [toFixedString('a', 1)]), arrayLevenshteinDistance([1, 2], ['a']);
SELECT number, arrayLevenshteinDistance(range(number), [0, 2]) FROM numbers(4);
SELECT arrayLevenshteinDistance([1], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayLevenshteinDistanceWeighted(['A', 'B', 'C'], ['A', 'K', 'L'], [1.0, 2, 3], [3.0, 4, 5]) AS d, toTypeName(d);
SELECT arrayLevenshteinDistanceWeighted([1, 2, 3], [1, 3], [1.0, 5, 2], [1.0, 2]), arrayLevenshteinDistanceWeighted([1, 2], [2, 1], [1.0, 2], [5.0, 7]), arrayLevenshteinDistanceWeighted([1], [2], [-1.0], [-2.0]);
SELECT arrayLevenshteinDistanceWeighted([1, 2], [1, 2], [toFloat32(1), 2], [toFloat32(1), 2]), arrayLevenshteinDistanceWeighted([1, 2], [1, 3], [toInt8(-1), 2], [toInt8(1), 2]);
SELECT arrayLevenshteinDistanceWeighted(emptyArrayUInt8(), emptyArrayUInt8(), emptyArrayFloat64(), emptyArrayFloat64());
SELECT arraySimilarity(['A', 'B', 'C'], ['A', 'K', 'L'], [1.0, 2, 3], [3.0, 4, 5]) AS s, toTypeName(s);
SELECT arraySimilarity([1, 2], [3], [1.0, 2], [0.5]), arraySimilarity([1], [1], [0.0], [0.0]), arraySimilarity(emptyArrayUInt8(), emptyArrayUInt8(), emptyArrayFloat64(), emptyArrayFloat64());
SELECT number, arraySimilarity(range(number), [1, 2], arrayMap(x -> 1.0, range(number)), [2.0, 3.0]) FROM numbers(4);
SELECT arrayLevenshteinDistanceWeighted([1, 2], [1, 2], [1.0], [1.0, 2]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayLevenshteinDistanceWeighted([1, 2], [1, 2], ['a', 'b'], ['a', 'b']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayLevenshteinDistanceWeighted([1, 2], [1, 2], [1.0, 2], [toUInt8(1), 2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arraySimilarity([1, 2], [1], [1.0, 2], [1.0, 2]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
