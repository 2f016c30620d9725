-- formatDateTimeInJodaSyntax / fromUnixTimestampInJodaSyntax: Joda patterns as ClickHouse writes them.
SELECT formatDateTimeInJodaSyntax(toDateTime('2024-05-17 00:05:06', 'UTC'), 'yyyy-MM-dd HH:mm:ss a K h k E EEEE MMM MMMM D e w x C G GGGG Y YY yy yyy yyyyy zzzz') AS a, toTypeName(a);
SELECT formatDateTimeInJodaSyntax(toDateTime('2024-05-17 13:05:06', 'Asia/Tokyo'), 'd/M/y H:m:s a K h k'), formatDateTimeInJodaSyntax(toDateTime('2024-05-17 12:00:00', 'UTC'), 'hh a KK kk HH');
-- Quoted text; two quotes are one quote.
SELECT formatDateTimeInJodaSyntax(toDateTime('2024-05-17 13:05:06', 'UTC'), '''year'' yyyy, ''it''''s'' dd '''' ''x-y'' -- ::'), formatDateTimeInJodaSyntax(toDateTime('2024-05-17 13:05:06', 'UTC'), 'yyyy''''MM');
-- Fractions: the leading digits, padded with zeros.
SELECT formatDateTimeInJodaSyntax(toDateTime64('2024-01-01 00:00:00.005', 3, 'UTC'), 'SSS|S|SSSSS'), formatDateTimeInJodaSyntax(toDateTime64('2024-01-01 00:00:00.123', 3, 'UTC'), 'SSS|S|SSSSS'), formatDateTimeInJodaSyntax(toDateTime64('2024-01-01 00:00:00.000123', 6, 'UTC'), 'SSS|SSSSSS|SSSSSSSSS|SSSSSSSSSSS');
SELECT formatDateTimeInJodaSyntax(toDateTime64('1969-12-31 23:59:59.250', 3, 'UTC'), 'yyyy-MM-dd HH:mm:ss.SSS'), formatDateTimeInJodaSyntax(toDateTime('2024-01-01 00:00:00', 'UTC'), 'ss.SSS');
-- Dates (time fields from midnight), other zones, week years.
SELECT formatDateTimeInJodaSyntax(toDate('2024-05-17'), 'yyyy-MM-dd HH:mm:ss a K h k E'), formatDateTimeInJodaSyntax(toDate32('1950-05-17'), 'yyyy-MM-dd HH EEEE MMMM');
SELECT formatDateTimeInJodaSyntax(toDateTime('2024-05-17 13:05:06', 'UTC'), 'yyyy-MM-dd HH:mm zzzz', 'Asia/Kolkata'), formatDateTimeInJodaSyntax(toDateTime64('2024-05-17 13:05:06.5', 1, 'America/New_York'), 'yyyy-MM-dd HH:mm:ss.S zzzz');
SELECT number, formatDateTimeInJodaSyntax(toDate('2020-12-27') + number * 3, 'xxxx-ww-e E D') AS w FROM numbers(6) ORDER BY number;
SELECT formatDateTimeInJodaSyntax(toNullable(toDateTime('2024-05-17 13:05:06', 'UTC')), 'yyyy') AS a, toTypeName(a), formatDateTimeInJodaSyntax(CAST(NULL AS Nullable(DateTime('UTC'))), 'yyyy');
SELECT formatDateTimeInJodaSyntax(toDateTime('2024-05-17 13:05:06', 'UTC'), 'Z'); -- { serverError NOT_IMPLEMENTED }
SELECT formatDateTimeInJodaSyntax(toDateTime('2024-05-17 13:05:06', 'UTC'), 'z'); -- { serverError NOT_IMPLEMENTED }
SELECT formatDateTimeInJodaSyntax(toDateTime('2024-05-17 13:05:06', 'UTC'), 'q'); -- { serverError NOT_IMPLEMENTED }
SELECT formatDateTimeInJodaSyntax(toDateTime('2024-05-17 13:05:06', 'UTC'), 'yyyy ''abc'); -- { serverError BAD_ARGUMENTS }
SELECT formatDateTimeInJodaSyntax(1715950000, 'yyyy'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT formatDateTimeInJodaSyntax(toDateTime('2024-05-17 13:05:06', 'UTC')); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- fromUnixTimestampInJodaSyntax: a DateTime with one argument, text with a format.
SELECT fromUnixTimestampInJodaSyntax(1715950000, 'yyyy-MM-dd HH:mm:ss', 'UTC') AS a, toTypeName(a), fromUnixTimestampInJodaSyntax(1715950000, 'yyyy-MM-dd HH:mm:ss zzzz', 'Asia/Tokyo');
SELECT toTypeName(fromUnixTimestampInJodaSyntax(1715950000)), fromUnixTimestampInJodaSyntax(toDateTime('2024-05-17 13:05:06', 'UTC'), 'yyyy HH');
SELECT number, fromUnixTimestampInJodaSyntax(1700000000 + number * 100000, 'EEE, dd MMM yyyy hh:mm a', 'Europe/London') FROM numbers(4) ORDER BY number;
SELECT fromUnixTimestampInJodaSyntax(1715950000, 'yyyy Z', 'UTC'); -- { serverError NOT_IMPLEMENTED }
