-- greatest and least of wide integers without a common type fail as in ClickHouse (two
-- arguments: code 43, more: the supertype's error) instead of comparing as decimals.
SELECT greatest(toInt256(-1), toUInt256(3)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT least(toInt128(-1), toUInt256(3)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT greatest(-1, toUInt256(3)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT greatest(1, toInt256(-1), toUInt256(3)); -- { serverError NO_COMMON_TYPE }
SELECT least(toUInt256(number), toInt64(-1)) FROM numbers(2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT greatest(toInt256(-1), toUInt128(3)) AS a, toTypeName(a), least(toInt256(-1), toUInt64(3)) AS b, toTypeName(b);
SELECT coalesce(toInt256(-1), toUInt256(3)) AS a, toTypeName(a);
