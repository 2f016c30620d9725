-- Hash functions of several arguments, constants in any position: a constant is hashed
-- once and combined with every row's hash, which must give the same values as hashing it
-- per row.
SELECT number, cityHash64(number, 3), cityHash64(3, number), cityHash64(number, 'a', number), cityHash64(1, 'a') FROM numbers(4) ORDER BY number;
SELECT number, sipHash64(number, 3), sipHash64('x', number), xxHash64(number, 7), xxHash64(7, toString(number)) FROM numbers(4) ORDER BY number;
SELECT number, murmurHash3_64(number, 3), murmurHash3_64(3, number, 2.5) FROM numbers(4) ORDER BY number;
SELECT cityHash64(1, 2, 3), sipHash64('a', 'b'), xxHash64(1.5, toUInt8(2)), murmurHash3_64(toDate('2024-01-01'), 5);
SELECT sum(cityHash64(number, 11) % 250), sum(cityHash64(number % 7, 16, number) % 1000) FROM numbers(100000);
SELECT x, cityHash64(x, 5), sipHash64(5, x) FROM (SELECT if(number % 2 = 0, NULL, number) AS x FROM numbers(4)) ORDER BY x;
