"""Differential tests: every statement of tests/differential/*.sql runs in chdb (real
ClickHouse) and in Granary; the TabSeparated outputs must be identical (floats within
1e-9 relative)."""
import math
from pathlib import Path

import pytest

from conftest import load_known_failures
from sqlfile import parse_sql_file

chdb = pytest.importorskip("chdb")

DIR = Path(__file__).parent / "differential"
CASES = []
for path in sorted(DIR.glob("*.sql")):
    for index, statement in enumerate(parse_sql_file(path.read_text())):
        CASES.append(pytest.param(statement.sql, id=f"{path.stem}-{index + 1}"))
KNOWN = load_known_failures()


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


@pytest.mark.parametrize("sql", CASES)
def test_same_as_clickhouse(server, chdb_session, sql, request):
    if request.node.callspec.id in KNOWN:
        request.applymarker(pytest.mark.xfail(reason=KNOWN[request.node.callspec.id], strict=False))
    expected = chdb_session.query(sql, "TabSeparated").bytes().decode()
    actual = server.query(sql)
    assert same_output(actual, expected), f"\n{sql}\nClickHouse:\n{expected}\nGranary:\n{actual}"
