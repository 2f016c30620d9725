-- Date, Date32, DateTime, DateTime64: parsing, bounds, arithmetic, parts, formatting (server time zone UTC)
SELECT toDate('2024-02-29'), toDate32('1900-01-01'), toDateTime('2024-02-29 23:59:59'), toDateTime64('2024-02-29 23:59:59.123', 3);
SELECT toTypeName(toDate('2024-01-01')), toTypeName(toDate32('2024-01-01')), toTypeName(toDateTime('2024-01-01 00:00:00')), toTypeName(toDateTime64('2024-01-01 00:00:00', 3));
SELECT toDate('1970-01-01'), toDate('2149-06-06'), toDate32('2299-12-31'), toDateTime('1970-01-01 00:00:00'), toDateTime('2106-02-07 06:28:15');
SELECT toDate(19000), toDate(0), toDateTime(0), toDateTime(1700000000), toDateTime64(1700000000.5, 3);
SELECT toDate('2024-03-01') - 1, toDate('2024-03-01') + 365, toDate('2024-01-31') + toIntervalMonth(1), toDate('2024-12-31') - toDate('2024-01-01');
SELECT toDateTime('2024-01-01 00:00:00') + 3600, toDateTime('2024-01-01 00:00:00') - 1, toDateTime('2024-01-01 00:00:00') + toIntervalDay(1);
SELECT toDateTime64('2024-01-01 00:00:00.500', 3) + 1, toDateTime64('2024-01-01 00:00:00.999', 3) + toIntervalMillisecond(2);
SELECT toYear(toDate('2024-05-06')), toMonth(toDate('2024-05-06')), toDayOfMonth(toDate('2024-05-06')), toDayOfWeek(toDate('2024-05-06')), toDayOfYear(toDate('2024-05-06')), toQuarter(toDate('2024-05-06'));
SELECT toHour(toDateTime('2024-01-02 03:04:05')), toMinute(toDateTime('2024-01-02 03:04:05')), toSecond(toDateTime('2024-01-02 03:04:05')), toUnixTimestamp(toDateTime('2024-01-02 03:04:05'));
SELECT toStartOfMonth(toDate('2024-05-06')), toStartOfYear(toDate('2024-05-06')), toMonday(toDate('2024-05-09')), toStartOfDay(toDateTime('2024-05-06 10:11:12')), toStartOfHour(toDateTime('2024-05-06 10:11:12'));
SELECT toYYYYMM(toDate('2024-05-06')), toYYYYMMDD(toDate('2024-05-06')), toYYYYMMDDhhmmss(toDateTime('2024-05-06 10:11:12'));
SELECT formatDateTime(toDateTime('2024-05-06 10:11:12'), '%Y/%m/%d %H-%M-%S'), formatDateTime(toDate('2024-05-06'), '%F');
SELECT dateDiff('day', toDate('2024-01-01'), toDate('2024-03-01')), dateDiff('hour', toDateTime('2024-01-01 00:00:00'), toDateTime('2024-01-02 06:00:00')), dateDiff('month', toDate('2024-01-31'), toDate('2024-02-01'));
SELECT toDate(toDateTime('2024-05-06 23:59:59')), toDateTime(toDate('2024-05-06')), toDateTime64(toDateTime('2024-05-06 01:02:03'), 3), toDate32(toDate('2024-05-06'));
SELECT toString(toDateTime64('2024-01-01 00:00:00.1', 3)), toString(toDateTime64('2024-01-01 00:00:00.123456', 6)), toDateTime64('2024-01-01 00:00:00', 0);
SELECT toDate('2024-02-29') = toDate('2024-02-29'), toDate('2024-02-29') < toDate('2024-03-01'), toDateTime('2024-01-01 00:00:00') = toDate('2024-01-01');
SELECT toDate('2024-1-2'), toDate('20240102'), toDateTime('2024-01-02T03:04:05'), toDateTime('2024-01-02');
SELECT toDateOrNull('nope'), toDateOrZero('nope'), toDateTimeOrNull('nope'), toDateTimeOrZero('x');
SELECT toDate('not a date'); -- { serverError CANNOT_PARSE_DATE }
SELECT toDate('2024-01-01') + number AS d, toDayOfWeek(d) FROM numbers(7);
SELECT toDateTime('2024-01-01 00:00:00', 'Asia/Tokyo'), toTypeName(toDateTime('2024-01-01 00:00:00', 'Asia/Tokyo')), toUnixTimestamp(toDateTime('2024-01-01 00:00:00', 'Asia/Tokyo'));
SELECT toTimeZone(toDateTime('2024-01-01 00:00:00'), 'America/New_York'), timezone();
SELECT CAST('2024-01-02' AS Date), CAST('2024-01-02 03:04:05' AS DateTime), CAST('2024-01-02 03:04:05.6' AS DateTime64(3)), '2024-01-02'::Date32;
SELECT toDate('2024-01-01') AS d, toDateTime('2024-01-01 01:02:03') AS dt, toDateTime64('2024-01-01 01:02:03.456', 3) AS dt64 FORMAT JSONEachRow;
