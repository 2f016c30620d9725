-- WITH TOTALS in a branch of UNION ALL (its own or its FROM subquery's): the totals row
-- of the first branch that has one. (One branch gives rows: the union's order is free.)
SELECT k, c FROM (SELECT toUInt16(number % 1 + 1) AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS) UNION ALL SELECT toUInt16(5), toUInt64(5) WHERE 0 FORMAT TSVWithNamesAndTypes;
SELECT toUInt64(7) AS x WHERE 0 UNION ALL SELECT count() FROM numbers(3) GROUP BY number % 1 WITH TOTALS;
SELECT toUInt16(number % 1 + 1) AS k, sum(number) AS s FROM numbers(4) GROUP BY k WITH TOTALS UNION ALL SELECT toUInt16(number % 1 + 2), sum(number) FROM numbers(6) GROUP BY 1 WITH TOTALS HAVING 0 FORMAT TSVWithNamesAndTypes;
SELECT toUInt16(number % 1 + 1) AS k, sum(number) AS s FROM numbers(4) GROUP BY k HAVING 0 UNION ALL SELECT toUInt16(number % 1 + 2), sum(number) FROM numbers(6) GROUP BY 1 WITH TOTALS;
SELECT 'a' AS s WHERE 0 UNION ALL SELECT 'b' WHERE 0 UNION ALL SELECT toString(c) FROM (SELECT number % 1 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS);
SELECT k, c FROM (SELECT toUInt16(number % 1 + 1) AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS) UNION ALL SELECT toUInt16(5), toUInt64(5) WHERE 0 LIMIT 1;
