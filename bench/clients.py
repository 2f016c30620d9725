"""Result streaming and insert_df throughput through clickhouse-connect, Granary side by side with chdb.

    python3 bench/clients.py [--rows 5000000] [--repeat 3] [--compress none] [--granary target/release/granary]

One query, `SELECT number AS id, toString(number) AS s, number * 1.5 AS f,
toDate('2024-01-01') + (number % 365) AS d FROM numbers(N)`, is read from Granary (a
server on a free port) and from chdb (in process) in the shapes a Python client ends with:

* the raw body in Native and ArrowStream (http.client counting bytes, always uncompressed:
  the server's pure output rate) against chdb's result buffer in the same format;
* Python rows (`query_row_block_stream`), a pyarrow Table (`query_arrow` / chdb's
  "ArrowTable") and a pandas DataFrame (`query_df` / chdb's "DataFrame");

then a DataFrame of N/5 rows goes into `t (id UInt64, s String, f Float64, d DateTime)`,
a MergeTree table (`insert_df` / chdb's `INSERT INTO t SELECT * FROM Python(df)`), and the
table's count and sum(id) are checked. The frame with pyarrow dtypes goes in again with
`insert_df_arrow` (Arrow on the wire, encoded by pyarrow; chdb: `Python()` of its pyarrow Table),
and `insert_df` once more into an `ENGINE = Null` table, which shows what the client's
encoding and the transport cost without the part write. The same rows as a Native file (written by chdb)
are then loaded with `INSERT INTO t SELECT * FROM file(...)` by both engines: Native
parsing and the MergeTree write, engine against engine, without HTTP or the client.

Each runs --repeat times: the table shows best and median seconds, rows/s and MB/s of the
best run, and Granary's best over chdb's (below 1: Granary is faster). MB/s counts the
uncompressed bytes of the format on the wire (for the DataFrame: its memory). Granary pays
loopback HTTP and its client's decoding; chdb neither. clickhouse-connect compresses by
default, and Granary answers its Accept-Encoding list (lz4,zstd,gzip,deflate) with zstd,
as ClickHouse does:
--compress none (the default here) keeps that CPU cost out, --compress default/lz4/zstd
puts it in. DuckDB, if installed, is a reference column for the shapes it has.
"""
import argparse
import http.client
import os
import statistics
import sys
import tempfile
import time

import clickhouse_connect
import numpy as np
import pandas as pd

import granary_server

SELECT = ("SELECT number AS id, toString(number) AS s, number * 1.5 AS f, "
          "toDate('2024-01-01') + (number % 365) AS d FROM numbers({n})")
DUCK_SELECT = ("SELECT range AS id, CAST(range AS VARCHAR) AS s, range * 1.5 AS f, "
               "DATE '2024-01-01' + CAST(range % 365 AS INTEGER) AS d FROM range({n})")
CREATE = "CREATE TABLE t (id UInt64, s String, f Float64, d DateTime) ENGINE = MergeTree ORDER BY id"


class Granary:
    def __init__(self, binary, path):
        self.proc, self.port = granary_server.start(binary, path)

    def raw(self, sql, headers=None):
        """POSTs `sql` and drains the body without keeping it: (body bytes, response)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=3600)
        conn.request("POST", "/?enable_http_compression=1", body=sql.encode(), headers=headers or {})
        response = conn.getresponse()
        if response.status != 200:
            raise RuntimeError(f"{sql[:80]}: {response.read().decode()[:300]}")
        # A reused buffer: allocating the whole body would time Python's allocator, not the server.
        buf, total = memoryview(bytearray(1 << 20)), 0
        while k := response.readinto(buf):
            total += k
        conn.close()
        return total, response

    def stop(self):
        self.proc.terminate()
        self.proc.wait(60)


def measure(results, name, engine, run, repeat, expect, setup=None):
    """Times `run` (returning (rows, bytes)) `repeat` times; each run must yield `expect` rows."""
    times = []
    for _ in range(repeat):
        if setup:
            setup()
        t0 = time.perf_counter()
        rows, nbytes = run()
        times.append(time.perf_counter() - t0)
        if rows != expect:
            raise RuntimeError(f"{name} on {engine}: {rows} rows, expected {expect}")
    results.setdefault(name, {})[engine] = (min(times), statistics.median(times), rows, nbytes)


def insert_frame(m):
    ids = np.arange(m, dtype=np.uint64)
    return pd.DataFrame({
        "id": ids,
        "s": ids.astype(str).astype(object),
        "f": ids * 1.5,
        # DateTime holds seconds, so the frame does too.
        "d": (np.datetime64("2024-01-01", "s") + (ids % 365).astype("timedelta64[D]")).astype("datetime64[s]"),
    })


def check_table(count_and_sum, m, engine):
    count, total = count_and_sum
    if (int(count), int(total)) != (m, m * (m - 1) // 2):
        raise RuntimeError(f"insert on {engine}: count {count}, sum(id) {total}; expected {m}, {m * (m - 1) // 2}")


NATIVE_FILE = "insert.native"


def write_native_file(tmp, df):
    """The insert rows as a Native file in Granary's user_files (chdb writes it)."""
    from chdb import session
    user_files = os.path.join(tmp, "granary", "user_files")
    os.makedirs(user_files, exist_ok=True)
    path = os.path.join(user_files, NATIVE_FILE)
    sess = session.Session(os.path.join(tmp, "chdb-writer"))
    sess.query(f"INSERT INTO FUNCTION file('{path}', 'Native', 'id UInt64, s String, f Float64, d DateTime') "
               "SELECT * FROM Python(df)")
    sess.close()
    return path


def run_granary(args, tmp, results, df):
    n, m, repeat, sql = args.rows, len(df), args.repeat, SELECT.format(n=args.rows)
    compress = {"none": False, "default": True}.get(args.compress, args.compress)
    server = Granary(args.granary, os.path.join(tmp, "granary"))
    try:
        client = clickhouse_connect.get_client(host="127.0.0.1", port=server.port, compress=compress,
                                               send_receive_timeout=3600)
        # Ask the server with the client's own Accept-Encoding, to print what it really gets.
        accept = {"Accept-Encoding": client.compression} if client.compression else {}
        encoding = server.raw("SELECT 1 FORMAT Native", accept)[1].getheader("Content-Encoding") or "none"
        print(f"granary: clickhouse-connect compress={args.compress}, response Content-Encoding: {encoding}")

        wire = {}
        for fmt in ("Native", "ArrowStream"):
            def raw(fmt=fmt):
                wire[fmt] = server.raw(f"{sql} FORMAT {fmt}")[0]
                return n, wire[fmt]
            measure(results, f"{fmt}: raw body", "granary", raw, repeat, n)

        def stream_rows():
            rows = 0
            with client.query_row_block_stream(sql) as stream:
                for block in stream:
                    rows += len(block)
            return rows, wire["Native"]
        measure(results, "Native: Python rows", "granary", stream_rows, repeat, n)
        measure(results, "Arrow: pyarrow Table", "granary",
                lambda: (client.query_arrow(sql).num_rows, wire["ArrowStream"]), repeat, n)
        measure(results, "Native: pandas DataFrame", "granary",
                lambda: (len(client.query_df(sql)), wire["Native"]), repeat, n)

        def reset():
            client.command("DROP TABLE IF EXISTS t")
            client.command(CREATE)

        def insert():
            client.insert_df("t", df)
            return m, df.memory_usage(deep=True).sum()
        measure(results, f"insert_df ({m} rows)", "granary", insert, repeat, m, reset)
        check_table(client.query("SELECT count(), sum(id) FROM t").result_rows[0], m, "granary")

        # The same frame with pyarrow dtypes goes over as Arrow, encoded by pyarrow in C++
        # instead of clickhouse-connect's Python Native encoder.
        arrow_df = df.convert_dtypes(dtype_backend="pyarrow")

        def insert_arrow_frame():
            client.insert_df_arrow("t", arrow_df)
            return m, df.memory_usage(deep=True).sum()
        measure(results, f"insert_df_arrow ({m} rows)", "granary", insert_arrow_frame, repeat, m, reset)
        check_table(client.query("SELECT count(), sum(id) FROM t").result_rows[0], m, "granary")

        # What the client and the transport cost: the same insert_df into a table that
        # keeps nothing (the server still parses the body).
        def null_table():
            client.command("DROP TABLE IF EXISTS t")
            client.command(CREATE.replace("ENGINE = MergeTree", "ENGINE = Null").split(" ORDER BY")[0])
        measure(results, f"insert_df ({m} rows) into ENGINE = Null", "granary", insert, repeat, m, null_table)
        reset()

        def load_file():
            client.command(f"INSERT INTO t SELECT * FROM file('{NATIVE_FILE}', 'Native')")
            return m, os.path.getsize(os.path.join(tmp, "granary", "user_files", NATIVE_FILE))
        measure(results, f"Native file -> MergeTree ({m} rows)", "granary", load_file, repeat, m, reset)
        check_table(client.query("SELECT count(), sum(id) FROM t").result_rows[0], m, "granary")
        client.close()
    finally:
        server.stop()


def run_chdb(args, tmp, results, df):
    n, m, repeat, sql = args.rows, len(df), args.repeat, SELECT.format(n=args.rows)
    try:
        from chdb import session
    except ImportError:
        print("chdb not installed: pip install chdb")
        return
    sess = session.Session(os.path.join(tmp, "chdb"))
    for fmt in ("Native", "ArrowStream"):
        measure(results, f"{fmt}: raw body", "chdb", lambda fmt=fmt: (n, sess.query(sql, fmt).size()), repeat, n)
    measure(results, "Arrow: pyarrow Table", "chdb",
            lambda: (sess.query(sql, "ArrowTable").num_rows, None), repeat, n)
    measure(results, "Native: pandas DataFrame", "chdb",
            lambda: (len(sess.query(sql, "DataFrame")), None), repeat, n)

    def reset():
        sess.query("DROP TABLE IF EXISTS t")
        sess.query(CREATE)

    def insert():
        # Python(df) finds `df` by name in the calling frames: this one has it.
        sess.query("INSERT INTO t SELECT * FROM Python(df)")
        return m, df.memory_usage(deep=True).sum()
    measure(results, f"insert_df ({m} rows)", "chdb", insert, repeat, m, reset)
    check_table(sess.query("SELECT count(), sum(id) FROM t", "CSV").bytes().decode().strip().split(","), m, "chdb")

    # chdb's Python() refuses pyarrow dtypes in a DataFrame but reads the Table they hold.
    import pyarrow
    arrow_table = pyarrow.Table.from_pandas(df.convert_dtypes(dtype_backend="pyarrow"), preserve_index=False)

    def insert_arrow_frame():
        assert arrow_table is not None  # Python(arrow_table) finds it in this function's locals
        sess.query("INSERT INTO t SELECT * FROM Python(arrow_table)")
        return m, df.memory_usage(deep=True).sum()
    measure(results, f"insert_df_arrow ({m} rows)", "chdb", insert_arrow_frame, repeat, m, reset)
    check_table(sess.query("SELECT count(), sum(id) FROM t", "CSV").bytes().decode().strip().split(","), m, "chdb")

    path = os.path.join(tmp, "granary", "user_files", NATIVE_FILE)

    def load_file():
        sess.query(f"INSERT INTO t SELECT * FROM file('{path}', 'Native')")
        return m, os.path.getsize(path)
    measure(results, f"Native file -> MergeTree ({m} rows)", "chdb", load_file, repeat, m, reset)
    check_table(sess.query("SELECT count(), sum(id) FROM t", "CSV").bytes().decode().strip().split(","), m, "chdb")
    sess.close()


def run_duckdb(args, results, df):
    try:
        import duckdb
    except ImportError:
        print("duckdb not installed: pip install duckdb (its column stays empty)")
        return
    n, m, repeat, sql = args.rows, len(df), args.repeat, DUCK_SELECT.format(n=args.rows)
    con = duckdb.connect()
    # Relations, not execute(): DuckDB 2 copies every row once more for Arrow from a DB-API result.
    measure(results, "Native: Python rows", "duckdb", lambda: (len(con.sql(sql).fetchall()), None), repeat, n)
    measure(results, "Arrow: pyarrow Table", "duckdb", lambda: (con.sql(sql).to_arrow_table().num_rows, None), repeat, n)
    measure(results, "Native: pandas DataFrame", "duckdb", lambda: (len(con.sql(sql).df()), None), repeat, n)
    con.register("frame", df)

    def reset():
        con.execute("DROP TABLE IF EXISTS t")
        con.execute("CREATE TABLE t (id UBIGINT, s VARCHAR, f DOUBLE, d TIMESTAMP)")

    def insert():
        con.execute("INSERT INTO t SELECT * FROM frame")
        return m, None
    measure(results, f"insert_df ({m} rows)", "duckdb", insert, repeat, m, reset)
    check_table(con.execute("SELECT count(), sum(id) FROM t").fetchone(), m, "duckdb")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compress", default="none", choices=["none", "default", "lz4", "zstd", "gzip"],
                        help="clickhouse-connect's compress: none, its default list, or one method")
    parser.add_argument("--granary", default=os.environ.get("GRANARY_BIN", "target/release/granary"))
    args = parser.parse_args()
    df = insert_frame(max(args.rows // 5, 1))
    results = {}
    # One engine at a time: on two cores a live server would steal the in-process engine's CPU.
    with tempfile.TemporaryDirectory() as tmp:
        write_native_file(tmp, df)
        run_granary(args, tmp, results, df)
        run_chdb(args, tmp, results, df)
    run_duckdb(args, results, df)

    print()
    print(f"rows: {args.rows}, insert rows: {len(df)}, repeat: {args.repeat}; seconds as best / median, "
          "rows/s and MB/s from the best run")
    print("| measurement | Granary s | chdb s | Granary/chdb | Granary rows/s | chdb rows/s "
          "| Granary MB/s | chdb MB/s | DuckDB s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        g, c, d = r.get("granary"), r.get("chdb"), r.get("duckdb")
        secs = lambda x: f"{x[0]:.3f} / {x[1]:.3f}" if x else "-"  # noqa: E731
        rate = lambda x: f"{x[2] / x[0]:,.0f}" if x else "-"  # noqa: E731
        mbs = lambda x: f"{x[3] / x[0] / 1e6:,.1f}" if x and x[3] else "-"  # noqa: E731
        ratio = f"{g[0] / c[0]:.2f}" if g and c else "-"
        print(f"| {name} | {secs(g)} | {secs(c)} | {ratio} | {rate(g)} | {rate(c)} | {mbs(g)} | {mbs(c)} | {secs(d)} |")


if __name__ == "__main__":
    sys.exit(main())
