"""Differential tests: every statement of tests/differential/*.sql runs in chdb (real
ClickHouse, in-process) and in Granary (over HTTP); the TabSeparated outputs must be
identical, except that numbers are compared within 1e-9 relative (after splitting rows on
newlines and columns on tabs). A statement that fails in chdb must fail in Granary with
the same error code. Test ids are `<file stem>-<statement number>` (1-based); append new
statements at the end of a file, or add a file, so ids in known_failures.txt stay valid.
Statements must not change state: both sides run them in their `default` database."""
import math
import re
from pathlib import Path

import pytest

from sqlfile import parse_sql_file

# chdb is the reference: a missing chdb must fail the suite, not skip it.
import chdb  # noqa: F401  (the import is the check)

DIR = Path(__file__).parent / "differential"
CASES = []
for path in sorted(DIR.glob("*.sql")):
    for index, statement in enumerate(parse_sql_file(path.read_text())):
        CASES.append(pytest.param(statement.sql, id=f"{path.stem}-{index + 1}"))

CODE = re.compile(r"Code: (\d+)\. DB::Exception: ")


def same_value(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if math.isnan(x) and math.isnan(y):
        return True
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=0.0)


def same_output(a: str, b: str) -> bool:
    rows_a, rows_b = a.split("\n"), b.split("\n")
    if len(rows_a) != len(rows_b):
        return False
    for ra, rb in zip(rows_a, rows_b):
        ca, cb = ra.split("\t"), rb.split("\t")
        if len(ca) != len(cb) or not all(same_value(x, y) for x, y in zip(ca, cb)):
            return False
    return True


@pytest.fixture(scope="module")
def chdb_session(tmp_path_factory):
    from chdb import session

    sess = session.Session(str(tmp_path_factory.mktemp("chdb")))
    yield sess
    sess.close()


def one_line(text: str, limit=100) -> str:
    text = text.strip().replace("\n", "\\n").replace("\t", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def error_name(text: str) -> str:
    m = re.search(r"Code: (\d+)\..*\(([A-Z_0-9]+)\)", text, re.S)
    return f"{m.group(1)} {m.group(2)}" if m else one_line(text, 60)


def first_difference(actual: str, expected: str) -> str:
    for a, e in zip(actual.split("\n"), expected.split("\n")):
        if not same_output(a, e):
            return f"Granary `{one_line(a, 90)}` vs ClickHouse `{one_line(e, 90)}`"
    return f"Granary {actual.count(chr(10))} rows vs ClickHouse {expected.count(chr(10))} rows"


def test_same_as_clickhouse(server, chdb_session, sql, request):
    def reason(text):
        request.node.user_properties.append(("failure_reason", text))

    try:
        expected = chdb_session.query(sql, "TabSeparated").bytes().decode(errors="replace")
        expected_code = None
    except Exception as e:  # chdb raises on every server-side error
        expected = str(e)
        m = CODE.search(expected)
        assert m, f"chdb failed without a ClickHouse error code: {expected}"
        expected_code = m.group(1)
    r = server.request(sql)
    actual = r.body.decode(errors="replace")
    if expected_code is not None:
        if r.status == 200:
            reason(f"ClickHouse fails with {error_name(expected)}, Granary returns `{one_line(actual, 80)}`")
        elif r.headers.get("X-ClickHouse-Exception-Code") != expected_code:
            reason(f"ClickHouse fails with {error_name(expected)}, Granary with {error_name(actual)}: {one_line(actual.split('DB::Exception: ', 1)[-1], 90)}")
        assert r.status != 200, f"\n{sql}\nClickHouse fails with code {expected_code}:\n{expected[:500]}\nGranary succeeded:\n{actual}"
        got = r.headers.get("X-ClickHouse-Exception-Code")
        assert got == expected_code, f"\n{sql}\nClickHouse: code {expected_code}\nGranary: {actual.strip()}"
        return
    if r.status != 200:
        reason(f"Granary fails with {error_name(actual)}: {one_line(actual.split('DB::Exception: ', 1)[-1], 90)}; ClickHouse returns `{one_line(expected, 60)}`")
    elif not same_output(actual, expected):
        reason(first_difference(actual, expected))
    assert r.status == 200, f"\n{sql}\nClickHouse:\n{expected}\nGranary failed with {r.status}:\n{actual}"
    assert same_output(actual, expected), f"\n{sql}\nClickHouse:\n{expected}\nGranary:\n{actual}"


def pytest_generate_tests(metafunc):
    if "sql" in metafunc.fixturenames:
        metafunc.parametrize("sql", CASES)
