-- toMillisecond / toMicrosecond: the fraction of the second, in 3 or 6 digits.
SELECT toMillisecond(toDateTime64('2023-05-10 04:05:06.789', 3)) AS a, toTypeName(a), toMicrosecond(toDateTime64('2023-05-10 04:05:06.789123', 6)) AS b, toTypeName(b);
SELECT toMillisecond(toDateTime('2023-05-10 04:05:06')), toMicrosecond(toDateTime('2023-05-10 04:05:06'));
SELECT toMillisecond(toDateTime64('2023-05-10 04:05:06.7891', 4)), toMicrosecond(toDateTime64('2023-05-10 04:05:06.7891', 4));
SELECT toMillisecond(toDateTime64('2023-05-10 04:05:06.7', 1)), toMicrosecond(toDateTime64('2023-05-10 04:05:06.7', 1));
SELECT toMillisecond(toDateTime64('2023-05-10 04:05:06.123456789', 9)), toMicrosecond(toDateTime64('2023-05-10 04:05:06.123456789', 9));
SELECT toMillisecond(toDateTime64('1960-05-10 04:05:06.789', 3)), toMicrosecond(toDateTime64('1960-05-10 04:05:06.789', 3));
SELECT toMillisecond(toDateTime64('2023-05-10 04:05:06.789', 3, 'Asia/Kolkata')), toMicrosecond(toDateTime64('2023-05-10 04:05:06.5', 1, 'America/New_York'));
SELECT toMillisecond(CAST(NULL AS Nullable(DateTime64(3)))), toMillisecond(CAST(toDateTime64('2023-05-10 04:05:06.25', 2) AS Nullable(DateTime64(2))));
SELECT number, toMillisecond(toDateTime64('2023-05-10 04:05:06', 3) + toIntervalMillisecond(number * 137)) AS ms, toMicrosecond(toDateTime64('2023-05-10 04:05:06', 6) + toIntervalMicrosecond(number * 123457)) AS us FROM numbers(10) ORDER BY number;
SELECT MILLISECOND(toDateTime64('2023-05-10 04:05:06.042', 3)), MICROSECOND(toDateTime64('2023-05-10 04:05:06.000042', 6));
SELECT toMillisecond(toDate('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toMicrosecond('2020-01-01 00:00:00'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toMillisecond(123); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
