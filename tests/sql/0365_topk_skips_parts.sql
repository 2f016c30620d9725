-- ORDER BY ... LIMIT over many parts: the TopK's threshold skips parts and granules by
-- their min/max and reads the rest in the threshold column's order; the rows must be
-- those of a full sort, for every direction, NULL placement and key shape.
CREATE TABLE topk_parts (id UInt64, ts UInt64, probe UInt16, v Nullable(Int64), s String) ENGINE = MergeTree PARTITION BY intDiv(ts, 1000) ORDER BY (probe, ts) SETTINGS index_granularity = 64;
INSERT INTO topk_parts SELECT number, (number * 7919) % 20000, number % 5, if(number % 11 = 0, NULL, toInt64(number % 997) - 400), toString(number) FROM numbers(20000);
INSERT INTO topk_parts SELECT 20000 + number, 25000 + number, 9, NULL, 'late' FROM numbers(100);
SELECT id, ts FROM topk_parts ORDER BY ts LIMIT 5;
SELECT id, ts FROM topk_parts ORDER BY ts DESC LIMIT 5;
SELECT id, ts FROM topk_parts WHERE s LIKE '%7%' ORDER BY ts LIMIT 3 OFFSET 2;
SELECT id, ts FROM topk_parts WHERE probe = 3 ORDER BY ts DESC, id LIMIT 4;
SELECT id, v FROM topk_parts ORDER BY v, id LIMIT 4;
SELECT id, v FROM topk_parts ORDER BY v DESC, id LIMIT 4;
SELECT id, v FROM topk_parts ORDER BY v NULLS FIRST, id LIMIT 4;
SELECT id, v FROM topk_parts ORDER BY v DESC NULLS FIRST, id LIMIT 4;
SELECT probe, ts, id FROM topk_parts ORDER BY probe DESC, ts LIMIT 3;
SELECT id, ts FROM topk_parts ORDER BY ts + 1, id LIMIT 3;
SELECT id, ts FROM topk_parts ORDER BY -ts, id LIMIT 3;
SELECT id, ts FROM topk_parts WHERE ts > 24000 ORDER BY ts LIMIT 2;
SELECT count() FROM (SELECT id FROM topk_parts ORDER BY ts LIMIT 1000);
SELECT id, ts FROM topk_parts ORDER BY ts LIMIT 3 SETTINGS max_threads = 1, max_block_size = 100;
SELECT id, ts FROM topk_parts ORDER BY ts DESC LIMIT 3 SETTINGS max_threads = 4, max_block_size = 64;
DROP TABLE topk_parts;
