-- Floats compare as IEEE numbers: NaN equals nothing, not even itself
SELECT nan = nan, nan != nan, nan < nan, nan <= nan, nan > 1, nan >= 1, -0. = 0., inf = inf, toFloat32(nan) = toFloat32(nan);
SELECT x, x = x, x < 1, x > 1 FROM (SELECT arrayJoin([1., nan, -inf]) AS x);
-- Arrays and tuples compare element by element, then by length; NULL elements are equal and sort last
SELECT [1, 2] = [1, 2], [1, 2] != [1, 3], [1, 2] < [1, 3], [1, 2] < [1, 2, 3], [2] > [1, 9], [] < [1], [[1]] < [[2]], ['a', 'b'] < ['a', 'c'];
SELECT [1, NULL] = [1, NULL], [1, NULL] > [1, 2], [nan] = [nan], [1, 2] = [1., 2.], [toUInt8(1)] = [toInt64(1)];
SELECT (1, 'a') = (1, 'a'), (1, 'a') < (1, 'b'), (2, 'a') > (1, 'z'), (1, (2, 3)) = (1, (2, 3));
SELECT number, [number, 1] < [1, number], (number, 'x') >= (1, 'x') FROM numbers(3);
-- Decimals against floats (as Float64) and integers (as decimals)
SELECT toDecimal32(1.5, 2) = 1.5, toDecimal32(1.5, 2) < 1.6, toDecimal64(2.5, 3) > 2, toDecimal32(2.5, 2) = 2.5, toDecimal128(3, 5) = 3, toDecimal256(1, 40) < 2, toDecimal64(1, 2) = toDecimal256(1, 3);
SELECT toTypeName([toDecimal32(1, 2), toDecimal64(1, 3)]), toTypeName([toDecimal128(1, 30), toDecimal64(1, 2)]), toTypeName([toDecimal32(1, 2), 1]), toTypeName(if(1, toDecimal32(1, 2), toInt64(3)));
-- NULLs in an IN list are left out; only a NULL probe gives NULL
SELECT 1 IN (NULL), 2 NOT IN (1, NULL), 1 IN (1, NULL), number IN (NULL, 1), toNullable(number) IN (NULL, 1) FROM numbers(2) FORMAT TSVWithNamesAndTypes;
SELECT count() FROM numbers(5) WHERE number NOT IN (1, NULL);
SELECT count() FROM numbers(5) WHERE number IN (NULL);
-- A string literal is read as the other side's type; a String column meets numbers only through a common type
SELECT 5 = '5', toDate('2024-01-02') = '2024-01-02', toUInt8(3) < '10';
SELECT toString(number) = 1 FROM numbers(2); -- { serverError NO_COMMON_TYPE }
SELECT count() FROM numbers(3) WHERE toString(number) = 1; -- { serverError NO_COMMON_TYPE }
SELECT 'a' = 1; -- { serverError TYPE_MISMATCH }
SELECT tuple() = tuple();
SELECT tuple() < tuple();
SELECT (1, 'a') < (1, 'b'), (1, 2) = (1, 2.0), ((1, 2), 3) > ((1, 1), 4);
