"""Shared fixtures: a real `granary server` process on a free port with its own data dir,
a tiny stdlib HTTP helper, and the known-failures list (tests/known_failures.txt) applied
as non-strict xfail marks."""
import http.client
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
from pathlib import Path

import pytest

# chdb runs in this process and takes the time zone from TZ; the server is started with UTC too.
os.environ["TZ"] = "UTC"
time.tzset()

REPO = Path(__file__).resolve().parent.parent
BINARY = os.environ.get("GRANARY_BIN", str(REPO / "target" / "debug" / "granary"))
START_TIMEOUT = float(os.environ.get("GRANARY_START_TIMEOUT", "30"))
STOP_TIMEOUT = 15

# ClickHouse's HTTP statuses for the error codes the tests name most (exceptionCodeToHTTPStatus).
STATUS_OF_CODE = {
    62: 400,  # SYNTAX_ERROR
    6: 400,  # CANNOT_PARSE_TEXT
    27: 400,  # CANNOT_PARSE_INPUT_ASSERTION_FAILED
    43: 400,  # ILLEGAL_TYPE_OF_ARGUMENT
    53: 400,  # TYPE_MISMATCH
    46: 404,  # UNKNOWN_FUNCTION
    47: 404,  # UNKNOWN_IDENTIFIER
    50: 404,  # UNKNOWN_TYPE
    56: 404,  # UNKNOWN_STORAGE
    60: 404,  # UNKNOWN_TABLE
    73: 404,  # UNKNOWN_FORMAT
    81: 404,  # UNKNOWN_DATABASE
    115: 404,  # UNKNOWN_SETTING
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Response:
    """status, headers (case-insensitive mapping), body (bytes); unpacks as a 3-tuple."""

    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def __iter__(self):
        return iter((self.status, self.headers, self.body))

    @property
    def text(self) -> str:
        return self.body.decode(errors="replace")


def http_request(port, method="GET", target="/", body=None, headers=None, timeout=120, host="127.0.0.1") -> Response:
    """One request on a fresh connection (stdlib http.client); never raises on HTTP errors."""
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request(method, target, body=body, headers=headers or {})
        r = conn.getresponse()
        return Response(r.status, r.headers, r.read())
    finally:
        conn.close()


class Server:
    """A granary server process; restartable on the same data directory."""

    def __init__(self, path: str, extra_args=(), timezone="UTC"):
        self.path = path
        self.timezone = timezone
        self.port = free_port()
        self.process = None
        self.extra_args = list(extra_args)
        self.log = Path(path).parent / (Path(path).name + ".server.log")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def start(self):
        if not os.access(BINARY, os.X_OK):
            raise RuntimeError(f"granary binary not found at {BINARY} (build it or set GRANARY_BIN)")
        log = open(self.log, "ab")
        self.process = subprocess.Popen(
            [BINARY, "server", "--path", self.path, "--http-port", str(self.port), *self.extra_args],
            stdout=log,
            stderr=log,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "TZ": self.timezone},
        )
        log.close()
        deadline = time.time() + START_TIMEOUT
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited early with {self.process.returncode}:\n{self.log_text()}")
            try:
                if http_request(self.port, "GET", "/ping", timeout=2).body == b"Ok.\n":
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        self.stop(signal.SIGKILL)
        raise RuntimeError(f"server did not answer /ping within {START_TIMEOUT}s:\n{self.log_text()}")

    def stop(self, sig=signal.SIGTERM) -> int:
        """Stops the server with `sig` (SIGKILL after STOP_TIMEOUT); returns its exit code."""
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def request(self, sql: str = "", params=None, data: bytes = None, method: str = None, headers=None, timeout=120) -> Response:
        """Sends `sql` (or raw `data`) as the body, `params` as URL parameters.
        Returns Response(status, headers, body bytes), also unpackable as a tuple."""
        query = urllib.parse.urlencode(params or {})
        target = "/" + ("?" + query if query else "")
        body = data if data is not None else (sql.encode() if sql else None)
        return http_request(self.port, method or ("POST" if body is not None else "GET"), target, body, headers, timeout)

    def query(self, sql: str, **params) -> str:
        r = self.request(sql, params=params)
        if r.status != 200:
            raise AssertionError(f"{sql!r} failed with {r.status}: {r.text}")
        return r.body.decode()


@pytest.fixture(scope="session")
def server():
    with tempfile.TemporaryDirectory(prefix="granary-test-") as tmp:
        s = Server(os.path.join(tmp, "data")).start()
        yield s
        assert s.alive(), f"the server died during the tests:\n{s.log_text()[-5000:]}"
        code = s.stop()
        assert code == 0, f"server exit code {code} after SIGTERM:\n{s.log_text()[-5000:]}"


@pytest.fixture(scope="session")
def s3_endpoint(tmp_path_factory):
    """A SeaweedFS S3 server from scripts/s3_server.sh (bucket `test-bucket`, keys
    testkey/testsecret) shared by the object storage suites, stopped by PID at the end."""
    script = str(REPO / "scripts" / "s3_server.sh")
    data = str(tmp_path_factory.mktemp("s3"))
    try:
        out = subprocess.run(["bash", script, "start", data], check=True, capture_output=True, text=True, timeout=300)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"S3 server unavailable: {getattr(e, 'stderr', e)}")
    yield out.stdout.strip()
    subprocess.run(["bash", script, "stop", data], check=False, timeout=60)


def load_known_failures():
    path = Path(__file__).parent / "known_failures.txt"
    if not path.exists():
        return {}
    out = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, reason = line.partition("#")
        out[name.strip()] = reason.strip()
    return out


KNOWN_FAILURES = load_known_failures()


_MATCHED_KNOWN = set()


def pytest_collection_modifyitems(config, items):
    """A test whose name (`test_x`), parameter id (`0002_ddl`, `0001_expressions-12`) or
    node id is listed in known_failures.txt is expected to fail (not strictly)."""
    for item in items:
        _MATCHED_KNOWN.update(k for k in (item.name, item.nodeid, known_failure_key(item)) if k in KNOWN_FAILURES)
    for item in items:
        callspec = getattr(item, "callspec", None)
        keys = [item.name, item.nodeid, item.nodeid.split("/")[-1]]
        if callspec is not None:
            keys.append(callspec.id)
        for key in keys:
            if key in KNOWN_FAILURES:
                item.add_marker(pytest.mark.xfail(reason=KNOWN_FAILURES[key] or "known failure", strict=False))
                break


def known_failure_key(item_or_report) -> str:
    """The id known_failures.txt uses: the parameter id for golden and differential tests
    (`0015_joins`, `0004_arithmetic-12`), the test name otherwise (`test_query_log`)."""
    name = item_or_report.nodeid.split("::")[-1]
    if name.startswith(("test_sql_file[", "test_same_as_clickhouse[")):
        return name[name.index("[") + 1 : -1]
    return name


def pytest_runtest_logreport(report):
    """With GRANARY_FAILURE_REPORT=FILE, appends `id<TAB>outcome<TAB>reason` for every test
    run (tests/tools/update_known_failures.py writes known_failures.txt from it)."""
    path = os.environ.get("GRANARY_FAILURE_REPORT")
    if not path or report.when != "call":
        return
    failed = report.failed or (report.skipped and hasattr(report, "wasxfail"))
    reason = ""
    if failed:
        reason = dict(report.user_properties).get("failure_reason")
        if not reason:
            crash = getattr(report.longrepr, "reprcrash", None)
            reason = crash.message if crash else str(report.longrepr)
            # drop pytest's assertion introspection (`assert x == y`, `+  where ...`)
            kept = []
            for line in reason.splitlines():
                if line.strip().startswith(("assert ", "+  where", "+    where")) and kept:
                    break
                kept.append(line)
            reason = " ".join(kept)
        reason = " ".join(reason.split())[:300]
    with open(path, "a") as f:
        f.write(f"{known_failure_key(report)}\t{'failed' if failed else 'passed'}\t{reason}\n")


def pytest_terminal_summary(terminalreporter):
    # Under pytest-xdist the controller collects nothing itself (its workers do): no check there.
    if getattr(terminalreporter.config.option, "numprocesses", None):
        return
    stale = sorted(set(KNOWN_FAILURES) - _MATCHED_KNOWN)
    if stale and not terminalreporter.config.option.keyword:
        terminalreporter.write_line(f"known_failures.txt: {len(stale)} ids match no test: {' '.join(stale[:20])}")
