"""MergeTree load and scan (issue 3's benchmark), Granary side by side with chdb and DuckDB.

    python3 bench/mergetree.py [--rows 20000000] [--granary target/release/granary]

The same generated rows, `(id UInt64, value Float64, tag UInt32, payload String)`, are
loaded into Granary (a server on a free port, over HTTP), chdb (in process, a MergeTree
table) and DuckDB (in process: an in-memory table, and a table in a database file), then
each engine runs, in one run:

* the load itself: `INSERT INTO t SELECT ... FROM numbers(N)` (rows/s, and the server's
  peak resident memory for Granary);
* full-scan aggregations (`sum`, `avg` and a `GROUP BY` over all rows);
* a selective filter on a non-key column with WHERE and with PREWHERE;
* point lookups `WHERE id = X` and `WHERE id IN (100 ids)`;
* small INSERTs: `--small-inserts` INSERTs of 10 rows into a 30-column table, one part
  each (compact parts by default, as in ClickHouse; forced wide for comparison; and
  without fsync, `fsync_after_insert = 0, fsync_part_directory = 0`, ClickHouse's
  defaults, which chdb runs with), and the same INSERTs with `async_insert = 1` (queued
  and written together);

at `index_granularity` 8192 and 256. Times are medians of a few runs, in milliseconds;
ratio columns are Granary over the other engine (below 1: Granary is faster). Granary
pays an HTTP round trip on loopback (about 0.1 ms) that the in-process engines do not.
"""
import argparse
import http.client
import os
import random
import statistics
import sys
import tempfile
import threading
import time

import granary_server


class Granary:
    def __init__(self, binary, path):
        self.proc, self.port = granary_server.start(binary, path)
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=3600)

    def query(self, sql):
        self.conn.request("POST", "/", body=sql.encode())
        response = self.conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"{sql[:80]}: {body.decode()[:300]}")
        return body

    def peak_rss_mib(self):
        return granary_server.peak_rss_mib(self.proc.pid)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(60)


def median_ms(run, queries, repeat):
    times = []
    for i in range(max(repeat, len(queries))):
        q = queries[i % len(queries)]
        t0 = time.perf_counter()
        run(q)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


CACHED_SCAN = "SETTINGS use_uncompressed_cache = 1, merge_tree_max_rows_to_use_cache = 1000000000"


def workloads(n, rng):
    keys = [rng.randrange(n) for _ in range(200)]
    batches = [",".join(str(rng.randrange(n)) for _ in range(100)) for _ in range(20)]
    return [
        ("sum/avg full scan", ["SELECT sum(value), avg(value), max(id) FROM t"]),
        # Tuned: decompressed blocks kept in the uncompressed-block cache (ClickHouse's
        # setting; by default a query of over a million rows bypasses it). DuckDB runs the
        # plain query: its table is held in memory anyway.
        ("sum/avg full scan, use_uncompressed_cache = 1 (tuned)", [f"SELECT sum(value), avg(value), max(id) FROM t {CACHED_SCAN}"]),
        ("GROUP BY tag % 100", ["SELECT tag % 100 AS k, count(), sum(value) FROM t GROUP BY k ORDER BY k LIMIT 5"]),
        ("tag = X (WHERE)", [f"SELECT id, length(payload) FROM t WHERE tag = {k % 1000000}" for k in keys[:20]]),
        ("tag = X (PREWHERE)", [f"SELECT id, length(payload) FROM t PREWHERE tag = {k % 1000000}" for k in keys[:20]]),
        ("id = X", [f"SELECT * FROM t WHERE id = {k}" for k in keys]),
        ("id IN (100 keys)", [f"SELECT * FROM t WHERE id IN ({b})" for b in batches]),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--granary", default=os.environ.get("GRANARY_BIN", "target/release/granary"))
    parser.add_argument("--small-inserts", type=int, default=300)
    args = parser.parse_args()
    n = args.rows
    rng = random.Random(7)
    work = workloads(n, rng)
    select = f"SELECT number, number / 7, toUInt32((number * 2654435761) % 1000000), concat('payload-', toString(number)) FROM numbers({n})"
    results = {}
    loads = {}

    for granularity in (8192, 256):
        create = (f"CREATE TABLE t (id UInt64, value Float64, tag UInt32, payload String) ENGINE = MergeTree "
                  f"ORDER BY id SETTINGS index_granularity = {granularity}")
        with tempfile.TemporaryDirectory() as tmp:
            server = Granary(args.granary, os.path.join(tmp, "granary"))
            try:
                server.query(create)
                t0 = time.perf_counter()
                server.query(f"INSERT INTO t {select}")
                seconds = time.perf_counter() - t0
                loads[("granary", granularity)] = (n / seconds, server.peak_rss_mib())
                server.query("OPTIMIZE TABLE t FINAL")
                for name, queries in work:
                    server.query(queries[0])
                    results.setdefault((name, granularity), {})["granary"] = median_ms(server.query, queries, args.repeat)
            finally:
                server.stop()

            try:
                from chdb import session
                sess = session.Session(os.path.join(tmp, "chdb"))
                sess.query(create)
                t0 = time.perf_counter()
                sess.query(f"INSERT INTO t {select}")
                loads[("chdb", granularity)] = (n / (time.perf_counter() - t0), 0.0)
                sess.query("OPTIMIZE TABLE t FINAL")
                run = lambda q: sess.query(q, "TabSeparated")  # noqa: E731
                for name, queries in work:
                    run(queries[0])
                    results[(name, granularity)]["chdb"] = median_ms(run, queries, args.repeat)
                sess.close()
            except ImportError:
                print("chdb not installed: pip install chdb")

        if granularity == 8192:
            try:
                import duckdb
                # In memory (DuckDB's in-memory tables store columns uncompressed), and in
                # a database file (compressed at the checkpoint, read through DuckDB's
                # buffer pool): the second is storage against storage, as Granary's.
                with tempfile.TemporaryDirectory() as tmp:
                    for engine, con in (("duckdb", duckdb.connect()), ("duckdb_file", duckdb.connect(os.path.join(tmp, "t.duckdb")))):
                        con.execute("CREATE TABLE t (id UBIGINT, value DOUBLE, tag UINTEGER, payload VARCHAR)")
                        t0 = time.perf_counter()
                        con.execute(f"INSERT INTO t SELECT range, range / 7, (range * 2654435761) % 1000000, 'payload-' || range FROM range({n})")
                        if engine == "duckdb_file":
                            con.execute("CHECKPOINT")
                        loads[(engine, granularity)] = (n / (time.perf_counter() - t0), 0.0)
                        run = lambda q: con.execute(q.replace(" PREWHERE ", " WHERE ").replace("length(", "strlen(").replace(CACHED_SCAN, "")).fetchall()  # noqa: E731
                        for name, queries in work:
                            run(queries[0])
                            results[(name, granularity)][engine] = median_ms(run, queries, args.repeat)
                        con.close()
            except ImportError:
                print("duckdb not installed: pip install duckdb")

    small = small_inserts(args.granary, args.small_inserts)

    print()
    print(f"rows: {n}")
    print("| load | rows/s | peak RSS MiB |")
    print("|---|---|---|")
    for (engine, g), (rate, rss) in loads.items():
        print(f"| {engine}, index_granularity {g} | {rate:,.0f} | {rss:.0f} |" if rss else f"| {engine}, index_granularity {g} | {rate:,.0f} | - |")
    print()
    print("| workload | granularity | Granary ms | chdb ms | DuckDB ms | DuckDB (file) ms | Granary/chdb | Granary/DuckDB | Granary/DuckDB (file) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (name, g), r in results.items():
        gr, c, d, df = r.get("granary"), r.get("chdb"), r.get("duckdb"), r.get("duckdb_file")
        fmt = lambda x: f"{x:.2f}" if x else "-"  # noqa: E731
        ratio = lambda a, b: f"{a / b:.2f}" if a and b else "-"  # noqa: E731
        print(f"| {name} | {g} | {fmt(gr)} | {fmt(c)} | {fmt(d)} | {fmt(df)} | {ratio(gr, c)} | {ratio(gr, d)} | {ratio(gr, df)} |")


    print()
    print(f"| small INSERTs (10 rows, 30 columns), {args.small_inserts} of them | INSERTs/s |")
    print("|---|---|")
    for name, rate in small.items():
        print(f"| {name} | {rate:,.0f} |")


def small_inserts(binary, count):
    """INSERTs of 10 rows, each a part: the per-part cost (files, fsyncs) dominates."""
    columns = ", ".join(f"c{i} UInt64" for i in range(29))
    values = ", ".join("(" + ", ".join(str(r * 100 + c) for c in range(30)) + ")" for r in range(10))
    rates = {}
    # ClickHouse (and so chdb) does not fsync inserted parts by default; Granary does.
    no_fsync = "fsync_after_insert = 0, fsync_part_directory = 0"
    for name, table_settings in (("Granary, compact parts (default: fsynced)", ""),
                                 ("Granary, wide parts (min_bytes_for_wide_part = 0)", "min_bytes_for_wide_part = 0"),
                                 (f"Granary, compact parts, {no_fsync} (ClickHouse's defaults)", no_fsync)):
        with tempfile.TemporaryDirectory() as tmp:
            server = Granary(binary, os.path.join(tmp, "granary"))
            try:
                settings = f"SETTINGS {table_settings}" if table_settings else ""
                server.query(f"CREATE TABLE s (id UInt64, {columns}) ENGINE = MergeTree ORDER BY id {settings}")
                server.query("SYSTEM STOP MERGES s")
                t0 = time.perf_counter()
                for _ in range(count):
                    server.query(f"INSERT INTO s VALUES {values}")
                rates[name] = count / (time.perf_counter() - t0)
            finally:
                server.stop()
    # Asynchronous inserts: the same INSERTs queued and written together. With
    # wait_for_async_insert = 1 (durable before the answer) only concurrent clients share a
    # part, so they come from 16 threads; with 0 one client sends them back to back and the
    # time includes SYSTEM FLUSH ASYNC INSERT QUEUE (the rows durable at the end).
    clients = 16
    for name, wait in ((f"Granary, async_insert = 1, wait_for_async_insert = 1, {clients} concurrent clients", True),
                       ("Granary, async_insert = 1, wait_for_async_insert = 0, then SYSTEM FLUSH ASYNC INSERT QUEUE", False)):
        with tempfile.TemporaryDirectory() as tmp:
            server = Granary(binary, os.path.join(tmp, "granary"))
            try:
                server.query(f"CREATE TABLE s (id UInt64, {columns}) ENGINE = MergeTree ORDER BY id")
                server.query("SYSTEM STOP MERGES s")
                settings = f"SETTINGS async_insert = 1, wait_for_async_insert = {int(wait)}"
                sql = f"INSERT INTO s {settings} VALUES {values}"
                t0 = time.perf_counter()
                if wait:
                    def client(n):
                        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=3600)
                        for _ in range(n):
                            conn.request("POST", "/", body=sql.encode())
                            response = conn.getresponse()
                            body = response.read()
                            if response.status != 200:
                                raise RuntimeError(body.decode()[:300])
                    shares = [count // clients + (1 if i < count % clients else 0) for i in range(clients)]
                    threads = [threading.Thread(target=client, args=(n,)) for n in shares]
                    for t in threads:
                        t.start()
                    for t in threads:
                        t.join()
                else:
                    for _ in range(count):
                        server.query(sql)
                    server.query("SYSTEM FLUSH ASYNC INSERT QUEUE")
                rates[name] = count / (time.perf_counter() - t0)
                rows = int(server.query("SELECT count() FROM s"))
                if rows != count * 10:
                    raise RuntimeError(f"async inserts: {rows} rows, expected {count * 10}")
            finally:
                server.stop()
    try:
        from chdb import session
        with tempfile.TemporaryDirectory() as tmp:
            sess = session.Session(os.path.join(tmp, "chdb"))
            sess.query(f"CREATE TABLE s (id UInt64, {columns}) ENGINE = MergeTree ORDER BY id")
            sess.query("SYSTEM STOP MERGES s")
            t0 = time.perf_counter()
            for _ in range(count):
                sess.query(f"INSERT INTO s VALUES {values}")
            rates["chdb (in process, compact parts, no fsync)"] = count / (time.perf_counter() - t0)
            sess.close()
    except ImportError:
        pass
    return rates


if __name__ == "__main__":
    sys.exit(main())
