-- Decimal(P, S): precision classes, scale, arithmetic result types, rounding, overflow
SELECT toDecimal32(1.5, 2), toDecimal64(-123.456, 3), toDecimal128('12345678901234567890.123', 3), toDecimal256('1.1', 10);
SELECT toTypeName(toDecimal32(1, 2)), toTypeName(toDecimal64(1, 2)), toTypeName(toDecimal128(1, 2)), toTypeName(toDecimal256(1, 2));
SELECT CAST('1.005' AS Decimal(10, 2)), CAST('-0.001' AS Decimal(10, 2)), CAST(12.3456 AS Decimal(10, 2)), CAST('99999999.99' AS Decimal(10, 2));
SELECT toDecimal32(1, 2) + toDecimal32(2.5, 1), toTypeName(toDecimal32(1, 2) + toDecimal32(2.5, 1));
SELECT toDecimal64(10, 2) * toDecimal64(3, 3), toTypeName(toDecimal64(10, 2) * toDecimal64(3, 3));
SELECT toDecimal64(10, 2) / toDecimal64(3, 1), toTypeName(toDecimal64(10, 2) / toDecimal64(3, 1));
SELECT toDecimal32(2.5, 2) + 1, toDecimal32(2.5, 2) * 2, toDecimal32(2.5, 2) > 2, toDecimal32(2.5, 2) = 2.5;
SELECT toDecimal32(0, 4), toDecimal32(-0.5, 1), toDecimal64(1e-2, 2), toDecimal128(0.1, 20);
SELECT sum(toDecimal64(number, 2) / 10) FROM numbers(10);
SELECT toTypeName(sum(toDecimal32(1, 2))), toTypeName(avg(toDecimal32(1, 2)));
SELECT avg(toDecimal64(number, 2)) FROM numbers(4);
SELECT min(x), max(x) FROM (SELECT toDecimal32(number - 5, 3) AS x FROM numbers(10));
SELECT toString(toDecimal32(1.5, 3)), toFloat64(toDecimal32(1.25, 2)), toInt32(toDecimal32(-1.99, 2)), toDecimal32('1e2', 1);
SELECT CAST('abc' AS Decimal(10, 2)); -- { serverError CANNOT_PARSE_TEXT }
SELECT round(toDecimal64(2.675, 3), 2), floor(toDecimal64(-2.5, 1)), ceil(toDecimal64(2.1, 1));
SELECT toDecimal32(1.5, 2) AS d FORMAT JSONEachRow;
SELECT toDecimal32(1.5, 2) AS d FORMAT CSV;
SELECT toDecimal32(1.5, 2) AS d SETTINGS output_format_decimal_trailing_zeros = 1;
