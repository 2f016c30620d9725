"""Temporary tables across HTTP sessions, and the Buffer engine's flushes (thresholds,
OPTIMIZE, DROP, graceful restart) through a real server."""
import os
import signal
import tempfile
import time
import uuid

import pytest

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


def test_temporary_tables_expire_with_the_session(server):
    params = {**session(), "session_timeout": "1"}
    server.query("CREATE TEMPORARY TABLE expiring (x UInt8)", **params)
    server.query("INSERT INTO expiring VALUES (1)", **params)
    assert server.query("SELECT count() FROM expiring", **params) == "1\n"
    time.sleep(1.5)
    r = server.request("SELECT count() FROM expiring", params=params)
    assert r.status == 404 and error_code(r) == "60", r.text
