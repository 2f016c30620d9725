-- Arrays as sets: hasAll / hasAny / hasSubstr, countEqual, arrayIntersect, arrayUnion, arrayEnumerate*.
SELECT hasAll([1,2,3],[1,2]), hasAll([1,2],[1.0, 2]), hasAny([1,2],[3]), hasAll([], []), hasAll([1,NULL],[NULL]), hasAny([1],[NULL]);
SELECT hasAll([[1,2],[3]], [[3]]), hasAny([1,2],[-1, 2]), hasAll([1], [toNullable(1)]), hasAny([1, nan], [nan]), hasAll(['a','b'], ['b']);
SELECT hasSubstr([1,2,3],[2,3]), hasSubstr([1,2,3],[3,2]), hasSubstr([1,NULL,3],[NULL,3]), hasSubstr([], []), hasSubstr([1],[]), hasSubstr([1],[1,1]);
SELECT toTypeName(hasAll(NULL, [1])), hasAny([1], NULL);
SELECT hasAll([1,2], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT hasAny(1, [1,2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT hasSubstr([1], ['a']); -- { serverError NO_COMMON_TYPE }
SELECT countEqual([1,2,NULL,NULL], NULL), countEqual([1,2,2], 2), countEqual([1.0,nan],nan), countEqual(['a'], 'a'), countEqual([1,2], toNullable(2)), countEqual([1,2], CAST(NULL AS Nullable(UInt8)));
SELECT toTypeName(countEqual([1], 1));
SELECT countEqual([1], 'a'); -- { serverError NO_COMMON_TYPE }
SELECT countEqual(NULL, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayEnumerate([10,20,30]), arrayEnumerate([]), arrayEnumerate(NULL), toTypeName(arrayEnumerate([1]));
SELECT arrayEnumerateUniq([10,20,10,NULL,NULL]), arrayEnumerateUniq([1,1,2],[1,1,1]), arrayEnumerateDense([10,20,10,NULL,NULL,30]), arrayEnumerateDense([1,1,2],[1,2,1]);
SELECT arrayEnumerateUniq([[1],[1],[2]]), arrayEnumerateDense(['a','b','a']), arrayEnumerateUniq([nan, nan, 0, -0.0]);
SELECT arrayEnumerateUniq([1,2],[1]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayEnumerateUniq(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayEnumerateDense(); -- { serverError TOO_FEW_ARGUMENTS_FOR_FUNCTION }
SELECT arrayIntersect([1,2,3],[2,3,4]), arrayIntersect([1,2],[1.5, 2]), arrayIntersect([1,2],[-1, 2]), arrayIntersect([1,1,2],[1]);
SELECT arrayIntersect([1,NULL],[NULL, 1]), arrayIntersect([1,NULL],[2]), arrayIntersect([toNullable(1)],[1]), arrayIntersect([nan, 0],[nan, -0.]);
SELECT arrayIntersect([], [1]), arrayIntersect([3,2,1],[1,2,3]), arrayIntersect(['b','a'],['a','b','c']), arrayIntersect([1]), arrayIntersect([1,2],[2],[2,1]);
SELECT arrayIntersect([[1],[2]],[[2]]), arrayIntersect(materialize([1,2,3]), [3,1]);
SELECT toTypeName(arrayIntersect([toInt8(1)],[toUInt16(1)])), toTypeName(arrayIntersect([toInt32(1)],[toUInt8(1)])), toTypeName(arrayIntersect([toFloat32(1)],[toFloat64(1)])), toTypeName(arrayIntersect([toInt64(1)],[toFloat32(1)])), toTypeName(arrayIntersect(['a'],[toFixedString('a',1)]));
SELECT arrayIntersect([1,2],['a']); -- { serverError NO_COMMON_TYPE }
SELECT arrayIntersect(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayIntersect([1], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arraySort(arrayUnion([1,2],[2,3])), arraySort(arrayUnion([3,1,1],[NULL])), arraySort(arrayUnion([1],[1.5])), arraySort(arrayUnion(['b','a'],['c'])), toTypeName(arrayUnion([1],[NULL]));
SELECT arrayUnion([1], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
CREATE TABLE t (id UInt32, a Array(UInt32), b Array(Nullable(String))) ENGINE = Memory;
INSERT INTO t VALUES (1, [1,2,3], ['x', NULL]), (2, [], []), (3, [3,3,1], [NULL, NULL, 'y']), (4, [2], ['x']);
SELECT id, hasAll(a, [1, 3]), hasAny(a, [2]), hasSubstr(a, [3, 1]), countEqual(a, 3), countEqual(b, NULL), indexOf(b, 'y') FROM t ORDER BY id;
SELECT id, hasAll(b, ['x']), hasAny(b, [NULL]), arrayEnumerate(a), arrayEnumerateUniq(a), arrayEnumerateDense(b), arrayEnumerateUniq(a, arrayResize(b, length(a))) FROM t ORDER BY id;
SELECT id, arrayIntersect(a, [1, 2, 3]), arrayIntersect(b, ['x', NULL]), arraySort(arrayUnion(a, [2])), arrayIntersect(a, a, [3]) FROM t ORDER BY id;
SELECT number, hasAll(range(number), [1]), hasAny(range(number), [0, 5]), hasSubstr(range(number + 2), [number, number + 1]), countEqual(range(number), 1) FROM numbers(4);
