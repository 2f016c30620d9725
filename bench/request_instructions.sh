#!/usr/bin/env bash
# Instructions per request of a point lookup, `dictGetFloat64`, `joinGet` and `SELECT 1`
# over HTTP, counted by
# valgrind's callgrind: repeatable on a busy machine where wall-clock QPS is not
# (the counts do not depend on what else runs). Compare two builds:
#
#   bash bench/request_instructions.sh target/release/granary after
#   bash bench/request_instructions.sh /path/to/older/granary before
#
# A 200K-row MergeTree table (index_granularity 256), a Join table and a HASHED dictionary
# over it are loaded by a plain server; then the server restarts under callgrind, serves
# WARMUP rounds of each request, and the counters are zeroed before N point lookups (random
# keys, uncompressed cache on), N `dictGetFloat64`, N `joinGet` and N `SELECT 1`, on one
# keep-alive connection (N=500, WARMUP=100 by default; fewer on a busy machine, where
# callgrind's thread switches make each request take seconds). Needs valgrind
# (`apt-get install valgrind`). With KEEP_DUMPS=dir the callgrind dumps are kept there for
# `callgrind_annotate --inclusive=yes`.
set -euo pipefail
BIN=$(realpath "$1"); LABEL=${2:-run}; PORT=${PORT:-28977}; N=${N:-500}; WARMUP=${WARMUP:-100}
WORK=$(mktemp -d /tmp/granary-callgrind.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$BIN" server --path "$WORK/data" --http-port "$PORT" > "$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 1 60); do curl -sf "localhost:$PORT/ping" >/dev/null 2>&1 && break; sleep 0.5; done
curl -sf "localhost:$PORT" --data-binary "CREATE TABLE kv (id UInt64, value Float64) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 256"
curl -sf "localhost:$PORT" --data-binary "INSERT INTO kv SELECT number * 3, number / 7 FROM numbers(200000)"
curl -sf "localhost:$PORT" --data-binary "CREATE TABLE j (id UInt64, value Float64) ENGINE = Join(ANY, LEFT, id)"
curl -sf "localhost:$PORT" --data-binary "INSERT INTO j SELECT id, value FROM kv"
curl -sf "localhost:$PORT" --data-binary "CREATE DICTIONARY d (id UInt64, value Float64) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'kv')) LAYOUT(HASHED()) LIFETIME(0)"
kill "$PID"; wait "$PID" 2>/dev/null || true
valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$BIN" server --path "$WORK/data" --http-port "$PORT" > "$WORK/valgrind.log" 2>&1 &
VPID=$!
for _ in $(seq 1 240); do curl -sf "localhost:$PORT/ping" >/dev/null 2>&1 && break; sleep 0.5; done
python3 - "$PORT" "$VPID" "$N" "$WARMUP" <<'PY'
import http.client, random, subprocess, sys
port, pid, n, warmup = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
connection = http.client.HTTPConnection("127.0.0.1", port)
random.seed(1)
def query(sql):
    connection.request("POST", "/", body=sql.encode())
    response = connection.getresponse()
    response.read()
    assert response.status == 200, response.status
lookup = lambda: query(f"SELECT * FROM kv WHERE id = {random.randrange(600000)} SETTINGS use_uncompressed_cache = 1")
dict_get = lambda: query(f"SELECT dictGetFloat64('d', 'value', toUInt64({random.randrange(600000)}))")
join_get = lambda: query(f"SELECT joinGet('j', 'value', toUInt64({random.randrange(600000)}))")
for _ in range(warmup):
    lookup()
    dict_get()
    join_get()
    query("SELECT 1")
for name, send in (("point", lookup), ("dictGet", dict_get), ("joinGet", join_get), ("select1", lambda: query("SELECT 1"))):
    subprocess.run(["callgrind_control", "-z", pid], capture_output=True, check=True)
    for _ in range(n):
        send()
    subprocess.run(["callgrind_control", "-d", name, pid], capture_output=True, check=True)
PY
kill -INT "$VPID"; wait "$VPID" 2>/dev/null || true
if [ -n "${KEEP_DUMPS:-}" ]; then mkdir -p "$KEEP_DUMPS" && cp "$WORK"/cg.out.* "$KEEP_DUMPS/"; fi
for dump in "$WORK"/cg.out.*; do
    name=$(sed -n 's/^desc: Trigger: dump //p' "$dump")
    total=$(sed -n 's/^summary: //p' "$dump")
    echo "$LABEL $name: $((total / N)) instructions per request"
done
