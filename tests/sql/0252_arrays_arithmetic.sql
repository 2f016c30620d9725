-- Running and whole-array arithmetic: arrayCumSum, arrayCumSumNonNegative, arrayDifference, arrayProduct, arrayAvg, arrayDotProduct.
SELECT arrayCumSum([1,2,3]), arrayCumSum([1.5,2]), arrayCumSum([-1,2]), arrayCumSum([toInt8(100),100]), arrayCumSum([toDecimal32(1.5,2)]);
SELECT toTypeName(arrayCumSum([1])), toTypeName(arrayCumSum([-1])), toTypeName(arrayCumSum([toFloat32(1.5)])), toTypeName(arrayCumSum([toDecimal64(1,3)])), arrayCumSum(emptyArrayUInt8());
SELECT arrayCumSum([toUInt8(255), 1]), arrayCumSum([toInt64(9223372036854775807), toInt64(1)]);
SELECT arrayCumSum([]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayCumSum([1,NULL,2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayCumSum(['a']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayCumSum(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayCumSumNonNegative([1,-3,2]), arrayCumSumNonNegative([1.5,-3,2]), arrayCumSumNonNegative([toUInt8(1)]), arrayCumSumNonNegative([toDecimal32(1,2), -2]);
SELECT toTypeName(arrayCumSumNonNegative([1,-3,2])), toTypeName(arrayCumSumNonNegative([toDecimal32(1,2), -2]));
SELECT arrayDifference([1,3,6]), arrayDifference([toUInt8(3),1]), arrayDifference([1.5,1]), arrayDifference([toInt8(-100), 100]), arrayDifference([toDecimal32(1,2), 2]);
SELECT toTypeName(arrayDifference([1])), toTypeName(arrayDifference([toUInt16(1)])), toTypeName(arrayDifference([toUInt32(1)])), toTypeName(arrayDifference([toUInt64(1)])), toTypeName(arrayDifference([toFloat32(1)])), toTypeName(arrayDifference([toDecimal32(1,2)]));
SELECT arrayDifference([toUInt64(3),1]), arrayDifference(emptyArrayUInt8()), arrayDifference([toInt64(-9223372036854775808), toInt64(9223372036854775807)]);
SELECT arrayDifference([1,NULL]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayDifference(['a']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayProduct([1,2,3]), arrayProduct([1.5,2]), arrayProduct([toDecimal32(1.5,2), 2]), arrayProduct(emptyArrayUInt8()), arrayProduct([toFloat32(0.1), 3]), toTypeName(arrayProduct([1]));
SELECT arrayProduct([toUInt8(200), 200, 200]), arrayProduct([toInt32(100000), 100000, 100000, 100000, 100000]), arrayProduct([toInt64(-3), 5]), arrayProduct([toUInt64(4294967296), 4294967296]);
SELECT arrayProduct([-1,NULL]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayProduct([]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayProduct(['a']); -- { serverError ILLEGAL_COLUMN }
SELECT arrayAvg([1,2]), arrayAvg([toDecimal32(1.5,2),2]), arrayAvg(emptyArrayUInt8()), arrayAvg([toFloat32(1)]), arrayAvg([toUInt64(18446744073709551615), 18446744073709551615]), arrayAvg([toInt8(-100), -100]);
SELECT arrayAvg([NULL]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayAvg(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayDotProduct([1,2],[3,4]), arrayDotProduct([1.5,2],[3,4]), arrayDotProduct([toFloat32(1)],[toFloat32(2)]), arrayDotProduct([1],[toFloat32(2)]), arrayDotProduct([-1],[2]);
SELECT toTypeName(arrayDotProduct([1],[2])), toTypeName(arrayDotProduct([toFloat32(1)],[toFloat32(2)])), toTypeName(arrayDotProduct([toInt32(2)],[toUInt32(3)])), toTypeName(arrayDotProduct([toUInt16(2)],[toInt8(3)]));
SELECT arrayDotProduct(emptyArrayUInt8(), emptyArrayUInt8()), arrayDotProduct([toUInt8(200)],[toUInt8(200)]), arrayDotProduct([toInt64(2)],[toUInt64(3)]);
SELECT arrayDotProduct([1,2],[3]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayDotProduct([1,NULL],[1,2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayDotProduct([1], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
CREATE TABLE t (id UInt32, a Array(Int32), f Array(Float64)) ENGINE = Memory;
INSERT INTO t VALUES (1, [1,-2,3], [0.5, 2]), (2, [], []), (3, [5], [-1]);
SELECT id, arrayCumSum(a), arrayCumSumNonNegative(a), arrayDifference(a), arrayProduct(a), arrayAvg(a), arrayCumSum(f), arrayDifference(f), arrayAvg(f) FROM t ORDER BY id;
SELECT id, arrayDotProduct(a, a), arrayDotProduct(f, arrayResize([1.], length(f), 2.)) FROM t ORDER BY id;
SELECT number, arrayCumSum(range(number)), arrayDifference(range(number)), arrayProduct(range(1, number + 1)), arrayAvg(range(number)) FROM numbers(4);
