-- arrayZipUnaligned, arrayShingles, arrayFlattenedLength and arrayRemove
SELECT arrayZipUnaligned([1, 2], ['a']) AS z, toTypeName(z), arrayZipUnaligned([1], [2], [3, 4, 5]);
SELECT arrayZipUnaligned([1, 2]) AS z, toTypeName(z);
SELECT arrayZipUnaligned([toNullable(1), NULL], [[1]]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayZipUnaligned(range(number), ['x']) FROM numbers(3);
SELECT arrayZipUnaligned([1], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayShingles([1, 2, 3, 4], 3) AS s, toTypeName(s), arrayShingles(['a', 'b'], 1), arrayShingles([1, 2], 2);
SELECT arrayShingles(range(number + 2), 2) FROM numbers(3);
SELECT arrayShingles([1, 2], 3); -- { serverError BAD_ARGUMENTS }
SELECT arrayShingles([1, 2], -1); -- { serverError BAD_ARGUMENTS }
SELECT arrayShingles([1, 2], 1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayFlattenedLength([[1, 2], [3]]), arrayFlattenedLength([1, 2]), arrayFlattenedLength([[[1], [2, 3]], [[4]]]) AS l, toTypeName(l), arrayFlattenedLength([]), arrayFlattenedLength([[], []]);
SELECT arrayFlattenedLength(arrayMap(x -> range(x), range(number))) FROM numbers(4);
SELECT arrayFlattenedLength(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayRemove([1, 2, 2, 3], 2) AS r, toTypeName(r), arrayRemove(['a', NULL, 'b'], NULL) AS n, toTypeName(n);
SELECT arrayRemove([1, 2, NULL], 2), arrayRemove([1.5, 2], 2), arrayRemove([1, 2], 2.0), arrayRemove([nan, 1], nan), arrayRemove([], 1);
SELECT arrayRemove(range(number + 1), number % 2) FROM numbers(3);
SELECT arrayRemove([[1], [2]], [1]), arrayRemove(['a', 'b'], toFixedString('a', 1));
SELECT arrayRemove([1, 2], 'a'); -- { serverError NO_COMMON_TYPE }
