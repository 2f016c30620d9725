-- arrayFirst / arrayLast and their Index and OrNull forms (lambda functions).
SELECT arrayFirst(x -> x > 1, [1,2,3]), arrayFirst(x -> x > 5, [1,2,3]), arrayLast(x -> x > 1, [1,2,3]), arrayFirstIndex(x -> x > 1, [1,2,3]), arrayLastIndex(x -> x > 5, [1,2,3]), arrayFirstOrNull(x -> x > 5, [1,2,3]), arrayLastOrNull(x -> x > 1, [1,2,3]);
SELECT toTypeName(arrayFirst(x -> x > 1, [1,2,3])), toTypeName(arrayFirstIndex(x -> x > 1, [1,2,3])), toTypeName(arrayFirstOrNull(x -> x > 1, [1,2,3])), toTypeName(arrayFirstOrNull(x -> x > 1, [1,NULL,3]));
SELECT arrayFirst(x -> x != '', ['', 'b']), arrayFirst((x, y) -> y > 1, ['a','b','c'], [1,2,3]), arrayFirst(x -> x, [0, 3]), arrayLast(x -> x > 1, []::Array(UInt8));
SELECT toTypeName(arrayFirst(x -> 1, [NULL, 2])), arrayFirst(x -> 1, [NULL, 2]), arrayFirstOrNull(x -> x > 5, [NULL, 2]), arrayLastIndex(x -> x = 2, [2, 2, 1]), arrayFirst(x -> isNull(x), [1, NULL]);
SELECT number, arrayFirst(x -> x > number, [1,2,3]), arrayLastIndex(x -> x <= number, [1,2,3]), arrayFirstOrNull(x -> x > number + 1, [1,2,3]) FROM numbers(4) ORDER BY number;
SELECT arrayLast(x -> x.1 > 1, [(1, 'a'), (2, 'b'), (3, 'c')]), arrayFirst(x -> length(x) > 1, [[1], [2, 3], [4, 5, 6]]);
SELECT arrayFirst(x -> x + 1, [1,2,3]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayFirst((x, y) -> x > y, [1,2], [1,2,3]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT name FROM system.functions WHERE name IN ('arrayMap', 'arrayFilter', 'arrayJoin', 'arrayFirst', 'arrayLastIndex', 'arrayFirstOrNull') ORDER BY name;
