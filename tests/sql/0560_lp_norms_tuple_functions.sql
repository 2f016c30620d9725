-- LpNorm, LpDistance and the normalize family, of tuples and of arrays
SELECT LpNorm((1, -2, 3), 3), toTypeName(LpNorm((1, -2, 3), 3));
SELECT LpNorm([1, -2, 3], 3), toTypeName(LpNorm([1, -2, 3], 3));
SELECT LpNorm([1.5::Float32, -2], 3), toTypeName(LpNorm([1.5::Float32, -2], 3));
SELECT LpNorm((1.5::Float32, -2), 3), toTypeName(LpNorm((1.5::Float32, -2), 3));
SELECT LpNorm((1, 2), 1), LpNorm((1, 2), 2.5), LpNorm((3, 4), 2), LpNorm((1, 2, 3), toUInt8(3));
SELECT LpNorm([1, 2], 1.5), LpNorm(emptyArrayFloat64(), 2), LpNorm((1, 2), 1e300);
SELECT LpNorm((toNullable(1), 2), 3), toTypeName(LpNorm((toNullable(1), 2), 3));
SELECT LpNorm([number, number + 1], 2) FROM numbers(3) ORDER BY number;
SELECT LpNorm((number, -number), 4) FROM numbers(3) ORDER BY number;
SELECT LpDistance((1, 2, 3), (4, 5, 7), 3), toTypeName(LpDistance((1, 2, 3), (4, 5, 7), 3));
SELECT LpDistance([1, 2, 3], [4, 5, 7], 3), toTypeName(LpDistance([1, 2, 3], [4, 5, 7], 3));
SELECT LpDistance([1::Float32, 2], [4::Float32, 6], 2), toTypeName(LpDistance([1::Float32, 2], [4::Float32, 6], 2));
SELECT L1Normalize((1, -2, 3)), toTypeName(L1Normalize((1, -2, 3)));
SELECT L2Normalize((1, -2, 3)), LinfNormalize((1, -2, 3)), LpNormalize((1, -2, 3), 3);
SELECT L1Normalize((1::Float32, 2::Float32)), toTypeName(L1Normalize((1::Float32, 2::Float32)));
SELECT L1Normalize([1, -2, 3]), toTypeName(L1Normalize([1, -2, 3]));
SELECT L1Normalize([1::Float32, -2, 3]), toTypeName(L1Normalize([1::Float32, -2, 3]));
SELECT L2Normalize([1., -2, 3]), LpNormalize([1, -2, 3], 3), LinfNormalize([3, -4]);
SELECT L2Normalize((0, 0)), L1Normalize([0, 0]), L1Normalize(emptyArrayFloat64());
SELECT L2Normalize([number, 1]) FROM numbers(3) ORDER BY number;
SELECT normLp((1, 2), 3), distanceLp((1, 2), (3, 4), 3), normalizeLp((1, 2), 3), normalizeL1((1, 2)), normalizeL2([1, 2]), normalizeLinf((1, 2));
SELECT LpNorm((1, 2), 0.5); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT LpNorm([1, 2], 0); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT LpNorm([1, 2], inf); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT LpNormalize((1, 2), 0.5); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT LpNorm((1, 2), 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT LpNorm([1, 2], 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT LpNorm([1, 2], number + 1) FROM numbers(2); -- { serverError ILLEGAL_COLUMN }
SELECT LpNorm([1, 2]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT LpNorm(1, 3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT LpDistance([1, 2], [1, 2, 3], 2); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT LpDistance((1, 2), (1, 2, 3), 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT L2Normalize((1, 2, 'a')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- positiveModulo and the tuple functions built on notEquals and positiveModulo
SELECT positiveModulo(-5, 3), toTypeName(positiveModulo(-5, 3)), positiveModulo(-5, -3), toTypeName(positiveModulo(-5, -3));
SELECT positiveModulo(-5::Int32, 3::Int64), toTypeName(positiveModulo(-5::Int32, 3::Int64));
SELECT positiveModulo(-5::Int64, 300::UInt16), toTypeName(positiveModulo(-5::Int64, 300::UInt16));
SELECT positiveModulo(-5.5, 3), toTypeName(positiveModulo(-5.5, 3)), positiveModulo(5, -3.5), positiveModulo(-5.5::Float32, 3), toTypeName(positiveModulo(-5.5::Float32, 3));
SELECT positiveModulo(7::UInt64, 3::Int8), toTypeName(positiveModulo(7::UInt64, 3::Int8)), positiveModulo(-7::Int8, -3::Int16), toTypeName(positiveModulo(-7::Int8, -3::Int16));
SELECT positiveModulo(-7.5, 0.), pmod(-7, 3), positive_modulo(-7, 3);
SELECT positiveModulo(toNullable(-5), 3), toTypeName(positiveModulo(toNullable(-5), 3));
SELECT number, positiveModulo(toInt64(number) - 5, 3) FROM numbers(6) ORDER BY number;
SELECT positiveModulo(7, 0); -- { serverError ILLEGAL_DIVISION }
SELECT positiveModulo(-7::Int8, -128::Int8); -- { serverError ILLEGAL_DIVISION }
SELECT positiveModulo('a', 3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tuplePositiveModuloByNumber((-5, 7, 3.5), 3), toTypeName(tuplePositiveModuloByNumber((-5, 7, 3.5), 3));
SELECT tuplePositiveModuloByNumber((-5, 7), -3);
SELECT tuplePositiveModuloByNumber((-5, 7), 0); -- { serverError ILLEGAL_DIVISION }
SELECT tupleHammingDistance((1, 2), (1, 5)), toTypeName(tupleHammingDistance((1, 2), (1, 5)));
SELECT tupleHammingDistance((1, 2, 3), (1, 5, 3)), toTypeName(tupleHammingDistance((1, 2, 3), (1, 5, 3)));
SELECT toTypeName(tupleHammingDistance(tuple(1), tuple(1))), toTypeName(tupleHammingDistance((1, 2, 3, 4), (1, 5, 3, 4)));
SELECT tupleHammingDistance(('a', 1.5), ('b', 1.5)), tupleHammingDistance((number, 'x'), (1, 'y')) FROM numbers(3) ORDER BY number;
SELECT tupleHammingDistance((1, 2), (1, 2, 3)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tupleHammingDistance((1, 2), 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tupleToNameValuePairs((1, 2, 3)), toTypeName(tupleToNameValuePairs((1, 2, 3)));
SELECT tupleToNameValuePairs(CAST((1, 2), 'Tuple(a Int32, b Int32)')), toTypeName(tupleToNameValuePairs(CAST((1, 2), 'Tuple(a Int32, b Int32)')));
SELECT tupleToNameValuePairs(CAST((toString(number), 'x'), 'Tuple(k String, v String)')) FROM numbers(2) ORDER BY number;
SELECT tupleToNameValuePairs((1, 'a')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tupleToNameValuePairs((1, 2::UInt16)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tupleToNameValuePairs(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
