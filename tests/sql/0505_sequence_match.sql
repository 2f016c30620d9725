-- sequenceMatch/sequenceCount(pattern): (?N), ., .*, (?t op S); no two rows share a time (ClickHouse keeps such rows in the order they came); types, NULLs, GROUP BY, -State bytes and -State/-Merge through an AggregatingMergeTree, pattern errors.
DROP TABLE IF EXISTS e;
CREATE TABLE e (user UInt8, ts DateTime, event String, n Nullable(UInt32)) ENGINE = MergeTree ORDER BY (user, ts);
INSERT INTO e SELECT number % 4, toDateTime('2024-05-01 00:00:00') + number * 74 % 1200, ['view', 'cart', 'pay', 'view', 'ship'][number % 5 + 1], if(number % 6 = 0, NULL, number) FROM numbers(80);
INSERT INTO e SELECT number % 4, toDateTime('2024-05-01 00:03:01') + number * 22 % 600, ['view', 'view', 'cart', 'pay', 'cart', 'ship'][number % 6 + 1], if(number % 2 = 0, NULL, 1000 + number) FROM numbers(50);
SELECT user, sequenceMatch('(?1)(?2)')(ts, event = 'view', event = 'cart'), sequenceCount('(?1)(?2)')(ts, event = 'view', event = 'cart'), sequenceCount('(?1).*(?2).*(?3)')(ts, event = 'view', event = 'cart', event = 'pay'), sequenceMatch('(?1)(?t<=10)(?2)')(ts, event = 'view', event = 'pay'), sequenceCount('(?1)(?t>30)(?2)')(ts, event = 'cart', event = 'ship'), sequenceCount('(?1).(?2)')(ts, event = 'view', event = 'pay'), sequenceMatch('(?3)(?t==11)(?1)')(ts, event = 'view', event = 'cart', event = 'ship') FROM e GROUP BY user ORDER BY user;
SELECT sequenceMatch('(?1)(?2)')(n, event = 'view', event = 'cart'), sequenceCount('(?1)(?2)')(n, event = 'view', event = 'cart'), sequenceCount('(?1)(?t<5)(?2)')(toUInt32(ts), event = 'view', n > 20), sequenceMatch('.*(?1)(?t>=100)(?2).*')(ts, event = 'pay', event = 'ship') FROM e;
SELECT toTypeName(sequenceMatch('(?1)')(ts, event = 'view', event = 'cart')), toTypeName(sequenceCount('(?1)')(n, event = 'view', event = 'cart')), toTypeName(sequenceMatch('(?1)')(n, event = 'view', event = 'cart')) FROM e;
SELECT sequenceMatch('(?1)(?2)')(ts, event = 'view', event = 'cart'), sequenceCount('(?1)')(n, event = 'view', event = 'cart') FROM e WHERE user > 10;
SELECT sequenceCount('(?1).*(?2)')(number, number % 3 = 0, number % 3 = 1), sequenceCount('(?1)(?t<=3)(?2)')(number, number % 5 = 0, number % 5 = 2), sequenceMatch('(?1)(?t>=6)(?2)')(number, number % 10 = 0, number % 10 = 5), sequenceCount('.(?1)')(number, number % 2 = 0, number % 3 = 0), sequenceCount('(?1)(?t>1)(?2)')(toUInt8(number), number = 1, number = 2) FROM numbers(40);
SELECT hex(sequenceMatchState('(?1)(?2)')(number, number % 4 = 0, number % 4 = 1)), hex(sequenceCountState('(?1)(?2)')(toDateTime(number), number % 4 = 0, number % 4 = 1)) FROM numbers(10) SETTINGS max_threads = 1;
SELECT hex(sequenceMatchState('(?1)(?2)')(number, number % 4 = 0, number % 4 = 1)), hex(sequenceMatchState('(?1)')(toNullable(number), number = 1, number = 2)) FROM numbers(0);
DROP TABLE IF EXISTS states;
CREATE TABLE states (user UInt8, m AggregateFunction(sequenceMatch('(?1)(?t<=20)(?2)'), DateTime, UInt8, UInt8), c AggregateFunction(sequenceCount('(?1).*(?2)'), DateTime, UInt8, UInt8)) ENGINE = AggregatingMergeTree ORDER BY user;
INSERT INTO states SELECT user, sequenceMatchState('(?1)(?t<=20)(?2)')(ts, event = 'view', event = 'cart'), sequenceCountState('(?1).*(?2)')(ts, event = 'cart', event = 'pay') FROM e WHERE ts < '2024-05-01 00:04:00' GROUP BY user;
INSERT INTO states SELECT user, sequenceMatchState('(?1)(?t<=20)(?2)')(ts, event = 'view', event = 'cart'), sequenceCountState('(?1).*(?2)')(ts, event = 'cart', event = 'pay') FROM e WHERE ts >= '2024-05-01 00:04:00' GROUP BY user;
SELECT user, sequenceMatchMerge('(?1)(?t<=20)(?2)')(m), sequenceCountMerge('(?1).*(?2)')(c) FROM states GROUP BY user ORDER BY user;
OPTIMIZE TABLE states FINAL;
SELECT user, sequenceMatchMerge('(?1)(?t<=20)(?2)')(m), sequenceCountMerge('(?1).*(?2)')(c) FROM states GROUP BY user ORDER BY user;
SELECT sequenceMatch('(?1)(?3)')(number, number = 1, number = 2) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT sequenceMatch('(?1)x')(number, number = 1, number = 2) FROM numbers(3); -- { serverError SYNTAX_ERROR }
SELECT sequenceMatch('(?1)')(toInt32(number), number = 1, number = 2) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT sequenceMatch('(?1)')(number, number = 1) FROM numbers(3); -- { serverError TOO_FEW_ARGUMENTS_FOR_FUNCTION }
