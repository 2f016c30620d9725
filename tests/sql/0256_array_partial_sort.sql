-- arrayPartialSort / arrayPartialReverseSort: the rest in ClickHouse's ::partial_sort order
SELECT arrayPartialSort(2, [5, 9, 1, 3]), arrayPartialReverseSort(2, [5, 9, 1, 3]);
SELECT arrayPartialSort(3, [5, 9, 1, 3, 7, 2, 8, 0, 6, 4]);
SELECT arrayPartialReverseSort(3, [5, 9, 1, 3, 7, 2, 8, 0, 6, 4]);
SELECT arrayPartialSort(0, [5, 9, 1, 3]), arrayPartialSort(20, [5, 9, 1, 3]), arrayPartialSort(-1, [5, 9, 1, 3]);
SELECT arrayPartialSort(2, [nan, 3, NULL, 1, 2]);
SELECT arrayPartialSort(2, ['b', 'a', 'c', 'a']);
SELECT arrayPartialSort(number, [5, 9, 1, 3, 7, 2, 8, 0, 6, 4]) FROM numbers(6);
SELECT arrayPartialSort(2, range(number)) FROM numbers(4);
SELECT arrayPartialSort(3, [3, 1, 2, 1, 3, 1, 2, 3, 1, 2, 1, 3, 2, 1, 3, 2, 1, 2, 3, 1, 1, 2, 3, 2, 1, 3, 2, 1, 3, 1]);
SELECT arrayPartialReverseSort(5, arrayMap(x -> (x * 37) % 101, range(60)));
SELECT toTypeName(arrayPartialSort(2, [5, 9, 1, 3]));
SELECT arrayPartialSort(1.5, [3, 2, 1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayPartialSort(2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayPartialSort(2, 3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayPartialSort(2, [5, 9, 1, 3], [1, 2, 3, 4]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- arrayZip() without arguments
SELECT arrayZip(), toTypeName(arrayZip()), length(arrayZip());
SELECT arrayZip() FROM numbers(2);
