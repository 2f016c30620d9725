-- CAST keeps the type as written in the column name, and reads ClickHouse's spellings (case-insensitive SQL aliases too)
SELECT CAST(1 AS String), CAST(1 AS Nullable(String)), CAST(1.257 AS Decimal(10,2)), CAST('2024-01-02 03:04:05' AS DateTime('UTC')), CAST(300 AS Int8), CAST(-1 AS UInt64) FORMAT TSVWithNamesAndTypes;
SELECT CAST(1 AS INT UNSIGNED), CAST(1.5 AS DOUBLE PRECISION), CAST('a' AS TEXT), CAST(7 AS bigint), CAST(1 AS TINYINT), CAST('x' AS VARCHAR(10)), CAST(2 AS Int8), CAST(2 AS FLOAT), CAST(1 AS Bool) FORMAT TSVWithNamesAndTypes;
SELECT CAST([1, 2] AS Array(Nullable(UInt16))), CAST((1, 'x') AS Tuple(a UInt8, b String)), CAST(map('k', 1) AS Map(String, Int64)) FORMAT TSVWithNamesAndTypes;
SELECT CAST(number AS String), number::UInt8, CAST(number AS LowCardinality(String)) FROM numbers(2) FORMAT TSVWithNamesAndTypes;
-- literal::T casts the literal's text: CAST('1.50', 'Float64')
SELECT 1::UInt8, -1::Int8, 1.50::Float64, '7'::Int64, [1, 2]::Array(UInt8), (1, 'a')::Tuple(UInt8, String), 18446744073709551615::UInt64, 1 - 1::Int8 FORMAT TSVWithNamesAndTypes;
SELECT 1e3::UInt32; -- { serverError CANNOT_PARSE_TEXT }
SELECT CAST(1 AS NoSuchType); -- { serverError UNKNOWN_TYPE }
SELECT CAST(1 AS INT8); -- { serverError UNKNOWN_TYPE }
SELECT CAST(1, 'Nope'); -- { serverError UNKNOWN_TYPE }
SELECT 1::FLOAT32; -- { serverError UNKNOWN_TYPE }
-- (a, b) is tuple(a, b) and map() has ClickHouse's key and value types
SELECT (1, 'a'), (1, (2, 'x')), ((1, 2), [3]), map('k', 1), map('a', NULL, 'b', 2), map(1, 'x', 300, 'y'), map('a', 1)['a'] FORMAT TSVWithNamesAndTypes;
SELECT number, (number, toString(number)), map(number, number * 2), map('n', number) FROM numbers(3) FORMAT TSVWithNamesAndTypes;
SELECT map('a', 1, 'b'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- Names and values in identifiers, IN lists, negative literals
SELECT 1 AS `c\\d`, 2 AS `a"b`, 3 AS "x\ty" FORMAT JSONEachRow;
SELECT 1 IN (1), 1 NOT IN (2), 1 IN (1, 2), -inf, -nan FORMAT TSVWithNames;
-- toTimezone / toTimeZone: the same instant in another zone
SELECT toTimeZone(toDateTime('2024-01-01 00:00:00', 'UTC'), 'America/New_York'), toTimezone(toDateTime64('2024-01-01 00:00:00.5', 1, 'UTC'), 'Asia/Tokyo'), toUnixTimestamp(toTimeZone(toDateTime('2024-01-01 00:00:00', 'UTC'), 'Asia/Kolkata')) FORMAT TSVWithNamesAndTypes;
SELECT toTimeZone(toDate('2024-01-01'), 'UTC'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toTimeZone(now(), 'Nope/Zone'); -- { serverError BAD_ARGUMENTS }
-- Syntax and LIMIT checks
SELECT substring('abc'); -- { serverError SYNTAX_ERROR }
SELECT substring('abc', 2), substring('abcdef', 2, 3);
SELECT 1 LIMIT 'a'; -- { serverError INVALID_LIMIT_EXPRESSION }
SELECT 1 LIMIT NULL; -- { serverError INVALID_LIMIT_EXPRESSION }
SELECT 1 LIMIT 1 OFFSET 'x'; -- { serverError INVALID_LIMIT_EXPRESSION }
SELECT * FROM (SELECT number FROM numbers(3) LIMIT 'x'); -- { serverError INVALID_LIMIT_EXPRESSION }
-- Pretty's tip for a single large number: the shortest form past 10^60
SELECT 1e300 AS x FORMAT PrettyCompactMonoBlock;
SELECT 123456789 AS x FORMAT PrettyCompactMonoBlock;
-- groupArray sees the rows in a subquery's ORDER BY
SELECT number % 3 AS k, groupArray(number) FROM (SELECT number FROM numbers(20) ORDER BY number DESC) GROUP BY k ORDER BY k;
SELECT groupArray(s), groupArray(n) FROM (SELECT toString(number % 4) AS s, number AS n FROM numbers(12) ORDER BY s, n DESC);
SELECT k, groupArray(v) FROM (SELECT number % 2 AS k, number * 10 AS v, number % 5 AS w FROM numbers(10) ORDER BY w, v) GROUP BY k ORDER BY k;
