-- A state goes only into a column of exactly its AggregateFunction type: another
-- argument type has another layout, and its bytes would be read back as garbage.
CREATE TABLE st_mismatch (k UInt8, m AggregateFunction(min, Int16), u AggregateFunction(uniq, UInt64)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO st_mismatch SELECT 1, minState(toInt16(number) - 300), uniqState(toUInt64(number)) FROM numbers(10); -- { serverError CANNOT_CONVERT_TYPE }
INSERT INTO st_mismatch SELECT 1, minState(toInt16(number)), uniqState(number % 7) FROM numbers(10); -- { serverError CANNOT_CONVERT_TYPE }
INSERT INTO st_mismatch SELECT 1, minState(toInt16(number)), uniqState(toUInt64(number)) FROM numbers(10);
SELECT k, minMerge(m), uniqMerge(u), count() FROM st_mismatch GROUP BY k;
DROP TABLE st_mismatch;
