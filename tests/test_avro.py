"""The Avro format (object container files) end to end, against chdb:

* chdb writes Avro files into user_files; Granary infers the same structure and reads
  the same rows, from small files and from one of many blocks;
* Granary writes Avro (`FORMAT Avro` over HTTP, every codec); chdb reads it back to the
  same rows as its own Avro of the same query;
* `INSERT ... FORMAT Avro` with a body, and a truncated body that inserts nothing.
"""
import os
import shutil

import pytest

chdb = pytest.importorskip("chdb")

ROWS = (
    "SELECT number AS i, toUInt8(number) AS u8, toInt64(number) - 5 AS i64, toUInt64(number) * 1000000007 AS u64, "
    "number / 4 AS f64, toFloat32(number) / 2 AS f32, number % 2 = 0 AS b, concat('s', toString(number)) AS s, "
    "toFixedString(toString(number % 10), 1) AS fs, toDate('2024-01-01') + number AS d, "
    "toDateTime64('2024-01-02 03:04:05.123', 3, 'UTC') + number AS dt64, "
    "toDateTime64('2024-01-02 03:04:05.123456', 6, 'UTC') AS dt64_6, toDecimal64(number, 2) / 3 AS dec, "
    "toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0') AS uuid, "
    "[number, number + 1] AS arr, map('k', number) AS m, if(number % 3 = 0, NULL, number) AS n, "
    "CAST(if(number % 2 = 0, 'a', 'b') AS Enum8('a' = 1, 'b' = 2)) AS e, (number, toString(number)) AS t "
    "FROM numbers({n})"
)
SETTINGS = {"session_timezone": "UTC"}


def chdb_tsv(sql: str) -> str:
    return chdb.query(sql + " SETTINGS session_timezone = 'UTC'", "TSV").bytes().decode()


@pytest.fixture(scope="module")
def files(server):
    root = os.path.join(server.path, "user_files", "avro")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    chdb.query(f"INSERT INTO FUNCTION file('{root}/small.avro') {ROWS.format(n=20)}")
    # Many blocks (output_format_avro_sync_interval bytes each).
    chdb.query(f"INSERT INTO FUNCTION file('{root}/big.avro') SELECT number AS id, toString(number) AS s FROM numbers(300000)")
    chdb.query(f"INSERT INTO FUNCTION file('{root}/plain.avro') {ROWS.format(n=5)} SETTINGS output_format_avro_codec = 'null'")
    chdb.query(f"INSERT INTO FUNCTION file('{root}/deflate.avro') {ROWS.format(n=5)} SETTINGS output_format_avro_codec = 'deflate'")
    return root


@pytest.mark.parametrize("name", ["small.avro", "plain.avro", "deflate.avro"])
def test_inference_and_rows_match_chdb(server, files, name):
    ours = server.query(f"DESCRIBE file('avro/{name}') FORMAT TSV", **SETTINGS)
    theirs = chdb_tsv(f"DESCRIBE file('{files}/{name}')")
    # An Avro record's fields named 1, 2 are a Tuple: chdb keeps those names in the type
    # (`Tuple(`1` Int64, `2` String)`), Granary prints the tuple unnamed.
    first_two = lambda text: "\n".join("\t".join(l.split("\t")[:2]) for l in text.splitlines() if not l.startswith("t\t"))
    assert first_two(ours) == first_two(theirs)
    ours = server.query(f"SELECT * FROM file('avro/{name}') ORDER BY i FORMAT TSV", **SETTINGS)
    assert ours == chdb_tsv(f"SELECT * FROM file('{files}/{name}') ORDER BY i")


def test_many_blocks(server, files):
    sql = "SELECT count(), sum(id), max(s), sum(length(s)) FROM file('{}big.avro')"
    assert server.query(sql.format("avro/") + " FORMAT TSV") == chdb_tsv(sql.format(files + "/"))


def test_structure_given(server, files):
    sql = "SELECT i, u8, d, e, s FROM file('{}small.avro', Avro, 'i UInt64, u8 UInt8, d Date, e Enum8(''a'' = 1, ''b'' = 2), s LowCardinality(String)') ORDER BY i"
    assert server.query(sql.format("avro/") + " FORMAT TSV", **SETTINGS) == chdb_tsv(sql.format(files + "/"))


@pytest.mark.parametrize("codec", ["", "null", "deflate", "snappy", "zstd"])
def test_output_read_back_by_chdb(server, files, codec, tmp_path):
    query = ROWS.format(n=10)
    r = server.request(f"{query} FORMAT Avro", params={**SETTINGS, "output_format_avro_codec": codec})
    assert r.status == 200, r.text
    assert r.body[:4] == b"Obj\x01"
    path = tmp_path / "ours.avro"
    path.write_bytes(r.body)
    ours = chdb_tsv(f"SELECT * FROM file('{path}', Avro) ORDER BY i")
    theirs_path = tmp_path / "theirs.avro"
    chdb.query(f"INSERT INTO FUNCTION file('{theirs_path}') {query}")
    theirs = chdb_tsv(f"SELECT * FROM file('{theirs_path}', Avro) ORDER BY i")
    assert ours == theirs


def test_insert_body_and_truncated_body(server, files):
    server.query("DROP TABLE IF EXISTS avro_in")
    server.query("CREATE TABLE avro_in (id UInt64, s String) ENGINE = MergeTree ORDER BY id")
    body = open(os.path.join(files, "big.avro"), "rb").read()
    r = server.request(data=b"INSERT INTO avro_in FORMAT Avro\n" + body)
    assert r.status == 200, r.text
    assert server.query("SELECT count(), sum(id) FROM avro_in") == "300000\t44999850000\n"
    server.query("TRUNCATE TABLE avro_in")
    r = server.request(data=b"INSERT INTO avro_in FORMAT Avro\n" + body[: len(body) // 2])
    assert r.status != 200
    assert "Avro" in r.text
    assert server.query("SELECT count() FROM avro_in") == "0\n"
    r = server.request(data=b"INSERT INTO avro_in FORMAT Avro\nnot avro at all")
    assert r.status != 200 and "Code: 117" in r.text
