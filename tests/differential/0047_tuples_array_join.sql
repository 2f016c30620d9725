-- Tuple elements (`t.1`, tupleElement by index and name, arrays of tuples) and several arrayJoins multiplying rows
SELECT tupleElement((1, 'a'), 1), tupleElement((1, 'a'), 2), toTypeName(tupleElement(tuple(toUInt8(1), 'a'), 1));
SELECT t.1, t.2 FROM (SELECT (1, 'a') AS t);
SELECT tupleElement(CAST((1, 'x'), 'Tuple(a UInt8, b String)'), 'b'), tupleElement(CAST((1, 'x'), 'Tuple(a UInt8, b String)'), 'c', 5);
SELECT t.a, t.b FROM (SELECT CAST((1, 'x'), 'Tuple(a UInt8, b String)') AS t);
SELECT (1, 'a').1, (1, 'a').2, tuple(tuple(1, 2), 3).1.2;
SELECT t.1 FROM (SELECT [(1, 2)] AS arr, arr[1] AS t);
SELECT arr[2].1, tupleElement(arr, 2) FROM (SELECT [(1, 'p'), (3, 'q')] AS arr);
SELECT number, (number, toString(number)).2 FROM numbers(3) ORDER BY number;
SELECT 3.14, 1.5 + .5, 2.;
SELECT tupleElement((1, 'a'), 3); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT tupleElement((1, 'a'), 0); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT tupleElement(CAST((1, 'x'), 'Tuple(a UInt8, b String)'), 'c'); -- { serverError BAD_ARGUMENTS }
SELECT tupleElement(1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayJoin([1, 2]) AS a, arrayJoin(['x', 'y', 'z']) AS b ORDER BY a, b;
SELECT number, arrayJoin([1, 2]) AS a, arrayJoin([10, 20]) AS b FROM numbers(2) ORDER BY number, a, b;
SELECT sum(arrayJoin([1, 2]) * arrayJoin([10, 20]));
SELECT arrayJoin([1, 2]) AS a, a * 10, arrayJoin([5]) AS c ORDER BY a;
SELECT n.number, arrayJoin([1, 2]) AS x, arrayJoin(range(n.number)) AS y FROM numbers(3) AS n ORDER BY 1, 2, 3;
SELECT arrayJoin([1, 2]) AS a, arrayJoin([1, 2]) AS b ORDER BY a, b;
SELECT count() FROM numbers(3) WHERE arrayJoin([1, 2, 3]) > number AND arrayJoin([0, 1]) = 1;
SELECT arrayJoin(arrayJoin([[1, 2], [3]])) AS x ORDER BY x;
-- CAST of arrays converts element by element with the element type's rules
SELECT CAST([256, 2] AS Array(UInt8)), CAST([1.9, -1.5] AS Array(Int32)), CAST([1, NULL] AS Array(Nullable(String))), CAST([[1, 300]] AS Array(Array(UInt8)));
SELECT toTypeName(CAST([1, 2] AS Array(Float32))), CAST([] AS Array(UInt8)), CAST(['1', '2'] AS Array(UInt16)), CAST([-1] AS Array(UInt64));
SELECT CAST([1, NULL] AS Array(UInt8)); -- { serverError CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN }
