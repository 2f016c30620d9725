-- Buffer tables: rows held in memory, read together with the destination's, flushed by
-- thresholds, OPTIMIZE and DROP. min_time/max_time of 1000 s keep the background
-- flush out of this file.
CREATE TABLE dst (x UInt32, s String) ENGINE = MergeTree ORDER BY x;
CREATE TABLE buf AS dst ENGINE = Buffer(currentDatabase(), dst, 1, 1000, 1000, 3, 5, 1000000, 100000000);
SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'buf';
SELECT replaceAll(create_table_query, currentDatabase(), 'db') FROM system.tables WHERE database = currentDatabase() AND name = 'buf';
INSERT INTO buf VALUES (1, 'a'), (2, 'b');
SELECT count() FROM dst;
SELECT * FROM buf ORDER BY x;
SELECT total_rows FROM system.tables WHERE database = currentDatabase() AND name = 'buf';
-- 2 + 3 rows stay below max_rows = 5; one more passes it: the old rows go first.
INSERT INTO buf VALUES (3, 'c'), (4, 'd'), (5, 'e');
SELECT count() FROM dst;
INSERT INTO buf VALUES (6, 'f');
SELECT count() FROM dst;
SELECT count(), sum(x) FROM buf;
SELECT s FROM buf WHERE x > 3 ORDER BY s;
-- More rows than max_rows at once: straight to the destination.
INSERT INTO buf SELECT number + 10, 'big' FROM numbers(6);
SELECT count() FROM dst;
SELECT count() FROM buf;
OPTIMIZE TABLE buf;
SELECT count(), sum(x) FROM dst;
SELECT count(), sum(x) FROM buf;
SELECT total_rows FROM system.tables WHERE database = currentDatabase() AND name = 'buf';
TRUNCATE TABLE buf; -- { serverError NOT_IMPLEMENTED }

-- Columns by name: the destination's defaults for what the buffer lacks, the buffer's
-- defaults for what the destination lacks.
CREATE TABLE dst2 (x UInt8, y UInt8 DEFAULT 9) ENGINE = Memory;
CREATE TABLE buf2 (x UInt8, z String) ENGINE = Buffer(currentDatabase(), dst2, 1, 1000, 1000, 1, 100, 1, 100000000);
INSERT INTO buf2 VALUES (1, 'q');
SELECT * FROM buf2;
OPTIMIZE TABLE buf2;
SELECT * FROM dst2;
SELECT x, z FROM buf2;

-- No destination: flushed rows are dropped.
CREATE TABLE nowhere (x UInt8) ENGINE = Buffer('', '', 1, 1000, 1000, 1, 2, 1000000, 100000000);
INSERT INTO nowhere VALUES (1);
SELECT count() FROM nowhere;
OPTIMIZE TABLE nowhere;
SELECT count() FROM nowhere;
INSERT INTO nowhere VALUES (1), (2), (3);
SELECT count() FROM nowhere;

-- DROP flushes; the destination may be missing until then.
CREATE TABLE early (x UInt8) ENGINE = Buffer(currentDatabase(), late, 2, 1000, 1000, 1, 100, 1, 100000000);
INSERT INTO early VALUES (1);
INSERT INTO early VALUES (2);
SELECT x FROM early ORDER BY x;
CREATE TABLE late (x UInt8) ENGINE = Memory;
SELECT x FROM early ORDER BY x;
DROP TABLE early;
SELECT x FROM late ORDER BY x;

CREATE TABLE bad (x UInt8) ENGINE = Buffer(currentDatabase(), dst, 1, 1000, 1000, 1, 2, 1000000); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
