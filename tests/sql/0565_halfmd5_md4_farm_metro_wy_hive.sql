-- halfMD5, MD4, metroHash64, farmHash64, farmFingerprint64, wyHash64 and hiveHash of strings of every length class, numbers, several arguments and NULLs
SELECT s, halfMD5(s), hex(MD4(s)), metroHash64(s), farmHash64(s), farmFingerprint64(s), wyHash64(s), hiveHash(s) FROM (SELECT arrayJoin(['', 'a', 'ab', 'abc', 'abcd', 'abcdefgh', 'abcdefghijklmnopq', 'The quick brown fox jumps over the lazy dog', 'Привет']) AS s) ORDER BY s;
SELECT n, halfMD5(repeat('xy', n)), hex(MD4(repeat('xy', n))), metroHash64(repeat('xy', n)), farmHash64(repeat('xy', n)), farmFingerprint64(repeat('xy', n)), wyHash64(repeat('xy', n)), hiveHash(repeat('xy', n)) FROM (SELECT arrayJoin([8, 12, 16, 20, 24, 28, 31, 32, 40, 48, 49, 64, 100, 128, 129, 255, 256, 300, 1000]) AS n) ORDER BY n;
SELECT toTypeName(halfMD5('a')), toTypeName(MD4('a')), toTypeName(metroHash64('a')), toTypeName(farmHash64('a')), toTypeName(farmFingerprint64('a')), toTypeName(wyHash64('a')), toTypeName(hiveHash('a'));
SELECT number, halfMD5(number), metroHash64(number), farmHash64(number), farmFingerprint64(number), wyHash64(number), hiveHash(number) FROM numbers(4);
SELECT halfMD5(-1), metroHash64(-1), farmHash64(-1), farmFingerprint64(-1), wyHash64(-1), hiveHash(-1), hiveHash(-1::Int8), hiveHash(1000000::UInt32);
SELECT halfMD5(1.5), metroHash64(1.5), farmHash64(1.5::Float32), farmFingerprint64(1.5), wyHash64(1.5::Float32), hiveHash(1.5);
SELECT halfMD5(toDate('2024-02-29')), metroHash64(toDateTime('2024-02-29 12:00:00', 'UTC')), farmHash64(toDecimal64(1.25, 2)), farmFingerprint64(toDate('2024-02-29')), wyHash64(toUInt128(7)), hiveHash(toDate('2024-02-29'));
SELECT halfMD5(1, 'a', 2.5), metroHash64(1, 'a', 2.5), farmHash64(1, 'a', 2.5), farmFingerprint64(1, 'a', 2.5), wyHash64(1, 'a', 2.5);
SELECT number, halfMD5(number, toString(number)), metroHash64('k', number), farmHash64(number, 'k'), farmFingerprint64(toString(number), number), wyHash64(number, number) FROM numbers(3);
SELECT halfMD5(NULL), metroHash64(toNullable('a')), farmHash64(CAST(NULL, 'Nullable(String)')), wyHash64(toNullable(1)), hiveHash(toNullable('abc'));
SELECT hiveHash('a', 'b'); -- { serverError NOT_IMPLEMENTED }
SELECT MD4(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- jumpConsistentHash and kostikConsistentHash
SELECT jumpConsistentHash(-1, 3), jumpConsistentHash(12345678901234, 1000), jumpConsistentHash(1, 2147483647), toTypeName(jumpConsistentHash(1, 2)), toTypeName(kostikConsistentHash(1, 2));
SELECT kostikConsistentHash(-1, 3), kostikConsistentHash(123456789, 1000), kostikConsistentHash(toUInt64(-1), 32768), kostikConsistentHash(1, 1);
SELECT sum(jumpConsistentHash(intHash64(number), 77)), sum(kostikConsistentHash(intHash64(number), 3)), sum(kostikConsistentHash(intHash64(number), 17)), sum(kostikConsistentHash(intHash64(number), 1000)), sum(kostikConsistentHash(intHash64(number), 1024)), sum(kostikConsistentHash(intHash64(number), 1025)), sum(kostikConsistentHash(intHash64(number), 32768)) FROM numbers(10000);
SELECT number, jumpConsistentHash(number, 10), kostikConsistentHash(number * 1000003, 10) FROM numbers(5);
SELECT jumpConsistentHash(NULL, 3), jumpConsistentHash(toNullable(5), 3), kostikConsistentHash(toNullable(5), 3);
SELECT jumpConsistentHash(1, 0); -- { serverError BAD_ARGUMENTS }
SELECT jumpConsistentHash(1, 2147483648); -- { serverError BAD_ARGUMENTS }
SELECT kostikConsistentHash(1, 32769); -- { serverError BAD_ARGUMENTS }
SELECT jumpConsistentHash(1::Int128, 3); -- { serverError BAD_ARGUMENTS }
SELECT jumpConsistentHash(1.5, 3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT kostikConsistentHash(1, 3.0); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT jumpConsistentHash(number, number + 1) FROM numbers(3); -- { serverError ILLEGAL_COLUMN }
