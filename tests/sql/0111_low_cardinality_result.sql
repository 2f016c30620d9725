-- coalesce, greatest, least: LowCardinality when one argument is a LowCardinality column
-- and the others are constants; the plain type otherwise.
SELECT toTypeName(coalesce(toLowCardinality('a'), 'b')), toTypeName(greatest(toLowCardinality('a'), 'b')), toTypeName(least(toLowCardinality('a'), toLowCardinality('b')));
SELECT toTypeName(coalesce(toLowCardinality(toNullable('a')), 'b')), toTypeName(coalesce(NULL, toLowCardinality('a')));
SELECT toTypeName(greatest(toLowCardinality(toString(number)), toString(number))), toTypeName(coalesce(toLowCardinality(toString(number)), toString(number))), toTypeName(greatest(toLowCardinality(toString(number)), toLowCardinality(toString(number + 1)))), toTypeName(coalesce(toLowCardinality(toNullable(toString(number))), toLowCardinality(toString(number)))) FROM numbers(1);
SELECT greatest(toLowCardinality(toString(number)), '3'), least(toLowCardinality(toString(number)), '1'), coalesce(if(number = 1, NULL, toLowCardinality(toString(number))), 'z') FROM numbers(4) FORMAT TSVWithNamesAndTypes;
SELECT coalesce(NULL, NULL, number), coalesce(if(number = 0, NULL, number), 100), coalesce(NULL, 'a', 'b'), toTypeName(coalesce(NULL, NULL)) FROM numbers(2);
SELECT coalesce(if(number % 2 = 0, NULL, number), if(number % 3 = 0, NULL, number * 10), 7) FROM numbers(7);
