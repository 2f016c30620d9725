-- LIMIT n WITH TIES and FETCH FIRST n ROWS WITH TIES: the ties of the last row are kept
SELECT intDiv(number, 2) AS k FROM numbers(6) ORDER BY k LIMIT 1 WITH TIES;
SELECT intDiv(number, 2) AS k FROM numbers(6) ORDER BY k LIMIT 2 OFFSET 2 WITH TIES;
SELECT intDiv(number, 2) AS k FROM numbers(6) ORDER BY k LIMIT 2, 1 WITH TIES;
SELECT intDiv(number, 2) AS k FROM numbers(6) ORDER BY k OFFSET 1 ROW FETCH FIRST 2 ROWS WITH TIES;
SELECT number, intDiv(number, 3) AS k FROM numbers(10) ORDER BY k DESC, number % 2 LIMIT 2 WITH TIES;
SELECT number, intDiv(number, 4) AS k FROM numbers(10) ORDER BY 2, number % 2 LIMIT 1 WITH TIES;
SELECT count() FROM (SELECT intDiv(number, 2) AS k, count() AS c FROM numbers(10) GROUP BY k ORDER BY c LIMIT 1 WITH TIES);
SELECT intDiv(number, 5) AS k FROM numbers(10) ORDER BY k LIMIT 20 WITH TIES;
SELECT intDiv(number, 5) AS k FROM numbers(10) ORDER BY k LIMIT 0 WITH TIES;
SELECT intDiv(number, 2) AS k FROM numbers(6) LIMIT 1 WITH TIES; -- { serverError WITH_TIES_WITHOUT_ORDER_BY }
