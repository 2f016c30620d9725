#!/usr/bin/env bash
# The project's test command (README: `bash scripts/test.sh`): builds the server, runs the
# unit tests of every crate, then the Python suites through the real binary: golden SQL
# files (tests/sql), differential tests against chdb (tests/differential) and end-to-end
# HTTP/CLI tests. Fails if any step fails. Python needs: pip install -r tests/requirements.txt
set -euo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC
# Each step's start prints the seconds spent so far, so a slow CI run shows where the time went.
step() { printf '\n==> [%ss] %s\n' "$SECONDS" "$*"; }

step "cargo build -p granary"
cargo build -p granary
step "cargo test --workspace"
cargo test --workspace

target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
export GRANARY_BIN="${GRANARY_BIN:-$target_dir/debug/granary}"
# pytest-xdist workers, each with its own servers (the fixtures are per session, so per
# worker): one worker keeps less than one core busy (it waits on server start-ups, sockets
# and sleeps), so two workers on two cores cut the wall time. At most 4: each worker starts
# its own servers.
workers="${GRANARY_TEST_WORKERS:-$(n=$(nproc); echo $(( n < 4 ? n : 4 )))}"
step "pytest tests (GRANARY_BIN=$GRANARY_BIN, $workers workers)"
# The suites take a few minutes; the outer timeout only guards against a hang.
timeout --signal=TERM --kill-after=30 1800 python3 -m pytest -q -p no:cacheprovider -n "$workers" --dist load tests
step "done"
