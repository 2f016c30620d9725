-- Aggregates over a window take their integer literal arguments at ClickHouse's type, as
-- plain aggregates do: sum(1) OVER () is UInt64 (not Int64), max(1) OVER () UInt8.
SELECT toTypeName(sum(1) OVER ()) AS a, toTypeName(count() OVER ()) AS b, toTypeName(row_number() OVER ()) AS c, toTypeName(rank() OVER ()) AS d, toTypeName(dense_rank() OVER ()) AS e;
SELECT sum(1) OVER () AS a, sum(number) OVER () AS b, sum(toInt8(number)) OVER () AS c, count(1) OVER () AS d, max(1) OVER () AS e, min(-1) OVER () AS f FROM numbers(2);
SELECT toTypeName(a), toTypeName(b), toTypeName(c), toTypeName(d), toTypeName(e), toTypeName(f) FROM (SELECT sum(1) OVER () AS a, sum(number) OVER () AS b, sum(toInt8(number)) OVER () AS c, count(1) OVER () AS d, max(1) OVER () AS e, min(-1) OVER () AS f FROM numbers(2));
SELECT number, sum(1) OVER (ORDER BY number) AS s, sum(300) OVER (PARTITION BY number % 2) AS p, toTypeName(s), toTypeName(p) FROM numbers(4) ORDER BY number;
SELECT toTypeName(avg(number) OVER ()) AS a, toTypeName(sum(toUInt8(number)) OVER (ORDER BY number)) AS b, toTypeName(avg(2) OVER ()) AS c FROM numbers(2);
SELECT number, sum(toUInt8(number)) OVER (ORDER BY number) AS s, min(toInt8(number)) OVER (ORDER BY number DESC) AS m, max(toNullable(toInt16(number))) OVER () AS x, toTypeName(s), toTypeName(m), toTypeName(x) FROM numbers(5) ORDER BY number;
