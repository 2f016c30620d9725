-- makeDateTime64(y, m, d, h, mi, s[, fraction[, precision[, tz]]]): fields as Float32, ClickHouse's range rules.
SELECT makeDateTime64(2024, 5, 17, 10, 11, 12, 345, 6, 'Asia/Tokyo') AS a, toTypeName(a), toUnixTimestamp(a);
SELECT makeDateTime64(2024, 5, 17, 10, 11, 12, 345, 6, 'UTC') AS a, toTypeName(a), makeDateTime64(2024, 5, 17, 10, 11, 12, 345, 0, 'UTC') AS b, toTypeName(b), makeDateTime64(2024, 5, 17, 10, 11, 12, 5, 9, 'UTC') AS c;
-- A day past the month's end runs on; hours, minutes and seconds up to 99 carry over.
SELECT makeDateTime64(2024, 2, 30, 10, 11, 12, 1, 3, 'UTC'), makeDateTime64(2024, 2, 3, 25, 11, 12, 1, 3, 'UTC'), makeDateTime64(2299, 12, 31, 23, 59, 99, 1, 3, 'UTC');
-- Out of range: the first second of 1900 (no fraction) or the last of 2299 (the largest fraction).
SELECT makeDateTime64(1950, 13, 17, 10, 11, 12, 1, 3, 'UTC'), makeDateTime64(1850, 1, 17, 10, 11, 12, 1, 3, 'UTC'), makeDateTime64(2500, 2, 3, 5, 11, 12, 1, 3, 'UTC'), makeDateTime64(2300, 1, 1, 0, 0, 0, 5, 0, 'UTC');
SELECT makeDateTime64(2024, 12.5, 1, 0, 0, 0, 1, 3, 'UTC'), makeDateTime64(2024, 2, 3, 5, 11, 100, 1, 3, 'UTC'), makeDateTime64(2024, 1, 1, 0, 0, 0, nan, 3, 'UTC');
-- Fractions are clamped to [0, 10^p - 1] and truncated; fractional fields are truncated.
SELECT makeDateTime64(2024, 5, 17, 10, 11, 12, 12345678, 3, 'UTC'), makeDateTime64(2024, 2, 3, 5, 11, 12, -1, 3, 'UTC'), makeDateTime64(2024, 1, 1, 0, 0, 0, 5.7, 3, 'UTC'), makeDateTime64(2024.7, 2.9, 3, 5, 11, 12.9, 1.9, 3, 'UTC');
SELECT makeDateTime64(1950, 1, 1, 0, 0, 0, 5, 3, 'UTC'), makeDateTime64(1969, 12, 31, 23, 59, 59, 250, 3, 'UTC'), makeDateTime64(2024, 5, 17, 1, 2, 3, 45, 2, 'UTC') AS a, toTypeName(a), makeDateTime64(1960, 5, 17, 1, 2, 3, 4567, 5, 'UTC') AS b, makeDateTime64(2024, 5, 17, 1, 2, 3, 1234567, 7, 'UTC') AS c;
SELECT number, makeDateTime64(2024, 1 + number, 28 + number, number * 7, number * 13, number * 17, number * 111, 3, 'Europe/Berlin') AS t FROM numbers(6) ORDER BY number;
SELECT makeDateTime64(2024, 2, 3, 5, 11, toNullable(12), 5, 3, 'UTC') AS a, toTypeName(a), makeDateTime64(2024, 2, 3, 5, 11, 12, CAST(NULL AS Nullable(UInt8)), 3, 'UTC') AS b;
SELECT makeDateTime64(2300, 1, 1, 0, 0, 0, 5, 9, 'UTC'); -- { serverError DECIMAL_OVERFLOW }
SELECT makeDateTime64(2024, 2, 3, 5, 11, 12, 1, 10); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT makeDateTime64(2024, 2, 3, 5, 11, '12'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT makeDateTime64(2024, 2, 3, 5, 11, 12, 1, materialize(3)); -- { serverError ILLEGAL_COLUMN }
SELECT makeDateTime64(2024, 2, 3, 5, 11, 12, 1, 3, 5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT makeDateTime64(2024, 2, 3, 5, 11); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT makeDateTime64(2024, 2, 3, 5, 11, 12, 1, 3, 'UTC', 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT makeDateTime64(2024, 2, 3, 5, 11, 12, 1, 3, 'Bad/Zone'); -- { serverError BAD_ARGUMENTS }
-- makeDateTime follows the same rules, clamped to DateTime's range.
SELECT makeDateTime(2024, 2, 30, 10, 11, 12, 'UTC'), makeDateTime(2024, 2, 3, 25, 11, 12, 'UTC'), makeDateTime(2024, 13, 3, 5, 11, 12, 'UTC'), makeDateTime(1960, 1, 3, 5, 11, 12, 'UTC'), makeDateTime(2200, 1, 3, 5, 11, 12, 'UTC'), makeDateTime(2024, 2, 3, 100, 11, 12, 'UTC');
SELECT makeDateTime(2024, 5, 17, 10, 11, 12, 'Asia/Tokyo') AS a, toTypeName(a), toUnixTimestamp(a), makeDateTime(2024.9, 5.9, 17.9, 10.9, 11.9, 12.9, 'UTC');
-- YYYYMMDDToDate / YYYYMMDDToDate32: rounded; a day the type cannot name is 1970-01-01.
SELECT YYYYMMDDToDate(20240517) AS a, toTypeName(a), YYYYMMDDToDate(20240230), YYYYMMDDToDate(21490606), YYYYMMDDToDate(21490607), YYYYMMDDToDate(19691231), YYYYMMDDToDate(20241317), YYYYMMDDToDate(20240517.6);
SELECT YYYYMMDDToDate32(19500101) AS a, toTypeName(a), YYYYMMDDToDate32(23000101), YYYYMMDDToDate32(18000101), YYYYMMDDToDate32(99991231), YYYYMMDDToDate32(100001231), YYYYMMDDToDate32(00010101);
SELECT yyyymmddtodate(20240517), YYYYMMDDTODATE32(20240517), number, YYYYMMDDToDate(20240227 + number) FROM numbers(5) ORDER BY number;
SELECT YYYYMMDDToDate(nan); -- { serverError BAD_ARGUMENTS }
SELECT YYYYMMDDToDate('20240101'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- YYYYMMDDhhmmssToDateTime / YYYYMMDDhhmmssToDateTime64.
SELECT YYYYMMDDhhmmssToDateTime(20240517101112, 'Asia/Tokyo') AS a, toTypeName(a), toUnixTimestamp(a), YYYYMMDDhhmmssToDateTime(20240517251112, 'UTC'), YYYYMMDDhhmmssToDateTime(19600517101112, 'UTC'), yyyymmddhhmmsstodatetime(20240517101112, 'UTC');
SELECT YYYYMMDDhhmmssToDateTime64(20240517101112.5, 3, 'UTC') AS a, toTypeName(a), YYYYMMDDhhmmssToDateTime64(20240517101112.25, 6, 'Asia/Tokyo') AS b, toTypeName(b), YYYYMMDDhhmmssToDateTime64(20240517101112.7, 0, 'UTC');
SELECT YYYYMMDDhhmmssToDateTime64(19500517101112, 2, 'UTC'), YYYYMMDDhhmmssToDateTime64(23500517101112, 2, 'UTC'), toTypeName(YYYYMMDDhhmmssToDateTime64(20240517101112));
SELECT YYYYMMDDhhmmssToDateTime(inf); -- { serverError BAD_ARGUMENTS }
SELECT YYYYMMDDhhmmssToDateTime64(20240517101112, 10); -- { serverError ARGUMENT_OUT_OF_BOUND }
