-- arrayReduce over the aggregate functions (with -If / -Distinct and other combinators); splitByWhitespace, splitByNonAlpha.
SELECT arrayReduce('sum', [1,2,3]), arrayReduce('max', ['a','b']), arrayReduce('uniqExact', [1,1,2]), arrayReduce('avg', emptyArrayUInt8()), arrayReduce('groupArray', [1,NULL,2]), arrayReduce('min', [1,NULL]);
SELECT arrayReduce('sumIf', [1,2,3], [1,0,1]), arrayReduce('argMax', ['a','b','c'], [3,1,2]), arrayReduce('count', [1,NULL,3]), arrayReduce('anyLast', [1,2]);
SELECT arrayReduce('sumDistinct', [1,1,2]), arrayReduce('uniqExactIf', [1,2,2], [1,1,0]), arrayReduce('countDistinct', [1,1,NULL,2]), arrayReduce('avgIf', [1,2,4], [0,1,1]), arrayReduce('sumDistinctIf', [1,1,2,5], [1,1,1,0]);
SELECT arrayReduce('sumOrNull', emptyArrayUInt8()), arrayReduce('avgOrDefault', emptyArrayUInt8()), arrayReduce('sumArray', [[1],[2,3]]), arrayReduce('groupArrayArray', [[1],[2,3]]), finalizeAggregation(arrayReduce('sumState', [1,2]));
SELECT toTypeName(arrayReduce('sum', [toNullable(1)])), arrayReduce('sum', [toNullable(1), NULL]), arrayReduce('sum', [NULL]), toTypeName(arrayReduce('sumState', [1])), arrayReduce('varPop', [1.,2,4]);
SELECT arrayReduce('sum', []); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayReduce('sum', NULL); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayReduce('sum', [1], [1,2]); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayReduce('argMax', [1], [1,2]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayReduce('nosuch', [1]); -- { serverError UNKNOWN_AGGREGATE_FUNCTION }
SELECT arrayReduce(materialize('sum'), [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayReduce('sum', 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayReduce('sum'); -- { serverError TOO_FEW_ARGUMENTS_FOR_FUNCTION }
SELECT arrayReduce('sumIf', [1,2], ['a','b']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT number, arrayReduce('sum', range(number)), arrayReduce('max', [number, 1, number]), arrayReduce('uniqExact', arrayMap(x -> x % 2, range(number))) FROM numbers(4);
CREATE TABLE t (id UInt32, a Array(UInt32), w Array(Float64)) ENGINE = Memory;
INSERT INTO t VALUES (1, [1,2,3], [1,0,1]), (2, [], []), (3, [7,7], [0.5,0.5]);
SELECT id, arrayReduce('sum', a), arrayReduce('avg', a), arrayReduce('argMin', a, w), arrayReduce('count', a), arrayReduce('uniqExactDistinct', a) FROM t ORDER BY id;
SELECT splitByWhitespace('  a b\tc\n d  '), splitByWhitespace(''), splitByNonAlpha('a1b,,c d'), splitByNonAlpha(''), splitByWhitespace('a b c', 2), splitByNonAlpha('a.b.c', 2), splitByWhitespace(toNullable('a b'));
SELECT splitByNonAlpha('héllo wörld_x'), splitByNonAlpha('a-b_c'), toTypeName(splitByWhitespace('a'));
SELECT splitByWhitespace(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT number, splitByWhitespace(repeat('ab ', number)), splitByNonAlpha(concat(toString(number), '-x')) FROM numbers(3);
