-- arrayTopK, arrayBottomK, arrayTranspose and arrayExcept
SELECT arrayTopK(2, [3, 1, 2, 5]) AS t, toTypeName(t), arrayBottomK(2, [3, 1, 2, 5]), arrayTopK(10, [3, 1]), arrayTopK(0, [1]);
SELECT arrayTopK(2, [1, NULL, 3]), arrayBottomK(2, [1, NULL, 3]), arrayTopK(3, [1, NULL, 3]), arrayBottomK(3, [NULL, 1, NULL]);
SELECT arrayTopK(2, ['b', 'a', 'c']), arrayBottomK(2, [nan, 1, 2]), arrayTopK(2, [nan, 1, 2]), arrayTopK(3, [nan, 1, 2]), arrayBottomK(3, [nan, 1, 2]);
SELECT arrayTopK(2, [3, 1, 3, 2]), arrayBottomK(3, [3, 1, 3, 1]), arrayTopK(2, [[1], [2, 0], [2]]), arrayTopK(toUInt64(18446744073709551615), [1, 2]);
SELECT number, arrayTopK(number, [3, 1, 2]), arrayBottomK(1, range(number + 1)) FROM numbers(3);
SELECT arrayTopK(-1, [1, 2]); -- { serverError BAD_ARGUMENTS }
SELECT arrayTopK(1.5, [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayTopK(2, 5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayTranspose([[1, 2], [3, 4], [5, 6]]) AS t, toTypeName(t), arrayTranspose([[1, NULL], [3, 4]]), arrayTranspose([['a'], ['b']]);
SELECT arrayTranspose([[[1], [2]], [[3], [4]]]) AS t, toTypeName(t);
SELECT arrayTranspose(arrayMap(x -> [x, x + 1], range(number))) FROM numbers(3);
SELECT arrayTranspose([[1, 2], [3]]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayTranspose([1, 2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayExcept([1, 2, 2, 3], [2]) AS e, toTypeName(e), arrayExcept(['a', 'b'], ['b', 'c']), arrayExcept([1, 2, 3], [4]);
SELECT arrayExcept([toNullable(1), NULL, 2], [NULL, toNullable(2)]), arrayExcept([1, 2], [toNullable(2)]), arrayExcept([nan, 1], [nan]);
SELECT arrayExcept([1, 1, 2], emptyArrayUInt8()), arrayExcept(emptyArrayUInt8(), [1]);
SELECT arrayExcept(range(number + 2), [number]) FROM numbers(3);
SELECT arrayExcept([1, 2], [2.0]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayExcept([1, 2], 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
