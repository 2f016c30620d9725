-- Scalar subqueries of several columns are tuples named after the columns; names that are no plain identifier are backquoted, and toTypeName shows named tuples on several lines as ClickHouse's pretty type names.
SELECT (SELECT 1 AS a, 'x' AS b) FORMAT TSVWithNamesAndTypes;
SELECT toTypeName((SELECT 1 AS a, 'x' AS b));
SELECT toTypeName((SELECT number, toString(number) FROM numbers(1)));
SELECT (SELECT number, toString(number) FROM numbers(3, 1)) FORMAT TSVWithNamesAndTypes;
SELECT (SELECT 2, 1) FORMAT TSVWithNamesAndTypes;
SELECT toTypeName((SELECT 2, 1)), toTypeName((SELECT 1 AS `x.y`, 2));
SELECT tupleElement((SELECT 1 AS a, 2 AS b), 'a'), tupleElement((SELECT 1 AS a, 2 AS b), 2);
SELECT (SELECT 1 AS a, 2 AS b) AS t, t.1, t.2;
SELECT toTypeName(CAST((1, 'x'), 'Tuple(a UInt8, b String)')), toTypeName(CAST((1, (2, 3)), 'Tuple(UInt8, Tuple(a UInt8, b UInt8))'));
SELECT toTypeName(CAST((1, [(2, 3)]), 'Tuple(x UInt8, y Array(Tuple(a UInt8, b UInt8)))')), toTypeName(map('k', CAST((1, 'x'), 'Tuple(a UInt8, b String)')));
SELECT toTypeName(CAST((1, 'x'), 'Tuple(`a b` UInt8, c String)')), toTypeName(CAST(tuple(1), 'Tuple(a UInt8)'));
SELECT CAST((1, 'x'), 'Tuple(`a b` UInt8, c String)') AS t FORMAT TSVWithNamesAndTypes;
SELECT CAST((1, 'x'), 'Tuple(`a b` UInt8, c String)') AS t FORMAT JSONEachRow;
