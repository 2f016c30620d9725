-- windowFunnel modes strict_once and allow_reentry, alone and combined with strict_order, strict_deduplication and strict_increase, over many event sequences; -State bytes of strict_once and -State/-Merge through an AggregatingMergeTree.
DROP TABLE IF EXISTS ev;
CREATE TABLE ev (user UInt16, ts UInt32, a UInt8, b UInt8, c UInt8, d UInt8) ENGINE = Memory;
INSERT INTO ev SELECT number % 97, intDiv(number, 97) * 3 + cityHash64(number, 1) % 5, cityHash64(number, 2) % 4 = 0, cityHash64(number, 3) % 4 = 0, cityHash64(number, 4) % 5 = 0, cityHash64(number, 5) % 6 = 0 FROM numbers(1500) SETTINGS max_threads = 1;
SELECT user, windowFunnel(10, 'strict_once')(ts, a, b, c), windowFunnel(10, 'strict_order', 'allow_reentry')(ts, a, b, c), windowFunnel(10, 'strict_order', 'allow_reentry', 'strict_once')(ts, a, b, c, d), windowFunnel(6, 'strict_once', 'strict_increase')(ts, a, b, c), windowFunnel(8, 'strict_once', 'strict_deduplication')(ts, a, b, c), windowFunnel(8, 'strict_deduplication')(ts, a, b, c) FROM ev GROUP BY user ORDER BY user;
SELECT windowFunnel(20, 'strict_once')(ts, a, a or b, b or c, c), windowFunnel(20)(ts, a, a or b, b or c, c), windowFunnel(20, 'strict_order', 'allow_reentry', 'strict_increase')(ts, a, b, c, d), windowFunnel(20, 'strict_order', 'allow_reentry', 'strict_deduplication')(ts, a, b, c), count() FROM ev GROUP BY user % 7 ORDER BY user % 7;
SELECT windowFunnel(15, 'strict_once')(ts, 1 = 1, 1 = 1, 1 = 1), windowFunnel(15)(ts, 1 = 1, 1 = 1, 1 = 1), windowFunnel(15, 'strict_order', 'allow_reentry')(ts, a, 1 = 1, c) FROM ev WHERE user < 3 GROUP BY user ORDER BY user;
SELECT p.2, windowFunnel(5, 'strict_once')(toUInt32(p.1), p.2 IN (1, 3), p.2 IN (2, 3), p.2 = 4) AS once, windowFunnel(5)(toUInt32(p.1), p.2 IN (1, 3), p.2 IN (2, 3), p.2 = 4) AS plain FROM (SELECT arrayJoin([(1, 1), (2, 3), (3, 4), (4, 2), (5, 4)]) AS p) GROUP BY p.2 WITH TOTALS ORDER BY p.2;
SELECT windowFunnel(10, 'strict_order', 'allow_reentry')(toUInt32(p.1), p.2 = 1, p.2 = 2, p.2 = 3), windowFunnel(10, 'strict_order')(toUInt32(p.1), p.2 = 1, p.2 = 2, p.2 = 3), windowFunnel(10, 'strict_order', 'allow_reentry')(toUInt32(p.1), p.2 = 1, p.2 = 2) FROM (SELECT arrayJoin([(1, 1), (2, 3), (3, 2), (4, 9), (5, 3)]) AS p);
SELECT windowFunnel(3600, 'strict_once')(toDateTime('2024-01-01 00:00:00') + p.1, p.2 = 1, p.2 = 2), windowFunnel(3, 'strict_once')(toDate('2024-01-01') + p.1, p.2 = 1, p.2 = 2), toTypeName(windowFunnel(3, 'strict_once')(toDate('2024-01-01') + p.1, p.2 = 1)) FROM (SELECT arrayJoin([(10, 1), (200, 2), (5000, 1)]) AS p);
SELECT hex(windowFunnelState(5, 'strict_once')(number, number % 3 = 0, number % 2 = 0)), hex(windowFunnelState(5, 'strict_once', 'strict_order')(toUInt16(number), number = 2, number > 5)), hex(windowFunnelState(5, 'strict_order', 'allow_reentry')(toUInt8(number), number = 2, number > 5)) FROM numbers(9) SETTINGS max_threads = 1;
SELECT hex(windowFunnelState(5, 'strict_once')(toDateTime(number), number = 1)), hex(windowFunnelState(5, 'strict_once')(toDate(number), number = 1)) FROM numbers(3) SETTINGS max_threads = 1;
SELECT hex(windowFunnelState(5, 'strict_once')(number, number = 1)) FROM numbers(0);
DROP TABLE IF EXISTS fs;
CREATE TABLE fs (k UInt8, f AggregateFunction(windowFunnel(10, 'strict_once'), UInt32, UInt8, UInt8, UInt8), r AggregateFunction(windowFunnel(10, 'strict_order', 'allow_reentry'), UInt32, UInt8, UInt8, UInt8)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO fs SELECT user % 4, windowFunnelState(10, 'strict_once')(ts, a, b, c), windowFunnelState(10, 'strict_order', 'allow_reentry')(ts, a, b, c) FROM ev WHERE ts < 20 GROUP BY user % 4;
INSERT INTO fs SELECT user % 4, windowFunnelState(10, 'strict_once')(ts, a, b, c), windowFunnelState(10, 'strict_order', 'allow_reentry')(ts, a, b, c) FROM ev WHERE ts >= 20 AND ts < 40 GROUP BY user % 4;
SELECT k, windowFunnelMerge(10, 'strict_once')(f), windowFunnelMerge(10, 'strict_order', 'allow_reentry')(r) FROM fs GROUP BY k ORDER BY k;
OPTIMIZE TABLE fs FINAL;
SELECT k, windowFunnelMerge(10, 'strict_once')(f), windowFunnelMerge(10, 'strict_order', 'allow_reentry')(r), length(hex(f)) FROM fs GROUP BY k, f ORDER BY k;
SELECT windowFunnel(5, 'allow_reentry')(number, number = 1, number = 2) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT windowFunnel(5, 'strict')(number, number = 1) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT windowFunnel(5, 'strict_once', 'nope')(number, number = 1) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT windowFunnel(5, 'strict_once')(toInt64(number), number = 1) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
