"""Writes the .reference of tests/sql files from real ClickHouse (chdb).

    python3 tests/tools/reference_from_chdb.py tests/sql/0001_select_basics.sql [...]
    python3 tests/tools/reference_from_chdb.py --check tests/sql/*.sql   # compare only

Each file runs in a fresh chdb session (temp dir) in database `test_<stem>`, statement by
statement, TabSeparated unless the statement has a FORMAT clause, exactly as
tests/test_sql.py runs it against Granary. A statement marked `-- { serverError X }` must
fail in chdb with X (warned otherwise) and prints nothing. Files whose first line is
`-- no-chdb: ...` are skipped. Exits non-zero if chdb disagreed with any error mark or
failed on an unmarked statement (the reference is then not written)."""
import os
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ["TZ"] = "UTC"
time.tzset()
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sqlfile import chdb_can_run, parse_sql_file  # noqa: E402

from chdb import session  # noqa: E402

CODE = re.compile(r"Code: (\d+)\. DB::Exception: .*\(([A-Z_0-9]+)\)", re.S)


def run(path: Path):
    """Returns (output bytes, problems)."""
    problems = []
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        sess = session.Session(tmp)
        try:
            database = "test_" + path.stem
            sess.query(f"CREATE DATABASE {database}")
            sess.query(f"USE {database}")
            for st in parse_sql_file(path.read_text()):
                try:
                    result = sess.query(st.sql, "TabSeparated")
                except Exception as e:  # chdb raises on server errors
                    if not st.expected_error:
                        problems.append(f"line {st.line}: chdb failed on {st.sql!r}: {e}")
                        continue
                    m = CODE.search(str(e))
                    if not m or st.expected_error not in (m.group(1), m.group(2)):
                        problems.append(f"line {st.line}: expected {st.expected_error}, chdb said: {str(e)[:300]}")
                    continue
                if st.expected_error:
                    problems.append(f"line {st.line}: expected {st.expected_error} but chdb succeeded: {st.sql}")
                out.append(result.bytes())
        finally:
            sess.close()
    return b"".join(out), problems


def main():
    args = sys.argv[1:]
    check = "--check" in args
    paths = [Path(a) for a in args if a != "--check"]
    failed = False
    for path in paths:
        if not chdb_can_run(path.read_text()):
            print(f"skip {path} (no-chdb)")
            continue
        output, problems = run(path)
        for p in problems:
            print(f"{path}: {p}", file=sys.stderr)
        reference = path.with_suffix(".reference")
        if problems:
            failed = True
            print(f"NOT written {reference}")
            continue
        if check:
            same = reference.exists() and reference.read_bytes() == output
            print(f"{'same' if same else 'DIFFERS'} {reference}")
            failed |= not same
        else:
            reference.write_bytes(output)
            print(f"wrote {reference}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
