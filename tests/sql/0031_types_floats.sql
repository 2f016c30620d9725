-- Float32/Float64: special values, shortest round-trip printing, conversions, arithmetic
SELECT 0.1, 0.2, 0.1 + 0.2, 1 / 3, 2 / 3, 10 / 4;
SELECT toFloat32(0.1), toFloat32(1) / 3, toFloat32(16777217), toFloat32(1e40), toFloat32(-1e-50);
SELECT inf, -inf, nan, -nan, 1 / 0, -1 / 0, 0 / 0;
SELECT -0., 0 * -1., toFloat32(-0.), -0. = 0.;
SELECT 1e21, 1e20, 1e-5, 1e-4, 123456789012345680000, 1.5e-7, 1e15, 1e16, 1e17;
SELECT 1.7976931348623157e308, 2.2250738585072014e-308, 5e-324;
SELECT 123456789.125, 0.000001, 100.0, 3., 1e2, 12345678901234567890.;
SELECT toFloat64('1.5'), toFloat64('-0'), toFloat64('inf'), toFloat64('-inf'), toFloat64('nan'), toFloat64('1e3');
SELECT toFloat64OrZero('x'), toFloat64OrNull('x'), toFloat32OrZero('0.5');
SELECT toTypeName(1.5), toTypeName(toFloat32(1) + 1), toTypeName(toFloat32(1) + toFloat32(1)), toTypeName(1 / 2);
SELECT nan = nan, nan != nan, nan < 1, inf > 1e308, -inf < -1e308, isNaN(nan), isInfinite(-inf), isFinite(1.);
SELECT round(2.5), round(3.5), round(-2.5), round(2.567, 2), round(1234.5, -2), floor(-2.5), ceil(-2.5), trunc(-2.7);
SELECT sqrt(2), pow(2, 10), exp(1), log(100) / log(10), sin(0), pi();
SELECT toString(0.1), toString(1e21), toString(toFloat32(0.1)), toString(-0.), toString(inf), toString(nan);
SELECT toUInt64(1e19), toInt64(-1e18), toUInt32(-1.5);
SELECT toInt8(nan); -- { serverError CANNOT_CONVERT_TYPE }
SELECT number / 10 FROM numbers(11);
SELECT sum(0.1) FROM numbers(10);
SELECT sum(toFloat32(0.1)) FROM numbers(10);
SELECT avg(number / 3), min(number / 3), max(number / 3) FROM numbers(10);
SELECT CAST(1 AS Float32), CAST('1.25' AS Float64), CAST(inf AS Float32), 2.5::Float32;
SELECT 1e21 AS x FORMAT CSV;
SELECT 1e21 AS x, 0.1 AS y, nan AS z, -inf AS w FORMAT JSONEachRow;
