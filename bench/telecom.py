"""Seed 003's telecom workload at scale: Granary vs chdb, same data, one run.

    python3 bench/telecom.py [--rows 50000000] [--repeat 3] [--granary target/release/granary]

The schema, rollups, dictionaries and queries are the differential suite's
(tests/differential_mergetree/telecom/: the seed's raw IPDR session table, its two
AggregatingMergeTree rollups filled with uniqState/sumState, nested dictGetString, and
the seed's report queries with now() fixed at 2024-05-20 12:00:00 UTC), with the raw
table grown from 200,000 to `--rows` generated sessions over the same two days. Both
engines load the same rows with the same statements (merges stopped, as the suite does,
so both answer from the same parts), then run every report query `--repeat` times;
the table gives the best time of each, the ratio (Granary / chdb: below 1 is faster) and
whether the outputs are identical. Granary runs as a server and is queried over HTTP on
loopback; chdb runs in process. Needs `pip install chdb`.
"""
import argparse
import hashlib
import http.client
import os
import re
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import granary_server  # noqa: E402
from sqlfile import parse_sql_file  # noqa: E402

SUITE = Path(__file__).resolve().parent.parent / "tests" / "differential_mergetree" / "telecom"
SUITE_ROWS = 200_000
# The suite's sessions start every 864,000 us over two days.
SPAN_US = SUITE_ROWS * 864_000


def setup_statements(rows):
    spacing = SPAN_US // rows
    half = rows // 2
    text = (SUITE / "setup.sql").read_text()
    text = text.replace("number * 864000", f"number * {spacing}")
    text = text.replace("FROM numbers(200000) WHERE number < 100000", f"FROM numbers({rows}) WHERE number < {half}")
    text = text.replace("FROM numbers(200000) WHERE number >= 100000", f"FROM numbers({rows}) WHERE number >= {half}")
    return [s.sql for s in parse_sql_file(text)]


def report_queries():
    """The report queries: everything but the catalog checks on system tables."""
    return [s.sql for s in parse_sql_file((SUITE / "queries.sql").read_text()) if "system." not in s.sql]


class Granary:
    def __init__(self, binary, path):
        self.proc, self.port = granary_server.start(binary, path)
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=3600)

    def query(self, sql):
        self.conn.request("POST", "/?" + urllib.parse.urlencode({"database": "default"}), body=sql.encode())
        response = self.conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"{sql[:100]}: {body.decode()[:300]}")
        return body

    def stop(self):
        self.proc.terminate()
        self.proc.wait(60)


def timed(run, sql, repeat):
    """(best seconds, output of the last run)."""
    best, out = None, b""
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = run(sql)
        elapsed = time.perf_counter() - t0
        best = elapsed if best is None else min(best, elapsed)
    return best, out


def load(run, statements):
    t0 = time.perf_counter()
    for sql in statements:
        run(sql)
    return time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=50_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--granary", default=os.environ.get("GRANARY_BIN", "target/release/granary"))
    args = parser.parse_args()
    os.environ["TZ"] = "UTC"
    time.tzset()
    setup = setup_statements(args.rows)
    queries = report_queries()
    results = [{} for _ in queries]

    with tempfile.TemporaryDirectory() as tmp:
        server = Granary(args.granary, os.path.join(tmp, "granary"))
        try:
            granary_load = load(server.query, setup)
            print(f"granary: setup with {args.rows} raw rows in {granary_load:.1f} s", flush=True)
            for i, sql in enumerate(queries):
                results[i]["granary"] = timed(server.query, sql, args.repeat)
        finally:
            server.stop()

        from chdb import session
        sess = session.Session(os.path.join(tmp, "chdb"))
        run = lambda sql: sess.query(sql, "TabSeparated").bytes()  # noqa: E731
        chdb_load = load(run, setup)
        print(f"chdb: setup with {args.rows} raw rows in {chdb_load:.1f} s", flush=True)
        for i, sql in enumerate(queries):
            results[i]["chdb"] = timed(run, sql, args.repeat)
        sess.close()

    print()
    print(f"raw rows: {args.rows}; best of {args.repeat}, seconds (lower is better)")
    print("| # | query | Granary s | chdb s | Granary/chdb | same output |")
    print("|---|---|---|---|---|---|")
    print(f"| - | setup (load raw table, fill rollups) | {granary_load:.2f} | {chdb_load:.2f} | {granary_load / chdb_load:.2f} | - |")
    for i, (sql, r) in enumerate(zip(queries, results), 1):
        (g, g_out), (c, c_out) = r["granary"], r["chdb"]
        same = hashlib.sha1(g_out).digest() == hashlib.sha1(c_out).digest()
        shown = re.sub(r"\s+", " ", sql)[:70].replace("|", "\\|")
        print(f"| {i} | `{shown}` | {g:.3f} | {c:.3f} | {g / c:.2f} | {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    sys.exit(main())
