-- -nan sorts with nan, next to NULL, in every direction.
SELECT x FROM (SELECT arrayJoin([1.0, -nan, nan, 0, -1, -inf, inf, NULL]) AS x) ORDER BY x;
SELECT x FROM (SELECT arrayJoin([1.0, -nan, nan, 0, -1, -inf, inf, NULL]) AS x) ORDER BY x DESC;
SELECT x FROM (SELECT arrayJoin([1.0, -nan, nan, 0, -1, -inf, inf, NULL]) AS x) ORDER BY x NULLS FIRST;
SELECT x FROM (SELECT arrayJoin([1.0, -nan, nan, 0, -1, -inf, inf, NULL]) AS x) ORDER BY x DESC NULLS FIRST;
SELECT x FROM (SELECT arrayJoin([1.5, -nan, 0.5, -2.5]) AS x) ORDER BY x;
SELECT toFloat32(x) AS y FROM (SELECT arrayJoin([1.5, -nan, 0.5, -2.5]) AS x) ORDER BY y DESC;
SELECT x, k FROM (SELECT arrayJoin([(1.0, 'a'), (-nan, 'b'), (nan, 'c'), (2.0, 'd')]) AS t, t.1 AS x, t.2 AS k) ORDER BY x, k;
SELECT x FROM (SELECT arrayJoin([1.5, -nan, 0.5, nan, -2.5]) AS x) ORDER BY x LIMIT 3;
-- An empty map has no key type to look up.
SELECT map()['a']; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT map()[1]; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT map()[NULL];
SELECT map('a', 1)['a'], map('a', 1)['b'];
-- INSERT INTO FUNCTION null(): rows are taken and dropped.
INSERT INTO FUNCTION null() SELECT number FROM numbers(10);
INSERT INTO FUNCTION null('x UInt8, s String') SELECT number, toString(number) FROM numbers(3);
INSERT INTO FUNCTION null('x UInt8') VALUES (1), (2);
SELECT 'done';
