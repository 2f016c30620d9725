"""Queries per second of one SQL statement in chdb, in-process, for a bounded time."""
import sys
import time

import chdb

sql, seconds = sys.argv[1], float(sys.argv[2])
session = chdb.session.Session() if hasattr(chdb, "session") else None
run = (lambda: session.query(sql, "TabSeparated")) if session else (lambda: chdb.query(sql, "TabSeparated"))
run()
count, start = 0, time.perf_counter()
while time.perf_counter() - start < seconds:
    run()
    count += 1
print(f"{count / (time.perf_counter() - start):.0f}")
