"""`granary benchmark` (clickhouse-benchmark): against the real server over HTTP with
keep-alive workers, and in-process on a data directory."""
import json
import subprocess

from conftest import BINARY


def bench(*args, stdin=None):
    return subprocess.run([BINARY, "benchmark", "-d", "0", *args], input=stdin, capture_output=True, timeout=300)


def report(path):
    (label, body), = json.loads(path.read_text()).items()
    return label, body


def test_benchmark_over_http(server, tmp_path):
    server.query("CREATE TABLE bench_kv (id UInt64, v String) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 64")
    try:
        server.query("INSERT INTO bench_kv SELECT number, toString(number) FROM numbers(10000)")
        out = tmp_path / "http.json"
        queries = b"SELECT v FROM bench_kv WHERE id = 42\nSELECT count() FROM bench_kv\n"
        r = bench("--host", "127.0.0.1", "--port", str(server.port), "-c", "4", "-i", "200", "--json", str(out), stdin=queries)
        assert r.returncode == 0, r.stderr
        assert b"Loaded 2 queries." in r.stderr
        text = r.stdout.decode()
        assert f"127.0.0.1:{server.port}, queries: 200, QPS: " in text and "50.000%\t\t" in text, text
        label, body = report(out)
        stats = body["statistics"]
        assert (label, stats["num_queries"], stats["num_errors"]) == (f"127.0.0.1:{server.port}", 200, 0)
        # Half the queries read one granule (64 rows), half the whole table, as the server reports.
        assert stats["RPS"] > 0 and stats["RPS_result"] > 0
        assert sorted(body["query_time_percentiles"]) == sorted(["0", "10", "20", "30", "40", "50", "60", "70", "80", "90", "95", "99", "99.9", "99.99"])
        # Settings go with every query.
        r = bench("--host", "127.0.0.1", "--port", str(server.port), "-i", "3", "-q", "SELECT getSetting('max_threads')", "--setting", "max_threads=3")
        assert r.returncode == 0, r.stderr
    finally:
        server.query("DROP TABLE bench_kv")


def test_benchmark_errors(server, tmp_path):
    r = bench("--host", "127.0.0.1", "--port", str(server.port), "-i", "5", "-q", "SELECT nosuch")
    assert r.returncode != 0 and b"Code: 47." in r.stderr, r.stderr
    out = tmp_path / "errors.json"
    r = bench("--host", "127.0.0.1", "--port", str(server.port), "-i", "5", "-q", "SELECT nosuch", "--continue_on_errors", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert report(out)[1]["statistics"]["num_errors"] == 5
    r = bench("-q", "SELECT 1", "--host", "127.0.0.1", "--port", "1", "-i", "1")
    assert r.returncode != 0 and b"Connection refused" in r.stderr, r.stderr


def test_benchmark_in_process(tmp_path):
    data = tmp_path / "data"
    setup = subprocess.run(
        [BINARY, "local", "--path", str(data), "--query",
         "CREATE TABLE kv (id UInt64, v String) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 256; "
         "INSERT INTO kv SELECT number, toString(number) FROM numbers(100000)"],
        capture_output=True, timeout=120)
    assert setup.returncode == 0, setup.stderr
    out = tmp_path / "local.json"
    r = bench("--path", str(data), "-c", "2", "-i", "300", "-q", "SELECT v FROM kv WHERE id = 777", "--json", str(out))
    assert r.returncode == 0, r.stderr
    label, body = report(out)
    assert (label, body["statistics"]["num_queries"]) == ("local", 300)
    # One granule per lookup, one row out.
    stats = body["statistics"]
    assert abs(stats["RPS"] - 256 * stats["QPS"]) <= 1e-9 * stats["RPS"], stats
    assert abs(stats["RPS_result"] - stats["QPS"]) <= 1e-9 * stats["QPS"], stats
