"""Differential tests on MergeTree tables: the same tables, filled by the same INSERT ...
SELECT statements (differential_mergetree/setup.sql, run once in chdb and in Granary
with merges stopped so both sides keep the same parts), then every statement of
differential_mergetree/queries.sql must give the same TabSeparated output (numbers
within 1e-9 relative). Covers key pruning, partitions and SELECT ... FINAL on
ReplacingMergeTree and SummingMergeTree. Ids are `mergetree-<n>`."""
from pathlib import Path

import pytest

from sqlfile import parse_sql_file
from test_differential import first_difference, same_output

chdb = pytest.importorskip("chdb")

DIR = Path(__file__).parent / "differential_mergetree"
SETUP = [s.sql for s in parse_sql_file((DIR / "setup.sql").read_text())]
QUERIES = [
    pytest.param(s.sql, id=f"mergetree-{i + 1}") for i, s in enumerate(parse_sql_file((DIR / "queries.sql").read_text()))
]


@pytest.fixture(scope="module")
def both(server, tmp_path_factory):
    from chdb import session

    sess = session.Session(str(tmp_path_factory.mktemp("chdb_mt")))
    server.query("DROP DATABASE IF EXISTS mtdiff")
    for sql in SETUP:
        sess.query(sql)
        server.query(sql)
    yield sess
    server.query("DROP DATABASE IF EXISTS mtdiff")
    sess.close()


@pytest.mark.parametrize("sql", QUERIES)
def test_mergetree_same_as_clickhouse(both, server, sql):
    expected = both.query(sql, "TabSeparated").bytes().decode(errors="replace")
    r = server.request(sql)
    actual = r.body.decode(errors="replace")
    assert r.status == 200, f"\n{sql}\nClickHouse:\n{expected}\nGranary failed with {r.status}:\n{actual}"
    assert same_output(actual, expected), f"\n{sql}\n{first_difference(actual, expected)}\nClickHouse:\n{expected}\nGranary:\n{actual}"
