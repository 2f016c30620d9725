"""The sampling query profiler: system.trace_log filled from a real server's query
threads, read with the introspection functions as in seed 003's stack-trace query."""
import uuid

from conftest import http_request  # noqa: F401  (the server fixture comes from conftest)

PROFILE = {"query_profiler_cpu_time_period_ns": "1000000", "query_profiler_real_time_period_ns": "1000000"}
# Enough work for a few hundred samples at 1 ms on two threads, and not much more.
HEAVY = "SELECT sum(cityHash64(number, toString(number))) FROM numbers(30000000) SETTINGS max_threads = 2"


def profiled_query(server):
    query_id = "trace-" + uuid.uuid4().hex
    assert server.request(HEAVY, params={**PROFILE, "query_id": query_id}).status == 200
    server.query("SYSTEM FLUSH LOGS")
    return query_id


def test_samples_of_a_query(server):
    query_id = profiled_query(server)
    rows = server.query(
        f"SELECT trace_type, count(), uniqExact(thread_id) > 0, min(length(trace)) > 0, max(length(trace)) <= 64 "
        f"FROM system.trace_log WHERE query_id = '{query_id}' GROUP BY trace_type ORDER BY trace_type"
    )
    kinds = {line.split("\t")[0]: line.split("\t")[1:] for line in rows.splitlines()}
    assert set(kinds) <= {"Real", "CPU"} and "CPU" in kinds, rows
    for count, threads, nonempty, bounded in kinds.values():
        assert int(count) > 0 and (threads, nonempty, bounded) == ("1", "1", "1"), rows
    # Every column of ClickHouse's table is there; times are of this run.
    row = server.query(
        f"SELECT hostname != '', event_date = today(), abs(dateDiff('second', event_time, now())) < 600, "
        f"intDiv(timestamp_ns, 1000) = toUnixTimestamp64Micro(event_time_microseconds), revision > 0, size, ptr, event, increment "
        f"FROM system.trace_log WHERE query_id = '{query_id}' LIMIT 1"
    )
    assert row == "1\t1\t1\t1\t1\t0\t0\t\t0\n", row
    # The query's own work is what was sampled: its functions (toString, cityHash64) over its blocks.
    symbols = server.query(
        f"SELECT arrayStringConcat(arrayMap(x -> demangle(addressToSymbol(x)), trace), '\\n') FROM system.trace_log "
        f"WHERE query_id = '{query_id}' SETTINGS allow_introspection_functions = 1"
    )
    assert "granary_functions::" in symbols and "datafusion_physical_plan::aggregates" in symbols, symbols[:2000]


def test_seed_stack_trace_query(server):
    """Seed 003's query, with its query id: the ten most frequent stacks, symbolized."""
    query_id = profiled_query(server)
    out = server.query(
        "SELECT count(), arrayStringConcat(arrayMap(x -> concat(demangle(addressToSymbol(x)), '\\n ', addressToLine(x)), trace), '\\n') AS sym "
        "FROM system.trace_log "
        f"WHERE event_date = today() AND query_id != '' AND trace_type = 'CPU' and query_id='{query_id}' "
        "GROUP BY sym ORDER BY count() DESC LIMIT 10 "
        "SETTINGS allow_introspection_functions = 1 FORMAT JSONEachRow"
    )
    assert out.count("\n") >= 1, out
    # Lines come from the binary's line tables: Rust sources of this workspace or its deps.
    assert ".rs:" in out, out[:2000]


def test_introspection_needs_the_setting(server):
    r = server.request("SELECT addressToSymbol(arrayJoin(trace)) FROM system.trace_log LIMIT 1")
    assert r.status == 500 and r.headers.get("X-ClickHouse-Exception-Code") == "446", r.text
    assert "Introspection functions are disabled, because setting 'allow_introspection_functions' is set to 0" in r.text


def test_profiler_off_and_unprofiled_threads(server):
    """Periods of 0 take no samples; nor does anything outside queries."""
    query_id = "trace-off-" + uuid.uuid4().hex
    off = {"query_profiler_cpu_time_period_ns": "0", "query_profiler_real_time_period_ns": "0", "query_id": query_id}
    assert server.request(HEAVY, params=off).status == 200
    server.query("SYSTEM FLUSH LOGS")
    assert server.query(f"SELECT count() FROM system.trace_log WHERE query_id = '{query_id}'") == "0\n"
    assert server.query("SELECT count() FROM system.trace_log WHERE query_id = ''") == "0\n"
    # Turned on by the query's own SETTINGS clause.
    query_id = "trace-clause-" + uuid.uuid4().hex
    sql = HEAVY + ", query_profiler_cpu_time_period_ns = 1000000"
    assert server.request(sql, params={"query_id": query_id, "query_profiler_cpu_time_period_ns": "0", "query_profiler_real_time_period_ns": "0"}).status == 200
    server.query("SYSTEM FLUSH LOGS")
    assert int(server.query(f"SELECT count() FROM system.trace_log WHERE query_id = '{query_id}' AND trace_type = 'CPU'")) > 0
