-- murmurHash2_32, murmurHash2_64, gccMurmurHash, kafkaMurmurHash, murmurHash3_32
SELECT murmurHash2_32(''), murmurHash2_64(''), gccMurmurHash(''), kafkaMurmurHash(''), murmurHash3_32('');
SELECT s, murmurHash2_32(s), murmurHash2_64(s), gccMurmurHash(s), kafkaMurmurHash(s), murmurHash3_32(s) FROM (SELECT arrayJoin(['a', 'ab', 'abc', 'abcd', 'abcde', 'abcdefg', 'abcdefgh', 'abcdefghi', 'The quick brown fox jumps over the lazy dog', 'Привет']) AS s) ORDER BY s;
SELECT toTypeName(murmurHash2_32('a')), toTypeName(murmurHash2_64('a')), toTypeName(gccMurmurHash('a')), toTypeName(kafkaMurmurHash('a')), toTypeName(murmurHash3_32('a'));
SELECT murmurHash2_32(1), murmurHash2_64(1), gccMurmurHash(1), kafkaMurmurHash(1), murmurHash3_32(1);
SELECT murmurHash2_32(toUInt64(1000000)), murmurHash2_64(toInt32(-5)), gccMurmurHash(toFloat64(1.5)), kafkaMurmurHash(toDate('2024-01-02')), murmurHash3_32(toFloat32(2.5));
SELECT murmurHash2_32('a', 'b'), murmurHash2_64('a', 'b', 3), gccMurmurHash(1, 'x'), kafkaMurmurHash('k', 'v'), murmurHash3_32('a', 1, 'c');
SELECT number, murmurHash2_32(number), murmurHash2_64(toString(number)), kafkaMurmurHash(number, 'x'), murmurHash3_32(toString(number), number) FROM numbers(5) ORDER BY number;
SELECT murmurHash2_32(toFixedString('abc', 5)), murmurHash3_32(NULL), murmurHash2_64(toNullable('abc'));
