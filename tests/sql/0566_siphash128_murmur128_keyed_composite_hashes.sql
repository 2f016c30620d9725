-- sipHash128, sipHash128Reference, murmurHash3_128 (FixedString(16)), the keyed SipHashes, and every hash of arrays, tuples, maps and NULLs inside them
SELECT s, hex(sipHash128(s)), hex(sipHash128Reference(s)), hex(murmurHash3_128(s)) FROM (SELECT arrayJoin(['', 'a', 'abc', 'abcdefgh', 'abcdefghijklmnopq', 'The quick brown fox jumps over the lazy dog']) AS s) ORDER BY s;
SELECT toTypeName(sipHash128('a')), toTypeName(sipHash128Reference('a')), toTypeName(murmurHash3_128('a')), toTypeName(sipHash64Keyed((1::UInt64, 2::UInt64), 'a')), toTypeName(sipHash128Keyed((1::UInt64, 2::UInt64), 'a')), toTypeName(sipHash128ReferenceKeyed((1::UInt64, 2::UInt64), 'a'));
SELECT hex(sipHash128(1)), hex(sipHash128(1, 'a', 2.5)), hex(sipHash128Reference(1, 'a')), hex(murmurHash3_128(-1, toDate('2024-02-29'))), hex(murmurHash3_128(1.5::Float32));
SELECT sipHash64Keyed((1::UInt64, 2::UInt64), 'abc'), sipHash64Keyed((0::UInt64, 0::UInt64), 'abc') = sipHash64('abc'), sipHash64Keyed((1::UInt64, 2::UInt64), 1, 'a');
SELECT hex(sipHash128Keyed((1::UInt64, 2::UInt64), 'abc')), hex(sipHash128Keyed((1::UInt64, 2::UInt64), 1, 'a')), hex(sipHash128ReferenceKeyed((1::UInt64, 2::UInt64), 'abc')), hex(sipHash128ReferenceKeyed((0::UInt64, 0::UInt64), 'abc')) = hex(sipHash128Reference('abc'));
SELECT number, sipHash64Keyed((number, number + 1), 'x'), hex(sipHash128Keyed((number, 7::UInt64), number, 'x')), hex(sipHash128ReferenceKeyed((7::UInt64, number), [number])) FROM numbers(3);
SELECT sipHash64Keyed((1, 2), 'abc'); -- { serverError BAD_ARGUMENTS }
SELECT sipHash64Keyed(1, 'abc'); -- { serverError BAD_ARGUMENTS }
-- no arguments, arrays, tuples, maps and NULLs inside them, for the old hashes too
SELECT cityHash64(), hex(sipHash128()), xxHash32(), cityHash64(tuple()), hex(sipHash128(tuple()));
SELECT cityHash64([1, 2]), cityHash64([]), cityHash64(tuple(NULL)), cityHash64(map(1, 'a')), cityHash64([1, 2], 'a'), cityHash64('a', [1, 2]), cityHash64(([1], 'a')), cityHash64('x', (1, 'a'), 2);
SELECT hex(sipHash128([])), hex(sipHash128(tuple(NULL))), xxHash32([1, 2]), xxHash32(tuple(NULL)), murmurHash2_32(['a', 'b']), sipHash64([[1], [2, 3]]), halfMD5(['a', NULL]), hiveHash(tuple('abc'));
SELECT sipHash64Keyed((1::UInt64, 2::UInt64), []), sipHash64Keyed((1::UInt64, 2::UInt64), tuple(NULL)), hex(sipHash128Keyed((1::UInt64, 2::UInt64), [1, NULL]));
SELECT number, cityHash64([number, number + 1]), xxh3((number, toString(number))), farmHash64(range(number)), wyHash64(map(number, 'v')), murmurHash3_64(number, range(number)) FROM numbers(4);
SELECT number, sipHash64Keyed((number, 1::UInt64), [number, 2]), hex(sipHash128Keyed((number, 2::UInt64), [toString(number)], (number, 'z'))) FROM numbers(3);
SELECT cityHash64((1, (2, 'x')), [(1, 'a'), (2, 'b')]), sipHash64([toNullable(1), NULL]), metroHash64(tuple(1, NULL, 'a')), farmFingerprint64([[1, 2], []], map('a', [1])), hex(murmurHash3_128(['x'], ('y', [NULL, 'z'])));
SELECT cityHash64(NULL), hex(sipHash128(toNullable('a'))), sipHash64(1, NULL);
SELECT hiveHash((1, 2)); -- { serverError NOT_IMPLEMENTED }
