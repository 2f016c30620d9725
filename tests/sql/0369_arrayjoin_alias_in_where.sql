-- The alias of an arrayJoin call used in WHERE filters the joined rows.
SELECT arrayJoin([5, 1]) AS x WHERE x > 3;
SELECT arrayJoin([5, 1]) AS x FROM numbers(2) WHERE x > 3 AND number = 1;
SELECT number, arrayJoin(range(number)) AS x FROM numbers(4) WHERE x % 2 = 1 ORDER BY number, x;
SELECT arrayJoin(['a', 'b']) AS s, count() FROM numbers(3) WHERE s != 'a' GROUP BY s;
SELECT count() FROM numbers(5) WHERE arrayJoin([number, 10]) > 3;
SELECT number, arrayJoin([number, number * 10]) AS v, v + 1 AS w FROM numbers(3) WHERE v >= 10 ORDER BY number;
SELECT arrayJoin([1, 2, 3]) AS x, arrayJoin(['p', 'q']) AS y WHERE x != 2 AND y = 'q' ORDER BY x;
