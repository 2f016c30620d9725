-- Wide integers meet small integers, literals, NULL and each other in arrays,
-- conditionals, ifNull, UNION ALL and IN lists.
SET use_variant_as_common_type = 0;
SELECT [toUInt256(1), 3, toUInt256(2) + 7] AS a, toTypeName(a);
SELECT [toInt128(-1), toUInt64(5)] AS a, toTypeName(a);
SELECT [toUInt128(1), toInt8(-1)] AS a, toTypeName(a);
SELECT [toUInt128(1), toUInt256(2)] AS a, toTypeName(a);
SELECT [toInt128(1), toUInt128(2)] AS a, toTypeName(a);
SELECT [toInt256(1), toUInt128(2)] AS a, toTypeName(a);
SELECT [toUInt64(1), toInt128(-1), toUInt128(3)] AS a, toTypeName(a);
SELECT [toUInt256(1), NULL] AS a, toTypeName(a);
SELECT [toInt128(-1), NULL, 3] AS a, toTypeName(a);
SELECT [toUInt256(number), number + 1] AS a, toTypeName(a) FROM numbers(2) ORDER BY number;
SELECT if(number = 0, toUInt256(1), 3) AS a, toTypeName(a) FROM numbers(2) ORDER BY number;
SELECT if(number = 0, toInt128(-1), toUInt32(number)) AS a, toTypeName(a) FROM numbers(2) ORDER BY number;
SELECT multiIf(number = 0, toUInt256(1), number = 1, toUInt8(3), 4) AS a, toTypeName(a) FROM numbers(3) ORDER BY number;
SELECT multiIf(number = 0, toInt128(-1), number = 1, toUInt64(3), 4) AS a, toTypeName(a) FROM numbers(3) ORDER BY number;
SELECT ifNull(toNullable(toUInt128(1)), 7) AS a, toTypeName(a);
SELECT x, toTypeName(x) FROM (SELECT toUInt256(1) AS x UNION ALL SELECT toUInt8(2)) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toInt128(-1) AS x UNION ALL SELECT toUInt64(2)) ORDER BY x;
SELECT toUInt256(3) IN (1, -2, 3), toInt128(-1) IN (toUInt256(5), -1);
SELECT number FROM numbers(5) WHERE toUInt256(number) IN (toUInt256(2), 4) ORDER BY number;
SELECT [toInt256(-1), toUInt256(5)]; -- { serverError NO_COMMON_TYPE }
SELECT [toUInt256(1), -3]; -- { serverError NO_COMMON_TYPE }
SELECT [toUInt256(1), 1.5]; -- { serverError NO_COMMON_TYPE }
SELECT if(number = 0, toInt256(1), toUInt256(3)) FROM numbers(2); -- { serverError NO_COMMON_TYPE }
SELECT multiIf(number = 0, toUInt256(1), number = 1, toInt8(3), 4) FROM numbers(3); -- { serverError NO_COMMON_TYPE }
