-- -SimpleState: the aggregate's result typed SimpleAggregateFunction(f, T), for the
-- functions a SimpleAggregateFunction column may name; stored in such a column and
-- combined by AggregatingMergeTree.
SELECT sumSimpleState(number), toTypeName(sumSimpleState(number)) FROM numbers(5);
SELECT maxSimpleState(toNullable(number)), toTypeName(maxSimpleState(toNullable(number))), minSimpleState(number), anySimpleState(number) FROM numbers(5);
SELECT toTypeName(sumSimpleState(toDecimal32(1, 2))), toTypeName(sumWithOverflowSimpleState(toUInt8(1))), toTypeName(groupBitOrSimpleState(number)) FROM numbers(2);
SELECT sumMapSimpleState([1], [2]), toTypeName(sumMapSimpleState([1], [2])), toTypeName(anyLastSimpleState('a')), toTypeName(maxMapSimpleState(map(1, 2)));
SELECT sumSimpleStateIf(number, number > 2), toTypeName(sumSimpleStateIf(number, number > 2)) FROM numbers(5);
SELECT g, sumSimpleState(number), maxSimpleState(number) FROM (SELECT number, number % 3 AS g FROM numbers(10)) GROUP BY g ORDER BY g;
CREATE TABLE s (k UInt8, v SimpleAggregateFunction(sum, UInt64), m SimpleAggregateFunction(sumMap, Tuple(Array(UInt8), Array(UInt64)))) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO s SELECT 1, sumSimpleState(number), sumMapSimpleState([toUInt8(number % 2)], [number]) FROM numbers(4);
INSERT INTO s SELECT 1, sumSimpleState(number), sumMapSimpleState([toUInt8(number % 3)], [number]) FROM numbers(4);
SELECT * FROM s FINAL;
OPTIMIZE TABLE s FINAL;
SELECT *, toTypeName(v) FROM s;
SELECT avgSimpleState(number) FROM numbers(5); -- { serverError BAD_ARGUMENTS }
SELECT uniqSimpleState(1); -- { serverError BAD_ARGUMENTS }
