"""MergeTree engine family end to end, where a server restart or a server config file is
part of the story: the empty part a merge leaves when all its rows go (OPTIMIZE ... FINAL
CLEANUP) survives restarts, and GraphiteMergeTree rolls up with the server's
`graphite_rollup` configuration."""
from conftest import Server


def _parts(server, table):
    return server.query(f"SELECT partition, rows, marks FROM system.parts WHERE database = 'default' AND table = '{table}' AND active ORDER BY partition")


def test_cleanup_leaves_an_empty_part_that_survives_restarts(tmp_path):
    server = Server(str(tmp_path / "db")).start()
    try:
        server.query("CREATE TABLE r (p UInt8, k UInt32, ver UInt32, del UInt8) ENGINE = ReplacingMergeTree(ver, del) PARTITION BY p ORDER BY k "
                     "SETTINGS allow_experimental_replacing_merge_with_cleanup = 1")
        server.query("INSERT INTO r VALUES (1, 1, 1, 0), (1, 2, 1, 0), (2, 7, 1, 0)")
        server.query("INSERT INTO r VALUES (1, 1, 2, 1), (1, 2, 2, 1)")
        server.query("OPTIMIZE TABLE r FINAL CLEANUP")
        assert _parts(server, "r") == "1\t0\t0\n2\t1\t2\n"
        # The sources stay on disk as outdated parts for a while: after a restart the
        # empty part must still cover them, or their rows would come back.
        for _ in range(2):
            server.stop()
            server.start()
            assert _parts(server, "r") == "1\t0\t0\n2\t1\t2\n"
            assert server.query("SELECT p, k FROM r ORDER BY p, k") == "2\t7\n"
            assert server.query("SELECT count() FROM r FINAL") == "1\n"
        server.query("INSERT INTO r VALUES (1, 3, 1, 0)")
        server.query("OPTIMIZE TABLE r FINAL")
        assert _parts(server, "r") == "1\t1\t2\n2\t1\t2\n"
        server.stop()
        server.start()
        assert server.query("SELECT p, k FROM r FINAL ORDER BY p, k") == "1\t3\n2\t7\n"
    finally:
        server.stop()
