-- Snowflake ids to times: milliseconds since the epoch argument (the Unix epoch by default) in the top 41 bits.
SELECT snowflakeIDToDateTime(7204436857747984384) AS a, toTypeName(a), snowflakeIDToDateTime64(7204436857747984384) AS b, toTypeName(b);
SELECT snowflakeIDToDateTime(7204436857747984384, 1288834974657, 'UTC') AS a, toTypeName(a), snowflakeIDToDateTime64(7204436857747984384, 1288834974657, 'UTC') AS b, toTypeName(b), snowflakeIDToDateTime64(toUInt64(7204436857747984384), 0, 'Asia/Tokyo') AS c, toTypeName(c);
SELECT snowflakeIDToDateTime(toUInt64(-1)), snowflakeIDToDateTime64(toUInt64(-1)), snowflakeIDToDateTime(toUInt64(7204436857747984384), toUInt8(5), 'UTC');
SELECT snowflakeIDToDateTime(toNullable(toUInt64(7204436857747984384))) AS a, toTypeName(a);
SELECT number, snowflakeIDToDateTime(toUInt64(number * 4194304000), 0, 'UTC'), snowflakeIDToDateTime64(toUInt64(number * 4194304000 + 4194304 * 7), 0, 'UTC') FROM numbers(3) ORDER BY number;
SELECT snowflakeIDToDateTime(toInt64(7204436857747984384)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT snowflakeIDToDateTime('1'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT snowflakeIDToDateTime(toUInt64(7204436857747984384), -5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT snowflakeIDToDateTime(toUInt64(7204436857747984384), 'UTC'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT snowflakeIDToDateTime(toUInt64(7204436857747984384), materialize(toUInt64(5))); -- { serverError ILLEGAL_COLUMN }
-- Times to Snowflake ids (machine 0, sequence 0).
SELECT dateTimeToSnowflakeID(toDateTime('2021-08-15 18:57:56', 'UTC')) AS a, toTypeName(a), dateTimeToSnowflakeID(toDateTime('2021-08-15 18:57:56', 'UTC'), 0), dateTimeToSnowflakeID(toDateTime('2021-08-15 18:57:56', 'UTC'), 1288834974657000);
SELECT dateTime64ToSnowflakeID(toDateTime64('2021-08-15 18:57:56.492', 3, 'UTC')) AS a, toTypeName(a), dateTime64ToSnowflakeID(toDateTime64('2021-08-15 18:57:56.492', 3, 'UTC'), 1288834974657);
SELECT dateTime64ToSnowflakeID(toDateTime64('2021-08-15 18:57:56.492123', 6, 'UTC')), dateTime64ToSnowflakeID(toDateTime64('2021-08-15 18:57:56.492', 1, 'UTC')), dateTime64ToSnowflakeID(toDateTime64('2021-08-15 18:57:56.492', 0, 'UTC')), dateTime64ToSnowflakeID(toDateTime64('1969-12-31 23:59:59.5', 3, 'UTC'));
SELECT dateTimeToSnowflakeID(toDateTime('1970-01-01 00:00:00', 'UTC')), snowflakeIDToDateTime(dateTimeToSnowflakeID(toDateTime('2024-05-17 10:11:12', 'UTC')), 0, 'UTC'), snowflakeIDToDateTime64(dateTime64ToSnowflakeID(toDateTime64('2024-05-17 10:11:12.345', 3, 'UTC'), 1288834974657), 1288834974657, 'UTC');
SELECT dateTimeToSnowflakeID(toDate('2021-08-15')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTime64ToSnowflakeID(toDateTime('2021-08-15 18:57:56', 'UTC')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTimeToSnowflakeID(toDateTime64('2021-08-15 18:57:56', 3, 'UTC')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTimeToSnowflakeID(toDateTime('2021-08-15 18:57:56', 'UTC'), -5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- generateSnowflakeID: increasing and distinct, the machine id in bits 12..21, the time near now.
SELECT toTypeName(generateSnowflakeID()), toTypeName(generateSnowflakeID(1)), toTypeName(generateSnowflakeID(1, 2));
SELECT bitAnd(bitShiftRight(generateSnowflakeID(1, 5), 12), 1023), bitAnd(bitShiftRight(generateSnowflakeID(1, 2000), 12), 1023), bitAnd(bitShiftRight(generateSnowflakeID(), 12), 1023);
SELECT count(), uniqExact(x) FROM (SELECT generateSnowflakeID(number) AS x FROM numbers(10000));
SELECT arraySort(xs) = xs FROM (SELECT arrayMap(p -> p.2, arraySort(groupArray((number, generateSnowflakeID(number))))) AS xs FROM numbers(10000));
SELECT abs(toInt64(bitShiftRight(generateSnowflakeID(), 22)) - toInt64(toUnixTimestamp64Milli(now64()))) < 60000;
SELECT generateSnowflakeID(1, 2, 3); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT generateSnowflakeID(1, 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT generateSnowflakeID(1, materialize(toUInt8(3))); -- { serverError ILLEGAL_COLUMN }
-- UUIDv7: version 7, variant 10, the time in the top 48 bits; generated ones increase.
SELECT UUIDv7ToDateTime(toUUID('018f05c9-4ab8-7b86-b64e-c9f03fbd45d1')) AS a, toTypeName(a), UUIDv7ToDateTime(toUUID('018f05c9-4ab8-7b86-b64e-c9f03fbd45d1'), 'America/New_York') AS b, toTypeName(b);
SELECT UUIDv7ToDateTime(toUUID('018f05c9-4ab8-4b86-b64e-c9f03fbd45d1')), UUIDv7ToDateTime(toNullable(toUUID('018f05c9-4ab8-7b86-b64e-c9f03fbd45d1'))) AS n, toTypeName(n);
SELECT toTypeName(generateUUIDv7()), toTypeName(generateUUIDv7(1)), substring(toString(generateUUIDv7()), 15, 1), substring(toString(generateUUIDv7()), 20, 1) IN ('8', '9', 'a', 'b');
SELECT count(), uniqExact(u), countIf(substring(u, 15, 1) = '7'), countIf(substring(u, 20, 1) IN ('8', '9', 'a', 'b')) FROM (SELECT toString(generateUUIDv7(number)) AS u FROM numbers(10000));
SELECT arraySort(us) = us FROM (SELECT arrayMap(p -> p.2, arraySort(groupArray((number, toString(generateUUIDv7(number)))))) AS us FROM numbers(10000));
SELECT abs(timeDiff(UUIDv7ToDateTime(generateUUIDv7(), 'UTC'), now())) < 60;
SELECT toTypeName(dateTimeToUUIDv7(toDateTime('2021-08-15 18:57:56', 'UTC')) AS u), UUIDv7ToDateTime(u, 'UTC'), substring(toString(u), 1, 13), substring(toString(u), 15, 1);
SELECT count(), uniqExact(u), min(UUIDv7ToDateTime(u, 'UTC')), max(UUIDv7ToDateTime(u, 'UTC')) FROM (SELECT dateTimeToUUIDv7(toDateTime('2024-01-01 00:00:00', 'UTC') + intDiv(number, 100)) AS u FROM numbers(1000));
SELECT UUIDv7ToDateTime('018f05c9-4ab8-7b86-b64e-c9f03fbd45d1'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTimeToUUIDv7(toDate('2021-08-15')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dateTimeToUUIDv7(toDateTime('2021-08-15 18:57:56', 'UTC'), 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT generateUUIDv7(1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT name FROM system.functions WHERE name IN ('snowflakeIDToDateTime', 'snowflakeIDToDateTime64', 'dateTimeToSnowflakeID', 'dateTime64ToSnowflakeID', 'generateSnowflakeID', 'generateUUIDv7', 'UUIDv7ToDateTime', 'dateTimeToUUIDv7') ORDER BY name;
