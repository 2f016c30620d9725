-- parseTimeDelta: numbers with units (years of 365 days, months of 30.5), separated by ;-+,: and spaces.
SELECT parseTimeDelta('11s+22min') AS a, toTypeName(a), parseTimeDelta('1yr2mo'), parseTimeDelta('1.5d'), parseTimeDelta('1 day 2 hours'), parseTimeDelta('1h 30m'), parseTimeDelta('100ms'), parseTimeDelta('1us 2ns');
SELECT parseTimeDelta('1w'), parseTimeDelta('2 weeks'), parseTimeDelta('1y'), parseTimeDelta('1 month'), parseTimeDelta('1s-2s'), parseTimeDelta('1s,2s'), parseTimeDelta('1s;2s'), parseTimeDelta('1s:2s'), parseTimeDelta(' 1s '), parseTimeDelta('1s  ,  2s'), parseTimeDelta('1 s 2 s');
SELECT parseTimeDelta('1μs'), parseTimeDelta('1 microseconds'), parseTimeDelta('2 nanosec'), parseTimeDelta('3 millisec'), parseTimeDelta('1hr'), parseTimeDelta('1 sec'), parseTimeDelta('1 min'), parseTimeDelta('1s.'), parseTimeDelta(toNullable('1s')) AS n, toTypeName(n);
SELECT number, parseTimeDelta(concat(toString(number), 'h ', toString(number * 10), 'min')) FROM numbers(3) ORDER BY number;
SELECT parseTimeDelta('abc'); -- { serverError BAD_ARGUMENTS }
SELECT parseTimeDelta(''); -- { serverError BAD_ARGUMENTS }
SELECT parseTimeDelta('-1s'); -- { serverError BAD_ARGUMENTS }
SELECT parseTimeDelta('1S'); -- { serverError BAD_ARGUMENTS }
SELECT parseTimeDelta('1.5.5s'); -- { serverError BAD_ARGUMENTS }
SELECT parseTimeDelta('1s 2'); -- { serverError BAD_ARGUMENTS }
SELECT parseTimeDelta('1ss'); -- { serverError BAD_ARGUMENTS }
SELECT parseTimeDelta('.5s'); -- { serverError BAD_ARGUMENTS }
SELECT parseTimeDelta(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- parseISO8601Duration: weeks, days, hours, minutes and seconds (with fractions), in that order.
SELECT parseISO8601Duration('PT1H') AS a, toTypeName(a), parseISO8601Duration('PT1.5S'), parseISO8601Duration('P1W'), parseISO8601Duration('PT0S'), parseISO8601Duration('P1D'), parseISO8601Duration('PT36H'), parseISO8601Duration('P0.5D'), parseISO8601Duration('P1DT2H3M4.25S'), parseISO8601Duration('PT1M30S'), parseISO8601Duration('P1W1D');
SELECT parseISO8601Duration(toNullable('PT1M')) AS a, toTypeName(a), parseISO8601Duration('P1.5W');
SELECT parseISO8601Duration('P1Y2M3DT4H5M6S'); -- { serverError BAD_ARGUMENTS }
SELECT parseISO8601Duration('P1M'); -- { serverError BAD_ARGUMENTS }
SELECT parseISO8601Duration('1H'); -- { serverError BAD_ARGUMENTS }
SELECT parseISO8601Duration('PT'); -- { serverError BAD_ARGUMENTS }
SELECT parseISO8601Duration('P1DT'); -- { serverError BAD_ARGUMENTS }
SELECT parseISO8601Duration('PT1S2M'); -- { serverError BAD_ARGUMENTS }
SELECT parseISO8601Duration('PT1.S'); -- { serverError BAD_ARGUMENTS }
SELECT parseISO8601Duration('P1'); -- { serverError BAD_ARGUMENTS }
SELECT parseISO8601Duration('PT1h'); -- { serverError BAD_ARGUMENTS }
-- parseReadableSize: decimal and binary units in any case, rounded up to whole bytes.
SELECT parseReadableSize('1 KiB') AS a, toTypeName(a), parseReadableSize('1 KB'), parseReadableSize('1.5 MiB'), parseReadableSize('3 B'), parseReadableSize('1 kb'), parseReadableSize('1KiB'), parseReadableSize('0.5 B'), parseReadableSize('1.7 B');
SELECT parseReadableSize('1 GiB'), parseReadableSize('1 TB'), parseReadableSize('1 PiB'), parseReadableSize('1 EB'), parseReadableSize('15.999 EiB'), parseReadableSize('1.0000000001 KiB'), parseReadableSize('1e3 B'), parseReadableSize('+1 B'), parseReadableSize('1	KiB');
SELECT parseReadableSizeOrNull('1 KiB') AS a, toTypeName(a), parseReadableSizeOrNull('abc') AS b, parseReadableSizeOrNull(toNullable('x')) AS c, toTypeName(c), parseReadableSizeOrZero('abc') AS d, toTypeName(d), parseReadableSizeOrZero(toNullable('x')) AS e, toTypeName(e);
SELECT parseReadableSize(toNullable('1 B')) AS a, toTypeName(a), parseReadableSizeOrNull('16 EiB'), parseReadableSizeOrZero('-1 B'), parseReadableSizeOrNull(' 1 B'), parseReadableSizeOrZero('1 B ');
SELECT number, parseReadableSize(concat(toString(number), '.5 KiB')) FROM numbers(3) ORDER BY number;
SELECT parseReadableSize('abc'); -- { serverError CANNOT_PARSE_NUMBER }
SELECT parseReadableSize(''); -- { serverError CANNOT_PARSE_NUMBER }
SELECT parseReadableSize('1'); -- { serverError CANNOT_PARSE_TEXT }
SELECT parseReadableSize('1 K'); -- { serverError CANNOT_PARSE_TEXT }
SELECT parseReadableSize('1 KiB!'); -- { serverError CANNOT_PARSE_TEXT }
SELECT parseReadableSize(' 1 KiB'); -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT parseReadableSize('1 KiB '); -- { serverError UNEXPECTED_DATA_AFTER_PARSED_VALUE }
SELECT parseReadableSize('-1 KiB'); -- { serverError BAD_ARGUMENTS }
SELECT parseReadableSize('16 EiB'); -- { serverError BAD_ARGUMENTS }
SELECT parseReadableSize('inf B'); -- { serverError BAD_ARGUMENTS }
SELECT parseReadableSize(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT name FROM system.functions WHERE name IN ('parseTimeDelta', 'parseISO8601Duration', 'parseReadableSize', 'parseReadableSizeOrNull', 'parseReadableSizeOrZero') ORDER BY name;
