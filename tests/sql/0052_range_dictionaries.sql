-- RANGE_HASHED dictionaries: several rows per key, each valid over [range_min, range_max] (both ends included, NULL open); overlaps take the range that starts first; lookups need the key and a point
CREATE TABLE prices (id UInt64, start Date, end Nullable(Date), price Float64) ENGINE = MergeTree ORDER BY id;
INSERT INTO prices VALUES (1, '2024-01-01', '2024-01-31', 10), (1, '2024-01-15', '2024-02-15', 20), (1, '2024-03-01', NULL, 30), (2, '2024-01-01', '2024-01-01', 5);
CREATE DICTIONARY price_dict (id UInt64, start Date, end Nullable(Date), price Float64 DEFAULT -1) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'prices')) LAYOUT(RANGE_HASHED()) RANGE(MIN start MAX end) LIFETIME(0);
SELECT d, dictGet('price_dict', 'price', 1, toDate(d)) FROM (SELECT arrayJoin(['2023-12-31', '2024-01-01', '2024-01-14', '2024-01-15', '2024-01-31', '2024-02-01', '2024-02-15', '2024-02-16', '2024-03-01', '2030-01-01']) AS d) ORDER BY d;
SELECT dictGet('price_dict', 'price', 2, toDate('2024-01-01')), dictGet('price_dict', 'price', 2, toDate('2024-01-02')), dictGetOrNull('price_dict', 'price', 3, toDate('2024-01-01')), dictHas('price_dict', toUInt64(1), toDate('2024-01-20')), dictHas('price_dict', toUInt64(1), toDate('2024-02-20'));
SELECT dictGet('price_dict', 'price', 1, toDateTime('2024-01-20 10:00:00')), dictGet('price_dict', 'price', 1, 19740), dictGetOrDefault('price_dict', 'price', 1, toDate('2020-01-01'), 99.5), dictGetFloat64('price_dict', 'price', 1, toDate('2024-02-10'));
SELECT number, dictGet('price_dict', 'price', number % 3, toDate('2024-01-01') + number * 7) FROM numbers(12) ORDER BY number;
SELECT name, type, `key.names`, `attribute.names`, element_count FROM system.dictionaries WHERE name = 'price_dict';
SELECT dictGet('price_dict', 'price', 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT dictGet('price_dict', 'start', 1, toDate('2024-01-01')); -- { serverError BAD_ARGUMENTS }
-- The later-starting range wins with range_lookup_strategy 'max'; DateTime ranges
CREATE TABLE sessions (user UInt64, opened DateTime, closed DateTime, device String) ENGINE = MergeTree ORDER BY user;
INSERT INTO sessions VALUES (7, '2024-05-01 10:00:00', '2024-05-01 12:00:00', 'phone'), (7, '2024-05-01 11:00:00', '2024-05-01 13:00:00', 'laptop');
CREATE DICTIONARY session_dict (user UInt64, opened DateTime, closed DateTime, device String) PRIMARY KEY user SOURCE(CLICKHOUSE(TABLE 'sessions')) LAYOUT(RANGE_HASHED(range_lookup_strategy 'max')) RANGE(MIN opened MAX closed) LIFETIME(0);
SELECT t, dictGet('session_dict', 'device', 7, toDateTime(t)) FROM (SELECT arrayJoin(['2024-05-01 09:59:59', '2024-05-01 10:30:00', '2024-05-01 11:30:00', '2024-05-01 12:30:00', '2024-05-01 13:00:00', '2024-05-01 13:00:01']) AS t) ORDER BY t;
