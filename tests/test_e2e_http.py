"""End to end: the real server process over raw HTTP, restarts, and the CLI tools."""
import json
import socket
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import BINARY, Server


def test_ping_and_root(server):
    import urllib.request

    for path in ["", "ping", "replicas_status"]:
        with urllib.request.urlopen(server.url + path) as r:
            assert r.read() == b"Ok.\n"


def test_get_and_post_queries(server):
    status, headers, body = server.request(params={"query": "SELECT 1"}, method="GET")
    assert (status, body) == (200, b"1\n")
    assert headers["X-ClickHouse-Format"] == "TabSeparated"
    assert headers["X-ClickHouse-Timezone"] == "UTC"
    assert headers["X-ClickHouse-Query-Id"]
    summary = json.loads(headers["X-ClickHouse-Summary"])
    assert summary["result_rows"] == "1"
    status, _, body = server.request("SELECT number FROM numbers(3)")
    assert body == b"0\n1\n2\n"


def test_summary_counts_rows_read(server):
    _, headers, body = server.request("SELECT sum(number) FROM numbers(100000)")
    assert body == b"4999950000\n"
    summary = json.loads(headers["X-ClickHouse-Summary"])
    assert summary["read_rows"] == "100000"
    assert int(summary["read_bytes"]) >= 800000
    assert int(summary["elapsed_ns"]) > 0


def test_query_id_settings_and_params(server):
    _, headers, _ = server.request("SELECT 1", params={"query_id": "my-query-1"})
    assert headers["X-ClickHouse-Query-Id"] == "my-query-1"
    body = server.query("SELECT {x:UInt64} + 1, {s:String}", param_x="41", param_s="it's")
    assert body == "42\tit\\'s\n"
    body = server.query("SELECT value FROM system.settings WHERE name = 'max_threads'", max_threads="3")
    assert body == "3\n"
    _, headers, body = server.request("SELECT 1", params={"default_format": "JSONEachRow"})
    assert body == b'{"1":1}\n' and headers["X-ClickHouse-Format"] == "JSONEachRow"


def test_errors_have_clickhouse_shape(server):
    cases = [
        ("SELECT * FROM no_such_table", 404, 60, "UNKNOWN_TABLE"),
        ("SELEC 1", 400, 62, "SYNTAX_ERROR"),
        ("SELECT no_such_function(1)", 404, 46, "UNKNOWN_FUNCTION"),
        ("SELECT * FROM no_db.t", 404, 81, "UNKNOWN_DATABASE"),
    ]
    for sql, status, code, name in cases:
        got_status, headers, body = server.request(sql)
        text = body.decode()
        assert got_status == status, (sql, text)
        assert headers["X-ClickHouse-Exception-Code"] == str(code)
        assert text.startswith(f"Code: {code}. DB::Exception: ") and text.rstrip().endswith(f"({name})"), text
    status, headers, _ = server.request(params={"query": "SELECT 1", "no_such_setting": "1"}, method="GET")
    assert status == 404 and headers["X-ClickHouse-Exception-Code"] == "115"


def test_get_is_readonly(server):
    status, headers, _ = server.request(params={"query": "CREATE DATABASE via_get"}, method="GET")
    assert status == 500 and headers["X-ClickHouse-Exception-Code"] == "164"


def test_insert_with_body_in_formats(server):
    server.query("CREATE TABLE default.ins (id UInt64, name String) ENGINE = Memory")
    server.request(params={"query": "INSERT INTO default.ins FORMAT CSV"}, data=b"1,a\n2,\"b,c\"\n")
    server.request(params={"query": "INSERT INTO default.ins FORMAT TSV"}, data=b"3\td\n")
    server.request(params={"query": "INSERT INTO default.ins FORMAT JSONEachRow"}, data=b'{"id":4,"name":"e"}\n')
    server.request(params={"query": "INSERT INTO default.ins VALUES"}, data=b"(5,'f')")
    server.request("INSERT INTO default.ins FORMAT CSVWithNames\nname,id\ng,6\n")
    server.request('INSERT INTO default.ins FORMAT JSONEachRow {"id": 7, "name": "{h:String}"}')
    assert server.query("SELECT id, name FROM default.ins ORDER BY id") == "1\ta\n2\tb,c\n3\td\n4\te\n5\tf\n6\tg\n7\t{h:String}\n"
    status, headers, body = server.request(params={"query": "INSERT INTO default.ins FORMAT CSV"}, data=b"8,x\nbad,y\n")
    assert status == 400, body
    assert b"at row 2" in body
    assert server.query("SELECT count() FROM default.ins") == "7\n"
    server.query("DROP TABLE default.ins")


def test_large_streamed_insert(server):
    server.query("CREATE TABLE default.big (id UInt64, s String) ENGINE = Null")
    rows = 300_000
    data = b"".join(b"%d,row number %d\n" % (i, i) for i in range(rows))
    _, headers, _ = server.request(params={"query": "INSERT INTO default.big FORMAT CSV"}, data=data)
    assert json.loads(headers["X-ClickHouse-Summary"])["written_rows"] == str(rows)
    server.query("DROP TABLE default.big")


def test_malformed_requests_do_not_hurt(server):
    for payload in [b"\xff\xfe garbage", b"SELECT '" + b"x" * 1_000_000, b"(" * 10000]:
        status, _, _ = server.request(data=payload)
        assert status >= 400
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        s.recv(100)
    status, _, _ = server.request(params={"query": "SELECT 1", "bad": "%zz"}, method="GET")
    assert server.query("SELECT 1") == "1\n"


def test_concurrent_connections(server):
    errors = []

    def worker(n):
        try:
            for i in range(20):
                assert server.query(f"SELECT {n} + {i}") == f"{n + i}\n"
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]


def test_max_execution_time(server):
    started = time.time()
    status, headers, body = server.request("SELECT count() FROM system.numbers", params={"max_execution_time": "0.5"})
    assert status == 408 and headers["X-ClickHouse-Exception-Code"] == "159", body
    assert time.time() - started < 10


def test_client_disconnect_cancels_query(server):
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(b"POST /?max_execution_time=30 HTTP/1.1\r\nHost: x\r\nContent-Length: 38\r\n\r\nSELECT count() FROM system.numbers   ")
        time.sleep(0.5)
    deadline = time.time() + 10
    while time.time() < deadline:
        running = server.query("SELECT count() FROM system.processes WHERE query LIKE '%system.numbers%' AND query NOT LIKE '%processes%'")
        if running == "0\n":
            break
        time.sleep(0.2)
    assert running == "0\n"


def test_sessions_keep_state(server):
    params = {"session_id": "s1"}
    server.query("CREATE DATABASE IF NOT EXISTS sess_db")
    server.query("USE sess_db", **params)
    server.query("SET max_threads = 1", **params)
    assert server.query("SELECT currentDatabase()", **params) == "sess_db\n"
    assert server.query("SELECT value FROM system.settings WHERE name = 'max_threads'", **params) == "1\n"
    assert server.query("SELECT currentDatabase()") == "default\n"


def test_restart_keeps_databases_and_tables():
    with tempfile.TemporaryDirectory() as path:
        s = Server(path).start()
        s.query("CREATE DATABASE kept")
        s.query("CREATE TABLE kept.m (id UInt64, tags Array(String)) ENGINE = Memory")
        s.query("CREATE TABLE kept.n (x Nullable(Int32)) ENGINE = Null")
        s.query("INSERT INTO kept.m VALUES (1, ['a'])")
        s.stop()
        s.start()
        try:
            assert s.query("SHOW TABLES FROM kept") == "m\nn\n"
            assert s.query("SHOW CREATE TABLE kept.m") == (
                "CREATE TABLE kept.m\\n(\\n    id UInt64,\\n    tags Array(String)\\n)\\nENGINE = Memory\n"
            )
            assert s.query("SELECT count() FROM kept.m") == "0\n"
        finally:
            s.stop()


def test_kill_9_keeps_catalog():
    with tempfile.TemporaryDirectory() as path:
        s = Server(path).start()
        for i in range(20):
            s.query(f"CREATE TABLE default.t{i} (x UInt8) ENGINE = Memory")
        s.stop(sig=9)
        s.start()
        try:
            assert s.query("SELECT count() FROM system.tables WHERE database = 'default'") == "20\n"
        finally:
            s.stop()


def test_client_binary(server):
    def client(*args, stdin=None):
        return subprocess.run([BINARY, "client", "--port", str(server.port), *args], input=stdin, capture_output=True, timeout=60)

    r = client("--query", "SELECT 1 + 1")
    assert r.returncode == 0 and r.stdout == b"2\n", r.stderr
    r = client("--query", "SELECT number FROM numbers(2)", "--format", "CSV")
    assert r.stdout == b"0\n1\n"
    r = client("--max_threads=1", "--query", "SELECT value FROM system.settings WHERE name = 'max_threads'")
    assert r.stdout == b"1\n", r.stderr
    client("--query", "CREATE TABLE default.cli (a UInt32, b String) ENGINE = Memory")
    r = client("--query", "INSERT INTO default.cli FORMAT CSV", stdin=b"1,x\n2,y\n")
    assert r.returncode == 0, r.stderr
    r = client("--query", "SELECT sum(a) FROM default.cli; SELECT count() FROM default.cli")
    assert r.stdout == b"3\n2\n"
    r = client("--query", "SELECT * FROM missing")
    assert r.returncode != 0 and b"UNKNOWN_TABLE" in r.stderr
    r = client("--query", "SELECT 1", "--time")
    assert b"rows in set" in r.stderr or b"row in set" in r.stderr


def test_local_binary():
    with tempfile.TemporaryDirectory() as path:
        r = subprocess.run(
            [BINARY, "local", "--path", path, "--query", "CREATE TABLE t (x UInt64) ENGINE = Memory; INSERT INTO t SELECT number FROM numbers(10); SELECT sum(x) FROM t"],
            capture_output=True,
            timeout=60,
        )
        assert r.returncode == 0 and r.stdout == b"45\n", r.stderr
        r = subprocess.run([BINARY, "local", "--format", "JSONEachRow"], input=b"SELECT 1 AS a", capture_output=True, timeout=60)
        assert r.stdout == b'{"a":1}\n', r.stderr
        r = subprocess.run([BINARY, "local", "--query", "SELECT * FROM nope"], capture_output=True, timeout=60)
        assert r.returncode != 0 and b"UNKNOWN_TABLE" in r.stderr
