-- Nested tuple literals and tuples inside array literals are ClickHouse's tuple(...): types, tupleElement, comparisons
SELECT ((1,2),3);
SELECT ((1, 'a'), [1,2]);
SELECT toTypeName(((1,2),3)), toTypeName(((1, 'a'), [1,2]));
SELECT tupleElement(((1,2),3), 1), tupleElement(((1,2),3), 2), ((1,2),3).1.2;
SELECT ((1,2),3) AS t, t.1, t.1.1 FORMAT TSVWithNamesAndTypes;
SELECT ((1,2),(3,(4,'x'))) FORMAT JSONEachRow;
SELECT [((1,2),3), ((4,5),6)], toTypeName([((1,2),3), ((4,5),6)]);
SELECT [(1,2),(3,4)], toTypeName([(1,2),(3,4)]), [(1,'a')] AS x, toTypeName(x);
SELECT ((1,2),3) = ((1,2),3), ((1,2),3) < ((1,3),0);
SELECT number FROM numbers(3) WHERE ((number, 1), 2) = ((1, 1), 2);
SELECT number FROM numbers(3) WHERE (number, 1) IN ((1, 1), (2, 1)) ORDER BY number;
SELECT arrayJoin([(1, 'a'), (2, 'b')]) AS t, t.1, t.2, toTypeName(t);
SELECT has([(1, 2), (3, 4)], (3, 4)), indexOf([(1, 'a')], (1, 'a'));
SELECT tupleElement(arrayJoin([((1, 'x'), 2)]), 1) AS e, toTypeName(e);
