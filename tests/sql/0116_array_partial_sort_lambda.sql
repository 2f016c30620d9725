-- arrayPartialSort / arrayPartialReverseSort with a lambda: f(lambda, limit, arr[, arr2...]), the first limit elements in the order of the lambda's results, the rest where ClickHouse's partial sort leaves them.
SELECT arrayPartialSort(x -> -x, 2, [5, 9, 1, 3]);
SELECT arrayPartialReverseSort(x -> -x, 2, [5, 9, 1, 3]);
SELECT arrayPartialSort((x, y) -> y, 2, [5, 9, 1, 3], [4, 3, 2, 1]);
SELECT arrayPartialSort(x -> x, 2, [5, 9, 1, 3]);
SELECT toTypeName(arrayPartialSort(x -> -x, 2, [5, 9, 1, 3]));
SELECT arrayPartialSort(x -> -x, 10, [5, 9, 1, 3]);
SELECT arrayPartialSort(x -> -x, 0, [5, 9, 1, 3]);
SELECT arrayPartialSort(x -> x % 3, 2, [5, 9, 1, 3, 6, 4, 7]);
SELECT arrayPartialReverseSort(x -> x % 3, 2, [5, 9, 1, 3, 6, 4, 7]);
SELECT arrayPartialSort(x -> x % 5, 3, [15, 2, 9, 11, 4, 3, 20, 8, 6, 1, 7, 13]);
SELECT arrayPartialReverseSort(x -> x % 5, 3, [15, 2, 9, 11, 4, 3, 20, 8, 6, 1, 7, 13]);
SELECT arrayPartialSort(x -> length(x), 1, ['ccc', 'a', 'bb', 'dd', 'e']);
SELECT number, arrayPartialSort(x -> -x, number, [3, 1, 4, 1, 5, 9, 2, 6]) FROM numbers(5);
SELECT arrayPartialSort(x -> -x, 2, arr) FROM (SELECT [10, 30, 20] AS arr UNION ALL SELECT [] UNION ALL SELECT [7]) ORDER BY length(arr);
SELECT arrayPartialSort(x -> toNullable(if(x > 3, NULL, -x)), 2, [5, 1, 2, 4, 3]);
SELECT arrayPartialSort(x -> -x, 'a', [1, 2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayPartialSort((x, y) -> y, 2, [1, 2]); -- { serverError 43 }
SELECT arrayPartialReverseSort(x -> x, 2, [1, 2], [3, 4]); -- { serverError 43 }
