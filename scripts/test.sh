#!/usr/bin/env bash
# The project's test command (README: `bash scripts/test.sh`): builds the server, runs the
# unit tests of every crate, then the Python suites through the real binary: golden SQL
# files (tests/sql), differential tests against chdb (tests/differential) and end-to-end
# HTTP/CLI tests. Fails if any step fails. Python needs: pip install -r tests/requirements.txt
set -euo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC
step() { printf '\n==> %s\n' "$*"; }

step "cargo build -p granary"
cargo build -p granary
step "cargo test --workspace"
cargo test --workspace

target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
export GRANARY_BIN="${GRANARY_BIN:-$target_dir/debug/granary}"
step "pytest tests (GRANARY_BIN=$GRANARY_BIN)"
# The suites take a few minutes; the outer timeout only guards against a hang.
timeout --signal=TERM --kill-after=30 1800 python3 -m pytest -q -p no:cacheprovider tests
