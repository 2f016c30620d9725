"""file() (and s3() against a local SeaweedFS) end to end, compared with chdb reading the
same files. Fixtures are written by chdb itself into the server's user_files directory, so
both engines read identical bytes; granary gets paths relative to user_files, chdb absolute
paths."""
import os
import shutil

import pytest

chdb = pytest.importorskip("chdb")


def ch(sql: str, fmt: str = "TSV") -> str:
    return chdb.query(sql, fmt).bytes().decode()


@pytest.fixture(scope="module")
def files(server):
    root = os.path.join(server.path, "user_files", "io")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "nested", "deep"))
    rows = "SELECT number AS id, toString(number * 7) AS name, number / 4 AS score, toDate('2024-01-01') + number AS day FROM numbers({start}, {n})"
    for i in range(1, 4):
        ch(f"INSERT INTO FUNCTION file('{root}/part-0{i}.csv', 'CSVWithNames') " + rows.format(start=i * 100, n=50))
    ch(f"INSERT INTO FUNCTION file('{root}/data.tsv', 'TSVWithNames') " + rows.format(start=0, n=20))
    ch(f"INSERT INTO FUNCTION file('{root}/data.jsonl', 'JSONEachRow') " + rows.format(start=0, n=20))
    ch(f"INSERT INTO FUNCTION file('{root}/data.parquet') " + rows.format(start=0, n=3000))
    ch(f"INSERT INTO FUNCTION file('{root}/nested/a.parquet') " + rows.format(start=5000, n=10))
    ch(f"INSERT INTO FUNCTION file('{root}/nested/deep/b.parquet') " + rows.format(start=6000, n=10))
    ch(f"INSERT INTO FUNCTION file('{root}/data.csv.gz', 'CSVWithNames') " + rows.format(start=0, n=1000))
    ch(f"INSERT INTO FUNCTION file('{root}/data.csv.zst', 'CSVWithNames') " + rows.format(start=0, n=1000))
    with open(os.path.join(root, "bad.csv"), "w") as f:
        f.write("a,b\n1,2\n3,x\n")
    with open(os.path.join(root, "data.parquet"), "rb") as f:
        head = f.read(2000)
    with open(os.path.join(root, "truncated.parq"), "wb") as f:
        f.write(head)
    return root


def both(server, root, sql_template: str):
    """Runs the query with `{f}` as granary's relative and chdb's absolute path."""
    ours = server.query(sql_template.replace("{f}", "io/") + " FORMAT TSV")
    theirs = ch(sql_template.replace("{f}", root + "/"))
    return ours, theirs


@pytest.mark.parametrize(
    "query",
    [
        "DESCRIBE file('{f}part-01.csv')",
        "DESCRIBE file('{f}data.tsv')",
        "DESCRIBE file('{f}data.jsonl')",
        "DESCRIBE file('{f}data.parquet')",
        "DESCRIBE TABLE file('{f}data.csv.gz')",
        "SELECT * FROM file('{f}part-01.csv') ORDER BY id",
        "SELECT * FROM file('{f}data.tsv') ORDER BY id",
        "SELECT * FROM file('{f}data.jsonl') ORDER BY id",
        "SELECT count(), sum(id), min(day), max(name) FROM file('{f}data.parquet')",
        "SELECT id, name FROM file('{f}data.parquet') WHERE id BETWEEN 1000 AND 1005 ORDER BY id",
        "SELECT count(), sum(id) FROM file('{f}part-*.csv')",
        "SELECT count(), sum(id) FROM file('{f}part-0{1..2}.csv')",
        "SELECT count(), sum(id) FROM file('{f}part-0{1,3}.csv')",
        "SELECT count(), sum(id) FROM file('{f}part-0?.csv')",
        "SELECT count(), sum(id) FROM file('{f}**.parquet')",
        "SELECT count(), sum(id) FROM file('{f}**/*.parquet')",
        "SELECT count(), sum(id) FROM file('{f}nested/**')",
        "SELECT count(), sum(id) FROM file('{f}nested/*/*.parquet')",
        "SELECT _file, count() FROM file('{f}part-*.csv') GROUP BY _file ORDER BY _file",
        "SELECT count(), sum(id) FROM file('{f}data.csv.gz')",
        "SELECT count(), sum(id) FROM file('{f}data.csv.zst')",
        "SELECT * FROM file('{f}part-01.csv', 'CSVWithNames', 'id UInt32, name String, score Float32, day Date') ORDER BY id LIMIT 3",
        "SELECT * FROM file('{f}data.tsv', 'TSVWithNames', 'id UInt8, name String, score Float64, day String') ORDER BY id LIMIT 3",
        "SELECT * FROM file('{f}part-01.csv', 'CSV', 'a String, b String, c String, d String') LIMIT 2",
        "SELECT count(), sum(id) FROM file('{f}data.csv.gz', 'CSVWithNames', 'id UInt64, name String, score Float64, day Date', 'gzip')",
    ],
)
def test_file_matches_chdb(server, files, query):
    ours, theirs = both(server, files, query)
    if query.startswith("DESCRIBE"):
        # Only name and type: the other DESCRIBE columns are empty in both.
        ours = "\n".join("\t".join(l.split("\t")[:2]) for l in ours.splitlines())
        theirs = "\n".join("\t".join(l.split("\t")[:2]) for l in theirs.splitlines())
    assert ours == theirs


def test_virtual_path(server, files):
    out = server.query("SELECT DISTINCT _path FROM file('io/data.parquet')").strip()
    assert out == os.path.join(os.path.realpath(server.path), "user_files", "io", "data.parquet") or out.endswith("/user_files/io/data.parquet")
    # Not part of SELECT *.
    assert len(server.query("SELECT * FROM file('io/data.tsv') LIMIT 1").strip().split("\t")) == 4


def error(server, sql):
    r = server.request(sql)
    assert r.status != 200, f"{sql} succeeded: {r.text}"
    return r.text


def test_confined_to_user_files(server, files):
    assert "DATABASE_ACCESS_DENIED" in error(server, "SELECT * FROM file('../metadata/default.json', 'TSV', 'a String')")
    assert "DATABASE_ACCESS_DENIED" in error(server, "SELECT * FROM file('/etc/passwd', 'TSV', 'a String')")
    os.symlink("/etc/passwd", os.path.join(files, "passwd.tsv"))
    try:
        assert "DATABASE_ACCESS_DENIED" in error(server, "SELECT * FROM file('io/passwd.tsv', 'TSV', 'a String')")
    finally:
        os.remove(os.path.join(files, "passwd.tsv"))


def test_missing_files(server, files):
    assert "Code: 636" in error(server, "SELECT * FROM file('io/nope.csv')")
    assert "Code: 636" in error(server, "SELECT * FROM file('io/nope*.csv')")
    assert "Code: 107" in error(server, "SELECT * FROM file('io/nope.csv', 'CSV', 'a Int32')")


def test_bad_data(server, files):
    # ClickHouse says INCORRECT_DATA (117); the CSV parser of granary-formats says
    # CANNOT_PARSE_TEXT (6) for the same row.
    text = error(server, "SELECT * FROM file('io/bad.csv', 'CSVWithNames', 'a Int32, b Int32')")
    assert ("Code: 117" in text or "Code: 6." in text) and "bad.csv" in text
    text = error(server, "SELECT * FROM file('io/truncated.parq', 'Parquet')")
    assert "Code: 636" in text and "Not a Parquet file" in text
    text = error(server, "SELECT * FROM file('io/truncated.parq', 'Parquet', 'id UInt64')")
    assert "Code: 117" in text and "Not a Parquet file" in text


def test_insert_select_into_mergetree(server, files):
    server.query("DROP TABLE IF EXISTS io_t")
    server.query("CREATE TABLE io_t (id UInt64, name String, score Float64, day Date) ENGINE = MergeTree ORDER BY id")
    server.query("INSERT INTO io_t SELECT * FROM file('io/data.parquet')")
    server.query("INSERT INTO io_t SELECT * FROM file('io/part-*.csv')")
    assert server.query("SELECT count(), sum(id) FROM io_t").strip() == ch(
        f"SELECT count(), sum(toInt64(id)) FROM (SELECT toInt64(id) AS id FROM file('{files}/data.parquet') UNION ALL SELECT toInt64(id) AS id FROM file('{files}/part-*.csv'))"
    ).strip()
    # A bad row fails the INSERT and inserts nothing.
    server.query("CREATE TABLE IF NOT EXISTS io_bad (a Int32, b Int32) ENGINE = MergeTree ORDER BY a")
    assert "bad.csv" in error(server, "INSERT INTO io_bad SELECT * FROM file('io/bad.csv', 'CSVWithNames', 'a Int32, b Int32')")
    assert server.query("SELECT count() FROM io_bad").strip() == "0"
    server.query("DROP TABLE io_t")
    server.query("DROP TABLE io_bad")


@pytest.fixture(scope="module")
def s3_endpoint(tmp_path_factory):
    """A SeaweedFS S3 server from scripts/s3_server.sh (bucket `test-bucket`, keys
    testkey/testsecret), stopped by PID at the end of the module."""
    import subprocess
    script = os.path.join(os.path.dirname(__file__), "..", "scripts", "s3_server.sh")
    data = str(tmp_path_factory.mktemp("s3"))
    try:
        out = subprocess.run(["bash", script, "start", data], check=True, capture_output=True, text=True, timeout=300)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"S3 server unavailable: {getattr(e, 'stderr', e)}")
    yield out.stdout.strip()
    subprocess.run(["bash", script, "stop", data], check=False, timeout=60)


def test_s3_server_fixture_round_trip(s3_endpoint):
    # The reference engine writes and reads back through the local S3 server: the
    # fixture the s3() tests build on works end to end (signed PUT, GET, listing).
    url = f"{s3_endpoint}/test-bucket/fixture/rows.parquet"
    ch(f"INSERT INTO FUNCTION s3('{url}', 'testkey', 'testsecret') SELECT number AS n FROM numbers(100) SETTINGS s3_truncate_on_insert = 1")
    assert ch(f"SELECT count(), sum(n) FROM s3('{s3_endpoint}/test-bucket/fixture/*.parquet', 'testkey', 'testsecret')").strip() == "100\t4950"
