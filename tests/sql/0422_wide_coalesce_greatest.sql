-- coalesce, greatest and least over wide integers take ClickHouse's least supertype,
-- not a common Arrow decimal.
SELECT coalesce(NULL, toUInt256(1), 3) AS a, toTypeName(a);
SELECT coalesce(toNullable(toUInt128(1)), toInt64(-2)) AS a, toTypeName(a);
SELECT coalesce(if(number = 0, NULL, toInt128(-5)), number) AS a, toTypeName(a) FROM numbers(3) ORDER BY number;
SELECT coalesce(NULL, toNullable(toUInt256(7))) AS a, toTypeName(a);
SELECT greatest(toUInt256(1), 3) AS a, toTypeName(a), least(toInt128(-1), toUInt64(5)) AS b, toTypeName(b);
SELECT greatest(toUInt128(number), toInt8(-1)) AS a, toTypeName(a), least(toUInt256(number), 1) AS b, toTypeName(b) FROM numbers(3) ORDER BY number;
SELECT x FROM (SELECT greatest(toInt256(number), 1) AS x FROM numbers(3)) WHERE x > 1;
SELECT greatest(toInt128(-3), toInt256(2), toUInt128(1)) AS a, toTypeName(a) FORMAT TSVWithNames;
