-- parseDateTime / parseDateTimeOrNull / parseDateTimeOrZero: MySQL-style formats, the inverse of formatDateTime.
SELECT parseDateTime('2021-01-04 23:00:00', '%Y-%m-%d %H:%i:%s', 'UTC'), toTypeName(parseDateTime('2021-01-04 23:00:00', '%Y-%m-%d %H:%i:%s', 'UTC')), parseDateTime('2021-01-04 23:00:00', '%Y-%m-%d %H:%i:%s', 'Asia/Tokyo');
SELECT parseDateTime('2021-01-04', '%Y-%m-%d', 'UTC'), parseDateTime('04/01/21', '%d/%m/%y', 'UTC'), parseDateTime('Jan 4 2021 11:05 PM', '%b %e %Y %h:%i %p', 'UTC'), parseDateTime('99-12-31', '%y-%m-%d', 'UTC');
SELECT parseDateTime('January 04, 2021', '%M %d, %Y', 'UTC'), parseDateTime('Monday 2021-01-04', '%W %Y-%m-%d', 'UTC'), parseDateTime('Mon 2021-01-04', '%a %Y-%m-%d', 'UTC');
SELECT parseDateTime('2021', '%Y', 'UTC'), parseDateTime('2021-05', '%Y-%m', 'UTC'), parseDateTime('12:34', '%H:%i', 'UTC'), parseDateTime('', '', 'UTC'), parseDateTime('05', '%m', 'UTC');
SELECT parseDateTime('2021-01-04T23:00:00+0300', '%Y-%m-%dT%H:%i:%s%z', 'UTC'), parseDateTime('2021-01-04 23:00:00.123456', '%Y-%m-%d %H:%i:%s.%f', 'UTC'), parseDateTime('2021-01-04 23:00:00 -0130', '%Y-%m-%d %H:%i:%s %z', 'UTC');
SELECT parseDateTime('2021-004', '%Y-%j', 'UTC'), parseDateTime('01/04/21', '%D', 'UTC'), parseDateTime('2021-01-04 23:05:06', '%F %T', 'UTC'), parseDateTime('23:05', '%R', 'UTC'), parseDateTime('11:05 PM', '%r', 'UTC');
SELECT parseDateTime('2021-01-04 12:00:00 AM', '%Y-%m-%d %h:%i:%s %p', 'UTC'), parseDateTime('2021-01-04 12:00:00 PM', '%Y-%m-%d %I:%i:%s %p', 'UTC'), parseDateTime('2021-01-04 1:02:03 am', '%Y-%m-%d %l:%i:%s %p', 'UTC'), parseDateTime('2021-01-04 12:00:00', '%Y-%m-%d %h:%i:%s', 'UTC');
SELECT parseDateTime('2021-01-04 % x', '%Y-%m-%d %% x', 'UTC'), parseDateTime('20210104', '%Y%m%d', 'UTC'), parseDateTime('2021-01-04 5', '%Y-%m-%d %u', 'UTC'), parseDateTime('2021-W05-3', '%G-W%V-%u', 'UTC'), parseDateTime('2021-01-04 1', '%Y-%m-%d %w', 'UTC');
SELECT parseDateTime('2021-1- 4 3:05:00', '%Y-%c-%e %k:%i:%s', 'UTC'), parseDateTime('2021-1-14 03:05:00', '%Y-%c-%e %k:%i:%s', 'UTC'), parseDateTime('19 2021', '%C %Y', 'UTC'), parseDateTime('2021-01-04\t01', '%Y-%m-%d%t%H', 'UTC');
SELECT parseDateTime('2106-02-07 06:28:16', '%Y-%m-%d %H:%i:%s', 'UTC'), parseDateTime('2021-01-04 23:00:00', '%Y-%m-%d %H:%i:%S', 'UTC');
SELECT parseDateTimeOrNull('garbage', '%Y-%m-%d', 'UTC'), parseDateTimeOrZero('garbage', '%Y-%m-%d', 'UTC'), toTypeName(parseDateTimeOrNull('x', '%Y', 'UTC')), toTypeName(parseDateTimeOrZero('x', '%Y', 'UTC'));
SELECT parseDateTimeOrNull('2021-01-04 23:00:00 extra', '%Y-%m-%d %H:%i:%s', 'UTC'), parseDateTimeOrZero('2021-01-04 23', '%Y-%m-%d %H:%i', 'UTC'), parseDateTimeOrNull('2021-02-29', '%Y-%m-%d', 'UTC'), parseDateTimeOrNull('2020-02-29', '%Y-%m-%d', 'UTC');
SELECT parseDateTime(NULL, '%Y'), parseDateTime(toNullable('2021'), '%Y', 'UTC'), toTypeName(parseDateTime(toNullable('2021'), '%Y', 'UTC')), parseDateTimeOrNull(NULL, '%Y');
SELECT s, parseDateTimeOrNull(s, '%Y-%m-%d', 'UTC'), parseDateTimeOrZero(s, '%Y-%m-%d', 'UTC') FROM (SELECT arrayJoin(['2021-01-04', '2022-12-31', 'x', '2021-13-01', '']) AS s) ORDER BY s;
SELECT parseDateTime(formatDateTime(toDateTime('2023-07-08 09:10:11', 'UTC'), '%Y-%m-%d %H:%i:%s'), '%Y-%m-%d %H:%i:%s', 'UTC');
SELECT parseDateTime('2021-1-4 3:0:0', '%Y-%c-%e %k:%i:%s', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime('2021-01-04 23:00:00 extra', '%Y-%m-%d %H:%i:%s', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime('2021-02-30', '%Y-%m-%d', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime('2021-13-01', '%Y-%m-%d', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime('1969-12-31 23:59:59', '%Y-%m-%d %H:%i:%s', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime('20a1-01-04', '%Y-%m-%d', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime('2021-01-04 25:00:00', '%Y-%m-%d %H:%i:%s', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime('20', '%Y', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime('2021-01-04 23:00', '%Y-%m-%d %H:%M', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime('1970-01-01 00:00:00', '%Y-%m-%d %H:%i:%s', 'Asia/Tokyo'); -- { serverError VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE }
SELECT parseDateTime('2021-01-04', '%Y-%m-%d %Q', 'UTC'); -- { serverError NOT_IMPLEMENTED }
SELECT parseDateTime('2021-01-04', '%Y-%m-%d %A', 'UTC'); -- { serverError BAD_ARGUMENTS }
SELECT parseDateTime('2021-01-04', '%Y-%m-%d%', 'UTC'); -- { serverError BAD_ARGUMENTS }
SELECT parseDateTime('2021-01-04', materialize('%Y-%m-%d'), 'UTC'); -- { serverError ILLEGAL_COLUMN }
SELECT parseDateTime('2021-01-04 23:00:00', '%Y-%m-%d %H:%i:%s', materialize('UTC')); -- { serverError ILLEGAL_COLUMN }
SELECT parseDateTime(1, '%Y'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT parseDateTime('2021-01-04', '%Y-%m-%d', 'UTC', 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT parseDateTime(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
