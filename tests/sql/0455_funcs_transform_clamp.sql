-- transform (3 and 4 arguments), clamp and widthBucket over constants, table columns and NULLs.
DROP TABLE IF EXISTS codes;
CREATE TABLE codes (id UInt32, code String, n Nullable(Int64), x Float64) ENGINE = MergeTree ORDER BY id;
INSERT INTO codes VALUES (1, 'de', 1, -3.5), (2, 'fr', NULL, 0), (3, 'us', 3, 4.25), (4, 'xx', 2, 12), (5, 'de', 5, 7.75);
SELECT id, transform(code, ['de', 'fr', 'us'], ['Germany', 'France', 'USA'], 'other'), transform(code, ['de', 'fr'], ['DE', 'FR']), transform(id, [1, 3, 5], [10, 30, 50], 0), transform(n, [1, 2], [100, 200], -1), transform(x, [0, 4.25], [1, 2], 0) FROM codes ORDER BY id;
SELECT toTypeName(transform(code, ['de'], ['Germany'], 'other')), toTypeName(transform(id, [1], [1000], 0)), toTypeName(transform(n, [1], [2], 0)), toTypeName(transform(id, [1, 2], [10, 20])) FROM codes LIMIT 1;
SELECT transform(number, [1, 1], [10, 20], 0), transform(number, [1, 2], [10, NULL], 0), transform(toDate('2020-01-01') + number, [toDate('2020-01-02')], ['x'], 'y'), transform(number, [0, 2], [-1, 300], 7) FROM numbers(3);
SELECT transform(number, [1], [10, 20], 0) FROM numbers(3); -- { serverError BAD_ARGUMENTS }
SELECT transform(if(number = 1, NULL, number), [0, 1], [5, 6]) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT id, clamp(x, 0, 10), clamp(n, 2, 4), clamp(id, toUInt32(2), toUInt32(4)), clamp(code, 'e', 'v'), toTypeName(clamp(n, 2, 4)) FROM codes ORDER BY id;
SELECT clamp(5, 1, 3), clamp(-1, 0, 10), toTypeName(clamp(toUInt8(5), 1, 300)), clamp(2.5, 1, 3), toTypeName(clamp(toInt8(1), toUInt8(2), 3)), clamp(NULL, 1, 2);
SELECT clamp(1, 5, 3); -- { serverError BAD_ARGUMENTS }
SELECT id, widthBucket(x, -4, 8, 6), widthBucket(n, 0, 5, toUInt32(10)), toTypeName(widthBucket(x, -4, 8, 6)), toTypeName(widthBucket(n, 0, 5, toUInt32(10))) FROM codes ORDER BY id;
SELECT widthBucket(10.15, -8.6, 23, 18), widthBucket(-10, 0, 10, 5), widthBucket(100, 0, 10, 5), widthBucket(5, 10, 0, 5), widthBucket(10, 0, 10, 5), widthBucket(5, 5, 5, 3), widthBucket(1, 0, 10, toUInt64(18446744073709551615)), widthBucket(inf, 0, 10, 3);
SELECT widthBucket(5, 0, 10, 0); -- { serverError BAD_ARGUMENTS }
SELECT widthBucket(5, 0, 10, -1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT widthBucket(nan, 0, 10, 3); -- { serverError BAD_ARGUMENTS }
