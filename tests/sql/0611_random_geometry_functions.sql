-- random distributions: types and ranges (values are random)
SELECT toTypeName(randNormal(0, 1)), toTypeName(randUniform(0, 1)), toTypeName(randExponential(1)), toTypeName(randLogNormal(0, 1)), toTypeName(randBernoulli(0.5)), toTypeName(randBinomial(10, 0.5)), toTypeName(randPoisson(3)), toTypeName(randChiSquared(2)), toTypeName(randStudentT(2)), toTypeName(randFisherF(2, 3)), toTypeName(randNegativeBinomial(3, 0.5)), toTypeName(randCanonical()), toTypeName(randConstant());
SELECT toTypeName(randomString(3)), toTypeName(randomFixedString(3)), toTypeName(randomPrintableASCII(3)), toTypeName(randomStringUTF8(3)), toTypeName(fuzzBits('abc', 0.5)), toTypeName(randUniform(1, 2, 3));
SELECT min(u) >= 5, max(u) < 7, min(c) >= 0, max(c) < 1, min(b) >= 0, max(b) <= 1, max(n) <= 10, min(e) > 0, min(l) > 0, min(p) >= 0, min(x) > 0, min(f) > 0 FROM (SELECT randUniform(5, 7) AS u, randCanonical() AS c, randBernoulli(0.3) AS b, randBinomial(10, 0.4) AS n, randExponential(2) AS e, randLogNormal(0, 1) AS l, randPoisson(4) AS p, randChiSquared(3) AS x, randFisherF(3, 4) AS f FROM numbers(1000));
SELECT abs(avg(randNormal(10, 1)) - 10) < 0.5, abs(avg(randUniform(0, 1)) - 0.5) < 0.1, abs(avg(randPoisson(4)) - 4) < 1, abs(avg(randBernoulli(0.25)) - 0.25) < 0.1, count(DISTINCT randUniform(0, 1)) > 900 FROM numbers(1000);
SELECT count(DISTINCT randConstant()) FROM numbers(10);
SELECT randUniform(5, 5), randBernoulli(0), randBernoulli(1), randBinomial(10, 1), randNegativeBinomial(3, 1);
SELECT randUniform(1, 0); -- { serverError BAD_ARGUMENTS }
SELECT randBernoulli(2); -- { serverError BAD_ARGUMENTS }
SELECT randBinomial(10, 2); -- { serverError BAD_ARGUMENTS }
SELECT randNormal('a', 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- random text: lengths
SELECT length(randomString(5)) >= 5, length(randomFixedString(4)), length(randomPrintableASCII(7)), lengthUTF8(randomStringUTF8(6)), isValidUTF8(randomStringUTF8(50)), randomString(0), randomPrintableASCII(0);
SELECT min(length(s)), max(length(s)), countIf(match(s, '^[ -~]*$')) FROM (SELECT randomPrintableASCII(number % 20) AS s FROM numbers(100));
SELECT fuzzBits('abc', 0.), length(fuzzBits('abcd', 0.5)) >= 4, fuzzBits('', 0.5), fuzzBits(toFixedString('ab', 2), 0.);
SELECT randomFixedString(0); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT fuzzBits('abc', materialize(0.5)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- geometry
SELECT pointInEllipses(10., 10., 10., 9.1, 1., 0.9999), pointInEllipses(0., 0., 1., 1., 1., 1.), pointInEllipses(1., 1., 1., 1., 0.1, 0.1, 5., 5., 1., 1.), pointInEllipses(5.5, 5., 1., 1., 0.1, 0.1, 5., 5., 1., 1.), toTypeName(pointInEllipses(0., 0., 1., 1., 1., 1.));
SELECT pointInEllipses(1., 1., 1., 1.); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT pointInEllipses(0, 0, 1, 1, 1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT pointInPolygon((3., 3.), [(6, 0), (8, 4), (5, 8), (0, 2)]), pointInPolygon((0., 0.), [(1, 1), (2, 1), (2, 2)]), toTypeName(pointInPolygon((3., 3.), [(6, 0), (8, 4), (5, 8), (0, 2)]));
SELECT pointInPolygon((5., 5.), [(0., 0.), (10., 0.), (10., 10.), (0., 10.)], [(4., 4.), (6., 4.), (6., 6.), (4., 6.)]), pointInPolygon((2., 2.), [(0., 0.), (10., 0.), (10., 10.), (0., 10.)], [(4., 4.), (6., 4.), (6., 6.), (4., 6.)]);
SELECT number, pointInPolygon((number + 0.5, 1.5), [(0., 0.), (3., 0.), (3., 3.), (0., 3.)]) FROM numbers(5) ORDER BY number;
SELECT name FROM system.functions WHERE name IN ('randNormal', 'randUniform', 'randExponential', 'randLogNormal', 'randBernoulli', 'randBinomial', 'randPoisson', 'randChiSquared', 'randStudentT', 'randFisherF', 'randNegativeBinomial', 'randCanonical', 'randConstant', 'randomString', 'randomFixedString', 'randomPrintableASCII', 'randomStringUTF8', 'fuzzBits', 'pointInEllipses', 'pointInPolygon') ORDER BY name;
