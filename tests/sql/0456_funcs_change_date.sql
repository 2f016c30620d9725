-- changeYear ... changeSecond on Date, Date32, DateTime and DateTime64: types, overflowing days, NULLs; out-of-range components and clamping for Date and DateTime
-- (chdb's Date32/DateTime64 answers there, e.g. 0000-01-01, are not what ClickHouse's current changeDate.cpp does, so they are left out).
DROP TABLE IF EXISTS moments;
CREATE TABLE moments (id UInt32, d Date, d32 Date32, t DateTime('Asia/Tokyo'), t64 DateTime64(3, 'UTC'), v Nullable(Int32)) ENGINE = MergeTree ORDER BY id;
INSERT INTO moments VALUES (1, '2024-02-29', '2024-01-31', '2024-01-31 10:20:30', '2024-01-31 10:20:30.123', 2), (2, '2020-06-15', '1950-03-01', '2020-06-15 23:59:59', '1999-12-31 23:59:59.999', NULL), (3, '2149-01-01', '2299-12-31', '2106-01-01 00:00:00', '2000-01-01 00:00:00.000', 13), (4, '1970-01-01', '1900-01-01', '1970-01-02 00:00:00', '1900-01-01 00:00:00.001', 31);
SELECT id, changeYear(d, 2023), changeYear(d32, 1990), changeYear(t, 2025), changeYear(t64, 2030), changeYear(d, v + 2020) FROM moments ORDER BY id;
SELECT id, changeMonth(d, 2), changeMonth(d32, 11), changeMonth(t, 2), changeMonth(t64, 3), changeDay(d, 31), changeDay(d32, 30), changeDay(t, 0), changeDay(t64, v) FROM moments ORDER BY id;
SELECT id, changeHour(d, 5), changeHour(d32, 23), changeHour(t, 24), changeHour(t64, 7), changeMinute(d, 59), changeMinute(t, 7), changeSecond(t64, 45), changeSecond(t, v) FROM moments ORDER BY id;
SELECT toTypeName(changeYear(d, 1)), toTypeName(changeHour(d, 1)), toTypeName(changeHour(d32, 1)), toTypeName(changeDay(d32, 1)), toTypeName(changeMinute(t, 1)), toTypeName(changeSecond(t64, 1)), toTypeName(changeDay(t, v)) FROM moments LIMIT 1;
SELECT changeYear(toDate('2024-02-29'), 2023), changeMonth(toDateTime('2024-01-31 10:20:30', 'UTC'), 2), changeYear(toDate('2020-01-01'), 3000), changeYear(toDateTime('2020-01-01 00:00:00', 'UTC'), 1969), changeSecond(toDateTime('2024-01-01 00:00:00', 'UTC'), 61);
SELECT changeHour(toDateTime('2020-01-01 00:00:00', 'UTC'), 3.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
