-- Point lookups (the key-value fast path): equality and IN lists on the first sorting-key
-- column, over several parts with small granules, repeated keys, misses and NULLs.
CREATE DATABASE IF NOT EXISTS lk;
CREATE TABLE lk.ints (id UInt64, v String) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 4;
INSERT INTO lk.ints SELECT intDiv(number, 3) * 5, toString(number) FROM numbers(200);
INSERT INTO lk.ints SELECT number * 7, concat('b', toString(number)) FROM numbers(60);
INSERT INTO lk.ints VALUES (5, 'x'), (1000000, 'big');
CREATE TABLE lk.fixed (id FixedString(16), n UInt32) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 8;
INSERT INTO lk.fixed SELECT toFixedString(toString(1000000000000000 + number * 3), 16), number FROM numbers(300);
CREATE TABLE lk.strs (k String, ts DateTime, n UInt8) ENGINE = MergeTree ORDER BY (k, ts) SETTINGS index_granularity = 3;
INSERT INTO lk.strs SELECT concat('key', toString(number % 17)), toDateTime('2024-01-01 00:00:00') + number, number FROM numbers(100);
CREATE TABLE lk.signed (id Int32, v UInt8) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 2;
INSERT INTO lk.signed SELECT toInt32(number) - 20, number FROM numbers(41);
CREATE TABLE lk.pairs (id UInt8, grp String, v UInt8) ENGINE = MergeTree ORDER BY id;
INSERT INTO lk.pairs VALUES (1, 'a', 20), (2, 'b', 30), (3, 'a', 30), (4, 'c', 20);
