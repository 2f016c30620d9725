-- A wide integer with a Decimal computes in the decimal's type, as ClickHouse does.
SELECT toInt128(5) + toDecimal64(1.5, 2) AS r, toTypeName(r);
SELECT toDecimal64(1.5, 2) + toInt128(5) AS r, toTypeName(r);
SELECT toInt128(5) - toDecimal32(1.5, 2) AS r, toTypeName(r);
SELECT toInt128(5) - toDecimal64(7.25, 2) AS r, toTypeName(r);
SELECT toInt128(-7) * toDecimal32(1.5, 2) AS r, toTypeName(r);
SELECT toInt128(5) / toDecimal64(1.5, 2) AS r, toTypeName(r);
SELECT toDecimal64(1.5, 2) / toInt128(5) AS r, toTypeName(r);
SELECT toInt64(5) / toDecimal64(1.5, 2) AS r, toTypeName(r);
SELECT toInt128(3) / toDecimal256(7, 30) AS r, toTypeName(r);
SELECT toInt128(5) % toDecimal64(1.5, 2) AS r, toTypeName(r);
SELECT toInt128(7) % toDecimal64(2, 1) AS r, toTypeName(r);
SELECT toDecimal64(7.5, 2) % toInt128(2) AS r, toTypeName(r);
SELECT toInt64(5) % toDecimal64(1.5, 2) AS r, toTypeName(r);
SELECT toUInt128(5) + toDecimal128(1.5, 3) AS r, toTypeName(r);
SELECT toInt256(5) + toDecimal64(1.5, 2) AS r, toTypeName(r);
SELECT toUInt256(5) * toDecimal256(1.5, 2) AS r, toTypeName(r);
SELECT toDecimal128(1.5, 10) * toInt256(3) AS r, toTypeName(r);
SELECT toInt128(5) + toDecimal32(1.5, 2) + 1 AS r, toTypeName(r);
SELECT toInt128(number) * toDecimal64(0.25, 2) AS r, toTypeName(r) FROM numbers(3);
SELECT toInt128(5) > toDecimal64(1.5, 2), toInt128(5) = toDecimal64(5, 2), toDecimal32(2.5, 1) < toUInt256(3), toInt256(-2) < toDecimal64(-1.5, 2);
SELECT number FROM numbers(5) WHERE toInt128(number) > toDecimal64(2.5, 1);
SELECT toInt128('100000000000000000000') + toDecimal64(1.5, 2); -- { serverError DECIMAL_OVERFLOW }
SELECT toInt128(5) / toDecimal64(0, 2); -- { serverError ILLEGAL_DIVISION }
