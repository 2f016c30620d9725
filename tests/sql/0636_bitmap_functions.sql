-- bitmapBuild and the bitmap functions over AggregateFunction(groupBitmap, T) values:
-- result types, values, orders and ClickHouse's bytes (small set vs Roaring).
SELECT toTypeName(bitmapBuild([1, 2, 3])), toTypeName(bitmapBuild([toInt32(-1)])), toTypeName(bitmapBuild([toUInt64(1)])), toTypeName(bitmapBuild(emptyArrayUInt16()));
SELECT bitmapToArray(bitmapBuild([3, 1, 2])), hex(bitmapBuild([3, 1, 2])), toTypeName(bitmapToArray(bitmapBuild([3, 1, 2])));
SELECT bitmapToArray(bitmapBuild([toInt32(-1), 5, -3])), bitmapToArray(bitmapBuild(arrayConcat([toInt8(-1), -5], range(1, 40)::Array(Int8))));
SELECT hex(bitmapBuild(range(70000)::Array(UInt32))), hex(bitmapBuild([toUInt64(1), 4294967296 * 3 + 5]));
SELECT bitmapCardinality(bitmapBuild(range(256)::Array(UInt8))), toTypeName(bitmapCardinality(bitmapBuild([1])));
SELECT bitmapMin(bitmapBuild(emptyArrayUInt32())), bitmapMax(bitmapBuild(emptyArrayUInt32())), bitmapMin(bitmapBuild(emptyArrayUInt64())), bitmapMin(bitmapBuild(emptyArrayInt8()));
SELECT bitmapMin(bitmapBuild([toInt32(-1), 5])), bitmapMax(bitmapBuild([toInt32(-1), 5])), bitmapMax(bitmapBuild([toInt8(-1), 1])), bitmapMin(bitmapBuild(range(100, 200)::Array(UInt32)));
SELECT bitmapContains(bitmapBuild([toInt8(-1)]), -1), bitmapContains(bitmapBuild([toInt8(-1)]), 255), bitmapContains(bitmapBuild([1, 2, 3]::Array(UInt32)), 2), bitmapContains(bitmapBuild([1, 2, 3]::Array(UInt32)), 4294967298);
SELECT bitmapContains(bitmapBuild([toInt32(-1)]), -1), bitmapContains(bitmapBuild([toInt32(-1)]), 4294967295), bitmapContains(bitmapBuild([toInt64(-1)]), -1), bitmapContains(bitmapBuild(range(100)::Array(UInt32)), 99);
SELECT bitmapHasAny(bitmapBuild([1, 2, 3]), bitmapBuild([3, 4])), bitmapHasAll(bitmapBuild([1, 2, 3]), bitmapBuild([3, 4])), bitmapHasAll(bitmapBuild([1, 2, 3]), bitmapBuild(emptyArrayUInt8())), bitmapHasAny(bitmapBuild([1, 2, 3]), bitmapBuild(emptyArrayUInt8()));
SELECT bitmapHasAll(bitmapBuild(range(100)::Array(UInt32)), bitmapBuild([5, 50]::Array(UInt32))), bitmapHasAny(bitmapBuild(range(100)::Array(UInt32)), bitmapBuild(range(99, 200)::Array(UInt32)));
-- Set operations keep ClickHouse's forms: AND of a small set stays small, XOR is Roaring.
SELECT hex(bitmapAnd(bitmapBuild([5, 3, 1, 2]::Array(UInt32)), bitmapBuild([2, 1]::Array(UInt32)))), hex(bitmapOr(bitmapBuild([5, 3, 1, 2]::Array(UInt32)), bitmapBuild([7, 2, 6]::Array(UInt32))));
SELECT hex(bitmapXor(bitmapBuild([5, 3, 1, 2]::Array(UInt32)), bitmapBuild([7, 2, 6]::Array(UInt32)))), hex(bitmapAndnot(bitmapBuild([5, 3, 1, 2]::Array(UInt32)), bitmapBuild([7, 2, 6]::Array(UInt32))));
SELECT hex(bitmapAnd(bitmapBuild(range(40)::Array(UInt32)), bitmapBuild([3, 1, 2]::Array(UInt32)))), hex(bitmapAndnot(bitmapBuild(range(40)::Array(UInt32)), bitmapBuild([3, 1, 2]::Array(UInt32))));
SELECT hex(bitmapAnd(bitmapBuild([39, 3, 100, 1, 2]::Array(UInt32)), bitmapBuild(range(40)::Array(UInt32)))), hex(bitmapOr(bitmapBuild([3, 1]::Array(UInt32)), bitmapBuild(range(40)::Array(UInt32))));
SELECT hex(bitmapOr(bitmapBuild(range(30)::Array(UInt32)), bitmapBuild(range(25, 35)::Array(UInt32)))), hex(bitmapAnd(bitmapBuild(range(100)::Array(UInt32)), bitmapBuild(range(200, 300)::Array(UInt32))));
SELECT hex(bitmapAnd(bitmapBuild(range(100)::Array(UInt64)), bitmapBuild(range(200, 300)::Array(UInt64)))), hex(bitmapXor(bitmapBuild(range(100)::Array(UInt32)), bitmapBuild(range(100)::Array(UInt32))));
SELECT bitmapToArray(bitmapXor(bitmapBuild([5, 3, 1, 2]), bitmapBuild([7, 2, 6]))), bitmapToArray(bitmapOr(bitmapBuild([5, 3]), bitmapBuild([7, 2, 6]))), bitmapToArray(bitmapAndnot(bitmapBuild(range(50)::Array(UInt16)), bitmapBuild(range(3, 50)::Array(UInt16))));
SELECT bitmapAndCardinality(bitmapBuild([1, 2, 3]), bitmapBuild([3, 4])), bitmapOrCardinality(bitmapBuild([1, 2, 3]), bitmapBuild([3, 4])), bitmapXorCardinality(bitmapBuild([1, 2, 3]), bitmapBuild([3, 4])), bitmapAndnotCardinality(bitmapBuild([1, 2, 3]), bitmapBuild([3, 4]));
SELECT toTypeName(bitmapAnd(bitmapBuild([1]::Array(UInt8)), bitmapBuild([1]::Array(UInt8)))), toTypeName(bitmapAndCardinality(bitmapBuild([1]), bitmapBuild([1]))), toTypeName(bitmapHasAny(bitmapBuild([1]), bitmapBuild([1])));
-- Subsets: a new set built value by value.
SELECT bitmapToArray(bitmapSubsetInRange(bitmapBuild([9, 8, 7, 1, 2, 3]::Array(UInt32)), 2, 8)), hex(bitmapSubsetInRange(bitmapBuild([9, 8, 7, 1, 2, 3]::Array(UInt32)), 2, 8));
SELECT bitmapToArray(bitmapSubsetInRange(bitmapBuild(range(100)::Array(UInt32)), 10, 15)), hex(bitmapSubsetInRange(bitmapBuild(range(100)::Array(UInt32)), 10, 15)), hex(bitmapSubsetInRange(bitmapBuild([9, 8]::Array(UInt32)), 5, 1));
SELECT bitmapToArray(bitmapSubsetInRange(bitmapBuild([toInt32(-1), -5, 3, 2]), 2, 4294967295)), bitmapToArray(bitmapSubsetInRange(bitmapBuild([1, 2, 3]::Array(UInt8)), 1, 1000));
SELECT bitmapToArray(bitmapSubsetLimit(bitmapBuild([9, 8, 7, 1, 2, 3]::Array(UInt32)), 2, 3)), bitmapToArray(bitmapSubsetLimit(bitmapBuild([9, 8, 7, 1, 2, 3]::Array(UInt32)), 2, 10));
SELECT bitmapToArray(bitmapSubsetLimit(bitmapBuild([9, 8, 7, 1, 2, 3, 20, 15, 11, 4, 5, 19]::Array(UInt32)), 2, 6)), bitmapToArray(bitmapSubsetLimit(bitmapBuild([toInt32(-1), -5, 3, 2]), 2, 10));
SELECT bitmapToArray(bitmapSubsetLimit(bitmapBuild(range(100)::Array(UInt32)), 10, 5)), hex(bitmapSubsetLimit(bitmapBuild(range(100)::Array(UInt32)), 10, 5)), bitmapCardinality(bitmapSubsetLimit(bitmapBuild(range(100)::Array(UInt32)), 10, 50));
SELECT bitmapToArray(subBitmap(bitmapBuild([9, 8, 7, 1, 2, 3]::Array(UInt32)), 1, 3)), bitmapToArray(subBitmap(bitmapBuild([toInt32(-1), -5, 3, 2]), 0, 10)), hex(subBitmap(bitmapBuild([9, 8, 7]::Array(UInt32)), 10, 3)), hex(subBitmap(bitmapBuild([9, 8, 7]::Array(UInt32)), 1, 0));
SELECT bitmapToArray(subBitmap(bitmapBuild(range(100)::Array(UInt32)), 10, 5)), hex(subBitmap(bitmapBuild(range(100)::Array(UInt32)), 10, 5)), bitmapCardinality(subBitmap(bitmapBuild(range(100)::Array(UInt32)), 10, 50));
-- bitmapTransform turns the set into Roaring and replaces values in order.
SELECT bitmapToArray(bitmapTransform(bitmapBuild([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::Array(UInt32)), [5, 999, 2]::Array(UInt32), [2, 888, 20]::Array(UInt32))), hex(bitmapTransform(bitmapBuild([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::Array(UInt32)), [5, 999, 2]::Array(UInt32), [2, 888, 20]::Array(UInt32)));
SELECT bitmapToArray(bitmapTransform(bitmapBuild([1, 2, 3]::Array(UInt32)), [1, 2], [2, 3])), hex(bitmapTransform(bitmapBuild([1, 2, 3]::Array(UInt32)), [1], [2])), bitmapToArray(bitmapTransform(bitmapBuild([1, 2, 3]::Array(UInt64)), [1], [2]));
-- Bitmaps from columns and from groupBitmapState.
SELECT bitmapCardinality(groupBitmapState(number)), bitmapToArray(groupBitmapState(number)), toTypeName(groupBitmapState(number)) FROM numbers(10);
SELECT k, bitmapToArray(bitmapBuild(arr)), bitmapCardinality(bitmapAnd(bitmapBuild(arr), bitmapBuild([2, 3, 4]::Array(UInt32)))), bitmapContains(bitmapBuild(arr), k) FROM (SELECT number AS k, arrayMap(x -> toUInt32(x * k), range(5)) AS arr FROM numbers(4)) ORDER BY k;
SELECT bitmapToArray(bitmapBuild(x)) FROM (SELECT [1, 2]::Array(UInt32) AS x UNION ALL SELECT []::Array(UInt32)) ORDER BY length(x);
-- Errors as ClickHouse.
SELECT bitmapBuild([1.5]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapBuild([toInt128(1)]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapBuild(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapBuild([]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapBuild([toUInt32(1), NULL]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapCardinality(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapCardinality(uniqState(number)) FROM numbers(10); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapAnd(bitmapBuild([1]), 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapAnd(bitmapBuild([1]::Array(UInt32)), bitmapBuild([1]::Array(UInt64))); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapHasAny(bitmapBuild([1]::Array(UInt8)), bitmapBuild([toInt8(1)])); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapContains(bitmapBuild([1, 2, 3]::Array(UInt32)), 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapSubsetInRange(bitmapBuild([1, 2, 3]::Array(UInt32)), -1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapSubsetLimit(bitmapBuild([1, 2, 3]::Array(UInt32)), 1.5, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT subBitmap(bitmapBuild([1]), 1, 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapTransform(bitmapBuild([1, 2, 3]::Array(UInt32)), [toInt32(1)], [2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapTransform(bitmapBuild([1, 2, 3]::Array(UInt32)), [5, 999], [2]); -- { serverError BAD_ARGUMENTS }
