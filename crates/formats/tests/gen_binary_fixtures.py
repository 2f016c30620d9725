#!/usr/bin/env python3
"""Writes tests/fixtures/: the binary formats ClickHouse (chdb) produces for a table of
every type Granary's binary formats support, for tests/binary.rs.

    python3 tests/gen_binary_fixtures.py   # chdb 4.4.0 (ClickHouse 26.9)

wide.sql is the query; wide.schema its columns (name TAB type); wide.values its rows in
Values format (what Granary parses to get the same data); wide.<Format> the bytes.
"""
import os
import chdb

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")

COLUMNS = [
    ("u8", "UInt8"), ("u16", "UInt16"), ("u32", "UInt32"), ("u64", "UInt64"),
    ("i8", "Int8"), ("i16", "Int16"), ("i32", "Int32"), ("i64", "Int64"),
    ("f32", "Float32"), ("f64", "Float64"), ("b", "Bool"), ("s", "String"), ("fs", "FixedString(3)"),
    ("d", "Date"), ("d32", "Date32"), ("dt", "DateTime('Asia/Tokyo')"), ("dt64", "DateTime64(3, 'UTC')"),
    ("dt64_1", "DateTime64(1)"), ("dec9", "Decimal(9, 2)"), ("dec18", "Decimal(18, 3)"), ("dec38", "Decimal(38, 4)"),
    ("dec76", "Decimal(76, 5)"), ("uuid", "UUID"), ("ni", "Nullable(Int32)"), ("ns", "Nullable(String)"),
    ("lc", "LowCardinality(String)"), ("lcn", "LowCardinality(Nullable(String))"), ("arr", "Array(UInt8)"),
    ("arrn", "Array(Nullable(String))"), ("arr2", "Array(Array(Int16))"), ("tup", "Tuple(UInt8, String)"),
    ("ntup", "Tuple(a Int32, b Array(String))"), ("m", "Map(String, UInt64)"), ("arrlc", "Array(LowCardinality(String))"),
]

ROWS = [
    "(1, 2, 3, 4, -1, -2, -3, -4, 1.5, -0.25, true, 'hello', 'abc', '2020-01-02', '1900-01-01', '2020-01-02 03:04:05', "
    "'2020-01-02 03:04:05.678', '2021-05-06 07:08:09.5', 1.25, -2.125, 3.0001, '-12345678901234567890.12345', "
    "'61f0c404-5cb3-11e7-907b-a6006ad3dba0', 7, 'x', 'red', 'red', [1, 2, 3], ['a', NULL, ''], [[1], [], [2, 3]], (1, 'one'), "
    "(-5, ['p', 'q']), map('k1', 1, 'k2', 2), ['u', 'v', 'u'])",
    "(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, '', '', '1970-01-01', '1970-01-01', '1970-01-01 09:00:00', "
    "'1970-01-01 00:00:00.000', '1970-01-01 00:00:00.0', 0, 0, 0, 0, '00000000-0000-0000-0000-000000000000', NULL, NULL, '', "
    "NULL, [], [], [], (0, ''), (0, []), map(), [])",
    "(255, 65535, 4294967295, 18446744073709551615, -128, -32768, -2147483648, -9223372036854775808, -1e10, 1e300, true, "
    "'tab\\there \\'q\\' \\\\ ж', 'xyz', '2149-06-06', '2299-12-31', '2106-02-07 15:28:15', '1969-12-31 23:59:59.999', "
    "'2000-01-01 00:00:00.1', '-9999999.99', '999999999999999.999', '-99999999999999999999999999999999.9999', "
    "'99999999999999999999999999999999999999999999999999999999999999999999999.99999', 'ffffffff-ffff-ffff-ffff-ffffffffffff', "
    "-2147483648, '', 'blue', '', [255], [NULL], [[-1, -2]], (255, 'x'), (1, ['']), map('', 0), ['w'])",
    "(7, 7, 7, 7, 7, 7, 7, 7, 7, 7, false, 'red', 'a', '2000-02-29', '2000-02-29', '2000-02-29 12:00:00', "
    "'2000-02-29 12:00:00.001', '2000-02-29 12:00:00.9', 7, 7, 7, 7, '61f0c404-5cb3-11e7-907b-a6006ad3dba0', 7, 'red', 'red', "
    "'blue', [7], ['red'], [[7]], (7, 'red'), (7, ['red']), map('red', 7), ['red', 'blue'])",
]


def main():
    os.makedirs(HERE, exist_ok=True)
    structure = ", ".join(f"{n} {t}" for n, t in COLUMNS)
    sql = f"SELECT * FROM values('{structure.replace(chr(39), chr(92) + chr(39))}', {', '.join(ROWS)})"
    with open(os.path.join(HERE, "wide.sql"), "w") as f:
        f.write(sql + "\n")
    with open(os.path.join(HERE, "wide.schema"), "w") as f:
        f.writelines(f"{n}\t{t}\n" for n, t in COLUMNS)
    settings = " SETTINGS session_timezone = 'UTC'"
    for fmt in ["Values", "Native", "RowBinary", "RowBinaryWithNames", "RowBinaryWithNamesAndTypes", "Arrow", "ArrowStream"]:
        data = chdb.query(sql + settings, fmt).bytes()
        name = "wide.values" if fmt == "Values" else f"wide.{fmt}"
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        print(name, len(data))


if __name__ == "__main__":
    main()
