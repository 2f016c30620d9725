"""End to end: the real server process over raw HTTP, restarts, and the CLI tools
(`granary client`, `granary local`)."""
import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
import uuid

import pytest
from pathlib import Path

import http.client

from conftest import BINARY, Server, free_port, http_request

SUMMARY_KEYS = {"read_rows", "read_bytes", "written_rows", "written_bytes", "result_rows", "elapsed_ns"}


def assert_clickhouse_error(r, code, name, status=None):
    text = r.text
    got = f"got status {r.status}, code header {r.headers.get('X-ClickHouse-Exception-Code')}: {text.strip()[:200]!r}"
    assert r.status != 200, f"expected error {code} {name}, {got}"
    if status is not None:
        assert r.status == status, f"expected status {status} with {code} {name}, {got}"
    assert r.headers.get("X-ClickHouse-Exception-Code") == str(code), f"expected code {code} {name}, {got}"
    assert text.startswith(f"Code: {code}. DB::Exception: "), f"expected a `Code: {code}. DB::Exception:` body, {got}"
    assert text.endswith(f"({name})\n"), f"expected the body to end with ({name}), {got}"


def raw_exchange(port, payload: bytes, read_timeout=10) -> bytes:
    """Sends raw bytes on a fresh connection and reads until the server closes or times out."""
    with socket.create_connection(("127.0.0.1", port), timeout=read_timeout) as s:
        s.sendall(payload)
        chunks = []
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                if b"\r\n\r\n" in b"".join(chunks) and len(b"".join(chunks)) > 4096:
                    break
        except (socket.timeout, ConnectionResetError):
            pass
    return b"".join(chunks)


def assert_server_healthy(server):
    assert server.alive(), server.log_text()[-3000:]
    assert http_request(server.port, "GET", "/ping").body == b"Ok.\n"
    assert server.query("SELECT 1") == "1\n"


# ---------------------------------------------------------------- basics


def test_ping_and_root(server):
    for path in ["/", "/ping"]:
        r = http_request(server.port, "GET", path)
        assert (r.status, r.body) == (200, b"Ok.\n"), path


def test_get_and_post_queries(server):
    r = server.request(params={"query": "SELECT 1"}, method="GET")
    assert (r.status, r.body) == (200, b"1\n")
    assert r.headers["X-ClickHouse-Format"] == "TabSeparated"
    assert r.headers["X-ClickHouse-Timezone"] == "UTC"
    assert r.headers["X-ClickHouse-Query-Id"]
    r = server.request("SELECT number FROM numbers(3)")
    assert (r.status, r.body) == (200, b"0\n1\n2\n")
    r = server.request(params={"query": "SELECT 'via url'"}, method="POST")
    assert (r.status, r.body) == (200, b"via url\n")
    # the query may be split between the URL and the body
    r = server.request("FROM numbers(2)", params={"query": "SELECT number"})
    assert (r.status, r.body) == (200, b"0\n1\n"), r.text


def test_numbers_reads_only_the_range_the_where_keeps(server):
    # ClickHouse's numbers() generates only the numbers a WHERE on `number` can keep.
    for sql, body, read in [
        ("SELECT count() FROM numbers(1000000) WHERE number < 10", b"10\n", 10),
        ("SELECT sum(number) FROM numbers(1000000) WHERE number >= 999990 AND number < 2000000", b"9999945\n", 10),
        ("SELECT count() FROM system.numbers WHERE number BETWEEN 5 AND 9", b"5\n", 5),
        ("SELECT count() FROM numbers(1000) WHERE number < 10 OR number % 3 = 0", b"340\n", 1000),
    ]:
        r = server.request(sql)
        assert r.body == body, (sql, r.text)
        assert json.loads(r.headers["X-ClickHouse-Summary"])["read_rows"] == str(read), (sql, r.headers["X-ClickHouse-Summary"])


def test_summary_header(server):
    r = server.request("SELECT sum(number) FROM numbers(100000)")
    assert r.body == b"4999950000\n"
    summary = json.loads(r.headers["X-ClickHouse-Summary"])
    assert SUMMARY_KEYS <= set(summary), summary
    assert all(isinstance(v, str) and v.isdigit() for v in summary.values()), summary
    assert summary["read_rows"] == "100000"
    assert int(summary["read_bytes"]) >= 800000
    assert summary["result_rows"] == "1"
    assert summary["written_rows"] == "0"
    assert int(summary["elapsed_ns"]) > 0
    server.query("CREATE TABLE default.summ (x UInt64) ENGINE = Memory")
    try:
        r = server.request("INSERT INTO default.summ SELECT number FROM numbers(1234)")
        summary = json.loads(r.headers["X-ClickHouse-Summary"])
        assert summary["written_rows"] == "1234", summary
        assert int(summary["written_bytes"]) >= 1234 * 8, summary
    finally:
        server.query("DROP TABLE default.summ")


def test_uint256_key_prunes_in_unsigned_order(server):
    # Keys 0, 2^247, 2 * 2^247, ...: the upper half is at or above 2^255, which a signed
    # comparison of the index's words would put below zero.
    server.query("CREATE TABLE default.u256k (k UInt256, v UInt32) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 16")
    step = 2**247
    try:
        server.query(f"INSERT INTO default.u256k SELECT toUInt256(number) * toUInt256('{step}'), number FROM numbers(512)")
        for where, expected, max_read in [
            (f"k > toUInt256('{2**255 + 5 * step}')", list(range(262, 512)), 512 - 256),
            (f"k >= {2**64}", list(range(1, 512)), 512),
            (f"k < toUInt256('{2**255 + 3 * step}')", list(range(0, 259)), 259 + 16),
            (f"k = toUInt256('{2**255 + 40 * step}')", [296], 16),
            (f"toUInt256('{2**255 + 40 * step}') = k", [296], 16),
            (f"k IN (toUInt256('{2**255 + 40 * step}'), toUInt256('{300 * step}'), 0)", [0, 296, 300], 3 * 16),
            (f"k <= toUInt256('{7 * step}') AND k > -1", list(range(0, 8)), 16),
            # A literal above UInt64 is a Float64: no pruning, the same rows.
            (f"k <= {7 * step}", list(range(0, 8)), 512),
        ]:
            r = server.request(f"SELECT v FROM default.u256k WHERE {where} ORDER BY v")
            assert r.status == 200, r.text
            assert [int(x) for x in r.body.split()] == expected, where
            summary = json.loads(r.headers["X-ClickHouse-Summary"])
            assert int(summary["read_rows"]) <= max_read, (where, summary)
    finally:
        server.query("DROP TABLE default.u256k")


def test_point_lookup_reads_only_its_granules(server):
    server.query("CREATE TABLE default.pl (id UInt64, v String) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 128")
    try:
        server.query("INSERT INTO default.pl SELECT number, toString(number) FROM numbers(100000)")
        for sql, rows, max_read in [
            ("SELECT * FROM default.pl WHERE id = 77777", "77777\t77777\n", 128),
            # 100000 rows end with 32, under half a granule: the last granule holds 160.
            ("SELECT v FROM default.pl PREWHERE id IN (5, 50000, 99999, 100001)", None, 2 * 128 + 160),
        ]:
            r = server.request(sql)
            assert r.status == 200, r.text
            if rows is not None:
                assert r.body.decode() == rows
            summary = json.loads(r.headers["X-ClickHouse-Summary"])
            assert 0 < int(summary["read_rows"]) <= max_read, (sql, summary)
        assert sorted(server.query("SELECT v FROM default.pl PREWHERE id IN (5, 50000, 99999, 100001)").split()) == ["5", "50000", "99999"]
    finally:
        server.query("DROP TABLE default.pl")


def test_virtual_column_filters_prune_parts(server):
    # Filters on _part and _partition_id drop whole parts before any granule is read, and
    # reading only virtual columns reads no column file (read_bytes stays 0).
    server.query("CREATE TABLE default.vparts (d UInt32, x UInt64, payload String) ENGINE = MergeTree PARTITION BY d ORDER BY x SETTINGS index_granularity = 256")
    try:
        server.query("SYSTEM STOP MERGES default.vparts")
        for d in range(4):
            server.query(f"INSERT INTO default.vparts SELECT {d}, number, repeat('x', 50) FROM numbers(10000)")
        parts = server.query("SELECT name FROM system.parts WHERE database = 'default' AND table = 'vparts' AND active ORDER BY name").split()
        assert len(parts) == 4, parts
        for where, count, max_read in [
            ("_partition_id = '2'", "10000", 10000),
            ("_partition_id IN ('1', '3')", "20000", 20000),
            (f"_part = '{parts[0]}'", "10000", 10000),
            ("_part LIKE '3\\_%'", "10000", 10000),
            ("_partition_id = '2' AND x < 300", "300", 512),
            ("_partition_id = 'none'", "0", 0),
            ("_part_index = 1", "10000", 10000),
        ]:
            r = server.request(f"SELECT count(), sum(length(payload)) > 0 OR count() = 0 FROM default.vparts WHERE {where}")
            assert r.status == 200, r.text
            assert r.text.split("\t")[0] == count, (where, r.text)
            summary = json.loads(r.headers["X-ClickHouse-Summary"])
            assert int(summary["read_rows"]) <= max_read, (where, summary)
        r = server.request("SELECT _part, count(), max(_part_offset) FROM default.vparts GROUP BY _part ORDER BY _part")
        assert r.status == 200, r.text
        assert r.text == "".join(f"{p}\t10000\t9999\n" for p in parts), r.text
        summary = json.loads(r.headers["X-ClickHouse-Summary"])
        assert summary["read_rows"] == "40000" and summary["read_bytes"] == "0", summary
    finally:
        server.query("DROP TABLE default.vparts")


def test_numbers_as_conditions_keep_key_pruning(server):
    # `WHERE key = 5 AND flag` (flag a UInt8): the number is a condition as in ClickHouse,
    # and the key condition beside it still selects one granule.
    server.query("CREATE TABLE default.flags (key UInt64, flag UInt8, n Nullable(UInt8)) ENGINE = MergeTree ORDER BY key SETTINGS index_granularity = 128")
    try:
        server.query("INSERT INTO default.flags SELECT number, number % 2, if(number % 3 = 0, NULL, number % 3 - 1) FROM numbers(100000)")
        for where, count, max_read in [
            ("key = 5 AND flag", "1", 128),
            ("key = 6 AND flag", "0", 128),
            ("key = 5 AND NOT flag", "0", 128),
            ("key < 1000 AND flag AND n", "166", 1024),
            ("flag AND key >= 99000", "500", 1152),
        ]:
            r = server.request(f"SELECT count() FROM default.flags WHERE {where}")
            assert r.status == 200, r.text
            assert r.text == count + "\n", (where, r.text)
            summary = json.loads(r.headers["X-ClickHouse-Summary"])
            assert 0 < int(summary["read_rows"]) <= max_read, (where, summary)
        assert server.query("SELECT count() FROM default.flags WHERE flag") == "50000\n"
    finally:
        server.query("DROP TABLE default.flags")


def test_prewhere_reads_other_columns_only_for_matching_granules(server):
    server.query("CREATE TABLE default.pw (id UInt64, tag UInt32, payload String) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 256")
    try:
        server.query("INSERT INTO default.pw SELECT number, if(number = 77777, 1, 0), repeat(toString(number), 20) FROM numbers(100000)")
        results = {}
        for setting in (0, 1):
            for clause in ("WHERE", "PREWHERE"):
                r = server.request(f"SELECT id, length(payload) FROM default.pw {clause} tag = 1 SETTINGS optimize_move_to_prewhere = {setting}")
                assert r.status == 200, r.text
                summary = json.loads(r.headers["X-ClickHouse-Summary"])
                results[(setting, clause)] = (r.body.decode(), int(summary["read_rows"]), int(summary["read_bytes"]))
        assert {v[0] for v in results.values()} == {"77777\t100\n"}
        # Every row of the filter column is read either way...
        assert all(v[1] == 100000 for v in results.values()), results
        # ...but the payload only for the one granule that matches.
        with_prewhere, without = results[(1, "WHERE")][2], results[(0, "WHERE")][2]
        assert with_prewhere * 5 < without, results
        # NULL and volatile filters keep WHERE semantics.
        assert server.query("SELECT count() FROM default.pw WHERE if(tag = 1, NULL, 0) = 0") == "99999\n"
        n = int(server.query("SELECT count() FROM default.pw WHERE rand() % 2 = 0"))
        assert 40000 < n < 60000
    finally:
        server.query("DROP TABLE default.pw")


def test_topk_threshold_filters_in_the_scan(server):
    # ORDER BY ts LIMIT 5 (ts not a key prefix): once the TopK holds 5 rows, the scan drops
    # rows after its threshold before it reads their payload (ClickHouse's
    # use_top_k_dynamic_filtering), so most payload granules are never read.
    server.query("CREATE TABLE default.topk (id UInt64, ts UInt64, payload String) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 256")
    try:
        server.query("INSERT INTO default.topk SELECT number, (number * 7919) % 100003, repeat(toString(number), 20) FROM numbers(300000)")
        results = {}
        for setting in (0, 1):
            r = server.request(f"SELECT id, ts, length(payload) FROM default.topk ORDER BY ts, id LIMIT 5 SETTINGS use_top_k_dynamic_filtering = {setting}, max_block_size = 8192")
            assert r.status == 200, r.text
            summary = json.loads(r.headers["X-ClickHouse-Summary"])
            results[setting] = (r.body.decode(), int(summary["read_rows"]), int(summary["read_bytes"]))
        assert results[0][0] == results[1][0], results
        assert results[1][0].splitlines()[0].split("\t")[1] == "0", results
        assert results[0][1] == results[1][1] == 300000, results
        assert results[1][2] * 3 < results[0][2], results
    finally:
        server.query("DROP TABLE default.topk")


@pytest.mark.parametrize("direction", ["ASC", "DESC"])
def test_topk_threshold_skips_parts_and_granules(server, direction):
    # Parts by day and granules of each probe's run hold ranges of ts: once the TopK holds
    # its rows, parts and granules whose ts range lies past the threshold are not read at
    # all, and the scan reads its parts in the order of ts (seed 003's query 2).
    server.query(
        "CREATE TABLE default.topk_parts (ts UInt64, probe UInt32, payload String) ENGINE = MergeTree "
        "PARTITION BY intDiv(ts, 10000) ORDER BY (probe, ts) SETTINGS index_granularity = 256"
    )
    try:
        server.query("INSERT INTO default.topk_parts SELECT number, number % 7, repeat(toString(number), 10) FROM numbers(200000)")
        results = {}
        for setting in (0, 1):
            r = server.request(
                f"SELECT ts, probe, length(payload) FROM default.topk_parts WHERE payload LIKE '%5%' ORDER BY ts {direction} LIMIT 5 "
                f"SETTINGS use_top_k_dynamic_filtering = {setting}, max_block_size = 1024"
            )
            assert r.status == 200, r.text
            summary = json.loads(r.headers["X-ClickHouse-Summary"])
            results[setting] = (r.body.decode(), int(summary["read_rows"]))
        assert results[0][0] == results[1][0], results
        first = int(results[1][0].splitlines()[0].split("\t")[0])
        assert first == (5 if direction == "ASC" else 199995), results
        assert results[0][1] == 200000, results
        assert results[1][1] <= 30000, results
    finally:
        server.query("DROP TABLE default.topk_parts")


def test_topk_over_a_prewhere_reads_the_scan_blocks(server):
    # The scan applies the WHERE as its PREWHERE, so the filter above it is dropped under
    # an ORDER BY ... LIMIT: it evaluated the same conditions again and held its rows back
    # until it had a whole max_block_size of them, keeping the TopK's threshold unset.
    server.query("CREATE TABLE default.topk_where (ts UInt64, payload String) ENGINE = MergeTree ORDER BY tuple()")
    try:
        server.query("INSERT INTO default.topk_where SELECT number, toString(number) FROM numbers(50000)")
        query = "SELECT ts, payload FROM default.topk_where WHERE payload LIKE '%77%' ORDER BY ts DESC LIMIT 3"
        assert "FilterExec" not in server.query("EXPLAIN PIPELINE " + query)
        expected = "49977\t49977\n49877\t49877\n49779\t49779\n"
        assert server.query(query) == expected
        # Without a PREWHERE (or with a volatile condition) the filter stays.
        assert "FilterExec" in server.query("EXPLAIN PIPELINE " + query + " SETTINGS optimize_move_to_prewhere = 0")
        assert server.query(query + " SETTINGS optimize_move_to_prewhere = 0") == expected
        volatile = "SELECT ts FROM default.topk_where WHERE payload LIKE '%77%' AND rand() >= 0 ORDER BY ts LIMIT 1"
        assert "FilterExec" in server.query("EXPLAIN PIPELINE " + volatile)
        assert server.query(volatile) == "77\n"
    finally:
        server.query("DROP TABLE default.topk_where")


@pytest.mark.parametrize(
    "order_by, where, count, max_read",
    [
        ("ts", "toDate(ts) = '2024-01-05'", 1440, 2048),
        ("ts", "toStartOfHour(ts) = '2024-01-05 10:00:00'", 60, 512),
        ("ts", "'2024-02-01' <= toDate(ts)", 100000 - 31 * 1440, 60000),
        ("(toStartOfHour(ts), id)", "ts >= '2024-01-05 10:30:00' AND ts < '2024-01-05 12:00:00'", 90, 768),
        ("(toStartOfHour(ts), id)", "ts = '2024-01-05 10:31:00'", 1, 512),
        ("(toDate(ts), id)", "toDate(ts) = '2024-01-05'", 1440, 2048),
    ],
)
def test_monotonic_functions_prune_granules(server, order_by, where, count, max_read):
    server.query(f"CREATE TABLE default.mono (ts DateTime, id UInt64) ENGINE = MergeTree ORDER BY {order_by} SETTINGS index_granularity = 256")
    try:
        server.query("INSERT INTO default.mono SELECT toDateTime('2024-01-01 00:00:00') + number * 60, number FROM numbers(100000)")
        r = server.request(f"SELECT count() FROM default.mono WHERE {where}")
        assert r.status == 200, r.text
        assert int(r.body) == count
        summary = json.loads(r.headers["X-ClickHouse-Summary"])
        assert 0 < int(summary["read_rows"]) <= max_read, summary
    finally:
        server.query("DROP TABLE default.mono")


def test_uncompressed_cache(server):
    def metric(name):
        return float(server.query(f"SELECT value FROM system.asynchronous_metrics WHERE metric = '{name}'") or 0)

    def event(name):
        return int(server.query(f"SELECT value FROM system.events WHERE event = '{name}'") or 0)

    server.query("CREATE TABLE default.uc (id UInt64, v String) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 128")
    try:
        server.query("INSERT INTO default.uc SELECT number, toString(number * 3) FROM numbers(50000)")
        server.query("SYSTEM DROP UNCOMPRESSED CACHE")
        assert metric("UncompressedCacheBytes") == 0
        queries = ["SELECT * FROM default.uc WHERE id = 4242", "SELECT count(), sum(length(v)) FROM default.uc WHERE id BETWEEN 100 AND 900"]
        plain = [server.query(q) for q in queries]
        assert metric("UncompressedCacheBytes") == 0, "use_uncompressed_cache = 0 must not fill the cache"
        hits = event("UncompressedCacheHits")
        cached = [server.query(q + " SETTINGS use_uncompressed_cache = 1") for q in queries]
        assert metric("UncompressedCacheBytes") > 0 and metric("UncompressedCacheCells") > 0
        again = [server.query(q + " SETTINGS use_uncompressed_cache = 1") for q in queries]
        assert plain == cached == again
        assert event("UncompressedCacheHits") > hits
        # Big reads bypass the cache.
        server.query("SYSTEM DROP UNCOMPRESSED CACHE")
        server.query("SELECT sum(id) FROM default.uc SETTINGS use_uncompressed_cache = 1, merge_tree_max_rows_to_use_cache = 1000")
        assert metric("UncompressedCacheBytes") == 0
        # So do reads of more bytes (8 per UInt64 row here) than merge_tree_max_bytes_to_use_cache.
        server.query("SELECT sum(id) FROM default.uc SETTINGS use_uncompressed_cache = 1, merge_tree_max_rows_to_use_cache = 1000000, merge_tree_max_bytes_to_use_cache = 100000")
        assert metric("UncompressedCacheBytes") == 0
        server.query("SELECT sum(id) FROM default.uc SETTINGS use_uncompressed_cache = 1, merge_tree_max_rows_to_use_cache = 1000000, merge_tree_max_bytes_to_use_cache = 1000000")
        assert metric("UncompressedCacheBytes") > 0
        server.query("SYSTEM DROP UNCOMPRESSED CACHE")
        assert metric("TotalRowsOfMergeTreeTables") >= 50000 and metric("MarkCacheBytes") > 0
        # Marks dropped from the mark cache are read again from the part's files.
        server.query("SYSTEM DROP MARK CACHE")
        assert metric("MarkCacheFiles") == 0
        misses, mark_hits = event("MarkCacheMisses"), event("MarkCacheHits")
        assert [server.query(q) for q in queries] == plain
        assert event("MarkCacheMisses") > misses and metric("MarkCacheFiles") > 0
        assert [server.query(q) for q in queries] == plain
        assert event("MarkCacheHits") > mark_hits
        assert metric("MarkCacheMaxBytes") == 5 * 2**30
    finally:
        server.query("DROP TABLE default.uc")


def test_query_id(server):
    r = server.request("SELECT 1", params={"query_id": "my-query-1"})
    assert r.headers["X-ClickHouse-Query-Id"] == "my-query-1"
    ids = {server.request("SELECT 1").headers["X-ClickHouse-Query-Id"] for _ in range(5)}
    assert len(ids) == 5, ids
    r = server.request("SELECT nope", params={"query_id": "failing-query"})
    assert r.status != 200 and r.headers["X-ClickHouse-Query-Id"] == "failing-query"


def test_query_id_functions_return_the_http_query_id(server):
    # The same text twice: the second run must not reuse the first one's plan (and ID).
    sql = "SELECT queryID(), currentQueryID(), initialQueryID(), query_id()"
    for query_id in ("qid-fn-1", "qid-fn-2"):
        r = server.request(sql, params={"query_id": query_id})
        assert r.status == 200
        assert r.body.decode() == "\t".join([query_id] * 4) + "\n"
    generated = server.request(sql)
    assert generated.body.decode().split("\t")[0] == generated.headers["X-ClickHouse-Query-Id"]


def test_query_parameters(server):
    assert server.query("SELECT {x:UInt64} + 1, {s:String}", param_x="41", param_s="it's") == "42\tit\\'s\n"
    out = server.query(
        "SELECT {a:Array(UInt8)}, {d:Date}, {n:Nullable(UInt8)}, {s:String}, {f:Float64}",
        param_a="[1,2]", param_d="2024-01-02", param_n="\\N", param_s="tab\\there", param_f="-1.5",
    )
    assert out == "[1,2]\t2024-01-02\t\\N\ttab\\there\t-1.5\n"
    assert server.query("SELECT {c:Identifier} FROM system.one", param_c="dummy") == "0\n"
    assert server.query("SELECT count() FROM numbers(10) WHERE number < {lim:UInt8}", param_lim="4") == "4\n"
    assert_clickhouse_error(server.request("SELECT {x:UInt64}"), 456, "UNKNOWN_QUERY_PARAMETER")
    assert_clickhouse_error(server.request("SELECT {x:UInt64}", params={"param_x": "nope"}), 457, "BAD_QUERY_PARAMETER")


def test_settings_and_database_as_url_params(server):
    assert server.query("SELECT value FROM system.settings WHERE name = 'max_threads'", max_threads="3") == "3\n"
    assert server.query("SELECT value FROM system.settings WHERE name = 'max_block_size'", max_block_size="100") == "100\n"
    r = server.request("SELECT 1 AS a", params={"default_format": "JSONEachRow"})
    assert r.body == b'{"a":1}\n' and r.headers["X-ClickHouse-Format"] == "JSONEachRow"
    r = server.request("SELECT 1 AS a FORMAT CSVWithNames", params={"default_format": "JSONEachRow"})
    assert r.body == b'"a"\n1\n' and r.headers["X-ClickHouse-Format"] == "CSVWithNames"
    assert server.query("SELECT currentDatabase()", database="system") == "system\n"
    assert server.query("SELECT count() FROM one", database="system") == "1\n"
    assert_clickhouse_error(server.request(params={"query": "SELECT 1", "no_such_setting": "1"}, method="GET"), 115, "UNKNOWN_SETTING", 404)
    r = server.request("SELECT 1", params={"max_threads": "many"})
    assert r.status >= 400 and r.headers.get("X-ClickHouse-Exception-Code"), r.text
    assert_clickhouse_error(server.request("SELECT 1", params={"database": "no_such_db_e2e"}), 81, "UNKNOWN_DATABASE", 404)


def test_errors_have_clickhouse_shape(server):
    cases = [
        ("SELECT * FROM no_such_table", 404, 60, "UNKNOWN_TABLE"),
        ("SELEC 1", 400, 62, "SYNTAX_ERROR"),
        ("SELECT no_such_function(1)", 404, 46, "UNKNOWN_FUNCTION"),
        ("SELECT * FROM no_db.t", 404, 81, "UNKNOWN_DATABASE"),
        ("SELECT nope FROM system.one", 404, 47, "UNKNOWN_IDENTIFIER"),
        ("SELECT toUInt64('abc')", 400, 6, "CANNOT_PARSE_TEXT"),
        ("SELECT 1 + 'a'", 400, 43, "ILLEGAL_TYPE_OF_ARGUMENT"),
        ("CREATE TABLE default.e2e_bad (x NoSuchType) ENGINE = Memory", 404, 50, "UNKNOWN_TYPE"),
        ("SELECT 1 FORMAT NoSuchFormat", 404, 73, "UNKNOWN_FORMAT"),
    ]
    wrong = []
    for sql, status, code, name in cases:
        r = server.request(sql)
        try:
            assert_clickhouse_error(r, code, name, status)
        except AssertionError:
            wrong.append(f"{sql}: expected {status} {code} {name}, got {r.status} {r.text.strip()[:200]}")
    assert not wrong, "\n".join(wrong)
    assert_server_healthy(server)


def test_get_is_readonly(server):
    r = server.request(params={"query": "CREATE DATABASE via_get"}, method="GET")
    assert_clickhouse_error(r, 164, "READONLY")
    assert server.query("EXISTS DATABASE via_get") == "0\n"


# ---------------------------------------------------------------- INSERT data in the body


def test_insert_with_body_in_formats(server):
    server.query("CREATE TABLE default.ins (id UInt64, name String) ENGINE = Memory")
    try:
        def insert(query, data=None):
            r = server.request(data=data, params={"query": query}) if data is not None else server.request(query)
            assert r.status == 200, (query, r.text)
            return r

        insert("INSERT INTO default.ins FORMAT CSV", b"1,a\n2,\"b,c\"\n")
        insert("INSERT INTO default.ins FORMAT TSV", b"3\td\n")
        insert("INSERT INTO default.ins FORMAT TabSeparated", b"30\tescaped\\ttab\n")
        insert("INSERT INTO default.ins FORMAT JSONEachRow", b'{"id":4,"name":"e"}\n{"name":"e2","id":40}\n')
        insert("INSERT INTO default.ins VALUES", b"(5,'f')")
        insert("INSERT INTO default.ins FORMAT CSVWithNames", b"name,id\ng,6\n")
        insert("INSERT INTO default.ins FORMAT TSVWithNames", b"id\tname\n60\th\n")
        insert("INSERT INTO default.ins FORMAT CSVWithNames\nname,id\ng2,61\n")
        insert('INSERT INTO default.ins FORMAT JSONEachRow {"id": 7, "name": "{h:String}"}')
        insert("INSERT INTO default.ins (name, id) FORMAT CSV", b"reordered,8\n")
        out = server.query("SELECT id, name FROM default.ins ORDER BY id")
        assert out == (
            "1\ta\n2\tb,c\n3\td\n4\te\n5\tf\n6\tg\n7\t{h:String}\n8\treordered\n"
            "30\tescaped\\ttab\n40\te2\n60\th\n61\tg2\n"
        ), out
    finally:
        server.query("DROP TABLE default.ins")


def test_bad_insert_names_row_and_column_and_leaves_nothing(server):
    server.query("CREATE TABLE default.bad_ins (id UInt64, amount UInt32, day Date) ENGINE = Memory")
    try:
        server.request(params={"query": "INSERT INTO default.bad_ins FORMAT CSV"}, data=b"1,10,2024-01-01\n")
        rows = b"".join(b"%d,%d,2024-01-02\n" % (i, i) for i in range(2, 100))
        for fmt, data, column in [
            ("CSV", rows + b"100,oops,2024-01-02\n", b"amount"),
            ("CSV", rows + b"100,5,not-a-date\n", b"day"),
            ("TSV", rows.replace(b",", b"\t") + b"100\toops\t2024-01-02\n", b"amount"),
            ("JSONEachRow", b'{"id":2,"amount":1,"day":"2024-01-01"}\n' * 98 + b'{"id":100,"amount":"oops","day":"2024-01-01"}\n', b"amount"),
        ]:
            r = server.request(params={"query": f"INSERT INTO default.bad_ins FORMAT {fmt}"}, data=data)
            assert r.status >= 400, (fmt, r.text)
            assert r.headers.get("X-ClickHouse-Exception-Code"), r.text
            assert r.text.startswith("Code: "), r.text
            assert b"row 99" in r.body, (fmt, r.text)
            assert column in r.body, (fmt, r.text)
            assert server.query("SELECT count() FROM default.bad_ins") == "1\n", fmt
        r = server.request("INSERT INTO default.bad_ins VALUES (2, 2, '2024-01-01'), (3, 'x', '2024-01-01')")
        assert r.status >= 400, r.text
        assert server.query("SELECT count() FROM default.bad_ins") == "1\n"
    finally:
        server.query("DROP TABLE default.bad_ins")


def test_large_streamed_insert(server):
    server.query("CREATE TABLE default.big_null (id UInt64, s String) ENGINE = Null")
    server.query("CREATE TABLE default.big_mem (id UInt64, s String) ENGINE = Memory")
    try:
        rows = 300_000
        data = b"".join(b"%d,row number %d\n" % (i, i) for i in range(rows))
        for table in ["big_null", "big_mem"]:
            r = server.request(params={"query": f"INSERT INTO default.{table} FORMAT CSV"}, data=data)
            assert r.status == 200, r.text
            assert json.loads(r.headers["X-ClickHouse-Summary"])["written_rows"] == str(rows)
        assert server.query("SELECT count(), sum(id), max(s) FROM default.big_mem") == f"{rows}\t{rows * (rows - 1) // 2}\trow number 99999\n"
    finally:
        server.query("DROP TABLE default.big_null")
        server.query("DROP TABLE default.big_mem")


def test_parallel_parsing_of_one_stream(server):
    # Small chunks so a few MB are split among threads; the result and the row named in
    # an error are those of sequential parsing.
    server.query("CREATE TABLE default.par (id UInt64, s String, f Float64) ENGINE = MergeTree ORDER BY id")
    try:
        rows = 200_000
        data = b"id,s,f\n" + b"".join(b'%d,"text, with\nnewline %d",%d.25\n' % (i, i, i) for i in range(rows))
        chunked = {"min_chunk_bytes_for_parallel_parsing": "65536", "max_threads": "4"}
        for params in [chunked, {**chunked, "input_format_parallel_parsing": "0"}]:
            server.query("TRUNCATE TABLE default.par")
            r = server.request(params={"query": "INSERT INTO default.par FORMAT CSVWithNames", **params}, data=data)
            assert r.status == 200, r.text
            assert server.query("SELECT count(), sum(id), sum(f), max(s) FROM default.par") == f"{rows}\t{rows * (rows - 1) // 2}\t{rows * (rows - 1) // 2 + rows * 0.25:.0f}\ttext, with\\nnewline 99999\n"
        bad = data + b'200000,"x",oops\n'
        r = server.request(params={"query": "INSERT INTO default.par FORMAT CSVWithNames", **chunked}, data=bad)
        assert r.status >= 400 and b"row 200001" in r.body, r.text
    finally:
        server.query("DROP TABLE default.par")


def test_pipelined_parsing_of_a_body_sent_in_small_chunks(server):
    # A multi-megabyte CSV body in chunked transfer encoding, a few KB per chunk, so that
    # the parallel parsers' chunks (64 KB) are gathered from many pushes and quoted line
    # feeds straddle both kinds of boundary.
    server.query("CREATE TABLE default.pipe (id UInt64, s String, f Float64) ENGINE = MergeTree ORDER BY id")
    try:
        rows = 150_000
        data = b"".join(b'%d,"quoted, with\nnewline %d",%d.5\n' % (i, i, i) if i % 3 else b"%d,plain %d,%d.5\n" % (i, i, i) for i in range(rows))
        assert len(data) > 4_000_000

        def send(body, params):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
            try:
                pieces = (body[i : i + 3001] for i in range(0, len(body), 3001))
                target = "/?" + urllib.parse.urlencode(params)
                conn.request("POST", target, body=pieces, encode_chunked=True, headers={"Transfer-Encoding": "chunked"})
                r = conn.getresponse()
                return r.status, r.read().decode()
            finally:
                conn.close()

        settings = {"min_chunk_bytes_for_parallel_parsing": "65536", "max_threads": "3", "max_insert_block_size": "10000"}
        status, text = send(data, {"query": "INSERT INTO default.pipe FORMAT CSV", **settings})
        assert status == 200, text
        expected_f = sum(i + 0.5 for i in range(rows))
        expected_len = sum(len(b"quoted, with\nnewline %d" % i) if i % 3 else len(b"plain %d" % i) for i in range(rows))
        got = server.query("SELECT count(), uniqExact(id), sum(id), sum(f), sum(length(s)), countIf(s = concat('plain ', toString(id)) OR s = concat('quoted, with\\nnewline ', toString(id))) FROM default.pipe")
        assert got == f"{rows}\t{rows}\t{rows * (rows - 1) // 2}\t{expected_f:.0f}\t{expected_len}\t{rows}\n", got
        # A bad row near the end: the error names it, and nothing of the INSERT is visible.
        status, text = send(data + b"150000,x,oops\n", {"query": "INSERT INTO default.pipe FORMAT CSV", **settings})
        assert status >= 400 and "row 150001" in text, text
        assert server.query("SELECT count() FROM default.pipe") == f"{rows}\n"
    finally:
        server.query("DROP TABLE default.pipe")


def test_client_leaving_mid_body_abandons_the_insert(server):
    server.query("CREATE TABLE default.left_mid (id UInt64, s String) ENGINE = MergeTree ORDER BY id")
    try:
        data = b"".join(b"%d,row %d\n" % (i, i) for i in range(300_000))
        head = b"POST /?query=INSERT+INTO+default.left_mid+FORMAT+CSV&min_chunk_bytes_for_parallel_parsing=65536&max_threads=2 HTTP/1.1\r\n"
        with socket.create_connection(("127.0.0.1", server.port)) as s:
            s.sendall(head + b"Host: x\r\nContent-Length: %d\r\n\r\n" % (len(data) * 2) + data)
            time.sleep(0.5)
        wait_no_process_like(server, "left_mid")
        assert server.query("SELECT count() FROM default.left_mid") == "0\n"
        assert_server_healthy(server)
    finally:
        server.query("DROP TABLE default.left_mid")


def test_max_execution_time_stops_a_stalled_streamed_insert(server):
    server.query("CREATE TABLE default.stalled (id UInt64, s String) ENGINE = MergeTree ORDER BY id")
    try:
        data = b"".join(b"%d,row %d\n" % (i, i) for i in range(200_000))
        head = b"POST /?query=INSERT+INTO+default.stalled+FORMAT+CSV&max_execution_time=1&min_chunk_bytes_for_parallel_parsing=65536&max_threads=2 HTTP/1.1\r\n"
        with socket.create_connection(("127.0.0.1", server.port), timeout=20) as s:
            # Some chunks, then the client stalls without ending the body.
            s.sendall(head + b"Host: x\r\nTransfer-Encoding: chunked\r\n\r\n" + b"%x\r\n%s\r\n" % (len(data), data))
            started = time.time()
            answer = b""
            while b"\r\n\r\n" not in answer:
                piece = s.recv(65536)
                if not piece:
                    break
                answer += piece
            assert time.time() - started < 10
        assert answer.startswith(b"HTTP/1.1 408") and b"x-clickhouse-exception-code: 159" in answer.lower(), answer[:300]
        wait_no_process_like(server, "default.stalled")
        assert server.query("SELECT count() FROM default.stalled") == "0\n"
        assert_server_healthy(server)
    finally:
        server.query("DROP TABLE default.stalled")


# ---------------------------------------------------------------- robustness


def test_malformed_requests_do_not_hurt(server):
    garbage = bytes((i * 7919 + 13) % 256 for i in range(10 * 1024 * 1024))
    for payload in [garbage, b"\xff\xfe\xfd invalid utf-8", b"SELECT '\xff\xfe'", b"SELECT '" + b"x" * 1_000_000, b"(" * 100_000]:
        try:
            r = server.request(data=payload)
            assert r.status >= 400, r.body[:200]
        except (ConnectionError, http.client.HTTPException):
            pass  # the server may answer early and close before reading a huge body
        assert_server_healthy(server)
    # bad URL encoding, raw
    r = http_request(server.port, "GET", "/?query=SELECT%zz1")
    assert r.status >= 400
    r = http_request(server.port, "GET", "/?query=SELECT+%27%FF%27")
    assert r.status in (200, 400), r.status
    # not HTTP at all, a header without end, a body shorter than its Content-Length
    raw_exchange(server.port, b"NOT HTTP AT ALL\r\n\r\n", read_timeout=3)
    raw_exchange(server.port, b"GET /?query=SELECT+1 HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 100_000, read_timeout=3)
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nSELECT")
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nbad chunk\r\n")
    assert_server_healthy(server)


def test_concurrent_connections(server):
    errors = []

    def worker(n):
        try:
            for i in range(20):
                out = server.query(f"SELECT {n} + {i}, count() FROM numbers({1000 + n})")
                assert out == f"{n + i}\t{1000 + n}\n", out
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    assert not any(t.is_alive() for t in threads), "workers hung"
    assert not errors, errors[:3]
    assert_server_healthy(server)


@pytest.mark.parametrize(
    "sql, params",
    [
        ("SELECT count() FROM numbers(10000000000)", {"max_execution_time": "1"}),
        ("SELECT count() FROM numbers(10000000000) WHERE number % 7 = 3 SETTINGS max_execution_time = 1", {}),
        ("SELECT count() FROM system.numbers", {"max_execution_time": "0.5"}),
    ],
    ids=["url-setting", "settings-clause", "system-numbers"],
)
def test_max_execution_time(server, sql, params):
    started = time.time()
    r = server.request(sql, params=params)
    elapsed = time.time() - started
    assert_clickhouse_error(r, 159, "TIMEOUT_EXCEEDED")
    assert r.status == 408, r.status
    assert elapsed < 15, elapsed
    assert_server_healthy(server)


def wait_no_process_like(server, marker, seconds=15):
    deadline = time.time() + seconds
    running = None
    while time.time() < deadline:
        running = server.query(f"SELECT count() FROM system.processes WHERE query LIKE '%{marker}%' AND query NOT LIKE '%system.processes%'")
        if running == "0\n":
            return
        time.sleep(0.2)
    raise AssertionError(f"query {marker} still running after the client went away")


def test_client_disconnect_cancels_query(server):
    marker = "disconnect_" + uuid.uuid4().hex[:8]
    sql = f"SELECT count() FROM system.numbers WHERE '{marker}' != ''".encode()
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(b"POST /?max_execution_time=60 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(sql), sql))
        time.sleep(0.5)
    wait_no_process_like(server, marker)
    assert_server_healthy(server)


def test_client_disconnect_mid_result(server):
    """The client reads a little of a large streamed result, then goes away."""
    sql = b"SELECT number, toString(number) FROM numbers(50000000)"
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(sql), sql))
        s.recv(65536)
    wait_no_process_like(server, "numbers(50000000)")
    assert_server_healthy(server)


def test_progress_headers_while_the_query_runs(server):
    """send_progress_in_http_headers: X-ClickHouse-Progress lines arrive before the result
    (read from the raw socket, so their timing is visible), then the usual head follows."""
    server.query("CREATE TABLE IF NOT EXISTS progress_target (n UInt64) ENGINE = MergeTree ORDER BY n")
    sql = b"INSERT INTO progress_target SELECT number + sleepEachRow(0.0005) FROM numbers(2000) SETTINGS max_block_size = 100"
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as s:
        s.sendall(
            b"POST /?send_progress_in_http_headers=1&http_headers_progress_interval_ms=50 HTTP/1.1\r\n"
            b"Host: x\r\nContent-Length: %d\r\n\r\n%s" % (len(sql), sql)
        )
        started = time.time()
        first = s.recv(65536)
        first_after = time.time() - started
        raw = first
        while b"\r\n\r\n" not in raw:
            raw += s.recv(65536)
    head = raw.split(b"\r\n\r\n")[0].decode()
    lines = head.split("\r\n")
    assert lines[0] == "HTTP/1.1 200 OK", lines
    progress = [json.loads(line.split(": ", 1)[1]) for line in lines if line.lower().startswith("x-clickhouse-progress:")]
    assert len(progress) >= 3, head
    assert first.startswith(b"HTTP/1.1 200 OK\r\nX-ClickHouse-Progress:") and first_after < 0.9, (first[:200], first_after)
    assert sum(1 for line in lines if line.startswith("HTTP/")) == 1
    rows = [int(p["read_rows"]) for p in progress]
    assert rows == sorted(rows) and rows[-1] > 0, rows
    assert any(line.lower().startswith("x-clickhouse-summary:") for line in lines)
    assert server.query("SELECT count() FROM progress_target") == "2000\n"
    # The connection keeps working for the next requests.
    r = server.request("SELECT 1", params={"send_progress_in_http_headers": 1})
    assert r.status == 200 and r.body == b"1\n"
    server.query("DROP TABLE progress_target")


def test_error_after_progress_headers(server):
    """Once progress went out the status is 200 (as in ClickHouse); the error is in the
    exception header and the body."""
    r = server.request(
        "SELECT sleep(0.3), throwIf(number = 0, 'after progress') FROM numbers(1)",
        params={"send_progress_in_http_headers": 1, "http_headers_progress_interval_ms": 50},
    )
    assert r.status == 200, r.status
    assert r.headers["X-ClickHouse-Exception-Code"] == "395"
    assert "after progress" in r.text and r.headers.get_all("X-ClickHouse-Progress")


def test_wait_end_of_query(server):
    sql = "SELECT throwIf(number = 2500000, 'late failure') FROM numbers(3000000) FORMAT TSV"
    r = server.request(sql, params={"wait_end_of_query": 1})
    assert_clickhouse_error(r, 395, "FUNCTION_THROW_IF_VALUE_IS_NON_ZERO")
    assert r.status == 400 and b"\n0\n" not in r.body
    # A result larger than buffer_size goes through a temporary file, whole and in order.
    r = server.request("SELECT number FROM numbers(200000) ORDER BY number", params={"wait_end_of_query": 1, "buffer_size": 1000})
    assert r.status == 200 and r.body == "".join(f"{i}\n" for i in range(200000)).encode()
    summary = json.loads(r.headers["X-ClickHouse-Summary"])
    assert summary["result_rows"] == "200000", summary


def prometheus_values(text):
    values, types = {}, {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            types[name] = kind
        elif line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    assert set(values) == set(types), "every sample has a TYPE line"
    return values, types


def test_metrics_events_and_prometheus(server):
    before, _ = prometheus_values(http_get_metrics(server))
    server.query("CREATE TABLE metrics_t (n UInt64) ENGINE = MergeTree ORDER BY n")
    server.query("INSERT INTO metrics_t SELECT number FROM numbers(1000)")
    server.query("INSERT INTO metrics_t SELECT number FROM numbers(500)")
    server.query("OPTIMIZE TABLE metrics_t FINAL")
    assert server.request("SELECT nope FROM metrics_t").status != 200
    assert server.query("SELECT count() FROM metrics_t") == "1500\n"
    after, types = prometheus_values(http_get_metrics(server))
    grew = lambda name, by=1: after[name] - before.get(name, 0) >= by  # noqa: E731
    assert grew("ClickHouseProfileEvents_Query", 6) and grew("ClickHouseProfileEvents_SelectQuery", 2)
    assert grew("ClickHouseProfileEvents_InsertQuery", 2) and grew("ClickHouseProfileEvents_InsertedRows", 1500)
    assert grew("ClickHouseProfileEvents_FailedQuery") and grew("ClickHouseProfileEvents_FailedSelectQuery")
    assert grew("ClickHouseProfileEvents_Merge") and grew("ClickHouseProfileEvents_MergedRows", 1500)
    assert grew("ClickHouseProfileEvents_MergeTreeDataWriterBlocks", 2)
    assert types["ClickHouseProfileEvents_Query"] == "counter" and types["ClickHouseMetrics_Query"] == "gauge"
    assert after["ClickHouseMetrics_HTTPConnection"] >= 1 and after["ClickHouseAsyncMetrics_Uptime"] > 0
    assert after["ClickHouseAsyncMetrics_TotalPartsOfMergeTreeTables"] >= 1
    # The same numbers through SQL; a running query sees itself.
    assert server.query("SELECT value FROM system.metrics WHERE metric = 'Query'") == "1\n"
    events = dict(line.split("\t") for line in server.query("SELECT event, value FROM system.events").splitlines())
    assert int(events["Query"]) >= after["ClickHouseProfileEvents_Query"] and int(events["Merge"]) >= 1
    server.query("DROP TABLE metrics_t")


def http_get_metrics(server):
    r = http_request(server.port, "GET", "/metrics")
    assert r.status == 200 and r.headers["Content-Type"].startswith("text/plain"), r.status
    return r.text


def test_sessions_keep_state(server):
    params = {"session_id": "e2e-" + uuid.uuid4().hex}
    server.query("CREATE DATABASE IF NOT EXISTS sess_db")
    try:
        server.query("USE sess_db", **params)
        server.query("SET max_threads = 1", **params)
        assert server.query("SELECT currentDatabase()", **params) == "sess_db\n"
        assert server.query("SELECT value FROM system.settings WHERE name = 'max_threads'", **params) == "1\n"
        assert server.query("SELECT currentDatabase()") == "default\n"
        other = {"session_id": "e2e-" + uuid.uuid4().hex}
        assert server.query("SELECT currentDatabase()", **other) == "default\n"
        # session_check: only an existing session; close_session ends it after the request
        missing = {"session_id": "e2e-" + uuid.uuid4().hex, "session_check": "1"}
        assert_clickhouse_error(server.request("SELECT 1", params=missing), 372, "SESSION_NOT_FOUND")
        assert server.query("SELECT currentDatabase()", session_check="1", **params) == "sess_db\n"
        assert server.query("SELECT 1", close_session="1", **params) == "1\n"
        assert_clickhouse_error(server.request("SELECT 1", params={"session_check": "1", **params}), 372, "SESSION_NOT_FOUND")
        assert server.query("SELECT currentDatabase()", **params) == "default\n"
    finally:
        server.query("DROP DATABASE sess_db")


def test_unknown_database_parameter(server):
    assert_clickhouse_error(server.request("SELECT 1", params={"database": "no_such_db_e2e"}), 81, "UNKNOWN_DATABASE", status=404)
    assert server.query("SELECT count() FROM one", database="system") == "1\n"


def test_query_log(server):
    query_id = "qlog-" + uuid.uuid4().hex
    server.query("SELECT number FROM numbers(7)", query_id=query_id)
    failed_id = "qlog-fail-" + uuid.uuid4().hex
    server.request("SELECT * FROM no_such_table_qlog", params={"query_id": failed_id})
    server.request("SYSTEM FLUSH LOGS")  # needed by ClickHouse; may be a no-op
    deadline = time.time() + 10
    while True:
        out = server.query(
            f"SELECT type, query_kind, result_rows, read_rows, exception_code, current_database, query FROM system.query_log "
            f"WHERE query_id = '{query_id}' AND type != 'QueryStart'"
        )
        if out or time.time() > deadline:
            break
        time.sleep(0.2)
    assert out == "QueryFinish\tSelect\t7\t7\t0\tdefault\tSELECT number FROM numbers(7)\n", out
    out = server.query(f"SELECT type, exception_code, exception != '' FROM system.query_log WHERE query_id = '{failed_id}' AND type != 'QueryStart'")
    assert out.split("\t")[1:] == ["60", "1\n"], out
    assert out.split("\t")[0] in ("ExceptionBeforeStart", "ExceptionWhileProcessing"), out
    # SYSTEM FLUSH LOGS returns once the entries are in the log files.
    assert server.request("SYSTEM FLUSH LOGS").status == 200
    on_disk = (Path(server.path) / "system_logs" / "query_log.jsonl").read_text()
    assert query_id in on_disk and failed_id in on_disk


def test_query_log_lists_databases_tables_and_columns(server):
    # The seed's report: select query, query_id, columns from system.query_log where databases = ['x'].
    db = "qlog_objects_" + uuid.uuid4().hex[:8]
    server.query(f"CREATE DATABASE {db}")
    try:
        server.query(f"CREATE TABLE {db}.t (a UInt32, b String, c Float64) ENGINE = MergeTree ORDER BY a")
        server.query(f"CREATE TABLE {db}.u (a UInt32, d String) ENGINE = MergeTree ORDER BY a")
        tag = uuid.uuid4().hex
        queries = [
            f"/* {tag} */ INSERT INTO {db}.t VALUES (1, 'x', 1.5)",
            f"/* {tag} */ SELECT b, a FROM {db}.t WHERE c > 0 FORMAT Null",
            f"/* {tag} */ SELECT d FROM {db}.u WHERE a IN (SELECT a FROM {db}.t) FORMAT Null",
            f"/* {tag} */ INSERT INTO {db}.u (a) SELECT a FROM {db}.t",
            f"/* {tag} */ SELECT a, d FROM {db}.u WHERE a = 1 FORMAT Null",
            f"/* {tag} */ SELECT number FROM numbers(3) FORMAT Null",
        ]
        for q in queries:
            server.query(q)
        server.request("SYSTEM FLUSH LOGS")
        out = server.query(
            f"SELECT databases, tables, columns, toTypeName(columns) FROM system.query_log "
            f"WHERE type = 'QueryFinish' AND query LIKE '%{tag}%' AND query NOT LIKE '%query_log%' ORDER BY event_time_microseconds"
        )
        t, u = f"{db}.t", f"{db}.u"
        lc = "Array(LowCardinality(String))"
        assert out.splitlines() == [
            f"['{db}']\t['{t}']\t['{t}.a','{t}.b','{t}.c']\t{lc}",
            f"['{db}']\t['{t}']\t['{t}.a','{t}.b','{t}.c']\t{lc}",
            f"['{db}']\t['{t}','{u}']\t['{t}.a','{u}.a','{u}.d']\t{lc}",
            f"['{db}']\t['{t}','{u}']\t['{t}.a','{u}.a']\t{lc}",
            f"['{db}']\t['{u}']\t['{u}.a','{u}.d']\t{lc}",
            f"[]\t[]\t[]\t{lc}",
        ], out
        out = server.query(f"SELECT count() FROM system.query_log WHERE databases = ['{db}'] AND type = 'QueryFinish' AND query LIKE '%{tag}%'")
        assert out == "5\n", out
    finally:
        server.query(f"DROP DATABASE {db}")


# ---------------------------------------------------------------- restarts


def test_restart_keeps_databases_and_tables():
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(os.path.join(tmp, "data")).start()
        try:
            s.query("CREATE DATABASE kept")
            s.query("CREATE TABLE kept.m (id UInt64, tags Array(String), d DateTime64(3) DEFAULT '2024-01-01 00:00:00' COMMENT 'when') ENGINE = Memory COMMENT 'mem'")
            s.query("CREATE TABLE kept.n (x Nullable(Int32), lc LowCardinality(String)) ENGINE = Null")
            s.query("CREATE TABLE default.top (x UInt8) ENGINE = Memory")
            s.query("CREATE DATABASE dropped")
            s.query("CREATE TABLE kept.gone (x UInt8) ENGINE = Memory")
            s.query("DROP TABLE kept.gone")
            s.query("DROP DATABASE dropped")
            s.query("CREATE TABLE kept.before (x UInt8) ENGINE = Memory")
            s.query("RENAME TABLE kept.before TO kept.after")
            s.query("INSERT INTO kept.m (id, tags) VALUES (1, ['a'])")
            create_m = s.query("SHOW CREATE TABLE kept.m")
            create_n = s.query("SHOW CREATE TABLE kept.n")
            assert s.stop() == 0, s.log_text()[-3000:]
            s.start()
            assert s.query("SHOW DATABASES LIKE 'kept'") == "kept\n"
            assert s.query("EXISTS DATABASE dropped") == "0\n"
            assert s.query("SHOW TABLES FROM kept") == "after\nm\nn\n"
            assert s.query("SHOW TABLES FROM default") == "top\n"
            assert s.query("SHOW CREATE TABLE kept.m") == create_m
            assert s.query("SHOW CREATE TABLE kept.n") == create_n
            assert s.query("SELECT count() FROM kept.m") == "0\n"  # Memory tables come back empty
            s.query("INSERT INTO kept.m (id, tags) VALUES (2, ['b'])")
            assert s.query("SELECT id, tags, d FROM kept.m") == "2\t['b']\t2024-01-01 00:00:00.000\n"
            # a third start on the same path still works
            assert s.stop() == 0
            s.start()
            assert s.query("SELECT count() FROM system.tables WHERE database = 'kept'") == "3\n"
        finally:
            s.stop()


def test_kill_9_keeps_catalog():
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(os.path.join(tmp, "data")).start()
        try:
            for i in range(20):
                s.query(f"CREATE TABLE default.t{i} (x UInt8) ENGINE = Memory")
            s.stop(sig=signal.SIGKILL)
            s.start()
            assert s.query("SELECT count() FROM system.tables WHERE database = 'default'") == "20\n"
        finally:
            s.stop()


def test_input_function_converts_the_data_of_an_insert(server):
    server.query("DROP TABLE IF EXISTS default.input_target")
    server.query("CREATE TABLE default.input_target (a UInt32, s String, d Date) ENGINE = Memory")
    query = "INSERT INTO default.input_target SELECT x * 100, upper(y), toDate('2024-01-01') + x FROM input('x UInt16, y String') FORMAT CSV"
    data = "".join(f"{i},row{i}\n" for i in range(5000)).encode()
    r = server.request(params={"query": query, "max_insert_block_size": "1000"}, data=data.replace(b"4999,row4999", b"200,row200"))
    assert r.status == 200, r.text
    assert server.query("SELECT count(), sum(a), max(s), max(d) FROM default.input_target") == "5000\t1249270100\tROW999\t2037-09-07\n"
    # Bad data fails the INSERT and leaves nothing behind.
    r = server.request(params={"query": query}, data=b"1,a\nx,b\n")
    assert r.status != 200 and "Code: " in r.text, r.text
    assert server.query("SELECT count() FROM default.input_target") == "5000\n"
    # Anywhere else input() is an error.
    r = server.request("SELECT * FROM input('x UInt8')")
    assert r.status != 200 and "input() must be used only in INSERT SELECT" in r.text, r.text
    server.query("DROP TABLE default.input_target")


def test_log_engines_keep_acknowledged_inserts_across_kill_9():
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(os.path.join(tmp, "data")).start()
        try:
            for engine in ("Log", "TinyLog", "StripeLog"):
                s.query(f"CREATE TABLE default.{engine.lower()} (id UInt64, s String) ENGINE = {engine}")
                s.query(f"INSERT INTO default.{engine.lower()} SELECT number, toString(number) FROM numbers(1000)")
                s.query(f"INSERT INTO default.{engine.lower()} VALUES (5000, 'x')")
            s.query("TRUNCATE TABLE default.tinylog")
            s.query("INSERT INTO default.tinylog VALUES (1, 'after truncate')")
            s.stop(sig=signal.SIGKILL)
            s.start()
            for engine in ("log", "stripelog"):
                assert s.query(f"SELECT count(), sum(id) FROM default.{engine}") == "1001\t504500\n"
            assert s.query("SELECT * FROM default.tinylog") == "1\tafter truncate\n"
            s.query("INSERT INTO default.log VALUES (6000, 'y')")
            assert s.query("SELECT count() FROM default.log") == "1002\n"
        finally:
            s.stop()


def test_part_log_merges_and_query_log_survive_restarts():
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(os.path.join(tmp, "data")).start()
        try:
            s.query("CREATE TABLE default.pl (k UInt64, v String) ENGINE = MergeTree PARTITION BY k % 2 ORDER BY k "
                    "SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1")
            s.query("INSERT INTO default.pl SELECT number, toString(number) FROM numbers(1000)")
            s.query("INSERT INTO default.pl SELECT number, toString(number) FROM numbers(1000, 10)")
            s.query("OPTIMIZE TABLE default.pl PARTITION 0 FINAL")
            s.query("SELECT 'marker-before-restart'")
            events = s.query("SELECT event_type, part_name, partition_id, rows, merged_from FROM system.part_log "
                             "WHERE table = 'pl' ORDER BY event_type DESC, part_name")
            assert events.splitlines() == [
                "NewPart\t0_1_1_0\t0\t500\t[]",
                "NewPart\t0_3_3_0\t0\t5\t[]",
                "NewPart\t1_2_2_0\t1\t500\t[]",
                "NewPart\t1_4_4_0\t1\t5\t[]",
                "MergeParts\t0_1_3_1\t0\t505\t['0_1_1_0','0_3_3_0']",
            ], events
            assert s.query("SELECT count() FROM system.merges") == "0\n"
            assert s.query("SELECT count() FROM system.query_log WHERE query = 'SELECT \\'marker-before-restart\\''") != "0\n"
            s.stop(sig=signal.SIGKILL)
            s.start()
            assert s.query("SELECT count() FROM system.query_log WHERE query LIKE '%marker-before-restart%' AND query NOT LIKE '%query_log%'") == "1\n"
            assert s.query("SELECT count() FROM system.part_log WHERE table = 'pl' AND event_type = 'MergeParts'") == "1\n"
            s.stop()
            s.start()
            assert s.query("SELECT count() FROM system.part_log WHERE table = 'pl' AND event_type = 'NewPart'") == "4\n"
        finally:
            s.stop()


def test_join_tables_and_dictionaries_survive_kill_9():
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(os.path.join(tmp, "data")).start()
        try:
            s.query("CREATE TABLE j (k UInt64, v String) ENGINE = Join(ANY, LEFT, k)")
            # more INSERTs than the Join engine keeps as separate files before compacting
            for i in range(40):
                s.query(f"INSERT INTO j VALUES ({i}, 'v{i}'), ({i}, 'dup')")
            s.query("CREATE TABLE src (id UInt64, name String) ENGINE = MergeTree ORDER BY id")
            s.query("INSERT INTO src SELECT number, concat('n', toString(number)) FROM numbers(1000)")
            s.query("CREATE DICTIONARY dict (id UInt64, name String DEFAULT '?') PRIMARY KEY id "
                    "SOURCE(CLICKHOUSE(TABLE 'src')) LAYOUT(HASHED()) LIFETIME(MIN 1 MAX 2)")
            assert s.query("SELECT dictGet('dict', 'name', toUInt64(7))") == "n7\n"
            create = s.query("SHOW CREATE DICTIONARY dict")
            s.stop(sig=signal.SIGKILL)
            s.start()
            assert s.query("SELECT count(), min(v), max(v) FROM j") == "40\tv0\tv9\n"
            assert s.query("SELECT joinGet('j', 'v', toUInt64(39))") == "v39\n"
            assert s.query("SHOW CREATE DICTIONARY dict") == create
            assert s.query("SELECT status FROM system.dictionaries WHERE name = 'dict'") == "NOT_LOADED\n"
            assert s.query("SELECT dictGet('dict', 'name', toUInt64(999)), dictGet('dict', 'name', toUInt64(1000))") == "n999\t?\n"
            # LIFETIME: new source rows appear within MAX seconds without a manual reload
            s.query("INSERT INTO src VALUES (1000, 'late')")
            deadline = time.time() + 10
            while time.time() < deadline and s.query("SELECT dictGet('dict', 'name', toUInt64(1000))") != "late\n":
                time.sleep(0.3)
            assert s.query("SELECT dictGet('dict', 'name', toUInt64(1000))") == "late\n"
            assert s.query("SELECT status, element_count, last_exception FROM system.dictionaries WHERE name = 'dict'") == "LOADED\t1001\t\n"
        finally:
            s.stop()


def test_sigterm_during_query_shuts_down():
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(os.path.join(tmp, "data")).start()
        try:
            def slow_query():
                try:
                    s.request("SELECT count() FROM system.numbers", params={"max_execution_time": "60"}, timeout=60)
                except OSError:
                    pass  # the connection goes away with the server

            t = threading.Thread(target=slow_query)
            t.start()
            time.sleep(0.5)
            started = time.time()
            code = s.stop()
            assert time.time() - started < 15, "SIGTERM did not stop the server in time"
            assert code == 0, (code, s.log_text()[-3000:])
            t.join(timeout=30)
        finally:
            s.stop(signal.SIGKILL)


def test_second_server_on_busy_port_fails(server):
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run(
            [BINARY, "server", "--path", os.path.join(tmp, "d"), "--http-port", str(server.port)],
            capture_output=True,
            timeout=30,
        )
        assert p.returncode != 0
    assert_server_healthy(server)


# ---------------------------------------------------------------- CLI tools


def run_client(server, *args, stdin=None):
    return subprocess.run(
        [BINARY, "client", "--host", "127.0.0.1", "--port", str(server.port), *args],
        input=stdin,
        capture_output=True,
        timeout=60,
    )


def test_client_binary(server):
    r = run_client(server, "--query", "SELECT 1 + 1")
    assert (r.returncode, r.stdout) == (0, b"2\n"), r.stderr
    r = run_client(server, "--query", "SELECT number FROM numbers(2)", "--format", "CSV")
    assert r.stdout == b"0\n1\n", r.stderr
    r = run_client(server, "--format", "JSONEachRow", "--query", "SELECT 1 AS a")
    assert r.stdout == b'{"a":1}\n', r.stderr
    r = run_client(server, "--max_threads=1", "--query", "SELECT value FROM system.settings WHERE name = 'max_threads'")
    assert r.stdout == b"1\n", r.stderr
    r = run_client(server, "--query", "SELECT value FROM system.settings WHERE name = 'max_block_size'", "--max_block_size=77")
    assert r.stdout == b"77\n", r.stderr
    r = run_client(server, "--database", "system", "--query", "SELECT currentDatabase()")
    assert r.stdout == b"system\n", r.stderr


def test_client_insert_from_stdin(server):
    assert run_client(server, "--query", "CREATE TABLE default.cli (a UInt32, b String) ENGINE = Memory").returncode == 0
    try:
        r = run_client(server, "--query", "INSERT INTO default.cli FORMAT CSV", stdin=b"1,x\n2,y\n")
        assert r.returncode == 0, r.stderr
        r = run_client(server, "--query", "INSERT INTO default.cli FORMAT TSV", stdin=b"3\tz\n")
        assert r.returncode == 0, r.stderr
        big = b"".join(b"%d,row%d\n" % (i, i) for i in range(100, 100_100))
        r = run_client(server, "--query", "INSERT INTO default.cli FORMAT CSV", stdin=big)
        assert r.returncode == 0, r.stderr
        r = run_client(server, "--query", "SELECT count(), sum(a) FROM default.cli WHERE a < 100; SELECT count() FROM default.cli")
        assert r.stdout == b"3\t6\n100003\n", (r.stdout, r.stderr)
        r = run_client(server, "--query", "INSERT INTO default.cli FORMAT CSV", stdin=b"4,ok\nbad,row\n")
        assert r.returncode != 0
        assert server.query("SELECT count() FROM default.cli") == "100003\n"
    finally:
        server.query("DROP TABLE default.cli")


def test_client_errors(server):
    r = run_client(server, "--query", "SELECT * FROM missing")
    assert r.returncode != 0 and b"UNKNOWN_TABLE" in r.stderr and b"Code: 60" in r.stderr, r.stderr
    r = run_client(server, "--query", "SELEC 1")
    assert r.returncode != 0 and b"SYNTAX_ERROR" in r.stderr
    r = subprocess.run([BINARY, "client", "--port", str(free_port()), "--query", "SELECT 1"], capture_output=True, timeout=60)
    assert r.returncode != 0 and r.stderr, "client against a closed port must fail"


def test_local_binary():
    with tempfile.TemporaryDirectory() as path:
        r = subprocess.run(
            [BINARY, "local", "--path", path, "--query", "CREATE TABLE t (x UInt64) ENGINE = Memory; INSERT INTO t SELECT number FROM numbers(10); SELECT sum(x) FROM t"],
            capture_output=True,
            timeout=60,
        )
        assert r.returncode == 0 and r.stdout == b"45\n", r.stderr
        # the catalog is kept in --path; Memory data is not
        r = subprocess.run([BINARY, "local", "--path", path, "--query", "SELECT count() FROM t"], capture_output=True, timeout=60)
        assert (r.returncode, r.stdout) == (0, b"0\n"), r.stderr
        r = subprocess.run([BINARY, "local", "--path", path, "--format", "JSONEachRow"], input=b"SELECT 1 AS a", capture_output=True, timeout=60)
        assert r.stdout == b'{"a":1}\n', r.stderr
        r = subprocess.run(
            [BINARY, "local", "--path", path], input=b"SELECT 1;\nSELECT 'two' FORMAT CSV;\nSELECT number FROM numbers(2)\n", capture_output=True, timeout=60
        )
        assert (r.returncode, r.stdout) == (0, b'1\n"two"\n0\n1\n'), r.stderr
        r = subprocess.run([BINARY, "local", "--path", path, "--query", "SELECT * FROM nope"], capture_output=True, timeout=60)
        assert r.returncode != 0 and b"UNKNOWN_TABLE" in r.stderr


def test_text_date_times_are_in_the_server_time_zone():
    """DateTime text without a zone means the server's time zone (TZ) in every input
    path, and a column's own zone wins; epoch values checked against chdb run with the
    same TZ (2024-01-01 00:00:00 in Asia/Kolkata is 1704047400)."""
    env = {**os.environ, "TZ": "Asia/Kolkata"}

    def local(path, sql, data=None):
        r = subprocess.run([BINARY, "local", "--path", path, "--query", sql], input=data, capture_output=True, timeout=60, env=env)
        assert r.returncode == 0, r.stderr
        return r.stdout.decode()

    with tempfile.TemporaryDirectory() as path:
        local(path, "CREATE TABLE t (src String, d DateTime, u DateTime('UTC'), f DateTime64(3)) ENGINE = MergeTree ORDER BY src")
        local(path, "INSERT INTO t VALUES ('values', '2024-01-01 00:00:00', '2024-01-01 00:00:00', '2024-01-01 00:00:00.5')")
        local(path, "INSERT INTO t FORMAT CSV", b"csv,2024-01-01 00:00:00,2024-01-01 00:00:00,2024-01-01 00:00:00.5\n")
        local(path, "INSERT INTO t FORMAT TSV", b"tsv\t2024-01-01 00:00:00\t2024-01-01 00:00:00\t2024-01-01 00:00:00.5\n")
        local(path, "INSERT INTO t FORMAT JSONEachRow", b'{"src":"json","d":"2024-01-01 00:00:00","u":"2024-01-01 00:00:00","f":"2024-01-01 00:00:00.5"}\n')
        out = local(path, "SELECT src, d, toUnixTimestamp(d), toUnixTimestamp(u), toUnixTimestamp(f), timezone() FROM t ORDER BY src")
        assert out.splitlines() == [f"{src}\t2024-01-01 00:00:00\t1704047400\t1704067200\t1704047400\tAsia/Kolkata" for src in ("csv", "json", "tsv", "values")], out
        out = local(path, "SELECT toUnixTimestamp(toDateTime('2024-01-01 00:00:00')), toUnixTimestamp('2024-01-01 00:00:00'), toUnixTimestamp(toDateTime('2024-01-01 00:00:00', 'UTC'))")
        assert out == "1704047400\t1704047400\t1704067200\n", out


def test_send_logs_level_and_text_log(server):
    """`--send_logs_level=trace` prints the query's server log like clickhouse-client,
    index analysis included; the records are rows of system.text_log."""
    server.query("CREATE TABLE logs_t (id UInt64, v String) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 100")
    try:
        server.query("INSERT INTO logs_t SELECT number, toString(number) FROM numbers(10000)")
        r = run_client(server, "--send_logs_level=trace", "--query", "SELECT count() FROM logs_t WHERE id BETWEEN 500 AND 700")
        assert (r.returncode, r.stdout) == (0, b"201\n"), r.stderr
        lines = r.stderr.decode().splitlines()
        assert any("<Debug> executeQuery: (from 127.0.0.1:" in line and "SELECT count() FROM logs_t" in line for line in lines), lines
        selected = [line for line in lines if "default.logs_t (SelectExecutor): Selected" in line]
        assert selected and "4/100 marks by primary key" in selected[0], lines
        assert any("<Debug> executeQuery: Read 400 rows" in line for line in lines), lines
        assert all(line.startswith("[127.0.0.1] 20") and "{granary-client-" in line for line in lines), lines
        # Only what was asked for: errors only prints nothing for a good query.
        r = run_client(server, "--send_logs_level=error", "--query", "SELECT 1")
        assert (r.returncode, r.stdout, r.stderr) == (0, b"1\n", b"")
        # A failed query's logs come before the exception.
        r = run_client(server, "--send_logs_level=debug", "--query", "SELECT nosuch FROM logs_t")
        assert r.returncode == 47 and b"<Error> executeQuery: Code: 47." in r.stderr, r.stderr

        # Over plain HTTP: a query asks in its URL or its SETTINGS clause, then reads the table.
        query_id = "text-log-" + uuid.uuid4().hex
        assert server.query("SELECT v FROM logs_t WHERE id = 42", query_id=query_id, send_logs_level="debug") == "42\n"
        rows = server.query(f"SELECT level, logger_name, message FROM system.text_log WHERE query_id = '{query_id}' ORDER BY event_time_microseconds")
        assert "Debug\tdefault.logs_t (SelectExecutor)\tPoint lookup of 1 keys: 1/1 parts, 1/100 marks by primary key" in rows, rows
        query_id = "text-log-" + uuid.uuid4().hex
        server.query("SELECT count() FROM logs_t SETTINGS send_logs_level = 'debug'", query_id=query_id)
        rows = server.query(f"SELECT count() FROM system.text_log WHERE query_id = '{query_id}' AND logger_name = 'executeQuery'")
        assert int(rows) >= 2
        # Without send_logs_level only the server's level (information) is kept.
        query_id = "text-log-" + uuid.uuid4().hex
        server.query("SELECT count() FROM logs_t", query_id=query_id)
        assert server.query(f"SELECT count() FROM system.text_log WHERE query_id = '{query_id}'") == "0\n"
        assert_clickhouse_error(server.request("SELECT 1", params={"send_logs_level": "loud"}), 36, "BAD_ARGUMENTS")
    finally:
        server.query("DROP TABLE logs_t")


def test_json_server_log_and_text_log_level(tmp_path):
    """`[logger]`: a JSON log file with ClickHouse's keys, and `text_log_level`."""
    config = tmp_path / "config.toml"
    log_file = tmp_path / "log" / "server.log"
    config.write_text(f'[logger]\nlevel = "debug"\nlog = "{log_file}"\nformatting = "json"\ntext_log_level = "debug"\n')
    s = Server(str(tmp_path / "data"), ["--config", str(config)]).start()
    try:
        s.query("SELECT 1", query_id="json-log-1")
        assert int(s.query("SELECT count() FROM system.text_log WHERE query_id = 'json-log-1' AND level = 'Debug'")) >= 2
    finally:
        assert s.stop() == 0
    records = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert {"date_time", "thread_name", "thread_id", "level", "query_id", "logger_name", "message", "source_file", "source_line"} <= set(records[0])
    mine = [r for r in records if r["query_id"] == "json-log-1"]
    assert any(r["logger_name"] == "executeQuery" and r["message"].endswith("SELECT 1 (stage: Complete)") and r["level"] == "Debug" for r in mine), mine
    bad = tmp_path / "bad.toml"
    bad.write_text('[logger]\nformatting = "xml"\n')
    r = subprocess.run([BINARY, "server", "--config", str(bad), "--path", str(tmp_path / "d2")], capture_output=True, timeout=60)
    assert r.returncode == 2 and b"formatting must be text or json" in r.stderr, r.stderr


def test_local_send_logs_level(tmp_path):
    r = subprocess.run(
        [BINARY, "local", "--path", str(tmp_path), "--send_logs_level", "debug", "--query",
         "CREATE TABLE t (n UInt64) ENGINE = MergeTree ORDER BY n; INSERT INTO t SELECT number FROM numbers(10); SELECT sum(n) FROM t WHERE n < 5"],
        capture_output=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, b"10\n"), r.stderr
    err = r.stderr.decode()
    assert "<Debug> default.t: Committed part all_1_1_0 (10 rows)" in err and "(SelectExecutor): Selected 1/1 parts" in err, err


def test_insert_deduplication(server, tmp_path):
    """A retried INSERT is not doubled when the table keeps a deduplication window (as
    ClickHouse's non-replicated MergeTree), by block content or by
    insert_deduplication_token; the window survives a restart."""
    s = Server(str(tmp_path / "data")).start()
    try:
        s.query("CREATE TABLE d (k UInt32, v String) ENGINE = MergeTree ORDER BY k SETTINGS non_replicated_deduplication_window = 100")
        s.query("CREATE TABLE d0 (k UInt32) ENGINE = MergeTree ORDER BY k")
        for _ in range(2):
            s.query("INSERT INTO d VALUES (1, 'a'), (2, 'b')")
            s.query("INSERT INTO d0 VALUES (1)")
        assert s.query("SELECT count() FROM d") == "2\n"
        assert s.query("SELECT count() FROM d0") == "2\n", "no window, no deduplication"
        s.query("INSERT INTO d SETTINGS insert_deduplication_token = 'x' VALUES (5, 'e')")
        s.query("INSERT INTO d SETTINGS insert_deduplication_token = 'x' VALUES (6, 'f')")
        assert s.query("SELECT count() FROM d") == "3\n"
        s.query("INSERT INTO d VALUES (3, 'c')")
        assert s.stop() == 0
        s.start()
        s.query("INSERT INTO d VALUES (1, 'a'), (2, 'b')")
        s.query("INSERT INTO d VALUES (3, 'c')")
        assert s.query("SELECT count(), sum(k) FROM d") == "4\t11\n"
        s.query("INSERT INTO d VALUES (4, 'd')")
        assert s.query("SELECT count() FROM d") == "5\n"
    finally:
        s.stop()


def test_plan_cache_reuses_only_plans_that_cannot_change(server):
    """Queries that read no stored data keep their physical plan (QueryPlanCacheHits);
    every execution still gets its own progress, settings and fresh operator state, and
    anything that depends on time, tables or dictionaries is planned every time."""

    def event(name):
        return int(server.query(f"SELECT value FROM system.events WHERE event = '{name}'") or 0)

    def hits_after(sql, times=3, **params):
        before = event("QueryPlanCacheHits")
        results = [server.query(sql, **params) for _ in range(times)]
        return event("QueryPlanCacheHits") - before, results

    # Re-executed plans with sorts, aggregation, repartitioning, joins and unions give
    # the same rows every time.
    for sql, expected in [
        ("SELECT 1", "1\n"),
        ("SELECT number % 3 AS k, count(), sum(number) FROM numbers(100000) GROUP BY k ORDER BY k", "0\t33334\t1666683333\n1\t33333\t1666616667\n2\t33333\t1666650000\n"),
        ("SELECT count() FROM numbers(2000) AS a JOIN numbers(1000) AS b ON a.number = b.number", "1000\n"),
        ("SELECT number FROM numbers(10) ORDER BY number DESC LIMIT 2", "9\n8\n"),
        ("SELECT x FROM (SELECT 1 AS x UNION ALL SELECT 2) ORDER BY x", "1\n2\n"),
    ]:
        hits, results = hits_after(sql)
        assert results == [expected] * 3, (sql, results)
        assert hits >= 2, (sql, hits)
    # Aggregates with dynamic filters (min/max) are right every time, cached or not.
    _, results = hits_after("SELECT min(number), max(number), count() FROM numbers(1000) WHERE number > 10")
    assert results == ["11\t999\t989\n"] * 3, results
    # Progress is the current query's.
    for _ in range(2):
        r = server.request("SELECT sum(number) FROM numbers(54321)")
        assert json.loads(r.headers["X-ClickHouse-Summary"])["read_rows"] == "54321"
    # Settings and the current database are part of the key.
    assert [server.query("SELECT getSetting('max_block_size')", max_block_size=n) for n in (5, 7, 5)] == ["5\n", "7\n", "5\n"]
    server.query("CREATE DATABASE IF NOT EXISTS plan_cache_db")
    try:
        assert [server.query("SELECT currentDatabase()", database=d) for d in ("default", "plan_cache_db", "default")] == ["default\n", "plan_cache_db\n", "default\n"]
    finally:
        server.query("DROP DATABASE plan_cache_db")
    # Volatile functions run at every execution; stable ones are folded at planning, so
    # those queries are never reused.
    hits, results = hits_after("SELECT rand64()")
    assert hits >= 2 and len(set(results)) == 3, results
    for sql in ["SELECT now64(6)", "SELECT today(), now()"]:
        hits, _ = hits_after(sql)
        assert hits == 0, sql
    first, second = server.query("SELECT now64(6)"), server.query("SELECT now64(6)")
    assert first != second
    # Tables are never cached: new rows show at once.
    server.query("CREATE TABLE default.plan_cache_t (x UInt64) ENGINE = Memory")
    try:
        server.query("INSERT INTO default.plan_cache_t VALUES (1)")
        hits, results = hits_after("SELECT sum(x) FROM default.plan_cache_t", times=1)
        server.query("INSERT INTO default.plan_cache_t VALUES (2)")
        hits2, results2 = hits_after("SELECT sum(x) FROM default.plan_cache_t", times=1)
        assert (results, results2, hits, hits2) == (["1\n"], ["3\n"], 0, 0)
    finally:
        server.query("DROP TABLE default.plan_cache_t")
    # Parallel executions of one cached plan do not share state.
    sql = "SELECT number % 7 AS k, count() FROM numbers(70000) GROUP BY k ORDER BY k"
    expected = server.query(sql)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert set(pool.map(lambda _: server.query(sql), range(64))) == {expected}
    assert float(server.query("SELECT value FROM system.asynchronous_metrics WHERE metric = 'QueryPlanCacheEntries'")) >= 5


def test_point_query_shapes_are_reused_without_parsing(server):
    """The key-value fast path remembers a point query's shape by its normalized text:
    the same query with other keys is answered without parsing (PointQueryShapeCacheHits),
    with the same rows, progress, query_log entry and access checks as a parsed one."""

    def hits():
        return int(server.query("SELECT value FROM system.events WHERE event = 'PointQueryShapeCacheHits'") or 0)

    server.query("CREATE TABLE default.shape_kv (id UInt64, v String) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 8")
    try:
        server.query("INSERT INTO default.shape_kv SELECT number, toString(number * 2) FROM numbers(1000)")
        before = hits()
        for key in range(20):
            r = server.request(f"SELECT v FROM default.shape_kv WHERE id = {key} SETTINGS use_uncompressed_cache = 1")
            assert (r.status, r.text) == (200, f"{key * 2}\n")
            # As in ClickHouse: a key equal to a granule's first key may also be the last
            # of the granule before, so both are read.
            granules = 2 if key % 8 == 0 and key > 0 else 1
            assert json.loads(r.headers["X-ClickHouse-Summary"])["read_rows"] == str(8 * granules)
        assert hits() - before >= 18
        query_id = "shape-" + uuid.uuid4().hex
        assert server.query("SELECT v FROM default.shape_kv WHERE id = 123 SETTINGS use_uncompressed_cache = 1", query_id=query_id) == "246\n"
        server.query("SYSTEM FLUSH LOGS")
        out = server.query(f"SELECT type, query_kind, result_rows, tables, query FROM system.query_log WHERE query_id = '{query_id}' AND type = 'QueryFinish'")
        assert out == "QueryFinish\tSelect\t1\t['default.shape_kv']\tSELECT v FROM default.shape_kv WHERE id = 123 SETTINGS use_uncompressed_cache = 1\n", out
        # A user without SELECT on the table is refused on the cached path too.
        server.query("CREATE USER IF NOT EXISTS shape_reader IDENTIFIED WITH plaintext_password BY 'pw'")
        try:
            r = server.request("SELECT v FROM default.shape_kv WHERE id = 5 SETTINGS use_uncompressed_cache = 1", params={"user": "shape_reader", "password": "pw"})
            assert r.status != 200 and r.headers["X-ClickHouse-Exception-Code"] == "497", r.text
        finally:
            server.query("DROP USER shape_reader")
        # Setting values are part of the text: a readonly profile refuses changing them.
        r = server.request("SELECT v FROM default.shape_kv WHERE id = 6 SETTINGS use_uncompressed_cache = 1", params={"readonly": "1"})
        assert r.headers.get("X-ClickHouse-Exception-Code") == "164", r.text
        # The same text after the table is replaced reads the new table (or fails like it).
        server.query("DROP TABLE default.shape_kv")
        r = server.request("SELECT v FROM default.shape_kv WHERE id = 7 SETTINGS use_uncompressed_cache = 1")
        assert r.headers.get("X-ClickHouse-Exception-Code") == "60", r.text
        server.query("CREATE TABLE default.shape_kv (id String, v UInt8) ENGINE = MergeTree ORDER BY id")
        server.query("INSERT INTO default.shape_kv VALUES ('7', 70)")
        assert server.query("SELECT v FROM default.shape_kv WHERE id = '7' SETTINGS use_uncompressed_cache = 1") == "70\n"
    finally:
        server.query("DROP TABLE IF EXISTS default.shape_kv")


def test_constant_lookups_are_reused_without_parsing(server):
    """`SELECT dictGet*/joinGet*(constants)` sent again with other literals is answered from
    the query remembered by its normalized text (PointQueryShapeCacheHits), with the same
    result, headers, query_log entry, database resolution and access checks as a parsed one."""

    def hits():
        return int(server.query("SELECT value FROM system.events WHERE event = 'PointQueryShapeCacheHits'") or 0)

    server.query("CREATE DATABASE IF NOT EXISTS lookup_a")
    server.query("CREATE DATABASE IF NOT EXISTS lookup_b")
    try:
        for db, scale in (("lookup_a", 1), ("lookup_b", 10)):
            server.query(f"CREATE TABLE {db}.src (id UInt64, v Float64) ENGINE = MergeTree ORDER BY id")
            server.query(f"INSERT INTO {db}.src SELECT number, number * {scale} FROM numbers(100)")
            server.query(f"CREATE DICTIONARY {db}.d (id UInt64, v Float64) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'src' DB '{db}')) LAYOUT(HASHED()) LIFETIME(0)")
            server.query(f"CREATE TABLE {db}.j (id UInt64, v Float64) ENGINE = Join(ANY, LEFT, id)")
            server.query(f"INSERT INTO {db}.j SELECT id, v FROM {db}.src")
        before = hits()
        for key in range(20):
            for db, scale in (("lookup_a", 1), ("lookup_b", 10)):
                for sql in (f"SELECT dictGetFloat64('d', 'v', toUInt64({key}))", f"SELECT joinGet('j', 'v', toUInt64({key}))"):
                    r = server.request(sql, params={"database": db})
                    assert (r.status, r.text) == (200, f"{key * scale}\n"), (sql, r.text)
                    assert r.headers["X-ClickHouse-Format"] == "TabSeparated"
                    assert json.loads(r.headers["X-ClickHouse-Summary"])["result_rows"] == "1"
        assert hits() - before >= 70
        # Formats and types as the planned path gives them.
        for key in (3, 4):
            sql = f"SELECT dictGetOrNull('d', 'v', toUInt64({key})) AS x, joinGetOrNull('j', 'v', toUInt64({key + 200})) AS y"
            fast = server.query(sql + " FORMAT JSONCompactEachRowWithNamesAndTypes", database="lookup_a")
            planned = server.query(sql + " FROM system.one FORMAT JSONCompactEachRowWithNamesAndTypes", database="lookup_a")
            assert fast == planned == f'["x", "y"]\n["Nullable(Float64)", "Nullable(Float64)"]\n[{key}, null]\n', (fast, planned)
        # Unaliased results are named after each text's own literals.
        for key in (5, 6, 7):
            sql = f"SELECT dictGetFloat64('d', 'v', toUInt64({key})), joinGet('j', 'v', toUInt64({key})) FORMAT TSVWithNames"
            names = f"dictGetFloat64('d', 'v', toUInt64({key}))\tjoinGet('j', 'v', toUInt64({key}))".replace("'", "\\'")
            assert server.query(sql, database="lookup_a") == f"{names}\n{key}\t{key}\n"
        query_id = "lookup-" + uuid.uuid4().hex
        assert server.query("SELECT dictGetFloat64('d', 'v', toUInt64(42))", query_id=query_id, database="lookup_b") == "420\n"
        server.query("SYSTEM FLUSH LOGS")
        out = server.query(f"SELECT type, query_kind, result_rows, current_database, query FROM system.query_log WHERE query_id = '{query_id}'")
        assert out == "QueryFinish\tSelect\t1\tlookup_b\tSELECT dictGetFloat64(\\'d\\', \\'v\\', toUInt64(42))\n", out
        # Another attribute in the same text shape is checked like a parsed query's.
        r = server.request("SELECT dictGetFloat64('d', 'nope', toUInt64(1))", params={"database": "lookup_a"})
        assert r.headers.get("X-ClickHouse-Exception-Code") == "36", r.text
        # A user without rights on the dictionary is refused on the remembered path too.
        server.query("CREATE USER IF NOT EXISTS lookup_reader IDENTIFIED WITH plaintext_password BY 'pw'")
        try:
            r = server.request("SELECT dictGetFloat64('d', 'v', toUInt64(5))", params={"user": "lookup_reader", "password": "pw", "database": "lookup_a"})
            assert r.status != 200, r.text
        finally:
            server.query("DROP USER lookup_reader")
        # The same text after the dictionary is dropped fails as a parsed query does.
        server.query("DROP DICTIONARY lookup_a.d")
        r = server.request("SELECT dictGetFloat64('d', 'v', toUInt64(6))", params={"database": "lookup_a"})
        assert r.headers.get("X-ClickHouse-Exception-Code") == "36", r.text
    finally:
        server.query("DROP DATABASE IF EXISTS lookup_a")
        server.query("DROP DATABASE IF EXISTS lookup_b")
        server.query("DROP USER IF EXISTS lookup_reader")


def test_repeated_select_texts_reuse_their_parse(server):
    """A SELECT text sent again reuses its parsed statement: the URL's format, settings
    checks and errors still apply to every execution."""
    for _ in range(3):
        assert server.query("SELECT 1 AS x") == "1\n"
        assert server.query("SELECT 1 AS x", default_format="JSONEachRow") == '{"x":1}\n'
        r = server.request("SELECT 1 AS x SETTINGS max_threads = 2", params={"readonly": "1"})
        assert r.headers.get("X-ClickHouse-Exception-Code") == "164", r.text
        assert server.query("SELECT 1 AS x SETTINGS max_threads = 2") == "1\n"
        r = server.request("SELECT 1 AS x FROM no_such_table_for_parse_cache")
        assert r.headers.get("X-ClickHouse-Exception-Code") == "60", r.text


def test_single_ordered_streams_give_their_first_rows(server):
    """`system.numbers` (and a small `numbers(N)`) is one ordered stream, as ClickHouse
    reads it in one thread: a filter with LIMIT returns the first matching rows every
    time, not whichever rows a thread produced first."""
    for _ in range(30):
        assert server.query("SELECT number FROM system.numbers WHERE number > 5 LIMIT 2") == "6\n7\n"
        assert server.query("SELECT number FROM system.numbers WHERE number % 1000 = 999 LIMIT 3") == "999\n1999\n2999\n"
        assert server.query("SELECT number FROM numbers(50000) WHERE number % 3 = 2 LIMIT 2") == "2\n5\n"
    # Aggregations over large ranges still run split across threads.
    assert server.query("SELECT count(), sum(number) FROM numbers(10000000)") == "10000000\t49999995000000\n"
