-- mapFromArrays (MAP_FROM_ARRAYS) and mapConcat
SELECT mapFromArrays(['a', 'b', 'c'], [1, 2, 3]) AS m, toTypeName(m);
SELECT MAP_FROM_ARRAYS([1, 2], ['x', 'y']) AS m, toTypeName(m);
SELECT mapFromArrays([], []) AS m, toTypeName(m);
SELECT mapFromArrays(['a', 'a'], [1, 2]);
SELECT mapFromArrays(materialize(['a']), [toNullable(1)]) AS m, toTypeName(m);
SELECT mapFromArrays(CAST(['a'] AS Array(Nullable(String))), [1]) AS m, toTypeName(m);
SELECT mapFromArrays(['a'], [[1, 2]]) AS m, toTypeName(m);
SELECT number, mapFromArrays(range(number), arrayMap(x -> toString(x * 10), range(number))) FROM numbers(4) ORDER BY number;
SELECT mapFromArrays(['a'], [1, 2]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT mapFromArrays(['a', NULL], [1, 2]); -- { serverError BAD_ARGUMENTS }
SELECT mapFromArrays(['a'], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapFromArrays(['a']); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT mapConcat(map('a', 1), map('b', 2)) AS m, toTypeName(m);
SELECT mapConcat(map('a', 1), map('a', 2, 'c', 3)) AS m, toTypeName(m);
SELECT mapConcat(map('a', 1), map('b', 2.5)) AS m, toTypeName(m);
SELECT mapConcat(map('a', 1)) AS m, toTypeName(m);
SELECT mapConcat(map(), map('x', 'y'), map()) AS m, toTypeName(m);
SELECT number, mapConcat(map(number, 'n'), mapFromArrays(range(number), arrayMap(x -> toString(x), range(number)))) FROM numbers(3) ORDER BY number;
SELECT mapConcat(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT mapConcat(map('a', 1), map(1, 2)); -- { serverError NO_COMMON_TYPE }
SELECT mapConcat(map('a', 1), 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
