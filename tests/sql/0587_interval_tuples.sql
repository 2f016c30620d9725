-- addInterval / subtractInterval: an interval or a tuple of intervals plus one more; the last element grows when it has the same unit.
SELECT addInterval(INTERVAL 1 DAY, INTERVAL 2 HOUR) AS a, toTypeName(a), addInterval(INTERVAL 1 DAY, INTERVAL 2 DAY) AS b, toTypeName(b);
SELECT addInterval((INTERVAL 1 DAY, INTERVAL 1 YEAR), INTERVAL 2 HOUR) AS a, toTypeName(a), addInterval((INTERVAL 1 DAY, INTERVAL 1 YEAR), INTERVAL 2 DAY) AS b, toTypeName(b), addInterval((INTERVAL 1 YEAR, INTERVAL 1 DAY), INTERVAL 2 DAY) AS c, toTypeName(c);
SELECT subtractInterval(INTERVAL 1 DAY, INTERVAL 2 DAY) AS a, toTypeName(a), subtractInterval((INTERVAL 1 DAY, INTERVAL 1 YEAR), INTERVAL 2 HOUR) AS b, subtractInterval((INTERVAL 1 YEAR, INTERVAL 1 DAY), INTERVAL 3 DAY) AS c, toTypeName(c);
SELECT addInterval(tuple(), INTERVAL 1 DAY) AS a, toTypeName(a), addInterval(toNullable(INTERVAL 1 DAY), INTERVAL 1 HOUR) AS b, toTypeName(b);
SELECT number, addInterval(toIntervalMonth(number), toIntervalMonth(10)) AS a, subtractInterval((toIntervalWeek(number), toIntervalSecond(number)), toIntervalSecond(5)) AS b FROM numbers(3) ORDER BY number;
SELECT addInterval(toDate('2024-01-31'), INTERVAL 1 MONTH); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT addInterval(INTERVAL 1 DAY, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT addInterval((INTERVAL 1 DAY, 1), INTERVAL 1 DAY); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT addInterval(INTERVAL 1 DAY); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- The operators: intervals of different units make a tuple, which later intervals grow by the same rule.
SELECT INTERVAL 1 DAY + INTERVAL 2 HOUR AS a, toTypeName(a), INTERVAL 1 DAY - INTERVAL 2 HOUR AS b, toTypeName(b), INTERVAL 1 DAY + INTERVAL 2 DAY AS c, toTypeName(c);
SELECT INTERVAL 1 DAY + INTERVAL 2 HOUR + INTERVAL 3 MINUTE AS a, toTypeName(a), (INTERVAL 1 YEAR, INTERVAL 1 DAY) + INTERVAL 2 DAY AS b, toTypeName(b), (INTERVAL 1 YEAR, INTERVAL 1 DAY) - INTERVAL 2 DAY AS c, (INTERVAL 1 DAY, INTERVAL 1 YEAR) + INTERVAL 2 DAY AS d, toTypeName(d);
-- A date plus or minus a tuple of intervals applies them in order.
SELECT toDate('2024-01-01') + (INTERVAL 1 DAY, INTERVAL 2 HOUR) AS a, toTypeName(a), toDate('2024-01-01') - (INTERVAL 1 DAY, INTERVAL 2 HOUR) AS b, toTypeName(b), (INTERVAL 1 DAY, INTERVAL 2 HOUR) + toDate('2024-01-01') AS c;
SELECT toDateTime('2024-01-31 00:00:00', 'UTC') + (INTERVAL 1 MONTH, INTERVAL 2 HOUR) AS a, toTypeName(a), toDateTime64('2024-01-01 00:00:00', 3, 'UTC') + (INTERVAL 1 DAY, INTERVAL 2 MILLISECOND) AS b, toTypeName(b);
-- addTupleOfIntervals / subtractTupleOfIntervals.
SELECT addTupleOfIntervals(toDate('2018-01-01'), (INTERVAL 1 DAY, INTERVAL 1 MONTH, INTERVAL 1 YEAR)) AS a, toTypeName(a), subtractTupleOfIntervals(toDate('2018-01-01'), (INTERVAL 1 DAY, INTERVAL 1 YEAR)) AS b, toTypeName(b);
SELECT addTupleOfIntervals(toDateTime('2018-01-01 00:00:00', 'UTC'), (INTERVAL 1 HOUR, INTERVAL 1 MONTH)) AS a, toTypeName(a), addTupleOfIntervals(toDate('2018-01-01'), (INTERVAL 1 HOUR,)) AS b, toTypeName(b), addTupleOfIntervals(toDate('2018-01-01'), tuple()) AS c, toTypeName(c);
SELECT addTupleOfIntervals(toDate32('2024-01-01'), (INTERVAL 1 DAY, INTERVAL 2 MONTH)) AS a, toTypeName(a), subtractTupleOfIntervals(toDateTime64('2024-03-31 10:00:00.5', 1, 'UTC'), (INTERVAL 1 MONTH, INTERVAL 100 MILLISECOND)) AS b, toTypeName(b);
SELECT number, addTupleOfIntervals(toDate('2024-01-31') + number, (toIntervalMonth(number), toIntervalDay(1))) AS d FROM numbers(3) ORDER BY number;
SELECT toDate('2024-01-01') + (INTERVAL 1 DAY, INTERVAL 2 MILLISECOND); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT addTupleOfIntervals('2024-01-01', (INTERVAL 1 DAY,)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT addTupleOfIntervals(toDate('2024-01-01'), INTERVAL 1 DAY); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- toInterval(value, 'unit'): the unit any case, a constant.
SELECT toInterval(5, 'day') AS a, toTypeName(a), toInterval(5, 'Second') AS b, toTypeName(b), toInterval(-3, 'HOUR') AS c, toTypeName(c), toInterval(5.7, 'second'), toInterval('12', 'minute');
SELECT toTypeName(toInterval(1, 'nanosecond')), toTypeName(toInterval(1, 'microsecond')), toTypeName(toInterval(1, 'millisecond')), toTypeName(toInterval(1, 'week')), toTypeName(toInterval(1, 'month')), toTypeName(toInterval(1, 'quarter')), toTypeName(toInterval(1, 'year'));
SELECT toInterval(toNullable(3), 'hour') AS a, toTypeName(a), toInterval(NULL, 'hour') AS b, toTypeName(b), toDate('2024-01-31') + toInterval(1, 'month');
SELECT number, toInterval(number, 'day') AS i, toDate('2024-01-01') + i FROM numbers(3) ORDER BY number;
SELECT toInterval(5, 'days'); -- { serverError BAD_ARGUMENTS }
SELECT toInterval(5, ''); -- { serverError BAD_ARGUMENTS }
SELECT toInterval(5, materialize('day')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toInterval(5, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toInterval('abc', 'day'); -- { serverError CANNOT_PARSE_TEXT }
SELECT toInterval(5); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- timeDiff: whole seconds between two dates or times.
SELECT timeDiff(toDateTime('2024-01-01 00:00:00', 'UTC'), toDateTime('2024-01-02 00:00:10', 'UTC')) AS a, toTypeName(a), timeDiff(toDate('2024-01-01'), toDateTime('2024-01-02 00:00:10', 'UTC')), timeDiff(toDate32('1950-01-01'), toDate('2024-01-02'));
SELECT timeDiff(toDateTime64('2024-01-01 00:00:00.9', 3, 'UTC'), toDateTime64('2024-01-01 00:00:01.1', 3, 'UTC')), timeDiff(toDateTime64('2024-01-01 00:00:00.5', 3, 'UTC'), toDateTime64('2024-01-02 00:00:10.25', 3, 'UTC')), timeDiff(toDateTime('2024-01-02 00:00:00', 'UTC'), toDateTime('2024-01-01 00:00:00', 'UTC'));
SELECT timeDiff(toNullable(toDateTime('2024-01-01 00:00:00', 'UTC')), toDateTime('2024-01-01 00:01:00', 'UTC')) AS a, toTypeName(a), timeDiff(toDateTime('2024-01-01 00:00:00', 'UTC'), NULL) AS b, toTypeName(b);
SELECT timeDiff('2024-01-01', toDateTime('2024-01-02 00:00:10')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT timeDiff(toDateTime('2024-01-01 00:00:00'), toDateTime('2024-01-02 00:00:10'), 'UTC'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- nowInBlock / nowInBlock64: the current time, not a constant (compared with now() only loosely).
SELECT toTypeName(nowInBlock()), toTypeName(nowInBlock('Asia/Tokyo')), toTypeName(nowInBlock64()), toTypeName(nowInBlock64(6)), toTypeName(nowInBlock64(0, 'UTC'));
SELECT count(), min(abs(timeDiff(nowInBlock(), now()))) < 60, min(abs(timeDiff(nowInBlock64(3, 'UTC'), now()))) < 60 FROM numbers(10);
SELECT nowInBlock(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT nowInBlock64(10); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT nowInBlock64(3, 'UTC', 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT nowInBlock('Foo/Bar'); -- { serverError BAD_ARGUMENTS }
SELECT name FROM system.functions WHERE name IN ('addInterval', 'subtractInterval', 'addTupleOfIntervals', 'subtractTupleOfIntervals', 'toInterval', 'timeDiff', 'nowInBlock', 'nowInBlock64') ORDER BY name;
