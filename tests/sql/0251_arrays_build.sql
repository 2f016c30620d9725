-- Building arrays: push/pop, resize, compact, flatten, zip, arrayWithConstant, arrayElementOrNull, range.
SELECT arrayPushBack([1,2], 3), arrayPushBack([1,2], 3.5), arrayPushBack([1], NULL), arrayPushBack([], 1), arrayPushBack(['a'], 'b');
SELECT toTypeName(arrayPushBack([1], NULL)), toTypeName(arrayPushFront([1,2], -1)), arrayPushFront([1,2], -1), arrayPushFront(NULL, 1), arrayPushBack(NULL, 1);
SELECT arrayPushBack([1], 'a'); -- { serverError NO_COMMON_TYPE }
SELECT arrayPushBack(1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayPopBack([1,2]), arrayPopBack([]), arrayPopFront([1,2,3]), arrayPopFront(emptyArrayString()), arrayPopBack([[1],[2]]);
SELECT arrayPopBack(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayResize([1,2,3], 2), arrayResize([1], 3), arrayResize([1], 3, 9), arrayResize([1], -3), arrayResize([1,2,3,4], -2), arrayResize([1], 3, NULL), arrayResize([1,NULL],4);
SELECT arrayResize(['a'], 2), arrayResize([1], 3, 1000), toTypeName(arrayResize([1], 3, 1000)), arrayResize([[1]], 2);
SELECT arrayResize([1], 3, 'a'); -- { serverError NO_COMMON_TYPE }
SELECT arrayResize([1], toNullable(2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayResize(1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayResize(NULL, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayCompact([1,1,2,2,1,NULL,NULL,nan,nan]), arrayCompact([]), arrayCompact(['a','a','b']), arrayCompact([[1],[1],[2]]), toTypeName(arrayCompact([1,NULL]));
SELECT arrayCompact(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayFlatten([[1,2],[3]]), flatten([[[1]],[[2,3]]]), arrayFlatten([1,2]), arrayFlatten([[]]), arrayFlatten([[1],[NULL]]), toTypeName(flatten([[['a']]]));
SELECT arrayFlatten(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayZip([1,2],['a','b']), arrayZip([1],[NULL]), arrayZip([1]), toTypeName(arrayZip([1],['a'])), arrayZip([], []);
SELECT arrayZip([1,2],[1]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayZip([1], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayWithConstant(3, 'a'), arrayWithConstant(0, 1), arrayWithConstant(2, NULL), arrayWithConstant(2, [1]), arrayWithConstant(toUInt8(2), toNullable(1)), arrayWithConstant(1.5, 1);
SELECT toTypeName(arrayWithConstant(2, NULL)), toTypeName(arrayWithConstant(1, toNullable(1)));
SELECT arrayWithConstant(-1, 1); -- { serverError TOO_LARGE_ARRAY_SIZE }
SELECT arrayWithConstant(NULL, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayElementOrNull([1,2], 3), arrayElementOrNull([1,2], 1), arrayElementOrNull([1,2], -1), arrayElementOrNull(['a'], 0), arrayElementOrNull([1,NULL], 2), arrayElementOrNull(map('a',1), 'b'), arrayElementOrNull(map('a',1), 'a');
SELECT toTypeName(arrayElementOrNull([1], 1)), arrayElementOrNull([1], NULL), arrayElementOrNull([[1]], 2);
SELECT arrayElementOrNull(1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT range(2, 5), range(1, 10, 3), range(toInt8(-3), 2), range(5, 2), range(10, 1, -1), range(1, 10, -1), range(-2, 2, 1), toTypeName(range(10, 1, -1));
SELECT range(0, 10, 0); -- { serverError ARGUMENT_OUT_OF_BOUND }
CREATE TABLE t (id UInt32, a Array(UInt32), s Array(String), n Nullable(UInt8)) ENGINE = Memory;
INSERT INTO t VALUES (1, [1,2,3], ['x','y'], 5), (2, [], [], NULL), (3, [3,3,1], ['z'], 0);
SELECT id, arrayPushBack(a, id), arrayPushFront(s, 'w'), arrayPushBack(a, n), arrayPopBack(a), arrayPopFront(s) FROM t ORDER BY id;
SELECT id, arrayResize(a, 2), arrayResize(s, -3, 'q'), arrayResize(a, id, n), arrayCompact(a), arrayWithConstant(id, n), arrayWithConstant(length(a), s) FROM t ORDER BY id;
SELECT id, arrayZip(arrayResize(a, 2), arrayResize(s, 2)), arrayFlatten([a, [id]]), arrayElementOrNull(a, id), arrayElementOrNull(s, -1) FROM t ORDER BY id;
SELECT number, arrayResize(range(number), 2, number), arrayResize(range(number), -2), arrayPopBack(range(number)), arrayPopFront(range(number)), range(toInt64(number), 0, -1) FROM numbers(4);
CREATE TABLE lc (a Array(LowCardinality(String))) ENGINE = Memory;
INSERT INTO lc VALUES (['a','b','b']), ([]);
SELECT a, arrayPopBack(a), arrayResize(a, 2), arrayCompact(a), arrayElementOrNull(a, 1), arrayZip(a), arrayFlatten([a]), arrayReverse(a), arraySlice(a, 2), arraySort(a), arrayDistinct(a), a[1] FROM lc ORDER BY length(a);
SELECT toTypeName(arrayPopBack(a)), toTypeName(arrayResize(a, 2)), toTypeName(arrayCompact(a)), toTypeName(arrayElementOrNull(a, 1)), toTypeName(arrayZip(a)), toTypeName(arrayFlatten([a])), toTypeName(arrayReverse(a)), toTypeName(arraySlice(a, 2)), toTypeName(arraySort(a)), toTypeName(a[1]), toTypeName(arrayFirst(x -> 1, a)), toTypeName(arrayFill(x -> 1, a)), toTypeName(arrayMin(a)) FROM lc LIMIT 1;
