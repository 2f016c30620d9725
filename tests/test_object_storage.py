"""file() (and s3() against a local SeaweedFS) end to end, compared with chdb reading the
same files. Fixtures are written by chdb itself into the server's user_files directory, so
both engines read identical bytes; granary gets paths relative to user_files, chdb absolute
paths."""
import bz2
import re
import sys
import lzma
import gzip
import os
import time
import shutil
from urllib.parse import unquote

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
    ch(f"INSERT INTO FUNCTION file('{root}/data.native') " + rows.format(start=0, n=70000))
    # chdb has no xz or bz2: Python compresses what chdb wrote.
    ch(f"INSERT INTO FUNCTION file('{root}/plain.csv', 'CSVWithNames') " + rows.format(start=0, n=1000))
    with open(os.path.join(root, "plain.csv"), "rb") as f:
        plain = f.read()
    with open(os.path.join(root, "data.csv.xz"), "wb") as f:
        f.write(lzma.compress(plain))
    with open(os.path.join(root, "data.csv.bz2"), "wb") as f:
        f.write(bz2.compress(plain))
    ch(f"INSERT INTO FUNCTION file('{root}/data.rowbinary', 'RowBinaryWithNamesAndTypes') " + rows.format(start=0, n=500))
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
        "SELECT _file, _size, toUnixTimestamp(_time), toTypeName(_size), toTypeName(_time), count() FROM file('{f}part-*.csv') GROUP BY ALL ORDER BY _file",
        "SELECT count(), sum(id) FROM file('{f}**.parquet') WHERE _size > 1000 AND _time > '2020-01-01'",
        "SELECT _file, _etag, toTypeName(_etag), count() FROM file('{f}part-*.csv') GROUP BY ALL ORDER BY _file",
        "SELECT count(), sum(id) FROM file('{f}data.csv.gz')",
        "SELECT count(), sum(id) FROM file('{f}data.csv.zst')",
        "SELECT * FROM file('{f}part-01.csv', 'CSVWithNames', 'id UInt32, name String, score Float32, day Date') ORDER BY id LIMIT 3",
        "SELECT * FROM file('{f}data.tsv', 'TSVWithNames', 'id UInt8, name String, score Float64, day String') ORDER BY id LIMIT 3",
        "SELECT * FROM file('{f}part-01.csv', 'CSV', 'a String, b String, c String, d String') LIMIT 2",
        "SELECT count(), sum(id) FROM file('{f}data.csv.gz', 'CSVWithNames', 'id UInt64, name String, score Float64, day Date', 'gzip')",
        "SELECT count(), sum(id) FROM file('{f}data.parquet', Parquet)",
        "DESCRIBE file('{f}data.native')",
        "SELECT count(), sum(id), max(name), min(day) FROM file('{f}data.native')",
        "SELECT * FROM file('{f}data.native', Native) ORDER BY id DESC LIMIT 2",
        "DESCRIBE file('{f}data.rowbinary', RowBinaryWithNamesAndTypes)",
        "SELECT count(), sum(score) FROM file('{f}data.rowbinary', 'RowBinaryWithNamesAndTypes')",
        "SELECT count(), sum(id) FROM file('{f}data.csv.gz', CSVWithNames, 'id UInt64, name String, score Float64, day Date', gzip)",
    ],
)
def test_file_matches_chdb(server, files, query):
    ours, theirs = both(server, files, query)
    if query.startswith("DESCRIBE"):
        # Only name and type: the other DESCRIBE columns are empty in both.
        ours = "\n".join("\t".join(l.split("\t")[:2]) for l in ours.splitlines())
        theirs = "\n".join("\t".join(l.split("\t")[:2]) for l in theirs.splitlines())
    assert ours == theirs


@pytest.mark.parametrize("name", ["data.csv.xz", "data.csv.bz2"])
def test_xz_and_bz2_files(server, files, name):
    # The same rows as plain.csv, which chdb reads (it has no xz or bz2 itself).
    expected = ch(f"SELECT count(), sum(id), max(name), min(day) FROM file('{files}/plain.csv')")
    assert server.query(f"SELECT count(), sum(id), max(name), min(day) FROM file('io/{name}')") == expected
    method = name.rsplit(".", 1)[1]
    structure = "'CSVWithNames', 'id UInt64, name String, score Float64, day Date'"
    assert server.query(f"SELECT count() FROM file('io/{name}', {structure}, '{method}')") == "1000\n"


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


def test_one_parquet_file_is_read_on_every_thread(server, files):
    """A single file of several row groups is split by row groups over max_threads
    readers (EXPLAIN shows the file in as many groups), each row group read once."""
    ch(
        f"INSERT INTO FUNCTION file('{files}/groups.parquet') SELECT number AS id, toString(number) AS s FROM numbers(100000) "
        "SETTINGS output_format_parquet_row_group_size = 10000, engine_file_truncate_on_insert = 1"
    )
    expected = ch(f"SELECT count(), sum(id), uniqExact(s), min(id), max(id) FROM file('{files}/groups.parquet')")
    for threads in (1, 2, 3, 4, 16):
        settings = f" SETTINGS max_threads = {threads}"
        got = server.query("SELECT count(), sum(id), uniqExact(s), min(id), max(id) FROM file('io/groups.parquet')" + settings + " FORMAT TSV")
        assert got == expected, threads
        if 2 <= threads <= 10:
            plan = server.query("EXPLAIN PIPELINE SELECT * FROM file('io/groups.parquet')" + settings)
            groups = re.search(r"file_groups=\{(\d+) groups?", plan)
            assert groups and int(groups.group(1)) == threads, plan
            # Pieces by row groups, each over the whole file, not DataFusion's byte
            # ranges (":0..407546", ":407546..815093").
            size = os.path.getsize(os.path.join(files, "groups.parquet"))
            assert set(re.findall(r"groups\.parquet:(\d+\.\.\d+)", plan)) == {f"0..{size}"}, plan
    server.query("DROP TABLE IF EXISTS io_groups")
    server.query("CREATE TABLE io_groups (id UInt64, s String) ENGINE = MergeTree ORDER BY id")
    server.query("INSERT INTO io_groups SELECT * FROM file('io/groups.parquet')")
    assert server.query("SELECT count(), sum(id), uniqExact(s), min(id), max(id) FROM io_groups FORMAT TSV") == expected
    server.query("DROP TABLE io_groups")


def test_s3_server_fixture_round_trip(s3_endpoint):
    # The reference engine writes and reads back through the local S3 server: the
    # fixture the s3() tests build on works end to end (signed PUT, GET, listing).
    url = f"{s3_endpoint}/test-bucket/fixture/rows.parquet"
    ch(f"INSERT INTO FUNCTION s3('{url}', 'testkey', 'testsecret') SELECT number AS n FROM numbers(100) SETTINGS s3_truncate_on_insert = 1")
    assert ch(f"SELECT count(), sum(n) FROM s3('{s3_endpoint}/test-bucket/fixture/*.parquet', 'testkey', 'testsecret')").strip() == "100\t4950"


S3_KEYS = "'testkey', 'testsecret'"


@pytest.fixture(scope="module")
def s3_files(s3_endpoint):
    """Objects written by chdb into the S3 server: both engines read the same bytes."""
    base = f"{s3_endpoint}/test-bucket/data"
    rows = "SELECT number AS id, toString(number * 7) AS name, number / 4 AS score, toDate('2024-01-01') + number AS day FROM numbers({start}, {n})"

    def put(key, fmt, start, n, extra=""):
        ch(f"INSERT INTO FUNCTION s3('{base}/{key}', {S3_KEYS}, '{fmt}') " + rows.format(start=start, n=n) + f" SETTINGS s3_truncate_on_insert = 1{extra}")

    for i in range(1, 4):
        put(f"csv/part-0{i}.csv", "CSVWithNames", i * 100, 50)
    put("data.tsv", "TSVWithNames", 0, 20)
    put("data.jsonl", "JSONEachRow", 0, 20)
    put("data.parquet", "Parquet", 0, 3000)
    put("nested/a.parquet", "Parquet", 5000, 10)
    put("nested/deep/b.parquet", "Parquet", 6000, 10)
    put("data.csv.gz", "CSVWithNames", 0, 1000)
    # Larger than 2 * max_download_buffer_size (1 MiB in the tests below): ranged GETs.
    put("big.csv", "CSVWithNames", 0, 200_000)
    put("big.csv.zst", "CSVWithNames", 0, 200_000)
    put("big.parquet", "Parquet", 0, 500_000, ", output_format_parquet_row_group_size = 50000")
    return base


def both_s3(base, sql_template):
    sql = sql_template.replace("{s3}", base)
    return sql, ch(sql)


@pytest.mark.parametrize(
    "query",
    [
        "DESCRIBE s3('{s3}/csv/part-01.csv', %s)" % S3_KEYS,
        "DESCRIBE s3('{s3}/data.parquet', %s)" % S3_KEYS,
        "DESCRIBE s3('{s3}/data.jsonl', %s, 'JSONEachRow')" % S3_KEYS,
        "SELECT * FROM s3('{s3}/csv/part-01.csv', %s) ORDER BY id" % S3_KEYS,
        "SELECT * FROM s3('{s3}/data.tsv', %s, 'TSVWithNames') ORDER BY id" % S3_KEYS,
        "SELECT * FROM s3('{s3}/data.jsonl', %s) ORDER BY id" % S3_KEYS,
        "SELECT count(), sum(id), min(day), max(name) FROM s3('{s3}/data.parquet', %s)" % S3_KEYS,
        "SELECT id, name FROM s3('{s3}/data.parquet', %s) WHERE id BETWEEN 1000 AND 1005 ORDER BY id" % S3_KEYS,
        "SELECT count(), sum(id) FROM s3('{s3}/csv/part-*.csv', %s)" % S3_KEYS,
        "SELECT count(), sum(id) FROM s3('{s3}/csv/part-0{1..2}.csv', %s)" % S3_KEYS,
        "SELECT count(), sum(id) FROM s3('{s3}/csv/part-0{1,3}.csv', %s)" % S3_KEYS,
        "SELECT count(), sum(id) FROM s3('{s3}/csv/part-0?.csv', %s, 'CSVWithNames')" % S3_KEYS,
        "SELECT count(), sum(id) FROM s3('{s3}/**.parquet', %s) WHERE id < 100000" % S3_KEYS,
        "SELECT count(), sum(id) FROM s3('{s3}/nested/**', %s, 'Parquet')" % S3_KEYS,
        "SELECT count(), sum(id) FROM s3('{s3}/nested/*/*.parquet', %s)" % S3_KEYS,
        "SELECT _file, _path, count() FROM s3('{s3}/csv/part-*.csv', %s) GROUP BY _file, _path ORDER BY _file" % S3_KEYS,
        "SELECT _file, _size, toUnixTimestamp(_time), toTypeName(_time), count() FROM s3('{s3}/csv/part-*.csv', %s) GROUP BY ALL ORDER BY _file" % S3_KEYS,
        "SELECT count(), sum(id) FROM s3('{s3}/data.csv.gz', %s)" % S3_KEYS,
        "SELECT count(), sum(id) FROM s3('{s3}/data.csv.gz', %s, 'CSVWithNames', 'id UInt64, name String, score Float64, day Date', 'gzip')" % S3_KEYS,
        "SELECT * FROM s3('{s3}/csv/part-01.csv', %s, 'CSVWithNames', 'id UInt32, name String, score Float32, day Date') ORDER BY id LIMIT 3" % S3_KEYS,
        "SELECT count(), sum(id), max(name) FROM s3('{s3}/big.csv', %s) SETTINGS max_download_buffer_size = 1048576, max_download_threads = 4" % S3_KEYS,
        "SELECT count(), sum(id), max(name) FROM s3('{s3}/big.csv', %s) SETTINGS max_download_buffer_size = 1048576, remote_filesystem_read_method = 'read'" % S3_KEYS,
        "SELECT count(), sum(id) FROM s3('{s3}/big.csv.zst', %s) SETTINGS max_download_buffer_size = 1048576" % S3_KEYS,
        "SELECT count(), sum(id), sum(score) FROM s3('{s3}/big.parquet', %s) WHERE id %% 7 = 3" % S3_KEYS,
        "SELECT id, name FROM s3('{s3}/big.parquet', %s) WHERE id IN (17, 499999) ORDER BY id" % S3_KEYS,
        "SELECT count() FROM gcs('{s3}/csv/part-01.csv', %s)" % S3_KEYS,
    ],
)
def test_s3_matches_chdb(server, s3_files, query):
    sql, theirs = both_s3(s3_files, query)
    ours = server.query(sql + " FORMAT TSV")
    if query.startswith("DESCRIBE"):
        ours = "\n".join("\t".join(l.split("\t")[:2]) for l in ours.splitlines())
        theirs = "\n".join("\t".join(l.split("\t")[:2]) for l in theirs.splitlines())
    assert ours == theirs


def test_s3_etag(server, s3_files):
    # `_etag` is the object's ETag as S3 lists it (quotes included), one per object, the
    # same in a HEAD of one key as in a listing; it filters files like `_size` does.
    for query in [
        "SELECT _file, _etag, toTypeName(_etag), _size, count() FROM s3('{s3}/csv/part-*.csv', %s) GROUP BY ALL ORDER BY _file" % S3_KEYS,
        "SELECT _etag, toTypeName(_etag), count() FROM s3('{s3}/csv/part-02.csv', %s) GROUP BY ALL" % S3_KEYS,
        "SELECT count(), sum(id) FROM s3('{s3}/csv/part-*.csv', %s) WHERE _etag = (SELECT any(_etag) FROM s3('{s3}/csv/part-03.csv', %s))" % (S3_KEYS, S3_KEYS),
        "SELECT count(DISTINCT _etag), countIf(_etag = '') FROM s3('{s3}/**.parquet', %s)" % S3_KEYS,
    ]:
        sql, theirs = both_s3(s3_files, query)
        assert server.query(sql + " FORMAT TSV") == theirs, sql
    etags = server.query(f"SELECT DISTINCT _etag FROM s3('{s3_files}/csv/part-*.csv', {S3_KEYS}) FORMAT TSV").split()
    assert len(etags) == 3 and all(len(e) > 2 for e in etags)


def test_s3_cluster_on_one_node_reads_like_s3(server, s3_files):
    # chdb has no clusters, so the reference is the same read through s3().
    query = "SELECT count(), sum(id) FROM {f}('{s3}/csv/*.csv', %s)" % S3_KEYS
    ours = server.query(query.format(f="s3Cluster", s3=s3_files).replace("s3Cluster(", "s3Cluster('default', ") + " FORMAT TSV")
    assert ours == ch(query.format(f="s3", s3=s3_files))


def test_s3_errors(server, s3_files):
    base = s3_files
    # A missing key, wrong keys, an anonymous request to a private bucket: S3_ERROR.
    assert "Code: 499" in error(server, f"SELECT * FROM s3('{base}/nope.csv', {S3_KEYS}, 'CSV', 'a String')")
    assert "Code: 499" in error(server, f"SELECT * FROM s3('{base}/data.tsv', 'testkey', 'wrong', 'TSV', 'a String')")
    assert "Code: 499" in error(server, f"SELECT * FROM s3('{base}/data.tsv', NOSIGN, 'TSV', 'a String')")
    # Zero matches: empty with a structure, an error when asked to throw or to infer.
    assert server.query(f"SELECT count() FROM s3('{base}/none-*.csv', {S3_KEYS}, 'CSV', 'a String')").strip() == "0"
    assert "Code: 107" in error(server, f"SELECT count() FROM s3('{base}/none-*.csv', {S3_KEYS}, 'CSV', 'a String') SETTINGS s3_throw_on_zero_files_match = 1")
    assert "Code: 636" in error(server, f"SELECT count() FROM s3('{base}/none-*.csv', {S3_KEYS})")
    assert server.query(f"SELECT count() FROM s3('{base}/nope.csv', {S3_KEYS}, 'CSV', 'a String') SETTINGS s3_ignore_file_doesnt_exist = 1").strip() == "0"
    assert "Code: 36" in error(server, "SELECT * FROM s3('ftp://x/y', 'CSV', 'a String')")
    assert "Code: 42" in error(server, f"SELECT * FROM s3('{base}/a', 'a', 'b', 'c', 'd', 'e', 'f', 'g')")
    # The server is still fine.
    assert server.query("SELECT 1").strip() == "1"


def test_insert_select_from_s3_into_mergetree(server, s3_files):
    server.query("DROP TABLE IF EXISTS s3_t")
    server.query("CREATE TABLE s3_t (id UInt64, name String, score Float64, day Date) ENGINE = MergeTree ORDER BY id")
    server.query(f"INSERT INTO s3_t SELECT * FROM s3('{s3_files}/big.parquet', {S3_KEYS}) SETTINGS max_insert_threads = 2")
    server.query(f"INSERT INTO s3_t SELECT * FROM s3('{s3_files}/csv/part-*.csv', {S3_KEYS})")
    expected = ch(
        f"SELECT count(), sum(id), sum(length(name)) FROM (SELECT toUInt64(id) AS id, name FROM s3('{s3_files}/big.parquet', {S3_KEYS}) UNION ALL SELECT toUInt64(id) AS id, name FROM s3('{s3_files}/csv/part-*.csv', {S3_KEYS}))"
    )
    assert server.query("SELECT count(), sum(id), sum(length(name)) FROM s3_t").strip() == expected.strip()
    server.query("DROP TABLE s3_t")


@pytest.fixture(scope="module")
def http_files(files):
    """A plain HTTP server (with Range support, as object stores and CDNs have) serving the
    file() fixtures, for url()."""
    import http.server
    import threading

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=files, **kw)

        def log_message(self, *a):
            pass

        def do_GET(self):
            rng = self.headers.get("Range")
            path = self.translate_path(self.path.split("?")[0])
            if not rng or not os.path.isfile(path):
                return super().do_GET()
            with open(path, "rb") as f:
                data = f.read()
            start, _, end = rng.removeprefix("bytes=").partition("-")
            start, end = int(start), (int(end) if end else len(data) - 1)
            body = data[start : end + 1]
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{start + len(body) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM url('{u}/part-01.csv') ORDER BY id",
        "SELECT * FROM url('{u}/data.tsv', 'TSVWithNames') ORDER BY id",
        "SELECT count(), sum(id) FROM url('{u}/part-0{1..3}.csv', 'CSVWithNames')",
        "SELECT count(), sum(id), max(name) FROM url('{u}/data.parquet') WHERE id > 100",
        "SELECT count(), sum(id) FROM url('{u}/data.csv.gz')",
        "SELECT * FROM url('{u}/part-01.csv', 'CSVWithNames', 'id UInt32, name String, score Float32, day Date') ORDER BY id LIMIT 3",
        "DESCRIBE url('{u}/data.jsonl')",
    ],
)
def test_url_matches_chdb(server, http_files, query):
    sql = query.replace("{u}", http_files)
    ours = server.query(sql + " FORMAT TSV")
    theirs = ch(sql)
    if query.startswith("DESCRIBE"):
        ours = "\n".join("\t".join(l.split("\t")[:2]) for l in ours.splitlines())
        theirs = "\n".join("\t".join(l.split("\t")[:2]) for l in theirs.splitlines())
    assert ours == theirs


def test_url_errors(server, http_files):
    assert "Code: 86" in error(server, f"SELECT * FROM url('{http_files}/nope.csv', 'CSV', 'a String')")
    assert "Code: 86" in error(server, "SELECT * FROM url('http://127.0.0.1:1/x.csv', 'CSV', 'a String') SETTINGS http_max_tries = 1")


@pytest.fixture(scope="module")
def http_sink():
    """An HTTP server that keeps the bodies POSTed to it (chunked or not), by path; a
    path starting with /fail answers 500."""
    import http.server
    import threading

    received = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):
            body = b""
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                while True:
                    size = int(self.rfile.readline().strip().split(b";")[0], 16)
                    if size == 0:
                        self.rfile.readline()
                        break
                    body += self.rfile.read(size)
                    self.rfile.readline()
            else:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            status, reply = (500, b"disk full") if self.path.startswith("/fail") else (200, b"")
            if status == 200:
                received[self.path] = received.get(self.path, b"") + body
            self.send_response(status)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", received
    httpd.shutdown()


def test_insert_into_function_url(server, http_sink):
    base, received = http_sink
    select = "SELECT number AS a, concat('s', toString(number)) AS s FROM numbers(5000)"
    # The body is what ClickHouse POSTs for the same INSERT.
    server.query(f"INSERT INTO FUNCTION url('{base}/ours.csv', 'CSV', 'a UInt32, s String') {select}")
    ch(f"INSERT INTO FUNCTION url('{base}/theirs.csv', 'CSV', 'a UInt32, s String') {select}")
    assert received["/ours.csv"] == received["/theirs.csv"] and received["/ours.csv"].count(b"\n") == 5000
    # Format and compression from the URL's name; one POST per partition.
    server.query(f"INSERT INTO FUNCTION url('{base}/rows.jsonl.gz') SELECT number AS n FROM numbers(3)")
    assert gzip.decompress(received["/rows.jsonl.gz"]) == b'{"n":0}\n{"n":1}\n{"n":2}\n'
    server.query(f"INSERT INTO FUNCTION url('{base}/p_{{_partition_id}}.tsv', 'TSV', 'a UInt32') PARTITION BY a % 2 SELECT number FROM numbers(6)")
    assert (received["/p_0.tsv"], received["/p_1.tsv"]) == (b"0\n2\n4\n", b"1\n3\n5\n")
    # A server error fails the INSERT with ClickHouse's code and the server's answer.
    text = error(server, f"INSERT INTO FUNCTION url('{base}/fail.csv', 'CSV', 'a UInt32') SELECT 1")
    assert "Code: 86" in text and "500" in text and "disk full" in text, text
    # A failing SELECT leaves no complete POST behind.
    text = error(server, f"INSERT INTO FUNCTION url('{base}/broken.csv', 'CSV', 'a UInt32') SELECT throwIf(number = 70000) FROM numbers(100000)")
    assert "Code: 395" in text and "/broken.csv" not in received, text
    assert "Code: 36" in error(server, "INSERT INTO FUNCTION url('ftp://127.0.0.1/x.csv', 'CSV', 'a UInt32') SELECT 1")


def test_insert_into_function_file(server, files):
    out = os.path.join(files, "out")
    shutil.rmtree(out, ignore_errors=True)
    q = server.query
    # Format, compression and columns from the file name and the SELECT; chdb reads it back.
    q("INSERT INTO FUNCTION file('io/out/a.csv.gz', 'CSVWithNames') SELECT number AS id, toString(number) AS s FROM numbers(1000)")
    assert ch(f"SELECT count(), sum(id), max(s) FROM file('{out}/a.csv.gz')") == "1000\t499500\t999\n"
    # Appending to a text file: no second header (as ClickHouse).
    q("INSERT INTO FUNCTION file('io/out/a.csv.gz', 'CSVWithNames') SELECT number + 1000 AS id, 'x' AS s FROM numbers(5)")
    assert ch(f"SELECT count(), sum(id) FROM file('{out}/a.csv.gz')") == "1005\t504510\n"
    # Parquet cannot be appended to: an error, or truncate, or numbered new files.
    q("INSERT INTO FUNCTION file('io/out/p.parquet') SELECT number AS n, toDate('2024-01-01') + number AS d FROM numbers(10)")
    text = error(server, "INSERT INTO FUNCTION file('io/out/p.parquet') SELECT 1 AS n, today() AS d")
    assert "Code: 641" in text and "engine_file_truncate_on_insert" in text
    q("INSERT INTO FUNCTION file('io/out/p.parquet') SELECT number AS n, toDate('2024-02-01') AS d FROM numbers(3) SETTINGS engine_file_allow_create_multiple_files = 1")
    assert sorted(os.listdir(out)) == ["a.csv.gz", "p.1.parquet", "p.parquet"]
    assert ch(f"SELECT count(), sum(n), min(d) FROM file('{out}/p*.parquet')") == "13\t48\t2024-01-01\n"
    q("INSERT INTO FUNCTION file('io/out/p.parquet') SELECT 7 AS n, toDate('2024-03-01') AS d SETTINGS engine_file_truncate_on_insert = 1")
    assert ch(f"SELECT * FROM file('{out}/p.parquet')") == "7\t2024-03-01\n"
    # A structure argument: the SELECT is cast to it by position; a column list; VALUES.
    q("INSERT INTO FUNCTION file('io/out/s.tsv', 'TSV', 'x UInt8, y String, z Nullable(Int32)') (y, x) SELECT 'a', 1")
    q("INSERT INTO FUNCTION file('io/out/s.tsv', 'TSV', 'x UInt8, y String, z Nullable(Int32)') VALUES (2, 'b', 3)")
    with open(os.path.join(out, "s.tsv")) as f:
        assert f.read() == "1\ta\t\\N\n2\tb\t3\n"
    # PARTITION BY: one file per value of the expression.
    q("INSERT INTO FUNCTION file('io/out/part_{_partition_id}.jsonl') PARTITION BY k % 3 SELECT number AS k FROM numbers(10)")
    assert sorted(n for n in os.listdir(out) if n.startswith("part_")) == ["part_0.jsonl", "part_1.jsonl", "part_2.jsonl"]
    assert ch(f"SELECT groupArray(k) FROM (SELECT k FROM file('{out}/part_1.jsonl') ORDER BY k)") == "[1,4,7]\n"
    # Round trip through our own reader.
    assert q("SELECT count(), sum(k) FROM file('io/out/part_*.jsonl')") == "10\t45\n"
    # .xz and .bz2, written by us (chdb cannot read them: Python decompresses).
    for ext, decompress in (("xz", lzma.decompress), ("bz2", bz2.decompress)):
        q(f"INSERT INTO FUNCTION file('io/out/c.csv.{ext}', 'CSVWithNames') SELECT number AS id, toString(number) AS s FROM numbers(3000)")
        with open(os.path.join(out, f"c.csv.{ext}"), "rb") as f:
            text = decompress(f.read()).decode()
        assert text.startswith('"id","s"\n0,"0"\n') and text.count("\n") == 3001


def test_insert_into_function_file_errors(server, files):
    out = os.path.join(files, "out_errors")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    assert "DATABASE_ACCESS_DENIED" in error(server, "INSERT INTO FUNCTION file('../x.csv') SELECT 1")
    assert "DATABASE_ACCESS_DENIED" in error(server, "INSERT INTO FUNCTION file('/tmp/x.csv') SELECT 1")
    assert "DATABASE_ACCESS_DENIED" in error(server, "INSERT INTO FUNCTION file('io/out_errors/*.csv') SELECT 1")
    os.symlink("/tmp", os.path.join(out, "escape"))
    assert "DATABASE_ACCESS_DENIED" in error(server, "INSERT INTO FUNCTION file('io/out_errors/escape/x.csv') SELECT 1")
    assert "Code: 73" in error(server, "INSERT INTO FUNCTION file('io/out_errors/x.csv', 'NoSuchFormat') SELECT 1")
    assert "Code: 36" in error(server, "INSERT INTO FUNCTION file('io/out_errors/x.unknown') SELECT 1")
    assert "Code: 636" in error(server, "INSERT INTO FUNCTION file('io/out_errors/x.csv') FORMAT CSV 1")
    # A SELECT that fails half way leaves nothing behind: no new file, an appended one
    # is cut back to its old content.
    text = error(server, "INSERT INTO FUNCTION file('io/out_errors/new.csv') SELECT throwIf(number = 70000, 'boom') AS x FROM numbers(100000) SETTINGS max_block_size = 1000")
    assert "boom" in text
    assert [n for n in os.listdir(out) if n != "escape"] == []
    server.query("INSERT INTO FUNCTION file('io/out_errors/old.csv') SELECT 1 AS x")
    error(server, "INSERT INTO FUNCTION file('io/out_errors/old.csv') SELECT throwIf(number = 70000, 'boom') AS x FROM numbers(100000) SETTINGS max_block_size = 1000")
    with open(os.path.join(out, "old.csv")) as f:
        assert f.read() == "1\n"


def test_insert_into_function_s3(server, s3_endpoint):
    base = f"{s3_endpoint}/test-bucket/written"
    q = server.query
    q(f"INSERT INTO FUNCTION s3('{base}/a.parquet', {S3_KEYS}) SELECT number AS id, toString(number) AS s FROM numbers(5000)")
    assert ch(f"SELECT count(), sum(id), max(s) FROM s3('{base}/a.parquet', {S3_KEYS})") == "5000\t12497500\t999\n"
    text = error(server, f"INSERT INTO FUNCTION s3('{base}/a.parquet', {S3_KEYS}) SELECT 1 AS id, 'x' AS s")
    assert "Code: 36" in text and "already exists" in text and "s3_truncate_on_insert" in text
    q(f"INSERT INTO FUNCTION s3('{base}/a.parquet', {S3_KEYS}) SELECT 1 AS id, 'x' AS s SETTINGS s3_create_new_file_on_insert = 1")
    q(f"INSERT INTO FUNCTION s3('{base}/a.parquet', {S3_KEYS}) SELECT 2 AS id, 'y' AS s SETTINGS s3_create_new_file_on_insert = 1")
    assert ch(f"SELECT _file, count() FROM s3('{base}/a*.parquet', {S3_KEYS}) GROUP BY _file ORDER BY _file") == "a.1.parquet\t1\na.2.parquet\t1\na.parquet\t5000\n"
    q(f"INSERT INTO FUNCTION s3('{base}/a.parquet', {S3_KEYS}) SELECT 3 AS id, 'z' AS s SETTINGS s3_truncate_on_insert = 1")
    assert ch(f"SELECT * FROM s3('{base}/a.parquet', {S3_KEYS})") == "3\tz\n"
    # Larger than s3_max_single_part_upload_size: a multipart upload of 5 MiB parts.
    q(
        f"INSERT INTO FUNCTION s3('{base}/big.csv.zst', {S3_KEYS}, 'CSVWithNames') SELECT number AS id, repeat('x', 50) AS pad FROM numbers(400000) "
        "SETTINGS s3_max_single_part_upload_size = 1048576, s3_min_upload_part_size = 5242880, output_format_compression_level = 1"
    )
    assert ch(f"SELECT count(), sum(id), sum(length(pad)) FROM s3('{base}/big.csv.zst', {S3_KEYS})") == "400000\t79999800000\t20000000\n"
    q(
        f"INSERT INTO FUNCTION s3('{base}/big.tsv', {S3_KEYS}, 'TSV', 'id UInt64, pad String') SELECT number, repeat('y', 30) FROM numbers(400000) "
        "SETTINGS s3_max_single_part_upload_size = 1048576"
    )
    assert q(f"SELECT count(), sum(id) FROM s3('{base}/big.tsv', {S3_KEYS}, 'TSV', 'id UInt64, pad String')") == "400000\t79999800000\n"
    # PARTITION BY into keys, read back by chdb; the keys of a failed INSERT do not appear.
    q(f"INSERT INTO FUNCTION s3('{base}/p/{{_partition_id}}.csv', {S3_KEYS}, 'CSV', 'k UInt64, v String') PARTITION BY v SELECT number, toString(number % 2) FROM numbers(9)")
    assert ch(f"SELECT _file, count(), sum(k) FROM s3('{base}/p/*.csv', {S3_KEYS}, 'CSV', 'k UInt64, v String') GROUP BY _file ORDER BY _file") == "0.csv\t5\t20\n1.csv\t4\t16\n"
    error(server, f"INSERT INTO FUNCTION s3('{base}/failed.csv', {S3_KEYS}) SELECT throwIf(number = 70000, 'boom') AS x FROM numbers(100000) SETTINGS max_block_size = 1000")
    assert "Code: 499" in error(server, f"SELECT * FROM s3('{base}/failed.csv', {S3_KEYS}, 'CSV', 'x UInt8')")
    assert "Code: 291" in error(server, f"INSERT INTO FUNCTION s3('{base}/*.csv', {S3_KEYS}) SELECT 1")
    assert "Code: 499" in error(server, f"INSERT INTO FUNCTION s3('{base}/denied.csv', 'testkey', 'wrong') SELECT 1")


def test_s3_engine_partition_by_and_virtual_columns(server, s3_endpoint):
    """ENGINE = S3 with PARTITION BY writes one object per partition, as INSERT INTO
    FUNCTION s3() PARTITION BY does; the table's virtual columns say where rows are."""
    base = f"{s3_endpoint}/test-bucket/engine_partitions"
    q = server.query
    q("DROP TABLE IF EXISTS s3_parts")
    q(f"CREATE TABLE s3_parts (k UInt64, v String) ENGINE = S3('{base}/data_{{_partition_id}}.csv', {S3_KEYS}, 'CSV') PARTITION BY k % 3")
    try:
        q("DROP TABLE IF EXISTS s3_parts_sums")
        q("DROP TABLE IF EXISTS s3_parts_mv")
        q("CREATE TABLE s3_parts_sums (k UInt64) ENGINE = Memory")
        # A materialized view reading the table sees the rows of a partitioned write too.
        q("CREATE MATERIALIZED VIEW s3_parts_mv TO s3_parts_sums AS SELECT k * 100 AS k FROM s3_parts")
        try:
            q("INSERT INTO s3_parts SELECT number, toString(number) FROM numbers(10)")
            assert q("SELECT count(), sum(k) FROM s3_parts_sums") == "10\t4500\n"
        finally:
            q("DROP TABLE s3_parts_mv")
            q("DROP TABLE s3_parts_sums")
        # chdb reads back what Granary wrote: one object per partition.
        assert ch(f"SELECT _file, count(), sum(k) FROM s3('{base}/*.csv', {S3_KEYS}, 'CSV', 'k UInt64, v String') GROUP BY _file ORDER BY _file") == (
            "data_0.csv\t4\t18\ndata_1.csv\t3\t12\ndata_2.csv\t3\t15\n"
        )
        q(f"CREATE TABLE s3_read (k UInt64, v String) ENGINE = S3('{base}/*.csv', {S3_KEYS}, 'CSV')")
        try:
            assert q("SELECT _file, count(), sum(k) FROM s3_read GROUP BY _file ORDER BY _file") == "data_0.csv\t4\t18\ndata_1.csv\t3\t12\ndata_2.csv\t3\t15\n"
            assert q("SELECT _path, k FROM s3_read WHERE _file = 'data_1.csv' ORDER BY k") == "".join(f"test-bucket/engine_partitions/data_1.csv\t{k}\n" for k in (1, 4, 7))
            assert q("SELECT count() FROM s3_read WHERE _size > 0 AND _time IS NOT NULL") == "10\n"
            # Not part of SELECT *.
            assert q("SELECT * FROM s3_read ORDER BY k LIMIT 1") == "0\t0\n"
        finally:
            q("DROP TABLE s3_read")
    finally:
        q("DROP TABLE s3_parts")


def test_schema_inference_cache(server, files):
    """Inferred structures are cached per file, format and settings, reused while the
    file is unchanged, dropped when it changes, listed in system.schema_inference_cache."""
    def event(name):
        out = server.query(f"SELECT value FROM system.events WHERE event = '{name}'")
        return int(out or 0)

    path = os.path.join(files, "cached.csv")
    with open(path, "w") as f:
        f.write("a,b\n1,x\n2,y\n")
    server.query("SYSTEM DROP SCHEMA CACHE FOR File")
    assert server.query("SELECT sum(a) FROM file('io/cached.csv')") == "3\n"
    rows = server.query("SELECT storage, format, schema FROM system.schema_inference_cache WHERE source LIKE '%/io/cached.csv'")
    assert rows == "File\tCSV\ta Nullable(Int64), b Nullable(String)\n", rows
    hits = event("SchemaInferenceCacheHits")
    assert server.query("SELECT count() FROM file('io/cached.csv')") == "2\n"
    assert event("SchemaInferenceCacheHits") == hits + 1
    # Another setting that shapes inference is another entry.
    server.query("SELECT count() FROM file('io/cached.csv') SETTINGS schema_inference_make_columns_nullable = 0")
    assert server.query("SELECT count() FROM system.schema_inference_cache WHERE source LIKE '%/io/cached.csv'") == "2\n"
    # A changed file is inferred again.
    time.sleep(0.01)
    with open(path, "w") as f:
        f.write("a,b,c\n1,x,2.5\n")
    invalidations = event("SchemaInferenceCacheInvalidations")
    assert server.query("DESCRIBE file('io/cached.csv')").split("\n")[2].split("\t")[:2] == ["c", "Nullable(Float64)"]
    assert event("SchemaInferenceCacheInvalidations") == invalidations + 1
    # Off for file(): nothing new is kept.
    server.query("SYSTEM DROP SCHEMA CACHE")
    server.query("SELECT count() FROM file('io/cached.csv') SETTINGS schema_inference_use_cache_for_file = 0")
    assert server.query("SELECT count() FROM system.schema_inference_cache") == "0\n"
    assert server.request("SYSTEM DROP SCHEMA CACHE FOR Nowhere").status != 200


def test_schema_inference_cache_for_s3(server, s3_files):
    server.query("SYSTEM DROP SCHEMA CACHE FOR S3")
    sql = f"SELECT count() FROM s3('{s3_files}/data.jsonl', {S3_KEYS})"
    assert server.query(sql) == "20\n"
    assert server.query(sql) == "20\n"
    rows = server.query("SELECT storage, format FROM system.schema_inference_cache WHERE source LIKE '%data.jsonl'")
    assert rows == "S3\tJSONEachRow\n", rows
    server.query("SYSTEM DROP SCHEMA CACHE FOR s3")
    assert server.query("SELECT count() FROM system.schema_inference_cache WHERE storage = 'S3'") == "0\n"


# --- hive partitioning ----------------------------------------------------------------

HIVE_ROWS = "SELECT number AS id, toString(number * 7) AS name, number / 4 AS score FROM numbers({start}, 5)"
HIVE_PARTITIONS = [(year, city) for year in (2023, 2024, 2025) for city in ("Berlin", "Paris")]


@pytest.fixture(scope="module")
def hive_files(files):
    """`year=Y/city=C/` directories written by chdb under user_files/io/hive (CSV and
    Parquet), and a tree whose last partition is not CSV at all (pruning must skip it)."""
    root = os.path.join(files, "hive")
    shutil.rmtree(root, ignore_errors=True)
    for year, city in HIVE_PARTITIONS:
        start = year * 10 + len(city)
        ch(f"INSERT INTO FUNCTION file('{root}/csv/year={year}/city={city}/data.csv', 'CSVWithNames') " + HIVE_ROWS.format(start=start))
        ch(f"INSERT INTO FUNCTION file('{root}/pq/year={year}/city={city}/data.parquet') " + HIVE_ROWS.format(start=start))
    for year in (2023, 2024):
        ch(f"INSERT INTO FUNCTION file('{root}/prune/year={year}/data.csv', 'CSVWithNames') " + HIVE_ROWS.format(start=year))
    os.makedirs(f"{root}/prune/year=2099")
    with open(f"{root}/prune/year=2099/data.csv", "w") as f:
        f.write("id,name,score\nnot a number,x,y\n")
    # Typed keys: a date, a bool, a float; a column of the file named like a key.
    ch(f"INSERT INTO FUNCTION file('{root}/typed/day=2024-01-05/flag=true/ratio=1.5/id=7/data.csv', 'CSVWithNames') " + HIVE_ROWS.format(start=0))
    return root


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM file('{h}/csv/year=*/city=*/data.csv') ORDER BY id, city",
        "DESCRIBE file('{h}/csv/year=*/city=*/data.csv')",
        "SELECT city, year, count(), sum(id) FROM file('{h}/csv/year=*/city=*/data.csv') WHERE year >= 2024 GROUP BY city, year ORDER BY city, year",
        "SELECT * FROM file('{h}/pq/year=*/city=*/data.parquet') ORDER BY id, city",
        "DESCRIBE file('{h}/pq/year=*/city=*/data.parquet')",
        "SELECT city, year, count(), sum(id) FROM file('{h}/pq/**/*.parquet') WHERE city = 'Paris' AND year IN (2023, 2025) GROUP BY city, year ORDER BY city, year",
        "SELECT year, name, city FROM file('{h}/pq/**/*.parquet') WHERE id = 20236 ORDER BY city",
        "SELECT id, year FROM file('{h}/csv/year=2024/city=Berlin/data.csv') ORDER BY id",
        "SELECT * FROM file('{h}/csv/year=2024/city=Berlin/data.csv', 'CSVWithNames', 'id UInt64, year String') ORDER BY id",
        "SELECT count() FROM file('{h}/csv/year=*/city=*/data.csv') WHERE _path LIKE '%2024%'",
        "SELECT _file, year FROM file('{h}/pq/year=*/city=*/data.parquet') WHERE id = 20236 ORDER BY _path",
        "SELECT toTypeName(year), toTypeName(city) FROM file('{h}/csv/year=*/city=*/data.csv') LIMIT 1",
        "SELECT * FROM file('{h}/csv/year=*/city=*/data.csv') ORDER BY id, name SETTINGS use_hive_partitioning = 0",
        "SELECT * FROM file('{h}/typed/**/*.csv') ORDER BY name",
        "DESCRIBE file('{h}/typed/**/*.csv')",
        "SELECT day + 1, NOT flag, ratio * 2 FROM file('{h}/typed/**/*.csv') LIMIT 1",
        "SELECT year, count() FROM file('{h}/prune/**/*.csv') WHERE year < 2099 GROUP BY year ORDER BY year",
        "SELECT count() FROM file('{h}/prune/**/*.csv') WHERE _path NOT LIKE '%2099%'",
    ],
)
def test_hive_partitioning_matches_chdb(server, hive_files, query):
    ours = server.query(query.replace("{h}", "io/hive") + " FORMAT TSVWithNamesAndTypes")
    theirs = ch(query.replace("{h}", hive_files), "TSVWithNamesAndTypes")
    if query.startswith("DESCRIBE"):
        ours = "\n".join("\t".join(l.split("\t")[:2]) for l in ours.splitlines())
        theirs = "\n".join("\t".join(l.split("\t")[:2]) for l in theirs.splitlines())
    assert ours == theirs


def test_hive_partitions_prune_files_before_reading(server, hive_files):
    # The year=2099 file is not CSV: reading it fails, so a query that succeeds never opened it.
    assert "Code: " in error(server, "SELECT count() FROM file('io/hive/prune/**/*.csv')")
    for where in ("year < 2099", "year IN (2023, 2024)", "year = 2024 OR year = 2023", "_path NOT LIKE '%2099%'", "_file = 'data.csv' AND year != 2099"):
        assert server.query(f"SELECT count(), sum(id) FROM file('io/hive/prune/**/*.csv') WHERE {where}") == "10\t20255\n", where
    assert server.query("SELECT count() FROM file('io/hive/prune/**/*.csv') WHERE year > 3000") == "0\n"
    # A filter that needs the rows cannot prune: the bad file is read and fails.
    assert "Code: " in error(server, "SELECT count() FROM file('io/hive/prune/**/*.csv') WHERE id > 0")


def test_hive_partitioning_errors(server, files):
    root = os.path.join(files, "hive_bad")
    shutil.rmtree(root, ignore_errors=True)
    ch(f"INSERT INTO FUNCTION file('{root}/k=1/k=2/a.csv', 'CSVWithNames') SELECT 1 AS x SETTINGS use_hive_partitioning = 0")
    ch(f"INSERT INTO FUNCTION file('{root}/only/id=7/a.csv', 'CSVWithNames') SELECT 1 AS id SETTINGS use_hive_partitioning = 0")
    for sql in ("SELECT * FROM file('{r}/k=1/k=2/a.csv')", "SELECT * FROM file('{r}/only/id=7/a.csv')"):
        ours = error(server, sql.replace("{r}", "io/hive_bad"))
        with pytest.raises(Exception) as theirs:
            ch(sql.replace("{r}", root))
        assert "Code: 117" in ours and "Code: 117" in str(theirs.value), ours
    # Without hive partitioning both read as plain files.
    assert server.query("SELECT * FROM file('io/hive_bad/only/id=7/a.csv') SETTINGS use_hive_partitioning = 0") == "1\n"
    assert "Code: 36" in error(server, "SELECT * FROM file('io/hive_bad/only/id=7/a.csv', partition_strategy = 'hive')")


@pytest.fixture(scope="module")
def s3_hive(s3_endpoint):
    """The hive tree of `hive_files` in the bucket, written by chdb."""
    base = f"{s3_endpoint}/test-bucket/hive"
    for year, city in HIVE_PARTITIONS:
        rows = HIVE_ROWS.format(start=year * 10 + len(city))
        ch(f"INSERT INTO FUNCTION s3('{base}/pq/year={year}/city={city}/data.parquet', {S3_KEYS}) {rows} SETTINGS s3_truncate_on_insert = 1")
        ch(f"INSERT INTO FUNCTION s3('{base}/csv/year={year}/city={city}/data.csv', {S3_KEYS}, 'CSVWithNames') {rows} SETTINGS s3_truncate_on_insert = 1")
    return base


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM s3('{s}/pq/year=*/city=*/data.parquet', %s) ORDER BY id, city" % S3_KEYS,
        "DESCRIBE s3('{s}/csv/**.csv', %s)" % S3_KEYS,
        "SELECT city, year, count(), sum(id) FROM s3('{s}/csv/**.csv', %s) WHERE year = 2024 OR city = 'Berlin' GROUP BY city, year ORDER BY city, year" % S3_KEYS,
        "SELECT year, city, name FROM s3('{s}/pq/year=2025/city=Paris/data.parquet', %s) ORDER BY name" % S3_KEYS,
        "SELECT * FROM s3('{s}/csv/year=*/city=*/data.csv', %s, 'CSVWithNames', 'id UInt64, city String, year UInt16') WHERE city = 'Paris' ORDER BY id" % S3_KEYS,
    ],
)
def test_s3_hive_partitioning_matches_chdb(server, s3_hive, query):
    sql = query.replace("{s}", s3_hive)
    ours = server.query(sql + " FORMAT TSVWithNamesAndTypes")
    theirs = ch(sql, "TSVWithNamesAndTypes")
    if query.startswith("DESCRIBE"):
        ours = "\n".join("\t".join(l.split("\t")[:2]) for l in ours.splitlines())
        theirs = "\n".join("\t".join(l.split("\t")[:2]) for l in theirs.splitlines())
    assert ours == theirs


def test_s3_hive_pruning_reads_only_matching_objects(server, s3_hive, s3_endpoint):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "tools"))
    from faulty_proxy import FaultyProxy

    proxy = FaultyProxy(s3_endpoint)
    proxy.start()
    try:
        via_proxy = s3_hive.replace(s3_endpoint, proxy.url)
        structure = "'CSVWithNames', 'id UInt64, name String, score Float64, city String, year UInt16'"
        sql = f"SELECT count(), sum(id) FROM s3('{via_proxy}/csv/year=*/city=*/data.csv', {S3_KEYS}, {structure}) WHERE year = 2024 AND city = 'Paris'"
        assert server.query(sql) == ch(sql.replace(proxy.url, s3_endpoint))
        assert {unquote(e.target) for e in proxy.exchanges("GET") if "data.csv" in e.target} == {"/test-bucket/hive/csv/year=2024/city=Paris/data.csv"}
        # Parquet: only the first object's footer (inference) and the matching object.
        proxy.reset_state()
        sql = f"SELECT count(), sum(id) FROM s3('{via_proxy}/pq/**.parquet', {S3_KEYS}) WHERE year = 2025 AND city = 'Paris'"
        assert server.query(sql) == ch(sql.replace(proxy.url, s3_endpoint))
        read = {unquote(e.target).rsplit("/pq/", 1)[1] for e in proxy.exchanges("GET") if e.target.endswith(".parquet")}
        assert read <= {"year=2023/city=Berlin/data.parquet", "year=2025/city=Paris/data.parquet"} and "year=2025/city=Paris/data.parquet" in read, read
    finally:
        proxy.stop()


def test_url_hive_partitioning(server, hive_files, http_files):
    sql = "SELECT year, city, count(), sum(id) FROM url('{u}/hive/csv/year={2023,2025}/city={Berlin,Paris}/data.csv') WHERE city = 'Paris' GROUP BY year, city ORDER BY year"
    assert server.query(sql.replace("{u}", http_files)) == ch(sql.replace("{u}", http_files))
    # Pruned URLs are never read: the year=2099 one is not CSV.
    prune = "SELECT count() FROM url('{u}/hive/prune/year={2023,2024,2099}/data.csv', 'CSVWithNames', 'id UInt64, year UInt16')"
    assert server.query(prune.replace("{u}", http_files) + " WHERE year < 2099") == "10\n"
    assert "Code: " in error(server, prune.replace("{u}", http_files))


def test_insert_into_function_s3_hive(server, s3_endpoint):
    base = f"{s3_endpoint}/test-bucket/hive_out"
    select = "SELECT number AS id, toUInt16(2020 + number % 2) AS year, if(number < 4, 'DE', 'FR') AS country, toDate('2024-01-01') + number % 3 AS day FROM numbers(8)"
    # A path without {_partition_id}: hive partitioning (file_like_engine_default_partition_strategy).
    server.query(f"INSERT INTO FUNCTION s3('{base}/a/', {S3_KEYS}, 'Parquet') PARTITION BY (year, country) {select}")
    keys = ch(f"SELECT _path FROM s3('{base}/a/**', {S3_KEYS}, 'One') ORDER BY _path SETTINGS use_hive_partitioning = 0").split()
    assert len(keys) == 4 and all(re.fullmatch(r"test-bucket/hive_out/a/year=202[01]/country=(DE|FR)/\d{19}\.parquet", k) for k in keys), keys
    # The partition columns are in the path only; chdb reads them back from it.
    assert ch(f"SELECT * FROM s3('{base}/a/**.parquet', {S3_KEYS}) ORDER BY id") == ch(f"SELECT id, day, country, year FROM ({select}) ORDER BY id")
    assert ch(f"DESCRIBE s3('{base}/a/**.parquet', {S3_KEYS}) SETTINGS use_hive_partitioning = 0").split("\t")[0] == "id"
    # partition_strategy = 'hive' explicitly, a date key, columns kept in the files.
    server.query(f"INSERT INTO FUNCTION s3('{base}/b', {S3_KEYS}, 'CSVWithNames', partition_strategy = 'hive', partition_columns_in_data_file = 1) PARTITION BY day {select}")
    assert ch(f"SELECT _file LIKE '%.csvwithnames', count(), sum(id) FROM s3('{base}/b/day=2024-01-02/*', {S3_KEYS}, 'CSVWithNames') GROUP BY 1") == "1\t3\t12\n"
    assert server.query(f"SELECT day, count() FROM s3('{base}/b/**', {S3_KEYS}, 'CSVWithNames') GROUP BY day ORDER BY day") == "2024-01-01\t3\n2024-01-02\t3\n2024-01-03\t2\n"
    # With 'wildcard' as the default, PARTITION BY without {_partition_id} is ignored (one object).
    server.query(f"INSERT INTO FUNCTION s3('{base}/c.csv', {S3_KEYS}) PARTITION BY year {select} SETTINGS file_like_engine_default_partition_strategy = 'wildcard'")
    assert ch(f"SELECT count() FROM s3('{base}/c.csv', {S3_KEYS})") == "8\n"
    # ClickHouse's errors.
    for partition_by, code in (("toString(year)", 36), ("(id, year, country, day)", 117), ("score", 36)):
        sql = f"INSERT INTO FUNCTION s3('{base}/d/', {S3_KEYS}, 'CSV', partition_strategy = 'hive') PARTITION BY {partition_by} SELECT *, 1.5 AS score FROM ({select})"
        if partition_by == "(id, year, country, day)":
            sql = sql.replace("SELECT *, 1.5 AS score FROM", "SELECT * FROM")
        assert f"Code: {code}" in error(server, sql), sql
        with pytest.raises(Exception, match=f"Code: {code}"):
            ch(sql)
    for args in ("partition_strategy = 'hive'", "partition_strategy = 'bogus'"):
        assert "Code: 36" in error(server, f"INSERT INTO FUNCTION s3('{base}/e_{{_partition_id}}.csv', {S3_KEYS}, 'CSV', {args}) PARTITION BY year {select}")
    assert "Code: 36" in error(server, f"INSERT INTO FUNCTION s3('{base}/e.csv', {S3_KEYS}, 'CSV', partition_strategy = 'wildcard') PARTITION BY year {select}")
    assert "Code: 36" in error(server, f"INSERT INTO FUNCTION s3('{base}/e/', {S3_KEYS}, 'CSV', partition_strategy = 'hive') {select}")
    assert "Code: 36" in error(server, f"SELECT * FROM s3('{base}/a/**', {S3_KEYS}, partition_strategy = 'hive')")


def test_partition_by_without_placeholder_is_ignored_by_file(server, files):
    # As ClickHouse: file() (and url()) without {_partition_id} write one file.
    server.query("INSERT INTO FUNCTION file('io/out_nopart/x.csv', 'CSV') PARTITION BY k SELECT number AS k FROM numbers(4)")
    with open(os.path.join(files, "out_nopart", "x.csv")) as f:
        assert f.read() == "0\n1\n2\n3\n"


def test_url_engine_reads_and_posts(server, http_files, http_sink):
    q = server.query
    q("DROP TABLE IF EXISTS default.url_read")
    q(f"CREATE TABLE default.url_read (id UInt32, name String) ENGINE = URL('{http_files}/part-0{{1..3}}.csv', 'CSVWithNames')")
    ours = q("SELECT count(), sum(id), max(name) FROM default.url_read")
    assert ours == ch(f"SELECT count(), sum(id), max(name) FROM url('{http_files}/part-0{{1..3}}.csv', 'CSVWithNames', 'id UInt32, name String')")
    assert q("SELECT engine FROM system.tables WHERE database = 'default' AND name = 'url_read'") == "URL\n"
    base, received = http_sink
    q("DROP TABLE IF EXISTS default.url_write")
    q(f"CREATE TABLE default.url_write (a UInt32, s String) ENGINE = URL('{base}/engine.csv', CSV)")
    q("INSERT INTO default.url_write SELECT number, toString(number) FROM numbers(3)")
    assert received["/engine.csv"] == b'0,"0"\n1,"1"\n2,"2"\n'
    assert "Code: 48" in error(server, "TRUNCATE TABLE default.url_write")
    q("DROP TABLE default.url_read")
    q("DROP TABLE default.url_write")


def test_s3_engine_reads_and_writes(server, s3_endpoint):
    q = server.query
    base = f"{s3_endpoint}/test-bucket/engine"
    q("DROP TABLE IF EXISTS default.s3_rows")
    q(f"CREATE TABLE default.s3_rows (id UInt64, s String) ENGINE = S3('{base}/rows.csv', {S3_KEYS}, 'CSV')")
    q("INSERT INTO default.s3_rows SELECT number, toString(number) FROM numbers(10) SETTINGS s3_truncate_on_insert = 1")
    assert q("SELECT count(), sum(id) FROM default.s3_rows") == "10\t45\n"
    assert ch(f"SELECT count(), sum(id) FROM s3('{base}/rows.csv', {S3_KEYS}, 'CSV', 'id UInt64, s String')") == "10\t45\n"
    # An existing object: an error, unless truncated or written as a new numbered object.
    text = error(server, "INSERT INTO default.s3_rows VALUES (100, 'x')")
    assert "Code: 36" in text and "s3_truncate_on_insert" in text, text
    q("INSERT INTO default.s3_rows SETTINGS s3_create_new_file_on_insert = 1 VALUES (100, 'x')")
    assert q("SELECT count(), sum(id) FROM default.s3_rows") == "10\t45\n"
    q(f"CREATE TABLE default.s3_glob (id UInt64, s String) ENGINE = S3('{base}/rows*.csv', {S3_KEYS}, 'CSV')")
    assert q("SELECT count(), sum(id) FROM default.s3_glob") == "11\t145\n"
    q("INSERT INTO default.s3_rows SETTINGS s3_truncate_on_insert = 1 VALUES (7, 'only')")
    assert q("SELECT * FROM default.s3_rows") == "7\tonly\n"
    # A Parquet object with the format from the name, and a named collection.
    q(f"CREATE TABLE default.s3_parquet (n UInt32) ENGINE = S3('{base}/n.parquet', {S3_KEYS})")
    q("INSERT INTO default.s3_parquet SELECT number FROM numbers(1000) SETTINGS s3_truncate_on_insert = 1")
    assert q("SELECT count(), sum(n) FROM default.s3_parquet") == "1000\t499500\n"
    q("DROP NAMED COLLECTION IF EXISTS engine_s3")
    q(f"CREATE NAMED COLLECTION engine_s3 AS url = '{base}/n.parquet', access_key_id = 'testkey', secret_access_key = 'testsecret'")
    q("CREATE TABLE default.s3_named (n UInt32) ENGINE = S3(engine_s3, format = 'Parquet')")
    assert q("SELECT count(), max(n) FROM default.s3_named") == "1000\t999\n"
    for t in ("s3_rows", "s3_glob", "s3_parquet", "s3_named"):
        q(f"DROP TABLE default.{t}")
    q("DROP NAMED COLLECTION engine_s3")
