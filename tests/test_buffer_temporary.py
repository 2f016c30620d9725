"""Temporary tables across HTTP sessions, and the Buffer engine's flushes (thresholds,
OPTIMIZE, DROP, graceful restart) through a real server."""
import os
import signal
import tempfile
import time
import uuid

from conftest import Server


def session():
    return {"session_id": "tmp-" + uuid.uuid4().hex}


def error_code(response) -> str:
    return response.headers.get("X-ClickHouse-Exception-Code", "")


def test_temporary_tables_belong_to_their_session(server):
    first, second = session(), session()
    server.query("CREATE TABLE shared_name (x UInt8) ENGINE = Memory")
    try:
        server.query("INSERT INTO shared_name VALUES (1)")
        server.query("CREATE TEMPORARY TABLE shared_name (x UInt8)", **first)
        server.query("INSERT INTO shared_name VALUES (2), (3)", **first)
        server.query("CREATE TEMPORARY TABLE only_first (s String)", **first)
        # Each session sees its own table; a request without a session sees the stored one.
        assert server.query("SELECT sum(x) FROM shared_name", **first) == "5\n"
        assert server.query("SELECT sum(x) FROM shared_name", **second) == "1\n"
        assert server.query("SELECT sum(x) FROM shared_name") == "1\n"
        # A qualified name is never the temporary table.
        assert server.query("SELECT sum(x) FROM default.shared_name", **first) == "1\n"
        r = server.request("SELECT * FROM only_first", params=second)
        assert r.status == 404 and error_code(r) == "60", r.text
        # The second session may have a temporary table of the same name.
        server.query("CREATE TEMPORARY TABLE only_first (s String)", **second)
        server.query("INSERT INTO only_first VALUES ('second')", **second)
        assert server.query("SELECT count() FROM only_first", **first) == "0\n"
        assert server.query("SELECT name, is_temporary FROM system.tables WHERE is_temporary ORDER BY name", **first) == "only_first\t1\nshared_name\t1\n"
        assert server.query("SELECT name FROM system.tables WHERE is_temporary", **second) == "only_first\n"
        assert server.query("SELECT count() FROM system.tables WHERE is_temporary") == "0\n"
        # The tables go with the session.
        server.query("SELECT 1", close_session="1", **first)
        assert server.query("SELECT sum(x) FROM shared_name", **first) == "1\n"
        r = server.request("SELECT * FROM only_first", params=first)
        assert r.status == 404 and error_code(r) == "60", r.text
        assert server.query("SELECT * FROM only_first", **second) == "second\n"
    finally:
        server.query("DROP TABLE shared_name")


def test_temporary_buffer_is_flushed_when_its_session_ends(server):
    params = session()
    server.query("CREATE TABLE buffer_destination (x UInt32) ENGINE = Memory")
    try:
        server.query("CREATE TEMPORARY TABLE tb (x UInt32) ENGINE = Buffer(default, buffer_destination, 1, 1000, 1000, 1000000, 1000000, 100000000, 100000000)", **params)
        server.query("INSERT INTO tb SELECT number FROM numbers(10)", **params)
        assert server.query("SELECT count() FROM buffer_destination") == "0\n"
        server.query("SELECT 1", close_session="1", **params)
        deadline = time.time() + 10
        while server.query("SELECT count() FROM buffer_destination") != "10\n" and time.time() < deadline:
            time.sleep(0.05)
        assert server.query("SELECT count(), sum(x) FROM buffer_destination") == "10\t45\n"
    finally:
        server.query("DROP TABLE buffer_destination")


def test_temporary_tables_expire_with_the_session(server):
    params = {**session(), "session_timeout": "1"}
    server.query("CREATE TEMPORARY TABLE expiring (x UInt8)", **params)
    server.query("INSERT INTO expiring VALUES (1)", **params)
    assert server.query("SELECT count() FROM expiring", **params) == "1\n"
    time.sleep(1.5)
    r = server.request("SELECT count() FROM expiring", params=params)
    assert r.status == 404 and error_code(r) == "60", r.text


def wait_for(server, sql, expected, timeout=30.0, **params):
    """Polls `sql` until it returns `expected` (the flush runs in the background)."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = server.query(sql, **params)
        if last == expected:
            return
        time.sleep(0.1)
    raise AssertionError(f"{sql!r} returned {last!r}, not {expected!r}, within {timeout}s")


def test_buffer_flushes_in_the_background_when_thresholds_pass(server):
    server.query("CREATE DATABASE IF NOT EXISTS buffer_bg")
    try:
        server.query("CREATE TABLE buffer_bg.dst (x UInt64) ENGINE = MergeTree ORDER BY x")
        # All min thresholds (1 s, 10 rows, 10 bytes) pass once a second has gone by.
        server.query("CREATE TABLE buffer_bg.buf (x UInt64) ENGINE = Buffer(buffer_bg, dst, 4, 1, 3600, 10, 1000000, 10, 100000000)")
        server.query("INSERT INTO buffer_bg.buf SELECT number FROM numbers(100)")
        assert server.query("SELECT count(), sum(x) FROM buffer_bg.buf") == "100\t4950\n"
        wait_for(server, "SELECT count(), sum(x) FROM buffer_bg.dst", "100\t4950\n")
        assert server.query("SELECT count(), sum(x) FROM buffer_bg.buf") == "100\t4950\n"
        # Below min_rows: only max_time (2 s) flushes, and flush_rows is background-only.
        server.query("CREATE TABLE buffer_bg.dst2 (x UInt64) ENGINE = Memory")
        server.query("CREATE TABLE buffer_bg.buf2 (x UInt64) ENGINE = Buffer(buffer_bg, dst2, 1, 3600, 2, 1000, 1000000, 0, 100000000)")
        server.query("INSERT INTO buffer_bg.buf2 VALUES (1), (2)")
        assert server.query("SELECT count() FROM buffer_bg.dst2") == "0\n"
        wait_for(server, "SELECT count() FROM buffer_bg.dst2", "2\n")
        server.query("CREATE TABLE buffer_bg.buf3 (x UInt64) ENGINE = Buffer(buffer_bg, dst2, 1, 3600, 3600, 1000, 1000000, 0, 100000000, 0, 2, 0)")
        server.query("INSERT INTO buffer_bg.buf3 VALUES (3), (4), (5)")
        wait_for(server, "SELECT count(), sum(x) FROM buffer_bg.dst2", "5\t15\n")
    finally:
        server.query("DROP DATABASE buffer_bg")


def test_buffer_rows_survive_a_graceful_restart():
    with tempfile.TemporaryDirectory(prefix="granary-buffer-") as tmp:
        s = Server(os.path.join(tmp, "data")).start()
        try:
            s.query("CREATE TABLE dst (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
            s.query("CREATE TABLE buf AS dst ENGINE = Buffer(default, dst, 2, 3600, 3600, 1000000, 1000000, 100000000, 100000000)")
            s.query("INSERT INTO buf SELECT number, toString(number) FROM numbers(1000)")
            s.query("INSERT INTO buf VALUES (5000, 'last')")
            assert s.query("SELECT count() FROM dst") == "0\n"
            assert s.stop(signal.SIGTERM) == 0
            s.start()
            assert s.query("SELECT count(), sum(x) FROM dst") == "1001\t504500\n"
            assert s.query("SELECT count(), sum(x) FROM buf") == "1001\t504500\n"
            assert s.query("SELECT engine FROM system.tables WHERE name = 'buf'") == "Buffer\n"
        finally:
            s.stop(signal.SIGKILL)
