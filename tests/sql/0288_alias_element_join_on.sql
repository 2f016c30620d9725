-- A SELECT-list alias of a named tuple gives its elements as `t.n` (named `t.n`, as tupleElement(t, 'n')); SELECT-list aliases resolve inside JOIN ON and LIMIT BY.
SELECT CAST((1, 'x'), 'Tuple(n UInt8, s String)') AS t, t.n, tupleElement(t, 'n'), t.s, toTypeName(t.n);
SELECT CAST((1, 'x'), 'Tuple(n UInt8, s String)') AS t, t.n, tupleElement(t, 'n') FORMAT JSONEachRow;
SELECT CAST((number, 'x'), 'Tuple(n UInt64, s String)') AS t, t.n + 1 AS m FROM numbers(2) ORDER BY m FORMAT TSVWithNames;
SELECT a.number AS x, b.number AS y FROM numbers(5) a JOIN numbers(5) b ON x = y ORDER BY x;
SELECT a.number + 1 AS x, b.number AS y FROM numbers(5) a JOIN numbers(5) b ON x = y ORDER BY x;
SELECT a.number AS x, b.number AS y FROM numbers(4) a LEFT JOIN numbers(2) b ON x = y ORDER BY x;
SELECT number % 3 AS k, number FROM numbers(10) ORDER BY number LIMIT 1 BY k;
SELECT number % 3 AS k, number FROM numbers(10) ORDER BY number DESC LIMIT 2 BY k;
