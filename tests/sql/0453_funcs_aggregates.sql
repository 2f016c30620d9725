-- skewPop/skewSamp/kurtPop/kurtSamp and groupBitAnd/Or/Xor: results, types, NULLs, -If, empty input, -State/-Merge round trips and state bytes.
DROP TABLE IF EXISTS m;
CREATE TABLE m (k UInt8, x Float64, f Float32, n Nullable(Int32), u UInt16) ENGINE = MergeTree ORDER BY k;
INSERT INTO m SELECT number % 3, number / 7 + sin(number) * 100, toFloat32(number * number), if(number % 4 = 0, NULL, toInt32(number) - 20), toUInt16(number * 37 % 251) FROM numbers(200);
-- Per group over integers (exact sums: the rounding does not depend on the order rows are added in).
SELECT k, skewPop(u), skewSamp(u), kurtPop(u), kurtSamp(u), skewSamp(n), kurtPop(n) FROM m GROUP BY k ORDER BY k;
-- Floats over the whole table, where the order of additions is ClickHouse's.
SELECT skewPop(x), skewSamp(x), kurtPop(x), kurtSamp(x), skewPop(f), kurtSamp(f) FROM m WHERE k = 1;
SELECT toTypeName(skewPop(x)), toTypeName(kurtSamp(f)), toTypeName(skewSamp(n)) FROM m LIMIT 1;
SELECT skewPop(number), skewSamp(number), kurtPop(number), kurtSamp(number) FROM numbers(10);
SELECT skewPop(1), skewSamp(1), kurtPop(toNullable(1)), kurtSamp(2), skewPopIf(number, number > 100) FROM numbers(5);
SELECT hex(skewPopState(number)), hex(kurtSampState(number)), hex(skewSampState(toFloat32(number))) FROM numbers(5);
SELECT k, skewPopMerge(s), kurtSampMerge(t) FROM (SELECT k, skewPopState(u) AS s, kurtSampState(n) AS t FROM m GROUP BY k, u % 4) GROUP BY k ORDER BY k;
SELECT skewSampMerge(s) FROM (SELECT skewSampState(u) AS s FROM m GROUP BY k);
SELECT k, groupBitAnd(u), groupBitOr(u), groupBitXor(u), groupBitAnd(n), groupBitOr(n), groupBitXor(n), BIT_XOR(u) FROM m GROUP BY k ORDER BY k;
SELECT toTypeName(groupBitAnd(u)), toTypeName(groupBitOr(n)), toTypeName(groupBitXor(toInt8(k))) FROM m LIMIT 1;
SELECT groupBitAnd(number), groupBitOr(number), groupBitXor(number), groupBitAnd(toInt8(number)), groupBitAnd(toNullable(number)), groupBitAndIf(number, 0) FROM numbers(0);
SELECT hex(groupBitXorState(u)), hex(groupBitAndState(n)), hex(groupBitOrState(toUInt8(k))) FROM m;
SELECT k, groupBitAndMerge(a), groupBitOrMerge(o), groupBitXorMerge(x) FROM (SELECT k, groupBitAndStateIf(u, u > 100) AS a, groupBitOrState(u) AS o, groupBitXorState(n) AS x FROM m GROUP BY k, u % 5) GROUP BY k ORDER BY k;
SELECT groupBitAnd(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
