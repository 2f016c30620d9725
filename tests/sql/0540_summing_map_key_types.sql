-- SummingMergeTree nested maps: every key type ClickHouse sums by (integers of any width,
-- Bool, dates, Enum, IPv4/IPv6, UUID, strings, LowCardinality), ordered as ClickHouse
-- orders them, and every value type it sums (wide integers wrap, Nullable, Bool).
CREATE TABLE k (k UInt8,
    eMap Nested(id Enum8('z' = -1, 'a' = 1, 'b' = 2), v UInt32),
    e16Map Nested(id Enum16('x' = 300, 'y' = -300), v UInt32),
    ip4Map Nested(id IPv4, v UInt32),
    ip6Map Nested(id IPv6, v UInt32),
    uuidMap Nested(id UUID, v UInt32)) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO k VALUES (1, ['b', 'z'], [1, 2], ['x', 'y'], [1, 2], ['255.0.0.0', '0.0.0.255'], [1, 2], ['ff00::', '::ffff:1.2.3.4'], [1, 2],
    ['00000000-0000-0000-ff00-000000000000', 'ff000000-0000-0000-0000-000000000000'], [1, 2]);
INSERT INTO k VALUES (1, ['a', 'b'], [3, 4], ['y'], [5], ['1.0.0.0', '255.0.0.0'], [3, 4], ['::1', '1::', '::100'], [3, 4, 5],
    ['00000000-0000-0001-0000-000000000000', '00000000-0000-0000-0000-000000000001', '00000001-0000-0000-0000-000000000000'], [3, 4, 5]);
SELECT * FROM k FINAL FORMAT Vertical;
OPTIMIZE TABLE k FINAL;
SELECT * FROM k FORMAT Vertical;
CREATE TABLE w (k UInt8,
    i128Map Nested(id Int128, v Int128),
    u128Map Nested(id UInt128, v UInt128),
    i256Map Nested(id Int256, v Int256),
    u256Map Nested(id UInt256, v UInt256)) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO w VALUES (1, [-170141183460469231731687303715884105728, 5], [-1, 7], [340282366920938463463374607431768211455, 18446744073709551616], [1, 2],
    [-57896044618658097711785492504343953926634992332820282019728792003956564819968, -1], [1, -1],
    [115792089237316195423570985008687907853269984665640564039457584007913129639935, 1], [115792089237316195423570985008687907853269984665640564039457584007913129639935, 1]);
INSERT INTO w VALUES (1, [5, 0], [170141183460469231731687303715884105727, 1], [18446744073709551616, 1], [340282366920938463463374607431768211455, 3],
    [-1, 18446744073709551616], [1, 9], [57896044618658097711785492504343953926634992332820282019728792003956564819968, 1], [2, 115792089237316195423570985008687907853269984665640564039457584007913129639935]);
SELECT * FROM w FINAL FORMAT Vertical;
OPTIMIZE TABLE w FINAL;
SELECT * FROM w FORMAT Vertical;
-- Dates, strings and LowCardinality keys; Nullable, Bool and Decimal values.
CREATE TABLE s (k UInt8,
    dMap Nested(id Date32, v Nullable(Int128)),
    tMap Nested(id DateTime('UTC'), v Nullable(UInt32)),
    fMap Nested(id FixedString(2), v Decimal(40, 3)),
    lcMap Nested(id LowCardinality(String), v Bool),
    bMap Nested(id Bool, v Float32)) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO s VALUES (1, ['2024-01-02', '1969-12-31'], [NULL, 5], ['2024-01-01 00:00:01', '2024-01-01 00:00:00'], [1, NULL], ['bb', 'a'], [1.5, -2.25],
    ['y', 'x'], [true, false], [true, false], [1.5, 2]), (1, ['2024-01-02'], [3], ['2024-01-01 00:00:01'], [NULL], ['a'], [2.25], ['x', 'y'], [false, true], [false], [-2]);
SELECT * FROM s FORMAT Vertical;
-- Several key columns of the new types: ClickHouse's older rule.
CREATE TABLE c (k UInt8, xMap Nested(id UUID, ipKey IPv6, eType Enum8('a' = 1, 'b' = 2), hits Int128)) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO c VALUES (1, ['00000000-0000-0000-0000-000000000002', '00000000-0000-0001-0000-000000000000'], ['::1', '::1'], ['a', 'b'], [1, 2]);
INSERT INTO c VALUES (1, ['00000000-0000-0001-0000-000000000000', '00000000-0000-0000-0000-000000000002'], ['::1', '::2'], ['b', 'a'], [-2, 3]);
OPTIMIZE TABLE c FINAL;
SELECT * FROM c;
-- Not summed, the first row's arrays kept: Nullable keys, Decimal, DateTime64 and float
-- keys, LowCardinality(Nullable) keys, values that are not numbers (IPv4, UUID, dates, Enum).
CREATE TABLE n (k UInt8,
    nMap Nested(id Nullable(UInt32), v UInt32),
    decMap Nested(id Decimal(9, 2), v UInt32),
    dt64Map Nested(id DateTime64(3, 'UTC'), v UInt32),
    lcnMap Nested(id LowCardinality(Nullable(String)), v UInt32),
    ipvMap Nested(id UInt8, v IPv4),
    uvMap Nested(id UInt8, v UUID),
    dvMap Nested(id UInt8, v Date),
    evMap Nested(id UInt8, v Enum8('a' = 1))) ENGINE = SummingMergeTree ORDER BY k;
INSERT INTO n VALUES (1, [2, 1], [1, 1], [2.5, 1.5], [1, 1], ['2024-01-01 00:00:00.002', '2024-01-01 00:00:00.001'], [1, 1], ['b', 'a'], [1, 1],
    [2, 1], ['0.0.0.1', '0.0.0.2'], [2, 1], ['00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002'], [2, 1], ['2024-01-01', '2024-01-02'], [2, 1], ['a', 'a']);
INSERT INTO n VALUES (1, [1], [5], [1.5], [5], ['2024-01-01 00:00:00.001'], [5], ['a'], [5], [1], ['0.0.0.3'], [1], ['00000000-0000-0000-0000-000000000003'], [1], ['2024-01-03'], [1], ['a']);
OPTIMIZE TABLE n FINAL;
SELECT * FROM n FORMAT Vertical;
