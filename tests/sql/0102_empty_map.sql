-- map() without arguments is the empty Map(Nothing, Nothing); mapKeys, mapValues, mapContains(Key), mapContainsValue
SELECT map(), toTypeName(map()), mapKeys(map()), length(map()), toTypeName(mapKeys(map())), mapValues(map()), toTypeName(mapValues(map())), empty(map()), notEmpty(map());
SELECT map() = map(), mapContains(map(), 1), mapContainsValue(map(), 'x'), mapKeys(map()) = [];
SELECT [map(), map(1, 2)], toTypeName([map(), map(1, 2)]);
SELECT if(1, map(), map('a', 1)), toTypeName(if(1, map(), map('a', 1)));
SELECT map() AS m FORMAT JSONEachRow;
SELECT map() FORMAT TSVWithNamesAndTypes;
SELECT map() FROM numbers(2);
SELECT mapKeys(map('a', 1, 'b', 2)), mapValues(map('a', 1, 'b', 2)), toTypeName(mapKeys(map('a', 1))), toTypeName(mapValues(map('a', toNullable(1))));
SELECT mapContains(map('a', 1), 'a'), mapContainsKey(map('a', 1), 'b'), mapContainsValue(map('a', 1), 1), mapContainsValue(map('a', 1), 2), toTypeName(mapContains(map('a', 1), 'a'));
SELECT mapKeys(NULL);
SELECT mapContains(map(1, 2), 'a'); -- { serverError NO_COMMON_TYPE }
SELECT mapKeys(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
CREATE TABLE m (id UInt8, attrs Map(String, UInt32)) ENGINE = MergeTree ORDER BY id;
INSERT INTO m VALUES (1, {'a': 1, 'b': 2}), (2, {}), (3, {'c': 3});
SELECT id, mapKeys(attrs), mapValues(attrs), mapContains(attrs, 'a'), mapContainsValue(attrs, 3), length(attrs) FROM m ORDER BY id;
SELECT id FROM m WHERE mapContains(attrs, 'c') OR attrs = map() ORDER BY id;
SELECT number, mapContains(map(number, 'a', 5, 'b'), 5), mapContainsValue(map(number, 'a', 5, 'b'), 'a') FROM numbers(6) WHERE number > 3;
