-- dateTrunc / DATE_TRUNC: toStartOfInterval(t, INTERVAL 1 unit[, tz]) with ClickHouse's result types
-- (Date for weeks and longer, DateTime for days to seconds, DateTime64 of the unit's scale below;
-- Date32 and DateTime64 inputs give Date32 and DateTime64(0)).
SELECT dateTrunc('year', toDateTime('2024-05-17 10:11:12', 'UTC')) AS a, toTypeName(a), dateTrunc('quarter', toDateTime('2024-05-17 10:11:12', 'UTC')) AS b, dateTrunc('month', toDateTime('2024-05-17 10:11:12', 'UTC')) AS c, dateTrunc('week', toDateTime('2024-05-17 10:11:12', 'UTC')) AS d;
SELECT dateTrunc('day', toDateTime('2024-05-17 10:11:12', 'UTC')) AS a, toTypeName(a), dateTrunc('hour', toDateTime('2024-05-17 10:11:12', 'Asia/Tokyo')) AS b, toTypeName(b), dateTrunc('minute', toDateTime('2024-05-17 10:11:12', 'UTC')) AS c, dateTrunc('second', toDateTime('2024-05-17 10:11:12', 'UTC')) AS d;
SELECT DATE_TRUNC('Day', toDateTime('2024-05-17 10:11:12', 'UTC')), date_trunc('MONTH', toDateTime('2024-05-17 10:11:12', 'UTC')), Date_Trunc('hour', toDateTime('2024-05-17 10:11:12', 'UTC'));
-- The time zone argument decides both the local day and the result's zone.
SELECT dateTrunc('day', toDateTime('2024-05-17 20:11:12', 'UTC'), 'Asia/Tokyo') AS a, toTypeName(a), toUnixTimestamp(a), dateTrunc('quarter', toDateTime('2024-03-31 20:00:00', 'UTC'), 'Asia/Tokyo') AS b, toTypeName(b);
SELECT dateTrunc('hour', toDateTime('2024-05-17 10:41:12', 'UTC'), 'Asia/Kolkata') AS a, toTypeName(a), toUnixTimestamp(a);
-- Dates: weeks and longer stay dates; a day becomes midnight as DateTime (in the zone given).
SELECT dateTrunc('month', toDate('2024-05-17')) AS a, toTypeName(a), dateTrunc('week', toDate('2024-05-17')) AS b, dateTrunc('day', toDate('2024-05-17')) AS c, toTypeName(c);
SELECT dateTrunc('day', toDate('2024-05-17'), 'Asia/Tokyo') AS a, toTypeName(a), toUnixTimestamp(a);
SELECT dateTrunc('month', toDate32('1950-05-17')) AS a, toTypeName(a), dateTrunc('year', toDate32('2250-05-17')) AS b, dateTrunc('day', toDate32('1950-05-17')) AS c, toTypeName(c);
-- DateTime64: Date32 and DateTime64(0) for the long units, the unit's scale below a second.
SELECT dateTrunc('month', toDateTime64('2024-05-17 10:11:12.345', 3, 'UTC')) AS a, toTypeName(a), dateTrunc('hour', toDateTime64('1950-05-17 03:04:05.5', 1, 'UTC')) AS b, toTypeName(b);
SELECT dateTrunc('second', toDateTime64('2024-05-17 10:11:12.345', 3, 'UTC')) AS a, toTypeName(a), dateTrunc('day', toDateTime64('1950-05-17 10:11:12.5', 2, 'Europe/Moscow')) AS b, toTypeName(b);
SELECT dateTrunc('millisecond', toDateTime64('2024-05-17 10:11:12.345678', 6, 'UTC')) AS a, toTypeName(a), dateTrunc('microsecond', toDateTime64('1950-05-17 10:11:12.123456789', 9, 'UTC')) AS b, toTypeName(b);
SELECT dateTrunc('microsecond', toDateTime64('2024-05-17 10:11:12.1', 1, 'UTC')) AS a, toTypeName(a), dateTrunc('nanosecond', toDateTime64('2024-05-17 10:11:12.123', 3, 'Asia/Tokyo')) AS b, toTypeName(b);
-- Columns, NULLs and weeks across a year boundary.
SELECT number, dateTrunc('week', toDateTime('2024-12-28 12:00:00', 'UTC') + toIntervalDay(number)) AS w, dateTrunc('month', toDate('2024-12-30') + number) AS m, dateTrunc('hour', toDateTime('2024-12-31 22:30:00', 'UTC') + toIntervalMinute(number * 20)) AS h FROM numbers(6) ORDER BY number;
SELECT dateTrunc('day', toNullable(toDateTime('2024-05-17 10:11:12', 'UTC'))) AS a, toTypeName(a), dateTrunc('day', CAST(NULL AS Nullable(DateTime('UTC')))) AS b;
SELECT dateTrunc('day', materialize(toDateTime('2024-05-17 10:11:12', 'UTC')), 'Asia/Tokyo') AS a, toTypeName(a);
SELECT dateTrunc('fortnight', toDateTime('2024-05-17 10:11:12', 'UTC')); -- { serverError BAD_ARGUMENTS }
SELECT dateTrunc('mm', toDateTime('2024-05-17 10:11:12', 'UTC')); -- { serverError BAD_ARGUMENTS }
SELECT dateTrunc('', toDateTime('2024-05-17 10:11:12', 'UTC')); -- { serverError BAD_ARGUMENTS }
SELECT dateTrunc(x, toDateTime('2024-05-17 10:11:12', 'UTC')) FROM (SELECT 'day' AS x); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTrunc('day', 5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTrunc('hour', toDate('2024-05-17')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTrunc('millisecond', toDateTime('2024-05-17 10:11:12', 'UTC')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTrunc('week', toDate('2024-05-17'), 'Asia/Tokyo'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTrunc('hour', toDateTime('2024-05-17 10:11:12', 'UTC'), 5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTrunc('month'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
