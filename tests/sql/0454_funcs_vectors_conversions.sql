-- Array norms and distances, to<Type>OrDefault, toUnixTimestamp64Second and fromUnixTimestamp64*.
DROP TABLE IF EXISTS vecs;
CREATE TABLE vecs (id UInt32, a Array(Float64), b Array(Float64), f Array(Float32), i Array(Int32)) ENGINE = MergeTree ORDER BY id;
INSERT INTO vecs VALUES (1, [3, 4], [0, 0], [3, 4], [1, -2]), (2, [1, 2, 3], [4, 5, 6], [1, 2, 2], [-5, 4, 3]), (3, [], [], [], []), (4, [1, 0], [0, 1], [0.5, 0.25], [7, 0]);
SELECT id, L1Norm(a), L2Norm(a), L2SquaredNorm(a), LinfNorm(a), L2Norm(f), L1Norm(i), LinfNorm(i), normL2(i) FROM vecs ORDER BY id;
SELECT id, L1Distance(a, b), L2Distance(a, b), L2SquaredDistance(a, b), LinfDistance(a, b), cosineDistance(a, b), distanceL2(i, a), dotProduct(a, b), scalarProduct(i, i) FROM vecs ORDER BY id;
SELECT toTypeName(L2Norm(f)), toTypeName(L2Norm(i)), toTypeName(L2Distance(f, f)), toTypeName(L2Distance(f, a)), toTypeName(cosineDistance(i, i)) FROM vecs LIMIT 1;
SELECT L2Distance([1, 2], [1]); -- { serverError SIZES_OF_ARRAYS_DONT_MATCH }
SELECT L2Norm(['a']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
DROP TABLE IF EXISTS texts;
CREATE TABLE texts (id UInt32, s String, n Nullable(String)) ENGINE = MergeTree ORDER BY id;
INSERT INTO texts VALUES (1, '12', '7'), (2, 'x', NULL), (3, '300', '2020-01-01'), (4, '-1', '1.5');
SELECT id, toInt32OrDefault(s), toUInt8OrDefault(s), toInt8OrDefault(s, toInt8(-100)), toFloat64OrDefault(n), toDateOrDefault(n), toUInt64OrDefault(n, toUInt64(42)), toDate32OrDefault(s) FROM texts ORDER BY id;
SELECT toTypeName(toInt32OrDefault(n)), toTypeName(toFloat32OrDefault(s)), toUUIDOrDefault('x'), toInt16OrDefault('5'), toUInt32OrDefault('4294967296') FROM texts LIMIT 1;
SELECT toInt32OrDefault('x', 5); -- { serverError BAD_ARGUMENTS }
SELECT toUnixTimestamp64Second(toDateTime64('2020-01-01 00:00:00.5', 3, 'UTC')), fromUnixTimestamp64Milli(1577836800500, 'UTC'), fromUnixTimestamp64Second(1577836800, 'UTC'), fromUnixTimestamp64Micro(toInt64(1), 'Asia/Tokyo'), fromUnixTimestamp64Nano(1577836800123456789, 'UTC');
SELECT id, fromUnixTimestamp64Milli(toInt64(id) * 1000000000, 'UTC'), toTypeName(fromUnixTimestamp64Second(toNullable(id), 'UTC')), toTypeName(fromUnixTimestamp64Nano(id)) FROM texts ORDER BY id;
SELECT fromUnixTimestamp64Milli(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
