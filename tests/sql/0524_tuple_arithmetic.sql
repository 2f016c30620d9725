-- Tuple arithmetic, tupleNames, tupleConcat and dotProduct on tuples, over constants, columns and NULLs.
CREATE TABLE t (id UInt32, a Tuple(x Int32, y Float64), b Tuple(UInt8, UInt8), n Nullable(Int64), k UInt16) ENGINE = MergeTree ORDER BY id;
INSERT INTO t VALUES (1, (1, 2.5), (3, 4), 2, 7), (2, (-7, 0), (0, 255), NULL, 1), (3, (2147483647, -1e10), (1, 1), -3, 65535);
SELECT tuplePlus((1, 2), (3, 4)) AS a, toTypeName(a), tupleMinus((1, 2), (3, 4)) AS b, toTypeName(b), tupleMultiply((1, 2), (3, 4.5)) AS c, toTypeName(c), tupleDivide((1, 2), (3, 4)) AS d, toTypeName(d);
SELECT tupleNegate((1, -2.5)) AS a, toTypeName(a), tupleMultiplyByNumber((1, 2), 2.5) AS b, toTypeName(b), tupleDivideByNumber((1, 2), 2) AS c, toTypeName(c), tupleModulo((7, 8), (3, 5)) AS d, toTypeName(d), tupleIntDiv((7, 8), (3, 5)) AS e, toTypeName(e);
SELECT tupleModuloByNumber((7, 8), 3) AS a, toTypeName(a), tupleIntDivByNumber((7, 8), 3) AS b, toTypeName(b), tupleIntDivOrZero((7, 8), (0, 5)) AS c, tupleIntDivOrZeroByNumber((7, 8), 0) AS d;
SELECT tupleNames(CAST((1, 'a') AS Tuple(x Int32, y String))) AS a, toTypeName(a), tupleNames((1, 2)) AS b, tupleConcat((1, 'a'), tuple(2.5), (3, [1])) AS c, toTypeName(c), tupleConcat(CAST((1, 'a') AS Tuple(x Int32, y String)), CAST(tuple(2) AS Tuple(z Int8))) AS d, toTypeName(d);
SELECT dotProduct((1, 2), (3, 4)) AS a, toTypeName(a), dotProduct((1.5, 2), (3, 4)) AS b, toTypeName(b), scalarProduct((1, 2), (3, 4)), dotProduct([1, 2], [3, 4]) AS c, toTypeName(c);
SELECT tuplePlus(CAST((1, 2) AS Tuple(a Int32, b Int32)), (3, 4)) AS a, toTypeName(a);
SELECT tuplePlus((1, 2), NULL), tuplePlus(toNullable((1, 2)), (1, 1)) AS b, toTypeName(b);
SELECT id, tuplePlus(a, b) AS p, toTypeName(p), tupleMinus(a, (n, k)) AS m, toTypeName(m), tupleMultiplyByNumber(b, k) AS q, toTypeName(q), tupleDivideByNumber(a, n) AS r, toTypeName(r) FROM t ORDER BY id;
SELECT id, tupleNegate(a), tupleIntDivOrZero(b, (k, n)), tupleModuloByNumber(b, 3), dotProduct(a, b) AS d, toTypeName(d), tupleNames(a), tupleConcat(a, b, tuple(n)) AS c, toTypeName(c) FROM t ORDER BY id;
SELECT tuplePlus((1, 2), (3, 4, 5)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tuplePlus((1, 'a'), (3, 4)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tupleNames(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tupleConcat(tuple(1), 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tupleMultiplyByNumber((1, 2), 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT (1, 2) + (3, 4) AS a, toTypeName(a), (1, 2) - (3, 4) AS b, toTypeName(b), (1, 2) * (3, 4) AS c, toTypeName(c), (1, 2) * 2 AS e, toTypeName(e), 2 * (1, 2) AS f, toTypeName(f), (4, 2) / 2 AS g, toTypeName(g), -(1, 2) AS h, toTypeName(h), (4, 2) % 3 AS i, toTypeName(i);
SELECT id, a + b AS p, toTypeName(p), a - (n, k) AS m, b * k AS q, toTypeName(q), k * b, a / 2, -a, b % 7, a * b AS d, toTypeName(d) FROM t ORDER BY id;
SELECT (4, 2) + 1; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT (1, 2) / (3, 4); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT L1Norm((1, -2)) AS c, toTypeName(c), L2Norm((3, 4)) AS d, toTypeName(d), LinfNorm((1, -5)) AS e, toTypeName(e), L2Distance((1, 2), (4, 6)) AS f, toTypeName(f), cosineDistance((1, 0), (0, 1)) AS g, toTypeName(g), L2SquaredNorm((3, 4)) AS h, toTypeName(h), L1Distance((1, 2), (4, 6)) AS i, toTypeName(i), LinfDistance((1, 2), (4, 6)) AS j, toTypeName(j), L2SquaredDistance((1, 2), (4, 6)) AS k, toTypeName(k);
SELECT L1Norm((1.5, -2)) AS c, toTypeName(c), LinfNorm((toInt8(1), toInt8(-5))) AS e, toTypeName(e), L2Norm((toFloat32(3), 4)) AS d, toTypeName(d), normL1((1, 2)), distanceL2((0, 0), (3, 4)), L2Norm([3, 4]);
SELECT id, L1Norm(a), L2Norm(b), LinfNorm(a), L2SquaredNorm(b) AS q, toTypeName(q), L1Distance(a, b), L2Distance(a, b), LinfDistance(a, b), L2SquaredDistance(b, (k, k)) AS s, toTypeName(s), round(cosineDistance(a, b), 12) FROM t ORDER BY id;
