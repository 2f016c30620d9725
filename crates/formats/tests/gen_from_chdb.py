#!/usr/bin/env python3
"""Generates the golden files of tests/golden.rs from ClickHouse itself (chdb).

For every case, the same `Values` data is read by ClickHouse with
`format(Values, '<structure>', '<data>')` and written in every output format; the
Rust test reads the same data with Granary's Values parser and writes it with
Granary's output formats, then compares byte for byte.

    pip install chdb
    python3 crates/formats/tests/gen_from_chdb.py

Files written: tests/data/cases.tsv (name, structure, settings, data; TSV-escaped)
and tests/data/out/<case>.<Format>. Statistics are switched off in JSON documents
(timings differ by nature).
"""

import os
import sys

import chdb

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
OUT = os.path.join(DATA, "out")

FORMATS = [
    "TabSeparated", "TabSeparatedRaw", "TSVWithNames", "TSVWithNamesAndTypes",
    "CSV", "CSVWithNames", "CSVWithNamesAndTypes",
    "JSONEachRow", "JSONCompactEachRow", "JSON", "JSONCompact", "Values",
    "Pretty", "PrettyCompact", "PrettySpace",
    "Vertical", "Markdown",
    "JSONStrings", "JSONCompactStrings", "JSONStringsEachRow", "JSONCompactStringsEachRow",
    "JSONCompactEachRowWithNames", "JSONCompactEachRowWithNamesAndTypes",
    "JSONCompactStringsEachRowWithNames", "JSONCompactStringsEachRowWithNamesAndTypes",
    "JSONObjectEachRow", "JSONColumns", "JSONCompactColumns", "JSONColumnsWithMetadata", "PrettyJSONEachRow",
    "XML", "TSKV", "LineAsString", "Raw", "RawWithNames", "RawWithNamesAndTypes", "SQLInsert",
    "CustomSeparated", "CustomSeparatedWithNames", "CustomSeparatedWithNamesAndTypes",
    "PrettyMonoBlock", "PrettyCompactMonoBlock", "PrettySpaceMonoBlock", "PrettyNoEscapesMonoBlock",
]

BASE_SETTINGS = "output_format_write_statistics=0, session_timezone='UTC', output_format_pretty_max_rows=10000"

CASES = [
    ("ints", "i8 Int8, u8 UInt8, i16 Int16, u16 UInt16, i32 Int32, u32 UInt32, i64 Int64, u64 UInt64",
     "(-128, 0, -32768, 0, -2147483648, 0, -9223372036854775808, 0),"
     "(127, 255, 32767, 65535, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615),"
     "(0, 1, -1, 2, 3, 4, -5, 6)", ""),
    ("floats", "f64 Float64, f32 Float32",
     "(0.1, 0.1), (1e21, 1e21), (1e-7, 1e-7), (-0., 0.), (nan, nan), (inf, -inf), (-inf, inf),"
     "(0.3333333333333333, 0.33333334), (123456789012345680000, 123456.79), (1e20, 3.4e38), (5e-324, 1e-45), (-1.5, -2.5)", ""),
    ("strings", "s String, fs FixedString(4)",
     "('a\\tb\\nc', 'ab'), ('it\\'s', 'q\"q'), ('\\\\', '\\0x'), ('é€ 日本', 'é'), ('a/b', ''), ('', 'abcd'), ('\\x01\\x1b\\x7f', '\\r\\b\\f')", ""),
    ("dates", "d Date, d32 Date32, dt DateTime('UTC'), tokyo DateTime('Asia/Tokyo'), plain DateTime, dt64 DateTime64(3, 'UTC'), dt64_1 DateTime64(1, 'UTC'), dt64_6 DateTime64(6, 'UTC')",
     "('2024-01-02', '1900-01-01', '2024-01-02 03:04:05', '2024-01-02 03:04:05', '2000-02-29 23:59:59', '2024-01-02 03:04:05.123', '2024-01-02 03:04:05.1', '1969-12-31 23:59:59.999999'),"
     "('1970-01-01', '2299-12-31', '1970-01-01 00:00:00', '2106-02-07 06:28:15', '2038-01-19 03:14:08', '1900-01-01 00:00:00.000', '2020-02-29 12:00:00.9', '2020-01-01 00:00:00.000001')", ""),
    ("nullable", "n Nullable(Int32), ns Nullable(String), nf Nullable(Float64), nd Nullable(Date)",
     "(1, 'a', 1.5, '2020-01-01'), (NULL, NULL, NULL, NULL), (-3, '', nan, '2020-01-02')", ""),
    ("decimal_bool_uuid", "dec Decimal(9, 3), dec2 Decimal(38, 10), dec3 Decimal(50, 2), b Bool, u UUID",
     "(1.5, 0.0000000001, -12345678901234567890123456789012345678901234567.5, true, '61f0c404-5cb3-11e7-907b-a6006ad3dba0'),"
     "(-0.005, -123456789.1234567891, 0, false, '00000000-0000-0000-0000-000000000000'),"
     "(100, 0, 1.25, true, 'ffffffff-ffff-ffff-ffff-ffffffffffff')", ""),
    ("composites", "a Array(UInt8), sa Array(Nullable(String)), t Tuple(UInt8, String), nt Tuple(a UInt8, b String), m Map(String, UInt64), aa Array(Array(Int8)), mi Map(UInt8, Array(String)), ad Array(Date)",
     "([1, 2, 3], ['a', NULL, 'it\\'s', 'q\"q', 'b\\\\c'], (1, 'x'), (2, 'y\"'), {'k': 1, 'l\\'': 2}, [[1], [], [-2, 3]], {1: ['a'], 2: []}, ['2020-01-01']),"
     "([], [], (0, ''), (0, ''), {}, [], {}, [])", ""),
    ("numbers", "number UInt64, s String",
     ", ".join(f"({i}, '{'x' * (i % 4)}')" for i in range(12)), ""),
    ("footer", "number UInt32",
     ", ".join(f"({i})" for i in range(55)), ""),
    ("cut", "number UInt64, name String",
     ", ".join(f"({i}, 'n{i}')" for i in range(10)), "output_format_pretty_max_rows=4"),
    ("cut_exact", "number UInt64",
     "(0), (1), (2)", "output_format_pretty_max_rows=3"),
    ("big_number", "x UInt32", "(12345678)", ""),
    ("big_negative", "x Int64", "(-1000001)", ""),
    ("small_number", "x UInt32", "(1000000)", ""),
    ("multiline", "x String, y String", "('a\\nb', 'c'), ('line1\\nline2\\nline3', 'd\\ne')", ""),
    ("long_name", "`a very long column name that is not an identifier!` UInt8, very_long_identifier_name_that_is_fine_really_long String",
     "(1, 'x')", ""),
    ("unicode", "s String, n UInt8", "('абв', 1), ('日本語', 22), ('ᴺᵁᴸᴸ', 3)", ""),
    ("quote64", "i Int64, u UInt64, i32 Int32, f Float64, a Array(Int64), m Map(UInt64, Int64)",
     "(-1, 2, 3, nan, [4, 5], {6: 7}), (1, 0, 0, inf, [], {})",
     "output_format_json_quote_64bit_integers=1, output_format_json_quote_denormals=1"),
    ("empty", "x UInt8, s String", "", ""),
    ("csv_delimiter", "x UInt8, s String, t Tuple(UInt8, String)", "(1, 'a;b', (2, 'c')), (2, 'x\"y', (3, ''))", "format_csv_delimiter=';'"),
    ("trailing_zeros", "dec Decimal(9, 3)", "(1.5), (2), (-0.005)", "output_format_decimal_trailing_zeros=1"),
    ("domains", "lc LowCardinality(String), lcn LowCardinality(Nullable(String)), e Enum8('a' = 1, 'b<&>' = -2), e16 Enum16('x' = 1000), ip4 IPv4, ip6 IPv6, nip Nullable(IPv6), b Bool",
     "('lc', NULL, 'a', 'x', '1.2.3.4', '::1', NULL, true), ('', 'z\\t', 'b<&>', 'x', '0.0.0.0', '2001:db8::ff00:42:8329', '::ffff:1.2.3.4', false)", ""),
    ("special_names", "`count()` UInt8, `a.b-c_d` String, `x y` Nullable(Int8), `a=b c` UInt8, `é` String",
     "(1, '<x>', NULL, 2, 'é'), (2, '&amp;', -1, 3, '')", ""),
    ("markdown_escape", "s String, n Nullable(String), fs FixedString(3), a Array(String), x Int32, e Enum8('b<' = 1, 'c' = 2), ne Nullable(Enum8('b<' = 1))",
     "('a*b_c|d\\\\e!', 'x*y', 'p_q', ['m*n'], -5, 'b<', 'b<'), ('plain', NULL, '', [], 7, 'c', NULL)", "output_format_markdown_escape_special_characters=1"),
    ("sql_insert", "`x y` UInt8, s String, a Array(Nullable(String))",
     ", ".join(f"({i}, 's{i}\\'q', ['a', NULL])" for i in range(5)),
     "output_format_sql_insert_max_batch_size=2, output_format_sql_insert_table_name='db.t', output_format_sql_insert_quote_names=0"),
    ("sql_replace", "x UInt8", "(1), (2)", "output_format_sql_insert_use_replace=1, output_format_sql_insert_include_column_names=0"),
    ("custom_csv", "s String, a Array(UInt8), n Nullable(Int8), t Tuple(UInt8, String)",
     "('a\\tb\"c', [1, 2], NULL, (1, 'x')), ('', [], 5, (2, ''))",
     "format_custom_escaping_rule='CSV', format_custom_field_delimiter='|', format_custom_row_before_delimiter='<', "
     "format_custom_row_after_delimiter='>\\n', format_custom_row_between_delimiter='--\\n', "
     "format_custom_result_before_delimiter='BEGIN\\n', format_custom_result_after_delimiter='END\\n'"),
    ("custom_json", "s String, a Array(UInt8), n Nullable(Int8), f Float64",
     "('a\\tb\"c/', [1, 2], NULL, nan), ('', [], 5, 1.5)",
     "format_custom_escaping_rule='JSON', format_custom_field_delimiter=';'"),
    ("custom_quoted", "s String, d Date, n Nullable(Int8)", "('it\\'s', '2020-01-01', NULL)", "format_custom_escaping_rule='Quoted'"),
    ("custom_xml", "s String, a Array(String)", "('<a&b>', ['<'])", "format_custom_escaping_rule='XML'"),
    ("custom_raw", "s String, n Nullable(Int8)", "('a\\tb', NULL)", "format_custom_escaping_rule='Raw'"),
    ("empty_custom", "x UInt8, s String", "", "format_custom_row_between_delimiter=';', format_custom_result_before_delimiter='[', format_custom_result_after_delimiter=']'"),
    ("json_settings", "d Decimal(9, 2), a Array(Decimal(18, 4)), t Tuple(Decimal(9, 1), String), s String",
     "(1.5, [0.25, -1], (2.5, 'q'), 'x'), (-3, [], (0, ''), 'y')",
     "output_format_json_array_of_rows=1, output_format_json_quote_decimals=1"),
    ("object_name", "k String, a UInt8, m Map(String, UInt8)",
     "('first', 1, {'x': 1}), ('sec\\'ond', 2, {})",
     "format_json_object_each_row_column_for_object_name='k'"),
    ("vertical_cut", "number UInt64, name String", ", ".join(f"({i}, 'n{i}')" for i in range(12)), "output_format_pretty_max_rows=10"),
    ("name_cut", "`a very long column name that is not an identifier!` UInt8, `short but not an identifier!` UInt8", "(1, 2)",
     "output_format_pretty_max_column_name_width_cut_to=10, output_format_pretty_max_column_name_width_min_chars_to_cut=2"),
]


def escape(text):
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(DATA, "cases.tsv"), "w", encoding="utf-8") as manifest:
        for name, structure, data, settings in CASES:
            manifest.write("\t".join(escape(x) for x in (name, structure, settings, data)) + "\n")
            all_settings = BASE_SETTINGS + (", " + settings if settings else "")
            for fmt in FORMATS:
                # $$...$$ is ClickHouse's raw string literal: the data goes in unescaped.
                source = f"format(Values, '{structure.replace(chr(39), chr(92) + chr(39))}', $${data}$$)" if data else None
                if source is None:
                    query = f"SELECT * FROM format(Values, '{structure}', $$(0, '')$$) WHERE 0 SETTINGS {all_settings}"
                else:
                    query = f"SELECT * FROM {source} SETTINGS {all_settings}"
                try:
                    result = chdb.query(query, fmt).bytes()
                except Exception as e:  # noqa: BLE001 - report which case failed
                    sys.exit(f"{name} {fmt}: {e}\n{query}")
                with open(os.path.join(OUT, f"{name}.{fmt}"), "wb") as f:
                    f.write(result)
    print(f"{len(CASES)} cases x {len(FORMATS)} formats written to {OUT}")


if __name__ == "__main__":
    main()
