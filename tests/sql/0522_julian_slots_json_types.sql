-- Modified Julian Days, timeSlots, toColumnTypeName and toJSONString over constants, columns and NULLs.
CREATE TABLE t (id UInt32, d String, nd Nullable(String), mjd Int64, nmjd Nullable(Int32), dt DateTime('UTC'), dt64 DateTime64(3, 'UTC'), dur UInt32) ENGINE = MergeTree ORDER BY id;
INSERT INTO t VALUES (1, '2020-01-01', '1858-11-17', 58849, 0, '2012-01-01 12:20:00', '2012-01-01 12:20:00.500', 600), (2, '0000-01-01', NULL, -678941, NULL, '1980-12-12 21:01:02', '1980-12-12 21:01:02.123', 0), (3, '9999-12-31', '2000-02-29', 2973483, -1, '2000-01-01 00:00:00', '2000-01-01 00:00:00.000', 3600), (4, '2020-02-30', 'bad', 1, 100, '2024-02-29 23:59:59', '2024-02-29 23:59:59.999', 1);
SELECT toModifiedJulianDay('2020-01-01'), toModifiedJulianDay(toFixedString('2020-01-01', 10)), toModifiedJulianDay('1858-11-16'), toTypeName(toModifiedJulianDay('2020-01-01'));
SELECT toModifiedJulianDayOrNull('2020-02-30'), toModifiedJulianDayOrNull('2020-01-01'), toModifiedJulianDayOrNull(toNullable('2020-01-01')), toModifiedJulianDay(toNullable('2020-01-01')), toModifiedJulianDayOrNull(NULL), toTypeName(toModifiedJulianDayOrNull('x'));
SELECT fromModifiedJulianDay(58849), fromModifiedJulianDay(-678941), fromModifiedJulianDay(2973483), fromModifiedJulianDay(toUInt8(5)), fromModifiedJulianDayOrNull(2973484), fromModifiedJulianDayOrNull(-1000000000), toTypeName(fromModifiedJulianDayOrNull(1)), fromModifiedJulianDay(toNullable(1));
SELECT id, toModifiedJulianDayOrNull(d), toModifiedJulianDayOrNull(nd), fromModifiedJulianDay(mjd), fromModifiedJulianDay(nmjd), fromModifiedJulianDayOrNull(mjd * 1000) FROM t ORDER BY id;
SELECT id, toModifiedJulianDay(d) FROM t WHERE id != 4 ORDER BY id;
SELECT toModifiedJulianDay('bad'); -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT toModifiedJulianDay('2020-01-01 '); -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT toModifiedJulianDay('20200101'); -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT toModifiedJulianDay(''); -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT toModifiedJulianDay('2020-02-30'); -- { serverError CANNOT_PARSE_DATE }
SELECT toModifiedJulianDay(d) FROM t; -- { serverError CANNOT_PARSE_DATE }
SELECT toModifiedJulianDay(toDate('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT fromModifiedJulianDay(-678942); -- { serverError CANNOT_FORMAT_DATETIME }
SELECT fromModifiedJulianDay(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT fromModifiedJulianDay('1'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT timeSlots(toDateTime('2012-01-01 12:20:00', 'UTC'), toUInt32(600)), timeSlots(toDateTime('1980-12-12 21:01:02', 'UTC'), toUInt32(600), 299), timeSlots(toDateTime('2012-01-01 12:20:00', 'UTC'), toUInt32(600), toUInt64(300));
SELECT timeSlots(toDateTime64('1980-12-12 21:01:02.1234', 4, 'UTC'), toDecimal64(600.1, 1), toDecimal64(299, 0)) AS x, toTypeName(x);
SELECT timeSlots(toDateTime64('2012-01-01 12:20:00.5', 1, 'UTC'), toDecimal64(600, 0), toDecimal64(300.25, 2)) AS x, toTypeName(x);
SELECT timeSlots(toDateTime64('2012-01-01 12:20:00.5', 1, 'UTC'), toDecimal64(600.123, 3)) AS x, toTypeName(x);
SELECT id, timeSlots(dt, dur), timeSlots(dt, dur, 60), timeSlots(dt64, toDecimal64(dur, 0), toDecimal64(60.5, 1)) FROM t WHERE id != 3 ORDER BY id;
SELECT id, length(timeSlots(dt, toUInt32(dur * 100), 7)) FROM t ORDER BY id;
SELECT timeSlots(toDateTime('2012-01-01 12:20:00', 'UTC'), 600); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT timeSlots(toDateTime('2012-01-01 12:20:00', 'UTC'), toUInt32(600), 0); -- { serverError ILLEGAL_COLUMN }
SELECT timeSlots(toDateTime('2012-01-01 12:20:00', 'UTC'), toUInt32(600), -5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT timeSlots(toDate('2012-01-01'), toUInt32(600)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT timeSlots(toDateTime64('2012-01-01 12:20:00.5', 1, 'UTC'), 600); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT timeSlots(toDateTime('2012-01-01 12:20:00', 'UTC'), toUInt32(600), 300, 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT toColumnTypeName(1), toColumnTypeName((1, 'a')), toColumnTypeName([1, 2]), toColumnTypeName(toNullable(1)), toColumnTypeName(NULL);
SELECT toColumnTypeName(materialize(toDate('2020-01-01'))), toColumnTypeName(materialize(toNullable(1))), toColumnTypeName(materialize('a')), toColumnTypeName(materialize([1])), toColumnTypeName(materialize(toDecimal64(1, 2))), toColumnTypeName(materialize(toFixedString('a', 2))), toColumnTypeName(materialize(true));
SELECT toColumnTypeName(materialize(toDateTime64(1, 3))), toColumnTypeName(materialize(1.5)), toColumnTypeName(materialize(toDecimal128(1, 2))), toColumnTypeName(materialize(toDate32('2020-01-01'))), toColumnTypeName(materialize(toIPv4('1.1.1.1'))), toColumnTypeName(materialize(CAST('a' AS Enum8('a' = 1))));
SELECT toColumnTypeName(id), toColumnTypeName(d), toColumnTypeName(nd), toColumnTypeName(nmjd), toColumnTypeName(dt), toColumnTypeName(dt64), toColumnTypeName((id, d)), toColumnTypeName([nd]) FROM t WHERE id = 1;
SELECT toJSONString(map('a', 1)), toJSONString([1, 2]), toJSONString(tuple(1, 'a')), toJSONString(1), toJSONString('x"y'), toJSONString(NULL), toJSONString(toDate('2020-01-01')), toJSONString(1.5);
SELECT toJSONString(toUInt64(123)), toJSONString(CAST((1, 'a') AS Tuple(x Int32, y String))), toJSONString(toNullable(1)), toTypeName(toJSONString(toNullable(1))), toJSONString(map('a', NULL)), toJSONString(nan), toJSONString(toDecimal32(1.5, 2));
SELECT toJSONString(toFixedString('a', 2)), toJSONString([('a', 1)]), toJSONString('a/b'), toJSONString(toUUID('00000000-0000-0000-0000-000000000001')), toJSONString(true), toJSONString(toInt64(-5)), toJSONString(toUInt64(18446744073709551615));
SELECT id, toJSONString(d), toJSONString(nd), toJSONString(nmjd), toJSONString(dt), toJSONString(dt64), toJSONString((id, d, [nd])), toJSONString(map(d, nmjd)) FROM t ORDER BY id;
