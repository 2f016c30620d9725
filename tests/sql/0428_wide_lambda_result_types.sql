-- arrayMap over one array keeps the ClickHouse type of the lambda's result: wide integers (also from greatest/least/coalesce), Date, LowCardinality.
SELECT arrayMap(x -> greatest(toUInt128(x), 1), [1, 2]) AS a, toTypeName(a);
SELECT arrayMap(x -> least(toInt256(x), -1), [1, 2]) AS a, toTypeName(a);
SELECT arrayMap(x -> coalesce(toUInt256(x), 7), [1, 2]) AS a, toTypeName(a);
SELECT arrayMap(x -> greatest(toUInt128(x), toInt64(-5)), [1, 2]) AS a, toTypeName(a);
SELECT arrayMap(x -> toUInt128(x) * 2, [1, 2]) AS a, toTypeName(a);
SELECT arrayMap(x -> toInt128(x), [1, 2]) AS a, toTypeName(a);
SELECT arrayMap(x -> toUInt256(x) + toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639930'), [1, 2]) AS a, toTypeName(a);
SELECT arrayMap(x -> toDate(x), [1, 2]) AS a, toTypeName(a);
SELECT arrayMap(x -> toLowCardinality(toString(x)), [1, 2]) AS a, toTypeName(a);
SELECT arrayMap(x -> toNullable(x), [1, 2]) AS a, toTypeName(a);
SELECT arrayMap(x -> x * number, [1, 2]) AS a, toTypeName(a) FROM numbers(2) ORDER BY number;
SELECT arrayMap(x -> arrayMap(y -> greatest(toUInt128(y), x), [1, 5]), [2, 3]) AS a, toTypeName(a);
SELECT arrayMap(x -> (x, toUInt128(x)), [1, 2]) AS a, toTypeName(a);
SELECT arrayMap(x -> x, emptyArrayUInt8()) AS a, toTypeName(a);
SELECT arraySort(arrayMap(x -> greatest(toUInt128(x), 1), [3, 1, 2])) AS a, toTypeName(a);
