-- retention, intervalLengthSum, windowFunnel(window[, modes]): results, types, NULLs, GROUP BY, combinators, -State bytes and -State/-Merge through an AggregatingMergeTree.
DROP TABLE IF EXISTS e;
CREATE TABLE e (user UInt8, ts DateTime, event String, a UInt32, b UInt32, fa Float64, fb Float64, n Nullable(UInt32)) ENGINE = MergeTree ORDER BY (user, ts);
INSERT INTO e SELECT number % 5, toDateTime('2024-05-01 00:00:00') + number * 37 % 600, ['view', 'cart', 'pay', 'view', 'ship'][number % 5 + 1], number * 7 % 50, number * 7 % 50 + number % 9, number / 3, number / 3 + (number % 4) / 2, if(number % 6 = 0, NULL, number * 3 % 40) FROM numbers(60);
INSERT INTO e SELECT number % 5, toDateTime('2024-05-01 00:05:00') + number * 11 % 300, ['view', 'view', 'cart', 'pay', 'cart', 'ship'][number % 6 + 1], 100 + number, 100 + number * 2, -number, -number + 1.5, if(number % 2 = 0, NULL, 60 + number) FROM numbers(40);
DROP TABLE IF EXISTS m;
CREATE TABLE m (user UInt8, ts DateTime, event String, a UInt32, b UInt32, fa Float64, fb Float64, n Nullable(UInt32)) ENGINE = Memory;
INSERT INTO m SELECT * FROM e ORDER BY user, ts, event, a, b SETTINGS max_threads = 1;
SELECT user, retention(event = 'view', event = 'cart', event = 'pay'), retention(a < 20, b > 30), intervalLengthSum(a, b), intervalLengthSum(fa, fb), intervalLengthSum(n, a), windowFunnel(60)(ts, event = 'view', event = 'cart', event = 'pay'), windowFunnel(600)(ts, event = 'view', event = 'cart', event = 'pay', event = 'ship') FROM e GROUP BY user ORDER BY user;
SELECT windowFunnel(120, 'strict_order')(ts, event = 'view', event = 'cart', event = 'pay'), windowFunnel(120, 'strict_deduplication')(ts, event = 'view', event = 'cart', event = 'pay'), windowFunnel(30, 'strict_increase')(ts, event = 'view', event = 'cart'), windowFunnel(5)(toUInt32(ts), a < 10) FROM e GROUP BY user ORDER BY user;
SELECT retention(event = 'view', event = 'ship'), intervalLengthSum(a, b), intervalLengthSum(toDate(a), toDate(b)), windowFunnel(100)(a, a < 30, a >= 30, n > 5), retentionIf(a > 5, b > 20, user = 1), intervalLengthSumIf(fa, fb, user = 2) FROM m;
SELECT toTypeName(retention(a > 1, b > 2)), toTypeName(intervalLengthSum(a, b)), toTypeName(intervalLengthSum(fa, fb)), toTypeName(windowFunnel(5)(ts, a > 1)), toTypeName(windowFunnel(5)(n, a > 1)), toTypeName(retention(n > 1, a > 2)) FROM e;
SELECT retention(a > 1, b > 2), intervalLengthSum(a, b), windowFunnel(5)(ts, a > 1), windowFunnel(5)(n, a > 1) FROM e WHERE user > 10;
SELECT intervalLengthSum(p.1, p.2) FROM (SELECT arrayJoin([(1, 3), (2, 5), (10, 12), (11, 11), (5, 1), (20, 20)]) AS p);
SELECT windowFunnel(3)(toUInt32(p.1), p.2 = 1, p.2 = 2, p.2 = 3) FROM (SELECT arrayJoin([(1, 1), (2, 2), (3, 1), (5, 2), (6, 3), (9, 3)]) AS p);
SELECT hex(retentionState(number % 3 = 0, number % 3 = 1, number > 5)), hex(intervalLengthSumState(p.1, p.2)), hex(windowFunnelState(5)(number, number % 4 = 0, number % 4 = 1, number % 4 = 2)) FROM (SELECT number, (number::UInt32, (number + 2)::UInt32) AS p FROM numbers(10)) SETTINGS max_threads = 1;
SELECT hex(retentionState(toNullable(number) = 1, number = 2)), hex(windowFunnelState(5)(toNullable(number), number = 1)), hex(intervalLengthSumState(toNullable(number), number)) FROM numbers(0);
DROP TABLE IF EXISTS states;
CREATE TABLE states (user UInt8, r AggregateFunction(retention, UInt8, UInt8, UInt8), i AggregateFunction(intervalLengthSum, UInt32, UInt32), f AggregateFunction(windowFunnel(120), DateTime, UInt8, UInt8, UInt8), fs AggregateFunction(windowFunnel(300, 'strict_order'), DateTime, UInt8, UInt8)) ENGINE = AggregatingMergeTree ORDER BY user;
INSERT INTO states SELECT user, retentionState(event = 'view', event = 'cart', event = 'pay'), intervalLengthSumState(a, b), windowFunnelState(120)(ts, event = 'view', event = 'cart', event = 'pay'), windowFunnelState(300, 'strict_order')(ts, event = 'view', event = 'pay') FROM e WHERE ts < '2024-05-01 00:05:00' GROUP BY user;
INSERT INTO states SELECT user, retentionState(event = 'view', event = 'cart', event = 'pay'), intervalLengthSumState(a, b), windowFunnelState(120)(ts, event = 'view', event = 'cart', event = 'pay'), windowFunnelState(300, 'strict_order')(ts, event = 'view', event = 'pay') FROM e WHERE ts >= '2024-05-01 00:05:00' GROUP BY user;
SELECT user, retentionMerge(r), intervalLengthSumMerge(i), windowFunnelMerge(120)(f), windowFunnelMerge(300, 'strict_order')(fs) FROM states GROUP BY user ORDER BY user;
OPTIMIZE TABLE states FINAL;
SELECT user, retentionMerge(r), intervalLengthSumMerge(i), windowFunnelMerge(120)(f), windowFunnelMerge(300, 'strict_order')(fs), hex(r), hex(i) FROM states GROUP BY user, r, i ORDER BY user;
SELECT retention(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT intervalLengthSum(1.5, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT windowFunnel(5)(toInt32(1), 1 = 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT windowFunnel(5, 'bad')(number, number = 1) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT windowFunnel(number, number = 1) FROM numbers(3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
