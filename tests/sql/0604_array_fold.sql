-- arrayFold: one lambda call per position over the rows that reach it
SELECT arrayFold((acc, x) -> acc + x, [1, 2, 3], toUInt64(0)) AS f, toTypeName(f);
SELECT arrayFold((acc, x, y) -> acc + x * y, [1, 2], [3, 4], toInt64(0));
SELECT arrayFold((acc, x) -> concat(acc, toString(x)), [1, 2, 3], '');
SELECT arrayFold((acc, x) -> arrayPushBack(acc, x * 2), [1, 2, 3], emptyArrayUInt16()) AS f, toTypeName(f);
SELECT arrayFold((acc, x) -> (acc.2, acc.2 + acc.1), range(number), (toUInt64(1), toUInt64(1))) FROM numbers(5);
SELECT arrayFold((acc, x) -> acc + x, range(number), number) FROM numbers(4);
SELECT arrayFold((acc, x) -> if(x > acc, x, acc), [3, 7, 2], toUInt8(0));
SELECT arrayFold((acc, x) -> acc * 2.5 + x, [1.0, 2.0], 0.5);
SELECT arrayFold((acc, x) -> acc + x * number, [1, 2, 3], toUInt64(0)) FROM numbers(3);
SELECT arrayFold((acc, x) -> acc + x, [1, 2], toUInt64(0), 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayFold((acc, x, y) -> acc + x, [1, 2], [1], toUInt64(0)); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayFold((acc, x) -> acc + x, 1, toUInt64(0)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayFold((acc, x) -> toString(x), [1, 2], toUInt64(0)); -- { serverError TYPE_MISMATCH }
