-- parseDateTime64 / OrNull / OrZero: MySQL-style formats into DateTime64(6); %f reads one to six digits.
SELECT parseDateTime64('2024-05-17 10:11:12.345678', '%Y-%m-%d %H:%i:%s.%f', 'UTC') AS a, toTypeName(a), toUnixTimestamp64Micro(a);
SELECT parseDateTime64('2024-05-17 10:11:12.345', '%Y-%m-%d %H:%i:%s.%f', 'Asia/Tokyo') AS a, toTypeName(a), toUnixTimestamp(a), parseDateTime64('2024-05-17 10:11:12.3', '%Y-%m-%d %H:%i:%s.%f', 'UTC'), parseDateTime64('2024-05-17 10:11:12.12a', '%Y-%m-%d %H:%i:%s.%fa', 'UTC');
SELECT parseDateTime64('2024-05-17 10:11:12', '%Y-%m-%d %H:%i:%s', 'UTC'), parseDateTime64('17/05/24 10:11', '%d/%m/%y %H:%i', 'UTC'), parseDateTime64('2024-05-17 10:11:12.5 +0300', '%Y-%m-%d %H:%i:%s.%f %z', 'UTC');
-- Years 0000-9999, before 1970 too.
SELECT parseDateTime64('1960-05-17 10:11:12.5', '%Y-%m-%d %H:%i:%s.%f', 'UTC') AS a, toUnixTimestamp64Micro(a), parseDateTime64('1850-05-17 10:11:12.5', '%Y-%m-%d %H:%i:%s.%f', 'UTC'), parseDateTime64('2300-05-17 10:11:12.5', '%Y-%m-%d %H:%i:%s.%f', 'UTC');
SELECT number, parseDateTime64(concat('2024-02-28 23:59:5', toString(number), '.', repeat('7', number + 1)), '%Y-%m-%d %H:%i:%s.%f', 'Europe/Berlin') AS t FROM numbers(6) ORDER BY number;
SELECT parseDateTime64OrNull('garbage', '%Y-%m-%d %H:%i:%s.%f', 'UTC') AS a, toTypeName(a), parseDateTime64OrNull('2024-05-17 10:11:12.25', '%Y-%m-%d %H:%i:%s.%f', 'UTC') AS b, toTypeName(b);
SELECT parseDateTime64OrZero('garbage', '%Y-%m-%d %H:%i:%s.%f', 'UTC') AS a, toTypeName(a), parseDateTime64OrZero('2024-05-17 10:11:12.25', '%Y-%m-%d %H:%i:%s.%f', 'UTC');
SELECT parseDateTime64OrNull(s, '%Y-%m-%d %H:%i:%s.%f', 'UTC') FROM (SELECT arrayJoin(['2024-01-02 03:04:05.6', '2024-13-02 03:04:05.6', '2024-01-02 03:04:05.', '2024-01-02 03:04:05.1234567']) AS s);
-- parseDateTime reads one to six digits for %f as well, and drops them.
SELECT parseDateTime('2024-05-17 10:11:12.3', '%Y-%m-%d %H:%i:%s.%f', 'UTC'), parseDateTime('2024-05-17 10:11:12.123456', '%Y-%m-%d %H:%i:%s.%f', 'UTC');
SELECT parseDateTime64('2024-05-17 10:11:12.', '%Y-%m-%d %H:%i:%s.%f', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime64('2024-05-17 10:11:12.1234567', '%Y-%m-%d %H:%i:%s.%f', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime64('2024-05-17 10:11:12.345', '%Y-%m-%d %H:%i:%s.%f %z', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime64(1, '%Y', 'UTC'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
