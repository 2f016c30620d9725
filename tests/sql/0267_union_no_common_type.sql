-- UNION columns whose branch types have no common supertype: ClickHouse 26 makes them a
-- Variant by default, which Granary does not have; it fails with NO_COMMON_TYPE as
-- ClickHouse does with use_variant_as_common_type = 0 (never a silent String or a crash).
SELECT 1 UNION ALL SELECT 'a' SETTINGS use_variant_as_common_type = 0; -- { serverError NO_COMMON_TYPE }
SELECT [1] UNION ALL SELECT 2 SETTINGS use_variant_as_common_type = 0; -- { serverError NO_COMMON_TYPE }
SELECT toDate('2020-01-01') UNION ALL SELECT 'x' SETTINGS use_variant_as_common_type = 0; -- { serverError NO_COMMON_TYPE }
SELECT toDate('2020-01-01') UNION ALL SELECT 1 SETTINGS use_variant_as_common_type = 0; -- { serverError NO_COMMON_TYPE }
SELECT (1, 2) UNION ALL SELECT 1 SETTINGS use_variant_as_common_type = 0; -- { serverError NO_COMMON_TYPE }
SELECT map(1, 2) UNION ALL SELECT 1 SETTINGS use_variant_as_common_type = 0; -- { serverError NO_COMMON_TYPE }
SELECT 'a', 1 UNION ALL SELECT 'b', 'c' SETTINGS use_variant_as_common_type = 0; -- { serverError NO_COMMON_TYPE }
SELECT number FROM numbers(2) UNION DISTINCT SELECT toString(number) FROM numbers(2) SETTINGS use_variant_as_common_type = 0; -- { serverError NO_COMMON_TYPE }
SELECT * FROM (SELECT 1 AS x UNION ALL SELECT 'a') SETTINGS use_variant_as_common_type = 0; -- { serverError NO_COMMON_TYPE }
-- The message names the types and the kinds that differ.
SELECT 1 UNION ALL SELECT NULL UNION ALL SELECT 'a' SETTINGS use_variant_as_common_type = 0 FORMAT TSV; -- { serverError NO_COMMON_TYPE }
-- Kinds that do meet still do.
SELECT x, toTypeName(x) FROM (SELECT 'a' AS x UNION ALL SELECT NULL) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT [1] AS x UNION ALL SELECT []) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT 1 AS x UNION ALL SELECT 2.5) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toDate('2020-01-01') AS x UNION ALL SELECT toDate('2021-01-01')) ORDER BY x;
