-- toStartOfInterval with MILLISECOND / MICROSECOND / NANOSECOND (DateTime64 of the interval's scale) and SECOND.. on DateTime64 (DateTime); toStartOfSecond / Millisecond / Microsecond / Nanosecond
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123456789', 9), INTERVAL 1 MILLISECOND) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123456789', 9), INTERVAL 10 MICROSECOND) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123456789', 9), INTERVAL 100 NANOSECOND) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123456789', 9), INTERVAL 1 SECOND) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123456789', 9), INTERVAL 5 SECOND) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123', 3), INTERVAL 1 MICROSECOND) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123', 3), INTERVAL 1 NANOSECOND) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123', 3), INTERVAL 7 MILLISECOND) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123', 3), INTERVAL 1 MINUTE) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123', 3, 'Asia/Kolkata'), INTERVAL 1 SECOND) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05', 0), INTERVAL 1 MILLISECOND) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('1969-12-31 23:59:59.999', 3), INTERVAL 10 MILLISECOND) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123456', 6), INTERVAL 1 MILLISECOND, 'Asia/Tokyo') AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123456', 6), toIntervalMillisecond(250)) AS r;
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123456', 6), INTERVAL 2 HOUR) AS r, toTypeName(r);
SELECT toStartOfInterval(toNullable(toDateTime64('2024-01-02 03:04:05.123456', 6)), INTERVAL 1 MILLISECOND) AS r, toTypeName(r);
SELECT toStartOfInterval(toDateTime('2024-01-02 03:04:05'), INTERVAL 1 MILLISECOND); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toStartOfInterval(toDate('2024-01-02'), INTERVAL 1 MICROSECOND); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toStartOfInterval(toDateTime64('2024-01-02 03:04:05.123456', 6), INTERVAL 0 MILLISECOND); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT t, toStartOfInterval(t, INTERVAL 100 MILLISECOND) AS s FROM (SELECT toDateTime64('2024-01-02 03:04:05', 3) + toIntervalMillisecond(number * 70) AS t FROM numbers(5)) ORDER BY t FORMAT TSVWithNamesAndTypes;
SELECT toStartOfSecond(toDateTime64('2024-01-02 03:04:05.123456', 6)) AS r, toTypeName(r);
SELECT toStartOfMillisecond(toDateTime64('2024-01-02 03:04:05.123456', 6)) AS r, toTypeName(r);
SELECT toStartOfMillisecond(toDateTime64('2024-01-02 03:04:05.1', 1)) AS r, toTypeName(r);
SELECT toStartOfMicrosecond(toDateTime64('2024-01-02 03:04:05.123456789', 9, 'Asia/Tokyo')) AS r, toTypeName(r);
SELECT toStartOfNanosecond(toDateTime64('2024-01-02 03:04:05.123456789', 9)) AS r, toTypeName(r);
SELECT toStartOfSecond(toDateTime64('1969-12-31 23:59:59.5', 1)) AS r, toTypeName(r);
SELECT toStartOfSecond(toDateTime64('2024-01-02 03:04:05.123456', 6), 'Asia/Tokyo') AS r, toTypeName(r);
SELECT toStartOfSecond(toNullable(toDateTime64('2024-01-02 03:04:05.5', 1))) AS r, toTypeName(r);
SELECT toStartOfSecond(toDateTime('2024-01-02 03:04:05')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
