"""MergeTree engine family end to end, where a server restart or a server config file is
part of the story: the empty part a merge leaves when all its rows go (OPTIMIZE ... FINAL
CLEANUP) survives restarts, a table's SAMPLE BY too (and SAMPLE reads fewer rows), and
GraphiteMergeTree rolls up with the server's `graphite_rollup` configuration."""
import json

from conftest import Server


def _poll(read, wanted, seconds):
    """`read()` once it gives `wanted`, or when `seconds` have passed."""
    import time
    deadline = time.time() + seconds
    while (got := read()) != wanted and time.time() < deadline:
        time.sleep(0.05)
    return got


def _parts(server, table):
    return server.query(f"SELECT partition, rows, marks FROM system.parts WHERE database = 'default' AND table = '{table}' AND active ORDER BY partition")


def test_cleanup_leaves_an_empty_part_that_survives_restarts(tmp_path):
    server = Server(str(tmp_path / "db")).start()
    try:
        server.query("CREATE TABLE r (p UInt8, k UInt32, ver UInt32, del UInt8) ENGINE = ReplacingMergeTree(ver, del) PARTITION BY p ORDER BY k "
                     "SETTINGS allow_experimental_replacing_merge_with_cleanup = 1")
        server.query("INSERT INTO r VALUES (1, 1, 1, 0), (1, 2, 1, 0), (2, 7, 1, 0)")
        server.query("INSERT INTO r VALUES (1, 1, 2, 1), (1, 2, 2, 1)")
        server.query("OPTIMIZE TABLE r FINAL CLEANUP")
        assert _parts(server, "r") == "1\t0\t0\n2\t1\t2\n"
        # The sources stay on disk as outdated parts for a while: after a restart the
        # empty part must still cover them, or their rows would come back.
        for _ in range(2):
            server.stop()
            server.start()
            assert _parts(server, "r") == "1\t0\t0\n2\t1\t2\n"
            assert server.query("SELECT p, k FROM r ORDER BY p, k") == "2\t7\n"
            assert server.query("SELECT count() FROM r FINAL") == "1\n"
        server.query("INSERT INTO r VALUES (1, 3, 1, 0)")
        server.query("OPTIMIZE TABLE r FINAL")
        assert _parts(server, "r") == "1\t1\t2\n2\t1\t2\n"
        server.stop()
        server.start()
        assert server.query("SELECT p, k FROM r FINAL ORDER BY p, k") == "1\t3\n2\t7\n"
    finally:
        server.stop()


def _read_rows(server, sql):
    r = server.request(sql)
    assert r.status == 200, r.text
    return r.text, int(json.loads(r.headers["X-ClickHouse-Summary"])["read_rows"])


def test_sample_by_survives_restarts_and_skips_granules(tmp_path):
    server = Server(str(tmp_path / "db")).start()
    try:
        server.query("CREATE TABLE s (x UInt64) ENGINE = MergeTree ORDER BY (cityHash64(x), x) SAMPLE BY cityHash64(x) SETTINGS index_granularity = 1024")
        server.query("INSERT INTO s SELECT number FROM numbers(100000)")
        # chdb's counts for these samples (golden 0616 reads the same table).
        expected = {"SAMPLE 0.1": "9815\n", "SAMPLE 1/3 OFFSET 2/3": "33216\n", "SAMPLE 500": "437\n"}
        for _ in range(2):
            assert "SAMPLE BY cityHash64(x)" in server.query("SHOW CREATE TABLE s")
            assert server.query("SELECT sampling_key FROM system.tables WHERE name = 's'") == "cityHash64(x)\n"
            for sample, count in expected.items():
                assert server.query(f"SELECT count() FROM s {sample}") == count
            server.stop()
            server.start()
        # The sample's range of the key skips granules: a tenth of the table reads about a
        # tenth of its granules (one more at each end of the range at most).
        _, everything = _read_rows(server, "SELECT sum(x) FROM s")
        count, sampled = _read_rows(server, "SELECT count() FROM s SAMPLE 0.1")
        assert (everything, count) == (100000, "9815\n")
        assert 9815 <= sampled <= 9815 + 3 * 1024, sampled
        server.query("SYSTEM FLUSH LOGS")
        logged = server.query("SELECT read_rows FROM system.query_log WHERE type = 'QueryFinish' AND query = 'SELECT count() FROM s SAMPLE 0.1' ORDER BY event_time_microseconds DESC LIMIT 1")
        assert int(logged) == sampled
    finally:
        server.stop()


GRAPHITE_CONFIG = r'''
[graphite_rollup.graphite_rollup]
version_column_name = "Version"

[[graphite_rollup.graphite_rollup.pattern]]
regexp = "^sum\\."
function = "sum"
retention = [{ age = 0, precision = 60 }, { age = 86400, precision = 3600 }]

[[graphite_rollup.graphite_rollup.pattern]]
regexp = "^avg\\."
function = "avg"

[[graphite_rollup.graphite_rollup.pattern]]
regexp = "^raw\\."
retention = [{ age = 0, precision = 600 }]

[graphite_rollup.graphite_rollup.default]
function = "max"
retention = [{ age = 0, precision = 10 }]

[graphite_rollup.typed]
path_column_name = "metric"
time_column_name = "ts"
value_column_name = "v"
version_column_name = "ver"

[[graphite_rollup.typed.pattern]]
rule_type = "plain"
regexp = "^cpu"
function = "min"
retention = [{ age = 0, precision = 100 }]

[[graphite_rollup.typed.pattern]]
rule_type = "tag_list"
regexp = "cpu;dc=eu"
function = "sum"
retention = [{ age = 0, precision = 1000 }]

[graphite_rollup.typed.default]
function = "anyLast"
retention = [{ age = 0, precision = 1 }]
'''


def _graphite_server(tmp_path, config=GRAPHITE_CONFIG):
    conf = tmp_path / "server.toml"
    conf.write_text(config)
    return Server(str(tmp_path / "db"), ["--config", str(conf)])


def test_graphite_rollup_on_insert_merge_final_and_restart(tmp_path):
    import time
    server = _graphite_server(tmp_path).start()
    try:
        server.query("CREATE TABLE g (Path String, Time DateTime, Value Float64, Version UInt32, Note String) "
                     "ENGINE = GraphiteMergeTree('graphite_rollup') ORDER BY (Path, Time)")
        now = int(time.time())
        hour = (now - 3 * 86400) // 3600 * 3600  # old enough for sum's hourly retention
        minute = (now - 3600) // 60 * 60  # an hour old: sum's per-minute retention
        rows = [
            # sum.*: per minute while young, values summed; equal times keep the greatest version.
            ("sum.a", minute + 1, 1, 1, "first"), ("sum.a", minute + 2, 2, 1, "second"), ("sum.a", minute + 2, 7, 3, "newer"),
            ("sum.a", minute + 2, 100, 2, "older"), ("sum.a", minute + 61, 4, 1, "next minute"),
            # ... and per hour once older than a day.
            ("sum.b", hour + 5, 1, 1, "b1"), ("sum.b", hour + 3000, 2, 1, "b2"), ("sum.b", hour + 3600, 4, 1, "b3"),
            # avg.*: no retention of its own, the default's (10 s) with avg.
            ("avg.c", 1000, 1, 1, "c1"), ("avg.c", 1003, 2, 1, "c2"), ("avg.c", 1009, 6, 1, "c3"), ("avg.c", 1010, 5, 1, "c4"),
            # raw.*: a retention without function, the default's max.
            ("raw.d", 1200, 1, 1, "d1"), ("raw.d", 1799, 3, 1, "d2"),
            # anything else: the default, max per 10 s.
            ("other", 1001, 4, 1, "o1"), ("other", 1005, 9, 1, "o2"), ("other", 1011, 2, 1, "o3"),
        ]
        # An INSERT's block is rolled up when written (ClickHouse's optimize_on_insert).
        server.query("INSERT INTO g VALUES " + ", ".join(f"('{p}', {t}, {v}, {ver}, '{n}')" for p, t, v, ver, n in rows))
        expected = (
            f"avg.c\t1000\t3\t1\tc1\n"
            f"avg.c\t1010\t5\t1\tc4\n"
            f"other\t1000\t9\t1\to1\n"
            f"other\t1010\t2\t1\to3\n"
            f"raw.d\t1200\t3\t1\td1\n"
            f"sum.a\t{minute}\t8\t3\tfirst\n"
            f"sum.a\t{minute + 60}\t4\t1\tnext minute\n"
            f"sum.b\t{hour}\t3\t1\tb1\n"
            f"sum.b\t{hour + 3600}\t4\t1\tb3\n"
        )
        select = "SELECT Path, toUnixTimestamp(Time), Value, Version, Note FROM g {} ORDER BY Path, Time"
        assert server.query(select.format("")) == expected
        assert server.query(select.format("FINAL")) == expected
        # A later row of an already rolled-up time is a version of it: the greatest
        # version wins (rows of one time are never aggregated again).
        server.query(f"INSERT INTO g VALUES ('sum.a', {minute + 30}, 50, 9, 'late'), ('other', 1002, 1, 0, 'stale')")
        rolled = expected.replace(f"sum.a\t{minute}\t8\t3\tfirst", f"sum.a\t{minute}\t50\t9\tfirst")
        assert server.query(select.format("FINAL")) == rolled
        server.stop()
        server.start()
        assert server.query(select.format("FINAL")) == rolled
        server.query("OPTIMIZE TABLE g FINAL")
        assert server.query(select.format("")) == rolled
        assert server.query("SELECT count() FROM system.parts WHERE database = 'default' AND table = 'g' AND active") == "1\n"
        # Bad tables: an unknown section, missing columns, a non-literal argument.
        status, headers, body = server.request("CREATE TABLE bad (Path String, Time DateTime, Value Float64, Version UInt32) ENGINE = GraphiteMergeTree('nope') ORDER BY Path")
        assert headers.get("X-ClickHouse-Exception-Code") == "139" and b"No 'nope' element in configuration file" in body, body
        status, headers, body = server.request("CREATE TABLE bad (Path String, Time DateTime, Value Float64) ENGINE = GraphiteMergeTree('graphite_rollup') ORDER BY Path")
        assert headers.get("X-ClickHouse-Exception-Code") == "16", body
        status, headers, body = server.request("CREATE TABLE bad (Path String, Time DateTime, Value Float64, Version UInt32) ENGINE = GraphiteMergeTree ORDER BY Path")
        assert headers.get("X-ClickHouse-Exception-Code") == "42", body
        # A value column other than Float64 is accepted, but not its rows (as in ClickHouse).
        server.query("CREATE TABLE u8 (key UInt32, Path String, Time DateTime('UTC'), Value UInt8, Version UInt32) ENGINE = GraphiteMergeTree('graphite_rollup') ORDER BY key")
        status, headers, body = server.request("INSERT INTO u8 (key) VALUES (0)")
        assert headers.get("X-ClickHouse-Exception-Code") == "36" and b"must be Float64" in body, body
        assert server.query("SELECT count() FROM u8") == "0\n"
    finally:
        server.stop()


def test_graphite_typed_rules_and_column_names(tmp_path):
    server = _graphite_server(tmp_path).start()
    try:
        server.query("CREATE TABLE t (metric String, ts UInt32, v Float64, ver UInt64) ENGINE = GraphiteMergeTree('typed') ORDER BY (metric, ts)")
        server.query("SYSTEM STOP MERGES t")
        # The sections tables use, a row per pattern and retention (tag_list as its regex).
        assert server.query("SELECT * FROM system.graphite_retentions ORDER BY priority, age") == (
            "typed\tplain\t^cpu\tmin\t0\t100\t1\t0\t['default']\t['t']\n"
            "typed\ttagged\t^cpu\\\\?(.*&)?dc=eu(&.*)?$\tsum\t0\t1000\t2\t0\t['default']\t['t']\n"
            "typed\tall\t\tanyLast\t0\t1\t65535\t1\t['default']\t['t']\n"
        )
        server.query("INSERT INTO t VALUES ('cpu.load', 1005, 3, 1), ('cpu.load', 1090, 1, 1), ('cpu?dc=eu&host=a', 1100, 2, 1), ('cpu?host=b', 1500, 5, 1)")
        server.query("INSERT INTO t VALUES ('cpu.load', 1010, 2, 1), ('cpu?dc=eu&host=a', 1999, 3, 1), ('cpu?host=b', 1500, 6, 2), ('mem', 7, 1, 1), ('mem', 7, 4, 1)")
        # plain cpu: min per 100 s; tagged cpu with dc=eu: sum per 1000 s; other tagged and
        # plain paths: the default's anyLast, every second. Each INSERT block is rolled up
        # on its own; then rows of equal time are versions of one another (the greatest
        # version wins, the later part on ties), not aggregated again.
        expected = "cpu.load\t1000\t2\t1\ncpu?dc=eu&host=a\t1000\t3\t1\ncpu?host=b\t1500\t6\t2\nmem\t7\t4\t1\n"
        assert server.query("SELECT * FROM t ORDER BY metric, ts, ver") == (
            "cpu.load\t1000\t1\t1\ncpu.load\t1000\t2\t1\ncpu?dc=eu&host=a\t1000\t2\t1\ncpu?dc=eu&host=a\t1000\t3\t1\n"
            "cpu?host=b\t1500\t5\t1\ncpu?host=b\t1500\t6\t2\nmem\t7\t4\t1\n"
        )
        assert server.query("SELECT * FROM t FINAL ORDER BY metric, ts") == expected
        server.query("SYSTEM START MERGES t")
        server.query("OPTIMIZE TABLE t FINAL")
        assert server.query("SELECT * FROM t ORDER BY metric, ts") == expected
    finally:
        server.stop()


def test_graphite_bad_config_stops_the_server(tmp_path):
    import pytest
    bad = GRAPHITE_CONFIG.replace('retention = [{ age = 0, precision = 60 }, { age = 86400, precision = 3600 }]',
                                  'retention = [{ age = 0, precision = 60 }, { age = 86400, precision = 30 }]')
    server = _graphite_server(tmp_path, bad)
    with pytest.raises(RuntimeError, match="Age and precision should only grow up"):
        server.start()


def test_graphite_rows_rolled_up_by_merges_once_old_enough(tmp_path):
    import time
    now = int(time.time())
    bucket = (now - 60) // 60 * 60
    # Rows of the bucket are younger than `age` when inserted (kept to the second) and
    # older when merged a few seconds later (summed per minute).
    age = now - bucket + 3
    config = f"""
[graphite_rollup.aging]
[graphite_rollup.aging.default]
function = "sum"
retention = [{{ age = 0, precision = 1 }}, {{ age = {age}, precision = 60 }}]
"""
    server = _graphite_server(tmp_path, config).start()
    try:
        server.query("CREATE TABLE a (Path String, Time DateTime, Value Float64, Timestamp UInt32) ENGINE = GraphiteMergeTree('aging') ORDER BY (Path, Time)")
        server.query(f"INSERT INTO a VALUES ('m', {bucket + 1}, 1, 1), ('m', {bucket + 2}, 2, 1), ('m', {bucket + 2}, 5, 0)")
        server.query(f"INSERT INTO a VALUES ('m', {bucket + 3}, 4, 1)")
        select = f"SELECT Path, toUnixTimestamp(Time) - {bucket}, Value FROM a {{}} ORDER BY Time"
        if int(time.time()) - bucket - 3 < age:
            assert server.query(select.format("")) == "m\t1\t1\nm\t2\t2\nm\t3\t4\n"
        while int(time.time()) - bucket - 3 < age:
            time.sleep(0.2)
        assert server.query(select.format("FINAL")) == "m\t0\t7\n"
        server.query("OPTIMIZE TABLE a FINAL")
        assert server.query(select.format("")) == "m\t0\t7\n"
    finally:
        server.stop()


CLICKHOUSE_ROLLUP = r'''
[graphite_rollup.graphite_rollup]
path_column_name = "metric"
time_column_name = "timestamp"
value_column_name = "value"
version_column_name = "updated"
[[graphite_rollup.graphite_rollup.pattern]]
regexp = "\\.count$"
function = "sum"
[[graphite_rollup.graphite_rollup.pattern]]
regexp = "\\.max$"
function = "max"
[[graphite_rollup.graphite_rollup.pattern]]
regexp = "^five_min\\."
retention = [{ age = 0, precision = 300 }, { age = 5184000, precision = 3600 }, { age = 31536000, precision = 14400 }]
[[graphite_rollup.graphite_rollup.pattern]]
regexp = "^one_min"
function = "avg"
retention = [{ age = 0, precision = 60 }, { age = 7776000, precision = 300 }, { age = 31536000, precision = 600 }]
'''


def test_graphite_cases_of_clickhouse_integration_tests(tmp_path):
    """The cases of ClickHouse's tests/integration/test_graphite_merge_tree, with its rules."""
    server = _graphite_server(tmp_path, CLICKHOUSE_ROLLUP).start()
    try:
        server.query("CREATE TABLE graphite (metric String, value Float64, timestamp UInt32, date Date, updated UInt32) "
                     "ENGINE = GraphiteMergeTree('graphite_rollup') PARTITION BY toYYYYMM(date) ORDER BY (metric, timestamp)")
        # Old rows (the 600 s retention): the newest version of each time, averaged; the
        # version of the last time.
        server.query("INSERT INTO graphite SELECT 'one_min.x', toFloat64(number), toUInt32(1111111111 - intDiv(number, 3)), "
                     "toDate('2017-02-02'), toUInt32(100 - number) FROM numbers(50)")
        server.query("OPTIMIZE TABLE graphite PARTITION 201702 FINAL")
        assert server.query("SELECT * FROM graphite") == "one_min.x\t24\t1111110600\t2017-02-02\t100\n"
        server.query("TRUNCATE TABLE graphite")
        # More output rows than one block holds.
        groups = 2 * 8192 + 1
        rows, expected = [], []
        for i in range(groups):
            rolled_up_time = 1000000200 + 600 * i
            for j in range(3):
                rows.append(f"one_min.x1\t{10 * j}\t{rolled_up_time + 100 * j}\t2001-09-09\t1")
                rows.append(f"one_min.x1\t{10 * (j + 1)}\t{rolled_up_time + 100 * j}\t2001-09-09\t2")
            expected.append(f"one_min.x1\t20\t{rolled_up_time}\t2001-09-09\t2")
        server.query("INSERT INTO graphite FORMAT TSV\n" + "\n".join(rows) + "\n")
        server.query("OPTIMIZE TABLE graphite PARTITION 200109 FINAL")
        assert server.query("SELECT * FROM graphite ORDER BY timestamp") == "\n".join(expected) + "\n"
        server.query("TRUNCATE TABLE graphite")
        # A path no pattern matches: only versions count, times stay.
        server.query("INSERT INTO graphite FORMAT TSV\none_min.x1\t100\t1000000000\t2001-09-09\t1\nzzzzzzzz\t100\t1000000001\t2001-09-09\t1\nzzzzzzzz\t200\t1000000001\t2001-09-09\t2\n")
        server.query("OPTIMIZE TABLE graphite PARTITION 200109 FINAL")
        assert server.query("SELECT * FROM graphite ORDER BY metric") == "one_min.x1\t100\t999999600\t2001-09-09\t1\nzzzzzzzz\t200\t1000000001\t2001-09-09\t2\n"
    finally:
        server.stop()


FUNCTIONS_ROLLUP = '''
[graphite_rollup.functions]
[[graphite_rollup.functions.pattern]]
regexp = "^median"
function = "median"
retention = [{ age = 0, precision = 10 }]
[[graphite_rollup.functions.pattern]]
regexp = "^p90"
function = "quantileExact(0.9)"
retention = [{ age = 0, precision = 10 }]
[[graphite_rollup.functions.pattern]]
regexp = "^count"
function = "count"
retention = [{ age = 0, precision = 10 }]
[graphite_rollup.functions.default]
function = "sum"
retention = [{ age = 0, precision = 10 }]
'''


def test_graphite_rollup_with_any_aggregate_function(tmp_path):
    """A rule's `function` may name any aggregate function of a number, with parameters,
    as in ClickHouse: rows of one path and rounded time are aggregated by it on INSERT,
    merges and FINAL."""
    server = _graphite_server(tmp_path, FUNCTIONS_ROLLUP).start()
    try:
        server.query("CREATE TABLE g (Path String, Time DateTime, Value Float64, Timestamp UInt32) ENGINE = GraphiteMergeTree('functions') ORDER BY (Path, Time)")
        server.query("INSERT INTO g VALUES ('median', 1000, 1, 1), ('median', 1001, 9, 1), ('median', 1002, 2, 1), "
                     "('p90', 1000, 1, 1), ('p90', 1001, 2, 1), ('p90', 1002, 3, 1), ('p90', 1003, 4, 1), ('p90', 1004, 5, 1), "
                     "('count', 1000, 7, 1), ('count', 1001, 7, 1), ('other', 1000, 1, 1), ('other', 1005, 2, 1)")
        select = "SELECT Path, toUnixTimestamp(Time), Value FROM g {} ORDER BY Path, Time"
        expected = "count\t1000\t2\nmedian\t1000\t2\nother\t1000\t3\np90\t1000\t5\n"
        assert server.query(select.format("")) == expected
        # Merges stopped: FINAL reads both parts (a rolled-up row rolled up again counts
        # once, so count is not idempotent).
        server.query("SYSTEM STOP MERGES g")
        server.query("INSERT INTO g SETTINGS optimize_on_insert = 0 VALUES ('median', 1003, 3, 1), ('median', 1004, 4, 1), ('count', 1009, 1, 1)")
        # The second part's rows are aggregated with the first part's result as one value.
        merged = "count\t1000\t2\nmedian\t1000\t3\nother\t1000\t3\np90\t1000\t5\n"
        assert server.query(select.format("FINAL")) == merged
        server.query("SYSTEM START MERGES g")
        server.query("OPTIMIZE TABLE g FINAL")
        assert server.query(select.format("WHERE Path != 'count'")) == merged[merged.index("median"):]
        assert server.query("SELECT regexp, function FROM system.graphite_retentions WHERE config_name = 'functions' ORDER BY priority") == \
            "^median\tmedian\n^p90\tquantileExact(0.9)\n^count\tcount\n\tsum\n"
    finally:
        server.stop()


def test_graphite_unknown_or_non_numeric_function_stops_the_server(tmp_path):
    import pytest
    for function, message in [("nosuchFunction", "Unknown aggregate function"), ("groupArray", "not a number")]:
        server = _graphite_server(tmp_path, FUNCTIONS_ROLLUP.replace('"median"', f'"{function}"'))
        with pytest.raises(RuntimeError, match=message):
            server.start()


ROLLUP_XML = '''<?xml version="1.0"?>
<clickhouse>
    <!-- Sections as in a ClickHouse server config, taken unchanged. -->
    <logger><level>trace</level></logger>
    <graphite_rollup>
        <version_column_name>Version</version_column_name>
        <pattern>
            <rule_type>plain</rule_type>
            <regexp>^sum\\.</regexp>
            <function>sum</function>
            <retention><age>0</age><precision>10</precision></retention>
            <retention><age>86400</age><precision>60</precision></retention>
        </pattern>
        <pattern>
            <rule_type>tag_list</rule_type>
            <regexp>cpu;host=a</regexp>
            <function>quantileExact(0.5)</function>
            <retention><age>0</age><precision>10</precision></retention>
        </pattern>
        <default>
            <function>max</function>
            <retention><age>0</age><precision>10</precision></retention>
        </default>
    </graphite_rollup>
    <graphite_rollup_avg>
        <path_column_name>metric</path_column_name>
        <default>
            <function>avg</function>
            <retention><age>0</age><precision>100</precision></retention>
        </default>
    </graphite_rollup_avg>
</clickhouse>
'''


def _xml_server(tmp_path, xml, toml=""):
    (tmp_path / "rollup").mkdir(exist_ok=True)
    (tmp_path / "rollup" / "graphite.xml").write_text(xml)
    return _graphite_server(tmp_path, 'graphite_rollup_xml = "rollup/*.xml"\n' + toml)


def test_graphite_rollup_from_clickhouse_xml(tmp_path):
    """`graphite_rollup_xml` takes ClickHouse's `<graphite_rollup>` elements unchanged,
    beside the TOML sections."""
    server = _xml_server(tmp_path, ROLLUP_XML, FUNCTIONS_ROLLUP).start()
    try:
        server.query("CREATE TABLE g (Path String, Time DateTime, Value Float64, Version UInt32) ENGINE = GraphiteMergeTree('graphite_rollup') ORDER BY (Path, Time)")
        server.query("INSERT INTO g VALUES ('sum.a', 1000, 1, 1), ('sum.a', 1005, 2, 1), ('cpu?host=a', 1000, 1, 1), ('cpu?host=a', 1001, 5, 1), "
                     "('cpu?host=a', 1002, 9, 1), ('other', 1000, 3, 1), ('other', 1009, 7, 1)")
        assert server.query("SELECT Path, toUnixTimestamp(Time), Value FROM g ORDER BY Path") == \
            "cpu?host=a\t1000\t5\nother\t1000\t7\nsum.a\t960\t3\n"  # sum.a: older than a day, per minute
        server.query("CREATE TABLE a (metric String, Time DateTime, Value Float64, Timestamp UInt32) ENGINE = GraphiteMergeTree('graphite_rollup_avg') ORDER BY (metric, Time)")
        server.query("INSERT INTO a VALUES ('m', 1000, 1, 1), ('m', 1050, 2, 1)")
        assert server.query("SELECT metric, toUnixTimestamp(Time), Value FROM a") == "m\t1000\t1.5\n"
        assert server.query("SELECT config_name, rule_type, regexp, function, age, precision FROM system.graphite_retentions "
                            "WHERE config_name LIKE 'graphite_rollup%' ORDER BY config_name, priority, age") == (
            "graphite_rollup\tplain\t^sum\\\\.\tsum\t0\t10\n"
            "graphite_rollup\tplain\t^sum\\\\.\tsum\t86400\t60\n"
            "graphite_rollup\ttagged\t^cpu\\\\?(.*&)?host=a(&.*)?$\tquantileExact(0.5)\t0\t10\n"
            "graphite_rollup\tall\t\tmax\t0\t10\n"
            "graphite_rollup_avg\tall\t\tavg\t0\t100\n"
        )
        # The TOML sections are still there.
        server.query("CREATE TABLE f (Path String, Time DateTime, Value Float64, Timestamp UInt32) ENGINE = GraphiteMergeTree('functions') ORDER BY (Path, Time)")
    finally:
        server.stop()


def test_graphite_bad_xml_stops_the_server(tmp_path):
    import pytest
    cases = [
        (ROLLUP_XML.replace("<precision>60</precision>", "<precision>5</precision>"), "Age and precision should only grow up"),
        (ROLLUP_XML.replace("<function>max</function>", "<functon>max</functon>"), "unknown element <functon>"),
        (ROLLUP_XML.replace("</clickhouse>", ""), "not valid XML"),
    ]
    for xml, message in cases:
        server = _xml_server(tmp_path, xml)
        with pytest.raises(RuntimeError, match=message):
            server.start()
    server = _xml_server(tmp_path, ROLLUP_XML, "[graphite_rollup.graphite_rollup_avg.default]\nfunction = 'sum'\n")
    with pytest.raises(RuntimeError, match="defined twice"):
        server.start()


# Rules by path prefix: (function, retentions as (age, precision)); `raw` has only
# retentions (paired with the default's function), `other` is left to the default.
BIG_RULES = {"sum": ("sum", [(0, 60), (86400, 3600)]), "avg": ("avg", [(0, 10), (86400, 600)]), "max": ("max", [(0, 300)]),
             "min": ("min", [(0, 1), (86400, 900)]), "any": ("any", [(0, 30), (259200, 1800)]), "last": ("anyLast", [(0, 120)]),
             "raw": (None, [(0, 20), (86400, 1200)])}
BIG_DEFAULT = ("sum", [(0, 60)])


def _rollup_toml(section, rules, default):
    def body(function, retentions):
        text = f'function = "{function}"\n' if function else ""
        return text + "retention = [" + ", ".join(f"{{ age = {a}, precision = {p} }}" for a, p in retentions) + "]\n"
    patterns = "".join(f'[[graphite_rollup.{section}.pattern]]\nregexp = "^{prefix}\\\\."\n' + body(*rule) for prefix, rule in rules.items())
    return f"[graphite_rollup.{section}]\n" + patterns + f"[graphite_rollup.{section}.default]\n" + body(*default)


def test_graphite_rollup_of_100k_rows_matches_an_independent_rollup(tmp_path):
    """100k rows over many paths, rules and retentions, some times repeated with other
    versions, in parts merged by FINAL and by OPTIMIZE FINAL: the result is compared with
    the rollup computed here from ClickHouse's rules."""
    import math
    import random
    import time
    rng = random.Random(20261129)
    now = int(time.time())
    # Ages far from every retention boundary: an hour or two (the first retention), or
    # about twenty days (the last one).
    recent, old = (now - 7200, now - 3600), (now - 20 * 86400, now - 19 * 86400)
    rules = {prefix: (function or BIG_DEFAULT[0], retentions) for prefix, (function, retentions) in BIG_RULES.items()}
    rules["other"] = BIG_DEFAULT
    paths = [f"{kind}.{i}" for kind in rules for i in range(5)]
    versions = rng.sample(range(1, 10_000_000), 100_000)
    rows = []
    for n in range(100_000):
        path = paths[n % len(paths)]
        low, high = recent if rng.random() < 0.5 else old
        # Few distinct times, so that many rows share one (and only its newest version counts).
        t = rng.randrange(low, high, 7)
        rows.append((path, t, rng.randrange(-400, 400) / 4, versions[n]))
    rng.shuffle(rows)

    newest = {}
    for path, t, value, version in rows:
        if (path, t) not in newest or newest[(path, t)][1] < version:
            newest[(path, t)] = (value, version)
    expected = []
    for path in sorted(paths):
        function, retentions = rules[path.split(".")[0]]
        times = sorted(t for p, t in newest if p == path)
        out = []
        for t in times:
            precision = max([p for age, p in retentions if now - t >= age], default=1)
            rounded = t // precision * precision
            if out and out[-1][0] == rounded:
                out[-1][1].append(t)
            else:
                out.append((rounded, [t]))
        for rounded, group in out:
            values = [newest[(path, t)][0] for t in group]
            if function == "sum":
                value = 0.0
                for v in values:
                    value += v
            else:
                value = {"avg": lambda v: math.fsum(v) / len(v), "max": max, "min": min, "any": lambda v: v[0], "anyLast": lambda v: v[-1]}[function](values)
            expected.append((path, rounded, value, newest[(path, group[-1])][1], f"{path}@{group[0]}"))

    server = _graphite_server(tmp_path, _rollup_toml("big", BIG_RULES, BIG_DEFAULT)).start()
    try:
        server.query("CREATE TABLE g (Path String, Time DateTime, Value Float64, Timestamp UInt32, Note String) ENGINE = GraphiteMergeTree('big') ORDER BY (Path, Time)")
        server.query("SYSTEM STOP MERGES g")
        for part in range(4):
            chunk = rows[part * 25_000:(part + 1) * 25_000]
            server.query("INSERT INTO g SETTINGS optimize_on_insert = 0 FORMAT TSV\n" + "".join(f"{p}\t{t}\t{v}\t{ver}\t{p}@{t}\n" for p, t, v, ver in chunk))
        assert server.query("SELECT count() FROM g") == "100000\n"

        def check(select):
            got = [line.split("\t") for line in server.query(select).splitlines()]
            assert len(got) == len(expected)
            for g, e in zip(got, expected):
                assert (g[0], int(g[1]), int(g[3]), g[4]) == (e[0], e[1], e[3], e[4]), (g, e)
                assert math.isclose(float(g[2]), e[2], rel_tol=1e-12, abs_tol=1e-12), (g, e)

        select = "SELECT Path, toUnixTimestamp(Time), Value, Timestamp, Note FROM g {} ORDER BY Path, Time"
        check(select.format("FINAL"))
        server.query("SYSTEM START MERGES g")
        server.query("OPTIMIZE TABLE g FINAL")
        check(select.format(""))
    finally:
        server.stop()


def test_optimize_final_level_after_background_merges(tmp_path):
    """The level OPTIMIZE FINAL gives, as in chdb with the same order of events (forced
    by SYSTEM STOP/START MERGES): three fresh small parts are left to OPTIMIZE FINAL (level
    1); six are merged in the background first (ClickHouse's SimpleMergeSelector), and
    OPTIMIZE FINAL merges that part again (level 2)."""
    server = Server(str(tmp_path / "db")).start()
    try:
        def parts(table):
            return server.query(f"SELECT name FROM system.parts WHERE database = 'default' AND table = '{table}' AND active ORDER BY name").split()

        for table, inserts, merged, final in [("three", 3, None, "all_1_3_1"), ("six", 6, "all_1_6_1", "all_1_6_2")]:
            server.query(f"CREATE TABLE {table} (k UInt32, v UInt32) ENGINE = MergeTree ORDER BY k")
            server.query(f"SYSTEM STOP MERGES {table}")
            for i in range(inserts):
                server.query(f"INSERT INTO {table} VALUES ({i}, {i})")
            server.query(f"SYSTEM START MERGES {table}")
            _poll(lambda: len(parts(table)), 1, 20 if merged else 2)
            assert parts(table) == ([merged] if merged else [f"all_{i}_{i}_0" for i in range(1, inserts + 1)])
            server.query(f"OPTIMIZE TABLE {table} FINAL")
            assert parts(table) == [final]
    finally:
        server.stop()


def test_system_mutations_show_background_mutations_and_failures(tmp_path):
    """A mutation run in the background (mutations_sync = 0) is listed in system.mutations
    until done; one that fails stays not done with its error, and the one behind it waits
    (as in ClickHouse) until the failing one is killed."""
    import time
    server = Server(str(tmp_path / "db")).start()
    try:
        server.query("CREATE TABLE m (k UInt32, v UInt32) ENGINE = MergeTree ORDER BY k")
        server.query("INSERT INTO m SELECT number, number FROM numbers(100)")
        server.query("ALTER TABLE m UPDATE v = throwIf(k = 5) WHERE 1")
        server.query("ALTER TABLE m DELETE WHERE k >= 90")
        status = "SELECT mutation_id, command, is_done, latest_fail_reason != '' FROM system.mutations WHERE database = 'default' AND table = 'm' ORDER BY mutation_id"
        deadline = time.time() + 30
        while time.time() < deadline and server.query("SELECT count() FROM system.mutations WHERE table = 'm' AND latest_fail_reason != ''") != "2\n":
            time.sleep(0.1)
        assert server.query(status) == (
            "mutation_2.txt\t(UPDATE v = throwIf(k = 5) WHERE 1)\t0\t1\n"
            "mutation_3.txt\t(DELETE WHERE k >= 90)\t0\t1\n"
        )
        reason = server.query("SELECT latest_fail_reason FROM system.mutations WHERE table = 'm' AND mutation_id = 'mutation_2.txt'")
        assert "function is non-zero" in reason, reason
        assert server.query("SELECT count(), sum(v) FROM m") == f"100\t{sum(range(100))}\n"
        server.query("KILL MUTATION WHERE table = 'm' AND mutation_id = 'mutation_2.txt'")
        # The failed update changed nothing; the delete went through once it was killed.
        assert _poll(lambda: server.query(status), "mutation_3.txt\t(DELETE WHERE k >= 90)\t1\t0\n", 30) == "mutation_3.txt\t(DELETE WHERE k >= 90)\t1\t0\n"
        assert server.query("SELECT count(), sum(v) FROM m") == f"90\t{sum(range(90))}\n"
    finally:
        server.stop()


def test_alter_update_rewrites_matching_parts_as_clickhouse(tmp_path):
    """ALTER TABLE ... UPDATE: values and errors as chdb gives them for the same
    statements (every assignment sees the old row; values cast to the column's type)."""
    server = Server(str(tmp_path / "db")).start()
    try:
        def error_code(sql):
            return server.request(sql).headers.get("X-ClickHouse-Exception-Code")

        select = "SELECT * FROM u ORDER BY k"
        server.query("CREATE TABLE u (p UInt8, k UInt32, v UInt32, s String, n Nullable(Int64)) ENGINE = MergeTree PARTITION BY p ORDER BY k")
        server.query("INSERT INTO u VALUES (1, 1, 10, 'a', 1), (1, 2, 20, 'b', NULL), (2, 3, 30, 'c', 3)")
        server.query("ALTER TABLE u UPDATE v = v + k, s = concat(s, toString(v)) WHERE k >= 2 SETTINGS mutations_sync = 1")
        assert server.query(select) == "1\t1\t10\ta\t1\n1\t2\t22\tb20\t\\N\n2\t3\t33\tc30\t3\n"
        assert error_code("ALTER TABLE u UPDATE k = 5 WHERE 1") == "420"
        assert error_code("ALTER TABLE u UPDATE p = 5 WHERE 1") == "420"
        assert error_code("ALTER TABLE u UPDATE nope = 5 WHERE 1") == "16"
        assert error_code("ALTER TABLE u UPDATE v = NULL WHERE 1 SETTINGS mutations_sync = 1") == "70"
        assert error_code("ALTER TABLE u UPDATE v = 'x' WHERE k = 1 SETTINGS mutations_sync = 1") == "6"
        assert error_code("ALTER TABLE u UPDATE v = 1 WHERE k SETTINGS mutations_sync = 1") == "43"
        server.query("ALTER TABLE u UPDATE n = NULL, v = '7' WHERE k = 1 SETTINGS mutations_sync = 1")
        assert server.query(select) == "1\t1\t7\ta\t\\N\n1\t2\t22\tb20\t\\N\n2\t3\t33\tc30\t3\n"
        # Casts wrap as ClickHouse's do; virtual columns select rows too.
        server.query("ALTER TABLE u UPDATE v = -1 WHERE k = 1 SETTINGS mutations_sync = 1")
        server.query("ALTER TABLE u UPDATE v = v * 2 WHERE _partition_id = '2' SETTINGS mutations_sync = 1")
        assert server.query(select) == "1\t1\t4294967295\ta\t\\N\n1\t2\t22\tb20\t\\N\n2\t3\t66\tc30\t3\n"
        # Parts without a matching row keep their rows and only take the new version,
        # as in ClickHouse; the rest survive a restart.
        parts = server.query("SELECT name FROM system.parts WHERE database = 'default' AND table = 'u' AND active ORDER BY name").split()
        server.query("ALTER TABLE u UPDATE v = 0 WHERE k = 100 SETTINGS mutations_sync = 1")
        version = server.query("SELECT max(toUInt64(extract(mutation_id, '[0-9]+'))) FROM system.mutations WHERE table = 'u'").strip()
        renamed = [name.rsplit("_", 1)[0] + "_" + version for name in parts]
        assert server.query("SELECT name FROM system.parts WHERE database = 'default' AND table = 'u' AND active ORDER BY name").split() == renamed
        server.stop()
        server.start()
        assert server.query(select) == "1\t1\t4294967295\ta\t\\N\n1\t2\t22\tb20\t\\N\n2\t3\t66\tc30\t3\n"
        # Arrays, LowCardinality and Decimal columns, in another engine.
        server.query("CREATE TABLE a (k UInt32, arr Array(UInt8), lc LowCardinality(String), d Decimal(10, 2)) ENGINE = ReplacingMergeTree ORDER BY k")
        server.query("INSERT INTO a VALUES (1, [1], 'x', 1.5), (2, [], 'w', 0)")
        server.query("ALTER TABLE a UPDATE arr = arrayPushBack(arr, 3), lc = 'y', d = d * 2 WHERE k = 1 SETTINGS mutations_sync = 1")
        assert server.query("SELECT * FROM a ORDER BY k") == "1\t[1,3]\ty\t3\n2\t[]\tw\t0\n"
        # Without mutations_sync the mutation runs in the background.
        server.query("ALTER TABLE u UPDATE s = 'z' WHERE 1")
        assert _poll(lambda: server.query("SELECT count() FROM u WHERE s = 'z'"), "3\n", 20) == "3\n"
    finally:
        server.stop()
