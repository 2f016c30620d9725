"""DETACH ... PERMANENTLY and DETACH across a server restart, and CREATE OR REPLACE TABLE's
atomicity (a failing SELECT leaves the old table), against a real server."""
import os
import tempfile

from conftest import Server


def error_code(response):
    return response.headers.get("X-ClickHouse-Exception-Code")


def tables(server):
    return server.query("SELECT name FROM system.tables WHERE database = 'dd' ORDER BY name")


def test_detach_permanently_survives_restart_and_plain_detach_does_not():
    with tempfile.TemporaryDirectory(prefix="granary-detach-") as tmp:
        server = Server(os.path.join(tmp, "data")).start()
        try:
            server.query("CREATE DATABASE dd")
            server.query("CREATE TABLE dd.kept (x UInt32) ENGINE = MergeTree ORDER BY x")
            server.query("CREATE TABLE dd.back (s String) ENGINE = Log")
            server.query("INSERT INTO dd.kept SELECT number FROM numbers(100)")
            server.query("INSERT INTO dd.back VALUES ('b')")
            server.query("DETACH TABLE dd.kept PERMANENTLY")
            server.query("DETACH TABLE dd.back")
            assert tables(server) == ""
            assert error_code(server.request("SELECT * FROM dd.kept")) == "60"
            server.stop(9)
            server.start()
            # A plain DETACH is undone by the restart; PERMANENTLY is not.
            assert tables(server) == "back\n"
            assert server.query("SELECT * FROM dd.back") == "b\n"
            assert error_code(server.request("SELECT count() FROM dd.kept")) == "60"
            assert error_code(server.request("CREATE TABLE dd.kept (y UInt8) ENGINE = Memory")) == "57"
            server.query("ATTACH TABLE dd.kept")
            assert server.query("SELECT count(), sum(x) FROM dd.kept") == "100\t4950\n"
            server.query("INSERT INTO dd.kept VALUES (1000)")
            server.stop()
            server.start()
            assert tables(server) == "back\nkept\n"
            assert server.query("SELECT count() FROM dd.kept") == "101\n"
            # A database detached is back after a restart, its tables with it.
            server.query("DETACH DATABASE dd")
            assert server.query("SELECT count() FROM system.databases WHERE name = 'dd'") == "0\n"
            server.stop()
            server.start()
            assert server.query("SELECT count() FROM dd.kept") == "101\n"
        finally:
            server.stop()


def test_create_or_replace_keeps_the_old_table_when_the_select_fails():
    with tempfile.TemporaryDirectory(prefix="granary-replace-") as tmp:
        server = Server(os.path.join(tmp, "data")).start()
        try:
            server.query("CREATE DATABASE dd")
            server.query("CREATE OR REPLACE TABLE dd.r (a UInt8) ENGINE = MergeTree ORDER BY a")
            server.query("INSERT INTO dd.r VALUES (1), (2)")
            failing = "CREATE OR REPLACE TABLE dd.r ENGINE = MergeTree ORDER BY a AS SELECT throwIf(number = 5000) AS a FROM numbers(10000)"
            assert error_code(server.request(failing, params={"max_block_size": "1000"})) == "395"
            assert server.query("SELECT * FROM dd.r ORDER BY a") == "1\n2\n"
            assert error_code(server.request("REPLACE TABLE dd.r (a UInt8) ENGINE = Nope")) is not None
            assert server.query("SELECT count() FROM dd.r") == "2\n"
            assert tables(server) == "r\n"
            server.query("CREATE OR REPLACE TABLE dd.r ENGINE = MergeTree ORDER BY a AS SELECT a + 10 AS a, 'x' AS b FROM dd.r")
            assert server.query("SELECT * FROM dd.r ORDER BY a") == "11\tx\n12\tx\n"
            # A session's temporary table is replaced the same way (ClickHouse itself leaves
            # the new, empty table when the SELECT fails).
            session = {"session_id": "replace-temporary"}
            server.query("CREATE TEMPORARY TABLE tt (a UInt8)", **session)
            server.query("INSERT INTO tt VALUES (7)", **session)
            failing_temporary = "CREATE OR REPLACE TEMPORARY TABLE tt ENGINE = Memory AS SELECT throwIf(1) AS c"
            assert error_code(server.request(failing_temporary, params=session)) == "395"
            assert server.query("SELECT * FROM tt", **session) == "7\n"
            server.stop(9)
            server.start()
            assert tables(server) == "r\n"
            assert server.query("SELECT * FROM dd.r ORDER BY a") == "11\tx\n12\tx\n"
        finally:
            server.stop()
