-- rows_before_limit_at_least with a LIMIT in a subquery: the rows that reached the outer LIMIT.
SELECT * FROM (SELECT number FROM numbers(100) ORDER BY number LIMIT 50) ORDER BY number DESC LIMIT 5 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT * FROM (SELECT number FROM numbers(100) ORDER BY number DESC LIMIT 30) ORDER BY number LIMIT 2 OFFSET 1 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT number FROM numbers(100) ORDER BY number DESC LIMIT 5 OFFSET 3 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT * FROM (SELECT number FROM numbers(100) LIMIT 3) LIMIT 5 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
