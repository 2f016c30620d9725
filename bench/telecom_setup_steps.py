"""The telecom setup (bench/telecom.py) statement by statement: each statement is sent to
Granary and then run in chdb, and the ones that take over 50 ms in either are printed with
both times, to find which load or rollup step makes the setup slower than chdb's.

    python3 bench/telecom_setup_steps.py [--rows 5000000] [--granary target/release/granary]
"""
import argparse
import os
import sys
import tempfile
import time

import telecom


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--granary", default=os.environ.get("GRANARY_BIN", "target/release/granary"))
    args = parser.parse_args()
    from chdb import session
    with tempfile.TemporaryDirectory() as work:
        server = telecom.Granary(args.granary, os.path.join(work, "granary"))
        sess = session.Session(os.path.join(work, "chdb"))
        try:
            print("| Granary s | chdb s | statement |")
            print("|---|---|---|")
            for sql in telecom.setup_statements(args.rows):
                t0 = time.perf_counter()
                server.query(sql)
                g = time.perf_counter() - t0
                t0 = time.perf_counter()
                sess.query(sql)
                c = time.perf_counter() - t0
                if g > 0.05 or c > 0.05:
                    print(f"| {g:.3f} | {c:.3f} | `{' '.join(sql.split())[:90]}` |")
        finally:
            server.stop()
            sess.close()


if __name__ == "__main__":
    sys.exit(main())
