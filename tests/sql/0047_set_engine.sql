CREATE TABLE s (x UInt64) ENGINE = Set;
INSERT INTO s VALUES (1), (3), (3), (5);
SELECT number FROM numbers(7) WHERE number IN s ORDER BY number;
SELECT number FROM numbers(7) WHERE number NOT IN s ORDER BY number;
SELECT count() FROM numbers(10) WHERE number IN s;
INSERT INTO s VALUES (6);
SELECT number FROM numbers(10) WHERE number IN s ORDER BY number;
CREATE TABLE plain (x UInt64) ENGINE = Memory;
INSERT INTO plain VALUES (2), (4);
SELECT number FROM numbers(6) WHERE number IN plain ORDER BY number;
SELECT number FROM numbers(6) WHERE number IN (1, 2) ORDER BY number;
CREATE TABLE bad (x UInt64) ENGINE = Set(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
TRUNCATE TABLE s;
SELECT count() FROM numbers(10) WHERE number IN s;
