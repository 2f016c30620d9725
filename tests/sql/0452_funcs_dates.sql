-- toStartOfISOYear, toDaysInMonth, timezoneOf.
DROP TABLE IF EXISTS days;
CREATE TABLE days (d Date, t DateTime('Asia/Tokyo'), n Nullable(Date)) ENGINE = MergeTree ORDER BY d;
INSERT INTO days VALUES ('2024-01-01', '2021-01-02 10:00:00', '2020-02-10'), ('2021-01-03', '2021-01-04 00:00:00', NULL), ('2023-02-15', '2019-12-29 23:59:59', '2023-12-31');
SELECT d, toStartOfISOYear(d), toStartOfISOYear(t), toStartOfISOYear(n), toDaysInMonth(d), toDaysInMonth(t), toDaysInMonth(n), timezoneOf(t) FROM days ORDER BY d;
SELECT toTypeName(toStartOfISOYear(t)), toTypeName(toDaysInMonth(n)), toTypeName(timezoneOf(t)) FROM days LIMIT 1;
SELECT toStartOfISOYear(toDate32('2010-06-01')), toDaysInMonth(toDate('2024-02-03')), timezoneOf(toDateTime64('2020-01-01 00:00:00', 3, 'UTC')), timezoneOf(toDateTime('2020-01-01', 'Europe/Berlin'));
SELECT timezoneOf(toDate('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
