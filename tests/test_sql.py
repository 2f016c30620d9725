"""Golden SQL files (tests/sql/*.sql + .reference) run through the real HTTP server.

Each file runs in a fresh database. `GRANARY_REGENERATE=1` rewrites the references from
Granary's output; `tests/tools/reference_from_chdb.py` makes them from real ClickHouse.
"""
import os
from pathlib import Path

import pytest

from conftest import load_known_failures
from sqlfile import parse_sql_file

SQL_DIR = Path(__file__).parent / "sql"
FILES = sorted(SQL_DIR.glob("*.sql"))
KNOWN = load_known_failures()


def run_file(server, path: Path) -> str:
    database = "test_" + path.stem
    server.query(f"DROP DATABASE IF EXISTS {database}")
    server.query(f"CREATE DATABASE {database}")
    out = []
    for statement in parse_sql_file(path.read_text()):
        status, headers, body = server.request(statement.sql, params={"database": database})
        text = body.decode(errors="replace")
        if statement.expected_error:
            assert status != 200, f"expected error {statement.expected_error} from:\n{statement.sql}\ngot:\n{text}"
            code = headers.get("X-ClickHouse-Exception-Code")
            assert text.startswith(f"Code: {code}. DB::Exception: "), text
            expected = statement.expected_error
            assert (expected.isdigit() and code == expected) or text.rstrip().endswith(f"({expected})"), (
                f"expected {expected}, got {text.strip()}"
            )
        else:
            assert status == 200, f"statement failed:\n{statement.sql}\n{text}"
            out.append(text)
    server.query(f"DROP DATABASE IF EXISTS {database}")
    return "".join(out)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_sql_file(server, path, request):
    if path.stem in KNOWN:
        request.applymarker(pytest.mark.xfail(reason=KNOWN[path.stem], strict=False))
    actual = run_file(server, path)
    reference = path.with_suffix(".reference")
    if os.environ.get("GRANARY_REGENERATE") == "1":
        reference.write_text(actual)
        return
    assert reference.exists(), f"{reference} is missing (GRANARY_REGENERATE=1 to create it)"
    expected = reference.read_text()
    assert actual == expected
