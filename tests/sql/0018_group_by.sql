-- GROUP BY with several keys, expressions, HAVING, aggregates over strings, dates and NULLs
CREATE TABLE sales (day Date, region String, product String, qty UInt32, price Float64, discount Nullable(Float64)) ENGINE = Memory;
INSERT INTO sales VALUES ('2024-01-01', 'north', 'apple', 10, 1.5, NULL), ('2024-01-01', 'south', 'apple', 5, 1.6, 0.1), ('2024-01-02', 'north', 'pear', 7, 2.25, NULL), ('2024-01-02', 'north', 'apple', 3, 1.5, 0.2), ('2024-01-03', 'south', 'pear', 12, 2, NULL), ('2024-01-03', 'east', 'plum', 1, 9.99, 0.5);
SELECT region, count(), sum(qty), min(price), max(price) FROM sales GROUP BY region ORDER BY region;
SELECT region, product, sum(qty) AS q FROM sales GROUP BY region, product ORDER BY region, product;
SELECT day, round(sum(qty * price), 2) AS revenue FROM sales GROUP BY day ORDER BY day;
SELECT toDayOfMonth(day) % 2 AS odd, count() FROM sales GROUP BY odd ORDER BY odd;
SELECT region, sum(qty) AS q FROM sales GROUP BY region HAVING q > 10 ORDER BY region;
SELECT product, avg(price) FROM sales GROUP BY product HAVING count() >= 2 ORDER BY product;
SELECT count(discount), sum(discount), avg(discount), min(discount), max(discount) FROM sales;
SELECT discount IS NULL AS no_discount, count() FROM sales GROUP BY no_discount ORDER BY no_discount;
SELECT discount, count() FROM sales GROUP BY discount ORDER BY discount;
SELECT min(product), max(product), min(day), max(day) FROM sales;
SELECT region, uniqExact(product), count(DISTINCT product) FROM sales GROUP BY region ORDER BY region;
SELECT region, groupArray(product) FROM (SELECT * FROM sales ORDER BY product, day) GROUP BY region ORDER BY region;
SELECT region, argMax(product, qty), argMin(product, qty) FROM sales GROUP BY region ORDER BY region;
SELECT count() FROM sales GROUP BY region ORDER BY count();
SELECT number % 10 AS k, count(), sum(number) FROM numbers(1000) GROUP BY k ORDER BY k;
SELECT number % 3 AS a, number % 2 AS b, count() FROM numbers(30) GROUP BY a, b ORDER BY a, b;
SELECT count(), sum(number) FROM numbers(10) WHERE number > 100;
SELECT number % 2 AS k, count() FROM numbers(10) WHERE number > 100 GROUP BY k;
SELECT sum(qty) FROM sales GROUP BY product ORDER BY product;
SELECT region, count() AS c FROM sales GROUP BY region ORDER BY c DESC, region LIMIT 2;
SELECT 1 AS k, count() FROM numbers(5) GROUP BY k;
SELECT region, product FROM sales GROUP BY region, product HAVING sum(qty) > 5 ORDER BY region, product;
SELECT region, sum(qty) FROM sales GROUP BY ALL ORDER BY region;
SELECT region, qty FROM sales GROUP BY region; -- { serverError NOT_AN_AGGREGATE }
SELECT sum(product) FROM sales; -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
