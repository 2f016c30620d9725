"""Lightweight DELETE and cheap column ALTERs of MergeTree parts across restarts and kill -9:
a `DELETE FROM` writes only the `_row_exists` mask into a new part whose other files are
hard links to the old part's; ADD/DROP/RENAME COLUMN make wide parts by hard links too.
Old mutation files beyond `finished_mutations_to_keep` are removed."""
import os
import signal

from conftest import Server
from test_mutations import _active_parts, _poll, _table_dir


def _inode(path):
    return os.stat(path).st_ino


def _part_dir(server, table, part):
    return os.path.join(_table_dir(server, table), part)


def test_lightweight_delete_survives_sigkill_and_links_the_part(tmp_path):
    server = Server(str(tmp_path / "db")).start()
    try:
        server.query("CREATE TABLE m (k UInt32, v String) ENGINE = MergeTree ORDER BY k SETTINGS min_bytes_for_wide_part = 0, old_parts_lifetime = 3600")
        server.query("SYSTEM STOP MERGES m")
        for i in range(3):
            server.query(f"INSERT INTO m SELECT number, toString(number) FROM numbers({i * 1000}, 1000)")
        old_k = _inode(os.path.join(_part_dir(server, "m", "all_1_1_0"), "k.bin"))
        # Merges (and so background mutations) are stopped: the delete waits, and the
        # server is killed with it pending.
        server.query("DELETE FROM m WHERE k % 3 = 0 SETTINGS lightweight_deletes_sync = 0")
        status = "SELECT mutation_id, command, parts_to_do, is_done FROM system.mutations WHERE database = 'default' AND table = 'm'"
        assert server.query(status) == "mutation_4.txt\t(UPDATE _row_exists = 0 WHERE k % 3 = 0)\t3\t0\n"
        server.stop(signal.SIGKILL)
        server.start()
        done = "mutation_4.txt\t(UPDATE _row_exists = 0 WHERE k % 3 = 0)\t0\t1\n"
        assert _poll(lambda: server.query(status), done, 30) == done
        expected = [k for k in range(3000) if k % 3]
        assert server.query("SELECT count(), sum(k) FROM m") == f"{len(expected)}\t{sum(expected)}\n"
        assert _active_parts(server, "m") == ["all_1_1_0_4", "all_2_2_0_4", "all_3_3_0_4"]
        parts = "SELECT name, rows, has_lightweight_delete FROM system.parts WHERE database = 'default' AND table = 'm' AND active ORDER BY name"
        assert server.query(parts) == "all_1_1_0_4\t1000\t1\nall_2_2_0_4\t1000\t1\nall_3_3_0_4\t1000\t1\n"
        new_dir = _part_dir(server, "m", "all_1_1_0_4")
        # Only the mask was written: the column files are the old part's.
        assert _inode(os.path.join(new_dir, "k.bin")) == old_k
        assert os.path.exists(os.path.join(new_dir, "_row_exists.bin"))
        # Killed again: the masked parts load back as they were.
        server.stop(signal.SIGKILL)
        server.start()
        assert server.query("SELECT count(), sum(k) FROM m") == f"{len(expected)}\t{sum(expected)}\n"
        assert server.query("SELECT count() FROM m SETTINGS apply_deleted_mask = 0") == "3000\n"
        assert server.query("CHECK TABLE m SETTINGS check_query_single_value_result = 1") == "1\n"
        # A merge drops the masked rows and the mask.
        server.query("OPTIMIZE TABLE m FINAL")
        assert server.query(parts) == f"all_1_3_1_4\t{len(expected)}\t0\n"
        assert server.query("SELECT count(), sum(k) FROM m") == f"{len(expected)}\t{sum(expected)}\n"
    finally:
        server.stop()


def test_sigkill_during_lightweight_deletes_deletes_each_row_once(tmp_path):
    """Deletes of disjoint rows, each killed at once after it is acknowledged or sent:
    after the restart every acknowledged delete is applied, no other row is gone."""
    server = Server(str(tmp_path / "db")).start()
    try:
        server.query("CREATE TABLE c (k UInt64) ENGINE = MergeTree ORDER BY k SETTINGS min_bytes_for_wide_part = 0, old_parts_lifetime = 0")
        for i in range(4):
            server.query(f"INSERT INTO c SELECT number FROM numbers({i * 50000}, 50000)")
        deleted = set()
        for round_ in range(6):
            server.query(f"DELETE FROM c WHERE k % 10 = {round_} SETTINGS lightweight_deletes_sync = 0")
            deleted.add(round_)
            server.stop(signal.SIGKILL)
            server.start()
            wanted = f"{200000 - 20000 * len(deleted)}\n"
            assert _poll(lambda: server.query("SELECT count() FROM c"), wanted, 30) == wanted
        assert server.query("SELECT countIf(k % 10 < 6) FROM c") == "0\n"
        assert server.query("CHECK TABLE c SETTINGS check_query_single_value_result = 1") == "1\n"
    finally:
        server.stop()


def test_column_alters_hard_link_wide_parts_and_survive_sigkill(tmp_path):
    server = Server(str(tmp_path / "db")).start()
    try:
        server.query("CREATE TABLE a (k UInt32, s String, v UInt64) ENGINE = MergeTree ORDER BY k SETTINGS min_bytes_for_wide_part = 0, old_parts_lifetime = 3600")
        server.query("INSERT INTO a SELECT number, toString(number), number * 2 FROM numbers(1000)")
        old = _part_dir(server, "a", "all_1_1_0")
        inodes = {f: _inode(os.path.join(old, f)) for f in ("k.bin", "k.mrk", "s.bin", "v.bin", "primary.idx")}
        server.query("ALTER TABLE a ADD COLUMN w UInt64 DEFAULT k + 1")
        added = _part_dir(server, "a", "all_1_1_1")
        assert {f: _inode(os.path.join(added, f)) for f in inodes} == inodes
        assert os.path.exists(os.path.join(added, "w.bin"))
        server.query("ALTER TABLE a DROP COLUMN s")
        dropped = _part_dir(server, "a", "all_1_1_2")
        assert not os.path.exists(os.path.join(dropped, "s.bin"))
        assert _inode(os.path.join(dropped, "k.bin")) == inodes["k.bin"]
        server.query("ALTER TABLE a RENAME COLUMN v TO x")
        renamed = _part_dir(server, "a", "all_1_1_3")
        assert _inode(os.path.join(renamed, "x.bin")) == inodes["v.bin"]
        assert not os.path.exists(os.path.join(renamed, "v.bin"))
        expected = "1000\t499500\t999000\t500500\n"
        assert server.query("SELECT count(), sum(k), sum(x), sum(w) FROM a") == expected
        server.stop(signal.SIGKILL)
        server.start()
        assert server.query("SELECT count(), sum(k), sum(x), sum(w) FROM a") == expected
        assert server.query("CHECK TABLE a SETTINGS check_query_single_value_result = 1") == "1\n"
        # A lightweight delete, then ADD COLUMN over the masked part: the mask stays.
        server.query("DELETE FROM a WHERE k < 500")
        server.query("ALTER TABLE a ADD COLUMN y UInt8 DEFAULT 1")
        assert server.query("SELECT count(), sum(y), min(k) FROM a") == "500\t500\t500\n"
        server.stop(signal.SIGKILL)
        server.start()
        assert server.query("SELECT count(), sum(y), min(k) FROM a") == "500\t500\t500\n"
    finally:
        server.stop()


def test_finished_mutations_beyond_the_setting_are_removed(tmp_path):
    server = Server(str(tmp_path / "db")).start()
    try:
        server.query("CREATE TABLE f (k UInt32, v String) ENGINE = MergeTree ORDER BY k SETTINGS finished_mutations_to_keep = 2")
        server.query("INSERT INTO f SELECT number, toString(number) FROM numbers(10)")
        server.query("ALTER TABLE f DELETE WHERE k = 1 SETTINGS mutations_sync = 1")
        server.query("ALTER TABLE f DELETE WHERE k = 2 SETTINGS mutations_sync = 1")
        server.query("ALTER TABLE f UPDATE v = 'x' WHERE k = 3 SETTINGS mutations_sync = 1")
        server.query("DELETE FROM f WHERE k = 4")
        listed = "SELECT mutation_id, is_done FROM system.mutations WHERE database = 'default' AND table = 'f' ORDER BY mutation_id"
        assert server.query(listed) == "mutation_4.txt\t1\nmutation_5.txt\t1\n"
        files = sorted(n for n in os.listdir(_table_dir(server, "f")) if n.startswith("mutation_"))
        assert files == ["mutation_4.txt", "mutation_5.txt"]
        server.stop(signal.SIGKILL)
        server.start()
        assert server.query(listed) == "mutation_4.txt\t1\nmutation_5.txt\t1\n"
        assert server.query("SELECT k, v FROM f ORDER BY k LIMIT 3") == "0\t0\n3\tx\n5\t5\n"
    finally:
        server.stop()
