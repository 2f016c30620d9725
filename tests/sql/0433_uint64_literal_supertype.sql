-- A UInt64 literal that fits Int64 is taken as Int64 next to signed integers, as
-- ClickHouse does; a UInt64 column or a literal past Int64 still has no supertype.
SET use_variant_as_common_type = 0;
SELECT [toInt64(-1), 9223372036854775807] AS a, toTypeName(a);
SELECT [-1, 9223372036854775807, -5] AS a, toTypeName(a);
SELECT [toInt32(-1), 4294967296] AS a, toTypeName(a);
SELECT [number - 1, 9223372036854775807] AS a, toTypeName(a) FROM numbers(2);
SELECT if(number = 0, toInt64(-1), 9223372036854775807) AS x, toTypeName(x) FROM numbers(2);
SELECT multiIf(number = 0, -1, number = 1, 9223372036854775807, 0) AS x, toTypeName(x) FROM numbers(3);
SELECT arrayJoin([toInt64(-9223372036854775808), -1, 0, 9223372036854775807]) AS x ORDER BY x;
SELECT [number, number + 1] AS a, toTypeName(a) FROM numbers(2);
SELECT [toInt64(-1), toUInt64(5)]; -- { serverError NO_COMMON_TYPE }
SELECT [-1, 9223372036854775808]; -- { serverError NO_COMMON_TYPE }
