-- if and multiIf take UInt8, Bool, their Nullable and LowCardinality forms, and NULL
SELECT if(1, 'a', 'b'), if(0, 'a', 'b'), if(true, 'a', 'b'), if(toBool(0), 'a', 'b');
SELECT if(NULL, 1, 2), if(toNullable(toUInt8(1)), 1, 2), if(CAST(NULL, 'Nullable(UInt8)'), 1, 2), if(toNullable(true), 1, 2);
SELECT if(toLowCardinality(toUInt8(1)), 1, 2);
SELECT if(number % 2 = 0, 'even', 'odd'), if(number > 1, number, 0) FROM numbers(4) ORDER BY number;
SELECT multiIf(0, 1, toUInt8(3), 2, 3), multiIf(NULL, 1, 2), multiIf(true, 'x', 'y'), multiIf(toNullable(toUInt8(0)), 1, 2);
SELECT number, multiIf(number = 0, 'zero', number = 1, 'one', 'many') FROM numbers(3) ORDER BY number;
SELECT CASE WHEN number > 0 THEN 'pos' ELSE 'zero' END FROM numbers(2) ORDER BY number;
SELECT number > 1 ? 'big' : 'small' FROM numbers(3) ORDER BY number;
-- Every other condition type is refused
SELECT if('a', 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(materialize('a'), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(1.5, 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(toFloat32(0), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(number, 1, 2) FROM numbers(2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(toInt8(-1), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(toUInt16(3), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(256, 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(toNullable(toUInt64(1)), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(toUInt128(1), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(toDate('2020-01-01'), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(toDateTime('2020-01-01 00:00:00'), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(toDecimal32(1, 2), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if([1], 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(toIPv4('1.2.3.4'), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(toUUID('00000000-0000-0000-0000-000000000000'), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT if(CAST(1, 'Enum8(\'a\' = 1)'), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiIf('a', 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiIf(1.5, 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiIf(number, 1, 2) FROM numbers(2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiIf(toInt32(1), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiIf(0, 1, toUInt64(3), 2, 3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiIf(toNullable(toInt64(1)), 1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT multiIf(1, 1, 'a', 2, 3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT CASE WHEN 'a' THEN 1 ELSE 2 END; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT CASE WHEN number THEN 1 ELSE 2 END FROM numbers(2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT 'a' ? 1 : 2; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- WHERE keeps taking any number
SELECT number FROM numbers(3) WHERE number ORDER BY number;
