-- Tuple literals with a trailing comma, the empty tuple, and their column names
SELECT (2.5,), toTypeName((2.5,)) FORMAT TSVWithNames;
SELECT (1, 2,), ((1,),), (1, (2,),) FORMAT TSVWithNames;
SELECT [(1,)], -(1,), (2.5,).1 FORMAT TSVWithNames;
SELECT tuple(), (), toTypeName(()) FORMAT TSVWithNames;
SELECT tuple() FROM numbers(2);
SELECT 1 AS x, (x,) FORMAT TSVWithNames;
SELECT (number,) AS t, t.1 FROM numbers(2) ORDER BY number FORMAT TSVWithNames;
SELECT tuple(1,); -- { serverError SYNTAX_ERROR }
SELECT [1, 2,]; -- { serverError SYNTAX_ERROR }
-- Names ClickHouse gives to tuples and arrays built by functions, and to scalar subqueries
SELECT (SELECT 1, 2) FORMAT TSVWithNames;
SELECT tuple(1, 'a') AS t, t.1 FORMAT TSVWithNames;
SELECT tuple(1, 2), tuple(2.5), tuple(tuple(1, 2), 3), tuple(-1, NULL) FORMAT TSVWithNames;
SELECT tuple(1, number), tuple(number + 1, 2), array(number, 2) FROM numbers(1) FORMAT TSVWithNames;
SELECT tuple(1, 'a').2, tuple(1, (2, 3)).2 FORMAT TSVWithNames;
SELECT (SELECT 1, 'a') AS x, x.2 FORMAT TSVWithNames;
-- Binary and hexadecimal string literals, hexadecimal floats, typed date literals
SELECT x'4142', X'61', b'01000001', B'0100000101000010' FORMAT TSVWithNames;
SELECT hex(b'100000000'), hex(b'1'), b'', toTypeName(b'01000001');
SELECT 0x1p3, toTypeName(0x1p3) FORMAT TSVWithNames;
SELECT 0x1.8p1, 0X1P-2, 0xA.8p0, 0x1p+4, 0x1.8 FORMAT TSVWithNames;
SELECT TIMESTAMP '2020-01-01 10:20:30', toTypeName(TIMESTAMP '2020-01-01 10:20:30') FORMAT TSVWithNames;
SELECT DATE '2020-01-01', toTypeName(DATE '2020-01-01'), DATE '2020-01-01' + 1 FORMAT TSVWithNames;
