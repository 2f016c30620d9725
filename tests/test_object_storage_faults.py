"""s3() and INSERT INTO FUNCTION s3() through a proxy that injects faults (503 SlowDown,
500 InternalError, connection resets mid-body, slow answers) in front of the local
SeaweedFS: reads retry with backoff, resume where a broken body stopped, never fetch a
completed range twice and return exactly what chdb reads directly; persistent failures
are S3_ERROR (499) with the service's message; a failed INSERT leaves nothing visible.
The proxy (tests/tools/faulty_proxy.py) logs every exchange with the body bytes it
delivered, which is what the assertions about re-reading count."""
import os
import re
import subprocess
import sys

import pytest

chdb = pytest.importorskip("chdb")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "tools"))
from faulty_proxy import Fault, FaultyProxy  # noqa: E402

KEYS = "'testkey', 'testsecret'"
MIB = 1 << 20
CSV_STRUCTURE = "'CSVWithNames', 'id UInt64, name String'"


def ch(sql: str) -> str:
    return chdb.query(sql, "TSV").bytes().decode()


def error(server, sql):
    r = server.request(sql)
    assert r.status != 200, f"{sql} succeeded: {r.text}"
    return r.text


@pytest.fixture(scope="module")
def objects(s3_endpoint):
    """Objects written by chdb straight into SeaweedFS; returns their sizes by key."""
    base = f"{s3_endpoint}/test-bucket/faults"
    rows = "SELECT number AS id, toString(number * 7) AS name FROM numbers({n})"
    ch(f"INSERT INTO FUNCTION s3('{base}/big.csv', {KEYS}, 'CSVWithNames') {rows.format(n=300_000)} SETTINGS s3_truncate_on_insert = 1")
    ch(
        f"INSERT INTO FUNCTION s3('{base}/big.parquet', {KEYS}) {rows.format(n=500_000)} "
        "SETTINGS s3_truncate_on_insert = 1, output_format_parquet_row_group_size = 50000"
    )
    sizes = {}
    for line in ch(f"SELECT _file, _size FROM s3('{base}/big.*', {KEYS}, 'RawBLOB')").splitlines():
        name, size = line.split("\t")
        sizes[name] = int(size)
    return sizes


@pytest.fixture(scope="module")
def proxy(s3_endpoint):
    p = FaultyProxy(s3_endpoint)
    p.start()
    yield p
    p.stop()


@pytest.fixture
def faults(proxy):
    proxy.reset_state()
    yield proxy
    proxy.reset_state()


def expected(s3_endpoint, select):
    return ch(select.replace("{s3}", f"{s3_endpoint}/test-bucket/faults"))


def ranged(start):
    return lambda headers: headers.get("range", "").startswith(f"bytes={start}-")


def byte_range(exchange):
    start, end = exchange.range.removeprefix("bytes=").split("-")
    return int(start), int(end) + 1


def test_ranged_read_retries_resumes_and_never_rereads(server, s3_endpoint, objects, faults):
    size = objects["big.csv"]
    faults.add(Fault.reset(300_000), method="GET", when=ranged(MIB))
    faults.add(Fault.status(503, "SlowDown"), method="GET", when=ranged(2 * MIB), times=2)
    faults.add(Fault.status(500, "InternalError"), method="GET", when=ranged(3 * MIB))
    select = f"SELECT count(), sum(id), max(name) FROM s3('{{s3}}/big.csv', {KEYS}, {CSV_STRUCTURE})"
    ours = server.query(select.replace("{s3}", f"{faults.url}/test-bucket/faults") + f" SETTINGS max_download_buffer_size = {MIB}, max_download_threads = 4")
    assert ours == expected(s3_endpoint, select)
    gets = faults.exchanges("GET", "big.csv")
    assert [e.fault for e in gets].count("reset") == 1 and [e.fault for e in gets].count("status") == 3
    complete = sorted(byte_range(e) for e in gets if e.status == 206 and e.fault is None)
    # No byte arrives twice in a completed answer: the ranges are disjoint...
    for (_, end), (next_start, _) in zip(complete, complete[1:]):
        assert end <= next_start, complete
    # ...and the broken range resumed after what had arrived, not from its start.
    resumed = [r for r in complete if MIB < r[0] <= MIB + 300_000]
    assert len(resumed) == 1, complete
    covered = sum(end - start for start, end in complete) + (resumed[0][0] - MIB)
    assert covered == size
    # Each retry of the throttled range waited (object_store's first backoff is 100 ms).
    attempts = [e.started for e in gets if e.range.startswith(f"bytes={2 * MIB}-")]
    assert len(attempts) == 3 and all(b - a >= 0.09 for a, b in zip(attempts, attempts[1:])), attempts


def test_streamed_read_resumes_after_reset(server, s3_endpoint, objects, faults):
    faults.add(Fault.reset(200_000), method="GET")
    select = f"SELECT count(), sum(id) FROM s3('{{s3}}/big.csv', {KEYS}, {CSV_STRUCTURE})"
    ours = server.query(select.replace("{s3}", f"{faults.url}/test-bucket/faults") + f" SETTINGS max_download_buffer_size = {64 * MIB}")
    assert ours == expected(s3_endpoint, select)
    first, retry = faults.exchanges("GET", "big.csv")
    assert first.fault == "reset" and first.range is None
    start, end = byte_range(retry)
    assert 0 < start <= 200_000 and end == objects["big.csv"]


def test_parquet_read_with_faults(server, s3_endpoint, objects, faults):
    faults.add(Fault.reset(20_000), method="GET", when=lambda h: "range" in h, times=3)
    faults.add(Fault.status(503, "SlowDown"), method="GET", times=3)
    select = f"SELECT count(), sum(id), max(name) FROM s3('{{s3}}/big.parquet', {KEYS}) WHERE id % 3 = 1"
    assert server.query(select.replace("{s3}", f"{faults.url}/test-bucket/faults")) == expected(s3_endpoint, select)
    assert {e.fault for e in faults.exchanges("GET")} >= {"reset", "status", None}


def test_slow_answer_times_out_and_is_retried(server, s3_endpoint, objects, faults):
    faults.add(Fault.slow(4), method="GET")
    select = f"SELECT count(), sum(id) FROM s3('{{s3}}/big.csv', {KEYS}, {CSV_STRUCTURE})"
    ours = server.query(select.replace("{s3}", f"{faults.url}/test-bucket/faults") + " SETTINGS s3_request_timeout_ms = 1000")
    assert ours == expected(s3_endpoint, select)
    # The stalled answer was given up on (not waited out) and the read was asked again.
    gets = faults.exchanges("GET", "big.csv")
    assert gets[0].fault == "slow" and len(gets) >= 2


@pytest.mark.parametrize(
    "fault, wording",
    [
        (Fault.status(503, "SlowDown"), "SlowDown"),
        (Fault.status(500, "InternalError"), "InternalError"),
        # ClickHouse reports a connection reset as POCO_EXCEPTION (1000); Granary says S3_ERROR.
        (Fault.reset(1000), "reset"),
    ],
)
@pytest.mark.parametrize("name, structure", [("big.csv", CSV_STRUCTURE), ("big.parquet", "'Parquet', 'id UInt64, name String'")])
def test_persistent_failure_is_s3_error(server, objects, faults, fault, wording, name, structure):
    faults.add(fault, method="GET", times=None)
    # sum(id) reads data: a cached Parquet footer alone answers count().
    text = error(server, f"SELECT sum(id) FROM s3('{faults.url}/test-bucket/faults/{name}', {KEYS}, {structure}) SETTINGS s3_retry_attempts = 2")
    assert "Code: 499" in text and "(S3_ERROR)" in text and wording.lower() in text.lower() and f"test-bucket/faults/{name}" in text, text
    # 1 + s3_retry_attempts tries of the first request that failed.
    tries = [e for e in faults.exchanges("GET", name)]
    assert 3 <= len(tries) <= 3 * 8, len(tries)
    if fault.kind == "status":
        assert "tried 3 times" in text, text


def list_keys(s3_endpoint, prefix):
    return ch(f"SELECT _file FROM s3('{s3_endpoint}/test-bucket/{prefix}*', {KEYS}, 'CSV', 'x String') GROUP BY _file ORDER BY _file").split()


def pending_uploads(s3_endpoint, prefix):
    """Multipart uploads still open under `prefix` (ListMultipartUploads, signed by curl)."""
    out = subprocess.run(
        ["curl", "-s", "--max-time", "10", "--aws-sigv4", "aws:amz:us-east-1:s3", "-u", "testkey:testsecret", f"{s3_endpoint}/test-bucket/?uploads&prefix={prefix}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return re.findall(r"<UploadId>([^<]+)</UploadId>", out)


def test_insert_into_function_s3_retries_or_leaves_nothing(server, s3_endpoint, faults):
    base = f"{faults.url}/test-bucket/faults/out"
    select = "SELECT number AS id, repeat('x', 40) AS pad FROM numbers({n})"
    # One PUT, throttled once: retried, written once.
    faults.add(Fault.status(503, "SlowDown"), method="PUT")
    server.query(f"INSERT INTO FUNCTION s3('{base}/small.csv', {KEYS}, 'CSVWithNames') {select.format(n=1000)}")
    assert ch(f"SELECT count(), sum(id) FROM s3('{s3_endpoint}/test-bucket/faults/out/small.csv', {KEYS})") == "1000\t499500\n"
    # One PUT failing every time: S3_ERROR, and no object.
    faults.reset_state()
    faults.add(Fault.status(500, "InternalError"), method="PUT", times=None)
    text = error(server, f"INSERT INTO FUNCTION s3('{base}/never.csv', {KEYS}, 'CSVWithNames') {select.format(n=1000)} SETTINGS s3_retry_attempts = 1")
    assert "Code: 499" in text and "InternalError" in text, text
    # A multipart upload whose second part breaks off each time: aborted, no object,
    # no upload left open.
    faults.reset_state()
    faults.add(Fault.drop(), method="PUT", path=r"partNumber=2&", times=None)
    multipart = "SETTINGS s3_max_single_part_upload_size = 1048576, s3_min_upload_part_size = 5242880, s3_retry_attempts = 1"
    text = error(server, f"INSERT INTO FUNCTION s3('{base}/never_multipart.csv', {KEYS}, 'CSVWithNames') {select.format(n=400_000)} {multipart}")
    assert "Code: 499" in text, text
    assert any(e.method == "DELETE" and "uploadId=" in e.target for e in faults.exchanges()), "the upload was not aborted"
    assert pending_uploads(s3_endpoint, "faults/out/never") == []
    # A part failing once: retried, the upload completes.
    faults.reset_state()
    faults.add(Fault.status(503, "SlowDown"), method="PUT", path=r"partNumber=2&")
    server.query(f"INSERT INTO FUNCTION s3('{base}/multipart.csv', {KEYS}, 'CSVWithNames') {select.format(n=400_000)} {multipart}")
    assert ch(f"SELECT count(), sum(id) FROM s3('{s3_endpoint}/test-bucket/faults/out/multipart.csv', {KEYS})") == "400000\t79999800000\n"
    assert list_keys(s3_endpoint, "faults/out/") == ["multipart.csv", "small.csv"]


def test_insert_select_from_s3_into_mergetree_is_all_or_nothing(server, s3_endpoint, objects, faults):
    server.query("DROP TABLE IF EXISTS faults_t")
    server.query("CREATE TABLE faults_t (id UInt64, name String) ENGINE = MergeTree ORDER BY id")
    source = f"s3('{faults.url}/test-bucket/faults/big.csv', {KEYS}, {CSV_STRUCTURE})"
    settings = f"SETTINGS max_download_buffer_size = {MIB}, s3_retry_attempts = 1, max_insert_block_size = 10000, min_insert_block_size_rows = 10000"
    # The last range never arrives: blocks before it were already formed, none is kept.
    faults.add(Fault.status(503, "SlowDown"), method="GET", when=ranged(4 * MIB), times=None)
    text = error(server, f"INSERT INTO faults_t SELECT * FROM {source} {settings}")
    assert "Code: 499" in text and "SlowDown" in text, text
    assert server.query("SELECT count() FROM faults_t") == "0\n"
    assert server.query("SELECT count() FROM system.parts WHERE table = 'faults_t' AND active") == "0\n"
    # The same fault, transient: every row, once.
    faults.reset_state()
    faults.add(Fault.status(503, "SlowDown"), method="GET", when=ranged(4 * MIB), times=1)
    server.query(f"INSERT INTO faults_t SELECT * FROM {source} {settings}")
    assert server.query("SELECT count(), sum(id), max(name) FROM faults_t") == expected(s3_endpoint, f"SELECT count(), sum(id), max(name) FROM s3('{{s3}}/big.csv', {KEYS}, {CSV_STRUCTURE})")
    server.query("DROP TABLE faults_t")
