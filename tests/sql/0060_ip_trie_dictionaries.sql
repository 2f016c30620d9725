-- IP_TRIE dictionaries: String prefixes (CIDR, plain addresses are full length), longest-prefix lookups by IPv4 (UInt32) and IPv6 (FixedString(16)) addresses
CREATE TABLE networks (prefix String, asn UInt32, cca2 String) ENGINE = MergeTree ORDER BY prefix;
INSERT INTO networks VALUES ('10.0.0.0/8', 1, 'A'), ('10.1.0.0/16', 2, 'B'), ('10.1.2.3', 3, 'C'), ('10.2.0.0/16', 4, 'D'), ('10.2.5.0/24', 5, 'E'), ('192.168.0.1/24', 6, 'F'), ('0.0.0.0/1', 7, 'G');
CREATE DICTIONARY ipv4_dict (prefix String, asn UInt32, cca2 String DEFAULT '??') PRIMARY KEY prefix SOURCE(CLICKHOUSE(TABLE 'networks')) LAYOUT(IP_TRIE(access_to_key_from_attributes 1)) LIFETIME(0);
SELECT address, dictGet('ipv4_dict', 'asn', IPv4StringToNum(address)) AS asn, dictGet('ipv4_dict', 'cca2', IPv4StringToNum(address)), dictGet('ipv4_dict', 'prefix', IPv4StringToNum(address)), dictHas('ipv4_dict', IPv4StringToNum(address)) FROM (SELECT arrayJoin(['10.1.2.3', '10.1.2.4', '10.1.255.255', '10.2.5.200', '10.2.6.1', '10.3.0.1', '10.255.255.255', '11.0.0.0', '127.0.0.1', '128.0.0.1', '192.168.0.77', '192.168.1.1', '0.0.0.0', '255.255.255.255']) AS address) ORDER BY address;
-- IPv6 addresses reach IPv4 prefixes through the IPv4-mapped form only
SELECT dictGet('ipv4_dict', 'asn', IPv6StringToNum('::ffff:10.1.2.3')), dictGet('ipv4_dict', 'asn', IPv6StringToNum('10.2.5.1')), dictGet('ipv4_dict', 'asn', IPv6StringToNum('::10.1.2.3')), dictHas('ipv4_dict', IPv6StringToNum('2001:db8::1'));
SELECT dictGetOrNull('ipv4_dict', 'asn', IPv4StringToNum('200.1.1.1')), dictGetOrNull('ipv4_dict', 'asn', IPv4StringToNum('10.1.2.3')), dictGetOrDefault('ipv4_dict', 'cca2', IPv4StringToNum('200.1.1.1'), 'none'), dictGetString('ipv4_dict', 'prefix', IPv4StringToNum('10.9.9.9')), dictGetUInt32('ipv4_dict', 'asn', toUInt32(167838211)), dictGet('ipv4_dict', 'asn', 167838211);
SELECT number, dictGet('ipv4_dict', 'prefix', toUInt32(number * 2654435761 % 4294967296)) AS p FROM numbers(20) ORDER BY number;
-- The key column shows each prefix masked, sorted by network then length, duplicates once (the first row)
SELECT * FROM ipv4_dict ORDER BY asn;
SELECT count(), min(prefix) FROM dictionary('ipv4_dict');
SELECT name, type, `key.names`, `key.types`, `attribute.names`, `attribute.types`, element_count, status FROM system.dictionaries WHERE name = 'ipv4_dict';
-- One IPv6 prefix makes every IPv4 prefix IPv4-mapped
CREATE TABLE mixed (prefix String, asn UInt32) ENGINE = MergeTree ORDER BY prefix;
INSERT INTO mixed VALUES ('202.79.32.0/20', 17501), ('2620:0:870::/48', 3856), ('2a02:6b8:1::/48', 13238), ('2001:db8::/32', 65536), ('2001:db8:1::/48', 65537), ('10.0.0.0/8', 1), ('10.1.2.3', 3), ('::ffff:1.2.3.4/120', 9);
CREATE DICTIONARY mixed_dict (prefix String, asn UInt32) PRIMARY KEY prefix SOURCE(CLICKHOUSE(TABLE 'mixed')) LAYOUT(IP_TRIE) LIFETIME(0);
SELECT prefix, asn FROM mixed_dict ORDER BY asn;
SELECT address, dictGet('mixed_dict', 'asn', IPv6StringToNum(address)) FROM (SELECT arrayJoin(['2001:db8::1', '2001:db8:1::1', '2001:db9::1', '2620:0:870:ffff::1', '2a02:6b8:1:2::3', '::ffff:10.1.2.3', '::ffff:10.1.2.4', '::ffff:1.2.3.200', '::1']) AS address) ORDER BY address;
SELECT dictGet('mixed_dict', 'asn', IPv4StringToNum('10.1.2.3')), dictGet('mixed_dict', 'asn', IPv4StringToNum('10.200.0.1')), dictGet('mixed_dict', 'asn', IPv4StringToNum('202.79.47.255')), dictGet('mixed_dict', 'asn', IPv4StringToNum('202.79.48.0'));
SELECT `key.types`, element_count FROM system.dictionaries WHERE name = 'mixed_dict';
-- Only the key needs access_to_key_from_attributes; addresses must be IPv4 (UInt32) or IPv6 (FixedString(16))
SELECT dictGet('mixed_dict', 'prefix', IPv4StringToNum('10.1.2.3')); -- { serverError BAD_ARGUMENTS }
SELECT dictGet('mixed_dict', 'asn', toUInt64(167838211)); -- { serverError TYPE_MISMATCH }
SELECT dictGet('mixed_dict', 'asn', toFixedString('abc', 3)); -- { serverError TYPE_MISMATCH }
SELECT dictGet('mixed_dict', 'asn', 1); -- { serverError TYPE_MISMATCH }
SELECT dictGet('mixed_dict', 'asn', IPv4StringToNum('10.1.2.3'), 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
-- A prefix that does not parse fails the load, with the source row's text
CREATE TABLE broken (prefix String, asn UInt32) ENGINE = MergeTree ORDER BY prefix;
INSERT INTO broken VALUES ('10.0.0.0/8', 1), ('10.0.0.0/33', 2);
CREATE DICTIONARY broken_dict (prefix String, asn UInt32) PRIMARY KEY prefix SOURCE(CLICKHOUSE(TABLE 'broken')) LAYOUT(IP_TRIE) LIFETIME(0);
SELECT dictGet('broken_dict', 'asn', IPv4StringToNum('10.0.0.1')); -- { serverError CANNOT_PARSE_INPUT_ASSERTION_FAILED }
SELECT status, last_exception LIKE '%Can\'t parse address "10.0.0.0/33": Invalid argument%' FROM system.dictionaries WHERE name = 'broken_dict';
-- IP address functions
SELECT IPv4StringToNum('10.1.2.3'), IPv4NumToString(167838211), IPv4StringToNumOrDefault('nope'), IPv4StringToNumOrNull('1.2.3'), hex(IPv6StringToNum('2001:db8::1')), hex(IPv6StringToNum('1.2.3.4')), IPv6NumToString(IPv6StringToNum('2001:db8:0:0:1:0:0:1'));
SELECT IPv6NumToString(IPv6StringToNum('::a01:203')), IPv6NumToString(IPv6StringToNumOrDefault('zz')), IPv6StringToNumOrNull('zz'), isIPv4String('01.2.3.4'), isIPv6String('::ffff:1.2.3.4'), INET_NTOA(INET_ATON('8.8.4.4'));
SELECT IPv4StringToNum('1.2.3.256'); -- { serverError CANNOT_PARSE_IPV4 }
SELECT IPv6StringToNum('1:2:3:4:5:6:7:8:9'); -- { serverError CANNOT_PARSE_IPV6 }
SELECT IPv6NumToString(toFixedString('abc', 3)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
