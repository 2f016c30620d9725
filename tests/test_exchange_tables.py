"""EXCHANGE TABLES against a real server: the swap is durable across a restart, and a
kill -9 at any moment of a run of exchanges leaves each name with one whole table (the
old or the new state, never both names on one table or a table lost)."""
import os
import random
import tempfile
import threading
import time

from conftest import Server


def structures(server):
    return server.query("SELECT name, engine FROM system.tables WHERE database = 'ex' ORDER BY name")


def test_exchange_tables_survives_restart():
    with tempfile.TemporaryDirectory(prefix="granary-exchange-") as tmp:
        server = Server(os.path.join(tmp, "data")).start()
        try:
            server.query("CREATE DATABASE ex")
            server.query("CREATE DATABASE ex2")
            server.query("CREATE TABLE ex.a (x UInt32) ENGINE = MergeTree ORDER BY x")
            server.query("CREATE TABLE ex.b (s String, f Float64) ENGINE = Log")
            server.query("CREATE TABLE ex2.c (n Int8) ENGINE = MergeTree ORDER BY n")
            server.query("INSERT INTO ex.a SELECT number FROM numbers(100)")
            server.query("INSERT INTO ex.b VALUES ('b', 1.5)")
            server.query("INSERT INTO ex2.c VALUES (-1)")
            server.query("EXCHANGE TABLES ex.a AND ex.b")
            server.query("EXCHANGE TABLES ex.b AND ex2.c")
            expected = {"ex.a": "b\t1.5\n", "ex.b": "-1\n", "ex2.c": "100\n"}
            queries = {"ex.a": "SELECT * FROM ex.a", "ex.b": "SELECT * FROM ex.b", "ex2.c": "SELECT count() FROM ex2.c"}
            for name, sql in queries.items():
                assert server.query(sql) == expected[name], name
            server.stop(9)
            server.start()
            for name, sql in queries.items():
                assert server.query(sql) == expected[name], name
            assert "exchange.journal" not in os.listdir(os.path.join(tmp, "data", "metadata"))
            # Inserts after the restart go to the table each name now holds.
            server.query("INSERT INTO ex2.c VALUES (7)")
            assert server.query("SELECT count() FROM ex2.c") == "101\n"
        finally:
            server.stop()


def test_exchange_tables_kill_9_leaves_old_or_new_state():
    with tempfile.TemporaryDirectory(prefix="granary-exchange-kill-") as tmp:
        server = Server(os.path.join(tmp, "data")).start()
        try:
            server.query("CREATE DATABASE ex")
            server.query("CREATE TABLE ex.a (x UInt32) ENGINE = MergeTree ORDER BY x")
            server.query("CREATE TABLE ex.b (s String) ENGINE = MergeTree ORDER BY s")
            server.query("INSERT INTO ex.a SELECT number FROM numbers(10)")
            server.query("INSERT INTO ex.b VALUES ('only')")
            rng = random.Random(5)
            for _ in range(6):
                stop = threading.Event()

                def exchange_forever():
                    while not stop.is_set():
                        try:
                            server.request("EXCHANGE TABLES ex.a AND ex.b", timeout=5)
                        except OSError:
                            return

                worker = threading.Thread(target=exchange_forever)
                worker.start()
                time.sleep(rng.uniform(0.05, 0.4))
                server.stop(9)
                stop.set()
                worker.join()
                server.start()
                # Each name holds one of the two tables, and both tables are there.
                assert structures(server) == "a\tMergeTree\nb\tMergeTree\n"
                a = server.query("SELECT toTypeName(*) FROM ex.a LIMIT 1")
                b = server.query("SELECT toTypeName(*) FROM ex.b LIMIT 1")
                assert sorted([a, b]) == ["String\n", "UInt32\n"], (a, b)
                counts = {a: server.query("SELECT count() FROM ex.a"), b: server.query("SELECT count() FROM ex.b")}
                assert counts == {"UInt32\n": "10\n", "String\n": "1\n"}, counts
        finally:
            server.stop()
