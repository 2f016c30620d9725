-- MD5 and the SHA family as FixedString bytes, hashes of enums and addresses
SELECT hex(MD5('a')), toTypeName(MD5('a')), hex(MD5(''));
SELECT hex(SHA1('abc')), hex(SHA224('abc')), hex(SHA256('abc')), hex(SHA384('abc')), hex(SHA512('abc'));
SELECT toTypeName(SHA1('')), toTypeName(SHA224('')), toTypeName(SHA256('')), toTypeName(SHA384('')), toTypeName(SHA512(''));
SELECT hex(MD5(toFixedString('ab', 4))), hex(SHA256(toString(number))) FROM numbers(3);
SELECT MD5(NULL), hex(MD5(materialize('x')));
SELECT MD5(1);
SELECT cityHash64(toIPv4('1.2.3.4')), sipHash64(toIPv4('1.2.3.4')), cityHash64(toIPv6('::1')), xxHash64(CAST('a' AS Enum8('a' = 1)));
SELECT length(MD5('a')), MD5('a') = MD5('a'), MD5('a') = MD5('b');
