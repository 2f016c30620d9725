-- LIMIT BY in a subquery without ORDER BY keeps the first rows of each key in input order, and the result keeps that order (an outer LIMIT takes the first of them).
SELECT * FROM (SELECT number % 3 AS k, number FROM numbers(20) LIMIT 2 BY k) LIMIT 4;
SELECT * FROM (SELECT number % 3 AS k, number FROM numbers(20) LIMIT 2 BY k);
SELECT * FROM (SELECT number % 4 AS k, number FROM numbers(30) LIMIT 1, 2 BY k) LIMIT 5;
SELECT * FROM (SELECT number, intDiv(number, 5) AS d FROM numbers(20) LIMIT 2 BY d % 2) LIMIT 3;
SELECT * FROM (SELECT number % 3 AS k, number FROM numbers(20) ORDER BY number DESC LIMIT 2 BY k) LIMIT 4;
SELECT k, count() FROM (SELECT number % 3 AS k, number FROM numbers(20) LIMIT 2 BY k) GROUP BY k ORDER BY k;
