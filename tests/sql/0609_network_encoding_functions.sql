-- MAC addresses
SELECT MACNumToString(toUInt64(1108152157611)), MACStringToNum('01:02:03:04:05:AB'), MACStringToOUI('01:02:03:04:05:AB'), toTypeName(MACStringToNum('a')), toTypeName(MACNumToString(toUInt64(1)));
SELECT MACStringToNum('zz'), MACStringToNum('1:2:3:4:5:6'), MACStringToOUI('bad'), MACStringToNum('01-02-03-04-05-ab'), MACStringToNum('01:02:03:04:05:ab:'), MACStringToNum('010203040506'), MACStringToNum('');
SELECT MACNumToString('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT MACNumToString(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- UUID bytes
SELECT UUIDNumToString(toFixedString('0123456789abcdef', 16)), UUIDNumToString(toFixedString('0123456789abcdef', 16), 1), UUIDNumToString(toFixedString('0123456789abcdef', 16), 2);
SELECT hex(UUIDStringToNum('00112233-4455-6677-8899-aabbccddeeff')), toTypeName(UUIDStringToNum('00112233-4455-6677-8899-aabbccddeeff')), hex(UUIDToNum(toUUID('00112233-4455-6677-8899-aabbccddeeff'))), toTypeName(UUIDToNum(toUUID('00112233-4455-6677-8899-aabbccddeeff')));
SELECT hex(UUIDStringToNum('00112233-4455-6677-8899-aabbccddeeff', 2)), UUIDNumToString(UUIDStringToNum('00112233-4455-6677-8899-aabbccddeeff', 2), 2), hex(UUIDToNum(toUUID('00112233-4455-6677-8899-aabbccddeeff'), 2));
SELECT hex(UUIDStringToNum('bad')), hex(UUIDStringToNum('00112233445566778899aabbccddeeff'));
SELECT UUIDNumToString(toFixedString('0123456789abcdef', 16), 3); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT UUIDNumToString('abc'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- address ranges
SELECT IPv4CIDRToRange(toIPv4('192.168.5.2'), 16), toTypeName(IPv4CIDRToRange(toIPv4('192.168.5.2'), 16)), IPv6CIDRToRange(toIPv6('2001:0db8:0000:85a3:0000:0000:ac1f:8001'), 32), toTypeName(IPv6CIDRToRange(toIPv6('2001:db8::1'), 32));
SELECT IPv4CIDRToRange(toIPv4('1.2.3.4'), 0), IPv4CIDRToRange(toIPv4('1.2.3.4'), 32), IPv4CIDRToRange(toIPv4('1.2.3.4'), 33), IPv4CIDRToRange(toUInt32(3232235777), 24);
SELECT IPv6CIDRToRange(IPv6StringToNum('2001:db8::1'), 200), IPv6CIDRToRange(toIPv6('::'), 0), IPv6CIDRToRange(toIPv6('2001:db8::1'), 127);
SELECT IPv4CIDRToRange(toIPv4('1.2.3.4'), number) FROM numbers(2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT toTypeName(IPv4ToIPv6(toUInt32(1))), IPv6NumToString(IPv4ToIPv6(IPv4StringToNum('192.168.0.1'))), IPv4ToIPv6(toIPv4('1.2.3.4')), toTypeName(IPv4ToIPv6(toIPv4('1.2.3.4')));
SELECT cutIPv6(IPv6StringToNum('2001:0DB8:AC10:FE01:FEED:BABE:CAFE:F00D'), 2, 0), cutIPv6(IPv4ToIPv6(IPv4StringToNum('192.168.0.1')), 0, 2), toTypeName(cutIPv6(toFixedString('', 16), 0, 0)), cutIPv6(toIPv6('2001:db8::1'), 16, 0);
SELECT cutIPv6(toIPv6('2001:db8::1'), 17, 0); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT isIPAddressInRange('127.0.0.1', '127.0.0.0/8'), isIPAddressInRange('128.0.0.1', '127.0.0.0/8'), isIPAddressInRange('::ffff:192.168.0.1', '::ffff:192.168.0.4/128'), isIPAddressInRange('::ffff:192.168.0.1', '::ffff:192.168.0.4/126'), isIPAddressInRange('127.0.0.1', 'ffff::/16'), toTypeName(isIPAddressInRange('127.0.0.1', '127.0.0.0/8'));
SELECT isIPAddressInRange('2001:db8::5', '2001:db8::/32'), isIPAddressInRange('10.1.2.3', '10.0.0.0/0'), isIPAddressInRange(toNullable('10.1.2.3'), '10.1.0.0/16');
SELECT isIPAddressInRange('bad', '127.0.0.0/8'); -- { serverError CANNOT_PARSE_TEXT }
SELECT isIPAddressInRange('127.0.0.1', 'bad'); -- { serverError CANNOT_PARSE_TEXT }
SELECT IPv4NumToStringClassC(toUInt32(3232235777)), toTypeName(IPv4NumToStringClassC(toUInt32(1))), IPv4NumToStringClassC(toIPv4('1.2.3.4'));
-- encodings and digests
SELECT base64URLEncode('https://clickhouse.com'), base64URLDecode('aHR0cHM6Ly9jbGlja2hvdXNlLmNvbQ'), tryBase64URLDecode('aHR0cHM6Ly9jbGlja2hvdXNlLmNvbQ'), tryBase64URLDecode('%'), base64URLEncode('~~~?'), base64URLEncode('???'), base64URLEncode('a'), base64URLEncode('');
SELECT base64URLDecode('YQ'), base64URLDecode('YWI'), base64URLDecode('fn5-Pw'), base64URLDecode('Pz8_'), base64URLDecode('YQ=='), toTypeName(base64URLEncode('a'));
SELECT base64URLDecode('%'); -- { serverError INCORRECT_DATA }
SELECT hex(SHA512_256('abc')), toTypeName(SHA512_256('abc')), hex(RIPEMD160('abc')), toTypeName(RIPEMD160('abc')), hex(keccak256('abc')), toTypeName(keccak256('abc'));
SELECT hex(SHA512_256('')), hex(RIPEMD160('')), hex(keccak256('')), hex(RIPEMD160(repeat('a', 1000))), hex(keccak256(repeat('x', 200)));
SELECT URLHash('https://a.com/b/c'), URLHash('https://a.com/b/c/'), URLHash('https://a.com/b/c', 1), toTypeName(URLHash('x')), URLHash('https://a.com/b/c?x=1#f', 2);
SELECT URLHash('https://a.com/b/c', 0), URLHash('https://a.com/b/c', 5), URLHash('mailto:x@y.z', 1), URLHash('');
SELECT name FROM system.functions WHERE name IN ('MACNumToString', 'MACStringToNum', 'MACStringToOUI', 'UUIDNumToString', 'UUIDStringToNum', 'UUIDToNum', 'IPv4CIDRToRange', 'IPv6CIDRToRange', 'IPv4ToIPv6', 'cutIPv6', 'isIPAddressInRange', 'IPv4NumToStringClassC', 'base64URLEncode', 'base64URLDecode', 'tryBase64URLDecode', 'SHA512_256', 'RIPEMD160', 'keccak256', 'URLHash') ORDER BY name;
