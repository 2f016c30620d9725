-- arrayEnumerateUniqRanked / arrayEnumerateDenseRanked
SELECT arrayEnumerateUniqRanked([10, 20, 10, 30]), arrayEnumerateDenseRanked([10, 20, 10, 30]), toTypeName(arrayEnumerateUniqRanked([1])), toTypeName(arrayEnumerateDenseRanked([[1]]));
SELECT arrayEnumerateUniqRanked(['hello', 'world', 'hello']), arrayEnumerateUniqRanked([['hello', 'world'], ['hello'], ['hello']], 1), arrayEnumerateUniqRanked([['hello', 'world'], ['hello'], ['hello']]);
SELECT arrayEnumerateUniqRanked(['hello', 'hello', 'world', 'world'], ['a', 'b', 'b', 'b']), arrayEnumerateUniqRanked([['hello', 'world'], ['hello'], ['world'], ['world']], ['a', 'b', 'b', 'b']);
SELECT arrayEnumerateUniqRanked([['hello', 'world'], ['hello'], ['world'], ['world']], 1, ['a', 'b', 'b', 'b'], 1);
SELECT arrayEnumerateUniqRanked(1, [['hello', 'world'], ['hello'], ['world'], ['world']]), arrayEnumerateUniqRanked(2, [['hello', 'world'], ['hello'], ['world'], ['world']]);
SELECT arrayEnumerateUniqRanked(1, [['hello', 'world', 'hello'], ['hello'], ['world'], ['world']]), arrayEnumerateUniqRanked(2, [['hello', 'world', 'hello'], ['hello'], ['world'], ['world']]);
SELECT arrayEnumerateDenseRanked(1, [[1, 2], [1, 3]], 2), arrayEnumerateDenseRanked(2, [[1, 2], [1, 3], [2, 1]], 2), arrayEnumerateDenseRanked(1, [[1, 2], [1, 3], [2, 1]], 1), arrayEnumerateDenseRanked([[1, 2], [], [2, 3, 1]]);
SELECT arrayEnumerateUniqRanked(1, [[1, 2], [1, 3], [1, 2]], 2), arrayEnumerateUniqRanked(2, [[1, 2], [1, 3], [2, 1]], 2), arrayEnumerateUniqRanked([[1, 2], [1, 2]]), arrayEnumerateUniqRanked([[], [1], []]);
SELECT arrayEnumerateUniqRanked(1, [[[1, 2, 3], [1, 2, 3], [1, 2, 3]], [[1, 2, 3], [1, 2, 3], [1, 2, 3]], [[1, 2]]], 2), arrayEnumerateUniqRanked(2, [[[1, 2, 3], [1, 2, 3], [1, 2, 3]], [[1, 2, 3], [1, 2, 3], [1, 2, 3]], [[1, 2]]], 3);
SELECT arrayEnumerateDenseRanked(3, [[[1, 2, 1], [1, 2, 3]], [[3, 1]]], 3), arrayEnumerateDenseRanked(1, [[[1, 2, 1], [1, 2, 3]], [[3, 1]]]);
SELECT arrayEnumerateDenseRanked(2, [[1, 2, 3], [2, 2, 1], [3]], 2, [4, 5, 6], 1), arrayEnumerateUniqRanked(1, [[1, 2, 3], [2, 2, 1], [3]], 1, [4, 5, 6], 1);
SELECT number, arrayEnumerateUniqRanked(arrayMap(x -> [intDiv(x, 2), number], range(number + 1))), arrayEnumerateDenseRanked(arrayMap(x -> x % 3, range(number + 2))) FROM numbers(4) ORDER BY number;
SELECT arrayEnumerateUniqRanked(a) FROM (SELECT [[1, 1], [1]] AS a UNION ALL SELECT [[2], [2, 2]]) ORDER BY 1;
SELECT arrayEnumerateUniqRanked(); -- { serverError TOO_FEW_ARGUMENTS_FOR_FUNCTION }
SELECT arrayEnumerateUniqRanked(0, [1]); -- { serverError BAD_ARGUMENTS }
SELECT arrayEnumerateUniqRanked(3, [[1]]); -- { serverError BAD_ARGUMENTS }
SELECT arrayEnumerateUniqRanked([1], 2); -- { serverError BAD_ARGUMENTS }
SELECT arrayEnumerateUniqRanked([1], 'a'); -- { serverError BAD_ARGUMENTS }
SELECT arrayEnumerateUniqRanked(1, 2); -- { serverError BAD_ARGUMENTS }
SELECT arrayEnumerateUniqRanked([1, 2], [1]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT arrayEnumerateDenseRanked([[1, 2], [3]], [[1], [2, 3]]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
