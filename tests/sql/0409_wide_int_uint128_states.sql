-- States of UInt128 values take 16 bytes, as ClickHouse writes them.
SELECT hex(sumState(x)), hex(minState(x)), hex(maxState(x)), hex(anyState(x)), hex(anyLastState(x)) FROM (SELECT toUInt128(number) AS x FROM numbers(3));
SELECT hex(argMaxState(x, number)), hex(argMinState(number, x)) FROM (SELECT number, toUInt128(number) AS x FROM numbers(3));
SELECT hex(maxState(x)), hex(sumState(x)) FROM (SELECT toUInt128('340282366920938463463374607431768211455') - toUInt128(number) AS y, toUInt128(y) AS x FROM numbers(2));
SELECT hex(sumState(x)) FROM (SELECT toUInt128(number) AS x FROM numbers(0));
SELECT hex(minState(x)), hex(sumState(x)) FROM (SELECT toInt128(number) - 1 AS x, toUInt256(number) AS y FROM numbers(3));
SELECT sumMerge(s), toTypeName(sumMerge(s)) FROM (SELECT sumState(toUInt128(number)) AS s FROM numbers(10) GROUP BY number % 3);
SELECT minMerge(s) FROM (SELECT minState(toUInt128(number) * toUInt128('4000000000000000000000')) AS s FROM numbers(10) GROUP BY number % 3);
SELECT argMaxMerge(s) FROM (SELECT argMaxState(toUInt128(number) + 1000, number) AS s FROM numbers(10) GROUP BY number % 3);
SELECT sumMerge(s) FROM (SELECT CAST(unhex('05000000000000000000000000000000'), 'AggregateFunction(sum, UInt128)') AS s);
SELECT maxMerge(s) FROM (SELECT CAST(unhex('010102030405060708090A0B0C0D0E0F70'), 'AggregateFunction(max, UInt128)') AS s);
SELECT hex(sumState(x)), hex(anyState(x)), hex(maxState(x)) FROM (SELECT toInt256(number) - 1 AS x FROM numbers(3));
SELECT hex(sumState(x)), hex(anyLastState(x)), hex(minState(x)) FROM (SELECT toUInt256(number) AS x FROM numbers(3));
SELECT hex(sumState(x)), hex(anyState(x)), hex(maxState(x)) FROM (SELECT toInt128(number) - 1 AS x FROM numbers(3));
SELECT sumMerge(s), maxMerge(a) FROM (SELECT sumState(toInt256(number)) AS s, maxState(toUInt256(number)) AS a FROM numbers(10) GROUP BY number % 3) WHERE 1;
