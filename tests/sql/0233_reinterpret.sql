-- reinterpret(x, 'T') and reinterpretAs<T>: ClickHouse's in-memory bytes (little-endian) read as another type.
SELECT reinterpretAsUInt8('a'), reinterpretAsUInt16('ab'), reinterpretAsUInt32('abcdefgh'), reinterpretAsInt64(''), toTypeName(reinterpretAsUInt16('ab'));
SELECT reinterpretAsFloat64(toUInt64(4607182418800017408)), reinterpretAsFloat32(toUInt32(1065353216)), reinterpretAsUInt64(1.0), reinterpretAsInt32(toFloat32(1.0)), reinterpretAsFloat32('abcd'), reinterpretAsFloat64('');
SELECT reinterpretAsDate(65), toTypeName(reinterpretAsDateTime(65)), reinterpretAsUInt16(toDate('2020-01-01')), reinterpretAsUInt32(toDateTime('2020-01-01 00:00:00', 'UTC')), reinterpretAsDate('ab');
SELECT reinterpretAsUUID('0123456789abcdef'), reinterpretAsUUID(''), toTypeName(reinterpretAsUUID('a')), reinterpret('abcdefghABCDEFGH', 'UUID');
SELECT hex(reinterpret(toUUID('01234567-89ab-cdef-0123-456789abcdef'), 'FixedString(16)')), reinterpretAsUInt64(toUUID('01234567-89ab-cdef-0123-456789abcdef'));
SELECT reinterpret(toInt8(-1), 'UInt8'), reinterpret('ab', 'UInt16'), reinterpret(1.5, 'Int64'), toTypeName(reinterpret(toUInt8(1), 'String')), reinterpret(toUInt8(1), 'Bool');
SELECT reinterpretAsString(toUInt32(65)), reinterpretAsString(toUInt64(0x6463626160)), length(reinterpretAsString(toUInt64(65))), reinterpretAsString(toFixedString('ab\0\0', 4)), length(reinterpretAsString(toFixedString('ab\0\0', 4)));
SELECT toTypeName(reinterpretAsFixedString(toUInt16(257))), toTypeName(reinterpretAsFixedString(toUInt32(1))), toTypeName(reinterpretAsFixedString(toFixedString('abc', 5))), toTypeName(reinterpretAsFixedString(toDate('2020-01-01'))), reinterpret(toUInt32(0x636261), 'FixedString(2)');
SELECT reinterpretAsUInt8(toNullable(1)), toTypeName(reinterpretAsUInt8(toNullable(1))), reinterpretAsUInt8(NULL), toTypeName(reinterpretAsString(NULL));
SELECT reinterpretAsUInt32(toDecimal32(1.5, 2)), reinterpretAsUInt32(toDecimal64(-1, 0)), reinterpret(toInt32(-2), 'Decimal(9,2)'), toTypeName(reinterpret(toInt32(-2), 'Decimal(9,2)')), reinterpret(toInt64(-5), 'Decimal(18, 1)');
SELECT reinterpret(toInt64(1500), 'DateTime64(3, \'UTC\')'), reinterpret(toInt64(15), 'DateTime64(1, \'UTC\')'), reinterpretAsInt64(toDateTime64('2020-01-01 00:00:00.5', 2, 'UTC'));
SELECT reinterpretAsUInt32(toFixedString('ab', 2)), reinterpretAsString(true), reinterpretAsUInt8(true), reinterpretAsInt8(toDate('2020-01-01')), reinterpretAsDate(toInt32(18262));
SELECT reinterpretAsString(toLowCardinality('ab')), toTypeName(reinterpretAsString(toLowCardinality('ab'))), toTypeName(reinterpretAsUInt8(toLowCardinality('ab')));
SELECT reinterpret('ab', 'Array(UInt8)'), reinterpret(toFixedString('abcd', 4), 'Array(UInt16)'), reinterpret(materialize('abcd'), 'Array(UInt8)'), reinterpret('', 'Array(Int32)');
SELECT number, reinterpretAsUInt16(s), reinterpretAsString(s), reinterpretAsUInt32(reinterpretAsString(toUInt32(number * 256 + 65))) FROM (SELECT number, repeat('z', number) AS s FROM numbers(4)) ORDER BY number;
SELECT reinterpretAsUInt32(if(number = 1, NULL, 'abc')) FROM numbers(3) ORDER BY number;
SELECT reinterpret('abc', 'Array(UInt16)'); -- { serverError BAD_ARGUMENTS }
SELECT reinterpret('abcd', 'Array(String)'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT reinterpretAsUInt8([1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT reinterpretAsFixedString('abc'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT reinterpret(toUInt8(1), 'Nullable(UInt8)'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT reinterpret(toInt32(1), 'Date32'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT reinterpretAsInt8(toDate32('2020-01-01')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT reinterpretAsInt8(CAST('a', 'Enum8(\'a\' = 1)')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT reinterpret(1, materialize('UInt8')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT reinterpret(1, 'Foo'); -- { serverError UNKNOWN_TYPE }
SELECT reinterpret(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT reinterpretAsUInt8(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT reinterpretAsDateTime(65, 'UTC'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT reinterpretAsUInt32(toIPv4('1.2.3.4')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
