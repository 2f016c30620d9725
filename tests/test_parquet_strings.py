"""Parquet String columns read through file(): Granary reads them as Arrow string views
inside a query (faster filters and GROUP BY); everything that sees them must behave as
with plain String columns. Results are compared with chdb reading the same file, and
what leaves the server (Arrow, Native, MergeTree rows) with the same rows read from a
MergeTree table."""
import io
import os
import shutil

import pytest

chdb = pytest.importorskip("chdb")
pa = pytest.importorskip("pyarrow")
import pyarrow.ipc  # noqa: E402


def ch(sql: str, fmt: str = "TSV") -> str:
    return chdb.query(sql, fmt).bytes().decode()


ROWS = """SELECT number AS id,
    multiIf(number % 7 = 0, '', number % 11 = 0, 'anon', concat('user', toString(number % 37))) AS name,
    concat('a long value that is not inlined in a view #', toString(number % 5)) AS long_text,
    if(number % 3 = 0, NULL, concat('n', toString(number))) AS maybe,
    toLowCardinality(concat('lc', toString(number % 4))) AS lc,
    [concat('x', toString(number % 3)), 'y'] AS arr,
    'ünï' AS utf,
    if(number % 13 = 0, 'not json', concat('{"id":', toString(number), ',"user":{"name":"', name, '","tags":["t', toString(number % 3), '"]},"v":', toString(number / 8), '}')) AS doc
    FROM numbers(500)"""


@pytest.fixture(scope="module")
def pq(server):
    root = os.path.join(server.path, "user_files", "pqstr")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    ch(f"INSERT INTO FUNCTION file('{root}/s.parquet') " + ROWS)
    server.query("CREATE TABLE IF NOT EXISTS pqstr_mt ENGINE = MergeTree ORDER BY id AS SELECT * FROM file('pqstr/s.parquet')")
    return root


QUERIES = [
    "SELECT toTypeName(name), toTypeName(long_text), toTypeName(maybe), toTypeName(lc), toTypeName(arr) FROM {f} LIMIT 1",
    "SELECT id, upper(name), length(name), lengthUTF8(utf), substring(long_text, 3, 10), concat(name, '-', maybe), reverse(name) FROM {f} ORDER BY id LIMIT 20",
    "SELECT count() FROM {f} WHERE name LIKE 'user1%'",
    "SELECT count() FROM {f} WHERE name ILIKE 'USER2_' OR long_text LIKE '%#3'",
    "SELECT name, count() AS c FROM {f} WHERE name NOT IN ('', 'anon') GROUP BY name ORDER BY c DESC, name LIMIT 5",
    "SELECT name, count() FROM {f} WHERE name IN ('user1', 'user2', 'anon') GROUP BY name ORDER BY name",
    # A key column that cannot be NULL, no filter: the group made ahead for NULL is dropped.
    "SELECT name, count(), sum(id) FROM {f} GROUP BY name ORDER BY name LIMIT 6",
    "SELECT long_text, count(), min(name), max(name), any(lc) FROM {f} GROUP BY long_text ORDER BY long_text",
    "SELECT maybe, id FROM {f} ORDER BY maybe DESC, id LIMIT 5",
    "SELECT uniq(name), uniqExact(long_text), groupUniqArray(lc) = groupUniqArray(lc), topK(3)(name), argMax(name, id), countDistinct(maybe) FROM {f}",
    "SELECT name = 'anon', name < 'user2', name || '!' FROM {f} ORDER BY id LIMIT 12",
    "SELECT lc, groupArray(name) FROM (SELECT lc, name FROM {f} ORDER BY id LIMIT 12) GROUP BY lc ORDER BY lc",
    "SELECT splitByChar('e', long_text), position(long_text, 'value'), replaceAll(name, 'user', 'u'), lower(utf), hex(name) FROM {f} ORDER BY id LIMIT 4",
    "SELECT id, arr, arrayJoin(arr) AS x, has(arr, 'y') FROM {f} ORDER BY id, x LIMIT 6",
    "SELECT if(id % 2 = 0, name, long_text), coalesce(maybe, name), ifNull(maybe, 'none'), multiIf(id < 3, name, maybe) FROM {f} ORDER BY id LIMIT 6",
    "SELECT toString(id) = name, cityHash64(name), length(toFixedString(lc, 3)) FROM {f} ORDER BY id LIMIT 3",
    "SELECT a.name, b.long_text FROM {f} AS a INNER JOIN (SELECT id, long_text FROM {f}) AS b ON a.id = b.id WHERE a.name = 'user5' ORDER BY a.id",
    "SELECT * FROM (SELECT name FROM {f} WHERE id < 3 UNION ALL SELECT 'literal') ORDER BY name",
    "SELECT DISTINCT lc FROM {f} ORDER BY lc",
    # = and != against literals of up to 12 bytes (inlined in a view) and longer ones.
    "SELECT count(), min(id), max(id) FROM {f} WHERE maybe != 'n1' AND name != ''",
    "SELECT id, name FROM {f} WHERE long_text = 'a long value that is not inlined in a view #3' AND name != 'anon' ORDER BY id LIMIT 5",
    "SELECT count() FROM {f} WHERE long_text != 'a long value that is not inlined in a view #' OR long_text = 'a long value'",
    "SELECT id FROM {f} WHERE 'user12' = name OR maybe = 'n123' OR maybe = 'n123456789012' ORDER BY id",
    "SELECT count() FROM {f} WHERE NOT (name = 'anon') AND maybe != 'a long value that is not inlined in a view #1'",
    # length/empty/notEmpty read the lengths in the views.
    "SELECT id, length(maybe), empty(maybe), notEmpty(name), length(long_text), empty(name) FROM {f} ORDER BY id LIMIT 15",
    "SELECT sum(length(name)), countIf(empty(name)), countIf(notEmpty(maybe)), sum(length(maybe)) FROM {f}",
    "SELECT countIf(startsWith(name, 'user1')), countIf(endsWith(long_text, '#3')), countIf(startsWith(maybe, 'n1')), countIf(startsWith(long_text, name)) FROM {f}",
    "SELECT id, startsWith(maybe, 'n'), endsWith(maybe, '7'), startsWith(name, '') FROM {f} WHERE startsWith(long_text, 'a long value that') ORDER BY id LIMIT 7",
    # JSON functions read the documents in the views.
    "SELECT id, JSONExtractString(doc, 'user', 'name'), JSONExtractInt(doc, 'id'), JSONExtractFloat(doc, 'v'), JSONType(doc, 'user'), JSONExtractRaw(doc, 'user', 'tags'), isValidJSON(doc) FROM {f} ORDER BY id LIMIT 15",
    "SELECT JSONExtractString(doc, 'user', 'tags', 1) AS t, count(), sum(JSONLength(doc)), sum(JSONExtractUInt(doc, 'id')) FROM {f} GROUP BY t ORDER BY t",
    "SELECT id, JSONExtract(doc, 'user', 'Tuple(name String, tags Array(String))'), JSONExtractKeys(doc), JSON_VALUE(doc, '$.user.name'), simpleJSONExtractInt(doc, 'id') FROM {f} ORDER BY id LIMIT 14",
    "SELECT lc, JSONHas(concat('{\"', lc, '\":1}'), 'lc1'), JSONExtractString(maybe, 'x') FROM {f} ORDER BY id LIMIT 6",
]


@pytest.mark.parametrize("query", QUERIES)
def test_parquet_strings_match_chdb(server, pq, query):
    ours = server.query(query.replace("{f}", "file('pqstr/s.parquet')") + " FORMAT TSV")
    theirs = ch(query.replace("{f}", f"file('{pq}/s.parquet')"))
    assert ours == theirs


def test_parquet_strings_into_mergetree(server, pq):
    # CREATE ... AS SELECT typed the columns from the file; an INSERT ... SELECT reads them too.
    types = server.query("SELECT name, type FROM system.columns WHERE table = 'pqstr_mt' ORDER BY position")
    assert "name\tString\n" in types and "long_text\tString\n" in types and "maybe\tNullable(String)\n" in types
    server.query("CREATE TABLE IF NOT EXISTS pqstr_mt2 (id UInt64, name String, lc LowCardinality(String)) ENGINE = MergeTree ORDER BY id")
    server.query("TRUNCATE TABLE pqstr_mt2")
    server.query("INSERT INTO pqstr_mt2 SELECT id, name, lc FROM file('pqstr/s.parquet')")
    server.query("CREATE TABLE IF NOT EXISTS pqstr_mem (name String, n UInt64) ENGINE = Memory")
    server.query("TRUNCATE TABLE pqstr_mem")
    server.query("INSERT INTO pqstr_mem SELECT name, count() FROM file('pqstr/s.parquet') GROUP BY name")
    expected = ch(f"SELECT count(), sum(cityHash64(name)), sum(cityHash64(lc)) FROM file('{pq}/s.parquet')")
    assert server.query("SELECT count(), sum(cityHash64(name)), sum(cityHash64(lc)) FROM pqstr_mt2") == expected
    assert server.query("SELECT count(), sum(cityHash64(name)), sum(cityHash64(long_text)) FROM pqstr_mt") == ch(
        f"SELECT count(), sum(cityHash64(name)), sum(cityHash64(long_text)) FROM file('{pq}/s.parquet')"
    )
    assert server.query("SELECT sum(n), count() FROM pqstr_mem") == ch(f"SELECT count(), uniqExact(name) FROM file('{pq}/s.parquet')")


@pytest.mark.parametrize("fmt", ["Native", "ArrowStream", "JSONEachRow"])
def test_parquet_scan_reads_plain_strings_when_nothing_needs_views(server, pq, fmt):
    """A query that is only a scan (`SELECT *`, the source of INSERT ... SELECT) reads the
    strings as plain String from the start: no view and no cast back, same bytes out."""
    plan = server.query("EXPLAIN PIPELINE SELECT * FROM file('pqstr/s.parquet')")
    assert "CAST" not in plan and "ProjectionExec" not in plan, plan
    assert "CAST(" in server.query("EXPLAIN PIPELINE SELECT * FROM file('pqstr/s.parquet') WHERE name = 'anon'")
    from_file = server.request(f"SELECT * FROM file('pqstr/s.parquet') SETTINGS max_threads = 1 FORMAT {fmt}")
    from_table = server.request(f"SELECT * FROM pqstr_mt ORDER BY id FORMAT {fmt}")
    assert from_file.status == 200 and from_table.status == 200, from_file.text
    assert from_file.body == from_table.body


@pytest.mark.parametrize("fmt", ["Native", "Arrow", "ArrowStream", "RowBinaryWithNamesAndTypes", "Parquet", "JSONEachRow"])
def test_parquet_strings_leave_as_plain_strings(server, pq, fmt):
    """The file's columns come out of every format byte for byte as the same columns of a
    MergeTree table (which are plain Utf8 inside Granary)."""
    columns = "id, name, long_text, maybe, lc, arr, utf"
    from_file = server.request(f"SELECT {columns} FROM file('pqstr/s.parquet') ORDER BY id FORMAT {fmt}")
    from_table = server.request(f"SELECT {columns} FROM pqstr_mt ORDER BY id FORMAT {fmt}")
    assert from_file.status == 200 and from_table.status == 200, from_file.text
    if fmt == "Parquet":
        # created_by and other metadata are the same too, but compare what matters.
        a = pa.parquet.read_table(pa.BufferReader(from_file.body)) if hasattr(pa, "parquet") else None
        import pyarrow.parquet as pq_mod
        a = pq_mod.read_table(pa.BufferReader(from_file.body))
        b = pq_mod.read_table(pa.BufferReader(from_table.body))
        assert a.schema == b.schema and a.equals(b)
        assert not any(pa.types.is_string_view(f.type) for f in a.schema)
        return
    assert from_file.body == from_table.body
    if fmt in ("Arrow", "ArrowStream"):
        reader = pa.ipc.open_file(io.BytesIO(from_file.body)) if fmt == "Arrow" else pa.ipc.open_stream(io.BytesIO(from_file.body))
        schema = reader.schema
        assert schema.field("name").type == pa.string()
        assert schema.field("long_text").type == pa.string()
        assert not any(pa.types.is_string_view(f.type) for f in schema)


def test_parquet_string_results_of_builtin_aggregates_are_plain(server, pq):
    # min/max keep the argument's type inside DataFusion; the result is still String.
    r = server.request("SELECT min(name) AS a, max(long_text) AS b FROM file('pqstr/s.parquet') FORMAT Arrow")
    assert r.status == 200, r.text
    schema = pa.ipc.open_file(io.BytesIO(r.body)).schema
    assert schema.field("a").type == pa.string() and schema.field("b").type == pa.string()
    assert server.query("SELECT toTypeName(min(name)), toTypeName(max(long_text)) FROM file('pqstr/s.parquet')") == "String\tString\n"


# GROUP BY one string column of Parquet files is worked out per dictionary value
# (DictionaryGroupByExec). The file has several row groups (a new dictionary each), a
# column with NULLs, one written without a dictionary, and one whose dictionary outgrows
# the page limit part way through a row group (dictionary pages, then plain ones).
@pytest.fixture(scope="module")
def pq_groups(server):
    import pyarrow.parquet as pqw
    root = os.path.join(server.path, "user_files", "pqgroups")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    n = 30000
    def name(i):
        if i % 13 == 0:
            return None
        return "" if i % 7 == 0 else "anon" if i % 11 == 0 else f"user{(i * 7919) % 37}"
    table = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "name": pa.array([name(i) for i in range(n)], pa.string()),
        "plain_name": pa.array([f"p{i % 23}" for i in range(n)], pa.string()),
        "big": pa.array([f"value-{(i * 31) % 9000}-{'x' * (i % 9)}" for i in range(n)], pa.string()),
        "score": pa.array([(i * 17) % 101 - 20 for i in range(n)], pa.int32()),
    })
    pqw.write_table(table, f"{root}/g.parquet", row_group_size=7000, use_dictionary=["name", "big"], dictionary_pagesize_limit=16384)
    return root


GROUP_QUERIES = [
    "SELECT name, count(), sum(score), avg(score), min(id), max(id) FROM {f} GROUP BY name ORDER BY name",
    "SELECT name, count() AS c FROM {f} WHERE name NOT IN ('', 'anon') GROUP BY name ORDER BY c DESC, name LIMIT 5",
    "SELECT name, count() FROM {f} WHERE name IS NULL OR name = 'user1' GROUP BY name ORDER BY name",
    "SELECT name, count(), max(plain_name) FROM {f} WHERE name > 'user3' GROUP BY name HAVING count() > 10 ORDER BY name",
    "SELECT plain_name, count(), sum(id) FROM {f} GROUP BY plain_name ORDER BY plain_name",
    "SELECT big, count(), min(score) FROM {f} WHERE big != 'value-5-xxxxx' GROUP BY big ORDER BY count() DESC, big LIMIT 7",
    "SELECT count(), sum(c) FROM (SELECT big, count() AS c FROM {f} GROUP BY big)",
    "SELECT name, count() FROM {f} WHERE name = 'nobody' GROUP BY name",
    # A filter on another column, an aggregate of the key, DISTINCT: the ordinary plan.
    "SELECT name, count() FROM {f} WHERE score > 50 GROUP BY name ORDER BY name",
    "SELECT name, count(DISTINCT score), any(length(name)) FROM {f} GROUP BY name ORDER BY name",
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("query", GROUP_QUERIES)
def test_parquet_dictionary_group_by_matches_chdb(server, pq_groups, query, threads):
    settings = f" SETTINGS max_threads = {threads}"
    ours = server.query(query.replace("{f}", "file('pqgroups/g.parquet')") + settings + " FORMAT TSV")
    theirs = ch(query.replace("{f}", f"file('{pq_groups}/g.parquet')") + settings)
    assert ours == theirs


def test_parquet_dictionary_group_by_is_planned(server, pq_groups):
    plan = server.query("EXPLAIN PIPELINE SELECT name, count() FROM file('pqgroups/g.parquet') WHERE name != 'anon' GROUP BY name")
    assert "DictionaryGroupByExec" in plan and "FilterExec" not in plan
    other = server.query("EXPLAIN PIPELINE SELECT name, count() FROM file('pqgroups/g.parquet') WHERE score > 1 GROUP BY name")
    assert "DictionaryGroupByExec" not in other
    # A filter that is not a function of the key alone cannot run once per distinct key.
    volatile = server.query("EXPLAIN PIPELINE SELECT name, count() FROM file('pqgroups/g.parquet') WHERE name != 'anon' AND rand() % 2 = 0 GROUP BY name")
    assert "DictionaryGroupByExec" not in volatile
