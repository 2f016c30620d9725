SELECT * FROM generateSeries(1, 5, 2);
SELECT * FROM generate_series(3, 6);
SELECT count() FROM generate_series(5, 1);
SELECT count(), sum(generate_series) FROM generate_series(0, 1000000, 7);
SELECT * FROM generate_series(3, 5) WHERE generate_series > 3;
SELECT generate_series * 2 AS x FROM generate_series(10, 20, 5) ORDER BY x DESC;
DESCRIBE generateSeries(1, 5);
SELECT * FROM generateSeries(1, 10, 0); -- { serverError BAD_ARGUMENTS }
SELECT * FROM generateSeries(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
