-- LIMIT n BY, LIMIT n OFFSET m BY, together with LIMIT
CREATE TABLE ev (user String, ts UInt32, page String) ENGINE = Memory;
INSERT INTO ev VALUES ('a', 1, 'home'), ('a', 2, 'cart'), ('a', 3, 'pay'), ('b', 1, 'home'), ('b', 5, 'help'), ('c', 9, 'home'), ('a', 4, 'done'), ('b', 2, 'faq');
SELECT user, ts, page FROM ev ORDER BY user, ts LIMIT 1 BY user;
SELECT user, ts, page FROM ev ORDER BY user, ts DESC LIMIT 2 BY user;
SELECT user, ts FROM ev ORDER BY user, ts LIMIT 1 OFFSET 1 BY user;
SELECT user, ts FROM ev ORDER BY user, ts LIMIT 1, 2 BY user;
SELECT user, ts FROM ev ORDER BY user, ts LIMIT 2 BY user LIMIT 3;
SELECT page, user FROM ev ORDER BY page, user LIMIT 1 BY page;
SELECT user, page, ts FROM ev ORDER BY ts, user LIMIT 1 BY user, page LIMIT 4;
SELECT number % 3 AS k, number FROM numbers(20) ORDER BY k, number LIMIT 2 BY k;
SELECT number % 3 AS k, number FROM numbers(20) ORDER BY k, number DESC LIMIT 0 BY k;
SELECT number % 4 AS k, number FROM numbers(20) ORDER BY k, number LIMIT 3 BY number % 4;
SELECT toString(number % 2) AS k, number FROM numbers(10) ORDER BY k, number LIMIT 2 BY k LIMIT 1 OFFSET 1;
SELECT number, intDiv(number, 5) AS g FROM numbers(15) ORDER BY g DESC, number LIMIT 1 BY g;
