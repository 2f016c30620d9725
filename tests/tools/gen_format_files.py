"""Generates tests/sql/0023..0029 (one file per output format family, every foundation
type). Rerun after editing, then tests/tools/reference_from_chdb.py on the files."""
from pathlib import Path

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"
PRELUDE = r"""CREATE TABLE ints (id UInt8, u8 UInt8, u16 UInt16, u32 UInt32, u64 UInt64, i8 Int8, i16 Int16, i32 Int32, i64 Int64) ENGINE = Memory;
INSERT INTO ints VALUES (1, 255, 65535, 4294967295, 18446744073709551615, 127, 32767, 2147483647, 9223372036854775807), (2, 0, 0, 0, 0, -128, -32768, -2147483648, -9223372036854775808), (3, 1, 2, 3, 4, -1, -2, -3, -4);
CREATE TABLE floats (id UInt8, f32 Float32, f64 Float64) ENGINE = Memory;
INSERT INTO floats VALUES (1, 0.1, 0.1), (2, inf, inf), (3, -inf, -inf), (4, nan, nan), (5, -0., -0.), (6, 1e21, 1e21), (7, 1e20, 1e20), (8, 1.5e-7, 1.5e-7), (9, 3.4028235e38, 1.7976931348623157e308), (10, 123456.789, 123456789.123456789), (11, 1, 100), (12, -2.5, -1e-300);
CREATE TABLE strings (id UInt8, s String, fs FixedString(4), b Bool) ENGINE = Memory;
INSERT INTO strings VALUES (1, 'plain', 'abcd', true), (2, '', '', false), (3, 'tab\there', 'a\0b', true), (4, 'new\nline', '\0\0\0\0', false), (5, 'quote\' "double"', 'q\'"', true), (6, 'back\\slash', '\\', false), (7, 'unicode ☃ ü 日本', 'ü', true), (8, 'comma, semicolon; pipe|', ',;|', false), (9, 'cr\rhere', '\r', true), (10, 'NULL', 'NULL', false), (11, '\\N', '\\N', true);
CREATE TABLE dates (id UInt8, d Date, d32 Date32, dt DateTime, dt64 DateTime64(3)) ENGINE = Memory;
INSERT INTO dates VALUES (1, '2024-02-29', '2024-02-29', '2024-02-29 23:59:59', '2024-02-29 23:59:59.999'), (2, '1970-01-01', '1900-01-01', '1970-01-01 00:00:00', '1970-01-01 00:00:00.000'), (3, '2149-06-06', '2299-12-31', '2106-02-07 06:28:15', '2262-04-11 23:47:16.854'), (4, '2000-01-01', '1969-12-31', '2000-01-01 12:00:00', '1969-12-31 23:59:59.5');
CREATE TABLE others (id UInt8, dec Decimal(10, 2), dec38 Decimal(38, 5), n Nullable(Int32), ns Nullable(String), lc LowCardinality(String), a Array(UInt32), as Array(String), an Array(Nullable(Float64)), aa Array(Array(Int8))) ENGINE = Memory;
INSERT INTO others VALUES (1, 12.5, 123456789012345678901234567890.12345, 42, 'x', 'low', [1, 2, 3], ['a', 'b c'], [1.5, NULL], [[1], [], [-1, 2]]), (2, -0.01, -1, NULL, NULL, '', [], [], [], []), (3, 99999999.99, 0, -7, 'it\'s\ttab', 'card', [4294967295], ['q"uote', 'back\\slash', 'new\nline'], [nan, inf, -0.], [[]]);
"""
TABLES = ["ints", "floats", "strings", "dates", "others"]

PRETTY_STRINGS = r"""INSERT INTO strings VALUES (1, 'plain', 'abcd', true), (2, '', '    ', false), (4, 'new\nline', 'wxyz', false), (5, 'quote\' "double"', 'q\'"!', true), (6, 'back\\slash', '\\\\/|', false), (7, 'unicode ☃ ü 日本', 'üü', true), (8, 'comma, semicolon; pipe|', ',;|.', false), (10, 'NULL', 'NULL', false), (11, '\\N', '\\N\\N', true);"""


def write(name, comment, formats, extra="", settings="", pretty=False):
    prelude = PRELUDE
    if pretty:
        start = prelude.index("INSERT INTO strings")
        end = prelude.index("\n", start)
        prelude = prelude[:start] + PRETTY_STRINGS + prelude[end:]
    lines = [f"-- {comment}", prelude.rstrip()]
    for fmt in formats:
        for t in TABLES:
            lines.append(f"SELECT * FROM {t} ORDER BY id FORMAT {fmt}{settings};")
    lines.append(extra.rstrip())
    open(SQL_DIR / f"{name}.sql", "w").write("\n".join(l for l in lines if l) + "\n")

write("0023_format_tabseparated", "TabSeparated family over every foundation type", ["TabSeparated", "TabSeparatedWithNames", "TabSeparatedWithNamesAndTypes", "TSV", "TabSeparatedRaw"], r"""
SELECT 1 AS `column with spaces`, 'x' AS `tab	name` FORMAT TSVWithNames;
SELECT number FROM numbers(0) FORMAT TabSeparatedWithNamesAndTypes;
SELECT toNullable(1) AS a, NULL AS b, [NULL] AS c FORMAT TSVWithNamesAndTypes;
SELECT (1, 'a') AS tup, map('k', 1) AS m FORMAT TSVWithNamesAndTypes;
""")
write("0024_format_csv", "CSV family over every foundation type", ["CSV", "CSVWithNames", "CSVWithNamesAndTypes"], r"""
SELECT number FROM numbers(0) FORMAT CSVWithNames;
SELECT NULL AS a, toNullable('') AS b FORMAT CSV;
SELECT 'a,b' AS x, 'c"d' AS y, 'e\nf' AS z FORMAT CSVWithNames;
SELECT 1 AS a, 'x' AS b FORMAT CSV SETTINGS format_csv_delimiter = '|';
""")
write("0025_format_jsoneachrow", "JSONEachRow and JSONCompactEachRow over every foundation type", ["JSONEachRow", "JSONCompactEachRow"], r"""
SELECT number FROM numbers(0) FORMAT JSONEachRow;
SELECT 'a/b' AS slash, '\x01\x1f' AS control, '"' AS q, '\\' AS bs, '</script>' AS tag FORMAT JSONEachRow;
SELECT toUInt64(1) AS u, toInt64(-1) AS i FORMAT JSONEachRow SETTINGS output_format_json_quote_64bit_integers = 0;
SELECT inf AS a, nan AS b FORMAT JSONEachRow SETTINGS output_format_json_quote_denormals = 1;
SELECT 1 AS `a"b`, 2 AS `c\\d` FORMAT JSONEachRow;
""")
write("0026_format_json", "JSON and JSONCompact over every foundation type (statistics off: they hold timings)", ["JSON", "JSONCompact"], r"""
SELECT number FROM numbers(0) FORMAT JSON SETTINGS output_format_write_statistics = 0;
SELECT number FROM numbers(0) FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
SELECT number FROM numbers(10) LIMIT 3 FORMAT JSON SETTINGS output_format_write_statistics = 0;
SELECT number AS x FROM numbers(5) ORDER BY x LIMIT 2 FORMAT JSONCompact SETTINGS output_format_write_statistics = 0;
""", settings=" SETTINGS output_format_write_statistics = 0")
write("0027_format_values", "Values format over every foundation type", ["Values"], r"""
SELECT number FROM numbers(0) FORMAT Values;
SELECT number, toString(number) FROM numbers(3) FORMAT Values;
SELECT NULL, [NULL, 1], 'x''y' FORMAT Values;
""")
write("0028_format_pretty", "Pretty and PrettyCompact over every foundation type (strings without control characters: their rendering is a ClickHouse quirk)", ["Pretty", "PrettyCompact"], r"""
SELECT number FROM numbers(0) FORMAT Pretty;
SELECT number FROM numbers(0) FORMAT PrettyCompact;
SELECT number AS n, repeat('x', number) AS s FROM numbers(4) FORMAT PrettyCompact;
SELECT 1 AS `a very long column name indeed`, 2 AS b FORMAT Pretty;
SELECT 12345678 AS big FORMAT Pretty;
SELECT 'ü☃' AS u, 'ab' AS x FORMAT PrettyCompact;
""", pretty=True)
write("0029_format_null", "Null format prints nothing", ["Null"], r"""
SELECT number FROM numbers(100000) FORMAT Null;
SELECT 'after' AS x FORMAT TabSeparated;
""")
