-- groupArrayIntersect: the elements in every array, in ClickHouse's hash-set order; its state bytes.
SELECT groupArrayIntersect(a) FROM (SELECT [1, 2, 3, 4] AS a UNION ALL SELECT [2, 3, 4, 5] UNION ALL SELECT [4, 3, 2, 9]);
SELECT groupArrayIntersect(a) FROM (SELECT ['a', 'b', 'c'] AS a UNION ALL SELECT ['c', 'b']);
SELECT groupArrayIntersect(a), toTypeName(groupArrayIntersect(a)) FROM (SELECT [toUInt64(0), 1000, 5, 77777] AS a);
SELECT groupArrayIntersect(arrayMap(x -> toUInt32(x % 500), range(1000))) FROM numbers(3);
SELECT groupArrayIntersect([toDate('2020-01-01') + number % 2, toDate('2021-01-01')]) FROM numbers(2);
SELECT groupArrayIntersect(a) FROM (SELECT [1, 2] AS a WHERE 0);
SELECT hex(groupArrayIntersectState(a)) FROM (SELECT [1, 2, 3, 4] AS a UNION ALL SELECT [2, 3, 4, 5]);
SELECT hex(groupArrayIntersectState(a)), toTypeName(groupArrayIntersectState(a)) FROM (SELECT ['a', 'b', 'c'] AS a UNION ALL SELECT ['c', 'b']);
SELECT k, groupArrayIntersect([k, number % 3, 7]) FROM numbers(9) GROUP BY number % 2 AS k ORDER BY k;
SELECT groupArrayIntersectMerge(s) FROM (SELECT groupArrayIntersectState([number, 5, 6]) AS s FROM numbers(3) GROUP BY number % 2);
SELECT groupArrayIntersect(1) FROM numbers(2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT groupArrayIntersect(1)([1]) FROM numbers(2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }

-- groupArraySample: ClickHouse's reservoir sampling and pcg32 generator, so seeded samples and states match.
SELECT groupArraySample(5, 42)(number) FROM numbers(100);
SELECT groupArraySample(5)(number) FROM numbers(3);
SELECT groupArraySample(3, 123)(toString(number)) FROM numbers(20);
SELECT groupArraySample(3, 7)(x) FROM (SELECT toNullable(number) AS x FROM numbers(10));
SELECT hex(groupArraySampleState(3, 1)(number)) FROM numbers(10);
SELECT hex(groupArraySampleState(2, 123)(toString(number))), toTypeName(groupArraySampleState(2, 123)(toString(number))) FROM numbers(5);
SELECT groupArraySample(number) FROM numbers(3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT groupArraySample(0)(number) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT groupArraySample(2, 0)(number) FROM numbers(3); -- { serverError BAD_ARGUMENTS }

-- group_concat is groupConcat.
SELECT group_concat(number), group_concat(',')(number) FROM numbers(3);

-- approx_top_k / approx_top_count / approx_top_sum: topK's Space-Saving with counts and errors.
SELECT approx_top_k(2)(x), approx_top_count(2)(x), toTypeName(approx_top_k(2)(x)) FROM (SELECT arrayJoin([1, 1, 1, 2, 2, 3]) AS x);
SELECT approx_top_sum(2)(x, w) FROM (SELECT arrayJoin([1, 1, 1, 2, 2, 3]) AS x, 10 - x AS w);
SELECT approx_top_k(3, 5)(toString(number % 7)), approx_top_k(3)(number % 7), APPROX_TOP_K(2)(number % 3) FROM numbers(100);
SELECT approx_top_k(x) FROM (SELECT arrayJoin([1, 1, 1, 2, 2, 3]) AS x);
SELECT approx_top_sum(3, 4)(number % 10, number) FROM numbers(1000);
SELECT hex(approx_top_kState(2)(x)), toTypeName(approx_top_kState(2)(x)) FROM (SELECT arrayJoin([1, 1, 1, 2, 2, 3]) AS x);
SELECT approx_top_kMerge(2)(s) FROM (SELECT approx_top_kState(2)(toUInt8(sqrt(number))) AS s FROM numbers(50) GROUP BY number % 3);
SELECT approx_top_k(2, 0)(number) FROM numbers(3); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT approx_top_sum(2)(number, 1.5) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT topK(1, 2, 'counts', 4)(number) FROM numbers(3); -- { serverError TOO_MANY_ARGUMENTS_FOR_FUNCTION }
SELECT topK(1, 2, 'x')(number) FROM numbers(3); -- { serverError BAD_ARGUMENTS }

-- Registered in system.functions.
SELECT name, is_aggregate, alias_to FROM system.functions WHERE name IN ('groupArrayIntersect', 'groupArraySample', 'group_concat', 'approx_top_k', 'approx_top_count', 'approx_top_sum') ORDER BY name;
