-- CASE keeps ClickHouse's types (it runs as multiIf, as in ClickHouse): Date, DateTime64,
-- wide integers, IPv4, LowCardinality, Nullable; CASE x WHEN v is named caseWithExpression.
SELECT CASE WHEN number = 1 THEN toDate('2020-01-01') ELSE toDate('2021-01-01') END AS d, toTypeName(d) FROM numbers(2);
SELECT CASE WHEN number = 1 THEN toDate('2020-01-01') END AS d, toTypeName(d) FROM numbers(2);
SELECT CASE number WHEN 1 THEN toInt128(5) ELSE toInt128(7) END AS w, toTypeName(w) FROM numbers(2);
SELECT CASE WHEN number = 1 THEN toIPv4('1.2.3.4') ELSE toIPv4('1.1.1.1') END AS ip, toTypeName(ip) FROM numbers(2);
SELECT CASE WHEN number = 1 THEN toIPv4('1.2.3.4') END AS ip, toTypeName(ip) FROM numbers(2);
SELECT CASE WHEN number = 0 THEN toDateTime64('2020-01-01 00:00:00.123', 3) ELSE toDateTime64('2020-01-02 00:00:00', 3) END AS t, toTypeName(t) FROM numbers(2);
SELECT CASE WHEN number = 1 THEN 'a'::LowCardinality(String) ELSE 'b' END AS s, toTypeName(s) FROM numbers(2);
SELECT CASE number % 3 WHEN 0 THEN 'zero' WHEN 1 THEN 'one' ELSE 'two' END AS w, toTypeName(w) FROM numbers(4);
SELECT CASE number WHEN 1 THEN 'x' END FROM numbers(3) FORMAT TSVWithNames;
SELECT CASE WHEN number > 1 THEN toInt64(number) * 2 WHEN number = 1 THEN -1 ELSE NULL END AS v, toTypeName(v) FROM numbers(4);
SELECT CASE NULL WHEN NULL THEN 1 ELSE 2 END, CASE toNullable(1) WHEN 1 THEN 'x' END;
SELECT x, CASE x WHEN NULL THEN 'n' WHEN 1 THEN 'one' ELSE 'other' END, CASE 1 WHEN x THEN 'eq' ELSE 'ne' END FROM (SELECT arrayJoin([NULL, 1, 2]) x);
SELECT number, CASE WHEN number % 2 = 0 THEN 'even' ELSE 'odd' END AS p FROM numbers(5) WHERE CASE WHEN number > 2 THEN 1 ELSE 0 END = 1 ORDER BY number;
SELECT CASE WHEN x > 1 THEN 'big' ELSE 'small' END AS c, count() FROM (SELECT number AS x FROM numbers(5)) GROUP BY c ORDER BY c;
SELECT toTypeName(CASE WHEN 1 THEN toUInt8(1) ELSE toInt16(-1) END), toTypeName(CASE WHEN 1 THEN 1 ELSE 2.5 END);
