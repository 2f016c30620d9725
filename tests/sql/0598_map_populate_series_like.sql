-- mapPopulateSeries and the map*Like functions
SELECT mapPopulateSeries(map(1, 10, 5, 20), 6), toTypeName(mapPopulateSeries(map(1, 10, 5, 20), 6));
SELECT mapPopulateSeries([1,2,4], [11,22,44], 5), toTypeName(mapPopulateSeries([1,2,4], [11,22,44], 5));
SELECT mapPopulateSeries([5,1,3],[4,5,6]);
SELECT mapPopulateSeries(map(5, 1, 2, 2)), mapPopulateSeries(map(5, 1, 2, 2), 3), mapPopulateSeries(map(5,1), 1);
SELECT mapPopulateSeries(map(1, 4, 1, 5, 5, 6)), mapPopulateSeries([1,1,5],[5,4,6]);
SELECT mapPopulateSeries(map(toInt8(-3), 1, 2, 2), toInt8(4));
SELECT mapPopulateSeries(map(toUInt64(18446744073709551610), toUInt64(5)), 18446744073709551615);
SELECT mapPopulateSeries(map(toUInt16(1), toInt32(-5), 3, 4)), toTypeName(mapPopulateSeries(map(toUInt16(1), toInt32(-5), 3, 4)));
SELECT mapPopulateSeries([1,2]::Array(Int8), [1,2]::Array(Int64), 3), toTypeName(mapPopulateSeries([1,2]::Array(Int8), [1,2]::Array(Int64), 3));
SELECT mapPopulateSeries(map(number, number+1, number+3, 7)) FROM numbers(3);
SELECT mapPopulateSeries(map(1,2), number) FROM numbers(3);
SELECT mapPopulateSeries([number, 3], [1, number]) FROM numbers(3);
SELECT mapPopulateSeries(map(1, 2), NULL);
SELECT mapPopulateSeries(map(1, 2.5)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapPopulateSeries(map('a', 1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapPopulateSeries(map(1,2), -1); -- { serverError CANNOT_CONVERT_TYPE }
SELECT mapPopulateSeries(map(1,2), 4.0); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapPopulateSeries([1,2]); -- { serverError BAD_ARGUMENTS }
SELECT mapPopulateSeries([1,2], [3]); -- { serverError BAD_ARGUMENTS }
SELECT mapPopulateSeries(map(toUInt64(1), 2, toUInt64(18446744073709551615), 3)); -- { serverError TOO_LARGE_ARRAY_SIZE }
SELECT mapPopulateSeries(map(1,2), toNullable(3)) AS m, toTypeName(m);
SELECT mapPopulateSeries(map(1,2), if(number=1, NULL, number)) FROM numbers(3);
SELECT mapContainsKeyLike(map('abc', 1, 'xyz', 2), 'a%'), mapContainsKeyLike(map('abc', 1), 'b%'), toTypeName(mapContainsKeyLike(map('abc', 1), 'b%'));
SELECT mapContainsValueLike(map(1, 'abc', 2, 'xyz'), '%y%'), mapContainsValueLike(map(1, 'abc'), 'q%');
SELECT mapExtractKeyLike(map('abc', 1, 'xyz', 2, 'axe', 3), 'a%'), toTypeName(mapExtractKeyLike(map('abc', 1, 'xyz', 2, 'axe', 3), 'a%'));
SELECT mapExtractValueLike(map(1, 'abc', 2, 'xyz', 3, 'bcd'), '%bc%'), toTypeName(mapExtractValueLike(map(1, 'abc'), '%bc%'));
SELECT mapExtractKeyLike(map('a_c', 1, 'abc', 2, 'a%c', 3), 'a\\%c'), mapExtractKeyLike(map('a_c', 1, 'abc', 2), 'a_c'), mapContainsKeyLike(map('ABC',1),'abc');
SELECT number, mapExtractKeyLike(map('k' || toString(number), number, 'x', 9), 'k%'), mapContainsKeyLike(map('ab', 1, 'cd', 2), ['a%', 'x%', '%d'][number + 1]) FROM numbers(3);
SELECT mapContainsKeyLike(map(toFixedString('ab',2), 1), 'a%'), mapContainsKeyLike(map(toLowCardinality('ab'), 1), 'a%');
SELECT mapExtractKeyLike(map('a', 1), NULL), mapContainsKeyLike(map('a', 1), NULL);
SELECT mapContainsKeyLike(map(1, 2), '1%'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapContainsValueLike(map('a', 12), '1%'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapExtractValueLike(map('a', toNullable('x')), 'x'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapContainsKeyLike(map('a', 1), 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT mapExtractKeyLike(map('a', 1)); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT mapContainsKeyLike([1], 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
