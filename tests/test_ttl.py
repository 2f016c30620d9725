"""MergeTree TTL with a restart and with background merges: the rules (table and column
TTL, changed by ALTER) are durable, parts keep their TTL ranges (`ttl.txt`) across a
restart, and the background merge task removes expired rows without OPTIMIZE."""

import contextlib
import os
import tempfile
import time

from conftest import Server


def poll(s, sql, expected, timeout=90):
    """Runs `sql` until it returns `expected` or `timeout` seconds pass; returns the last answer."""
    deadline = time.monotonic() + timeout
    while True:
        got = s.query(sql)
        if got == expected or time.monotonic() > deadline:
            return got
        time.sleep(0.5)


@contextlib.contextmanager
def server_with_database(prefix):
    """A fresh server with database `a`, stopped at the end."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        s = Server(os.path.join(tmp, "data")).start()
        try:
            s.query("CREATE DATABASE a")
            yield s
        finally:
            s.stop()


def test_ttl_survives_restart():
    with tempfile.TemporaryDirectory(prefix="granary-ttl-") as tmp:
        path = os.path.join(tmp, "data")
        s = Server(path).start()
        try:
            s.query("CREATE DATABASE a")
            s.query(
                "CREATE TABLE a.t (d Date, k UInt32, v String DEFAULT 'gone' TTL d + INTERVAL 1 DAY) "
                "ENGINE = MergeTree ORDER BY k TTL d + INTERVAL 1 MONTH WHERE k > 100"
            )
            s.query("ALTER TABLE a.t MODIFY TTL d + INTERVAL 1 YEAR WHERE k > 10, d + INTERVAL 30 YEAR")
            assert s.request("ALTER TABLE a.t MODIFY COLUMN k TTL d + INTERVAL 1 DAY").status != 200
            s.query("SYSTEM STOP MERGES a.t")
            s.query("INSERT INTO a.t VALUES ('2050-01-01', 1, 'a'), ('2050-01-01', 20, 'b')")
            create = s.query("SHOW CREATE TABLE a.t")
            parts = s.query("SELECT rows, delete_ttl_info_min, delete_ttl_info_max FROM system.parts WHERE database = 'a' AND table = 't' AND active")
        finally:
            s.stop()
        assert "TTL d + toIntervalYear(1) WHERE k > 10, d + toIntervalYear(30)" in create
        assert "`v` String DEFAULT \\'gone\\' TTL d + toIntervalDay(1)" in create
        assert parts == "2\t2080-01-01 00:00:00\t2080-01-01 00:00:00\n"
        s = Server(path).start()
        try:
            assert s.query("SHOW CREATE TABLE a.t") == create
            assert s.query("SELECT rows, delete_ttl_info_min, delete_ttl_info_max FROM system.parts WHERE database = 'a' AND table = 't' AND active") == parts
            # The reloaded rules apply: rows inserted after the restart expire by them
            # (k = 50 by the WHERE rule, k = 7 by the other, k = 5's value by its column's).
            s.query("INSERT INTO a.t VALUES ('2000-06-01', 5, 'c'), ('2000-06-01', 50, 'd'), ('1990-01-01', 7, 'e')")
            s.query("OPTIMIZE TABLE a.t FINAL")
            assert s.query("SELECT d, k, v FROM a.t ORDER BY k") == "2050-01-01\t1\ta\n2000-06-01\t5\tgone\n2050-01-01\t20\tb\n"
            s.query("ALTER TABLE a.t REMOVE TTL")
            s.query("ALTER TABLE a.t MODIFY COLUMN v REMOVE TTL")
        finally:
            s.stop()
        s = Server(path).start()
        try:
            assert "TTL" not in s.query("SHOW CREATE TABLE a.t")
            s.query("INSERT INTO a.t VALUES ('1990-01-01', 8, 'kept')")
            s.query("OPTIMIZE TABLE a.t FINAL")
            assert s.query("SELECT k, v FROM a.t WHERE k = 8") == "8\tkept\n"
        finally:
            s.stop()


def test_background_merge_removes_expired_rows():
    with server_with_database("granary-ttl-bg-") as s:
        s.query("CREATE TABLE a.t (d DateTime, k UInt32) ENGINE = MergeTree ORDER BY k PARTITION BY k % 2 TTL d + INTERVAL 1 SECOND")
        # Already expired at INSERT (kept until a merge), expiring in a moment, never.
        s.query("INSERT INTO a.t VALUES ('2000-01-01 00:00:00', 1), ('2100-01-01 00:00:00', 3)")
        s.query("INSERT INTO a.t SELECT now() + 2, 2")
        s.query("INSERT INTO a.t VALUES ('2100-01-01 00:00:00', 4)")
        assert poll(s, "SELECT groupArray(k) FROM (SELECT k FROM a.t ORDER BY k)", "[3,4]\n") == "[3,4]\n"
        # No OPTIMIZE ran: the parts were merged by the background task.
        assert s.query("SELECT count() FROM system.part_log WHERE database = 'a' AND table = 't' AND event_type = 'MergeParts'") != "0\n"


def test_ttl_only_drop_parts_drops_whole_parts_in_the_background():
    with server_with_database("granary-ttl-drop-") as s:
        s.query("CREATE TABLE a.t (d Date, k UInt32) ENGINE = MergeTree ORDER BY k PARTITION BY k TTL d + INTERVAL 1 DAY SETTINGS ttl_only_drop_parts = 1")
        s.query("INSERT INTO a.t VALUES ('2000-01-01', 1), ('2000-01-01', 2), ('2100-01-01', 2)")
        assert poll(s, "SELECT groupArray(k) FROM (SELECT k FROM a.t ORDER BY k)", "[2,2]\n") == "[2,2]\n"
        # The part with a live row keeps its expired one: only whole parts go.
        time.sleep(6)
        assert s.query("SELECT count() FROM a.t") == "2\n"


def test_group_by_ttl_survives_restart():
    """A GROUP BY rule and the parts' `group_by` ranges are durable; the reloaded rule
    collapses rows inserted after the restart."""
    with tempfile.TemporaryDirectory(prefix="granary-ttl-group-") as tmp:
        path = os.path.join(tmp, "data")
        s = Server(path).start()
        try:
            s.query("CREATE TABLE g (d Date, k UInt32, n UInt32, v UInt64) ENGINE = MergeTree ORDER BY (k, n) TTL d + 1 GROUP BY k SET v = sum(v)")
            s.query("SYSTEM STOP MERGES g")
            s.query("INSERT INTO g VALUES ('2100-01-01', 1, 1, 1), ('2100-01-01', 2, 1, 5)")
            parts = s.query("SELECT rows, group_by_ttl_info.expression, group_by_ttl_info.min, group_by_ttl_info.max FROM system.parts WHERE table = 'g' AND active")
        finally:
            s.stop()
        assert parts == "2\t['d + 1']\t['2100-01-02 00:00:00']\t['2100-01-02 00:00:00']\n"
        s = Server(path).start()
        try:
            assert "TTL d + 1 GROUP BY k SET v = sum(v)" in s.query("SHOW CREATE TABLE g")
            assert s.query("SELECT rows, group_by_ttl_info.expression, group_by_ttl_info.min, group_by_ttl_info.max FROM system.parts WHERE table = 'g' AND active") == parts
            # The reloaded rule collapses expired rows inserted after the restart; the
            # unexpired row of the same key stays as it is.
            s.query("INSERT INTO g VALUES ('2000-01-01', 1, 2, 2), ('2000-01-01', 1, 3, 4)")
            s.query("OPTIMIZE TABLE g FINAL")
            assert s.query("SELECT k, n, v FROM g ORDER BY k, n") == "1\t1\t1\n1\t2\t6\n2\t1\t5\n"
        finally:
            s.stop()


def test_date_ttl_is_midnight_in_the_server_time_zone():
    """A Date TTL is the day's midnight in the server's zone (TZ), as ClickHouse's DateLUT."""
    with tempfile.TemporaryDirectory(prefix="granary-ttl-tz-") as tmp:
        s = Server(os.path.join(tmp, "data"), timezone="Asia/Tokyo").start()
        try:
            s.query("CREATE TABLE t (d Date, k UInt32) ENGINE = MergeTree ORDER BY k TTL d")
            s.query("SYSTEM STOP MERGES t")
            s.query("INSERT INTO t VALUES ('2100-01-01', 1)")
            got = s.query("SELECT toUnixTimestamp(delete_ttl_info_min) FROM system.parts WHERE table = 't' AND active")
        finally:
            s.stop()
        assert got == f"{4102444800 - 9 * 3600}\n"


def test_parts_emptied_by_ttl_are_removed_and_due_parts_merge_together():
    with server_with_database("granary-ttl-empty-") as s:
        s.query("CREATE TABLE a.e (d Date, k UInt32) ENGINE = MergeTree ORDER BY k TTL d + 1")
        s.query("SYSTEM STOP MERGES a.e")
        for k in (1, 2):
            s.query(f"INSERT INTO a.e VALUES ('2000-01-01', {k})")
        s.query("INSERT INTO a.e VALUES ('2100-01-01', 3)")
        s.query("SYSTEM START MERGES a.e")
        s.query("OPTIMIZE TABLE a.e FINAL")
        assert s.query("SELECT rows FROM system.parts WHERE database = 'a' AND table = 'e' AND active") == "1\n"
        # Every row expired: no part is left.
        s.query("CREATE TABLE a.f (d Date, k UInt32) ENGINE = MergeTree ORDER BY k TTL d + 1")
        s.query("INSERT INTO a.f VALUES ('2000-01-01', 1), ('2000-01-02', 2)")
        s.query("OPTIMIZE TABLE a.f FINAL")
        assert s.query("SELECT count() FROM system.parts WHERE database = 'a' AND table = 'f' AND active") == "0\n"
        # The background TTL merge takes the due parts of a partition together, not one
        # at a time, and leaves the part that is not due.
        s.query("CREATE TABLE a.m (d Date, k UInt32) ENGINE = MergeTree ORDER BY k TTL d + 1")
        s.query("SYSTEM STOP MERGES a.m")
        for k in (1, 2, 3):
            s.query(f"INSERT INTO a.m VALUES ('2000-01-01', {k}), ('2100-01-01', {k + 10})")
        s.query("INSERT INTO a.m VALUES ('2100-01-01', 4)")
        s.query("SYSTEM START MERGES a.m")
        first = "SELECT length(merged_from) FROM system.part_log WHERE database = 'a' AND table = 'm' AND event_type = 'MergeParts' ORDER BY event_time_microseconds LIMIT 1"
        assert poll(s, first, "3\n") == "3\n"
        assert poll(s, "SELECT count() FROM a.m", "4\n") == "4\n"
