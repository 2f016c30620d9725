"""Mutations (ALTER TABLE ... DELETE/UPDATE) across server kills: each is written to
`mutation_N.txt` before the ALTER returns, reloaded at start and finished in the
background; a kill -9 at any moment leaves every part readable, loses no row and applies
a mutation to a row at most once. KILL MUTATION stops a failing one for good."""
import os
import random
import signal
import time

from conftest import Server


def _poll(read, wanted, seconds):
    """`read()` once it gives `wanted`, or when `seconds` have passed."""
    deadline = time.time() + seconds
    while (got := read()) != wanted and time.time() < deadline:
        time.sleep(0.05)
    return got


def _table_dir(server, table):
    return server.query(f"SELECT data_paths[1] FROM system.tables WHERE database = 'default' AND name = '{table}'").strip()


def _active_parts(server, table):
    return server.query(f"SELECT name FROM system.parts WHERE database = 'default' AND table = '{table}' AND active ORDER BY name").split()


def test_mutation_is_persisted_and_finished_after_sigkill(tmp_path):
    server = Server(str(tmp_path / "db")).start()
    try:
        server.query("CREATE TABLE m (k UInt32, v UInt64) ENGINE = MergeTree ORDER BY k")
        server.query("SYSTEM STOP MERGES m")
        for i in range(3):
            server.query(f"INSERT INTO m SELECT number, number FROM numbers({i * 1000}, 1000)")
        # Merges (and so background mutations) are stopped: this one waits.
        server.query("ALTER TABLE m DELETE WHERE k % 3 = 0")
        status = "SELECT mutation_id, command, parts_to_do, is_done FROM system.mutations WHERE database = 'default' AND table = 'm'"
        assert server.query(status) == "mutation_4.txt\t(DELETE WHERE k % 3 = 0)\t3\t0\n"
        path = _table_dir(server, "m")
        text = open(os.path.join(path, "mutation_4.txt")).read()
        assert text.startswith("format version: 1\ncreate time: ") and text.endswith("\ncommands: (DELETE WHERE k % 3 = 0)\n"), text
        server.stop(signal.SIGKILL)
        # Restarted: the mutation is there and runs in the background.
        server.start()
        assert _poll(lambda: server.query(status), "mutation_4.txt\t(DELETE WHERE k % 3 = 0)\t0\t1\n", 30) == "mutation_4.txt\t(DELETE WHERE k % 3 = 0)\t0\t1\n"
        expected = [k for k in range(3000) if k % 3]
        assert server.query("SELECT count(), sum(k), sum(v) FROM m") == f"{len(expected)}\t{sum(expected)}\t{sum(expected)}\n"
        assert _active_parts(server, "m") == ["all_1_1_0_4", "all_2_2_0_4", "all_3_3_0_4"]
        # Done before the kill: still done, nothing applied twice.
        server.query("ALTER TABLE m UPDATE v = v + 1 WHERE 1 SETTINGS mutations_sync = 1")
        server.stop(signal.SIGKILL)
        server.start()
        assert server.query("SELECT mutation_id, is_done FROM system.mutations WHERE table = 'm' ORDER BY mutation_id") == "mutation_4.txt\t1\nmutation_5.txt\t1\n"
        assert server.query("SELECT count(), sum(v) FROM m") == f"{len(expected)}\t{sum(expected) + len(expected)}\n"
        assert _active_parts(server, "m") == ["all_1_1_0_5", "all_2_2_0_5", "all_3_3_0_5"]
        # The next insert's block comes after the mutations, also after a restart.
        server.query("INSERT INTO m VALUES (5000, 5000)")
        assert _active_parts(server, "m")[-1] == "all_6_6_0"
        assert server.query("CHECK TABLE m SETTINGS check_query_single_value_result = 1") == "1\n"
    finally:
        server.stop()


def test_sigkill_at_random_moments_of_mutations_applies_each_once(tmp_path):
    """UPDATE v = v + 1 over every row, killed at random moments, restarted each time:
    once all mutations are done, every row has been incremented exactly once per
    acknowledged mutation, and every row is there once."""
    rng = random.Random(3)
    server = Server(str(tmp_path / "db")).start()
    rows = 0
    try:
        server.query("CREATE TABLE c (k UInt64, v UInt64) ENGINE = MergeTree ORDER BY k SETTINGS old_parts_lifetime = 0")
        for i in range(4):
            server.query(f"INSERT INTO c SELECT number, 0 FROM numbers({rows}, 20000)")
            rows += 20000
        mutations = 0
        for round_ in range(8):
            server.query("ALTER TABLE c UPDATE v = v + 1 WHERE 1")
            mutations += 1
            server.query(f"INSERT INTO c SELECT number, {mutations} FROM numbers({rows}, 5000)")
            rows += 5000
            time.sleep(rng.uniform(0, 0.4))
            server.stop(signal.SIGKILL)
            server.start()
            got = server.query("SELECT count(), uniqExact(k) FROM c")
            assert got == f"{rows}\t{rows}\n", f"round {round_}: {got}"
        done = "SELECT countIf(NOT is_done) FROM system.mutations WHERE table = 'c'"
        assert _poll(lambda: server.query(done), "0\n", 60) == "0\n"
        # Row k was inserted before (or, for the late inserts, with their value standing
        # for) the mutations after it: every row ends at `mutations`.
        assert server.query("SELECT count(), min(v), max(v) FROM c") == f"{rows}\t{mutations}\t{mutations}\n"
        assert server.query("SELECT count() FROM system.mutations WHERE table = 'c'") == f"{mutations}\n"
        assert server.query("CHECK TABLE c SETTINGS check_query_single_value_result = 1") == "1\n"
    finally:
        server.stop()


def test_kill_mutation_stops_a_failing_background_mutation(tmp_path):
    """A mutation failing in the background is retried (and blocks the ones behind it,
    as in ClickHouse) across restarts, until KILL MUTATION removes it; then the next
    one runs."""
    server = Server(str(tmp_path / "db")).start()
    try:
        server.query("CREATE TABLE f (k UInt32, v UInt32) ENGINE = MergeTree ORDER BY k")
        server.query("INSERT INTO f SELECT number, number FROM numbers(100)")
        server.query("ALTER TABLE f UPDATE v = throwIf(k = 5) WHERE 1")
        server.query("ALTER TABLE f DELETE WHERE k >= 90")
        failed = "SELECT count() FROM system.mutations WHERE table = 'f' AND latest_fail_reason != ''"
        assert _poll(lambda: server.query(failed), "2\n", 30) == "2\n"
        status = "SELECT mutation_id, is_done, parts_to_do_names, latest_failed_part, latest_fail_error_code_name FROM system.mutations WHERE table = 'f' ORDER BY mutation_id"
        assert server.query(status) == (
            "mutation_2.txt\t0\t['all_1_1_0']\tall_1_1_0\tFUNCTION_THROW_IF_VALUE_IS_NON_ZERO\n"
            "mutation_3.txt\t0\t['all_1_1_0']\tall_1_1_0\tFUNCTION_THROW_IF_VALUE_IS_NON_ZERO\n"
        )
        # Waiting on it fails with ClickHouse's UNFINISHED.
        response = server.request("ALTER TABLE f DELETE WHERE k = 0 SETTINGS mutations_sync = 1")
        assert response.headers.get("X-ClickHouse-Exception-Code") == "341"
        assert b"mutation_2.txt" in response.body
        server.stop(signal.SIGKILL)
        server.start()
        assert _poll(lambda: server.query(failed), "3\n", 30) == "3\n"
        path = _table_dir(server, "f")
        assert os.path.exists(os.path.join(path, "mutation_2.txt"))
        assert server.query("KILL MUTATION WHERE table = 'f' AND mutation_id = 'mutation_2.txt'") == "waiting\tdefault\tf\tmutation_2.txt\t(UPDATE v = throwIf(k = 5) WHERE 1)\n"
        assert not os.path.exists(os.path.join(path, "mutation_2.txt"))
        # The mutations behind it go through now (in the background).
        done = "SELECT groupArray(mutation_id) FROM system.mutations WHERE table = 'f' AND is_done"
        assert _poll(lambda: server.query(done), "['mutation_3.txt','mutation_4.txt']\n", 30) == "['mutation_3.txt','mutation_4.txt']\n"
        assert server.query("SELECT count(), sum(v) FROM f") == f"89\t{sum(range(1, 90))}\n"
        server.stop(signal.SIGKILL)
        server.start()
        assert server.query("SELECT mutation_id FROM system.mutations WHERE table = 'f' ORDER BY mutation_id") == "mutation_3.txt\nmutation_4.txt\n"
        assert server.query("SELECT count(), sum(v) FROM f") == f"89\t{sum(range(1, 90))}\n"
        assert _active_parts(server, "f") == ["all_1_1_0_4"]
    finally:
        server.stop()
