"""Crash safety of MergeTree: concurrent INSERTs and OPTIMIZEs, the server killed with
SIGKILL at random moments, restarted on the same data directory. After every restart
each acknowledged row must be present exactly once, no row that was never sent may
appear, and CHECK TABLE must pass.

Rows are `(writer, seq)` pairs, unique across the whole test, so "exactly once" is a
plain set comparison. INSERTs that were in flight when the server died may or may not
be visible (never partially, within one partition): only acknowledged ones are owed.
"""

import os
import random
import signal
import tempfile
import threading
import time

from conftest import Server

ROUNDS = 22
WRITERS = 3
SEED = int(os.environ.get("GRANARY_CRASH_SEED", "0")) or random.randrange(1 << 30)


def rows_of(server):
    text = server.query("SELECT writer, seq FROM crash.t FORMAT TSV")
    return [tuple(int(x) for x in line.split("\t")) for line in text.splitlines() if line]


def test_kill_9_during_inserts_and_merges_loses_nothing():
    kill_9_rounds(ROUNDS, "")


def test_kill_9_without_fsync_after_insert_loses_nothing():
    """`fsync_after_insert = 0, fsync_part_directory = 0` (ClickHouse's defaults) give up
    durability against power loss, not against the server being killed: the kernel keeps
    what was written, and a part is still renamed into place only once complete."""
    kill_9_rounds(8, ", fsync_after_insert = 0, fsync_part_directory = 0")


def kill_9_rounds(rounds, extra_settings):
    rng = random.Random(SEED)
    acked = set()
    sent = set()
    next_seq = [0] * WRITERS
    with tempfile.TemporaryDirectory(prefix="granary-crash-") as tmp:
        path = os.path.join(tmp, "data")
        s = Server(path).start()
        s.query("CREATE DATABASE crash")
        s.query(
            "CREATE TABLE crash.t (writer UInt32, seq UInt64, v String) ENGINE = MergeTree "
            "PARTITION BY seq % 3 ORDER BY (writer, seq) SETTINGS index_granularity = 64, old_parts_lifetime = 1" + extra_settings
        )
        for round_no in range(rounds):
            stop = threading.Event()
            lock = threading.Lock()

            def writer(w, seed):
                r = random.Random(seed)
                while not stop.is_set():
                    n = r.randint(1, 300)
                    with lock:
                        batch = [(w, next_seq[w] + i) for i in range(n)]
                        next_seq[w] += n
                        sent.update(batch)
                    body = "".join(f"({a},{b},'{'x' * (b % 17)}')," for a, b in batch)
                    try:
                        r_ = s.request(f"INSERT INTO crash.t VALUES {body}", timeout=10)
                    except OSError:
                        return  # the server died under us: this batch is not acknowledged
                    if r_.status == 200:
                        with lock:
                            acked.update(batch)

            def optimizer(seed):
                r = random.Random(seed)
                while not stop.is_set():
                    sql = "OPTIMIZE TABLE crash.t" + (" FINAL" if r.random() < 0.5 else "")
                    try:
                        s.request(sql, timeout=10)
                    except OSError:
                        return
                    time.sleep(r.random() * 0.05)

            threads = [threading.Thread(target=writer, args=(w, rng.random())) for w in range(WRITERS)]
            threads.append(threading.Thread(target=optimizer, args=(rng.random(),)))
            for t in threads:
                t.start()
            time.sleep(rng.uniform(0.05, 0.8))
            s.process.send_signal(signal.SIGKILL)
            s.process.wait()
            stop.set()
            for t in threads:
                t.join()

            s = Server(path).start()
            got = rows_of(s)
            seen = set(got)
            assert len(got) == len(seen), f"round {round_no} (seed {SEED}): duplicated rows after restart"
            missing = acked - seen
            assert not missing, f"round {round_no} (seed {SEED}): {len(missing)} acknowledged rows lost, e.g. {sorted(missing)[:5]}"
            assert seen <= sent, f"round {round_no} (seed {SEED}): rows that were never sent"
            check = s.query("CHECK TABLE crash.t FORMAT TSV")
            assert all(line.split("\t")[1] == "1" for line in check.splitlines()), check
        if extra_settings:
            shown = s.query("SELECT engine_full FROM system.tables WHERE database = 'crash' AND name = 't'")
            assert "fsync_after_insert = 0, fsync_part_directory = 0" in shown, shown
        # A graceful stop at the end, and one last look after it.
        assert s.stop() == 0
        s = Server(path).start()
        assert set(rows_of(s)) >= acked
        assert s.query("CHECK TABLE crash.t SETTINGS check_query_single_value_result = 1") == "1\n"
        assert s.stop() == 0
