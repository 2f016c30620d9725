-- arrayRotateLeft/Right and arrayShiftLeft/Right, with and without the default value
SELECT arrayRotateLeft([1, 2, 3, 4, 5], 2), arrayRotateRight([1, 2, 3, 4, 5], 2);
SELECT arrayRotateLeft([1, 2, 3], -1), arrayRotateLeft([1, 2, 3], 7), arrayRotateRight([1, 2, 3], 0);
SELECT arrayRotateLeft(CAST([] AS Array(UInt8)), 3), toTypeName(arrayRotateLeft([1, 2], 1));
SELECT arrayRotateLeft([1, 2, 3], toUInt64(18446744073709551615)), arrayRotateRight(['a', 'b', 'c'], 1);
SELECT arrayShiftLeft([1, 2, 3, 4, 5], 2), arrayShiftRight([1, 2, 3, 4, 5], 2);
SELECT arrayShiftLeft([1, 2, 3], -1), arrayShiftLeft([1, 2, 3], 7), arrayShiftRight([1, 2, 3], -7);
SELECT arrayShiftLeft([1, 2, 3, 4, 5], 2, 42), arrayShiftRight(['a', 'b', 'c'], 1, 'z'), arrayShiftRight(['a', 'b'], 1);
SELECT arrayShiftLeft([1, NULL, 3], 1), arrayShiftLeft([1, NULL], 1, 5), arrayShiftLeft([1000, 2000], 1, 5), arrayShiftLeft([1.5, 2], 1, 5);
SELECT arrayShiftLeft([1, 2, 3], toUInt64(18446744073709551615)), arrayShiftLeft([1, 2], NULL), arrayShiftLeft([1, 2], 1, NULL);
SELECT toTypeName(arrayShiftLeft(CAST(['x', 'y'] AS Array(LowCardinality(String))), 1)), arrayShiftLeft(CAST(['x', 'y'] AS Array(LowCardinality(String))), 1);
SELECT number, arrayShiftLeft(materialize([1, 2, 3]), number), arrayRotateRight(range(number + 1), number), arrayShiftRight(range(number), 1, toUInt8(number)) FROM numbers(4) ORDER BY number;
SELECT arrayShiftLeft([1, 2, 3], 1, 1000); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayShiftLeft([1, 2, 3], 1, -1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayRotateLeft(1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayRotateLeft([1], 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayRotateLeft([1], 1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayRotateLeft([1], 1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayShiftLeft([1]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
