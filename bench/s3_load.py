"""Object storage: the seed's read query and S3 -> MergeTree load (issue 4's benchmark),
Granary side by side with chdb and DuckDB on the same files, in one run.

    python3 bench/s3_load.py [--rows 2000000] [--files 12] [--granary target/release/granary]

A StackOverflow-posts-like dataset (`--files` monthly Parquet files, `--rows` rows in
all) is written by chdb into a local SeaweedFS S3 server (scripts/s3_server.sh) and into
local files, then, in one run:

* the seed's read query (top `OwnerDisplayName` by posts) at `max_threads` 1 and 2,
  through `s3()` and from the same Parquet files on local disk (`file()`): Granary (a
  server, over HTTP), chdb (in process, its `s3()` against the same server, its
  `file()`) and DuckDB (local files; httpfs against the same server when it can
  install it);
* `INSERT INTO posts SELECT * FROM s3(...)` into MergeTree: rows/s, Granary's peak
  resident memory, active parts right after the load;
* one CSVWithNames stream (`INSERT INTO posts FORMAT CSVWithNames` with the file as the
  HTTP body) against chdb loading the same file with `file()`: MB/s of CSV.

Ratios are Granary's time over the other engine's (below 1: Granary is faster).
"""
import argparse
import http.client
import os
import subprocess
import sys
import tempfile
import time

import granary_server

KEYS = "'testkey', 'testsecret'"
COLUMNS = """Id UInt32, PostTypeId UInt8, AcceptedAnswerId UInt32, CreationDate DateTime, Score Int32,
ViewCount UInt32, Body String, OwnerUserId Int32, OwnerDisplayName String, LastEditorUserId Int32,
LastEditorDisplayName String, LastEditDate DateTime, LastActivityDate DateTime, Title String,
Tags String, AnswerCount UInt16, CommentCount UInt8, FavoriteCount UInt8, ContentLicense String"""
CREATE = f"CREATE TABLE posts ({COLUMNS}) ENGINE = MergeTree ORDER BY (PostTypeId, toDate(CreationDate), CreationDate)"
READ = ("SELECT OwnerDisplayName, count() AS num_posts FROM {source} WHERE OwnerDisplayName NOT IN ('', 'anon') "
        "GROUP BY OwnerDisplayName ORDER BY num_posts DESC, OwnerDisplayName LIMIT 5")


def generator(start, n):
    """Rows of a posts-like table, deterministic in `number`."""
    return f"""SELECT toUInt32(number) AS Id, toUInt8(1 + number % 2) AS PostTypeId, toUInt32(number % 3 = 0 ? number + 1 : 0) AS AcceptedAnswerId,
        toDateTime('2020-01-01 00:00:00', 'UTC') + toUInt32(number * 13) AS CreationDate, toInt32(cityHash64(number) % 200) - 20 AS Score,
        toUInt32(cityHash64(number, 1) % 100000) AS ViewCount,
        concat('<p>', repeat(substring('lorem ipsum dolor sit amet consectetur ', 1 + number % 20, 20), 1 + number % 6), '</p>') AS Body,
        toInt32(cityHash64(number, 2) % 500000) AS OwnerUserId,
        multiIf(number % 17 = 0, '', number % 29 = 0, 'anon', concat('user', toString(cityHash64(number, 3) % 20000))) AS OwnerDisplayName,
        toInt32(cityHash64(number, 4) % 500000) AS LastEditorUserId, concat('editor', toString(number % 997)) AS LastEditorDisplayName,
        toDateTime('2021-01-01 00:00:00', 'UTC') + toUInt32(number * 7) AS LastEditDate, toDateTime('2022-01-01 00:00:00', 'UTC') + toUInt32(number * 5) AS LastActivityDate,
        concat('How to ', substring('parse join sort merge index query', 1 + number % 25, 8), ' ', toString(number % 1000)) AS Title,
        concat('|', ['python', 'sql', 'rust', 'clickhouse', 'java'][1 + number % 5], '|') AS Tags,
        toUInt16(number % 9) AS AnswerCount, toUInt8(number % 13) AS CommentCount, toUInt8(number % 4) AS FavoriteCount,
        ['CC BY-SA 4.0', 'CC BY-SA 3.0'][1 + number % 2] AS ContentLicense
        FROM numbers({start}, {n})"""


class Granary:
    def __init__(self, binary, path):
        self.proc, self.port = granary_server.start(binary, path)

    def query(self, sql, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=3600)
        if body is None:
            conn.request("POST", "/", body=sql.encode())
        else:
            conn.request("POST", "/?query=" + __import__("urllib.parse").parse.quote(sql), body=body)
        response = conn.getresponse()
        out = response.read()
        if response.status != 200:
            raise RuntimeError(f"{sql[:100]}: {out.decode()[:300]}")
        return out.decode()

    def peak_rss_mib(self):
        return granary_server.peak_rss_mib(self.proc.pid)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(60)


def timed(run, repeat=1):
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        elapsed = time.perf_counter() - t0
        best = elapsed if best is None else min(best, elapsed)
    return best


def settled_parts(query, timeout=120.0):
    """Active parts of `posts` once background merges have settled: no merge running and
    the same count for 3 seconds (the issue's "at most 2 active parts once merges settle")."""
    sql = "SELECT (SELECT count() FROM system.parts WHERE table = 'posts' AND active) * 1000 + (SELECT count() FROM system.merges WHERE table = 'posts')"
    deadline, last, since = time.time() + timeout, None, time.time()
    while time.time() < deadline:
        value = int(query(sql))
        if value != last:
            last, since = value, time.time()
        elif value % 1000 == 0 and time.time() - since >= 3:
            break
        time.sleep(0.25)
    return last // 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--files", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--granary", default=os.environ.get("GRANARY_BIN", "target/release/granary"))
    args = parser.parse_args()
    from chdb import session

    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "s3_server.sh")
    work = tempfile.mkdtemp(prefix="s3bench")
    s3_data = os.path.join(work, "s3")
    os.makedirs(s3_data)
    endpoint = subprocess.run(["bash", script, "start", s3_data], check=True, capture_output=True, text=True, timeout=600).stdout.strip()
    # The local copies live in Granary's user_files, where its file() may read them.
    local = os.path.join(work, "granary", "user_files")
    os.makedirs(local)
    results = []
    # One chdb session for everything: chdb keeps one data path per process.
    sess = session.Session(os.path.join(work, "chdb"))
    try:
        per_file = args.rows // args.files
        t0 = time.perf_counter()
        for i in range(args.files):
            rows = generator(i * per_file, per_file)
            sess.query(f"INSERT INTO FUNCTION s3('{endpoint}/test-bucket/posts/month_{i:02}.parquet', {KEYS}, 'Parquet') {rows} SETTINGS s3_truncate_on_insert = 1")
            sess.query(f"INSERT INTO FUNCTION file('{local}/month_{i:02}.parquet', 'Parquet') {rows}")
        csv_path = os.path.join(local, "posts.csv")
        sess.query(f"INSERT INTO FUNCTION file('{csv_path}', 'CSVWithNames') {generator(0, per_file * args.files)}")
        n = per_file * args.files
        parquet_mb = sum(os.path.getsize(os.path.join(local, f)) for f in os.listdir(local) if f.endswith(".parquet")) / 1e6
        csv_mb = os.path.getsize(csv_path) / 1e6
        print(f"generated {n} rows: {parquet_mb:.0f} MB of Parquet in {args.files} files, {csv_mb:.0f} MB of CSV ({time.perf_counter() - t0:.0f} s)")
        s3_source = f"s3('{endpoint}/test-bucket/posts/*.parquet', {KEYS})"

        server = Granary(args.granary, os.path.join(work, "granary"))
        try:
            expected = None
            local_source = "file('month_*.parquet')"
            for label, granary_source, chdb_source in (("s3()", s3_source, s3_source),
                                                        ("local files (file())", local_source, f"file('{local}/month_*.parquet')")):
                for threads in (1, 2):
                    sql = READ.format(source=granary_source) + f" SETTINGS max_threads = {threads}"
                    got = server.query(sql)
                    expected = expected or got
                    assert got == expected, f"Granary's {label} read differs"
                    g = timed(lambda: server.query(sql), args.repeat)
                    sess_sql = READ.format(source=chdb_source) + f" SETTINGS max_threads = {threads}"
                    c = timed(lambda: sess.query(sess_sql, "TSV"), args.repeat)
                    assert sess.query(sess_sql, "TSV").bytes().decode() == got, "chdb and Granary disagree on the read query"
                    results.append((f"read query, {label}, max_threads = {threads}", g, c, None, n))

            # DuckDB: the local files, and httpfs against the same S3 server when it can be installed.
            try:
                import duckdb
                con = duckdb.connect()
                sources = {"local files (file())": (f"read_parquet('{local}/month_*.parquet')", "local files")}
                try:
                    con.execute("INSTALL httpfs; LOAD httpfs;")
                    host = endpoint.removeprefix("http://")
                    con.execute(f"CREATE SECRET (TYPE S3, KEY_ID 'testkey', SECRET 'testsecret', ENDPOINT '{host}', URL_STYLE 'path', USE_SSL false, REGION 'us-east-1')")
                    sources["s3()"] = ("read_parquet('s3://test-bucket/posts/*.parquet')", "httpfs")
                except Exception as e:  # noqa: BLE001 - offline machines cannot install extensions
                    print(f"DuckDB httpfs unavailable ({str(e).splitlines()[0][:80]}): DuckDB reads the local copies only")
                for i, (name, g, c, _, rows) in enumerate(results):
                    label = next((k for k in sources if f"read query, {k}," in name), None)
                    if label is None:
                        continue
                    duck_source, duck_label = sources[label]
                    con.execute(f"SET threads = {name.rsplit('= ', 1)[1]}")
                    duck_sql = READ.format(source=duck_source).replace("count()", "count(*)")
                    d = timed(lambda: con.execute(duck_sql).fetchall(), args.repeat)
                    results[i] = (name, g, c, (d, duck_label), rows)
            except ImportError:
                print("duckdb not installed: pip install duckdb")

            server.query(CREATE)
            g = timed(lambda: server.query(f"INSERT INTO posts SELECT * FROM {s3_source}"))
            parts = server.query("SELECT count() FROM system.parts WHERE table = 'posts' AND active = 1").strip()
            rss = server.peak_rss_mib()
            settled = settled_parts(lambda sql: server.query(sql).strip())
            assert server.query("SELECT count() FROM posts").strip() == str(n)
            server.query("CREATE TABLE posts_csv AS posts")
            with open(csv_path, "rb") as f:
                body = f.read()
            g_csv = timed(lambda: server.query("INSERT INTO posts_csv FORMAT CSVWithNames", body=body))
            assert server.query("SELECT count() FROM posts_csv").strip() == str(n)
        finally:
            server.stop()

        sess.query(CREATE)
        c = timed(lambda: sess.query(f"INSERT INTO posts SELECT * FROM {s3_source}"))
        c_parts = sess.query("SELECT count() FROM system.parts WHERE table = 'posts' AND active", "TSV").bytes().decode().strip()
        c_settled = settled_parts(lambda sql: sess.query(sql, "TSV").bytes().decode().strip())
        results.append((f"INSERT INTO posts SELECT * FROM s3() (active parts right after / once merges settle: Granary {parts} / {settled}, chdb {c_parts} / {c_settled}; Granary peak RSS {rss:.0f} MiB)", g, c, None, n))
        sess.query("CREATE TABLE posts_csv AS posts")
        c_csv = timed(lambda: sess.query(f"INSERT INTO posts_csv SELECT * FROM file('{csv_path}', 'CSVWithNames')"))
        results.append((f"CSVWithNames stream, {csv_mb:.0f} MB (Granary: HTTP body; chdb: file())", g_csv, c_csv, None, n))
        sess.close()
    finally:
        subprocess.run(["bash", script, "stop", s3_data], check=False, timeout=60)

    print()
    print("| workload | Granary s | chdb s | DuckDB s | Granary rows/s | Granary/chdb | Granary/DuckDB |")
    print("|---|---|---|---|---|---|---|")
    for name, g, c, d, rows in results:
        duck = f"{d[0]:.3f} ({d[1]})" if d else "-"
        ratio_d = f"{g / d[0]:.2f}" if d else "-"
        print(f"| {name} | {g:.3f} | {c:.3f} | {duck} | {rows / g:,.0f} | {g / c:.2f} | {ratio_d} |")
    if "CSV" in results[-1][0]:
        print(f"\nCSV ingest: Granary {csv_mb / results[-1][1]:.0f} MB/s, chdb {csv_mb / results[-1][2]:.0f} MB/s")


if __name__ == "__main__":
    sys.exit(main())
