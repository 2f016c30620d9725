-- Tables sampled by keys of every unsigned width (hashes and plain values), with several
-- parts and granule sizes, so that SAMPLE's range of the key, its rounding and the
-- granules it skips all show in the counts. h32 keeps its two parts (no merges).
CREATE DATABASE IF NOT EXISTS sampling;
CREATE TABLE sampling.h32 (x UInt64, g UInt8) ENGINE = MergeTree ORDER BY intHash32(x) SAMPLE BY intHash32(x) SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1;
CREATE TABLE sampling.h64 (x UInt64, g UInt8) ENGINE = MergeTree ORDER BY (cityHash64(x), x) SAMPLE BY cityHash64(x) SETTINGS index_granularity = 256;
CREATE TABLE sampling.h16 (x UInt64, g UInt8) ENGINE = MergeTree PARTITION BY g ORDER BY (toUInt16(intHash64(x) % 65536), x) SAMPLE BY toUInt16(intHash64(x) % 65536);
CREATE TABLE sampling.v8 (x UInt64, g UInt8) ENGINE = MergeTree ORDER BY (toUInt8(x % 256), x) SAMPLE BY toUInt8(x % 256) SETTINGS index_granularity = 1000;
CREATE TABLE sampling.c32 (k UInt32, x UInt64) ENGINE = MergeTree ORDER BY (k, x) SAMPLE BY k SETTINGS index_granularity = 512;
INSERT INTO sampling.h32 SELECT number, number % 5 FROM numbers(100000);
INSERT INTO sampling.h32 SELECT number, number % 5 FROM numbers(100000, 37000);
INSERT INTO sampling.h64 SELECT number, number % 5 FROM numbers(100000);
INSERT INTO sampling.h16 SELECT number, number % 5 FROM numbers(100000);
INSERT INTO sampling.v8 SELECT number, number % 5 FROM numbers(100000);
INSERT INTO sampling.c32 SELECT toUInt32(intHash32(number) % 4000000000), number FROM numbers(100000);
