-- no-chdb: an INSERT with materialized views is all or nothing across tables in Granary; ClickHouse keeps the source's rows (and other views' blocks) when a view fails, and accepts a cycle of views until an INSERT runs into it
CREATE TABLE src (id UInt64, v UInt32) ENGINE = MergeTree ORDER BY id;
CREATE TABLE copy (id UInt64, v UInt32) ENGINE = MergeTree ORDER BY id;
CREATE TABLE checked (id UInt64, ok UInt8) ENGINE = MergeTree ORDER BY id;
CREATE MATERIALIZED VIEW copy_mv TO copy AS SELECT id, v FROM src;
CREATE MATERIALIZED VIEW throwing_mv TO checked AS SELECT id, throwIf(v = 99) AS ok FROM src;
INSERT INTO src VALUES (1, 1), (2, 2);
INSERT INTO src VALUES (3, 3), (4, 99); -- { serverError FUNCTION_THROW_IF_VALUE_IS_NON_ZERO }
INSERT INTO src SELECT number + 10, if(number = 4999, 99, number) FROM numbers(5000) SETTINGS max_block_size = 1000, min_insert_block_size_rows = 1000; -- { serverError FUNCTION_THROW_IF_VALUE_IS_NON_ZERO }
SELECT count(), sum(id) FROM src;
SELECT count(), sum(id) FROM copy;
SELECT count(), sum(id) FROM checked;
-- A target that rejects the rows fails the INSERT too
CREATE TABLE narrow (id UInt8) ENGINE = MergeTree ORDER BY id;
CREATE MATERIALIZED VIEW narrow_mv TO narrow AS SELECT toString(id) AS id FROM src;
DROP VIEW throwing_mv;
INSERT INTO src VALUES (300, 1); -- { serverError TYPE_MISMATCH }
SELECT count() FROM src;
SELECT count() FROM copy;
DROP VIEW narrow_mv;
INSERT INTO src VALUES (300, 1);
SELECT count() FROM src;
SELECT count() FROM copy;
-- A view that would feed its own source is refused when created
CREATE TABLE back (id UInt64, v UInt32) ENGINE = MergeTree ORDER BY id;
CREATE MATERIALIZED VIEW forward_mv TO back AS SELECT id, v FROM copy;
CREATE MATERIALIZED VIEW cycle_mv TO src AS SELECT id, v FROM back; -- { serverError INCORRECT_QUERY }
CREATE MATERIALIZED VIEW self_mv TO src AS SELECT id, v FROM src; -- { serverError INCORRECT_QUERY }
