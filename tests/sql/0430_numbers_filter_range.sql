-- A WHERE on `number` narrows what numbers() and system.numbers generate (the endless table ends), and rows stay exactly those the filter keeps.
SELECT number FROM system.numbers WHERE number < 5;
SELECT count() FROM system.numbers WHERE number IN (3, 7) OR number BETWEEN 100 AND 110;
SELECT number FROM system.numbers WHERE number >= 1000 AND 1003 > number;
SELECT sum(number), count() FROM numbers(10, 1000, 7) WHERE number > 500 AND number <= 800;
SELECT number FROM numbers(10, 1000, 7) WHERE number = 17 OR number = 18 OR number = 24;
SELECT count() FROM numbers(1000000) WHERE number < 10 OR number % 2 = 0;
SELECT count() FROM numbers(1000000) WHERE number < 0;
SELECT count() FROM numbers(1000000) WHERE number > 999998 AND number < 2;
SELECT min(number), max(number), count() FROM numbers(5000000) WHERE number >= 2500000;
SELECT number FROM numbers(18446744073709551610, 10) WHERE number > 18446744073709551613 OR number < 3 ORDER BY number;
SELECT number, number * 2 AS d FROM numbers(100) WHERE number BETWEEN 7 AND 9 AND d != 16;
SELECT count() FROM system.numbers WHERE number < 100 AND number NOT IN (1, 2);
