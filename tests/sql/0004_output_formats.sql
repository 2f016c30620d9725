SELECT number AS x, toString(number) AS s, [number, number + 1] AS a FROM numbers(3) FORMAT TabSeparated;
SELECT number AS x, toString(number) AS s FROM numbers(3) FORMAT TabSeparatedWithNames;
SELECT number AS x, toString(number) AS s FROM numbers(3) FORMAT TabSeparatedWithNamesAndTypes;
SELECT number AS x, 'a"b' AS s FROM numbers(2) FORMAT CSV;
SELECT number AS x, 'a"b' AS s FROM numbers(2) FORMAT CSVWithNames;
SELECT number AS x, 'a/b' AS s, [1, 2] AS a FROM numbers(2) FORMAT JSONEachRow;
SELECT number AS x, 's' AS s FROM numbers(2) FORMAT JSONCompactEachRow;
SELECT number AS x, 'y' AS s FROM numbers(2) FORMAT JSON SETTINGS output_format_write_statistics = 0;
SELECT number AS x, 'y' AS s FROM numbers(2) FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT number AS x, 'it''s' AS s FROM numbers(2) FORMAT Values;
SELECT number AS x, 'text' AS s FROM numbers(3) FORMAT PrettyCompact;
SELECT number AS x, 'longer text' AS s FROM numbers(2) FORMAT Pretty;
SELECT number FROM numbers(3) FORMAT Null;
SELECT 1 FORMAT NoSuchFormat; -- { serverError UNKNOWN_FORMAT }
SELECT 'a' AS x, 1 AS y FORMAT CSV SETTINGS format_csv_delimiter = ';';
