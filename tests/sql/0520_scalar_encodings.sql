-- xxHash32, unbin, base32 and base58 (with their try forms) over constants, columns and NULLs.
CREATE TABLE t (id UInt32, s String, ns Nullable(String), n UInt64, f Float64) ENGINE = MergeTree ORDER BY id;
INSERT INTO t VALUES (1, 'hello', 'hello', 1, 1.5), (2, '', NULL, 0, -0.25), (3, 'The quick brown fox jumps over the lazy dog', '\0\0a', 18446744073709551615, 1e300), (4, 'abc', 'Cn8eVZg', 42, 0);
SELECT xxHash32('abc'), xxHash32(''), xxHash32(1), xxHash32(1, 2), xxHash32(toUInt64(5)), xxHash32(1.5), toTypeName(xxHash32(1));
SELECT xxHash32(NULL), xxHash32(toNullable('a')), toTypeName(xxHash32(toNullable('a')));
SELECT id, xxHash32(s), xxHash32(ns), xxHash32(n), xxHash32(f), xxHash32(s, n, 'k'), xxHash32(toFixedString(s, 50)) FROM t ORDER BY id;
SELECT hex(unbin('101')), hex(unbin('0')), hex(unbin('000000000')), unbin('0100000101000010'), hex(unbin('abc')), hex(unbin('12')), unbin(''), toTypeName(unbin('1'));
SELECT unbin(toFixedString('01000001', 8)), unbin(bin('hello')), unbin(NULL), unbin(toNullable('01000010'));
SELECT id, unbin(bin(s)) = s, hex(unbin(toString(n % 1000))) FROM t ORDER BY id;
SELECT base32Encode('hello'), base32Encode(''), base32Encode('f'), base32Encode('fo'), base32Encode('foo'), base32Encode('foob'), base32Encode('fooba'), base32Encode('foobar');
SELECT base32Decode('NBSWY3DP'), base32Decode('nbswy3dp'), base32Decode('MY======'), base32Decode('MZXW6YQ='), base32Decode(''), base32Encode(toFixedString('ab', 3));
SELECT tryBase32Decode('!!'), tryBase32Decode('NBSWY3D'), tryBase32Decode('MZ======'), tryBase32Decode('M======='), tryBase32Decode('MY=====A'), tryBase32Decode(NULL);
SELECT base32Decode('NBSWY3D'); -- { serverError INCORRECT_DATA }
SELECT base32Decode('NBSWY3DP='); -- { serverError INCORRECT_DATA }
SELECT base32Encode(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT id, base32Encode(s), base32Decode(base32Encode(s)) = s, base32Encode(ns), tryBase32Decode(ns) FROM t ORDER BY id;
SELECT base58Encode('hello'), base58Encode(''), base58Encode('\0\0a'), base58Encode('\0'), base58Decode('Cn8eVZg'), hex(base58Decode('1')), base58Decode('');
SELECT tryBase58Decode('0OIl'), tryBase58Decode('abc!'), tryBase58Decode('2g'), base58Encode(NULL), base58Encode(toNullable('a'));
SELECT base58Decode('0'); -- { serverError INCORRECT_DATA }
SELECT base58Encode(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT id, base58Encode(s), base58Decode(base58Encode(s)) = s, base58Encode(ns), hex(tryBase58Decode(ns)) FROM t ORDER BY id;
