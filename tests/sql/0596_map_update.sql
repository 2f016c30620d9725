-- mapUpdate
SELECT mapUpdate(map('b', 2, 'a', 1, 'd', 4), map('b', 5, 'c', 3, 'a', 7)) AS m, toTypeName(m);
SELECT mapUpdate(map('a', 1, 'a', 2), map('a', 3));
SELECT mapUpdate(map('a', 1), map('b', 2, 'b', 3));
SELECT mapUpdate(map(), map()) AS m, toTypeName(m);
SELECT mapUpdate(map(1, 'x', 2, 'y'), map(2, 'z')) AS m, toTypeName(m);
SELECT number, mapUpdate(mapFromArrays(range(number + 1), range(number + 1)), map(number, toUInt64(100), toUInt64(0), toUInt64(50))) FROM numbers(4) ORDER BY number;
SELECT mapUpdate(map('a', 1), map('b', 300)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapUpdate(map('a', 1), map('b', 2.5)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapUpdate(map('a', 1), map()); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapUpdate(map('a', 1), 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapUpdate(map('a', 1)); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
