#!/usr/bin/env bash
# Instructions of the server for one `INSERT INTO posts FORMAT CSVWithNames` stream,
# counted by valgrind's callgrind: repeatable on a busy machine where wall time is not.
# Compare two builds on the same CSV file (bench/csv_stream_insert.py writes one; a
# 200K-row head of it keeps callgrind's run under a minute):
#
#   bash bench/csv_stream_instructions.sh target/release/granary posts_200k.csv [dump_dir]
#
# The server starts under callgrind, the table is created, the counters are zeroed, the
# CSV is sent as the body, and the counters are dumped: the total is every thread's
# instructions for the load (parsing, cutting, part writing, background merges started
# meanwhile). With dump_dir, the dump is kept there for `callgrind_annotate`.
set -euo pipefail
BIN=$(realpath "$1"); CSV=$(realpath "$2"); KEEP=${3:-}; PORT=${PORT:-28979}
WORK=$(mktemp -d /tmp/granary-csvgrind.XXXXXX)
COLUMNS=$(python3 -c "import sys; sys.path.insert(0, '$(dirname "$0")'); import s3_load; print(' '.join(s3_load.COLUMNS.split()))")
valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" "$BIN" server --path "$WORK/data" --http-port "$PORT" >"$WORK/log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; [ -z "$KEEP" ] && rm -rf "$WORK"' EXIT
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$PORT/ping" >/dev/null && break; sleep 0.5; done
curl -sf "http://127.0.0.1:$PORT/" --data-binary "CREATE TABLE posts ($COLUMNS) ENGINE = MergeTree ORDER BY (PostTypeId, toDate(CreationDate), CreationDate)"
callgrind_control -z "$SERVER" >/dev/null 2>&1
curl -sf "http://127.0.0.1:$PORT/?query=INSERT%20INTO%20posts%20FORMAT%20CSVWithNames" --data-binary "@$CSV"
callgrind_control -d "$SERVER" >/dev/null 2>&1
ROWS=$(curl -sf "http://127.0.0.1:$PORT/" --data-binary "SELECT count() FROM posts")
DUMP=$(ls -t "$WORK"/callgrind.out* | grep -v '\.out$' | head -1)
TOTAL=$(grep -m1 '^summary:\|^totals:' "$DUMP" | awk '{print $2}')
echo "$(basename "$BIN"): $ROWS rows, $TOTAL instructions, $((TOTAL / ROWS)) per row"
if [ -n "$KEEP" ]; then mkdir -p "$KEEP"; cp "$DUMP" "$KEEP/"; fi
