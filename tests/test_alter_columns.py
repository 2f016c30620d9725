"""ALTER TABLE of MergeTree columns across restarts: the new schema is written durably
before the ALTER returns, parts written before it are rewritten to it, and a server
killed with SIGKILL while an ALTER ... MODIFY COLUMN rewrites the parts comes back with
the old schema or the new one, every row readable."""

import os
import signal
import tempfile
import threading
import time

from conftest import Server

ROWS = 200_000


def test_alter_columns_survive_restart():
    with tempfile.TemporaryDirectory(prefix="granary-alter-") as tmp:
        path = os.path.join(tmp, "data")
        s = Server(path).start()
        try:
            s.query("CREATE DATABASE a")
            s.query("CREATE TABLE a.t (k UInt32, s String, v Int64) ENGINE = MergeTree ORDER BY k PARTITION BY k % 3")
            s.query("INSERT INTO a.t SELECT number, toString(number), number FROM numbers(1000)")
            s.query("ALTER TABLE a.t ADD COLUMN w UInt16 DEFAULT 7 AFTER k, RENAME COLUMN s TO name, MODIFY COLUMN v Int32 COMMENT 'c'")
            s.query("ALTER TABLE a.t DROP COLUMN name")
            s.query("INSERT INTO a.t (k, v) VALUES (5000, 1)")
            before = s.query("SELECT count(), sum(w), sum(v) FROM a.t")
            create = s.query("SHOW CREATE TABLE a.t")
        finally:
            s.stop()
        s = Server(path).start()
        try:
            assert s.query("SELECT count(), sum(w), sum(v) FROM a.t") == before == "1001\t7007\t499501\n"
            assert s.query("SHOW CREATE TABLE a.t") == create
            assert s.query("SELECT name, type FROM system.columns WHERE database = 'a' AND table = 't' ORDER BY position") == "k\tUInt32\nw\tUInt16\nv\tInt32\n"
            s.query("OPTIMIZE TABLE a.t FINAL")
            assert s.query("SELECT count(), sum(w), sum(v) FROM a.t") == before
            assert s.query("CHECK TABLE a.t SETTINGS check_query_single_value_result = 1") == "1\n"
        finally:
            s.stop()


def test_kill_9_during_modify_column_keeps_every_row():
    with tempfile.TemporaryDirectory(prefix="granary-alter-kill-") as tmp:
        path = os.path.join(tmp, "data")
        s = Server(path).start()
        s.query("CREATE DATABASE a")
        s.query("CREATE TABLE a.t (k UInt64, v UInt32) ENGINE = MergeTree ORDER BY k PARTITION BY k % 8")
        for i in range(8):
            s.query(f"INSERT INTO a.t SELECT number, number % 1000 FROM numbers({i * ROWS // 8}, {ROWS // 8})")
        expected = s.query("SELECT count(), sum(v) FROM a.t")
        for delay in (0.05, 0.3):
            result = {}

            def alter():
                try:
                    result["status"] = s.request("ALTER TABLE a.t MODIFY COLUMN v " + ("UInt64" if delay < 0.1 else "Int64"), timeout=60).status
                except OSError:
                    result["status"] = None

            thread = threading.Thread(target=alter)
            thread.start()
            time.sleep(delay)
            s.stop(signal.SIGKILL)
            thread.join()
            s = Server(path).start()
            assert s.query("SELECT count(), sum(v) FROM a.t") == expected
            assert s.query("CHECK TABLE a.t SETTINGS check_query_single_value_result = 1") == "1\n"
            t = s.query("SELECT type FROM system.columns WHERE database = 'a' AND table = 't' AND name = 'v'").strip()
            assert t in ("UInt32", "UInt64", "Int64")
            if result["status"] == 200:
                assert t == ("UInt64" if delay < 0.1 else "Int64")
        s.stop()
