"""Named collections end to end: s3() and url() reading and writing through a collection
(filename, overrides, NOT OVERRIDABLE), collections from the config file (immutable to
SQL), persistence across a restart, and who may create, see and use them. The objects
live in the local SeaweedFS (`s3_endpoint` of conftest.py) and are written by chdb, which
is the reference for the results."""
import http.server
import os
import tempfile
import threading

import pytest

from conftest import Server

chdb = pytest.importorskip("chdb")

KEYS = "'testkey', 'testsecret'"


def ch(sql: str) -> str:
    return chdb.query(sql, "TSV").bytes().decode()


def code_of(response) -> str:
    return response.headers.get("X-ClickHouse-Exception-Code", "")


@pytest.fixture(scope="module")
def objects(s3_endpoint):
    base = f"{s3_endpoint}/test-bucket/nc"
    ch(f"INSERT INTO FUNCTION s3('{base}/data.csv', {KEYS}, 'CSVWithNames') SELECT number AS a, toString(number) AS b FROM numbers(10) SETTINGS s3_truncate_on_insert = 1")
    ch(f"INSERT INTO FUNCTION s3('{base}/more.parquet', {KEYS}) SELECT number AS a FROM numbers(100) SETTINGS s3_truncate_on_insert = 1")
    return base


@pytest.fixture(scope="module")
def configured(objects, tmp_path_factory):
    """A server whose config defines a collection, users and a read-only profile."""
    tmp = tmp_path_factory.mktemp("nc")
    config = tmp / "granary.toml"
    config.write_text(
        f"""
[named_collections.from_config]
url = "{objects}/"
access_key_id = "testkey"
secret_access_key = {{ value = "testsecret", overridable = false }}
format = "CSVWithNames"

[profiles.ro]
readonly = 1

[users.reader]
password = "r"
profile = "ro"
grants = ["SELECT ON *.*", "S3 ON *.*", "NAMED COLLECTION ON *.*"]

[users.plain]
password = "p"
grants = ["SELECT ON *.*", "S3 ON *.*"]

[users.admin]
password = "a"
grants = ["NAMED COLLECTION ADMIN ON *.*", "S3 ON *.*"]
"""
    )
    server = Server(str(tmp / "data"), extra_args=["--config", str(config)]).start()
    yield server
    server.stop()


def test_s3_through_a_collection(server, objects):
    q = server.query
    q(f"CREATE NAMED COLLECTION nc_s3 AS url = '{objects}/', access_key_id = 'testkey', secret_access_key = 'testsecret' NOT OVERRIDABLE, format = 'CSVWithNames'")
    try:
        expected = ch(f"SELECT count(), sum(a), max(b) FROM s3('{objects}/data.csv', {KEYS})")
        assert q("SELECT count(), sum(a), max(b) FROM s3(nc_s3, filename = 'data.csv')") == expected
        # Overrides: the url itself, the format, a structure; the secret is NOT OVERRIDABLE.
        assert q(f"SELECT count(), sum(a), max(b) FROM s3(nc_s3, url = '{objects}/data.csv')") == expected
        assert q("SELECT sum(a) FROM s3(nc_s3, filename = 'more.parquet', format = 'Parquet')") == "4950\n"
        assert q("SELECT toTypeName(a) FROM s3(nc_s3, filename = 'data.csv', structure = 'a UInt8, b String') LIMIT 1") == "UInt8\n"
        denied = server.request("SELECT * FROM s3(nc_s3, filename = 'data.csv', secret_access_key = 'x')")
        assert code_of(denied) == "36" and "Override not allowed for 'secret_access_key'" in denied.text
        # Writing through it; chdb reads the object back.
        q("INSERT INTO FUNCTION s3(nc_s3, filename = 'written.csv') SELECT 7 AS a, 'seven' AS b SETTINGS s3_truncate_on_insert = 1")
        assert ch(f"SELECT * FROM s3('{objects}/written.csv', {KEYS})") == "7\tseven\n"
        # Keys the function does not know, and positional arguments after the name.
        assert code_of(server.request("SELECT * FROM s3(nc_s3, filename = 'data.csv', bogus = '1')")) == "36"
        assert code_of(server.request("SELECT * FROM s3(nc_s3, 'CSV')")) == "36"
        assert code_of(server.request("SELECT * FROM s3(nc_missing, filename = 'x.csv')")) == "669"
    finally:
        q("DROP NAMED COLLECTION nc_s3")


def test_url_through_a_collection(server):
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_HEAD(self):
            self.do_GET()

        def do_GET(self):
            body = b"x,y\n1,a\n2,b\n" if self.path == "/files/rows.csv" else b""
            self.send_response(200 if body else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command == "GET":
                self.wfile.write(body)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/files"
    try:
        server.query(f"CREATE NAMED COLLECTION nc_url AS url = '{base}', format = 'CSVWithNames'")
        assert server.query("SELECT sum(x), max(y) FROM url(nc_url, filename = 'rows.csv')") == ch(f"SELECT sum(x), max(y) FROM url('{base}/rows.csv')")
        assert server.query(f"SELECT count() FROM url(nc_url, url = '{base}/rows.csv', structure = 'x UInt8, y String')") == "2\n"
    finally:
        server.query("DROP NAMED COLLECTION IF EXISTS nc_url")
        httpd.shutdown()


def test_collections_survive_a_restart(objects):
    with tempfile.TemporaryDirectory(prefix="granary-nc-") as tmp:
        server = Server(os.path.join(tmp, "data")).start()
        try:
            server.query(f"CREATE NAMED COLLECTION kept AS url = '{objects}/data.csv', access_key_id = 'testkey', secret_access_key = 'testsecret'")
            server.query("CREATE NAMED COLLECTION dropped AS url = 'http://x/'")
            server.query("ALTER NAMED COLLECTION kept SET format = 'CSVWithNames' NOT OVERRIDABLE")
            server.query("DROP NAMED COLLECTION dropped")
            before = server.query("SELECT name, collection, create_query FROM system.named_collections")
            assert server.stop() == 0
            server.start()
            assert server.query("SELECT name, collection, create_query FROM system.named_collections") == before
            assert "format = \\'[HIDDEN]\\' NOT OVERRIDABLE" in before
            assert server.query("SELECT sum(a) FROM s3(kept)") == "45\n"
        finally:
            server.stop()


def test_collection_from_the_config(configured):
    q = configured.query
    assert q("SELECT name, source, create_query FROM system.named_collections") == "from_config\tConfig\t\n"
    assert q("SELECT sum(a) FROM s3(from_config, filename = 'data.csv')") == "45\n"
    denied = configured.request("SELECT sum(a) FROM s3(from_config, filename = 'data.csv', secret_access_key = 'x')")
    assert code_of(denied) == "36"
    assert code_of(configured.request("ALTER NAMED COLLECTION from_config SET format = 'TSV'")) == "671"
    assert code_of(configured.request("DROP NAMED COLLECTION from_config")) == "671"
    assert code_of(configured.request("CREATE NAMED COLLECTION from_config AS url = 'http://x/'")) == "670"


def test_who_may_create_see_and_use(configured):
    def as_user(user, password, sql):
        return configured.request(sql, params={"user": user, "password": password})

    create = "CREATE NAMED COLLECTION nc_acl AS url = 'http://127.0.0.1:1/'"
    # readonly = 1 refuses any DDL; a user without NAMED COLLECTION ADMIN is denied.
    assert code_of(as_user("reader", "r", create)) == "164"
    assert code_of(as_user("plain", "p", create)) == "497"
    assert code_of(as_user("plain", "p", "SELECT * FROM system.named_collections")) == "497"
    # The admin grant: create, list, drop.
    assert as_user("admin", "a", create).status == 200
    assert as_user("admin", "a", "SELECT name FROM system.named_collections ORDER BY name").text == "from_config\nnc_acl\n"
    assert as_user("admin", "a", "DROP NAMED COLLECTION nc_acl").status == 200
    # Using one needs NAMED COLLECTION (or the admin grant) besides S3.
    use = "SELECT sum(a) FROM s3(from_config, filename = 'data.csv')"
    assert code_of(as_user("plain", "p", use)) == "497"
    assert as_user("reader", "r", use).text == "45\n"
    assert as_user("admin", "a", use).text == "45\n"
