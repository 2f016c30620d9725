-- roundDown to a constant array of boundaries (result in the least supertype), and erf, erfc, lgamma to the last digit (tgamma where Granary's is exact: 0 < x <= 1.5 and the special values)
SELECT roundDown(5.7, [1, 3, 6]), toTypeName(roundDown(5.7, [1, 3, 6])), roundDown(5, [1, 3, 6]), toTypeName(roundDown(5, [1, 3, 6]));
SELECT toTypeName(roundDown(5::Int64, [1, 3, 6])), toTypeName(roundDown(5::UInt8, [1, 3, 1000])), toTypeName(roundDown(5::UInt8, [1.5, 3])), toTypeName(roundDown(5::Int8, [-1, 200]));
SELECT roundDown(0, [1, 3, 6]), roundDown(-5, [1, 3, 6]), roundDown(7, [6, 3, 1]), roundDown(3, [3, 3, 1]), roundDown(toDecimal32(5.5, 2), [1, 3, 6]), toTypeName(roundDown(toDecimal32(5.5, 2), [1, 3, 6]));
SELECT roundDown(5.5::Float32, [1, 5.25]), roundDown(nan, [1, 2]), roundDown(inf, [1, 2]), roundDown(-inf, [1, 2]), roundDown(toNullable(3), [1, 2]), roundDown(NULL, [1, 2]);
SELECT number, roundDown(number, [2, 5]), roundDown(number * 1.5, [0.5, 2.25, 4, 100]), roundDown(toInt32(number) - 3, [-2, 0, 2]) FROM numbers(8);
SELECT roundDown(5, []); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT roundDown(5, [toNullable(1)]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT roundDown('a', [1]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT roundDown(number, materialize([1, 2])) FROM numbers(2); -- { serverError ILLEGAL_COLUMN }
SELECT toTypeName(erf(1)), toTypeName(erfc(1::UInt8)), toTypeName(lgamma(1.5::Float32)), toTypeName(tgamma(toDecimal32(0.5, 2)));
SELECT x, erf(x), erfc(x), lgamma(x), if((x > 0 AND x <= 1.5) OR isNaN(x) OR isInfinite(x) OR x >= 172 OR x <= -184 OR (x < 0 AND x = round(x)) OR x = 0, tgamma(x), 0) FROM (SELECT arrayJoin([0, -0., 1e-300, 1e-20, 1e-8, 0.1, 0.25, 0.5, 0.84375, 0.9, 1, 1.25, 1.5, 2, 2.5, 2.857, 3, 4.5, 5.9, 6, 6.5, 7.25, 10, 11.9, 12, 12.5, 27.9, 30, 100.5, 170.5, 171.6, 172, 1e10, 1e300, -1e-20, -0.1, -0.5, -0.9, -1.5, -2.5, -3.2, -5.9, -27.5, -100.5, -170.5, -183.7, -190.5, -1, -2, -1e10, inf, -inf, nan]) AS x);
SELECT round(x, 3) AS r, erf(x), erfc(x), lgamma(x), if(x > 0 AND x <= 1.5, tgamma(x), 0) FROM (SELECT (number - 400) / 37.3 AS x FROM numbers(800)) ORDER BY r;
