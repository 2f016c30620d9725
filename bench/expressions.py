"""Single statements side by side with chdb: best wall time and CPU seconds of each.

Granary runs as a server (its CPU is read from /proc/<pid>/stat around each statement,
which is fairer than wall time on a shared machine); chdb runs in this process (its CPU
from getrusage). Each statement runs at every `--threads` value with
`SETTINGS max_threads = N FORMAT Null` appended, after the optional `--setup` statements
ran in both.

    python3 bench/expressions.py --granary target/release/granary \\
        "SELECT number % 7 FROM numbers(5000000)" \\
        "SELECT cityHash64(number, 17) FROM numbers(5000000)"

    # The telecom generator (seed 003) alone, then as the INSERT it feeds:
    python3 bench/expressions.py --granary target/release/granary --telecom 5000000

Per-expression timings at max_threads = 1 show kernel gaps that two threads hide.
"""
import argparse
import os
import resource
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import telecom  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def self_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def best_of(run, cpu, sql, repeat):
    """(best wall seconds, best CPU seconds) over `repeat` runs."""
    wall, used = float("inf"), float("inf")
    for _ in range(repeat):
        c0, t0 = cpu(), time.perf_counter()
        run(sql)
        wall, used = min(wall, time.perf_counter() - t0), min(used, cpu() - c0)
    return wall, used


def telecom_statements(rows):
    """Seed 003's raw-table generator: (setup, [its SELECT, the INSERT it feeds])."""
    setup = telecom.setup_statements(rows)
    insert = next(s for s in setup if s.startswith("INSERT INTO dae.all_seg"))
    prepare = [s for s in setup if s.startswith(("CREATE DATABASE", "CREATE TABLE dae.all_seg", "SYSTEM STOP MERGES dae.all"))]
    return prepare, [insert[insert.index("SELECT"):], insert]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--granary", default="target/release/granary")
    parser.add_argument("--threads", default="1,2", help="max_threads values, comma-separated")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--setup", action="append", default=[], help="statement run once in both before timing")
    parser.add_argument("--telecom", type=int, metavar="ROWS", help="time seed 003's generator SELECT and INSERT at ROWS")
    parser.add_argument("statements", nargs="*")
    args = parser.parse_args()

    setup, statements = list(args.setup), list(args.statements)
    if args.telecom:
        prepare, generator = telecom_statements(args.telecom)
        setup += prepare
        statements += generator
    if not statements:
        parser.error("no statement to time")

    from chdb import session

    work = tempfile.mkdtemp(prefix="granary-expr-")
    server = telecom.Granary(args.granary, os.path.join(work, "granary"))
    chdb = session.Session(os.path.join(work, "chdb"))
    try:
        for sql in setup:
            server.query(sql)
            chdb.query(sql)
        print("| statement | max_threads | Granary wall s | Granary cpu s | chdb wall s | chdb cpu s | wall ratio | cpu ratio |")
        print("|---|---|---|---|---|---|---|---|")
        for sql in statements:
            for threads in [int(t) for t in args.threads.split(",")]:
                inserts = sql.lstrip().upper().startswith("INSERT")
                timed_sql = sql + f" SETTINGS max_threads = {threads}" + ("" if inserts else " FORMAT Null")
                g_wall, g_cpu = best_of(server.query, lambda: process_cpu(server.proc.pid), timed_sql, args.repeat)
                c_wall, c_cpu = best_of(chdb.query, self_cpu, timed_sql, args.repeat)
                label = " ".join(sql.split())
                label = label if len(label) <= 90 else label[:87] + "..."
                print(f"| `{label}` | {threads} | {g_wall:.4f} | {g_cpu:.3f} | {c_wall:.4f} | {c_cpu:.3f} | {g_wall / c_wall:.2f} | {g_cpu / max(c_cpu, 1e-9):.2f} |", flush=True)
    finally:
        server.stop()
        chdb.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
