#!/usr/bin/env bash
# Per-query overhead of the HTTP path (issue: foundation benchmark).
# Measures `SELECT 1` and `SELECT count() FROM numbers(1000000)` over keep-alive HTTP at
# 1 and 16 connections with wrk (bounded in time), and the same queries in chdb in-process,
# in one run, and prints QPS and the Granary/chdb ratio.
#
#   bash bench/http_overhead.sh [seconds-per-point]
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
python3 -c "import chdb" 2>/dev/null || pip install -q chdb==4.4.0
cargo build --release -p granary
DATA=$(mktemp -d)
PORT=18923
"${CARGO_TARGET_DIR:-target}/release/granary" server --path "$DATA" --http-port $PORT 2>"$DATA/server.log" &
SERVER=$!
trap 'kill -TERM $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/ping" >/dev/null && break; sleep 0.1; done

urlencode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$1"; }
declare -A QUERIES=([select1]="SELECT 1" [count1m]="SELECT count() FROM numbers(1000000)")
printf "%-10s %-6s %12s %12s %12s\n" query conns granary_qps chdb_qps ratio
for name in select1 count1m; do
  sql="${QUERIES[$name]}"
  chdb_qps=$(python3 bench/chdb_qps.py "$sql" "$DURATION")
  for conns in 1 16; do
    threads=$(( conns < 2 ? 1 : 2 ))
    out=$(wrk -t"$threads" -c"$conns" -d"${DURATION}s" --latency "http://127.0.0.1:$PORT/?query=$(urlencode "$sql")")
    qps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    errors=$(echo "$out" | awk '/Non-2xx/ {print $4}')
    ratio=$(python3 -c "print(f'{float($qps)/float($chdb_qps):.2f}')")
    printf "%-10s %-6s %12s %12s %12s %s\n" "$name" "$conns" "$qps" "$chdb_qps" "$ratio" "${errors:+(non-2xx: $errors)}"
  done
done
