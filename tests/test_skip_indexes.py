"""Data-skipping indexes with a restart and merges: the index files of parts are found
again at start, merged parts have them, read_rows (X-ClickHouse-Summary) drops by what
each index skips, and EXPLAIN indexes = 1 lists them."""

import json
import os
import tempfile

from conftest import Server


def read_rows(s, sql):
    r = s.request(sql)
    assert r.status == 200, r.body
    return r.body.decode(), int(json.loads(r.headers["X-ClickHouse-Summary"])["read_rows"])


QUERIES = [
    ("SELECT count(), sum(a) FROM a.t WHERE a BETWEEN 1000 AND 1099", 100),
    ("SELECT count(), sum(a) FROM a.t WHERE b = 7", 1000),
    ("SELECT count(), sum(a) FROM a.t WHERE s = 'w4321 x'", None),
    ("SELECT count(), sum(a) FROM a.t WHERE hasToken(s, 'w4321')", None),
    ("SELECT count(), sum(a) FROM a.t WHERE s LIKE '%4321 x%'", None),
]


def check_reads(s):
    for sql, expected in QUERIES:
        result, rows = read_rows(s, sql)
        plain, all_rows = read_rows(s, sql + " SETTINGS use_skip_indexes = 0")
        assert result == plain, sql
        assert all_rows == 10000, sql
        if expected is not None:
            assert rows == expected, (sql, rows)
        else:
            # Bloom filters: the one matching granule and few false positives.
            assert 100 <= rows <= 500, (sql, rows)


def test_skip_indexes_survive_restart_and_merge():
    with tempfile.TemporaryDirectory(prefix="granary-skipidx-") as tmp:
        path = os.path.join(tmp, "data")
        s = Server(path).start()
        try:
            s.query("CREATE DATABASE a")
            s.query(
                "CREATE TABLE a.t (a UInt64, b UInt32, s String, "
                "INDEX ia a TYPE minmax GRANULARITY 1, INDEX ib b TYPE set(4) GRANULARITY 2, "
                "INDEX is s TYPE bloom_filter GRANULARITY 1, INDEX it s TYPE tokenbf_v1(512, 3, 0) GRANULARITY 1, "
                "INDEX ing s TYPE ngrambf_v1(3, 1024, 2, 0) GRANULARITY 1) "
                "ENGINE = MergeTree ORDER BY tuple() SETTINGS index_granularity = 100"
            )
            s.query("SYSTEM STOP MERGES a.t")
            for start in range(0, 10000, 2000):
                s.query(f"INSERT INTO a.t SELECT number, intDiv(number, 1000), concat('w', toString(number), ' x') FROM numbers({start}, 2000)")
            check_reads(s)
            explain = s.query("EXPLAIN indexes = 1 SELECT count() FROM a.t WHERE a BETWEEN 1000 AND 1099")
            assert "Skip\n      Name: ia\n      Description: minmax GRANULARITY 1\n      Parts: 1/5\n      Granules: 1/100" in explain, explain
            sizes = s.query("SELECT name, data_compressed_bytes > 0 FROM system.data_skipping_indices WHERE database = 'a' AND table = 't' ORDER BY name")
            assert sizes == "ia\t1\nib\t1\ning\t1\nis\t1\nit\t1\n", sizes
        finally:
            s.stop()
        s = Server(path).start()
        try:
            check_reads(s)
            s.query("SYSTEM START MERGES a.t")
            s.query("OPTIMIZE TABLE a.t FINAL")
            assert s.query("SELECT count() FROM system.parts WHERE database = 'a' AND table = 't' AND active") == "1\n"
            check_reads(s)
        finally:
            s.stop()
        s = Server(path).start()
        try:
            check_reads(s)
            # DROP INDEX removes the parts' files; a part without them is read whole.
            s.query("ALTER TABLE a.t DROP INDEX ia SETTINGS mutations_sync = 2")
            part = s.query("SELECT path FROM system.parts WHERE database = 'a' AND table = 't' AND active").strip()
            assert not os.path.exists(os.path.join(part, "skp_idx_ia.idx"))
            assert os.path.exists(os.path.join(part, "skp_idx_it.idx"))
            _, rows = read_rows(s, "SELECT count() FROM a.t WHERE a BETWEEN 1000 AND 1099")
            assert rows == 10000
        finally:
            s.stop()
