"""Shared fixtures: a real `granary server` process on a free port with its own data dir."""
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BINARY = os.environ.get("GRANARY_BIN", str(REPO / "target" / "debug" / "granary"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A granary server process; restartable on the same data directory."""

    def __init__(self, path: str):
        self.path = path
        self.port = free_port()
        self.process = None
        self.log = Path(path) / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self):
        log = open(self.log, "ab")
        self.process = subprocess.Popen(
            [BINARY, "server", "--path", self.path, "--http-port", str(self.port)],
            stdout=log,
            stderr=log,
            env={**os.environ, "TZ": "UTC"},
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(self.url + "ping", timeout=1) as r:
                    if r.read() == b"Ok.\n":
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"server did not answer /ping:\n{self.log.read_text(errors='replace')}")

    def stop(self, sig=signal.SIGTERM):
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def request(self, sql: str = "", params=None, data: bytes = None, method: str = None, headers=None):
        """Returns (status, headers, body bytes)."""
        query = urllib.parse.urlencode(params or {})
        url = self.url + ("?" + query if query else "")
        body = data if data is not None else (sql.encode() if sql else None)
        req = urllib.request.Request(url, data=body, method=method or ("POST" if body is not None else "GET"), headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()

    def query(self, sql: str, **params) -> str:
        status, _, body = self.request(sql, params=params)
        if status != 200:
            raise AssertionError(f"{sql!r} failed with {status}: {body.decode(errors='replace')}")
        return body.decode()


@pytest.fixture(scope="session")
def server():
    with tempfile.TemporaryDirectory() as path:
        s = Server(path).start()
        yield s
        s.stop()


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
