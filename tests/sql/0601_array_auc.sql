-- arrayROCAUC (arrayAUC) and arrayAUCPR (arrayPRAUC)
SELECT arrayROCAUC([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) AS a, toTypeName(a), arrayAUC([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]);
SELECT arrayROCAUC([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], false), arrayROCAUC([1, 2, 2, 3], [0, 1, 0, 1], false), arrayROCAUC([1, 2, 2, 3], [0, 1, 0, 1]);
SELECT arrayROCAUC([1, 1, 1], [1, 0, 1]), arrayROCAUC([1, 2], [1, 1]), arrayROCAUC([1, 2], [0, 0]), arrayROCAUC([1, 2], [0, 0], false);
SELECT arrayROCAUC(emptyArrayFloat64(), emptyArrayUInt8()), arrayAUCPR(emptyArrayFloat64(), emptyArrayUInt8());
SELECT arrayROCAUC([1, 2, 3, 4], [1, 0, 1, 0]), arrayROCAUC([1, 2, 3, 4], [-1, 0, 2, 0]), arrayROCAUC([1, 2], [true, false]), arrayROCAUC([1, 2], [toFloat32(0.5), 0]);
SELECT arrayROCAUC([toInt8(-5), 3, 0], CAST([1, 0, 1], 'Array(Enum8(\'a\' = 0, \'b\' = 1))'));
SELECT number, arrayROCAUC([number, 2, 1], [1, 0, number % 2]), arrayAUCPR([number, 2, 1], [1, 0, number % 2]) FROM numbers(3);
SELECT arrayAUCPR([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) AS a, toTypeName(a), arrayPRAUC([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]);
SELECT arrayAUCPR([1, 1, 1], [1, 0, 1]), arrayAUCPR([1, 2], [0, 0]), arrayAUCPR([3, 2, 1], [1, 0, 1]), arrayAUCPR([1, 2, 2, 3], [0, 1, 0, 1]), arrayAUCPR([1, 2], [1, 1]);
SELECT arrayROCAUC([1, 2], [1]); -- { serverError BAD_ARGUMENTS }
SELECT arrayAUCPR([1, 2, 3], [1]); -- { serverError BAD_ARGUMENTS }
SELECT arrayROCAUC([1, NULL], [1, 0]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayROCAUC(['a'], [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayROCAUC([toDecimal32(1, 2)], [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayROCAUC([1, 2], ['a', 'b']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayROCAUC([1, 2], [1, 0], 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayROCAUC([1, 2], [1, 0], materialize(true)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
