"""Issue 4's client stream alone: `INSERT INTO posts FORMAT CSVWithNames` with a CSV file
as the HTTP body, against chdb loading the same file with `file()`, in one run.

    python3 bench/csv_stream_insert.py [--rows 2000000] [--repeat 3] [--granary target/release/granary ...]
        [--perf OUT.data]

The posts-like data of bench/s3_load.py (same columns, same generator) is written once
by chdb to `--csv` (kept between runs). Each repetition loads into a fresh table; the
best time is reported, and the server's CPU seconds per load (user + system, its
background merges included), which vary less than wall time on a shared machine.
Several `--granary` binaries are measured one after the other (before/after in one
run); `--settings` is appended to Granary's INSERT. `--perf` records the last binary's
server during its first load with `perf record -g` (that load's time then includes
perf's start and finish).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s3_load  # noqa: E402


def cpu_seconds(pid):
    """User + system CPU time of a process so far: on a shared machine this varies less
    than wall time."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_loads(run, repeat):
    times = []
    for i in range(repeat):
        t0 = time.perf_counter()
        run(i)
        times.append(time.perf_counter() - t0)
    return min(times), times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--csv", default="/tmp/csv_stream_insert/posts.csv")
    parser.add_argument("--granary", action="append")
    parser.add_argument("--no-chdb", action="store_true")
    parser.add_argument("--perf")
    parser.add_argument("--settings", default="", help="appended to Granary's INSERT as SETTINGS ...")
    args = parser.parse_args()
    binaries = args.granary or [os.environ.get("GRANARY_BIN", "target/release/granary")]
    from chdb import session

    if not os.path.exists(args.csv):
        os.makedirs(os.path.dirname(args.csv), exist_ok=True)
        sess = session.Session(tempfile.mkdtemp(prefix="csvgen"))
        sess.query(f"INSERT INTO FUNCTION file('{args.csv}', 'CSVWithNames') {s3_load.generator(0, args.rows)}")
        sess.close()
    csv_mb = os.path.getsize(args.csv) / 1e6
    with open(args.csv, "rb") as f:
        body = f.read()
    rows = body.count(b"\n") - 1
    print(f"{rows} rows, {csv_mb:.0f} MB of CSVWithNames")

    results = []
    for b, binary in enumerate(binaries):
        work = tempfile.mkdtemp(prefix="csvstream")
        server = s3_load.Granary(binary, work)
        try:
            def load(i):
                server.query(f"CREATE TABLE posts_{i} ({s3_load.COLUMNS}) ENGINE = MergeTree ORDER BY (PostTypeId, toDate(CreationDate), CreationDate)")
                perf = None
                if args.perf and b == len(binaries) - 1 and i == 0:
                    perf = subprocess.Popen(["perf", "record", "-g", "-F", "499", "-o", args.perf, "-p", str(server.proc.pid)],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    time.sleep(1)
                settings = f" SETTINGS {args.settings}" if args.settings else ""
                server.query(f"INSERT INTO posts_{i}{settings} FORMAT CSVWithNames", body=body)
                if perf:
                    perf.send_signal(2)
                    perf.wait(60)
                assert server.query(f"SELECT count() FROM posts_{i}").strip() == str(rows)
            cpu_before = cpu_seconds(server.proc.pid)
            best, times = timed_loads(load, args.repeat)
            cpu = (cpu_seconds(server.proc.pid) - cpu_before) / args.repeat
            rss = server.peak_rss_mib()
        finally:
            server.stop()
            shutil.rmtree(work, ignore_errors=True)
        results.append((f"Granary {binary}", best, times, rss, cpu))

    if not args.no_chdb:
        sess = session.Session(tempfile.mkdtemp(prefix="csvchdb"))

        def chdb_load(i):
            sess.query(f"CREATE TABLE posts_{i} ({s3_load.COLUMNS}) ENGINE = MergeTree ORDER BY (PostTypeId, toDate(CreationDate), CreationDate)")
            sess.query(f"INSERT INTO posts_{i} SELECT * FROM file('{args.csv}', 'CSVWithNames')")
        best, times = timed_loads(chdb_load, args.repeat)
        sess.close()
        results.append(("chdb file()", best, times, None, None))

    print("| loader | best s | all s | MB/s | CPU s per load | peak RSS MiB |")
    print("|---|---|---|---|---|---|")
    for name, best, times, rss, cpu in results:
        print(f"| {name} | {best:.3f} | {' '.join(f'{t:.2f}' for t in times)} | {csv_mb / best:.0f} | {cpu and f'{cpu:.2f}' or '-'} | {rss and f'{rss:.0f}' or '-'} |")


if __name__ == "__main__":
    sys.exit(main())
