-- Conditionals and arrays mixing tuples with NULL give Nullable(Tuple(...)), as in ClickHouse.
SELECT if(number % 2, (1, 'a'), NULL) AS t, toTypeName(t) FROM numbers(2);
SELECT multiIf(number = 0, (1, 'a'), number = 1, NULL, (2, 'b')) AS t, toTypeName(t) FROM numbers(3);
SELECT [(1, 'a'), NULL] AS t, toTypeName(t);
SELECT coalesce(NULL, (1, 'a')) AS t, toTypeName(t);
SELECT if(number = 1, NULL, (number, toString(number))) AS t, toTypeName(t), t IS NULL FROM numbers(3);
