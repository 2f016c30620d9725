"""Key-value lookups (seed 002, Altinity's "ClickHouse in the Storm, part 2"), side by side.

    python3 bench/kv_lookup.py [--rows 2000000] [--seconds 3] [--granary target/release/granary]

Loads the seed's `int20M` table (id UInt64, value Float64; MergeTree, index_granularity
256) with the same generated rows into Granary (a server on a free port), chdb (in
process) and DuckDB (in process, primary-key ART index), then measures, in one run:

* single-key lookups `WHERE id = X` and 100-key `WHERE id IN (...)` (1:3 hit/miss),
  with WHERE and PREWHERE, as median latency per query on one connection;
* the same through a dictionary (`dictGetFloat64`) and a Join table (`joinGet`);
* Granary over HTTP at 16 concurrent keep-alive connections (QPS);
* Granary in process (`granary benchmark --path` on the same data directory, after the
  server stopped): the issue's in-process targets (single key under 0.1 ms, 100 keys
  under 0.5 ms) and the like-for-like comparison with chdb and DuckDB.

Granary is measured over HTTP (Python http.client on loopback adds about 40-60 us per
query); chdb and DuckDB in process. The ratio columns are Granary's median over the
other engine's: below 1 is faster. Needs `pip install chdb duckdb`.
"""
import argparse
import http.client
import json
import subprocess
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse

import granary_server


class Granary:
    def __init__(self, binary, path):
        self.proc, self.port = granary_server.start(binary, path)
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)

    def query(self, sql, conn=None):
        conn = conn or self.conn
        conn.request("POST", "/", body=sql.encode())
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"{sql[:80]}: {body.decode()[:300]}")
        return body

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)


def median_latency(run, queries, seconds):
    """Median seconds per query, cycling through `queries` for about `seconds`."""
    times = []
    start = time.perf_counter()
    i = 0
    while time.perf_counter() - start < seconds or len(times) < 20:
        q = queries[i % len(queries)]
        t0 = time.perf_counter()
        run(q)
        times.append(time.perf_counter() - t0)
        i += 1
    return statistics.median(times)


def granary_in_process(binary, path, queries, seconds):
    """Median seconds per query of `granary benchmark` run in process on `path`."""
    with tempfile.NamedTemporaryFile("r", suffix=".json") as report:
        subprocess.run([binary, "benchmark", "--path", path, "-c", "1", "-t", str(seconds), "-d", "0", "--json", report.name],
                       input="\n".join(queries).encode(), check=True, capture_output=True)
        (body,) = json.load(open(report.name)).values()
        return body["query_time_percentiles"]["50"]


def granary_qps(server, queries, seconds, connections=16):
    count = [0] * connections
    stop = time.perf_counter() + seconds

    def worker(n):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        i = n
        while time.perf_counter() < stop:
            server.query(queries[i % len(queries)], conn)
            count[n] += 1
            i += connections

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(connections)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(count) / (time.perf_counter() - t0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--granary", default=os.environ.get("GRANARY_BIN", "target/release/granary"))
    args = parser.parse_args()
    n = args.rows

    # Keys: every third id exists (id = 3k); lookups mix hits and misses 1:3.
    rng = random.Random(42)
    hits = [3 * rng.randrange(n) for _ in range(1000)]
    misses = [3 * rng.randrange(n) + 1 for _ in range(3000)]
    single = [f"{k}" for k in hits[:250] + misses[:750]]
    rng.shuffle(single)
    batches = []
    for b in range(40):
        keys = hits[b * 25:(b + 1) * 25] + misses[b * 75:(b + 1) * 75]
        batches.append(",".join(map(str, keys)))

    create = ("CREATE TABLE int20M (id UInt64, value Float64) ENGINE = MergeTree "
              "PARTITION BY tuple() ORDER BY id SETTINGS index_granularity = 256")
    fill = f"INSERT INTO int20M SELECT number * 3, number / 7 FROM numbers({n})"
    workloads = [
        ("id = X (WHERE)", [f"SELECT * FROM int20M WHERE id = {k}" for k in single]),
        ("id = X (PREWHERE)", [f"SELECT * FROM int20M PREWHERE id = {k}" for k in single]),
        ("id IN (100) (WHERE)", [f"SELECT * FROM int20M WHERE id IN ({b})" for b in batches]),
        ("id IN (100) (PREWHERE)", [f"SELECT * FROM int20M PREWHERE id IN ({b})" for b in batches]),
        # chdb ships uncompressed_cache_size = 0, so the setting changes nothing there.
        ("id = X (use_uncompressed_cache)", [f"SELECT * FROM int20M WHERE id = {k} SETTINGS use_uncompressed_cache = 1" for k in single]),
        ("id IN (100) (use_uncompressed_cache)", [f"SELECT * FROM int20M WHERE id IN ({b}) SETTINGS use_uncompressed_cache = 1" for b in batches]),
        ("dictGetFloat64", [f"SELECT dictGetFloat64('dict20M', 'value', toUInt64({k}))" for k in single]),
        ("joinGet", [f"SELECT joinGet('join20M', 'value', toUInt64({k}))" for k in single]),
    ]
    results = {}

    with tempfile.TemporaryDirectory() as tmp:
        # ---- Granary
        server = Granary(args.granary, os.path.join(tmp, "granary"))
        try:
            t0 = time.perf_counter()
            server.query(create)
            server.query(fill)
            server.query("OPTIMIZE TABLE int20M FINAL")
            load = time.perf_counter() - t0
            server.query("CREATE DICTIONARY dict20M (id UInt64, value Float64) PRIMARY KEY id "
                         "SOURCE(CLICKHOUSE(TABLE 'int20M')) LAYOUT(HASHED()) LIFETIME(0)")
            server.query("CREATE TABLE join20M (id UInt64, value Float64) ENGINE = Join(ANY, LEFT, id)")
            server.query("INSERT INTO join20M SELECT * FROM int20M")
            print(f"granary: loaded {n} rows in {load:.1f} s")
            for name, queries in workloads:
                server.query(queries[0])  # warm: loads the dictionary
                results.setdefault(name, {})["granary"] = median_latency(server.query, queries, args.seconds)
            for name, queries in workloads[:1] + workloads[2:3] + workloads[4:7]:
                results[name]["granary_qps16"] = granary_qps(server, queries, args.seconds)
            results["SELECT 1"] = {"granary": median_latency(server.query, ["SELECT 1"], args.seconds),
                                   "granary_qps16": granary_qps(server, ["SELECT 1"], args.seconds)}
        finally:
            server.stop()
        for name, queries in workloads:
            results[name]["granary_local"] = granary_in_process(args.granary, os.path.join(tmp, "granary"), queries, args.seconds)
        results["SELECT 1"]["granary_local"] = granary_in_process(args.granary, os.path.join(tmp, "granary"), ["SELECT 1"], args.seconds)

        # ---- chdb
        try:
            from chdb import session
            sess = session.Session(os.path.join(tmp, "chdb"))
            t0 = time.perf_counter()
            sess.query(create)
            sess.query(fill)
            sess.query("OPTIMIZE TABLE int20M FINAL")
            print(f"chdb: loaded {n} rows in {time.perf_counter() - t0:.1f} s")
            sess.query("CREATE DICTIONARY dict20M (id UInt64, value Float64) PRIMARY KEY id "
                       "SOURCE(CLICKHOUSE(TABLE 'int20M')) LAYOUT(HASHED()) LIFETIME(0)")
            sess.query("CREATE TABLE join20M (id UInt64, value Float64) ENGINE = Join(ANY, LEFT, id)")
            sess.query("INSERT INTO join20M SELECT * FROM int20M")
            run = lambda q: sess.query(q, "TabSeparated")  # noqa: E731
            for name, queries in workloads:
                run(queries[0])
                results[name]["chdb"] = median_latency(run, queries, args.seconds)
            results["SELECT 1"]["chdb"] = median_latency(run, ["SELECT 1"], args.seconds)
            sess.close()
        except ImportError:
            print("chdb not installed: pip install chdb")

        # ---- DuckDB
        try:
            import duckdb
            con = duckdb.connect(os.path.join(tmp, "duck.db"))
            t0 = time.perf_counter()
            con.execute("CREATE TABLE int20M (id UBIGINT PRIMARY KEY, value DOUBLE)")
            con.execute(f"INSERT INTO int20M SELECT range * 3, range / 7 FROM range({n})")
            print(f"duckdb: loaded {n} rows in {time.perf_counter() - t0:.1f} s")
            run = lambda q: con.execute(q.replace(" PREWHERE ", " WHERE ")).fetchall()  # noqa: E731
            for name, queries in workloads[:6]:
                queries = [q.split(" SETTINGS ")[0] for q in queries]
                run(queries[0])
                results[name]["duckdb"] = median_latency(run, queries, args.seconds)
            results["SELECT 1"]["duckdb"] = median_latency(run, ["SELECT 1"], args.seconds)
        except ImportError:
            print("duckdb not installed: pip install duckdb")

    print()
    print(f"rows: {n}; median latency per query in microseconds (lower is better)")
    print("| workload | Granary (HTTP) | Granary (in-process) | chdb (in-process) | DuckDB (in-process) | Granary in-process/chdb | Granary in-process/DuckDB | Granary QPS, 16 conns |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        g, local, c, d = r.get("granary"), r.get("granary_local"), r.get("chdb"), r.get("duckdb")
        fmt = lambda x: f"{x * 1e6:.0f}" if x else "-"  # noqa: E731
        ratio = lambda a, b: f"{a / b:.2f}" if a and b else "-"  # noqa: E731
        qps = f"{r['granary_qps16']:.0f}" if "granary_qps16" in r else "-"
        print(f"| {name} | {fmt(g)} | {fmt(local)} | {fmt(c)} | {fmt(d)} | {ratio(local, c)} | {ratio(local, d)} | {qps} |")


if __name__ == "__main__":
    sys.exit(main())
