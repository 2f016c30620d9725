"""Differential tests on MergeTree tables: the same tables, filled by the same INSERT ...
SELECT statements, then every statement of the suite's queries must give the same
TabSeparated output in chdb and in Granary (numbers within 1e-9 relative).

Suites: differential_mergetree/setup.sql + queries.sql (ids `mergetree-<n>`: key pruning,
partitions, SELECT ... FINAL on ReplacingMergeTree and SummingMergeTree), and every
subdirectory `<name>/` with its own setup.sql + queries.sql (ids `<name>-<n>`), e.g.
`telecom/`: the production workload of seed 003 (raw sessions, AggregatingMergeTree
rollups of uniq/sum states, nested dictionaries, system tables), `granules/`: granule
cuts (system.parts marks) after INSERTs of many sizes and after merges. Each suite's setup runs
once in a fresh chdb session and in Granary, with merges stopped so both sides keep the
same parts; its databases are dropped afterwards."""
import re
from pathlib import Path

import pytest

from sqlfile import parse_sql_file
from test_differential import first_difference, same_output

chdb = pytest.importorskip("chdb")

DIR = Path(__file__).parent / "differential_mergetree"
SUITES = {"mergetree": DIR} | {d.name: d for d in sorted(DIR.iterdir()) if d.is_dir() and (d / "setup.sql").exists()}
CREATE_DATABASE = re.compile(r"CREATE\s+DATABASE\s+IF\s+NOT\s+EXISTS\s+(\w+)", re.IGNORECASE)


def setup_of(suite):
    return [s.sql for s in parse_sql_file((SUITES[suite] / "setup.sql").read_text())]


def databases_of(setup):
    return [m.group(1) for sql in setup for m in [CREATE_DATABASE.match(sql)] if m]


QUERIES = [
    pytest.param(suite, s.sql, id=f"{suite}-{i + 1}")
    for suite, path in SUITES.items()
    for i, s in enumerate(parse_sql_file((path / "queries.sql").read_text()))
]


@pytest.fixture(scope="module")
def suites(server, tmp_path_factory):
    """Sets a suite up on first use; yields a function from suite name to the chdb
    session. chdb holds one data path per process, so every suite shares one session
    (they use databases of their own)."""
    from chdb import session

    sess = session.Session(str(tmp_path_factory.mktemp("chdb_mt")))
    ready = set()

    def get(suite):
        if suite not in ready:
            setup = setup_of(suite)
            for db in databases_of(setup):
                server.query(f"DROP DATABASE IF EXISTS {db}")
            for sql in setup:
                sess.query(sql)
                server.query(sql)
            ready.add(suite)
        return sess

    yield get
    for suite in ready:
        for db in databases_of(setup_of(suite)):
            server.query(f"DROP DATABASE IF EXISTS {db}")
    sess.close()


@pytest.mark.parametrize("suite,sql", QUERIES)
def test_mergetree_same_as_clickhouse(suites, server, suite, sql):
    expected = suites(suite).query(sql, "TabSeparated").bytes().decode(errors="replace")
    r = server.request(sql)
    actual = r.body.decode(errors="replace")
    assert r.status == 200, f"\n{sql}\nClickHouse:\n{expected}\nGranary failed with {r.status}:\n{actual}"
    assert same_output(actual, expected), f"\n{sql}\n{first_difference(actual, expected)}\nClickHouse:\n{expected}\nGranary:\n{actual}"
