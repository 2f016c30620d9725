"""Golden SQL files (tests/sql/*.sql + .reference) run through the real HTTP server.

Each file runs in a fresh database `test_<stem>` (passed as `database=` with every
statement) and one HTTP session (so SET lasts until the end of the file, as in
clickhouse-client); the outputs (TabSeparated unless the statement says otherwise) are
concatenated and compared with the .reference byte for byte.

`GRANARY_REGENERATE=1` rewrites the references from Granary's output; prefer
`tests/tools/reference_from_chdb.py FILE.sql`, which makes them from real ClickHouse.
"""
import difflib
import os
from pathlib import Path

import pytest

from conftest import STATUS_OF_CODE
from sqlfile import parse_sql_file

SQL_DIR = Path(__file__).parent / "sql"
FILES = sorted(SQL_DIR.glob("*.sql"))


def error_problem(statement, status, headers, text):
    """None if the response is the expected ClickHouse-shaped error, else what is wrong."""
    expected = statement.expected_error
    if status == 200:
        return f"expected error {expected}, got success: {text[:200]!r}"
    code = headers.get("X-ClickHouse-Exception-Code")
    if not code or not code.isdigit():
        return f"no X-ClickHouse-Exception-Code header (status {status}): {text[:300]!r}"
    if not text.startswith(f"Code: {code}. DB::Exception: ") or not text.endswith(")\n"):
        return f"error body is not `Code: {code}. DB::Exception: ... (NAME)\\n`: {text[:300]!r}"
    if expected.isdigit() and code != expected:
        return f"expected code {expected}, got {text.strip()[:300]}"
    if not expected.isdigit() and not text.rstrip().endswith(f"({expected})"):
        return f"expected {expected}, got {text.strip()[:300]}"
    wanted = STATUS_OF_CODE.get(int(code))
    if (wanted and status != wanted) or status < 400:
        return f"HTTP status {status} for code {code}, ClickHouse answers {wanted or '4xx/5xx'}"
    return None


def run_file(server, path: Path) -> bytes:
    """Runs every statement; an unexpected failure or a wrong error goes into the output as
    a `!!! line N: ...` line (which no reference has), so one diff shows every problem."""
    database = "test_" + path.stem
    server.query(f"DROP DATABASE IF EXISTS {database}")
    server.query(f"CREATE DATABASE {database}")
    params = {"database": database, "session_id": f"golden_{path.stem}"}
    out = []
    for statement in parse_sql_file(path.read_text()):
        status, headers, body = server.request(statement.sql, params=params)
        text = body.decode(errors="replace")
        if statement.expected_error:
            problem = error_problem(statement, status, headers, text)
            if problem:
                out.append(f"!!! line {statement.line}: {problem}\n".encode())
        elif status != 200:
            out.append(f"!!! line {statement.line}: failed with {status}: {text.strip()[:500]}\n".encode())
        else:
            out.append(body)
    server.query(f"DROP DATABASE IF EXISTS {database}")
    return b"".join(out)


def short_reason(expected: bytes, actual: bytes) -> str:
    """One line for known_failures.txt: the first failing statement, or the first differing
    output line."""
    act = actual.decode(errors="backslashreplace").splitlines()
    exp = expected.decode(errors="backslashreplace").splitlines()
    problems = [line for line in act if line.startswith("!!! line ")]
    extra = f" (+{len(problems) - 1} more failing statements)" if len(problems) > 1 else ""
    if problems:
        return problems[0][4:220] + extra
    for n, (a, e) in enumerate(zip(act, exp), 1):
        if a != e:
            return f"output line {n}: Granary `{a[:90]}` vs ClickHouse `{e[:90]}`"
    return f"Granary printed {len(act)} lines, ClickHouse {len(exp)}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_sql_file(server, path, request):
    actual = run_file(server, path)
    reference = path.with_suffix(".reference")
    if os.environ.get("GRANARY_REGENERATE") == "1":
        assert b"!!! line " not in actual, f"not regenerating {reference}: a statement failed\n{actual.decode(errors='replace')}"
        reference.write_bytes(actual)
        return
    assert reference.exists(), f"{reference} is missing (GRANARY_REGENERATE=1 or tests/tools/reference_from_chdb.py to create it)"
    expected = reference.read_bytes()
    if actual != expected:
        request.node.user_properties.append(("failure_reason", short_reason(expected, actual)))
        lines = lambda b: b.decode(errors="backslashreplace").splitlines(True)  # noqa: E731
        diff = "".join(difflib.unified_diff(lines(expected), lines(actual), "reference", "granary"))
        pytest.fail(f"{path.name}: output differs from the reference\n{diff[:20000]}", pytrace=False)
