"""Writes the .reference of a tests/sql file from real ClickHouse (chdb).

    python3 tests/tools/reference_from_chdb.py tests/sql/0001_select.sql [...]
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sqlfile import parse_sql_file  # noqa: E402

from chdb import session  # noqa: E402


def main():
    for name in sys.argv[1:]:
        path = Path(name)
        with tempfile.TemporaryDirectory() as tmp:
            sess = session.Session(tmp)
            database = "test_" + path.stem
            sess.query(f"CREATE DATABASE {database}")
            sess.query(f"USE {database}")
            out = []
            for statement in parse_sql_file(path.read_text()):
                try:
                    result = sess.query(statement.sql, "TabSeparated")
                    if statement.expected_error:
                        print(f"{path}: expected an error but chdb succeeded: {statement.sql}", file=sys.stderr)
                    out.append(result.bytes().decode())
                except Exception as e:  # chdb raises on server errors
                    if not statement.expected_error:
                        print(f"{path}: chdb failed on {statement.sql!r}: {e}", file=sys.stderr)
            sess.close()
        path.with_suffix(".reference").write_text("".join(out))
        print(f"wrote {path.with_suffix('.reference')}")


if __name__ == "__main__":
    main()
