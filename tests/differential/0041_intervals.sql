-- Interval types: toInterval* of every unit, INTERVAL n unit and INTERVAL 'n unit', their type names and column names
SELECT toIntervalNanosecond(5), toIntervalMicrosecond(4), toIntervalMillisecond(3), toIntervalSecond(-2), toIntervalMinute(1), toIntervalHour(2), toIntervalDay(3), toIntervalWeek(4), toIntervalMonth(5), toIntervalQuarter(6), toIntervalYear(7) FORMAT TSVWithNamesAndTypes;
SELECT INTERVAL 1 DAY, INTERVAL 2 WEEK, INTERVAL '3 hour', INTERVAL '4' MONTH, INTERVAL (1 + 1) YEAR, INTERVAL -5 MINUTE FORMAT TSVWithNamesAndTypes;
SELECT toIntervalDay(1.9), toIntervalDay('3'), toIntervalSecond(toUInt64(7)), toTypeName(toIntervalDay(toNullable(1))), toIntervalDay(NULL);
SELECT number, toIntervalHour(number), toTypeName(toIntervalHour(number)) FROM numbers(3);
-- Dates and times moved by intervals: calendar units keep dates, hours make a Date a DateTime and a Date32 a DateTime64(3)
SELECT toDate('2024-01-31') + INTERVAL 1 MONTH, toDate('2024-03-31') - INTERVAL 1 MONTH, toDate('2024-02-29') + INTERVAL 1 YEAR, toDate('2024-01-01') + INTERVAL 1 QUARTER, toDate('2024-01-01') - INTERVAL 2 WEEK, INTERVAL 3 DAY + toDate('2024-01-01') FORMAT TSVWithNamesAndTypes;
SELECT toDate('2024-01-01') + INTERVAL 1 HOUR, toDate32('2024-01-01') + INTERVAL 90 SECOND, toDate32('1950-06-30') + INTERVAL 1 DAY FORMAT TSVWithNamesAndTypes;
SELECT toDateTime('2024-01-31 10:00:00', 'UTC') + INTERVAL 1 MONTH, toDateTime('2024-03-31 01:30:00', 'Europe/Berlin') + INTERVAL 1 DAY, toDateTime('2024-03-30 02:30:00', 'Europe/Berlin') + INTERVAL 24 HOUR FORMAT TSVWithNamesAndTypes;
SELECT toDateTime('2024-01-01 00:00:00', 'UTC') + INTERVAL 1 MILLISECOND, toDateTime('2024-01-01 00:00:00', 'UTC') - INTERVAL 1500 MICROSECOND, toDateTime64('2024-01-01 00:00:00.5', 1, 'UTC') + INTERVAL 1 NANOSECOND, toDateTime64('2024-01-31 00:00:00.123', 3, 'UTC') + INTERVAL 1 MONTH FORMAT TSVWithNamesAndTypes;
SELECT toDate('2024-01-01') + INTERVAL 1 MILLISECOND; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- DateTime is 32-bit seconds: arithmetic past either end wraps
SELECT toDateTime('1970-01-01 00:00:01', 'UTC') - 3600, toDateTime('2106-02-07 06:28:15', 'UTC') + 1, toDateTime('2106-02-07 06:28:15', 'UTC') + INTERVAL 1 DAY, toDateTime('1970-01-01 00:00:00', 'UTC') - INTERVAL 1 SECOND;
-- Intervals with intervals: one unit adds up, different units make a tuple applied in order
SELECT INTERVAL 1 DAY + INTERVAL 2 DAY, INTERVAL 1 DAY - INTERVAL 1 HOUR, INTERVAL 1 DAY + INTERVAL 1 MONTH + INTERVAL 1 YEAR, -INTERVAL 3 WEEK FORMAT TSVWithNamesAndTypes;
SELECT toDate('2024-01-31') + (INTERVAL 1 DAY + INTERVAL 1 MONTH), toDate('2024-01-31') - (INTERVAL 1 DAY + INTERVAL 1 MONTH), toDateTime('2024-01-01 00:00:00', 'UTC') + (INTERVAL 1 HOUR + INTERVAL 30 MINUTE);
SELECT INTERVAL 1 DAY * 2; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT 1 - INTERVAL 1 DAY; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT INTERVAL 1 DAY + 1; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT INTERVAL 1 DAY + (INTERVAL 1 DAY + INTERVAL 1 MONTH); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- Over columns, with now() and the add/subtract functions of sub-second units
SELECT toDate('2024-01-01') + INTERVAL number MONTH AS d, toTypeName(d) FROM numbers(4);
SELECT now() + toIntervalDay(1) > now(), now() - INTERVAL 1 HOUR < now(), toTypeName(now() + INTERVAL 1 DAY);
SELECT addMilliseconds(toDateTime('2024-01-01 00:00:00', 'Asia/Tokyo'), 1500), subtractMicroseconds(toDateTime64('2024-01-01 00:00:00', 6, 'UTC'), 1), addNanoseconds(toDateTime64('2024-01-01 00:00:00', 3, 'UTC'), 7) FORMAT TSVWithNamesAndTypes;
SELECT addDays(toDateTime('2106-02-07 00:00:00', 'UTC'), 1), addHours(toDate('2024-01-01'), 25), toTypeName(addHours(toDate32('2024-01-01'), 1));
-- toStartOfInterval with interval values of every kind, literal or not
SELECT toStartOfInterval(toDateTime('2024-07-15 12:34:56', 'UTC'), toIntervalWeek(2)), toStartOfInterval(toDateTime('2024-07-15 12:34:56', 'UTC'), INTERVAL '3 hour'), toStartOfInterval(toDate('2024-07-15'), INTERVAL 1 QUARTER);
SELECT toStartOfInterval(toDateTime('2024-07-15 12:34:56'), 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- Comparing intervals of one unit
SELECT INTERVAL 1 DAY < INTERVAL 2 DAY, INTERVAL 2 HOUR = INTERVAL 2 HOUR, toIntervalDay(3) > toIntervalDay(1);
