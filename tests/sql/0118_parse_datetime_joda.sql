-- parseDateTimeInJodaSyntax, -OrNull, -OrZero: Joda pattern letters as ClickHouse reads them (G C Y x w e E y D M d a K h H k m s S Z z, quoted literals), their range checks and errors.
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31', 'yyyy-MM-dd HH:mm:ss', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31', 'yyyy-MM-dd HH:mm:ss', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31.123', 'yyyy-MM-dd HH:mm:ss.SSS', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31.123', 'yyyy-MM-dd HH:mm:ss.SSS', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31 +0300', 'yyyy-MM-dd HH:mm:ss Z', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31 +0300', 'yyyy-MM-dd HH:mm:ss Z', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31 UTC', 'yyyy-MM-dd HH:mm:ss z', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31 UTC', 'yyyy-MM-dd HH:mm:ss z', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31 Europe/Moscow', 'yyyy-MM-dd HH:mm:ss ZZZ', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('AD 2023-02-24', 'G yyyy-MM-dd', 'UTC');
SELECT parseDateTimeInJodaSyntax('AD 2023-02-24', 'G yyyy-MM-dd', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('BC 2023-02-24', 'G yyyy-MM-dd', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('XX 2023-02-24', 'G yyyy-MM-dd', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('20 23', 'CC yy', 'UTC');
SELECT parseDateTimeInJodaSyntax('20 23', 'CC yy', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023 10 5', 'xxxx ww e', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023 10 5', 'xxxx ww e', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023 055', 'yyyy DDD', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023 055', 'yyyy DDD', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('Fri 2023 8 5', 'EEE xxxx w e', 'UTC');
SELECT parseDateTimeInJodaSyntax('Fri 2023 8 5', 'EEE xxxx w e', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('Friday 2023 8', 'EEEE xxxx w', 'UTC');
SELECT parseDateTimeInJodaSyntax('Friday 2023 8', 'EEEE xxxx w', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('February 5 2023', 'MMMM d yyyy', 'UTC');
SELECT parseDateTimeInJodaSyntax('February 5 2023', 'MMMM d yyyy', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('Feb 5, 2023 3:04:05 PM', 'MMM d, yyyy h:mm:ss a', 'UTC');
SELECT parseDateTimeInJodaSyntax('Feb 5, 2023 3:04:05 PM', 'MMM d, yyyy h:mm:ss a', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('23-2-5', 'yy-M-d', 'UTC');
SELECT parseDateTimeInJodaSyntax('23-2-5', 'yy-M-d', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-05 12:04:05 AM', 'yyyy-MM-dd hh:mm:ss a', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-05 12:04:05 AM', 'yyyy-MM-dd hh:mm:ss a', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-05 0:04:05 PM', 'yyyy-MM-dd K:mm:ss a', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-05 0:04:05 PM', 'yyyy-MM-dd K:mm:ss a', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-05 24:04:05', 'yyyy-MM-dd kk:mm:ss', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-05 24:04:05', 'yyyy-MM-dd kk:mm:ss', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-05 25:04:05', 'yyyy-MM-dd HH:mm:ss', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-05 \'14', 'yyyy-MM-dd \'\'HH', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-05 \'14', 'yyyy-MM-dd \'\'HH', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-05 at 14', 'yyyy-MM-dd \'at\' HH', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-05 at 14', 'yyyy-MM-dd \'at\' HH', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-05 14', 'yyyy-MM-dd \'at HH', 'UTC'); -- { serverError BAD_ARGUMENTS }
SELECT parseDateTimeInJodaSyntax('2023-02-05', 'YYYY-MM-dd', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-05', 'YYYY-MM-dd', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('12023-02-05', 'yyyyy-MM-dd', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('-2023-02-05', 'yyyy-MM-dd', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('+2023-02-05', 'yyyy-MM-dd', 'UTC');
SELECT parseDateTimeInJodaSyntax('+2023-02-05', 'yyyy-MM-dd', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-05 14:00:00 xyz', 'yyyy-MM-dd HH:mm:ss', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-29', 'yyyy-MM-dd', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-13-01', 'yyyy-MM-dd', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-05', 'yyyy-MM-dd qq', 'UTC'); -- { serverError NOT_IMPLEMENTED }
SELECT parseDateTimeInJodaSyntax('2023-02-05', 'QQQ', 'UTC'); -- { serverError NOT_IMPLEMENTED }
SELECT parseDateTimeInJodaSyntax('1969-12-31 23:59:59', 'yyyy-MM-dd HH:mm:ss', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('69-02-05', 'yy-MM-dd', 'UTC');
SELECT parseDateTimeInJodaSyntax('69-02-05', 'yy-MM-dd', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('70-02-05', 'yy-MM-dd', 'UTC');
SELECT parseDateTimeInJodaSyntax('70-02-05', 'yy-MM-dd', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('123-02-05', 'yy-MM-dd', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-2-5', 'y-M-d', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-05T14:00:00', 'yyyy-MM-dd\'T\'HH:mm:ss', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-05T14:00:00', 'yyyy-MM-dd\'T\'HH:mm:ss', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('mon 2023 2', 'E xxxx w', 'UTC');
SELECT parseDateTimeInJodaSyntax('mon 2023 2', 'E xxxx w', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023 53 7', 'xxxx ww e', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023 53 7', 'xxxx ww e', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-366', 'yyyy-DDD', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2024-366', 'yyyy-DDD', 'UTC');
SELECT parseDateTimeInJodaSyntax('2024-366', 'yyyy-DDD', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('jan 2023', 'MMM yyyy', 'UTC');
SELECT parseDateTimeInJodaSyntax('jan 2023', 'MMM yyyy', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('janu 2023', 'MMM yyyy', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-05 13:04:05 PM', 'yyyy-MM-dd hh:mm:ss a', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-05 14:60:00', 'yyyy-MM-dd HH:mm:ss', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31.1', 'yyyy-MM-dd HH:mm:ss.SSS', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31.1', 'yyyy-MM-dd HH:mm:ss.SSS', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31.12345', 'yyyy-MM-dd HH:mm:ss.SSS', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31.12345', 'yyyy-MM-dd HH:mm:ss.S', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31.', 'yyyy-MM-dd HH:mm:ss.S', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31 +03:00', 'yyyy-MM-dd HH:mm:ss Z', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31 -0530', 'yyyy-MM-dd HH:mm:ss Z', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31 -0530', 'yyyy-MM-dd HH:mm:ss Z', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31 Z', 'yyyy-MM-dd HH:mm:ss Z', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31 EST', 'yyyy-MM-dd HH:mm:ss z', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31 EST', 'yyyy-MM-dd HH:mm:ss z', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31 MSK', 'yyyy-MM-dd HH:mm:ss z', 'UTC'); -- { serverError BAD_ARGUMENTS }
SELECT parseDateTimeInJodaSyntax('2023-07-24 14:53:31 America/New_York', 'yyyy-MM-dd HH:mm:ss z', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-07-24 14:53:31 America/New_York', 'yyyy-MM-dd HH:mm:ss z', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-01-24 14:53:31 America/New_York', 'yyyy-MM-dd HH:mm:ss z', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-01-24 14:53:31 America/New_York', 'yyyy-MM-dd HH:mm:ss z', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31UTC', 'yyyy-MM-dd HH:mm:ssz', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31UTC', 'yyyy-MM-dd HH:mm:ssz', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('14:53:31', 'HH:mm:ss', 'UTC');
SELECT parseDateTimeInJodaSyntax('14:53:31', 'HH:mm:ss', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('', 'yyyy', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023', '', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('', '', 'UTC');
SELECT parseDateTimeInJodaSyntax('', '', 'Asia/Tokyo'); -- { serverError VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE }
SELECT parseDateTimeInJodaSyntax('2023 1', 'yyyy a', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023 xm', 'yyyy a', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-24 1:2:3', 'yyyy-MM-dd H:m:s', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-24 1:2:3', 'yyyy-MM-dd H:m:s', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-02-24 123', 'yyyy-MM-dd HHH', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('Fri 2023', 'EEE yyyy', 'UTC');
SELECT parseDateTimeInJodaSyntax('Fri 2023', 'EEE yyyy', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('Xyz 2023', 'EEE yyyy', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023 8', 'yyyy w', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023 8', 'yyyy w', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('19 02', 'CC MM', 'UTC'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31', 'yyyy-MM-dd HH:mm:ss', 'UTC');
SELECT parseDateTimeInJodaSyntax('2023-02-24 14:53:31', 'yyyy-MM-dd HH:mm:ss', 'Asia/Tokyo');
SELECT parseDateTimeInJodaSyntax('2023-07-24 14:53:31'), parseDateTimeInJodaSyntaxOrZero('x', 'yyyy', 'Asia/Tokyo'), parseDateTimeInJodaSyntax(NULL), parseDateTimeInJodaSyntaxOrNull('2023-02-29', 'yyyy-MM-dd', 'UTC');
SELECT s, parseDateTimeInJodaSyntaxOrNull(s, 'yyyy-MM-dd', 'UTC'), parseDateTimeInJodaSyntaxOrZero(s, 'yyyy-MM-dd', 'UTC') FROM (SELECT arrayJoin(['2023-01-02', 'x', '2023-02-30', '1999-12-31']) AS s);
SELECT toTypeName(parseDateTimeInJodaSyntaxOrNull('2023', 'yyyy', 'UTC')), toTypeName(parseDateTimeInJodaSyntaxOrZero('2023', 'yyyy', 'UTC'));
SELECT parseDateTimeInJodaSyntax(s, f) FROM (SELECT '2023' AS s, materialize('yyyy') AS f); -- { serverError ILLEGAL_COLUMN }
SELECT parseDateTimeInJodaSyntax(1, 'yyyy'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
