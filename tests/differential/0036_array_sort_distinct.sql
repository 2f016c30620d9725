-- arraySort / arrayReverseSort (stable, NULLs last, NaNs just before them in both
-- directions, with a lambda giving the keys) and arrayDistinct (first occurrences,
-- NULLs dropped, element type without Nullable).
SELECT arraySort([3, 1, 2]), arraySort(['b', 'a']), arraySort([NULL, 2, 1]), arraySort([]), toTypeName(arraySort([1, 2])), arrayReverseSort([3, 1, NULL, 2]), toTypeName(arrayReverseSort([1, NULL]));
SELECT arraySort([(2, 'a'), (1, 'b')]), arraySort([[2], [1, 2], [1]]), arraySort([toDate('2024-01-02'), toDate('2024-01-01')]), arraySort(['B', 'a', 'A', 'b']), arraySort([1, 1.5, -2]), arraySort([-0., 0., -1.]);
SELECT arraySort([1e308 * 10, 1, -1e308 * 10, NULL, 0 / 0]), arrayReverseSort([1e308 * 10, 1, -1e308 * 10, NULL, 0 / 0]), arraySort([0 / 0, 2, 0 / 0, 1]);
SELECT arraySort(x -> -x, [1, 2, 3]), arraySort((x, y) -> y, ['a', 'b', 'c'], [3, 1, 2]), arrayReverseSort(x -> x, [1, 3, 2]), arrayReverseSort((x, y) -> y, ['a', 'b', 'c'], [3, 1, 2]), toTypeName(arraySort(x -> -x, [1, 2]));
SELECT arraySort(x -> 'a', [3, 1, 2]), arraySort(x -> NULL, [3, 1, 2]), arraySort(x -> if(x = 2, NULL, x), [3, 1, 2]), arraySort(x -> length(x), ['ccc', 'a', 'bb']), arraySort(x -> x % 2, [4, 3, 2, 1]);
SELECT arraySort(x), arrayReverseSort(x) FROM (SELECT arrayJoin([[3, 1], [], [2, 1, 0]]) AS x);
SELECT arraySort((x, y) -> y, x, arrayMap(z -> -z, x)) FROM (SELECT arrayJoin([[3, 1], [], [2, 1, 0]]) AS x);
SELECT arraySort(x -> x * if(number % 2 = 0, 1, -1), [3, 1, 2]) FROM numbers(3);
SELECT arraySort(groupArray(x)) FROM (SELECT toDate('2024-01-01') + number AS x FROM numbers(7));
SELECT uniqExact(x), arraySort(groupArray(x)), anyLast(x) FROM (SELECT toDate('2024-01-01') + number AS x FROM numbers(3));
SELECT arraySort(groupArray(s)), arrayReverseSort(groupArray(number)) FROM (SELECT number, toString(number % 3) AS s FROM numbers(6));
SELECT arraySort(NULL);
SELECT arraySort(1);
SELECT arrayDistinct([1, 1, 2]), arrayDistinct([]), arrayDistinct([NULL, 1, NULL, 1]), toTypeName(arrayDistinct([NULL, 1])), arrayDistinct(['b', 'a', 'b']), arrayDistinct([[1], [1], [2]]), arrayDistinct([2, 1, 2, 3, 1]), arrayDistinct([-0., 0.]);
SELECT arrayDistinct(a) FROM (SELECT arrayJoin([[1, 1], [], [3, 2, 3]]) AS a);
SELECT arrayDistinct(groupArray(number % 3)) FROM numbers(10);
SELECT arrayDistinct(NULL);
SELECT arrayDistinct(1);
