-- Nested LIMITs without ORDER BY: the outer LIMIT stays over the inner one, so rows_before_limit_at_least counts the rows that reached it (the inner LIMIT's result), as ClickHouse does.
SELECT * FROM (SELECT number FROM numbers(10) LIMIT 5) LIMIT 3;
SELECT * FROM (SELECT number FROM numbers(10) LIMIT 5) LIMIT 3 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT * FROM (SELECT number FROM numbers(100) LIMIT 50) LIMIT 3 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT * FROM (SELECT number FROM numbers(4) LIMIT 50) LIMIT 3 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT * FROM (SELECT number FROM numbers(100) LIMIT 50) WHERE number > 10 LIMIT 3 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT number + 1 AS n FROM (SELECT number FROM numbers(100000) LIMIT 70000) LIMIT 3 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT * FROM (SELECT number FROM numbers(100) LIMIT 50) ORDER BY number DESC LIMIT 3 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT * FROM (SELECT number FROM numbers(10) LIMIT 2, 5) LIMIT 1, 3;
SELECT * FROM (SELECT number FROM numbers(10) LIMIT 3) LIMIT 5;
