-- A scalar subquery of several columns is a tuple named after them.
SELECT (SELECT 1 AS a, 2 AS b) FORMAT TSVWithNamesAndTypes;
SELECT (SELECT 1 AS a, 'x' AS b) FORMAT JSONEachRow;
SELECT (SELECT number, toString(number) FROM numbers(3, 1)) FORMAT JSONEachRow;
SELECT tupleElement((SELECT 1 AS a, 2 AS b), 'b');
SELECT (SELECT 1 AS x, 2 AS y) = (1, 2);
SELECT (SELECT 1, 2) FORMAT TSVWithNames;
-- Scalar subqueries inside aggregates.
SELECT sum((SELECT 1)) FORMAT TSVWithNamesAndTypes;
SELECT sum((SELECT 1)) FROM numbers(3);
SELECT max((SELECT 2) + number), min((SELECT toUInt8(7))) FROM numbers(4);
-- IN (subquery) inside a scalar subquery's WHERE stays a filter.
SELECT (SELECT count() FROM numbers(10) WHERE number IN (SELECT number FROM numbers(5))) FORMAT TSVWithNamesAndTypes;
SELECT (SELECT 1 IN (SELECT 1));
SELECT (SELECT sum(number IN (SELECT 2)) FROM numbers(4));
SELECT number, (SELECT count() FROM numbers(10) WHERE number IN (SELECT number FROM numbers(5))) + number IN (SELECT 6) FROM numbers(3);
SELECT number FROM numbers(5) WHERE number < (SELECT count() FROM numbers(10) WHERE number NOT IN (SELECT number FROM numbers(7))) ORDER BY number;
