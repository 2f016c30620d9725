-- Array literals have ClickHouse's types: the least supertype of the elements, Nullable
-- only when an element is; [] is Array(Nothing).
SELECT toTypeName([1, 2]), toTypeName([1, -1]), toTypeName([1, NULL]), toTypeName([1, 2.5]), toTypeName(['a']), toTypeName([[1], [2, 3]]), toTypeName([]);
SELECT toTypeName([300, 1]), toTypeName([1, 70000]), toTypeName([-1, 300]), toTypeName([NULL]), toTypeName([[1, NULL], [2]]), toTypeName([toUInt8(1), 1000]);
SELECT sumArray([1, 2]) FROM numbers(0);
SELECT sumArray([1, 2]) FROM numbers(3);
SELECT sumArray(x) FROM (SELECT [1, 2] AS x FROM numbers(2));
SELECT [1, 2], [1, NULL], [[1], []], ['a', 'b'], [], [NULL];
SELECT toTypeName([number, 1]) FROM numbers(1);
SELECT [number, 1, number * 2] FROM numbers(3);
SELECT [number, number + 1], toTypeName([number, number + 1]) FROM numbers(2);
SELECT [[number], [1, 2]], toTypeName([[number], [1, 2]]) FROM numbers(2);
SELECT [number % 2, 1000] FROM numbers(3);
SELECT toTypeName([toNullable(1), 2]);
SELECT toTypeName([1.5, 2.5]), toTypeName([toDate('2024-01-01')]), [toDate('2024-01-01'), toDate('2024-01-02')];
SELECT has([1, 2], 1), length([1, 2, 3]), [1, 2][1], [10, 20, 30][2];
SELECT arrayMap(x -> x * 2, [1, 2, 3]);
SELECT groupArray(x) FROM (SELECT arrayJoin([3, 1, 2]) AS x);
SELECT emptyArrayToSingle([1, 2]);
SELECT if(number % 2, [1, 2], [3]) FROM numbers(2);
SELECT [[1, 2], []], toTypeName([[1, 2], []]), toTypeName([[], []]), toTypeName([[], [NULL]]);
SELECT if(1, [], [1]), toTypeName(if(1, [], [1]));
SELECT ['a', NULL], toTypeName(['a', NULL]);
SELECT [1, 2] AS a, toTypeName(a) FROM numbers(2) ORDER BY number;
SELECT [toUInt64(1), 2], [toInt64(-1), 2];
SELECT if(number > 0, number, number + 1) FROM numbers(3);
SELECT multiIf(number = 0, number, number = 1, 5, 300) AS x, toTypeName(x) FROM numbers(3);
