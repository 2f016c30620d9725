-- parseDateTime64InJodaSyntax: the precision is the width of the first fraction field; the zone is the argument's, else the session's.
SELECT parseDateTime64InJodaSyntax('2024-01-02 03:04:05.123', 'yyyy-MM-dd HH:mm:ss.SSS') AS a, toTypeName(a), parseDateTime64InJodaSyntax('2024-01-02 03:04:05', 'yyyy-MM-dd HH:mm:ss') AS b, toTypeName(b);
SELECT parseDateTime64InJodaSyntax('2024-01-02 03:04:05.123456', 'yyyy-MM-dd HH:mm:ss.SSSSSS') AS a, toTypeName(a), parseDateTime64InJodaSyntax('2024-01-02 03:04:05.12', 'yyyy-MM-dd HH:mm:ss.SS', 'Asia/Tokyo') AS b, toTypeName(b), toUnixTimestamp64Milli(b);
SELECT parseDateTime64InJodaSyntax('2024-01-02 03:04:05.12', 'yyyy-MM-dd HH:mm:ss.SSS'), parseDateTime64InJodaSyntax('2024-01-02 03:04:05.55', 'yyyy-MM-dd HH:mm:ss.S'), parseDateTime64InJodaSyntax('2024-01-02 03:04:05.5 .25', 'yyyy-MM-dd HH:mm:ss.S .SS');
SELECT parseDateTime64InJodaSyntax('2024-01-02 03:04:05.123+0800', 'yyyy-MM-dd HH:mm:ss.SSSZ'), parseDateTime64InJodaSyntax('1969-12-31 23:59:59.5', 'yyyy-MM-dd HH:mm:ss.S'), parseDateTime64InJodaSyntax('1900-01-01 00:00:00', 'yyyy-MM-dd HH:mm:ss'), parseDateTime64InJodaSyntax('0001-01-01 00:00:00', 'yyyy-MM-dd HH:mm:ss');
SELECT parseDateTime64InJodaSyntax('2024-01-02 03:04:05') AS a, toTypeName(a), parseDateTime64InJodaSyntax(toNullable('2024-01-02'), 'yyyy-MM-dd') AS b, toTypeName(b), parseDateTime64InJodaSyntax(NULL, 'yyyy') AS c, toTypeName(c);
SELECT parseDateTime64InJodaSyntaxOrNull('garbage', 'yyyy-MM-dd') AS a, toTypeName(a), parseDateTime64InJodaSyntaxOrNull('2024-01-02 03:04:05.1234', 'yyyy-MM-dd HH:mm:ss.SSS') AS b, toTypeName(b), parseDateTime64InJodaSyntaxOrNull('2024-01-02', 'yyyy-MM-dd') AS c;
SELECT parseDateTime64InJodaSyntaxOrZero('garbage', 'yyyy-MM-dd HH:mm:ss.SSS') AS a, toTypeName(a), parseDateTime64InJodaSyntaxOrZero('2024-01-02 03:04:05.1234', 'yyyy-MM-dd HH:mm:ss.SSS', 'Asia/Tokyo') AS b, toTypeName(b);
SELECT number, parseDateTime64InJodaSyntax(concat('2024-01-0', toString(number + 1), ' 10:00:00.', toString(number * 7)), 'yyyy-MM-dd HH:mm:ss.SS') AS t FROM numbers(3) ORDER BY number;
SELECT parseDateTime64InJodaSyntax('2024-01-02 03:04:05.1234', 'yyyy-MM-dd HH:mm:ss.SSS'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime64InJodaSyntax('2024-01-02 03:04:05.1234567', 'yyyy-MM-dd HH:mm:ss.SSSSSSS'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime64InJodaSyntax('2024-01-02 03:04:05.1234567890', 'yyyy-MM-dd HH:mm:ss.SSSSSSSSSS'); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT parseDateTime64InJodaSyntax('a'); -- { serverError CANNOT_PARSE_DATETIME }
SELECT parseDateTime64InJodaSyntax(materialize('2024'), materialize('yyyy')); -- { serverError ILLEGAL_COLUMN }
SELECT parseDateTime64InJodaSyntax(1, 'yyyy'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT parseDateTime64InJodaSyntax('2024', 'yyyy', 'Foo/Bar'); -- { serverError BAD_ARGUMENTS }
-- Without a zone argument the parse functions' types name the session's zone.
SELECT toTypeName(parseDateTime('2024-01-02 03:04:05', '%Y-%m-%d %H:%i:%s')), toTypeName(parseDateTime64('2024-01-02 03:04:05.123', '%Y-%m-%d %H:%i:%s.%f')), toTypeName(parseDateTimeInJodaSyntax('2024', 'yyyy')), toTypeName(parseDateTime64InJodaSyntax('2024', 'yyyy'));
SELECT toTypeName(parseDateTimeOrNull('2024-01-02 03:04:05', '%Y-%m-%d %H:%i:%s')), toTypeName(parseDateTimeOrZero('x', '%Y')), toTypeName(parseDateTime64OrZero('2024-01-02 03:04:05.123', '%Y-%m-%d %H:%i:%s.%f')), toTypeName(parseDateTimeInJodaSyntaxOrNull('2024', 'yyyy')), toTypeName(str_to_date('2024-01-02', '%Y-%m-%d'));
SELECT parseDateTime('2024-01-02 03:04:05') AS a, toTypeName(a), parseDateTime64('2024-01-02 03:04:05.123456') AS b, toTypeName(b), parseDateTimeInJodaSyntax('2024-01-02 03:04:05') AS c, toTypeName(c);
SELECT parseDateTime('2024-01-02 03:04:05', '%Y-%m-%d %H:%i:%s') AS a, toTypeName(a), toUnixTimestamp(a) SETTINGS session_timezone = 'Asia/Tokyo';
SELECT parseDateTime('2024-01-02 03:04:05', '%Y-%m-%d %H:%i:%s') FORMAT TSVWithNames;
-- makeDate32 covers Date32's years 0000..9999; parts out of range give 1970-01-01, a day past the month's end runs on.
SELECT makeDate32(1900, 1, 1), makeDate32(2299, 12, 31), makeDate32(1899, 12, 31), makeDate32(2300, 1, 1), makeDate32(1800, 5, 5), makeDate32(2500, 1, 1), makeDate32(0, 1, 1), makeDate32(9999, 12, 31);
SELECT makeDate32(1800, 1, 1) AS d, toTypeName(d), toInt32(d), makeDate32(10000, 1, 1), makeDate32(-1, 1, 1), makeDate32(-0.5, 1, 1), makeDate32(9999.5, 1, 1), makeDate32(nan, 1, 1), makeDate32(1e20, 1, 1);
SELECT makeDate32(1900, 1, 0), makeDate32(1900, 0, 1), makeDate32(2299, 12, 32), makeDate32(2299, 13, 1), makeDate32(2024, 2, 30), makeDate32(2023, 2, 31), makeDate32(2024, 4, 31), makeDate32(0, 2, 30), makeDate32(1900, 2, 29), makeDate32(2100, 2, 29);
SELECT makeDate32(1899, 365), makeDate32(1900, 1), makeDate32(2299, 365), makeDate32(2024, 365), makeDate32(2024, 366), makeDate32(2023, 366), makeDate32(2024, 0), makeDate32(9999, 365), makeDate32(0, 1);
SELECT makeDate32(2024.9, 1.9, 1.9), makeDate32(2024, 12.5, 1), makeDate32(2024, 0.5, 1), makeDate32(2024, 1, 0.5), makeDate32(9999, 12, 31.5), makeDate32(toNullable(2024), 1, 1) AS n, toTypeName(n), makeDate32(NULL, 1, 1) AS m, toTypeName(m);
SELECT number, makeDate32(1899 + number * 200, 12, 31) AS d, makeDate32(1899 + number * 200, 59) FROM numbers(4) ORDER BY number;
-- makeDate keeps to Date's range.
SELECT makeDate(1800, 1, 1), makeDate(2149, 6, 6), makeDate(2149, 6, 7), makeDate(1969, 12, 31), makeDate(2024, 2, 30), makeDate(2149, 157), makeDate(2149, 158), makeDate(2024, 366), makeDate(2024, 1.9), makeDate(2024, 0.5);
SELECT makeDate32('2024', 1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT makeDate32(2024, 1, 1, 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT name FROM system.functions WHERE name LIKE 'parseDateTime64InJodaSyntax%' ORDER BY name;
