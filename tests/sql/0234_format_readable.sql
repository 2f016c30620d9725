-- formatReadableSize / formatReadableDecimalSize / formatReadableQuantity / formatReadableTimeDelta.
SELECT formatReadableSize(0), formatReadableSize(1), formatReadableSize(1023), formatReadableSize(1024), formatReadableSize(1536), formatReadableSize(1e20), formatReadableSize(-1536), formatReadableSize(1.5), toTypeName(formatReadableSize(1));
SELECT formatReadableDecimalSize(0), formatReadableDecimalSize(999), formatReadableDecimalSize(1000), formatReadableDecimalSize(123456789), formatReadableDecimalSize(1e30), formatReadableDecimalSize(-1234);
SELECT formatReadableQuantity(0), formatReadableQuantity(999), formatReadableQuantity(1000), formatReadableQuantity(1234567), formatReadableQuantity(1e30), formatReadableQuantity(-1234.5), formatReadableQuantity(12.345);
SELECT arrayMap(i -> formatReadableQuantity(pow(10, 3 * i)), range(23));
SELECT formatReadableSize(pow(2, 90)), formatReadableDecimalSize(1e27), formatReadableQuantity(999.999), formatReadableSize(1023.999), formatReadableSize(-0.), formatReadableQuantity(0.005), formatReadableQuantity(0.015), formatReadableQuantity(0.025), formatReadableQuantity(2.675);
SELECT formatReadableSize(nan), formatReadableSize(inf), formatReadableQuantity(-inf), formatReadableSize(toNullable(1)), formatReadableSize(NULL), toTypeName(formatReadableSize(toNullable(1))), formatReadableSize(toDecimal32(1, 2));
SELECT number, formatReadableSize(number * 1000), formatReadableSize(toNullable(number) * 1e9), formatReadableQuantity(-toInt64(number) * 123456) FROM numbers(5) ORDER BY number;
SELECT formatReadableTimeDelta(0), formatReadableTimeDelta(1), formatReadableTimeDelta(59.5), formatReadableTimeDelta(3600), formatReadableTimeDelta(100000000), formatReadableTimeDelta(-5000), formatReadableTimeDelta(1.25), formatReadableTimeDelta(0.5);
SELECT formatReadableTimeDelta(100000, 'hours'), formatReadableTimeDelta(100000, 'minutes'), formatReadableTimeDelta(100000, 'seconds'), formatReadableTimeDelta(100000, 'days'), formatReadableTimeDelta(100000, 'months'), formatReadableTimeDelta(100000000, 'years');
SELECT formatReadableTimeDelta(100000.123456789, 'years', 'nanoseconds'), formatReadableTimeDelta(1.5, 'seconds', 'milliseconds'), formatReadableTimeDelta(0.001234, 'seconds', 'microseconds'), formatReadableTimeDelta(0.1, 'years', 'seconds'), formatReadableTimeDelta(0, 'years', 'milliseconds');
SELECT formatReadableTimeDelta(1, 'milliseconds'), formatReadableTimeDelta(0.5, 'milliseconds'), formatReadableTimeDelta(0.000001, 'seconds'), formatReadableTimeDelta(61.25), formatReadableTimeDelta(90000.5, 'days', 'milliseconds'), formatReadableTimeDelta(3600.000001, 'hours', 'milliseconds');
SELECT formatReadableTimeDelta(nan), formatReadableTimeDelta(inf), formatReadableTimeDelta(1e30), formatReadableTimeDelta(1e18), formatReadableTimeDelta(-1e18, 'seconds');
SELECT formatReadableTimeDelta(120, 'minutes', 'minutes'), formatReadableTimeDelta(59, 'minutes', 'minutes'), formatReadableTimeDelta(-0.5, 'seconds', 'milliseconds'), formatReadableTimeDelta(1, 'seconds', ''), formatReadableTimeDelta(1, ''), formatReadableTimeDelta(toDecimal32(61, 2));
SELECT number, formatReadableTimeDelta(number * 7777.777, 'days', 'milliseconds') FROM numbers(5) ORDER BY number;
SELECT formatReadableTimeDelta(toNullable(65)), formatReadableTimeDelta(NULL), toTypeName(formatReadableTimeDelta(toNullable(1)));
SELECT formatReadableSize('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT formatReadableQuantity(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT formatReadableTimeDelta('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT formatReadableTimeDelta(1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT formatReadableTimeDelta(1, 'foo'); -- { serverError BAD_ARGUMENTS }
SELECT formatReadableTimeDelta(1, 'seconds', 'hours'); -- { serverError BAD_ARGUMENTS }
SELECT formatReadableTimeDelta(1, materialize('hours')); -- { serverError ILLEGAL_COLUMN }
SELECT formatReadableTimeDelta(1, 'hours', 'seconds', 'x'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
