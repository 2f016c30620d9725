-- Codec chains (Delta / DoubleDelta / Gorilla before a general codec): values read back unchanged, the codecs are kept, chains that cannot be honoured are refused
CREATE TABLE codecs (id UInt64 CODEC(Delta, ZSTD(3)), ts DateTime CODEC(DoubleDelta), v Float64 CODEC(Gorilla, LZ4), n Nullable(Int32) CODEC(Delta(4), LZ4), s String CODEC(ZSTD)) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 1000;
INSERT INTO codecs SELECT number, toDateTime('2024-01-01 00:00:00', 'UTC') + number * 10, number / 8, if(number % 10 = 0, NULL, toInt32(number) - 5000), toString(number) FROM numbers(20000);
SELECT count(), sum(id), min(ts), max(ts), sum(v), sum(n), count(n), max(s) FROM codecs;
SELECT * FROM codecs WHERE id IN (0, 1, 9999, 19999) ORDER BY id;
SELECT name, compression_codec FROM system.columns WHERE table = 'codecs' ORDER BY position;
INSERT INTO codecs SELECT number + 20000, toDateTime('2024-02-01 00:00:00', 'UTC') - number, -number / 3, NULL, '' FROM numbers(5000);
OPTIMIZE TABLE codecs FINAL;
SELECT count(), sum(id), min(ts), max(ts), round(sum(v), 3), count(n) FROM codecs;
-- Delta turns sorted ids into a run of ones: the column shrinks far below its raw size
CREATE TABLE ids_delta (id UInt64 CODEC(Delta, LZ4)) ENGINE = MergeTree ORDER BY id;
CREATE TABLE ids_plain (id UInt64 CODEC(NONE)) ENGINE = MergeTree ORDER BY id;
INSERT INTO ids_delta SELECT number FROM numbers(100000);
INSERT INTO ids_plain SELECT number FROM numbers(100000);
SELECT (SELECT sum(data_compressed_bytes) FROM system.parts WHERE table = 'ids_delta' AND active = 1) * 20 < (SELECT sum(data_compressed_bytes) FROM system.parts WHERE table = 'ids_plain' AND active = 1);
SELECT sum(id) FROM ids_delta;
CREATE TABLE bad (id UInt64 CODEC(Delta)) ENGINE = MergeTree ORDER BY id; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (id UInt64 CODEC(LZ4, Delta)) ENGINE = MergeTree ORDER BY id; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (s String CODEC(Delta, LZ4)) ENGINE = MergeTree ORDER BY s; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (id UInt64 CODEC(Delta(2), LZ4)) ENGINE = MergeTree ORDER BY id; -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (id UInt64 CODEC(T64, LZ4)) ENGINE = MergeTree ORDER BY id; -- { serverError BAD_ARGUMENTS }
EXISTS TABLE bad;
