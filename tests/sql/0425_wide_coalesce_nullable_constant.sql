-- coalesce of constants keeps the Nullable type ClickHouse gives it after DataFusion folds
-- the call into a literal.
SELECT coalesce(NULL, toNullable(7)) AS c, toTypeName(c);
SELECT toTypeName(coalesce(NULL, toNullable(7))), toTypeName(coalesce(toNullable(7), NULL)), toTypeName(coalesce(NULL, 7));
SELECT coalesce(NULL, toNullable(toUInt256(7))) AS c, toTypeName(c), greatest(toNullable(1), 2) AS g, toTypeName(g);
SELECT coalesce(NULL, toNullable(number)) AS c, toTypeName(c) FROM numbers(2) ORDER BY number;
SELECT coalesce(NULL, toNullable('a')) AS c, toTypeName(c), least(toNullable(toInt128(-3)), toInt128(2)) AS l, toTypeName(l);
