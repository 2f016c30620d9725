#!/usr/bin/env bash
# A local Azure Blob Storage server (Azurite, from npm) for tests and benchmarks.
#
#   scripts/azure_server.sh start DIR   installs azurite if missing, starts its blob service
#                                       on a free loopback port with its data in DIR, waits
#                                       until it answers, prints the account's blob endpoint
#                                       (http://127.0.0.1:PORT/devstoreaccount1) and writes
#                                       DIR/azurite.pid
#   scripts/azure_server.sh stop DIR    stops that server by its PID and waits for it
#   scripts/azure_server.sh install     installs azurite only
#
# The account is Azurite's well-known development account: name `devstoreaccount1`, key
# `Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==`.
# Needs node and npm. GRANARY_AZURITE_DIR chooses the install directory (default
# ~/.cache/granary/azurite).
set -euo pipefail

VERSION=3.37.0
PREFIX="${GRANARY_AZURITE_DIR:-$HOME/.cache/granary/azurite}"
AZURITE="$PREFIX/node_modules/.bin/azurite-blob"

install() {
    [ -x "$AZURITE" ] && return 0
    command -v npm >/dev/null || { echo "npm is required to install azurite" >&2; exit 1; }
    mkdir -p "$PREFIX"
    npm install --prefix "$PREFIX" --no-audit --no-fund --silent "azurite@$VERSION" >&2
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start() {
    local dir="$1"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    install
    local port
    port="$(free_port)"
    "$AZURITE" --blobHost 127.0.0.1 --blobPort "$port" --location "$dir" --skipApiVersionCheck --loose \
        --disableTelemetry >"$dir/azurite.log" 2>&1 &
    local pid=$!
    echo "$pid" >"$dir/azurite.pid"
    for _ in $(seq 1 300); do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "azurite exited; see $dir/azurite.log" >&2
            tail -20 "$dir/azurite.log" >&2
            exit 1
        fi
        # Any HTTP answer (an unauthenticated request is refused) means it is serving.
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/devstoreaccount1?comp=list" 2>/dev/null || true)
        if [ -n "$code" ] && [ "$code" != 000 ]; then
            echo "http://127.0.0.1:$port/devstoreaccount1"
            return 0
        fi
        sleep 0.1
    done
    echo "azurite did not become ready; see $dir/azurite.log" >&2
    kill "$pid" 2>/dev/null || true
    exit 1
}

stop() {
    local dir="$1" pid
    [ -f "$dir/azurite.pid" ] || return 0
    pid="$(cat "$dir/azurite.pid")"
    if kill "$pid" 2>/dev/null; then
        for _ in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/azurite.pid"
}

case "${1:-}" in
    start) start "${2:?usage: $0 start DIR}" ;;
    stop) stop "${2:?usage: $0 stop DIR}" ;;
    install) install ;;
    *) echo "usage: $0 start DIR | stop DIR | install" >&2; exit 2 ;;
esac
