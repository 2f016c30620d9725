-- CREATE FUNCTION: SQL user-defined functions, expanded into the query as ClickHouse does
DROP FUNCTION IF EXISTS udf_plus1;
DROP FUNCTION IF EXISTS udf_twice;
DROP FUNCTION IF EXISTS udf_lin;
DROP FUNCTION IF EXISTS udf_size;
DROP FUNCTION IF EXISTS udf_answer;
CREATE FUNCTION udf_plus1 AS (x) -> x + 1;
SELECT udf_plus1(1), udf_plus1(number), toTypeName(udf_plus1(number)) FROM numbers(2);
CREATE FUNCTION udf_plus1 AS (x) -> x + 2; -- { serverError FUNCTION_ALREADY_EXISTS }
CREATE FUNCTION IF NOT EXISTS udf_plus1 AS (x) -> x + 2;
SELECT udf_plus1(1);
CREATE OR REPLACE FUNCTION udf_plus1 AS (x) -> x + 3;
SELECT udf_plus1(1);
CREATE FUNCTION plus AS (x) -> x; -- { serverError FUNCTION_ALREADY_EXISTS }
CREATE FUNCTION sum AS (x) -> x; -- { serverError FUNCTION_ALREADY_EXISTS }
SELECT udf_plus1(1, 2); -- { serverError BAD_ARGUMENTS }
CREATE FUNCTION udf_twice AS x -> udf_plus1(x) * 2;
SELECT udf_twice(1), udf_twice(udf_twice(1));
CREATE FUNCTION udf_lin AS (x, k, b) -> k * x + b;
SELECT udf_lin(number, 2, 3) FROM numbers(3) ORDER BY 1;
SELECT count() FROM numbers(10) WHERE udf_lin(number, 1, 0) > 4;
SELECT number % 3 AS g, sum(udf_lin(number, 10, 1)) FROM numbers(9) GROUP BY g ORDER BY g;
CREATE FUNCTION udf_size AS (a) -> if(a > 1, 'big', 'small');
SELECT udf_size(number) FROM numbers(3);
CREATE FUNCTION udf_answer AS () -> 42;
SELECT udf_answer();
CREATE FUNCTION bad_params AS (x, x) -> x; -- { serverError BAD_ARGUMENTS }
SELECT name, is_aggregate, origin FROM system.functions WHERE name LIKE 'udf\_%' ORDER BY name;
DROP FUNCTION udf_plus1;
SELECT udf_twice(1); -- { serverError UNKNOWN_FUNCTION }
DROP FUNCTION udf_plus1; -- { serverError UNKNOWN_FUNCTION }
DROP FUNCTION IF EXISTS udf_plus1;
DROP FUNCTION udf_twice;
DROP FUNCTION udf_lin;
DROP FUNCTION udf_size;
DROP FUNCTION udf_answer;
