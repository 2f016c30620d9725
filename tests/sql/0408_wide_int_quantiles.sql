-- Quantiles over UInt128, Int256 and UInt256 (Int128 is in 0403).
SELECT quantile(0.5)(x) AS r, toTypeName(r), median(x), quantiles(0.1, 0.5, 0.9)(x) FROM (SELECT toUInt128(number * 7 % 11) AS x FROM numbers(20));
SELECT quantileExact(0.5)(x) AS r, toTypeName(r), quantilesExact(0.25, 0.75)(x) AS rs, toTypeName(rs) FROM (SELECT toUInt128(number * 7 % 11) AS x FROM numbers(20));
SELECT quantileExact(0.5)(x) AS r, toTypeName(r), quantilesExact(0.25, 0.75)(x) AS rs, toTypeName(rs), quantile(0.5)(x) FROM (SELECT toInt256(number * 7 % 11) - 5 AS x FROM numbers(20));
SELECT quantileExact(0.5)(x) AS r, toTypeName(r), quantilesExact(0.25, 0.75)(x) AS rs, toTypeName(rs), median(x) FROM (SELECT toUInt256(number * 7 % 11) AS x FROM numbers(20));
SELECT quantileExact(0.9)(x), quantileExact(0.4)(x), quantilesExact(0, 1)(x) FROM (SELECT toUInt128(number) * toUInt128('85070591730234615865843651857942052864') + number AS x FROM numbers(4));
SELECT quantileExact(0.9)(x), quantileExact(0.1)(x) FROM (SELECT toUInt256(number) * toUInt256('57896044618658097711785492504343953926634992332820282019728792003956564819968') + number AS x FROM numbers(5));
SELECT quantileExact(0.5)(x), quantile(0.5)(x) FROM (SELECT toInt256('-57896044618658097711785492504343953926634992332820282019728792003956564819968') + number AS x FROM numbers(3));
SELECT quantileExactWeighted(0.5)(x, number) AS r, toTypeName(r) FROM (SELECT number, toUInt128(number % 4) AS x FROM numbers(10));
SELECT number % 2 AS k, quantileExact(0.5)(x), median(x) FROM (SELECT number, toUInt256(number * 3) AS x FROM numbers(10)) GROUP BY k ORDER BY k;
SELECT hex(quantileExactState(0.5)(x)) FROM (SELECT toUInt128(number) AS x FROM numbers(3));
SELECT hex(quantileExactState(0.5)(x)) FROM (SELECT toInt256(number) - 1 AS x FROM numbers(3));
SELECT quantileExactMerge(0.5)(s) FROM (SELECT quantileExactState(0.5)(toUInt256(number)) AS s FROM numbers(7));
SELECT quantileTDigest(0.5)(toUInt128(number)) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT quantileTDigest(0.5)(toInt256(number)) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
