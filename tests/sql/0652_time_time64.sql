-- Time and Time64(p): signed durations up to 999:59:59, their conversions, arithmetic,
-- comparisons, tables and text formats.
SELECT toTime('12:34:56'), toTypeName(toTime('12:34:56')), toTime('1:02:03'), toTime('-01:02:03'), toTime('999:59:59');
SELECT toTime('12:34'), toTime('12'), toTime('12:60'), toTime('12:34:99');
SELECT toTime(-5), toTime(3600000), toTime(1e10), toTime(12.7), toTime(toInt64(-3599999)), toTime(true);
SELECT toTime64('12:34:56.123456', 3), toTypeName(toTime64('12:34:56.123456', 3)), toTime64('12:34:56', 6), toTime64('-999:59:59.999999999', 9);
SELECT toTime64(12.345, 2), toTime64(-1.5, 3), toTime64('-12:00:00.5', 1), toTime64(1e12, 3), toTime64('03.5', 3);
SELECT toTimeOrNull('abc'), toTimeOrZero('abc'), toTime64OrNull('abc', 3), toTime64OrZero('x', 2), toTypeName(toTimeOrNull('abc'));
SELECT toTime(NULL), toTime(toNullable('01:00:00')), toTypeName(toTime(toNullable('01:00:00')));
SELECT toTime('3600'); -- { serverError CANNOT_PARSE_TEXT }
SELECT toTime(' 12:34:56'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT toTime('12:34:56.7'); -- { serverError CANNOT_PARSE_TEXT }
SELECT toTime(''); -- { serverError CANNOT_PARSE_DATETIME }
SELECT toTime(toDecimal32(1.5, 1)); -- { serverError ILLEGAL_COLUMN }

SELECT CAST('01:02:03' AS Time), CAST('-01:02:03.25' AS Time64(2)), CAST(toTime('12:00:00') AS Time64(2)), toTime64(toTime64('1:00:00.1234', 6), 3);
SELECT CAST(toTime64('10:00:00.999', 3) AS Time); -- { serverError CANNOT_CONVERT_TYPE }
SELECT toTime('12:34:56')::String, toTime('12:34:56')::Int32, toTime64('12:34:56.5', 3)::Float64, toTime64('-1:00:00.5', 3)::Int64, toTime64('1:00:00.5', 3)::Decimal(10, 2);
SELECT toTime('12:34:56')::DateTime('UTC'), toTime64('-1:00:00.5', 3)::DateTime64(3, 'UTC');
SELECT toTime(toDateTime('2024-01-01 12:34:56', 'Asia/Tokyo')), toTime(toDateTime64('1969-12-31 23:00:00.5', 3, 'UTC')), toTime64(toDateTime64('2024-01-01 12:34:56.789', 3, 'UTC'), 1), toTime(toDate('2024-01-01'));

SELECT toTime('25:00:00') + 10, toTypeName(toTime('25:00:00') + 10), 10 + toTime('01:00:00'), toTime('01:00:00') - 7200, toTime('10:00:00') - 1.5;
SELECT toTime('01:00:00') - toTime('00:30:00'), toTypeName(toTime('01:00:00') - toTime('00:30:00'));
SELECT toTime64('12:34:56.123', 3) - toTime64('00:00:00.1', 1), toTypeName(toTime64('12:34:56.123', 3) - toTime64('00:00:00.1', 1));
SELECT toTime64('10:00:00.5', 1) - toTime('09:00:00'), toTypeName(toTime64('10:00:00.5', 1) - toTime('09:00:00'));
SELECT toTime('998:00:00') + INTERVAL 5 HOUR, (toTime('998:00:00') + INTERVAL 5 HOUR)::Int32, toTime('999:59:59') + 1;
SELECT toTime('10:00:00') + INTERVAL 30 MINUTE, toTime('10:00:00') + INTERVAL 1 SECOND, toTime('10:00:00') - INTERVAL 2 HOUR, toTypeName(toTime('10:00:00') + INTERVAL 2 HOUR);
SELECT toTime64('10:00:00', 3) + INTERVAL 5 MILLISECOND, toTime64('10:00:00', 3) + INTERVAL 1 MICROSECOND, toTypeName(toTime64('10:00:00', 3) + INTERVAL 1 MICROSECOND);
SELECT toTime('10:00:00') + INTERVAL 1 DAY; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toTime('10:00:00') + INTERVAL 5 MILLISECOND; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toTime('10:00:00') + toTime('01:00:00'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toTime('10:00:00') * 2; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }

SELECT toTime('10:00:00') > toTime('09:00:00'), toTime('10:00:00') = '10:00:00', toTime('10:00:00') < 40000, toTime('10:00:00') = 36000, toTime64('10:00:00.5', 1) > toTime('10:00:00'), toTime64('10:00:00.5', 1) = 36000.5;
SELECT [toTime('1:00:00'), toTime64('1:00:00', 3)], toTypeName([toTime('1:00:00'), toTime64('1:00:00', 3)]);

CREATE TABLE t_mt (k UInt32, t Time, t3 Time64(3), tn Nullable(Time), t9 Time64(9)) ENGINE = MergeTree ORDER BY t;
CREATE TABLE t_mem (k UInt32, t Time, t3 Time64(3), tn Nullable(Time), t9 Time64(9)) ENGINE = Memory;
INSERT INTO t_mt VALUES (1, '10:00:00', '-1:00:00.5', NULL, '00:00:00.123456789'), (2, '999:59:59', '00:00:00.001', '12:00:00', '-100:00:00.000000001');
INSERT INTO t_mt FORMAT TSV 3	01:02:03	3.5	\N	1:00:00
;
INSERT INTO t_mt FORMAT CSV 4,"-00:00:01","25:00:00.25","02:00:00","0"
;
INSERT INTO t_mt FORMAT JSONEachRow {"k": 5, "t": "100:00:00", "t3": "59", "tn": null, "t9": "12:34:56.5"}
;
INSERT INTO t_mem SELECT * FROM t_mt;
SELECT * FROM t_mt ORDER BY t;
SELECT * FROM t_mem ORDER BY t3 DESC;
SELECT k, t FROM t_mt WHERE t > toTime('05:00:00') ORDER BY k;
SELECT k FROM t_mt WHERE t3 < 0 ORDER BY k;
SELECT min(t), max(t), min(t3), max(t3), max(t9), toTypeName(max(t3)), toTypeName(min(tn)) FROM t_mt;
SELECT t + 1, t3 - 1, t3 + INTERVAL 1 SECOND FROM t_mem ORDER BY k;
SELECT k, t, t3, tn FROM t_mt ORDER BY k FORMAT CSV;
SELECT k, t, t3, tn FROM t_mt ORDER BY k FORMAT JSONEachRow;
SELECT k, t, t3, tn FROM t_mt ORDER BY k FORMAT Values;
SELECT k, t, t3 FROM t_mt WHERE k < 3 ORDER BY k FORMAT Pretty;
SELECT k, t3 FROM t_mt WHERE k = 1 FORMAT JSON SETTINGS output_format_write_statistics = 0;
SELECT k, t, t3 FROM t_mt ORDER BY k FORMAT TSVWithNamesAndTypes;
DESCRIBE TABLE t_mt;

SELECT toTime('01:00:00') AS t FORMAT Parquet; -- { serverError UNKNOWN_TYPE }
SET enable_time_time64_type = 0;
CREATE TABLE t_off (t Time) ENGINE = Memory; -- { serverError ILLEGAL_COLUMN }
CREATE TABLE t_off (a Array(Nullable(Time64(3)))) ENGINE = Memory; -- { serverError ILLEGAL_COLUMN }
SELECT toTime('01:00:00');
SET enable_time_time64_type = 1;
