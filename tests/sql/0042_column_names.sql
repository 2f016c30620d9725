-- ClickHouse names of unaliased expressions, as shown by formats with names
SELECT 1, 'a', 1.5, NULL, true FORMAT TSVWithNames;
SELECT 1 + 2, 3 - 1, 2 * 3, 7 / 2, 7 % 2, -5 FORMAT TSVWithNames;
SELECT number, number + 1, number * 2 FROM numbers(1) FORMAT TSVWithNames;
SELECT count(), sum(number), avg(number), min(number), max(number) FROM numbers(3) FORMAT TSVWithNames;
SELECT toString(1), concat('a', 'b'), length('abc'), upper('x') FORMAT TSVWithNames;
SELECT 1 = 1, 1 != 2, 1 < 2, 1 AND 0, NOT 1 FORMAT TSVWithNames;
SELECT [1, 2], (1, 'a'), [] FORMAT TSVWithNames;
SELECT if(1, 'y', 'n'), CAST(1 AS String), 1::UInt8 FORMAT TSVWithNames;
SELECT number AS n, n + 1 FROM numbers(1) FORMAT TSVWithNames;
SELECT * FROM (SELECT 1 AS a, 2 AS b) FORMAT TSVWithNames;
SELECT dummy FROM system.one FORMAT TSVWithNames;
SELECT 'x' AS `weird name`, 1 AS `a.b` FORMAT TSVWithNames;
SELECT count(*), count(1), uniqExact(number) FROM numbers(2) FORMAT TSVWithNames;
SELECT toDate('2024-01-01'), today() > toDate('2000-01-01') FORMAT TSVWithNames;
SELECT 1 IN (1, 2), 'a' LIKE 'a', number BETWEEN 1 AND 2 FROM numbers(1) FORMAT TSVWithNames;
SELECT 1 + 2 FORMAT JSONEachRow;
SELECT number % 2, count() FROM numbers(4) GROUP BY number % 2 ORDER BY number % 2 FORMAT TSVWithNames;
