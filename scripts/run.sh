#!/usr/bin/env bash
# Builds Granary, starts the server on ./granary-data (http://127.0.0.1:8123), loads a small
# sample table on first start, and keeps the server in the foreground (Ctrl-C stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -p granary
BIN=target/debug/granary
PORT="${GRANARY_HTTP_PORT:-8123}"
"$BIN" server --path ./granary-data --http-port "$PORT" &
SERVER=$!
trap 'kill -TERM $SERVER 2>/dev/null; wait $SERVER' INT TERM
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$PORT/ping" >/dev/null && break
  sleep 0.1
done
q() { curl -sS --fail-with-body "http://127.0.0.1:$PORT/" --data-binary "$1"; }
if [ "$(q "EXISTS TABLE default.sample_visits")" != "1" ]; then
  q "CREATE TABLE default.sample_visits (id UInt64, user_id UInt32, url String, duration_ms UInt32, visit_date Date) ENGINE = MergeTree ORDER BY (visit_date, id)"
  q "INSERT INTO default.sample_visits SELECT number, number % 1000, concat('https://example.com/page/', toString(number % 97)), (number * 7919) % 30000, toDate('2024-01-01') + toUInt32(number % 365) FROM numbers(100000)"
fi
cat <<MSG

Granary is running on http://127.0.0.1:$PORT with data in ./granary-data. Try:
  curl 'http://127.0.0.1:$PORT/?query=SELECT+1'
  curl 'http://127.0.0.1:$PORT/' --data-binary 'SELECT url, count() AS c FROM sample_visits GROUP BY url ORDER BY c DESC LIMIT 5 FORMAT PrettyCompact'
  $BIN client --port $PORT
(sample_visits is a MergeTree table: it stays in ./granary-data across restarts.)
MSG
wait $SERVER
