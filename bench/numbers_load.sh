#!/usr/bin/env bash
# The numbers() load of bench/mergetree.py on its own, Granary and chdb one after the
# other: its SELECT with FORMAT Null (best of 5) and the INSERT of it into MergeTree
# (best of 3, TRUNCATE between them).
# Usage: bash bench/numbers_load.sh <granary binary> [rows]
set -euo pipefail
B=${1:?granary binary}; N=${2:-20000000}; P=18927
DIR=$(mktemp -d)
"$B" server --path "$DIR/data" --http-port $P > "$DIR/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 50); do curl -s "localhost:$P/ping" > /dev/null && break; sleep 0.1; done
q() { curl -sf "localhost:$P" --data-binary "$1" > /dev/null; }
S="SELECT number, number / 7, toUInt32((number * 2654435761) % 1000000), concat('payload-', toString(number)) FROM numbers($N)"
CREATE="CREATE TABLE t (id UInt64, value Float64, tag UInt32, payload String) ENGINE = MergeTree ORDER BY id"
best() { python3 -c "import sys; print(f'{min(map(float, sys.argv[1:])):.3f}')" "$@"; }
times=()
for _ in 1 2 3 4 5; do s=$(date +%s.%N); q "$S FORMAT Null"; times+=("$(echo "$(date +%s.%N) - $s" | bc)"); done
echo "granary select: $(best "${times[@]}") s"
q "$CREATE"; times=()
for _ in 1 2 3; do q "TRUNCATE TABLE t"; s=$(date +%s.%N); q "INSERT INTO t $S"; times+=("$(echo "$(date +%s.%N) - $s" | bc)"); done
echo "granary insert: $(best "${times[@]}") s"
python3 - "$S" "$CREATE" <<'PY'
import sys, tempfile, time
from chdb import session
select, create = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as d:
    s = session.Session(d)
    sel = []
    for _ in range(5):
        t = time.perf_counter(); s.query(select + " FORMAT Null"); sel.append(time.perf_counter() - t)
    s.query(create)
    ins = []
    for _ in range(3):
        s.query("TRUNCATE TABLE t")
        t = time.perf_counter(); s.query("INSERT INTO t " + select); ins.append(time.perf_counter() - t)
    s.close()
    print(f"chdb select: {min(sel):.3f} s\nchdb insert: {min(ins):.3f} s")
PY
