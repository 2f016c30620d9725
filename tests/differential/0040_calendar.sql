-- Weeks in every mode, over the turn of several years (ClickHouse's DateLUT rules)
SELECT d, toWeek(d), toWeek(d, 1), toWeek(d, 2), toWeek(d, 3), toWeek(d, 4), toWeek(d, 5), toWeek(d, 6), toWeek(d, 7), toYearWeek(d), toYearWeek(d, 1), toYearWeek(d, 3), toISOWeek(d), toISOYear(d) FROM (SELECT toDate('2020-12-25') + number * 3 AS d FROM numbers(40)) ORDER BY d;
SELECT d, toWeek(d, 8), toWeek(d, 9), toYearWeek(d, 8) FROM (SELECT toDate('2021-12-26') + number AS d FROM numbers(14)) ORDER BY d;
SELECT d, toStartOfWeek(d), toStartOfWeek(d, 1), toMonday(d), toLastDayOfWeek(d), toLastDayOfWeek(d, 1), toLastDayOfMonth(d), toDayOfWeek(d, 0), toDayOfWeek(d, 1), toDayOfWeek(d, 2), toDayOfWeek(d, 3) FROM (SELECT toDate('2024-02-24') + number AS d FROM numbers(10)) ORDER BY d;
SELECT toTypeName(toWeek(toDate('2024-01-01'))), toTypeName(toYearWeek(toDate('2024-01-01'))), toTypeName(toISOYear(toDate('2024-01-01'))), toTypeName(toStartOfWeek(toDateTime('2024-07-17 10:00:00'))), toTypeName(toLastDayOfMonth(toDate('2024-07-17')));
SELECT toStartOfWeek(toDateTime('2024-07-21 23:30:00', 'UTC'), 0, 'Asia/Tokyo'), toMonday(toDateTime('2024-07-21 23:30:00', 'Asia/Tokyo')), toWeek(toDateTime('2024-12-31 20:00:00', 'UTC'), 3, 'Asia/Tokyo');
-- Relative numbers
SELECT toRelativeDayNum(toDate('2024-07-17')), toRelativeWeekNum(toDate('2024-07-17')), toRelativeMonthNum(toDate('2024-07-17')), toRelativeQuarterNum(toDate('2024-07-17')), toRelativeYearNum(toDate('2024-07-17')), toRelativeHourNum(toDateTime('2024-07-17 10:00:00')), toRelativeMinuteNum(toDateTime('2024-07-17 10:00:00')), toRelativeSecondNum(toDateTime('2024-07-17 10:00:00')), toTypeName(toRelativeDayNum(toDate('2024-07-17')));
SELECT d, toRelativeWeekNum(d) FROM (SELECT toDate('1970-01-01') + number AS d FROM numbers(9)) ORDER BY d;
-- toStartOfInterval: every unit, epoch-aligned days, Monday-aligned weeks, day-aligned hours
SELECT t, toStartOfInterval(t, INTERVAL 15 minute), toStartOfInterval(t, INTERVAL 1 hour), toStartOfInterval(t, INTERVAL 5 hour), toStartOfInterval(t, INTERVAL 1 day), toStartOfInterval(t, INTERVAL 3 day), toStartOfInterval(t, INTERVAL 1 week), toStartOfInterval(t, INTERVAL 2 week), toStartOfInterval(t, INTERVAL 1 month), toStartOfInterval(t, INTERVAL 5 month), toStartOfInterval(t, INTERVAL 1 quarter), toStartOfInterval(t, INTERVAL 1 year), toStartOfInterval(t, INTERVAL 3 year), toStartOfInterval(t, INTERVAL 7 second) FROM (SELECT toDateTime('2024-07-15 12:34:56') + number * 86399 AS t FROM numbers(9)) ORDER BY t;
SELECT toStartOfInterval(toDate('2024-07-15'), INTERVAL 3 day), toStartOfInterval(toDate('2024-07-15'), toIntervalWeek(2)), toStartOfInterval(toDateTime('2024-07-15 12:34:56'), toIntervalMinute(10)), toTypeName(toStartOfInterval(toDateTime('2024-07-15 12:34:56'), INTERVAL 1 day)), toTypeName(toStartOfInterval(toDateTime('2024-07-15 12:34:56'), INTERVAL 1 month));
SELECT toStartOfInterval(number * 600, INTERVAL 1 hour) FROM numbers(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toStartOfInterval(toDateTime('2024-07-15 12:34:56'), INTERVAL 0 day); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT timeSlot(toDateTime('2024-07-15 12:34:56')), timeSlot(toDateTime('2024-07-15 12:29:59')), toTypeName(timeSlot(toDateTime('2024-07-15 12:34:56')));
-- Making dates
SELECT makeDate(2024, 7, 17), makeDate(2024, 200), makeDate32(1950, 1, 1), makeDateTime(2024, 7, 17, 1, 2, 3), toTypeName(makeDate(2024, 7, 17)), toTypeName(makeDate32(2024, 7, 17)), toTypeName(makeDateTime(2024, 7, 17, 1, 2, 3));
-- Names
SELECT dateName('year', d), dateName('quarter', d), dateName('month', d), dateName('week', d), dateName('dayofyear', d), dateName('day', d), dateName('weekday', d), monthName(d) FROM (SELECT toDate('2024-01-01') + number * 40 AS d FROM numbers(10)) ORDER BY d;
SELECT dateName('hour', toDateTime('2024-07-17 09:05:03')), dateName('minute', toDateTime('2024-07-17 09:05:03')), dateName('second', toDateTime('2024-07-17 09:05:03'));
-- age counts complete units, dateDiff crossed boundaries
SELECT age('day', toDate('2024-01-31'), toDate('2024-02-01')), age('month', toDate('2024-01-31'), toDate('2024-02-29')), age('year', toDate('2023-03-01'), toDate('2024-02-29')), age('month', toDate('2024-03-15'), toDate('2024-01-20')), age('hour', toDateTime('2024-01-01 10:30:00'), toDateTime('2024-01-01 12:29:59')), age('quarter', toDate('2024-01-15'), toDate('2024-07-14')), age('week', toDate('2024-01-01'), toDate('2024-01-15')), toTypeName(age('day', toDate('2024-01-31'), toDate('2024-02-01')));
-- formatDateTime and fromUnixTimestamp
SELECT formatDateTime(toDateTime('2024-07-05 09:03:07'), '%a %b %c %C %d %D %e %F %g %G %h %H %i %I %j %k %l %m %M %p %Q %r %R %S %T %u %V %w %W %y %Y %z %% %f %s');
SELECT formatDateTime(toDateTime('2024-12-30 21:43:00'), '%a %b %c %d %e %g %G %h %I %j %l %p %r %u %V %w %W'), formatDateTime(toDate('2024-01-01'), '%Y-%m-%d %H:%i:%S %p %r');
SELECT formatDateTime(toDateTime64('2024-07-05 09:03:07.123', 3), '%f'), formatDateTime(toDateTime64('2024-07-05 09:03:07.123456', 6), '%S.%f'), formatDateTime(toDateTime('2024-07-05 09:03:07', 'Asia/Tokyo'), '%H %z'), formatDateTime(toDateTime('2024-07-05 09:03:07'), '%H', 'Asia/Tokyo'), formatDateTime(toDateTime('2024-07-05 09:03:07'), 'no codes');
SELECT d, formatDateTime(d, '%G-W%V-%u') FROM (SELECT toDate('2020-12-28') + number * 2 AS d FROM numbers(8)) ORDER BY d;
SELECT formatDateTime(toDateTime('2024-07-05 09:03:07'), '%A'); -- { serverError BAD_ARGUMENTS }
SELECT fromUnixTimestamp(1700000000), toTypeName(fromUnixTimestamp(1700000000)), fromUnixTimestamp(1700000000, '%Y-%m-%d %H:%i'), fromUnixTimestamp(1700000000, '%H', 'Asia/Tokyo'), FROM_UNIXTIME(0), DATE_FORMAT(toDate('2024-07-05'), '%d.%m.%Y');
-- parseDateTimeBestEffort
SELECT parseDateTimeBestEffort('2024-07-15T12:30:45Z'), parseDateTimeBestEffort('2024-07-15 12:30:45.123+02:00'), parseDateTimeBestEffort('15/07/2024 12:30'), parseDateTimeBestEffort('Mon, 15 Jul 2024 12:30:45 GMT'), parseDateTimeBestEffort('1721046645'), parseDateTimeBestEffort('2024-07-15'), parseDateTimeBestEffort('20240715'), parseDateTimeBestEffort('Jul 15 2024');
SELECT parseDateTimeBestEffort('2024-07-15 12:30'), parseDateTimeBestEffort('15 July 2024'), parseDateTimeBestEffort('2024/07/15 01:02:03'), parseDateTimeBestEffort('07/15/2024'), parseDateTimeBestEffort('2024-07-15T12:30:45.5-0500'), parseDateTimeBestEffort('2024-07'), parseDateTimeBestEffort('20240715123045'), parseDateTimeBestEffort('2024-07-15 02:30:45 PM');
SELECT parseDateTimeBestEffortOrNull('garbage'), parseDateTimeBestEffortOrNull('2024-13-01'), parseDateTimeBestEffortOrZero('x'), parseDateTimeBestEffortUS('07/08/2024'), parseDateTimeBestEffort('07/08/2024'), toTypeName(parseDateTimeBestEffort('2024-07-15')), toTypeName(parseDateTimeBestEffortOrNull('2024-07-15'));
SELECT parseDateTime64BestEffort('2024-07-15 12:30:45.123456', 6), parseDateTime64BestEffort('2024-07-15 12:30:45.123456'), toTypeName(parseDateTime64BestEffort('2024-07-15 12:30:45')), parseDateTimeBestEffort('2024-07-15 12:30:45', 'Asia/Tokyo'), toTypeName(parseDateTimeBestEffort('2024-07-15 12:30:45', 'Asia/Tokyo'));
SELECT s, parseDateTimeBestEffortOrNull(s) FROM (SELECT arrayJoin(['2024-02-29', '2023-02-29', '31/12/2023 23:59:59', '1 Jan 2000', 'Sat, 01 Jan 2000 00:00:00 +0100', '2000-01-01T00:00:00.000000Z', '']) AS s) ORDER BY s;
SELECT parseDateTimeBestEffort('garbage'); -- { serverError CANNOT_PARSE_DATETIME }
-- inf and nan literals
SELECT inf, -inf, nan, toTypeName(inf), inf > 1e308, isNaN(nan);
SELECT exp2(10), isFinite(1), isInfinite(-inf), exp10(2), toTypeName(isNaN(1.0)), exp2(0.5);
SELECT number, (number > 5 ? 1 : 0) + 1, number % 3 = 0 ? 'fizz' : (number % 5 = 0 ? 'buzz' : 'n') FROM numbers(16) ORDER BY number;
-- A bare alias as a result column keeps the alias's name; expressions are named after the aliases they use
SELECT 1 AS x, x FORMAT TSVWithNames;
SELECT number AS n, n, n + 1, toString(n) AS s, s FROM numbers(3) ORDER BY n FORMAT TSVWithNames;
