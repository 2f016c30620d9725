-- SAMPLE on a table without a sampling key is an error, never a read of every row
CREATE TABLE sample_t (k UInt32) ENGINE = MergeTree ORDER BY k;
INSERT INTO sample_t SELECT number FROM numbers(100);
SELECT count() FROM sample_t SAMPLE 0.5; -- { serverError SAMPLING_NOT_SUPPORTED }
SELECT count() FROM sample_t SAMPLE 1 / 10 OFFSET 1 / 2; -- { serverError SAMPLING_NOT_SUPPORTED }
SELECT count() FROM numbers(10) SAMPLE 0.5; -- { serverError SAMPLING_NOT_SUPPORTED }
SELECT count() FROM (SELECT 1) SAMPLE 0.5; -- { serverError UNSUPPORTED_METHOD }
SELECT count() FROM sample_t;
DROP TABLE sample_t;
