-- system.one, system.numbers, numbers(N), numbers(start, N)
SELECT * FROM system.one;
SELECT dummy, toTypeName(dummy) FROM system.one;
SELECT 1 FROM system.one;
SELECT count() FROM system.one;
SELECT number FROM system.numbers LIMIT 5;
SELECT number FROM system.numbers LIMIT 3 OFFSET 10;
SELECT number FROM system.numbers WHERE number % 1000 = 999 LIMIT 3;
SELECT sum(number) FROM (SELECT number FROM system.numbers LIMIT 1000);
SELECT * FROM numbers(3);
SELECT number, toTypeName(number) FROM numbers(1);
SELECT count() FROM numbers(0);
SELECT number FROM numbers(5, 3);
SELECT number FROM numbers(0, 2);
SELECT count(), min(number), max(number), sum(number) FROM numbers(1000000);
SELECT count(), min(number), max(number) FROM numbers(10, 1000);
SELECT number FROM numbers(10) WHERE number > 7;
SELECT number FROM numbers(10) ORDER BY number DESC LIMIT 2;
SELECT n.number FROM numbers(2) AS n;
SELECT count() FROM numbers(100) AS a, numbers(100) AS b;
SELECT number FROM system.numbers WHERE number > 5 LIMIT 2;
SELECT count() FROM numbers(1000) WHERE number IN (SELECT number * 10 FROM numbers(50));
DESCRIBE numbers(1);
SELECT * FROM numbers('x'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT * FROM no_such_function(1); -- { serverError UNKNOWN_FUNCTION }
