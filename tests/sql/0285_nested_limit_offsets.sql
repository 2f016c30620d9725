-- An inner LIMIT with an OFFSET under an outer LIMIT stays its own limit: rows_before_limit_at_least counts the rows the inner LIMIT returned, as ClickHouse does.
SELECT * FROM (SELECT number FROM numbers(20) LIMIT 5 OFFSET 3) LIMIT 2 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT * FROM (SELECT number FROM numbers(6) LIMIT 5 OFFSET 3) LIMIT 2 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT * FROM (SELECT number FROM numbers(20) LIMIT 5 OFFSET 3) LIMIT 2 OFFSET 1 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT number * 10 AS x FROM (SELECT number FROM numbers(20) LIMIT 3, 6) LIMIT 4 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT * FROM (SELECT number FROM numbers(100000) LIMIT 70000 OFFSET 10) LIMIT 3 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT number FROM numbers(20) LIMIT 2 OFFSET 3 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
-- A subquery's ORDER BY gives the order its rows reach the outer LIMIT .. OFFSET.
SELECT * FROM (SELECT number FROM numbers(100) ORDER BY number DESC) LIMIT 3 OFFSET 2;
SELECT number + 1 FROM (SELECT number FROM numbers(10) ORDER BY number % 3, number DESC) LIMIT 4;
-- LIMIT BY in a subquery keeps the order of the subquery's ORDER BY.
SELECT * FROM (SELECT number % 4 AS k, number FROM numbers(100) ORDER BY number DESC LIMIT 2 BY k) LIMIT 4 OFFSET 3;
SELECT * FROM (SELECT number % 3 AS k, number FROM numbers(20) ORDER BY k, number LIMIT 2 BY k) LIMIT 3 OFFSET 1;
