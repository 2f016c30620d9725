-- rows_before_limit_at_least under WHERE ... LIMIT: the rows of the blocks read that passed WHERE and reached the LIMIT (whole granules of a MergeTree part), as ClickHouse
CREATE TABLE t (x UInt32) ENGINE = MergeTree ORDER BY x;
INSERT INTO t SELECT number FROM numbers(100);
SELECT x FROM t WHERE x % 3 = 0 LIMIT 2 FORMAT JSON SETTINGS output_format_write_statistics = 0;
SELECT x FROM t WHERE x % 3 = 0 LIMIT 2 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT x FROM t LIMIT 2 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT x FROM t WHERE x % 3 = 0 ORDER BY x LIMIT 2 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT x FROM t WHERE x % 3 = 0 ORDER BY x LIMIT 2 OFFSET 3 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT x FROM t WHERE x % 3 = 0 LIMIT 1, 2 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT x FROM t WHERE x > 1000 LIMIT 2 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT number FROM numbers(100) WHERE number % 3 = 0 LIMIT 2 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
CREATE TABLE m (x UInt32) ENGINE = Memory;
INSERT INTO m SELECT number FROM numbers(100);
SELECT x FROM m WHERE x % 3 = 0 AND x > 50 LIMIT 2 FORMAT JSON SETTINGS output_format_write_statistics = 0;
SELECT x FROM m WHERE x % 3 = 0 LIMIT 2 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
