-- Data-skipping indexes: results with and without them are the same, and
-- max_rows_to_read (checked against the granules index analysis keeps) shows what each
-- index drops. Bloom-filter limits leave room for false positives.
DROP TABLE IF EXISTS t;
CREATE TABLE t
(
    a UInt64,
    b UInt32,
    s String,
    lc LowCardinality(String),
    n Nullable(UInt64),
    arr Array(String),
    INDEX ia a TYPE minmax GRANULARITY 1,
    INDEX ib b TYPE set(5) GRANULARITY 2,
    INDEX ilower lower(s) TYPE minmax GRANULARITY 1,
    INDEX isum a + b TYPE minmax GRANULARITY 1,
    INDEX ibf s TYPE bloom_filter GRANULARITY 1,
    INDEX itok s TYPE tokenbf_v1(512, 3, 0) GRANULARITY 1,
    INDEX ingr s TYPE ngrambf_v1(3, 512, 2, 0) GRANULARITY 1,
    INDEX ilc lc TYPE set(0) GRANULARITY 1,
    INDEX inn n TYPE minmax GRANULARITY 1,
    INDEX iarr arr TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = MergeTree ORDER BY tuple() SETTINGS index_granularity = 100;
INSERT INTO t SELECT number, intDiv(number, 1000), concat('W', toString(number), ' x y'), toString(intDiv(number, 500)), if(number % 3 = 0, NULL, number), [concat('e', toString(intDiv(number, 100))), 'common'] FROM numbers(10000);
-- minmax on a column: comparisons, IN, ranges, OR.
SELECT count(), sum(a) FROM t WHERE a > 9000 SETTINGS max_rows_to_read = 1000;
SELECT count(), sum(a) FROM t WHERE a > 9000 SETTINGS use_skip_indexes = 0;
SELECT count(), sum(a) FROM t WHERE a IN (5, 7000, 7001) SETTINGS max_rows_to_read = 200;
SELECT count(), sum(a) FROM t WHERE a BETWEEN 250 AND 449 SETTINGS max_rows_to_read = 300;
SELECT count(), sum(a) FROM t WHERE a < 100 OR a >= 9900 SETTINGS max_rows_to_read = 200;
-- Neither index decides an OR with a column it does not cover.
SELECT count(), sum(a) FROM t WHERE a < 100 OR b = 3 SETTINGS max_rows_to_read = 1100; -- { serverError TOO_MANY_ROWS }
SELECT count(), sum(a) FROM t WHERE a < 100 OR s = 'x' SETTINGS max_rows_to_read = 9999; -- { serverError TOO_MANY_ROWS }
SELECT count(), sum(a) FROM t WHERE NOT (a < 9950) SETTINGS max_rows_to_read = 100;
-- set: =, IN, != where decidable.
SELECT count(), sum(a) FROM t WHERE b = 3 SETTINGS max_rows_to_read = 1000;
SELECT count(), sum(a) FROM t WHERE b IN (3, 8) SETTINGS max_rows_to_read = 2000;
SELECT count(), sum(a) FROM t WHERE b != 0 SETTINGS max_rows_to_read = 9000;
SELECT count(), sum(a) FROM t WHERE b != 0 SETTINGS use_skip_indexes = 0;
SELECT count(), sum(a) FROM t WHERE lc = '7' SETTINGS max_rows_to_read = 500;
SELECT count(), sum(a) FROM t WHERE lc IN ('7', '19') SETTINGS max_rows_to_read = 1000;
-- minmax of expressions the query spells the same way.
SELECT count(), sum(a) FROM t WHERE lower(s) = 'w5555 x y' SETTINGS max_rows_to_read = 10000;
SELECT count(), sum(a) FROM t WHERE a + b > 9990 SETTINGS max_rows_to_read = 100;
SELECT count(), sum(a) FROM t WHERE a + b > 9990 SETTINGS use_skip_indexes = 0;
-- Nullable: NULLs never match a comparison, and never make a granule go.
SELECT count(), sum(a) FROM t WHERE n < 50 SETTINGS max_rows_to_read = 100;
SELECT count(), sum(a) FROM t WHERE n IS NULL;
-- bloom_filter, tokenbf_v1, ngrambf_v1.
SELECT count(), sum(a) FROM t WHERE s = 'W7777 x y' SETTINGS max_rows_to_read = 1000;
SELECT count(), sum(a) FROM t WHERE s IN ('W7777 x y', 'W12 x y') SETTINGS max_rows_to_read = 1000;
SELECT count(), sum(a) FROM t WHERE s = 'W7777 x y' SETTINGS use_skip_indexes = 0;
SELECT count(), sum(a) FROM t WHERE hasToken(s, 'W4242') SETTINGS max_rows_to_read = 1000;
SELECT count(), sum(a) FROM t WHERE s LIKE 'W4242 %' SETTINGS max_rows_to_read = 1000;
SELECT count(), sum(a) FROM t WHERE s LIKE '%4242 x%' SETTINGS max_rows_to_read = 2000;
SELECT count(), sum(a) FROM t WHERE s LIKE '%4242 x%' SETTINGS use_skip_indexes = 0;
SELECT count(), sum(a) FROM t WHERE multiSearchAny(s, ['W4242 ', 'W17 x']) SETTINGS max_rows_to_read = 1000;
SELECT count(), sum(a) FROM t WHERE has(arr, 'e42') SETTINGS max_rows_to_read = 1000;
SELECT count(), sum(a) FROM t WHERE has(arr, 'e42') SETTINGS use_skip_indexes = 0;
-- PREWHERE goes through the indexes too.
SELECT count(), sum(a) FROM t PREWHERE a >= 9950 WHERE b = 9 SETTINGS max_rows_to_read = 100;
-- force_data_skipping_indices.
SELECT count(), sum(a) FROM t WHERE a = 10 SETTINGS force_data_skipping_indices = 'ia';
SELECT count(), sum(a) FROM t WHERE a = 10 AND b = 0 SETTINGS force_data_skipping_indices = ' ia , `ib` ';
SELECT count(), sum(a) FROM t WHERE a = 10 SETTINGS force_data_skipping_indices = 'ib'; -- { serverError INDEX_NOT_USED }
SELECT count(), sum(a) FROM t WHERE a = 10 SETTINGS force_data_skipping_indices = 'ia', ignore_data_skipping_indices = 'ia'; -- { serverError INDEX_NOT_USED }
SELECT count(), sum(a) FROM t WHERE a = 10 SETTINGS force_data_skipping_indices = 'ia', use_skip_indexes = 0;
SELECT sum(a) FROM t SETTINGS force_data_skipping_indices = 'ia'; -- { serverError INDEX_NOT_USED }
-- Several parts, and a merge of them: the merged part has the indexes too.
INSERT INTO t SELECT number + 10000, intDiv(number + 10000, 1000), concat('W', toString(number + 10000), ' x y'), 'new', NULL, [] FROM numbers(1000);
SELECT count(), sum(a) FROM t WHERE a > 10950 SETTINGS max_rows_to_read = 100;
SELECT count(), sum(a) FROM t WHERE lc = 'new' SETTINGS max_rows_to_read = 1000;
OPTIMIZE TABLE t FINAL;
SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active;
SELECT count(), sum(a) FROM t WHERE a > 10950 SETTINGS max_rows_to_read = 100;
SELECT count(), sum(a) FROM t WHERE b = 3 SETTINGS max_rows_to_read = 1000;
SELECT count(), sum(a) FROM t WHERE s = 'W10500 x y' SETTINGS max_rows_to_read = 1000;
DROP TABLE t;
