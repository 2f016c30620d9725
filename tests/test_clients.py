"""Real clients against the real server: clickhouse-connect (the most used Python driver,
over HTTP with Native/Arrow bodies and lz4 compression) and HTTP content codings of
request bodies and responses sent by hand, the way curl scripts use them."""
import datetime
import bz2
import gzip
import lzma
import http.client
import struct
import zlib

import clickhouse_connect
import lz4.block
import lz4.frame
import pandas as pd
import pyarrow as pa
import pytest
from backports import zstd  # clickhouse-connect's own zstd dependency
from clickhouse_connect.driver.exceptions import DatabaseError

CODINGS = {
    "gzip": (gzip.compress, gzip.decompress),
    "deflate": (zlib.compress, zlib.decompress),
    "zstd": (zstd.compress, zstd.decompress),
    "lz4": (lz4.frame.compress, lz4.frame.decompress),
    "xz": (lzma.compress, lzma.decompress),
    "bz2": (bz2.compress, bz2.decompress),
}


@pytest.fixture(scope="module", params=[True, False], ids=["compressed", "plain"])
def client(server, request):
    c = clickhouse_connect.get_client(host="127.0.0.1", port=server.port, compress=request.param)
    yield c
    c.close()


@pytest.fixture
def table(client):
    name = "cc_" + ("c" if client.compression else "p")
    client.command(f"DROP TABLE IF EXISTS {name}")
    client.command(
        f"CREATE TABLE {name} (id UInt64, s String, d DateTime, n Nullable(Float64), lc LowCardinality(String), "
        "a Array(UInt32), dec Decimal(10, 2), f FixedString(3)) ENGINE = MergeTree ORDER BY id"
    )
    yield name
    client.command(f"DROP TABLE {name}")


COLUMNS = ["id", "s", "d", "n", "lc", "a", "dec", "f"]


def test_connects_and_reads_server_facts(client):
    assert client.server_version
    assert client.command("SELECT 1") == 1
    assert client.command("SELECT timezone()") == "UTC"


def test_query_types_round_trip(client):
    result = client.query(
        "SELECT number AS n, toString(number) AS s, toDate('2024-01-02') + number AS d, "
        "if(number = 1, NULL, number * 1.5) AS f, [number, number + 1] AS a, toDecimal64(number, 3) AS dec "
        "FROM numbers(3)"
    )
    assert result.column_names == ("n", "s", "d", "f", "a", "dec")
    assert result.result_rows[1] == (1, "1", datetime.date(2024, 1, 3), None, [1, 2], 1)
    assert result.result_rows[2][3] == 3.0


def test_repeated_column_names_reach_the_client(client):
    # ClickHouse returns both columns under one name; clients see them by position.
    result = client.query("SELECT number, *, number * 2, number * 2 FROM numbers(2)")
    assert result.column_names == ("number", "number", "multiply(number, 2)", "multiply(number, 2)")
    assert result.result_rows == [(0, 0, 0, 0), (1, 1, 2, 2)]


def test_insert_rows_and_read_them_back(client, table):
    rows = [
        [1, "a", datetime.datetime(2024, 1, 1, 12, 0), None, "x", [1, 2], 1.25, b"abc"],
        [2, "it's", datetime.datetime(2024, 1, 2), 2.5, "y", [], -3.5, b"de\x00"],
    ]
    summary = client.insert(table, rows, column_names=COLUMNS)
    assert summary.written_rows == 2
    back = client.query(f"SELECT * FROM {table} ORDER BY id").result_rows
    assert back[0][:6] == (1, "a", datetime.datetime(2024, 1, 1, 12, 0), None, "x", [1, 2])
    assert back[1][:6] == (2, "it's", datetime.datetime(2024, 1, 2), 2.5, "y", [])
    assert [float(r[6]) for r in back] == [1.25, -3.5]
    assert back[1][7] in (b"de\x00", "de\x00")


def test_enums_and_addresses_round_trip(client):
    """Enum8/Enum16, IPv4 and IPv6 travel in Native as ClickHouse sends them: the client
    decodes names and ipaddress objects, and inserts them back."""
    from ipaddress import IPv4Address, IPv6Address

    name = "cc_types_" + ("c" if client.compression else "p")
    client.command(f"DROP TABLE IF EXISTS {name}")
    client.command(
        f"CREATE TABLE {name} (id UInt8, e Enum8('a' = 1, 'b' = -2), w Enum16('big' = 1000), ip IPv4, ip6 IPv6, "
        "maybe Nullable(IPv4), tags Array(Enum8('x' = 1, 'y' = 2))) ENGINE = MergeTree ORDER BY id"
    )
    try:
        rows = [
            [1, "a", "big", IPv4Address("10.0.0.1"), IPv6Address("2001:db8::1"), None, ["x"]],
            [2, "b", "big", IPv4Address("255.255.255.255"), IPv6Address("::ffff:1.2.3.4"), IPv4Address("8.8.8.8"), ["y", "x"]],
        ]
        client.insert(name, rows, column_names=["id", "e", "w", "ip", "ip6", "maybe", "tags"])
        back = client.query(f"SELECT * FROM {name} ORDER BY id").result_rows
        assert back == [tuple(r) for r in rows], back
        assert client.query(f"SELECT id FROM {name} WHERE e = 'b' AND ip > '10.0.0.0'").result_rows == [(2,)]
        df = client.query_df(f"SELECT e, toString(ip) AS ip FROM {name} ORDER BY id")
        assert list(df["e"]) == ["a", "b"] and list(df["ip"]) == ["10.0.0.1", "255.255.255.255"]
    finally:
        client.command(f"DROP TABLE {name}")


def test_dataframes_and_arrow(client, table):
    df = pd.DataFrame(
        {
            "id": [10, 11],
            "s": ["p", "q"],
            "d": [pd.Timestamp("2024-03-01 10:00:00"), pd.Timestamp("2024-03-02")],
            "n": [1.0, None],
            "lc": ["z", "z"],
            "a": [[7], [8, 9]],
            "dec": [0.5, 1.0],
            "f": ["xyz", "uvw"],
        }
    )
    client.insert_df(table, df)
    arrow = pa.table(
        {
            "id": pa.array([20], pa.uint64()),
            "s": ["r"],
            "d": pa.array([datetime.datetime(2024, 4, 1)], pa.timestamp("s")),
            "n": pa.array([None], pa.float64()),
            "lc": ["w"],
            "a": [[1, 2, 3]],
            "dec": pa.array([2], pa.decimal128(10, 2)),
            "f": ["abc"],
        }
    )
    client.insert_arrow(table, arrow)
    out = client.query_df(f"SELECT id, s, d, n, lc, a FROM {table} ORDER BY id")
    assert list(out["id"]) == [10, 11, 20]
    assert list(out["s"]) == ["p", "q", "r"]
    assert out["d"][0] == pd.Timestamp("2024-03-01 10:00:00")
    assert out["n"].isna().tolist() == [False, True, True]
    assert list(out["a"][2]) == [1, 2, 3]
    table_out = client.query_arrow(f"SELECT id, s, lc FROM {table} ORDER BY id")
    assert table_out.column("id").to_pylist() == [10, 11, 20]
    assert table_out.column("lc").to_pylist() == ["z", "z", "w"]
    np_out = client.query_np(f"SELECT id FROM {table} ORDER BY id")
    assert np_out.tolist() == [[10], [11], [20]] or list(np_out) == [10, 11, 20]


def test_insert_df_arrow_sends_pyarrow_frames_as_arrow(client, table):
    # insert_df_arrow takes only pyarrow-backed frames and sends them in the Arrow format.
    df = pd.DataFrame(
        {
            "id": [31, 30],
            "s": ["x", None],
            "d": [pd.Timestamp("2024-05-01 12:00:00"), pd.Timestamp("2024-05-02")],
            "n": [None, 2.5],
            "lc": ["k", "k"],
            "a": [[1], []],
            "dec": [1.25, 2.5],
            "f": ["abc", "def"],
        }
    ).convert_dtypes(dtype_backend="pyarrow")
    df["d"] = df["d"].astype(pd.ArrowDtype(pa.timestamp("s")))
    df["a"] = pd.Series([[1], []], dtype=pd.ArrowDtype(pa.list_(pa.uint32())))
    df["dec"] = pd.Series([1.25, 2.5], dtype=pd.ArrowDtype(pa.decimal128(10, 2)))
    client.insert_df_arrow(table, df.fillna({"s": ""}))
    rows = client.query(f"SELECT id, s, d, n, lc, a, toString(dec), f FROM {table} ORDER BY id").result_rows
    assert rows == [
        (30, "", datetime.datetime(2024, 5, 2), 2.5, "k", [], "2.5", b"def"),
        (31, "x", datetime.datetime(2024, 5, 1, 12), None, "k", [1], "1.25", b"abc"),
    ], rows
    with pytest.raises(clickhouse_connect.driver.exceptions.ProgrammingError):
        client.insert_df_arrow(table, pd.DataFrame({"id": [1]}))


def test_parameters_settings_query_id_and_sessions(client):
    assert client.query("SELECT {x:UInt32} + 1, {s:String}", parameters={"x": 41, "s": "it's"}).result_rows == [(42, "it's")]
    assert client.query("SELECT %(x)s + 1, %(s)s", parameters={"x": 41, "s": "a'b"}).result_rows == [(42, "a'b")]
    assert client.query("SELECT getSetting('max_block_size')", settings={"max_block_size": 1234}).result_rows == [(1234,)]
    result = client.query("SELECT 1", settings={"query_id": "granary-cc-query-id"})
    assert result.query_id == "granary-cc-query-id"
    # clickhouse-connect sends a session id with every request: SET sticks.
    client.command("SET max_block_size = 777")
    assert client.command("SELECT getSetting('max_block_size')") == 777


def test_errors_surface_as_database_error(client):
    with pytest.raises(DatabaseError) as e:
        client.query("SELECT * FROM no_such_table_anywhere")
    assert "Code: 60" in str(e.value) and "UNKNOWN_TABLE" in str(e.value)
    with pytest.raises(DatabaseError) as e:
        client.command("SELECT definitelyNotAFunction(1)")
    assert "Code: 46" in str(e.value)


def test_streaming_large_results(client):
    with client.query_row_block_stream("SELECT number, toString(number) FROM numbers(300000)") as stream:
        total, blocks, checksum = 0, 0, 0
        for block in stream:
            blocks += 1
            total += len(block)
            checksum += sum(n for n, s in block if s == str(n))
    assert total == 300000 and blocks > 1 and checksum == 299999 * 300000 // 2


@pytest.mark.parametrize("coding", CODINGS)
def test_compressed_responses(server, coding):
    compress, decompress = CODINGS[coding]
    sql = "SELECT number FROM numbers(50000) FORMAT TSV"
    expected = "".join(f"{i}\n" for i in range(50000)).encode()
    plain = server.request(sql, headers={"Accept-Encoding": coding})
    assert plain.status == 200 and plain.headers.get("Content-Encoding") is None and plain.body == expected
    r = server.request(sql, params={"enable_http_compression": 1}, headers={"Accept-Encoding": coding})
    assert r.status == 200, r.text
    assert r.headers.get("Content-Encoding") == coding
    assert len(r.body) < len(expected) and decompress(r.body) == expected


def test_response_coding_follows_server_preference_and_ignores_unknown(server):
    r = server.request("SELECT 1", params={"enable_http_compression": 1}, headers={"Accept-Encoding": "gzip, lz4"})
    assert r.headers.get("Content-Encoding") == "lz4" and lz4.frame.decompress(r.body) == b"1\n"
    r = server.request("SELECT 1", params={"enable_http_compression": 1}, headers={"Accept-Encoding": "gzip, zstd"})
    assert r.headers.get("Content-Encoding") == "zstd" and zstd.decompress(r.body) == b"1\n"
    r = server.request("SELECT 1", params={"enable_http_compression": 1}, headers={"Accept-Encoding": "snappy, bz2, xz"})
    assert r.headers.get("Content-Encoding") == "xz" and lzma.decompress(r.body) == b"1\n"
    r = server.request("SELECT 1", params={"enable_http_compression": 1}, headers={"Accept-Encoding": "snappy, compress"})
    assert r.headers.get("Content-Encoding") is None and r.body == b"1\n"


def test_brotli_both_ways(server):
    """No brotli module in Python here: a br response of the server goes back as a br body."""
    r = server.request("SELECT number, toString(number) FROM numbers(20000) FORMAT TSV", params={"enable_http_compression": 1}, headers={"Accept-Encoding": "br"})
    assert r.status == 200 and r.headers.get("Content-Encoding") == "br"
    assert len(r.body) < 20000 * 8
    server.query("CREATE TABLE brotli_t (n UInt64, s String) ENGINE = MergeTree ORDER BY n")
    back = server.request(params={"query": "INSERT INTO brotli_t FORMAT TSV"}, data=r.body, headers={"Content-Encoding": "br"})
    assert back.status == 200, back.text
    assert server.query("SELECT count(), sum(n), max(s) FROM brotli_t") == "20000\t199990000\t9999\n"
    bad = server.request(params={"query": "INSERT INTO brotli_t FORMAT TSV"}, data=b"not brotli at all", headers={"Content-Encoding": "br"})
    assert bad.headers.get("X-ClickHouse-Exception-Code") == "448", bad.text  # BROTLI_READ_FAILED
    server.query("DROP TABLE brotli_t")


@pytest.mark.parametrize("coding", CODINGS)
def test_compressed_request_bodies(server, coding):
    compress, _ = CODINGS[coding]
    table = f"body_{coding}"
    server.query(f"CREATE TABLE {table} (a UInt32, b String) ENGINE = MergeTree ORDER BY a")
    data = "".join(f"{i},v{i}\n" for i in range(100000)).encode()
    r = server.request(params={"query": f"INSERT INTO {table} FORMAT CSV"}, data=compress(data), headers={"Content-Encoding": coding})
    assert r.status == 200, r.text
    assert server.query(f"SELECT count(), sum(a), max(b) FROM {table}") == "100000\t4999950000\tv99999\n"
    # The whole body, query included, may be compressed.
    r = server.request(data=compress(f"INSERT INTO {table} VALUES (7, 'seven')".encode()), headers={"Content-Encoding": coding})
    assert r.status == 200, r.text
    assert server.query(f"SELECT b FROM {table} WHERE a = 7 ORDER BY b") == "seven\nv7\n"
    server.query(f"DROP TABLE {table}")


def test_bad_compressed_bodies_are_clear_errors_and_insert_nothing(server):
    server.query("CREATE TABLE body_bad (a UInt32) ENGINE = MergeTree ORDER BY a")
    good = gzip.compress(b"".join(b"%d\n" % i for i in range(10000)))
    r = server.request(params={"query": "INSERT INTO body_bad FORMAT TSV"}, data=good[: len(good) // 2] + b"garbage!", headers={"Content-Encoding": "gzip"})
    assert r.status == 500 and r.headers["X-ClickHouse-Exception-Code"] == "354", r.text
    r = server.request(params={"query": "INSERT INTO body_bad FORMAT TSV"}, data=b"\x04\x22\x4d\x18 not lz4", headers={"Content-Encoding": "lz4"})
    assert r.headers["X-ClickHouse-Exception-Code"] == "617", r.text
    r = server.request(params={"query": "INSERT INTO body_bad FORMAT TSV"}, data=b"1\n", headers={"Content-Encoding": "snappy"})
    assert r.headers["X-ClickHouse-Exception-Code"] == "48" and "Unknown compression method 'snappy'" in r.text
    assert server.query("SELECT count() FROM body_bad") == "0\n"
    server.query("DROP TABLE body_bad")


def test_error_after_compressed_output_began_is_in_the_body(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request(
            "POST",
            "/?enable_http_compression=1",
            body=b"SELECT throwIf(number = 2500000, 'late failure') FROM numbers(3000000) FORMAT TSV",
            headers={"Accept-Encoding": "gzip"},
        )
        response = conn.getresponse()
        assert response.status == 200 and response.getheader("Content-Encoding") == "gzip"
        try:
            body = response.read()
        except http.client.IncompleteRead as e:
            body = e.partial
    finally:
        conn.close()
    text = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(body)
    assert b"Code: 395" in text and b"late failure" in text


def native_blocks(body):
    """Decodes ClickHouse's compressed blocks (checksum, method, sizes, payload)."""
    out, at = b"", 0
    while at < len(body):
        method = body[at + 16]
        compressed, raw = struct.unpack("<II", body[at + 17 : at + 25])
        payload = body[at + 25 : at + 16 + compressed]
        if method == 0x82:
            out += lz4.block.decompress(payload, uncompressed_size=raw)
        elif method == 0x90:
            out += zstd.decompress(payload)
        else:
            assert method == 0x02, hex(method)
            out += payload
        at += 16 + compressed
    return out


def frame_block(data):
    """One uncompressed block with a zero checksum (accepted only with checksums off)."""
    return b"\0" * 16 + bytes([0x02]) + struct.pack("<II", len(data) + 9, len(data)) + data


@pytest.mark.parametrize("method", ["lz4", "zstd", "none"])
def test_compress_1_blocks(server, method):
    expected = "".join(f"{i}\tv{i}\n" for i in range(300000)).encode()
    r = server.request("SELECT number, concat('v', toString(number)) FROM numbers(300000) ORDER BY number FORMAT TSV",
                       params={"compress": 1, "network_compression_method": method})
    assert r.status == 200 and r.headers.get("Content-Encoding") is None
    assert native_blocks(r.body) == expected
    # Our blocks carry real checksums: sent back with decompress=1 they are verified.
    server.query("CREATE TABLE native_blocks_t (n UInt64, s String) ENGINE = MergeTree ORDER BY n")
    ok = server.request(params={"query": "INSERT INTO native_blocks_t FORMAT TSV", "decompress": 1}, data=r.body)
    assert ok.status == 200, ok.text
    assert server.query("SELECT count(), max(s) FROM native_blocks_t") == "300000\tv99999\n"
    # A flipped byte is caught by the checksum, and nothing is inserted.
    corrupt = bytearray(r.body)
    corrupt[len(corrupt) // 2] ^= 0x40
    bad = server.request(params={"query": "INSERT INTO native_blocks_t FORMAT TSV", "decompress": 1}, data=bytes(corrupt))
    assert bad.headers.get("X-ClickHouse-Exception-Code") == "40" and "Checksum doesn't match" in bad.text, bad.text
    assert server.query("SELECT count() FROM native_blocks_t") == "300000\n"
    # Without checksums, a block built by hand.
    hand = server.request(
        params={"query": "INSERT INTO native_blocks_t FORMAT TSV", "decompress": 1, "http_native_compression_disable_checksumming_on_decompress": 1},
        data=frame_block(b"7\thand\n"),
    )
    assert hand.status == 200, hand.text
    assert server.query("SELECT s FROM native_blocks_t WHERE s = 'hand'") == "hand\n"
    server.query("DROP TABLE native_blocks_t")


def test_compress_1_inside_http_compression(server):
    r = server.request("SELECT 'layered'", params={"compress": 1, "enable_http_compression": 1}, headers={"Accept-Encoding": "gzip"})
    assert r.headers.get("Content-Encoding") == "gzip"
    assert native_blocks(gzip.decompress(r.body)) == b"layered\n"


AGG_QUERY = (
    "SELECT number % 3 AS k, sumState(number) AS s, countState() AS c, avgState(toInt32(number)) AS a, "
    "avgState(toFloat64(number) / 4) AS af, maxState(toString(number)) AS mx, minState(toInt16(number)) AS mn, "
    "sumState(if(number > 4, toNullable(number), NULL)) AS sn FROM numbers({n}) GROUP BY k ORDER BY k"
)


@pytest.mark.parametrize("fmt", ["Native", "RowBinaryWithNamesAndTypes"])
def test_aggregate_states_are_clickhouse_bytes(server, fmt):
    """AggregateFunction states in ClickHouse's layouts: byte-identical output, and
    ClickHouse's own states load into AggregatingMergeTree and merge right."""
    import chdb

    query = AGG_QUERY.format(n=10)
    mine = server.request(query + f" FORMAT {fmt}")
    assert mine.status == 200, mine.text
    assert mine.body == chdb.query(query, fmt).bytes()

    table = "agg_states_" + fmt.lower()
    server.query(f"DROP TABLE IF EXISTS {table}")
    server.query(
        f"CREATE TABLE {table} (k UInt8, s AggregateFunction(sum, UInt64), c AggregateFunction(count), "
        "a AggregateFunction(avg, Int32), af AggregateFunction(avg, Float64), mx AggregateFunction(max, String), "
        "mn AggregateFunction(min, Int16), sn AggregateFunction(sum, Nullable(UInt64))) ENGINE = AggregatingMergeTree ORDER BY k"
    )
    try:
        for n in (10, 100):
            body = chdb.query(AGG_QUERY.format(n=n), fmt).bytes()
            r = server.request(params={"query": f"INSERT INTO {table} FORMAT {fmt}"}, data=body)
            assert r.status == 200, r.text
        # A truncated state is a clear error and inserts nothing.
        r = server.request(params={"query": f"INSERT INTO {table} FORMAT {fmt}"}, data=body[:-3])
        assert r.status != 200 and b"DB::Exception" in r.body
        merged = "SELECT k, sumMerge(s), countMerge(c), avgMerge(a), avgMerge(af), maxMerge(mx), minMerge(mn), sumMerge(sn) FROM {} GROUP BY k ORDER BY k"
        expected = chdb.query(
            "SELECT number % 3 AS k, sum(number), count(), avg(toInt32(number)), avg(toFloat64(number) / 4), max(toString(number)), "
            "min(toInt16(number)), sum(if(number > 4, toNullable(number), NULL)) "
            "FROM (SELECT number FROM numbers(10) UNION ALL SELECT number FROM numbers(100)) GROUP BY k ORDER BY k",
            "TSV",
        ).bytes().decode()
        assert server.query(merged.format(table)) == expected
        server.query(f"OPTIMIZE TABLE {table} FINAL")
        assert server.query(f"SELECT count() FROM {table}") == "3\n"
        finalized = "\n".join("\t".join(row.split("\t")[i] for i in (0, 1, 5)) for row in expected.splitlines()) + "\n"
        assert server.query(f"SELECT k, finalizeAggregation(s), finalizeAggregation(mx) FROM {table} ORDER BY k") == finalized
        # And back out again: what Granary stored is what ClickHouse reads.
        out = server.request(f"SELECT k, s, mx FROM {table} ORDER BY k FORMAT {fmt}").body
        assert out == chdb.query(
            f"SELECT number % 3 AS k, sumState(number) AS s, maxState(toString(number)) AS mx FROM "
            f"(SELECT number FROM numbers(10) UNION ALL SELECT number FROM numbers(100)) GROUP BY k ORDER BY k FORMAT {fmt}",
            fmt,
        ).bytes()
    finally:
        server.query(f"DROP TABLE {table}")


def test_granary_only_states_round_trip_through_native(server):
    """States of functions without ClickHouse's layout in Granary still travel through
    Native and back (a client keeping states between queries)."""
    server.query("DROP TABLE IF EXISTS agg_own")
    server.query("CREATE TABLE agg_own (k UInt8, u AggregateFunction(uniqExact, UInt64), g AggregateFunction(argMax, String, UInt64)) ENGINE = AggregatingMergeTree ORDER BY k")
    try:
        body = server.request(
            "SELECT number % 2 AS k, uniqExactState(toUInt64(number % 7)) AS u, argMaxState(toString(number), number) AS g FROM numbers(50) GROUP BY k FORMAT Native"
        ).body
        for _ in range(2):
            r = server.request(params={"query": "INSERT INTO agg_own FORMAT Native"}, data=body)
            assert r.status == 200, r.text
        assert server.query("SELECT k, uniqExactMerge(u), argMaxMerge(g) FROM agg_own GROUP BY k ORDER BY k") == "0\t7\t48\n1\t7\t49\n"
    finally:
        server.query("DROP TABLE agg_own")


ALL_TYPES = (
    "i8 Int8, i16 Int16, i32 Int32, i64 Int64, u8 UInt8, u16 UInt16, u32 UInt32, u64 UInt64, f32 Float32, f64 Float64, "
    "b Bool, s String, fs FixedString(4), d Date, d32 Date32, dt DateTime, dt64 DateTime64(3), dec Decimal(18, 4), "
    "uuid UUID, ns Nullable(String), lcs LowCardinality(String), lcn LowCardinality(Nullable(String)), "
    "arr Array(Int32), arrs Array(Nullable(String)), tup Tuple(Int32, String), m Map(String, UInt64)"
)


def test_every_type_round_trips_through_rows_pandas_and_arrow(client):
    """Rows (Native), pandas (Native) and Arrow (ArrowStream / Arrow), in and out, for every
    type Granary has, through clickhouse-connect."""
    import decimal
    import uuid as uuid_module

    names = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "b", "s", "fs", "d", "d32", "dt", "dt64",
             "dec", "uuid", "ns", "lcs", "lcn", "arr", "arrs", "tup", "m"]
    suffix = "c" if client.compression else "p"
    tables = [f"every_{kind}_{suffix}" for kind in ("rows", "df", "arrow")]
    for t in tables:
        client.command(f"DROP TABLE IF EXISTS {t}")
        client.command(f"CREATE TABLE {t} ({ALL_TYPES}) ENGINE = MergeTree ORDER BY i32")
    try:
        rows = [
            [-8, -1600, -320000, -2**62, 8, 1600, 320000, 2**63 + 5, 1.5, -2.25, True, "héllo", b"ab\x00\x01",
             datetime.date(2024, 2, 29), datetime.date(1950, 1, 1), datetime.datetime(2024, 1, 2, 3, 4, 5),
             datetime.datetime(2024, 1, 2, 3, 4, 5, 678000), decimal.Decimal("-12.3456"),
             uuid_module.UUID("12345678-1234-5678-1234-567812345678"), None, "lc", None,
             [1, -2], ["x", None], (7, "t"), {"k": 1, "j": 2}],
            [127, 32767, 2**31 - 1, 2**63 - 1, 255, 65535, 2**32 - 1, 0, 0.0, 1e300, False, "", b"\xff\xfe\xfd\xfc",
             datetime.date(1970, 1, 1), datetime.date(2200, 12, 31), datetime.datetime(1970, 1, 1, 0, 0, 1),
             datetime.datetime(2100, 6, 1), decimal.Decimal("99999999999999.9999"),
             uuid_module.UUID(int=0), "n", "", "lcn", [], [], (-1, ""), {}],
        ]
        client.insert(tables[0], rows, column_names=names)
        back = client.query(f"SELECT * FROM {tables[0]} ORDER BY i32").result_rows
        expected = sorted(rows, key=lambda r: r[2])
        for got, want in zip(back, expected):
            for name, g, w in zip(names, got, want):
                if name == "fs":
                    g = g if isinstance(g, bytes) else g.encode("latin-1")
                if name == "tup":
                    g = tuple(g)
                assert g == w or (name == "f32" and abs(g - w) < 1e-6), (name, g, w)

        # clickhouse-connect cannot write back the pd.NA its own query_df puts inside
        # arrays (Array(Nullable(String))): that column goes by rows.
        df = client.query_df(f"SELECT * EXCEPT (arrs) FROM {tables[0]} ORDER BY i32")
        client.insert_df(tables[1], df)
        arrow = client.query_arrow(f"SELECT * FROM {tables[0]} ORDER BY i32")
        client.insert_arrow(tables[2], arrow)
        # The same rows whichever way they travelled, compared by the server itself.
        for t, columns in ((tables[1], "* EXCEPT (arrs)"), (tables[2], "*")):
            diff = client.query(
                f"SELECT count() FROM (SELECT {columns} FROM {tables[0]} EXCEPT SELECT {columns} FROM {t})"
            ).result_rows[0][0]
            assert diff == 0, (t, client.query(f"SELECT * FROM {t} ORDER BY i32").result_rows)
            assert client.command(f"SELECT count() FROM {t}") == 2
    finally:
        for t in tables:
            client.command(f"DROP TABLE IF EXISTS {t}")


WIDE_COLUMNS = "a Int128, b UInt128, c Int256, d UInt256, e Nullable(Int128)"
WIDE_QUERY = (
    "SELECT toInt128(x.1) AS a, toUInt128(x.2) AS b, toInt256(x.3) AS c, toUInt256(x.4) AS d, "
    "toInt128OrNull(if(x.1 = '5', 'x', x.1)) AS e FROM (SELECT arrayJoin(["
    "('-170141183460469231731687303715884105728', '340282366920938463463374607431768211455', "
    "'-57896044618658097711785492504343953926634992332820282019728792003956564819968', "
    "'115792089237316195423570985008687907853269984665640564039457584007913129639935'), "
    "('5', '6', '-7', '57896044618658097711785492504343953926634992332820282019728792003956564819968')]) AS x)"
)


def assert_wide_bytes_load(server, fmt, body):
    """ClickHouse's `body` of WIDE_QUERY in `fmt` inserts into wide columns, values intact."""
    import chdb

    table = "wide_" + fmt.lower()
    server.query(f"DROP TABLE IF EXISTS {table}")
    server.query(f"CREATE TABLE {table} ({WIDE_COLUMNS}) ENGINE = Memory")
    try:
        r = server.request(params={"query": f"INSERT INTO {table} FORMAT {fmt}"}, data=body)
        assert r.status == 200, r.text
        assert server.query(f"SELECT * FROM {table} ORDER BY b") == chdb.query(WIDE_QUERY + " ORDER BY b", "TSV").bytes().decode()
    finally:
        server.query(f"DROP TABLE {table}")


@pytest.mark.parametrize("fmt", ["Native", "RowBinary", "RowBinaryWithNamesAndTypes"])
def test_wide_integers_are_clickhouse_bytes(server, fmt):
    """Int128..UInt256 in binary formats: the bytes ClickHouse writes, and ClickHouse's
    bytes read back into a table."""
    import chdb

    theirs = chdb.query(WIDE_QUERY, fmt).bytes()
    mine = server.request(WIDE_QUERY + f" FORMAT {fmt}")
    assert mine.status == 200, mine.text
    assert mine.body == theirs
    assert_wide_bytes_load(server, fmt, theirs)


@pytest.mark.parametrize("fmt", ["Parquet", "Arrow", "ArrowStream"])
def test_wide_integers_in_arrow_and_parquet(server, fmt):
    """ClickHouse writes wide integers to Arrow and Parquet as little-endian FixedSizeBinary;
    so does Granary, and ClickHouse's files load into wide columns."""
    import io

    import chdb
    import pyarrow.ipc
    import pyarrow.parquet

    def read(body):
        if fmt == "Parquet":
            return pyarrow.parquet.read_table(io.BytesIO(body))
        if fmt == "Arrow":
            return pyarrow.ipc.open_file(pa.BufferReader(body)).read_all()
        return pyarrow.ipc.open_stream(pa.BufferReader(body)).read_all()

    theirs = chdb.query(WIDE_QUERY, fmt).bytes()
    mine = server.request(WIDE_QUERY + f" FORMAT {fmt}")
    assert mine.status == 200, mine.text
    expected, got = read(theirs), read(mine.body)
    assert [f.type for f in got.schema] == [f.type for f in expected.schema]
    assert got.to_pydict() == expected.to_pydict()
    assert_wide_bytes_load(server, fmt, theirs)


def test_wide_integers_through_clickhouse_connect(client):
    """Python ints in and out of Int128..UInt256 columns."""
    name = "cc_wide_" + ("c" if client.compression else "p")
    client.command(f"DROP TABLE IF EXISTS {name}")
    client.command(f"CREATE TABLE {name} ({WIDE_COLUMNS}) ENGINE = MergeTree ORDER BY a")
    try:
        rows = [
            [-(2**127), 2**128 - 1, -(2**255), 2**256 - 1, None],
            [5, 0, 7, 2**255, -(2**100)],
        ]
        client.insert(name, rows, column_names=["a", "b", "c", "d", "e"])
        assert [list(r) for r in client.query(f"SELECT * FROM {name} ORDER BY a").result_rows] == rows
        assert client.query(f"SELECT sum(b), max(a) FROM {name}").result_rows == [(2**128 - 1, 5)]
    finally:
        client.command(f"DROP TABLE {name}")


def test_time_and_time64_round_trip_through_native(server, client):
    """Time is Int32 seconds and Time64(p) a Decimal64 of p digits in Native, as ClickHouse
    writes them (the bytes match chdb's), negative and beyond 24 hours included; Native
    bodies go back in through INSERT, and clickhouse-connect reads and writes them."""
    import chdb

    select = (
        "SELECT toTime('-01:00:00') AS t, toTime64('01:00:00.5', 3) AS t3, toTime64('-100:00:00.123456789', 9) AS t9, "
        "toTime('999:59:59') AS tmax, CAST(NULL AS Nullable(Time64(6))) AS tn FORMAT Native"
    )
    body = server.request(select).body
    assert body == chdb.query(select, "Native").bytes()
    server.query("DROP TABLE IF EXISTS time_native")
    server.query("CREATE TABLE time_native (t Time, t3 Time64(3), t9 Time64(9), tmax Time, tn Nullable(Time64(6))) ENGINE = MergeTree ORDER BY t")
    try:
        for _ in range(2):
            r = server.request(params={"query": "INSERT INTO time_native FORMAT Native"}, data=body)
            assert r.status == 200, r.text
        assert server.query("SELECT * FROM time_native") == "-01:00:00\t01:00:00.500\t-100:00:00.123456789\t999:59:59\t\\N\n" * 2
        assert server.request("SELECT * FROM time_native LIMIT 1 FORMAT Native").body == body
        rows = client.query("SELECT t, t3 FROM time_native LIMIT 1").result_rows
        client.insert("time_native", [[rows[0][0], rows[0][1], rows[0][1], rows[0][0], None]], column_names=["t", "t3", "t9", "tmax", "tn"])
        assert server.query("SELECT t, t3, t9, tmax, tn FROM time_native ORDER BY t9 DESC LIMIT 1") == "-01:00:00\t01:00:00.500\t01:00:00.500000000\t-01:00:00\t\\N\n"
    finally:
        server.query("DROP TABLE time_native")


def test_time_types_in_arrow_as_chdb_writes_them(server):
    """Arrow has only times of day: Time and Time64(p) go out as time32/time64 of the
    precision's unit, as chdb writes them; a negative Time is an error (321)."""
    import chdb

    select = (
        "SELECT toTime('01:00:00') AS t, toTime64('01:00:00.5', 3) AS u, toTime64('01:00:00.5', 9) AS v, "
        "toTime64('01:00:00.5', 0) AS w, toTime64('01:00:00.5', 6) AS x, toTime64('01:00:00.5', 1) AS y FORMAT Arrow"
    )
    mine = pa.ipc.open_file(pa.BufferReader(server.request(select).body)).read_all()
    theirs = pa.ipc.open_file(pa.BufferReader(chdb.query(select, "Arrow").bytes())).read_all()
    assert mine.schema.types == theirs.schema.types
    assert mine.to_pylist() == theirs.to_pylist()
    r = server.request("SELECT toTime('-01:00:00') AS t FORMAT Arrow")
    assert r.headers.get("X-ClickHouse-Exception-Code") == "321", r.text
