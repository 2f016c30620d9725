-- arrayShuffle / arrayPartialShuffle with a seed: ClickHouse's order (pcg64_fast, libc++'s shuffle).
SELECT arrayShuffle([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 42), arrayShuffle([1, 2, 3], 0), arrayShuffle(['a', 'b', 'c', 'd'], 7), arrayShuffle([[1], [2], [3]], 5), toTypeName(arrayShuffle([1], 1));
SELECT arrayShuffle(materialize([1, 2, 3, 4]), 42) FROM numbers(3);
SELECT arrayShuffle([1, NULL, 3, 4], 42), arrayShuffle([], 1), arrayShuffle([7], 1), arrayShuffle(range(20), 18446744073709551615), arrayShuffle(range(20), toInt64(-5));
SELECT arrayShuffle(range(300), 12345);
SELECT arrayPartialShuffle([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 3, 42), arrayPartialShuffle([1, 2, 3, 4, 5], 0, 42), arrayPartialShuffle([1, 2, 3, 4, 5], 10, 42), arrayPartialShuffle([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 1, 42), arrayPartialShuffle([1, 2, 3], -1, 1);
SELECT arrayPartialShuffle(['x', 'y', 'z', 'w'], 2, 99), toTypeName(arrayPartialShuffle(['x'], 1, 1));
-- Without a seed the order is random: check what does not depend on it.
SELECT arraySort(arrayShuffle(range(50))) = range(50), arraySort(arrayPartialShuffle(range(50), 10)) = range(50), length(arrayPartialShuffle(range(7)));
SELECT length(arrayRandomSample(range(10), 3)), length(arrayRandomSample([1, 2, 3], 5)), toTypeName(arrayRandomSample([1, 2, 3], 2)), arrayRandomSample([1, 2, 3], 0), arraySort(arrayRandomSample(['a', 'b'], 2));
SELECT length(arrayDistinct(arrayRandomSample(range(100), 40))), hasAll(range(100), arrayRandomSample(range(100), 40));
SELECT number, length(arrayRandomSample(range(number), 2)) FROM numbers(4) ORDER BY number;
SELECT arrayShuffle(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayShuffle([1], 'a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayShuffle([1], 1, 2); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT arrayRandomSample([1, 2, 3], -1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT arrayRandomSample(1, 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
