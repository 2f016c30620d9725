"""An HTTP reverse proxy that injects faults between a client and an S3 server.

Used by tests/test_object_storage_faults.py in front of SeaweedFS: every request is
forwarded unchanged (the Host header included, so SigV4 signatures stay valid) unless a
rule matches it, in which case the proxy answers instead:

* ``Fault.status(503, "SlowDown")``: an S3 XML error with that status, upstream not asked;
* ``Fault.reset(after_bytes)``: the upstream answer's status line, headers and the first
  ``after_bytes`` bytes of its body, then a TCP reset (SO_LINGER 0) mid-body;
* ``Fault.drop()``: a TCP reset instead of any answer, upstream not asked (an upload
  broken off);
* ``Fault.slow(seconds)``: the upstream answer, after a delay.

A rule matches by method, a regular expression on the path and query, and a predicate on
the request headers (e.g. only ranged GETs); it fires ``times`` times (``None``: always).
Every exchange is logged with the bytes of response body the client actually received,
so tests can prove that retries do not fetch again what already arrived.

Run standalone for manual experiments: ``python3 tests/tools/faulty_proxy.py UPSTREAM``
prints the proxy's URL and forwards without faults until interrupted.
"""
from __future__ import annotations

import http.client
import http.server
import re
import socket
import struct
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Callable, Optional

# Request headers that describe the proxy hop, not the request.
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


@dataclass
class Fault:
    kind: str  # "status" | "reset" | "drop" | "slow"
    status: int = 0
    code: str = ""
    after_bytes: int = 0
    seconds: float = 0.0

    @staticmethod
    def status(status: int, code: str) -> "Fault":
        return Fault("status", status=status, code=code)

    @staticmethod
    def reset(after_bytes: int) -> "Fault":
        return Fault("reset", after_bytes=after_bytes)

    @staticmethod
    def drop() -> "Fault":
        return Fault("drop")

    @staticmethod
    def slow(seconds: float) -> "Fault":
        return Fault("slow", seconds=seconds)


@dataclass
class Rule:
    fault: Fault
    method: Optional[str] = None
    path: Optional[str] = None  # regular expression searched in path + query
    when: Optional[Callable[[dict], bool]] = None  # on lower-cased request headers
    times: Optional[int] = 1  # None: every matching request
    fired: int = 0

    def matches(self, method: str, target: str, headers: dict) -> bool:
        if self.times is not None and self.fired >= self.times:
            return False
        if self.method is not None and method != self.method:
            return False
        if self.path is not None and not re.search(self.path, urllib.parse.unquote(target)):
            return False
        return self.when is None or self.when(headers)


@dataclass
class Exchange:
    method: str
    target: str
    range: Optional[str]
    status: int
    body_bytes: int  # of the answer's body, as sent (a reset's partial count)
    started: float
    fault: Optional[str] = None
    request_bytes: int = 0


@dataclass
class FaultyProxy:
    upstream: str
    rules: list = field(default_factory=list)
    log: list = field(default_factory=list)

    def __post_init__(self):
        parsed = urllib.parse.urlsplit(self.upstream)
        self._upstream_host, self._upstream_port = parsed.hostname, parsed.port or 80
        self._lock = threading.Lock()
        self._server = None
        self._thread = None

    # --- control -------------------------------------------------------------------
    def start(self) -> str:
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle(self):
                # Clients drop idle keep-alive connections, sometimes with a reset.
                try:
                    super().handle()
                except (ConnectionResetError, BrokenPipeError):
                    pass

            def do_GET(self):
                proxy._handle(self)

            do_HEAD = do_PUT = do_POST = do_DELETE = do_GET

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self.url

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def add(self, fault: Fault, method=None, path=None, when=None, times: Optional[int] = 1) -> Rule:
        rule = Rule(fault, method, path, when, times)
        with self._lock:
            self.rules.append(rule)
        return rule

    def reset_state(self):
        with self._lock:
            self.rules.clear()
            self.log.clear()

    def exchanges(self, method=None, path=None) -> list:
        with self._lock:
            return [e for e in self.log if (method is None or e.method == method) and (path is None or re.search(path, urllib.parse.unquote(e.target)))]

    # --- one request ---------------------------------------------------------------
    def _pick(self, method, target, headers) -> Optional[Fault]:
        with self._lock:
            for rule in self.rules:
                if rule.matches(method, target, headers):
                    rule.fired += 1
                    return rule.fault
        return None

    def _record(self, exchange: Exchange):
        with self._lock:
            self.log.append(exchange)

    def _handle(self, handler: http.server.BaseHTTPRequestHandler):
        started = time.time()
        method, target = handler.command, handler.path
        headers = {k.lower(): v for k, v in handler.headers.items()}
        body = _read_request_body(handler, headers)
        fault = self._pick(method, target, headers)
        exchange = Exchange(method, target, headers.get("range"), 0, 0, started, fault.kind if fault else None, len(body))
        # Logged (and its fields filled) before the client can see an answer: a test that
        # looks at the log right after its query finds every exchange complete.
        self._record(exchange)
        try:
            if fault is not None and fault.kind == "drop":
                _reset_connection(handler)
                return
            if fault is not None and fault.kind == "status":
                reply = (
                    f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{fault.code}</Code>'
                    f"<Message>Injected by faulty_proxy</Message><RequestId>faulty-proxy</RequestId></Error>"
                ).encode()
                exchange.status = fault.status
                handler.send_response(fault.status)
                handler.send_header("Content-Type", "application/xml")
                handler.send_header("Content-Length", str(len(reply)))
                handler.end_headers()
                if method != "HEAD":
                    handler.wfile.write(reply)
                return
            if fault is not None and fault.kind == "slow":
                time.sleep(fault.seconds)
            status, reason, upstream_headers, payload = self._forward(method, target, handler.headers, body)
            exchange.status = status
            if method != "HEAD":
                exchange.body_bytes = len(payload) if fault is None or fault.kind != "reset" else min(len(payload), fault.after_bytes)
            handler.send_response(status, reason)
            for name, value in upstream_headers:
                if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                    handler.send_header(name, value)
            declared = next((v for n, v in upstream_headers if n.lower() == "content-length"), None)
            if method == "HEAD":
                handler.send_header("Content-Length", declared if declared is not None else "0")
            else:
                handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            if method == "HEAD":
                return
            if fault is not None and fault.kind == "reset":
                part = payload[: fault.after_bytes]
                exchange.body_bytes = len(part)
                handler.wfile.write(part)
                handler.wfile.flush()
                _reset_connection(handler)
                return
            exchange.body_bytes = len(payload)
            handler.wfile.write(payload)
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            handler.close_connection = True

    def _forward(self, method, target, request_headers, body):
        connection = http.client.HTTPConnection(self._upstream_host, self._upstream_port, timeout=120)
        try:
            connection.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            for name, value in request_headers.items():
                if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                    connection.putheader(name, value)
            if body or method in ("PUT", "POST"):
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body if body else None)
            response = connection.getresponse()
            payload = response.read()
            return response.status, response.reason, response.getheaders(), payload
        finally:
            connection.close()


def _read_request_body(handler, headers) -> bytes:
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            size = int(handler.rfile.readline().strip().split(b";")[0], 16)
            if size == 0:
                handler.rfile.readline()
                return body
            body += handler.rfile.read(size)
            handler.rfile.readline()
    length = int(headers.get("content-length", "0") or 0)
    return handler.rfile.read(length) if length else b""


def _reset_connection(handler):
    """Closes the client's socket with a TCP RST instead of an orderly FIN."""
    handler.close_connection = True
    try:
        handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        handler.connection.close()
    except OSError:
        pass


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: faulty_proxy.py UPSTREAM_URL")
    proxy = FaultyProxy(sys.argv[1])
    print(proxy.start(), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        proxy.stop()
