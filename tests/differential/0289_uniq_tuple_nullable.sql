-- uniq*(tuple(x)): ClickHouse takes the one-element tuple off (optimize_injective_functions_inside_uniq) only where x is not Nullable; with a Nullable x the tuple stays, and a NULL element is a value, so those rows count.
SELECT uniqExact(tuple(n)), uniqExact(n), uniqExact((n, 1)), uniq(tuple(n)) FROM (SELECT if(number % 3 = 0, NULL, number % 70) AS n FROM numbers(1000));
SELECT uniq(tuple(m)), uniq(m), uniq(tuple(n)), uniq(tuple(toString(n))), uniqExact(tuple(toString(n))), uniqCombined(tuple(n)), uniqHLL12(tuple(n)), uniqExact(tuple(n)) FROM (SELECT number % 7000 AS m, if(number % 3 = 0, NULL, number % 7000) AS n FROM numbers(100000));
SELECT uniqCombined64(tuple(n)), uniqExact(tuple(-m)), uniq(tuple(toString(m))) FROM (SELECT number % 5000 AS m, if(number % 4 = 0, NULL, toString(number % 5000)) AS n FROM numbers(50000));
SELECT k, uniqExact(tuple(n)) FROM (SELECT number % 3 AS k, if(number % 5 = 0, NULL, number % 11) AS n FROM numbers(300)) GROUP BY k ORDER BY k;
