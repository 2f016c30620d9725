-- Lambda forms: arrayCumSum/arrayDifference/arrayProduct/arrayAvg/arrayCompact with a lambda, arraySplit, arrayFill, arrayMap/arrayFilter of several arrays.
SELECT arrayCumSum(x -> x*2, [1,2,3]), arrayCumSumNonNegative(x->x-2, [1,2,3]), arrayDifference(x->x*2,[1,4]), arrayCumSum((x,y)->x+y, [1,2],[3,4]);
SELECT toTypeName(arrayCumSum(x -> x*2, [1,2,3])), toTypeName(arrayDifference(x -> x*2, [1,4]));
SELECT arrayAvg(x->x*2, [1,2]), arrayProduct(x->x*2,[1,2]), arrayAvg((x, y) -> x * y, [1,2],[3,4]), arrayCompact(x -> x % 2, [1,3,2,4,5]);
SELECT arrayCumSum(x -> toString(x), [1,2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arraySplit((x, y) -> y, [1, 2, 3, 4, 5], [1, 0, 0, 1, 0]), arrayReverseSplit((x, y) -> y, [1, 2, 3, 4, 5], [1, 0, 0, 1, 0]), arraySplit(x -> x > 2, []::Array(UInt8)), arraySplit(x->1, [1,2]), arraySplit(x->0,[1,2]);
SELECT arrayReverseSplit(x -> 1, [1,2,3]), arrayReverseSplit(x -> 0, ['a','b']), arraySplit(x -> x, [1,2]), arraySplit(x -> x > 1, [1,NULL,3]), toTypeName(arraySplit(x -> 1, ['a']));
SELECT arrayFill(x -> isNotNull(x), [1, null, 3, 11, 12, null, null, 5, 6, 14, null, null]), arrayReverseFill(x -> isNotNull(x), [1, null, 3, 11, 12, null, null, 5, 6, 14, null, null]);
SELECT arrayFill(x -> x > 1, [1,2,0,3]), arrayReverseFill(x -> x > 1, [1,2,0,3]), arrayFill((x,y)->y, [1,2,3],[0,1,0]), arrayFill(x -> x, [toNullable(1), NULL]), arrayFill(x -> 1, emptyArrayString());
SELECT arraySplit(x -> x + 1, [1,2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arraySplit([1,2]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayFill((x, y) -> y, [1], [1, 0]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT number, arraySplit(x -> x > number, [1,2,3,4]), arrayReverseFill(x -> x = number, [1,2,3,4]), arrayCumSum(x -> x + number, [1,2]), arrayCompact(x -> x < number, [1,2,3]) FROM numbers(3);
SELECT arrayMap((x, y) -> x + y, [1,2], [3,4]), arrayFilter((x, y) -> y > 3, [1,2], [3,4]), arrayMap((x, y) -> tuple(x, y), ['a'], [1]);
SELECT number, arrayMap((x, y) -> x * y + number, range(number), range(number)), arrayFilter((x, y) -> x < y, [1,5,3], [2,2,number]) FROM numbers(3);
SELECT arrayMap((x, y) -> x, [1,2], [1]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT name FROM system.functions WHERE name IN ('arraySplit', 'arrayReverseFill', 'arrayCumSum', 'flatten', 'arrayReduce', 'hasSubstr') ORDER BY name;
SELECT arrayFilter(x -> x % 2, [1,2,3]), arrayFilter(x -> 1, [1,2]), arrayFilter(x -> x > 1, [1,2,3]), arrayFilter(x -> isNull(x), [1,NULL]), arrayFilter(x -> x > 1, emptyArrayUInt8());
SELECT number, arrayFilter(x -> x > number, [1, 2, 3]), arrayFilter(x -> x = 'b', ['a', 'b']) FROM numbers(3);
SELECT arrayFilter(x -> x + 1, [1,2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
