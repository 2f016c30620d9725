"""The output and input formats added with Vertical, Markdown, the JSON variants, XML,
TSKV, SQLInsert, CustomSeparated, the one-column formats and the Pretty MonoBlock names,
end to end over HTTP and compared byte for byte with chdb:

* outputs: the same rows (a Memory table here, `format(Values, ...)` in chdb) selected in
  each format, with zero rows, several blocks, WITH TOTALS, LIMIT and the settings each
  format honours;
* inputs: chdb writes the rows in a format, the bytes are inserted with
  `INSERT ... FORMAT X` and selected back, and must equal chdb's own reading of them;
* file(): chdb writes files in the user_files directory, Granary reads them with and
  without a structure (schema inference) as chdb does.
"""
import os
import shutil

import pytest

chdb = pytest.importorskip("chdb")

STRUCTURE = (
    "i Int32, u UInt64, f Float64, s String, n Nullable(Int32), a Array(String), "
    "t Tuple(a UInt8, b String), m Map(String, UInt8), d Date, dt DateTime('UTC'), "
    "dt64 DateTime64(3, 'UTC'), dec Decimal(9, 3), uu UUID, lc LowCardinality(String), "
    "e Enum8('a' = 1, 'b<&>' = 2), ip4 IPv4, ip6 IPv6, b Bool, f32 Float32"
)

ROWS = (
    "(1, 18446744073709551615, nan, 'a\\tb\\nc\\'d\"e\\\\', NULL, ['x','y\\'z'], (1,'q'), {'k':1}, "
    "'2024-01-02', '2024-01-02 03:04:05', '2024-01-02 03:04:05.123', 1.5, '61f0c404-5cb3-11e7-907b-a6006ad3dba0', "
    "'lc', 'a', '1.2.3.4', '::1', true, inf), "
    "(-2, 0, -1.5, 'é日本/<&>', 3, [], (2,''), {}, '1970-01-01', '1970-01-01 00:00:00', '1970-01-01 00:00:00.000', "
    "-0.005, '00000000-0000-0000-0000-000000000000', '', 'b<&>', '0.0.0.0', '2001:db8::ff00:42:8329', false, -inf), "
    "(12345678, 7, 0.1, '', 12345678, ['', 'q'], (3, 'x/y'), {'a': 2, 'b': 3}, '2000-02-29', '2038-01-19 03:14:08', "
    "'1969-12-31 23:59:59.999', 100, 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'z', 'a', '255.255.255.255', '::ffff:1.2.3.4', true, 0.5)"
)

SOURCE = f"format(Values, '{STRUCTURE.replace(chr(39), chr(92) + chr(39))}', $${ROWS}$$)"

BASE_SETTINGS = {"output_format_write_statistics": "0", "session_timezone": "UTC", "output_format_pretty_max_rows": "1000"}

OUTPUTS = [
    "Vertical", "Markdown", "MD",
    "JSONStrings", "JSONCompactStrings", "JSONStringsEachRow", "JSONCompactStringsEachRow",
    "JSONCompactEachRowWithNames", "JSONCompactEachRowWithNamesAndTypes",
    "JSONCompactStringsEachRowWithNames", "JSONCompactStringsEachRowWithNamesAndTypes",
    "JSONObjectEachRow", "JSONColumns", "JSONCompactColumns", "JSONColumnsWithMetadata",
    "PrettyJSONEachRow", "PrettyJSONLines", "PrettyNDJSON", "JSONL",
    "XML", "TSKV", "LineAsString", "LineAsStringWithNames", "LineAsStringWithNamesAndTypes",
    "Raw", "RawWithNames", "RawWithNamesAndTypes", "SQLInsert",
    "CustomSeparated", "CustomSeparatedWithNames", "CustomSeparatedWithNamesAndTypes",
    "PrettyMonoBlock", "PrettyCompactMonoBlock", "PrettySpaceMonoBlock", "PrettyNoEscapesMonoBlock",
    "PrettyCompactNoEscapesMonoBlock", "PrettySpaceNoEscapesMonoBlock",
]

PROGRESS_FORMATS = ["JSONEachRowWithProgress", "JSONStringsEachRowWithProgress", "JSONCompactEachRowWithProgress", "JSONCompactStringsEachRowWithProgress"]


def chdb_bytes(sql: str, fmt: str, settings=None) -> bytes:
    all_settings = {**BASE_SETTINGS, **(settings or {})}
    clause = ", ".join(f"{k}={sql_literal(v)}" for k, v in all_settings.items())
    return chdb.query(f"{sql} SETTINGS {clause}", fmt).bytes()


def sql_literal(value: str) -> str:
    if value.isdigit():
        return value
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\t", "\\t") + "'"


def granary_bytes(server, sql: str, fmt: str, settings=None) -> bytes:
    params = {**BASE_SETTINGS, **(settings or {})}
    r = server.request(f"{sql} FORMAT {fmt}", params=params)
    assert r.status == 200, f"{sql} FORMAT {fmt}: {r.status} {r.text}"
    return r.body


@pytest.fixture(scope="module")
def table(server):
    server.query("DROP TABLE IF EXISTS fmt_more")
    server.query(f"CREATE TABLE fmt_more ({STRUCTURE}) ENGINE = Memory")
    server.query(f"INSERT INTO fmt_more VALUES {ROWS}")
    # The same rows in the same order, in the table and in chdb's source.
    assert server.query("SELECT count() FROM fmt_more") == "3\n"
    return "fmt_more"


def columns_for(fmt: str) -> str:
    # ClickHouse switches Pretty tables of 5 columns or more to the Vertical layout
    # (output_format_pretty_fallback_to_vertical), which Granary does not do: Pretty
    # formats get fewer columns.
    return "i, s, n, a" if fmt.startswith("Pretty") and "JSON" not in fmt else "*"


def ours_and_theirs(server, table, fmt, where="", settings=None):
    cols = columns_for(fmt)
    ours = granary_bytes(server, f"SELECT {cols} FROM {table} {where} ORDER BY i", fmt, settings)
    theirs = chdb_bytes(f"SELECT {cols} FROM {SOURCE} {where} ORDER BY i", fmt, settings)
    return ours, theirs


@pytest.mark.parametrize("fmt", OUTPUTS)
def test_output_matches_chdb(server, table, fmt):
    ours, theirs = ours_and_theirs(server, table, fmt)
    assert ours == theirs, f"\n{ours.decode(errors='replace')}\n---\n{theirs.decode(errors='replace')}"


@pytest.mark.parametrize("fmt", OUTPUTS + ["RawBLOB"])
def test_output_of_no_rows(server, table, fmt):
    cols = "s" if fmt == "RawBLOB" else columns_for(fmt)
    ours = granary_bytes(server, f"SELECT {cols} FROM {table} WHERE i > 1000000000 ORDER BY i", fmt)
    theirs = chdb_bytes(f"SELECT {cols} FROM {SOURCE} WHERE i > 1000000000 ORDER BY i", fmt)
    assert ours == theirs


@pytest.mark.parametrize("fmt", ["Vertical", "XML", "JSONColumns", "JSONCompactColumns", "JSONColumnsWithMetadata", "JSONObjectEachRow", "SQLInsert", "Markdown", "PrettyCompactMonoBlock", "CustomSeparatedWithNames"])
def test_output_of_several_blocks(server, fmt):
    # numbers() in blocks of 3 rows: the output must not show where blocks were cut.
    sql = "SELECT number, toString(number) AS s FROM numbers(10) ORDER BY number"
    ours = granary_bytes(server, sql, fmt, {"max_block_size": "3"})
    theirs = chdb_bytes(sql, fmt, {"max_block_size": "3"})
    assert ours == theirs


@pytest.mark.parametrize("fmt", ["Vertical", "XML", "JSONStrings", "JSONCompactStrings", "JSONColumnsWithMetadata", "PrettyMonoBlock", "PrettySpaceMonoBlock", "Markdown", "TSKV", "CustomSeparated", "SQLInsert", "JSONObjectEachRow", "PrettyJSONEachRow", "Raw"])
def test_output_with_totals(server, fmt):
    sql = "SELECT number % 3 AS k, sum(number) AS s FROM numbers(10) GROUP BY k WITH TOTALS ORDER BY k"
    assert granary_bytes(server, sql, fmt) == chdb_bytes(sql, fmt)


@pytest.mark.parametrize("fmt", ["XML", "JSONStrings", "JSONColumnsWithMetadata"])
def test_output_rows_before_limit(server, fmt):
    sql = "SELECT number FROM numbers(10) ORDER BY number LIMIT 3"
    assert granary_bytes(server, sql, fmt) == chdb_bytes(sql, fmt)


@pytest.mark.parametrize("fmt", PROGRESS_FORMATS)
def test_output_with_progress(server, table, fmt):
    # The progress line holds timings and counters of each engine's own reading: the
    # other lines must be equal, and both end with a progress line.
    sql = "SELECT i, s, a, n FROM {} ORDER BY i"
    ours = granary_bytes(server, sql.format(table), fmt).decode().splitlines()
    theirs = chdb_bytes(sql.format(SOURCE), fmt).decode().splitlines()
    strip = lambda lines: [l for l in lines if not l.startswith('{"progress":')]
    assert strip(ours) == strip(theirs)
    assert ours[-1].startswith('{"progress":{"read_rows":"') and theirs[-1].startswith('{"progress":{"read_rows":"')
    for sql in ["SELECT number % 2 AS k, count() AS c FROM numbers(4) GROUP BY k WITH TOTALS ORDER BY k",
                "SELECT number FROM numbers(10) ORDER BY number LIMIT 2",
                "SELECT number FROM numbers(10) WHERE number > 100"]:
        assert strip(granary_bytes(server, sql, fmt).decode().splitlines()) == strip(chdb_bytes(sql, fmt).decode().splitlines()), sql


SETTING_CASES = [
    ("Markdown", {"output_format_markdown_escape_special_characters": "1"}),
    ("SQLInsert", {"output_format_sql_insert_table_name": "db.t", "output_format_sql_insert_max_batch_size": "2", "output_format_sql_insert_quote_names": "0"}),
    ("SQLInsert", {"output_format_sql_insert_use_replace": "1", "output_format_sql_insert_include_column_names": "0"}),
    ("CustomSeparatedWithNamesAndTypes", {
        "format_custom_escaping_rule": "CSV", "format_custom_field_delimiter": "|", "format_custom_row_before_delimiter": "<",
        "format_custom_row_after_delimiter": ">\n", "format_custom_row_between_delimiter": "--\n",
        "format_custom_result_before_delimiter": "BEGIN\n", "format_custom_result_after_delimiter": "END\n"}),
    ("CustomSeparatedWithNames", {"format_custom_escaping_rule": "JSON", "format_custom_field_delimiter": ";"}),
    ("CustomSeparated", {"format_custom_escaping_rule": "Quoted", "format_custom_field_delimiter": "\t"}),
    ("CustomSeparated", {"format_custom_escaping_rule": "XML"}),
    ("CustomSeparated", {"format_custom_escaping_rule": "Raw"}),
    ("Vertical", {"output_format_pretty_max_rows": "2"}),
    ("Vertical", {"output_format_pretty_single_large_number_tip_threshold": "0"}),
    ("JSONCompactStrings", {"output_format_json_escape_forward_slashes": "0"}),
    ("JSONColumns", {"output_format_json_quote_64bit_integers": "1", "output_format_json_quote_denormals": "1"}),
    ("PrettyJSONEachRow", {"output_format_json_named_tuples_as_objects": "0"}),
    ("XML", {"output_format_decimal_trailing_zeros": "1"}),
    ("JSONEachRow", {"output_format_json_array_of_rows": "1", "output_format_json_quote_decimals": "1"}),
    ("PrettyJSONEachRow", {"output_format_json_array_of_rows": "1"}),
    ("JSONObjectEachRow", {"format_json_object_each_row_column_for_object_name": "s"}),
]


@pytest.mark.parametrize("fmt,settings", SETTING_CASES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(SETTING_CASES)])
def test_output_settings(server, table, fmt, settings):
    ours, theirs = ours_and_theirs(server, table, fmt, settings=settings)
    assert ours == theirs, f"\n{ours.decode(errors='replace')}\n---\n{theirs.decode(errors='replace')}"


def test_vertical_long_names_and_raw_blob(server):
    sql = "SELECT 1 AS `a very long column name that is not an identifier!`, 'x' AS very_long_identifier_name_that_is_fine_really_long"
    assert granary_bytes(server, sql, "Vertical") == chdb_bytes(sql, "Vertical")
    for sql in ["SELECT toString(number) AS s FROM numbers(5)", "SELECT number FROM numbers(3)", "SELECT [1, 2]::Array(UInt16) AS a"]:
        assert granary_bytes(server, sql, "RawBLOB") == chdb_bytes(sql, "RawBLOB"), sql


def test_system_formats(server):
    names = ["Vertical", "Markdown", "MD", "XML", "SQLInsert", "TSKV", "RawBLOB", "LineAsString", "JSONAsString", "JSONStrings",
             "JSONColumns", "JSONCompactColumns", "JSONObjectEachRow", "CustomSeparatedWithNamesAndTypes", "PrettyNDJSON",
             "JSONEachRowWithProgress", "Raw", "RawWithNames", "PrettySpaceMonoBlock", "JSONCompactStringsEachRowWithNames",
             "JSONColumnsWithMetadata", "JSONStringsEachRow", "LineAsStringWithNames", "JSONL"]
    quoted = ", ".join(f"'{n}'" for n in names)
    sql = f"SELECT name, is_input, is_output FROM system.formats WHERE name IN ({quoted}) ORDER BY name"
    assert server.query(sql + " FORMAT TSV") == chdb.query(sql, "TSV").bytes().decode()


INPUTS = [
    "JSONCompactEachRow", "JSONCompactEachRowWithNames", "JSONCompactEachRowWithNamesAndTypes",
    "JSONStringsEachRow", "JSONCompactStringsEachRow", "JSONCompactStringsEachRowWithNames",
    "JSONCompactStringsEachRowWithNamesAndTypes", "JSONObjectEachRow", "JSONColumns", "JSONCompactColumns",
    "JSONColumnsWithMetadata", "TSKV", "CustomSeparated", "CustomSeparatedWithNames",
    "CustomSeparatedWithNamesAndTypes", "TSVRawWithNames", "TSVRawWithNamesAndTypes", "RawWithNames", "JSONL",
]

# Raw text cannot carry tabs and line feeds inside values: those formats get rows without.
RAW_SAFE_WHERE = "WHERE position(s, '\\t') = 0 AND position(s, '\\n') = 0"


def insert_and_select(server, target: str, fmt: str, body: bytes, settings=None) -> bytes:
    server.query(f"TRUNCATE TABLE {target}")
    r = server.request(data=f"INSERT INTO {target} FORMAT {fmt}\n".encode() + body, params=settings or {})
    assert r.status == 200, f"INSERT FORMAT {fmt}: {r.status} {r.text}\n{body[:500]!r}"
    return granary_bytes(server, f"SELECT * FROM {target} ORDER BY i", "TabSeparated")


@pytest.fixture(scope="module")
def target(server, table):
    server.query("DROP TABLE IF EXISTS fmt_more_in")
    server.query(f"CREATE TABLE fmt_more_in ({STRUCTURE}) ENGINE = Memory")
    return "fmt_more_in"


def chdb_reading(fmt: str, structure: str, body: bytes, settings=None) -> bytes:
    """What chdb reads from `body` in `fmt` (not the source rows: JSON has no nan or
    inf, for one), as TabSeparated rows in the order of `i`."""
    quoted = structure.replace("\\", "\\\\").replace("'", "\\'")
    return chdb_bytes(f"SELECT * FROM format({fmt}, '{quoted}', $${body.decode()}$$) ORDER BY i", "TabSeparated", settings)


@pytest.mark.parametrize("fmt", INPUTS)
def test_input_round_trip(server, target, fmt):
    where = RAW_SAFE_WHERE if "Raw" in fmt else ""
    body = chdb_bytes(f"SELECT * FROM {SOURCE} {where} ORDER BY i", fmt)
    assert insert_and_select(server, target, fmt, body) == chdb_reading(fmt, STRUCTURE, body)


@pytest.mark.parametrize("settings", [
    {"format_custom_escaping_rule": "CSV", "format_custom_field_delimiter": "|", "format_custom_row_before_delimiter": "<",
     "format_custom_row_after_delimiter": ">\n", "format_custom_row_between_delimiter": "--\n",
     "format_custom_result_before_delimiter": "BEGIN\n", "format_custom_result_after_delimiter": "END\n"},
    {"format_custom_escaping_rule": "JSON", "format_custom_field_delimiter": ";"},
    {"format_custom_escaping_rule": "Quoted", "format_custom_field_delimiter": ", "},
], ids=["csv", "json", "quoted"])
def test_custom_separated_input_settings(server, target, settings):
    # CSV writes a tuple as separate fields, which is not read back: left out there.
    cols = "* EXCEPT t" if settings["format_custom_escaping_rule"] == "CSV" else "*"
    server.query("DROP TABLE IF EXISTS fmt_more_custom")
    structure = STRUCTURE.replace("t Tuple(a UInt8, b String), ", "") if cols != "*" else STRUCTURE
    server.query(f"CREATE TABLE fmt_more_custom ({structure}) ENGINE = Memory")
    for fmt in ["CustomSeparated", "CustomSeparatedWithNamesAndTypes"]:
        body = chdb_bytes(f"SELECT {cols} FROM {SOURCE} ORDER BY i", fmt, settings)
        assert insert_and_select(server, "fmt_more_custom", fmt, body, settings) == chdb_reading(fmt, structure, body, settings), fmt


def test_json_object_each_row_name_column(server, target):
    # ClickHouse writes the names without escapes: names that need none.
    settings = {"format_json_object_each_row_column_for_object_name": "s"}
    body = chdb_bytes(f"SELECT * REPLACE (concat('row ', toString(i)) AS s) FROM {SOURCE} ORDER BY i", "JSONObjectEachRow", settings)
    assert insert_and_select(server, target, "JSONObjectEachRow", body, settings) == chdb_reading("JSONObjectEachRow", STRUCTURE, body, settings)


def test_one_string_column_inputs(server):
    server.query("DROP TABLE IF EXISTS fmt_lines")
    server.query("CREATE TABLE fmt_lines (line String) ENGINE = Memory")
    lines = chdb_bytes(f"SELECT s FROM {SOURCE} ORDER BY i", "LineAsString") + b"last line without a line feed\r"
    objects = chdb_bytes(f"SELECT i, a, t FROM {SOURCE} ORDER BY i", "JSONEachRow") + b'{"x" : [1, "}"]}'
    array = b'[{"x" : [1, "}"]}, {}]'
    blob = bytes(range(1, 128)).decode().encode() + "é日本".encode()
    for fmt, body in [("LineAsString", lines), ("JSONAsString", objects), ("JSONAsString", array), ("RawBLOB", blob)]:
        server.query("TRUNCATE TABLE fmt_lines")
        r = server.request(data=f"INSERT INTO fmt_lines FORMAT {fmt}\n".encode() + body)
        assert r.status == 200, f"{fmt}: {r.text}"
        ours = granary_bytes(server, "SELECT line FROM fmt_lines", "TabSeparated")
        theirs = chdb.query(f"SELECT * FROM format({fmt}, $${body.decode()}$$)", "TabSeparated").bytes()
        assert ours == theirs, fmt


@pytest.fixture(scope="module")
def files(server):
    root = os.path.join(server.path, "user_files", "fmt_more")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    rows = "SELECT number AS id, toString(number * 7) AS name, number / 4 AS score, toDate('2024-01-01') + number AS day, [number, 1] AS arr FROM numbers(20)"
    for name, fmt in [
        ("c.jsonc", "JSONCompactEachRow"),
        ("cn.jsonc", "JSONCompactEachRowWithNames"),
        ("cnt.jsonc", "JSONCompactEachRowWithNamesAndTypes"),
        ("sn.jsonc", "JSONCompactStringsEachRowWithNames"),
        ("s.jsons", "JSONStringsEachRow"),
        ("o.json", "JSONObjectEachRow"),
        ("cols.json", "JSONColumns"),
        ("ccols.json", "JSONCompactColumns"),
        ("meta.json", "JSONColumnsWithMetadata"),
        ("data.tskv", "TSKV"),
        ("cs.txt", "CustomSeparatedWithNames"),
        ("csnt.txt", "CustomSeparatedWithNamesAndTypes"),
        ("raw.tsv", "TSVRawWithNames"),
        ("lines.txt", "LineAsString"),
    ]:
        cols = "name" if fmt == "LineAsString" else "*"
        chdb.query(f"INSERT INTO FUNCTION file('{root}/{name}', '{fmt}') SELECT {cols} FROM ({rows})")
    return root


FILE_CASES = [
    ("c.jsonc", "JSONCompactEachRow"),
    ("cn.jsonc", "JSONCompactEachRowWithNames"),
    ("cnt.jsonc", "JSONCompactEachRowWithNamesAndTypes"),
    ("sn.jsonc", "JSONCompactStringsEachRowWithNames"),
    ("s.jsons", "JSONStringsEachRow"),
    ("o.json", "JSONObjectEachRow"),
    ("cols.json", "JSONColumns"),
    ("ccols.json", "JSONCompactColumns"),
    ("data.tskv", "TSKV"),
    ("cs.txt", "CustomSeparatedWithNames"),
    ("csnt.txt", "CustomSeparatedWithNamesAndTypes"),
    ("raw.tsv", "TSVRawWithNames"),
    ("lines.txt", "LineAsString"),
    ("lines.txt", "RawBLOB"),
    ("o.json", "JSONAsString"),
]


@pytest.mark.parametrize("name,fmt", FILE_CASES, ids=[f for _, f in FILE_CASES])
def test_file_inference_matches_chdb(server, files, name, fmt):
    describe = f"DESCRIBE file('{{f}}{name}', '{fmt}')"
    ours = server.query(describe.replace("{f}", "fmt_more/") + " FORMAT TSV")
    theirs = chdb.query(describe.replace("{f}", files + "/"), "TSV").bytes().decode()
    first_two = lambda text: "\n".join("\t".join(l.split("\t")[:2]) for l in text.splitlines())
    assert first_two(ours) == first_two(theirs)
    select = f"SELECT * FROM file('{{f}}{name}', '{fmt}')"
    if fmt not in ("RawBLOB", "JSONAsString", "LineAsString"):
        select += " ORDER BY 1"
    ours = server.query(select.replace("{f}", "fmt_more/") + " FORMAT TSV")
    theirs = chdb.query(select.replace("{f}", files + "/"), "TSV").bytes().decode()
    assert ours == theirs


def test_file_with_structure(server, files):
    for name, fmt in [("cn.jsonc", "JSONCompactEachRowWithNames"), ("data.tskv", "TSKV"), ("meta.json", "JSONColumnsWithMetadata")]:
        sql = f"SELECT id, name, arr FROM file('{{f}}{name}', '{fmt}', 'id UInt64, name String, arr Array(UInt64)') ORDER BY id"
        ours = server.query(sql.replace("{f}", "fmt_more/") + " FORMAT TSV")
        theirs = chdb.query(sql.replace("{f}", files + "/"), "TSV").bytes().decode()
        assert ours == theirs, fmt


def test_client_backslash_g_is_vertical(server):
    # clickhouse-client's `\G` ends a statement and shows its result in Vertical.
    import subprocess
    from conftest import BINARY
    query = "SELECT number, toString(number) AS s FROM numbers(2)\\G SELECT 1 AS x; SELECT 12345678 AS big\\G"
    r = subprocess.run([BINARY, "client", "--host", "127.0.0.1", "--port", str(server.port), "--query", query], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    expected = (chdb.query("SELECT number, toString(number) AS s FROM numbers(2)", "Vertical").bytes() + b"1\n"
                + chdb.query("SELECT 12345678 AS big", "Vertical").bytes())
    assert r.stdout == expected
