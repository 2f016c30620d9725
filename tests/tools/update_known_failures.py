"""Rewrites tests/known_failures.txt from a run of the suites against the current binary.

    GRANARY_BIN=target/debug/granary python3 tests/tools/update_known_failures.py [--refresh] [pytest args]

Every test that fails (or is xfailed) gets a line `id  # reason`; a test that passes loses
its line. A reason already written in the file is kept (edit reasons by hand freely) unless
--refresh is given; new ones come from the failure: what Granary printed against what
ClickHouse printed."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
KNOWN = TESTS / "known_failures.txt"
HEADER = """\
# Tests expected to fail today: one id per line, `# reason` after it (what Granary printed
# vs what ClickHouse printed). The harness marks them xfail(strict=False): a fixed test shows
# as XPASS; then delete its line (or rerun tests/tools/update_known_failures.py).
# Ids: golden files by stem (0015_joins), differential statements by <file>-<n>
# (0004_arithmetic-12), other tests by name (test_query_log).
"""


def read_known():
    out = {}
    if KNOWN.exists():
        for line in KNOWN.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                name, _, reason = line.partition("#")
                out[name.strip()] = reason.strip()
    return out


def main():
    with tempfile.NamedTemporaryFile(suffix=".tsv", delete=False) as f:
        report = f.name
    env = {**os.environ, "GRANARY_FAILURE_REPORT": report}
    refresh = "--refresh" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "--refresh"]
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(TESTS), *args]
    code = subprocess.call(cmd, env=env)
    if code not in (0, 1):
        print(f"pytest exited with {code}; known_failures.txt not changed", file=sys.stderr)
        sys.exit(code)
    failures, ran = {}, set()
    for line in Path(report).read_text().splitlines():
        name, outcome, reason = line.split("\t", 2)
        ran.add(name)
        if outcome == "failed":
            failures[name] = reason
    os.unlink(report)
    old = read_known()
    # tests this run did not reach (a partial run, -k ...) keep their lines
    failures = {**{k: v for k, v in old.items() if k not in ran}, **failures}

    def order(name):
        kind = 0 if name[:4].isdigit() and "-" not in name else (1 if name[:4].isdigit() else 2)
        return (kind, name.split("-")[0], int(name.rsplit("-", 1)[1]) if kind == 1 else 0, name)

    lines = [f"{name}  # {(None if refresh and name in ran else old.get(name)) or failures[name]}" for name in sorted(failures, key=order)]
    KNOWN.write_text(HEADER + "\n".join(lines) + ("\n" if lines else ""))
    print(f"{len(lines)} known failures written to {KNOWN} ({len(set(old) - set(failures))} fixed, {len(set(failures) - set(old))} new, {len(ran)} tests run)")


if __name__ == "__main__":
    main()
