-- intDiv with a Decimal operand divides the real values and truncates toward zero; the result is a signed integer as wide as the dividend.
SELECT intDiv(toDecimal32(7.5, 2), 2) AS r, toTypeName(r);
SELECT intDiv(7, toDecimal32(2.5, 1)) AS r, toTypeName(r);
SELECT intDiv(toUInt64(7), toDecimal32(2.5, 1)) AS r, toTypeName(r);
SELECT intDiv(toDecimal64(-7.5, 3), 2) AS r, toTypeName(r);
SELECT intDiv(toDecimal128(100.99, 2), toDecimal32(-3.3, 1)) AS r, toTypeName(r);
SELECT intDiv(toNullable(toDecimal32(9.9, 1)), 3) AS r, toTypeName(r);
SELECT intDiv(toDecimal256(12345.678, 3), toDecimal32(0.5, 1)) AS r, toTypeName(r);
SELECT intDiv(toDecimal32(7.5, 2), 2.5) AS r, toTypeName(r);
SELECT intDiv(number, toDecimal32(1.5, 1)) AS r, toTypeName(r) FROM numbers(5);
SELECT intDiv(toDecimal64(number, 2) - 2, toDecimal32(0.7, 1)) AS r FROM numbers(5);
SELECT intDiv(toDecimal32(1, 2), 0); -- { serverError ILLEGAL_DIVISION }
SELECT intDivOrZero(toDecimal32(7.5, 2), 2) AS r, toTypeName(r);
SELECT intDivOrZero(toDecimal32(7.5, 2), 0) AS r, toTypeName(r);
SELECT intDivOrZero(5, toDecimal64(0, 3)) AS r, toTypeName(r);
SELECT intDivOrZero(number, toDecimal32(number, 1)) AS r, toTypeName(r) FROM numbers(3);
SELECT moduloOrZero(toDecimal32(7.5, 2), 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
