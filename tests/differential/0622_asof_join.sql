-- ASOF joins over generated data: many keys, ties only where the ASOF values are equal too
SELECT count(), sum(l.t), sum(r.t) FROM (SELECT number % 100 AS k, number * 7 % 1000 AS t FROM numbers(10000)) AS l ASOF JOIN (SELECT number % 100 AS k, number * 13 % 1000 AS t FROM numbers(5000)) AS r ON l.k = r.k AND l.t >= r.t;
SELECT count(), sum(l.t), sum(r.t) FROM (SELECT number % 100 AS k, number * 7 % 1000 AS t FROM numbers(10000)) AS l ASOF LEFT JOIN (SELECT number % 100 AS k, number * 13 % 1000 AS t FROM numbers(5000)) AS r ON l.k = r.k AND l.t < r.t;
SELECT count(), sum(r.t) FROM (SELECT number % 37 AS a, toString(number % 3) AS b, number AS t FROM numbers(3000)) AS l ASOF JOIN (SELECT number % 37 AS a, toString(number % 3) AS b, number * 2 + 1 AS t FROM numbers(2000)) AS r ON l.a = r.a AND l.b = r.b AND l.t > r.t;
-- Nullable keys and ASOF values never match
SELECT l.k, l.t, r.t FROM (SELECT if(number = 2, NULL, number % 2) AS k, toNullable(number * 10) AS t FROM numbers(5)) AS l ASOF LEFT JOIN (SELECT toNullable(number % 2) AS k, if(number = 1, NULL, number * 9) AS t FROM numbers(6)) AS r ON l.k = r.k AND l.t >= r.t ORDER BY l.t;
-- DateTime and Float64 ASOF columns, keys of different integer types
SELECT l.ts, r.ts, r.v FROM (SELECT toDateTime('2024-01-01 00:00:00', 'UTC') + number * 3600 AS ts, toUInt8(number % 2) AS g FROM numbers(6)) AS l ASOF JOIN (SELECT toDateTime('2024-01-01 00:30:00', 'UTC') + number * 5400 AS ts, toUInt64(number % 2) AS g, number AS v FROM numbers(5)) AS r ON l.g = r.g AND l.ts >= r.ts ORDER BY l.ts;
SELECT l.x, r.x FROM (SELECT number / 4 AS x, 1 AS g FROM numbers(6)) AS l ASOF JOIN (SELECT number / 3 AS x, 1 AS g FROM numbers(4)) AS r ON l.g = r.g AND l.x <= r.x ORDER BY l.x;
