#!/usr/bin/env bash
# The project's test command: unit tests of every crate, then the SQL golden files, the
# differential tests against chdb and the end-to-end tests, all through a real server.
set -euo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC
cargo build -p granary
cargo test --workspace
export GRANARY_BIN="$PWD/target/debug/granary"
python3 -m pytest -q tests
