"""Asynchronous inserts (async_insert = 1) over HTTP and in `granary local`: INSERTs with
data are queued per table, column list and settings and written together as one part;
each INSERT's data is parsed when it arrives, so a bad row fails that INSERT alone."""
import os
import signal
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import BINARY, Server


def parts(server, table):
    return int(server.query(f"SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = '{table}' AND active"))


def run_concurrently(jobs):
    """Runs each callable on its own thread; returns their results in order."""
    results = [None] * len(jobs)

    def run(i):
        results[i] = jobs[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_concurrent_small_inserts_are_written_together(server):
    server.query("DROP TABLE IF EXISTS ai_many")
    server.query("CREATE TABLE ai_many (k UInt32, v String) ENGINE = MergeTree ORDER BY k")
    server.query("SYSTEM STOP MERGES ai_many")
    settings = {"async_insert": 1, "async_insert_busy_timeout_ms": 300}
    inserts = 60

    def job(i):
        def send():
            rows = [(i * 10 + j, f"v{i}_{j}") for j in range(10)]
            if i % 2:
                body = "".join(f"{k},{v}\n" for k, v in rows).encode()
                return server.request(params={**settings, "query": "INSERT INTO ai_many FORMAT CSV"}, data=body)
            values = ",".join(f"({k},'{v}')" for k, v in rows)
            return server.request(f"INSERT INTO ai_many VALUES {values}", params=settings)

        return send

    results = run_concurrently([job(i) for i in range(inserts)])
    assert [r.status for r in results] == [200] * inserts, [r.text for r in results if r.status != 200]
    # Every INSERT answered after its rows were written: all visible, each exactly once.
    assert server.query("SELECT count(), uniqExact(k), uniqExact(v), min(k), max(k) FROM ai_many") == f"{inserts * 10}\t{inserts * 10}\t{inserts * 10}\t0\t{inserts * 10 - 1}\n"
    assert parts(server, "ai_many") < inserts / 4
    assert server.query("SELECT count() FROM system.asynchronous_inserts") == "0\n"


def test_bad_row_fails_only_its_insert(server):
    server.query("DROP TABLE IF EXISTS ai_bad")
    server.query("CREATE TABLE ai_bad (k UInt32, v String) ENGINE = MergeTree ORDER BY k")
    server.query("SYSTEM STOP MERGES ai_bad")
    settings = {"async_insert": 1, "async_insert_busy_timeout_ms": 1000}

    def good(i):
        return lambda: server.request(params={**settings, "query": "INSERT INTO ai_bad FORMAT CSV"}, data=f"{i},ok{i}\n".encode())

    def bad():
        time.sleep(0.1)
        started = time.time()
        r = server.request(params={**settings, "query": "INSERT INTO ai_bad FORMAT CSV"}, data=b"100,fine\nnot_a_number,x\n")
        return r, time.time() - started

    results = run_concurrently([good(i) for i in range(5)] + [bad])
    assert [r.status for r in results[:5]] == [200] * 5
    failed, elapsed = results[5]
    assert failed.status != 200 and "Code: " in failed.text, failed.text
    # It failed while parsing, not when the batch was written.
    assert elapsed < 0.9
    assert server.query("SELECT k, v FROM ai_bad ORDER BY k FORMAT CSV") == "".join(f'{i},"ok{i}"\n' for i in range(5))
    assert parts(server, "ai_bad") == 1


def test_values_with_expressions_and_column_list(server):
    server.query("DROP TABLE IF EXISTS ai_values")
    server.query("CREATE TABLE ai_values (k UInt32, v String DEFAULT 'dflt', n Nullable(Int8)) ENGINE = MergeTree ORDER BY k")
    settings = {"async_insert": 1, "async_insert_busy_timeout_ms": 50}
    assert server.request("INSERT INTO ai_values (k, n) VALUES (1 + 1, NULL), (3, -1)", params=settings).status == 200
    assert server.request("INSERT INTO ai_values VALUES (5, 'x', 7)", params=settings).status == 200
    r = server.request("INSERT INTO ai_values (k) VALUES (1), ('a')", params=settings)
    assert r.status != 200
    assert server.query("SELECT * FROM ai_values ORDER BY k FORMAT CSV") == '2,"dflt",\\N\n3,"dflt",-1\n5,"x",7\n'


def test_wait_for_async_insert_0_answers_when_queued(server):
    server.query("DROP TABLE IF EXISTS ai_nowait")
    server.query("CREATE TABLE ai_nowait (k UInt32) ENGINE = MergeTree ORDER BY k")
    settings = {"async_insert": 1, "wait_for_async_insert": 0, "async_insert_busy_timeout_ms": 600000}
    started = time.time()
    for i in range(3):
        r = server.request(params={**settings, "query": "INSERT INTO ai_nowait FORMAT TSV", "query_id": f"ai_nowait_{i}"}, data=f"{i}\n".encode())
        assert r.status == 200, r.text
    assert time.time() - started < 10
    assert server.query("SELECT count() FROM ai_nowait") == "0\n"
    queued = server.query("SELECT database = currentDatabase(), table, format, total_bytes, entries.query_id, entries.bytes FROM system.asynchronous_inserts WHERE table = 'ai_nowait' FORMAT TSV")
    assert queued == "1\tai_nowait\tTSV\t6\t['ai_nowait_0','ai_nowait_1','ai_nowait_2']\t[2,2,2]\n"
    server.query("SYSTEM FLUSH ASYNC INSERT QUEUE")
    assert server.query("SELECT groupArray(k) FROM (SELECT k FROM ai_nowait ORDER BY k)") == "[0,1,2]\n"
    assert parts(server, "ai_nowait") == 1
    assert server.query("SELECT count() FROM system.asynchronous_inserts WHERE table = 'ai_nowait'") == "0\n"


def test_thresholds_write_before_the_timeout(server):
    server.query("DROP TABLE IF EXISTS ai_full")
    server.query("CREATE TABLE ai_full (k UInt32) ENGINE = MergeTree ORDER BY k")
    server.query("SYSTEM STOP MERGES ai_full")
    settings = {"async_insert": 1, "async_insert_busy_timeout_ms": 600000, "async_insert_max_query_number": 3}
    started = time.time()
    results = run_concurrently([lambda i=i: server.request(f"INSERT INTO ai_full VALUES ({i})", params=settings) for i in range(3)])
    assert [r.status for r in results] == [200] * 3
    assert time.time() - started < 30
    assert server.query("SELECT count() FROM ai_full") == "3\n"
    assert parts(server, "ai_full") == 1
    # More data than async_insert_max_data_size: written synchronously, at once.
    settings = {"async_insert": 1, "wait_for_async_insert": 0, "async_insert_busy_timeout_ms": 600000, "async_insert_max_data_size": 10}
    r = server.request(params={**settings, "query": "INSERT INTO ai_full FORMAT TSV"}, data=b"".join(b"%d\n" % i for i in range(10, 30)))
    assert r.status == 200, r.text
    assert server.query("SELECT count() FROM ai_full") == "23\n"


def test_insert_select_is_not_queued(server):
    server.query("DROP TABLE IF EXISTS ai_select")
    server.query("CREATE TABLE ai_select (k UInt64) ENGINE = MergeTree ORDER BY k")
    settings = {"async_insert": 1, "wait_for_async_insert": 0, "async_insert_busy_timeout_ms": 600000}
    assert server.request("INSERT INTO ai_select SELECT number FROM numbers(5)", params=settings).status == 200
    assert server.query("SELECT count() FROM ai_select") == "5\n"
    assert server.query("SELECT count() FROM system.asynchronous_inserts WHERE table = 'ai_select'") == "0\n"


def test_queued_inserts_are_written_at_shutdown():
    with tempfile.TemporaryDirectory(prefix="granary-async-") as tmp:
        s = Server(os.path.join(tmp, "data")).start()
        try:
            s.query("CREATE TABLE t (k UInt32) ENGINE = MergeTree ORDER BY k")
            settings = {"async_insert": 1, "wait_for_async_insert": 0, "async_insert_busy_timeout_ms": 600000}
            assert s.request("INSERT INTO t VALUES (1), (2)", params=settings).status == 200
            assert s.query("SELECT count() FROM t") == "0\n"
        finally:
            assert s.stop() == 0
        s.start()
        try:
            assert s.query("SELECT groupArray(k) FROM (SELECT k FROM t ORDER BY k)") == "[1,2]\n"
        finally:
            s.stop()


def test_granary_local_writes_queued_inserts_before_exiting():
    with tempfile.TemporaryDirectory(prefix="granary-async-local-") as tmp:
        path = os.path.join(tmp, "data")
        script = (
            "CREATE TABLE t (k UInt32) ENGINE = MergeTree ORDER BY k; "
            "INSERT INTO t SETTINGS async_insert = 1, wait_for_async_insert = 0, async_insert_busy_timeout_ms = 600000 VALUES (1); "
            "INSERT INTO t SETTINGS async_insert = 1, wait_for_async_insert = 0, async_insert_busy_timeout_ms = 600000 VALUES (2); "
            "SELECT count() FROM t; "
            "SYSTEM FLUSH ASYNC INSERT QUEUE; "
            "SELECT count() FROM t; "
            "INSERT INTO t SETTINGS async_insert = 1, wait_for_async_insert = 1, async_insert_busy_timeout_ms = 10 VALUES (3); "
            "SELECT count() FROM t; "
            "INSERT INTO t SETTINGS async_insert = 1, wait_for_async_insert = 0, async_insert_busy_timeout_ms = 600000 VALUES (4);"
        )
        out = subprocess.run([BINARY, "local", "--path", path, "--query", script], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert out.returncode == 0, out.stderr
        assert out.stdout == "0\n2\n3\n"
        out = subprocess.run([BINARY, "local", "--path", path, "--query", "SELECT groupArray(k) FROM (SELECT k FROM t ORDER BY k)"], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert out.returncode == 0, out.stderr
        assert out.stdout == "[1,2,3,4]\n"


def test_kill_9_loses_no_acknowledged_async_insert():
    """wait_for_async_insert = 1: an INSERT is acknowledged only once its batch is durable,
    so SIGKILL at any moment loses no acknowledged row and duplicates none."""
    acked, sent = set(), set()
    with tempfile.TemporaryDirectory(prefix="granary-async-crash-") as tmp:
        s = Server(os.path.join(tmp, "data")).start()
        s.query("CREATE TABLE t (w UInt32, seq UInt64) ENGINE = MergeTree ORDER BY (w, seq)")
        settings = {"async_insert": 1, "async_insert_busy_timeout_ms": 20}
        next_seq = [0] * 8
        for round_no in range(4):
            stop = threading.Event()
            lock = threading.Lock()

            def writer(w):
                while not stop.is_set():
                    with lock:
                        batch = [(w, next_seq[w] + i) for i in range(5)]
                        next_seq[w] += 5
                        sent.update(batch)
                    body = "".join(f"{a}\t{b}\n" for a, b in batch).encode()
                    try:
                        r = s.request(params={**settings, "query": "INSERT INTO t FORMAT TSV"}, data=body, timeout=10)
                    except OSError:
                        return
                    if r.status == 200:
                        with lock:
                            acked.update(batch)

            threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
            for t in threads:
                t.start()
            time.sleep(0.3 + 0.2 * round_no)
            s.process.send_signal(signal.SIGKILL)
            s.process.wait()
            stop.set()
            for t in threads:
                t.join()
            s.start()
            rows = [tuple(int(x) for x in line.split("\t")) for line in s.query("SELECT w, seq FROM t FORMAT TSV").splitlines()]
            assert len(rows) == len(set(rows)), "duplicated rows"
            assert acked <= set(rows), f"lost {len(acked - set(rows))} acknowledged rows"
            assert set(rows) <= sent
        assert len(acked) > 0
        s.stop()
