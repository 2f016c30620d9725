-- mapAdd and mapSubtract over maps
SELECT mapAdd(map(1, 1), map(1, 1)) AS m, toTypeName(m);
SELECT mapAdd(map(2, 1, 1, 5), map(1, 1, 3, 4)) AS m, toTypeName(m);
SELECT mapAdd(map('b', 1, 'a', 1), map('c', 1)) AS m, toTypeName(m);
SELECT mapAdd(map(1, 1, 1, 2), map(1, 3));
SELECT mapAdd(map(1, 1), map(2, 1), map(1, 5)) AS m, toTypeName(m);
SELECT mapAdd(map(1, 1), map(2, 0));
SELECT mapAdd(map(1, toInt8(1)), map(1, toInt16(-1))) AS m, toTypeName(m);
SELECT mapAdd(map(1, 1.5), map(1, toFloat32(1))) AS m, toTypeName(m);
SELECT mapSubtract(map(1, 1), map(1, 2)) AS m, toTypeName(m);
SELECT mapSubtract(map(1, toInt32(1)), map(1, toInt32(5)), map(2, toInt32(1))) AS m, toTypeName(m);
SELECT mapSubtract(map('x', 2.5), map('x', 1.0, 'y', 0.5)) AS m, toTypeName(m);
SELECT number, mapAdd(mapFromArrays(range(number), range(number)), map(toUInt64(1), toUInt64(10))) AS m FROM numbers(4) ORDER BY number;
SELECT mapAdd(map(1, 1)); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT mapAdd(map(1, 1), map('a', 1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapAdd(map(1, 1), map(300, 1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapAdd(map(1, toInt8(1)), map(1, toUInt8(1))); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapAdd(map(1, 1.5), map(1, 1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapAdd(map('a', 'x'), map('a', 'y')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
