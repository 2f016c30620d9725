-- mapApply, mapFilter, mapExists, mapAll and the mapSort family, with and without a lambda
SELECT mapApply((k, v) -> (k, v * 10), map(1, 2, 3, 4)) AS r, toTypeName(r);
SELECT mapApply((k, v) -> (toString(k), v + 0.5), map(1, 2, 3, 4)) AS r, toTypeName(r);
SELECT mapApply((k, v) -> (v, k), map('a', 1, 'b', 1)) AS r, toTypeName(r);
SELECT mapApply((k, v) -> (concat(k, 'x'), length(v)), map('a', [1,2], 'b', []));
SELECT mapApply((k, v) -> (k, toNullable(v)), map(1, 2)) AS r, toTypeName(r);
SELECT mapApply((k, v) -> k, map(1, 2)); -- { serverError BAD_ARGUMENTS }
SELECT mapApply((k, v) -> (k, v), [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapFilter((k, v) -> v > 1, map(1, 2, 3, 0, 5, 7)) AS r, toTypeName(r);
SELECT mapFilter((k, v) -> k, map(1, 2, 0, 0));
SELECT mapFilter((k, v) -> v % 2, map(1, 1, 2, 2));
SELECT mapFilter((k, v) -> if(k=1, NULL, 1), map(1, 2, 2, 3));
SELECT mapFilter((k, v) -> toString(k), map(1, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapExists((k, v) -> v = 2, map(1, 2, 3, 4)), mapExists((k, v) -> v = 9, map(1, 2)), toTypeName(mapExists((k, v) -> v = 2, map(1, 2)));
SELECT mapAll((k, v) -> v > 1, map(1, 2, 3, 4)), mapAll((k, v) -> v > 2, map(1, 2, 3, 4)), mapAll((k, v) -> toNullable(v > 1), map(1, 2, 3, 4));
SELECT mapExists((k, v) -> toString(v), map(1, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapSort((k, v) -> v, map('b', 2, 'a', 1, 'c', 0)), mapReverseSort((k, v) -> v, map('b', 2, 'a', 1, 'c', 0));
SELECT mapSort((k, v) -> -v, map(1, 2, 3, 4)) AS r, toTypeName(r);
SELECT mapSort((k, v) -> v % 2, map(1, 3, 2, 2, 3, 1, 4, 4)), mapReverseSort((k, v) -> v % 2, map(1, 3, 2, 2, 3, 1, 4, 4));
SELECT mapPartialSort((k, v) -> v, 2, map('k1', 3, 'k2', 1, 'k3', 2, 'k4', 0)), mapPartialReverseSort((k, v) -> v, 2, map('k1', 3, 'k2', 1, 'k3', 2, 'k4', 0));
SELECT mapPartialSort((k, v) -> v, 1, map('k1', 3, 'k2', 1, 'k3', 2, 'k4', 0, 'k5', 5, 'k6', -1));
SELECT mapPartialSort((k, v) -> v, 0, map(5, 1, 3, 2)), mapPartialSort((k, v) -> v, 10, map(5, 1, 3, 2));
SELECT mapPartialSort((k, v) -> v, 'a', map(1, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT number, mapApply((k, v) -> (k, v + number), map(1, 2, 3, 4)), mapFilter((k, v) -> v > number, map(1, 0, 2, 1, 3, 2)), mapExists((k, v) -> k = number, map(1, 0, 2, 0)), mapPartialSort((k, v) -> -v, number, map(1, 1, 2, 2, 3, 3)) FROM numbers(3);
SELECT mapSort(map('b', 2, 'a', 1, 'c', 0)), mapReverseSort(map('b', 2, 'a', 1, 'c', 0));
SELECT mapSort(map(2, 3, 1, 9, 2, 1, 1, 0)), mapReverseSort(map(2, 3, 1, 9, 2, 1, 1, 0));
SELECT mapSort(map(nan, 1, 1, 2, -inf, 3)), mapReverseSort(map(nan, 1, 1, 2, -inf, 3));
SELECT mapPartialSort(2, map(5, 1, 3, 2, 4, 3, 1, 4, 2, 5)), mapPartialReverseSort(2, map(5, 1, 3, 2, 4, 3, 1, 4, 2, 5));
SELECT mapPartialSort(-1, map(5, 1, 3, 2)), mapPartialSort(10, map(5, 1, 3, 2));
SELECT mapPartialReverseSort(1, map('k1', 3, 'k2', 1, 'k3', 2, 'k4', 0, 'k5', 5, 'k6', -1));
SELECT mapSort(map()), mapSort(map('a', [1])) AS r, toTypeName(r);
SELECT mapSort(m), mapReverseSort(m), mapPartialSort(1, m) FROM (SELECT map(number % 3, 'x', 2 - number, 'y') AS m FROM numbers(4)) ORDER BY toString(m);
SELECT mapSort([1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapPartialSort(1, [1,2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
