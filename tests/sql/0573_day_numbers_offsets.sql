-- toDaysSinceYearZero (TO_DAYS), fromDaysSinceYearZero (FROM_DAYS), fromDaysSinceYearZero32.
SELECT toDaysSinceYearZero(toDate('2024-05-17')) AS a, toTypeName(a), toDaysSinceYearZero(toDate32('1900-01-01')), toDaysSinceYearZero(toDate32('1950-03-01'));
-- A DateTime's day is its UTC day whatever the zones; a DateTime64's is its local day.
SELECT toDaysSinceYearZero(toDateTime('2024-05-17 23:00:00', 'UTC')), toDaysSinceYearZero(toDateTime('2024-05-17 23:00:00', 'UTC'), 'Asia/Tokyo'), toDaysSinceYearZero(toDateTime('2024-05-17 02:00:00', 'Asia/Tokyo')), toDaysSinceYearZero(toDateTime64('2024-05-17 23:00:00', 3, 'UTC'), 'Asia/Tokyo'), toDaysSinceYearZero(toDateTime64('2024-05-17 02:00:00', 3, 'Asia/Tokyo')), TO_DAYS(toDateTime64('2024-05-17 23:00:00', 3, 'Asia/Tokyo')), to_days(toDate('1970-01-01'));
SELECT fromDaysSinceYearZero(739000) AS a, toTypeName(a), fromDaysSinceYearZero32(739000) AS b, toTypeName(b), FROM_DAYS(719528), from_days(toUInt16(1));
-- A Date wraps around its 16 bits; a Date32 keeps the day.
SELECT fromDaysSinceYearZero(0), fromDaysSinceYearZero(800000), fromDaysSinceYearZero(toUInt64(18446744073709551615)), fromDaysSinceYearZero32(0), fromDaysSinceYearZero32(693961), fromDaysSinceYearZero32(2973483);
SELECT number, fromDaysSinceYearZero(toDaysSinceYearZero(toDate('2024-02-27') + number)) AS d, toDaysSinceYearZero(fromDaysSinceYearZero32(693900 + number * 100000)) AS n FROM numbers(5) ORDER BY number;
SELECT fromDaysSinceYearZero(toNullable(719528)) AS a, toTypeName(a), fromDaysSinceYearZero32(CAST(NULL AS Nullable(UInt32)));
SELECT fromDaysSinceYearZero(-1); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT fromDaysSinceYearZero32(toInt64(-5)); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT fromDaysSinceYearZero(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT fromDaysSinceYearZero('5'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toDaysSinceYearZero('2024-01-01'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toDaysSinceYearZero(5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- toYearNumSinceEpoch / toMonthNumSinceEpoch: 0 before 1970.
SELECT toYearNumSinceEpoch(toDate('2024-05-17')) AS a, toTypeName(a), toMonthNumSinceEpoch(toDate('2024-05-17')) AS b, toTypeName(b);
SELECT toYearNumSinceEpoch(toDate32('1950-05-17')), toMonthNumSinceEpoch(toDate32('1969-12-17')), toYearNumSinceEpoch(toDate32('2299-05-17')), toMonthNumSinceEpoch(toDate32('2299-05-17'));
SELECT toMonthNumSinceEpoch(toDateTime('2024-05-31 23:00:00', 'UTC')), toMonthNumSinceEpoch(toDateTime('2024-05-31 23:00:00', 'UTC'), 'Asia/Tokyo'), toYearNumSinceEpoch(toDateTime64('1969-12-31 23:59:59', 0, 'UTC'), 'Asia/Tokyo');
SELECT toYearNumSinceEpoch('2020-01-01'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- LAST_DAY is toLastDayOfMonth; NANOSECOND is toNanosecond.
SELECT LAST_DAY(toDate('2024-02-10')), last_day(toDateTime('2023-02-10 00:00:00', 'UTC')), Last_Day(toDate32('1900-12-31'));
SELECT toNanosecond(toDateTime64('2024-05-17 10:11:12.123456789', 9, 'UTC')) AS a, toTypeName(a), NANOSECOND(toDateTime('2024-05-17 10:11:12', 'UTC')), nanosecond(toDateTime64('1969-12-31 23:59:59.5', 1, 'UTC')), toNanosecond(toDateTime64('2024-05-17 10:11:12.25', 2, 'Asia/Tokyo'));
SELECT toNanosecond(toDate('2024-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- timezoneOffset / timeZoneOffset: seconds east of UTC at that instant.
SELECT timezoneOffset(toDateTime('2024-05-17 10:00:00', 'America/New_York')) AS a, toTypeName(a), timeZoneOffset(toDateTime('2024-01-17 10:00:00', 'America/New_York')), timezoneOffset(toDateTime64('2024-01-17 10:00:00', 3, 'Asia/Kolkata'));
SELECT timezoneOffset(toDateTime('2024-01-01 00:00:00', 'UTC'), 'Asia/Tokyo'), timezoneOffset(toDateTime('1990-06-01 00:00:00', 'Europe/Moscow')), timeZoneOf(toDateTime('2024-01-17 10:00:00', 'Asia/Kolkata'));
SELECT timezoneOffset(toDate('2024-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- UTCTimestamp / UTC_timestamp is now() in UTC; serverTimezone is timezone().
SELECT toTypeName(UTCTimestamp()), toTypeName(UTC_timestamp()), toTypeName(utc_timestamp()), abs(dateDiff('second', UTCTimestamp(), now())) < 5;
SELECT serverTimezone() = timezone(), serverTimeZone() = timezone(), toTypeName(serverTimezone());
SELECT UTCTimestamp('Asia/Tokyo'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT serverTimezone(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
