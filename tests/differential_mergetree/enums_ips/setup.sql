-- Enum8/Enum16, IPv4 and IPv6 columns: storage, text forms, comparisons with literals,
-- conversions and defaults, in chdb and in Granary.
CREATE DATABASE IF NOT EXISTS ei;
CREATE TABLE ei.hits (id UInt32, kind Enum8('view' = 1, 'click' = 2, 'buy' = 3, 'it''s' = -5), level Enum16('low' = -1000, 'mid' = 0, 'high' = 1000), auto Enum('x', 'y'), ip IPv4, ip6 IPv6, maybe Nullable(IPv4), tags Array(Enum8('a' = 1, 'b' = 2))) ENGINE = MergeTree ORDER BY (kind, id);
INSERT INTO ei.hits (id) VALUES (0);
INSERT INTO ei.hits VALUES (1, 'view', 'low', 'x', '10.0.0.1', '::1', NULL, ['a']), (2, 'click', 'mid', 'y', '10.0.0.2', '2001:db8::1', '1.1.1.1', ['a', 'b']), (3, 'buy', 'high', 'x', '192.168.1.10', '::ffff:192.168.1.10', NULL, []), (4, -5, 0, 2, '255.255.255.255', '1.2.3.4', '8.8.8.8', ['b']);
INSERT INTO ei.hits SELECT 100 + number, ['view', 'click', 'buy'][number % 3 + 1], ['low', 'mid', 'high'][number % 3 + 1], 'y', toIPv4(3232235776 + number), toIPv6(concat('2001:db8::', toString(number))), NULL, [] FROM numbers(50);
