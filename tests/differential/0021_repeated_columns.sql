-- ClickHouse allows repeated result column names; every format shows them as they are.
SELECT 1, 1 FORMAT TSVWithNamesAndTypes;
SELECT number, number FROM numbers(2) FORMAT JSONEachRow;
SELECT number, number * 2, number * 2 FROM numbers(2) FORMAT CSVWithNames;
SELECT number, * FROM numbers(2) FORMAT TSVWithNames;
SELECT *, number FROM (SELECT number, toString(number) AS s FROM numbers(2)) ORDER BY number FORMAT TSVWithNames;
SELECT s, *, s FROM (SELECT number, toString(number) AS s FROM numbers(2)) ORDER BY number FORMAT TSVWithNamesAndTypes;
SELECT * FROM (SELECT number, number FROM numbers(1)) FORMAT TSVWithNames;
SELECT number + 1, number + 1 FROM numbers(1) UNION ALL SELECT 7, 7 FROM numbers(0) FORMAT TSVWithNames;
SELECT number, number AS number FROM numbers(1) FORMAT TSVWithNames;
SELECT number % 2, number % 2, count() FROM numbers(5) GROUP BY number % 2 ORDER BY number % 2 FORMAT TSVWithNames;
SELECT number, number FROM numbers(3) ORDER BY number DESC LIMIT 2 FORMAT TSVWithNames;
SELECT 1 AS x, 2 AS x; 
