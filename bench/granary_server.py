"""A granary server for the benchmarks: a free loopback port, the given data directory,
ready once /ping answers."""
import http.client
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def peak_rss_mib(pid):
    """The process's peak resident memory (VmHWM) in MiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def start(binary, path, wait_seconds=30):
    """Starts `binary server` on `path`; returns (process, port)."""
    port = free_port()
    proc = subprocess.Popen([binary, "server", "--path", path, "--http-port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + wait_seconds
    while time.time() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/ping")
            if conn.getresponse().read().startswith(b"Ok."):
                return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{binary} did not answer /ping within {wait_seconds}s")
