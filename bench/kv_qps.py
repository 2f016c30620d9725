"""Key-value QPS under concurrency (seed 002's study, reproduced): Granary and ClickHouse
18.16 (Debian's clickhouse-server, the release closest to the seed's) side by side, over
HTTP on loopback, driven by wrk.

    python3 bench/kv_qps.py [--int-rows 20000000] [--fs-rows 12000000] [--seconds 4]
                            [--granularities 64,128,256,8192] [--connections 1,4,16,32]
                            [--granary target/release/granary] [--no-clickhouse]

Tables, the seed's: `int20M` (id UInt64, value Float64) and `fs12M` (id FixedString(16)
and five value columns), one copy per `index_granularity`. Every third key exists; the
100-key `IN` lists mix hits and misses 1:3. For each workload wrk runs `--seconds` with N
keep-alive connections (2 threads); each request is a random one of 1000 prepared
queries. Reported: QPS and wrk's p50 / p90 / p99 latency. wrk shares the machine's cores
with the server under test, as the seed's load generator did.

Workloads (all `FORMAT TabSeparated`):
  A. per granularity, 16 connections: `id = X` with WHERE / PREWHERE / the uncompressed
     cache, and `id IN (100 keys)` with and without the cache (int20M);
  B. granularity 256, 1/4/16/32 connections: `id = X` (cache), `IN (100)` (cache),
     `dictGetFloat64`, `joinGet`, and `SELECT 1` (the protocol ceiling);
  C. fs12M (FixedString(16) keys), granularity 256, 16 connections: `id = X` with and
     without the cache, `IN (100)` with the cache.
ClickHouse 18.16 has no DDL dictionaries: its dictionary is an XML file with the same
source, layout and lifetime. Installs `clickhouse-server` and `wrk` with apt when missing
(root); `--no-clickhouse` measures Granary alone.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import granary_server

WRK_SCRIPT = r"""
local bodies = {}
function init(args)
  for line in io.lines(args[1]) do bodies[#bodies + 1] = line end
end
request = function()
  return wrk.format("POST", "/", nil, bodies[math.random(#bodies)])
end
"""


def post(port, sql):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/", data=sql.encode(), method="POST")
    with urllib.request.urlopen(request, timeout=3600) as response:
        return response.read()


def ensure_tool(binary, package):
    if shutil.which(binary):
        return True
    if os.geteuid() != 0:
        return False
    subprocess.run(["apt-get", "install", "-y", "-qq", package], env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return shutil.which(binary) is not None


class ClickHouse:
    """clickhouse-server with its own config, data directory and ports under `root`."""

    def __init__(self, root, dictionary_xml):
        self.root = root
        self.port = granary_server.free_port()
        tcp_port = granary_server.free_port()
        config = open("/etc/clickhouse-server/config.xml").read()
        config = config.replace("/var/log/clickhouse-server/", f"{root}/log/").replace("/var/lib/clickhouse/", f"{root}/data/")
        config = re.sub(r"<http_port>\d+</http_port>", f"<http_port>{self.port}</http_port>", config)
        config = re.sub(r"<tcp_port>\d+</tcp_port>", f"<tcp_port>{tcp_port}</tcp_port>", config)
        config = re.sub(r"<interserver_http_port>\d+</interserver_http_port>", f"<interserver_http_port>{granary_server.free_port()}</interserver_http_port>", config)
        config = re.sub(r"<tcp_port_secure>.*?</tcp_port_secure>", "", config)
        config = config.replace("<listen_host>::1</listen_host>", "")
        os.makedirs(f"{root}/log", exist_ok=True)
        os.makedirs(f"{root}/data", exist_ok=True)
        with open(f"{root}/config.xml", "w") as f:
            f.write(config)
        shutil.copy("/etc/clickhouse-server/users.xml", f"{root}/users.xml")
        with open(f"{root}/kv_dictionary.xml", "w") as f:
            f.write(dictionary_xml.replace("TCP_PORT", str(tcp_port)))
        self.proc = subprocess.Popen(["clickhouse-server", f"--config-file={root}/config.xml"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if post(self.port, "SELECT 1").strip() == b"1":
                    return
            except OSError:
                time.sleep(0.2)
        self.proc.kill()
        raise RuntimeError("clickhouse-server did not start")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def wrk(port, bodies, connections, seconds, tmp):
    """(QPS, p50 ms, p90 ms, p99 ms, errors) of `bodies` under `connections`."""
    bodies_file = os.path.join(tmp, "bodies.txt")
    with open(bodies_file, "w") as f:
        f.write("\n".join(bodies) + "\n")
    script = os.path.join(tmp, "kv.lua")
    with open(script, "w") as f:
        f.write(WRK_SCRIPT)
    threads = str(min(2, connections))
    out = subprocess.run(["wrk", "-t", threads, "-c", str(connections), "-d", f"{seconds}s", "--latency", "-s", script,
                          f"http://127.0.0.1:{port}/", "--", bodies_file], capture_output=True, text=True).stdout
    qps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def percentile(p):
        m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)\s*$", out, re.MULTILINE)
        if not m:
            return float("nan")
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return qps, percentile(50), percentile(90), percentile(99), int(errors.group(1)) if errors else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--int-rows", type=int, default=20_000_000)
    parser.add_argument("--fs-rows", type=int, default=12_000_000)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--granularities", default="64,128,256,8192")
    parser.add_argument("--connections", default="1,4,16,32")
    parser.add_argument("--granary", default=os.environ.get("GRANARY_BIN", "target/release/granary"))
    parser.add_argument("--no-clickhouse", action="store_true")
    args = parser.parse_args()
    granularities = [int(g) for g in args.granularities.split(",")]
    connection_counts = [int(c) for c in args.connections.split(",")]
    if not ensure_tool("wrk", "wrk"):
        sys.exit("wrk is needed (apt-get install wrk)")
    with_clickhouse = not args.no_clickhouse and ensure_tool("clickhouse-server", "clickhouse-server")
    if not args.no_clickhouse and not with_clickhouse:
        print("clickhouse-server is not installed and cannot be: measuring Granary alone")

    n_int, n_fs = args.int_rows, args.fs_rows
    rng = random.Random(2)

    def int_keys(count, hit_share):
        return [3 * rng.randrange(n_int) + (0 if rng.random() < hit_share else 1) for _ in range(count)]

    def fs_key(k):
        return f"'{10**15 + k}'"

    def fs_keys(count, hit_share):
        return [fs_key(3 * rng.randrange(n_fs) + (0 if rng.random() < hit_share else 1)) for _ in range(count)]

    single_int = int_keys(1000, 0.25)
    lists_int = [",".join(map(str, int_keys(100, 0.25))) for _ in range(200)]
    single_fs = fs_keys(1000, 0.25)
    lists_fs = [",".join(fs_keys(100, 0.25)) for _ in range(200)]
    cache = " SETTINGS use_uncompressed_cache = 1"

    def setup_statements(clickhouse):
        statements = []
        for g in granularities:
            statements.append(f"CREATE TABLE int20M_g{g} (id UInt64, value Float64) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = {g}")
            statements.append(f"INSERT INTO int20M_g{g} SELECT number * 3, number / 7 FROM numbers({n_int})")
            statements.append(f"OPTIMIZE TABLE int20M_g{g} FINAL")
        statements.append("CREATE TABLE fs12M (id FixedString(16), v1 UInt64, v2 Float64, v3 String, v4 UInt32, v5 Date) "
                          "ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 256")
        statements.append(f"INSERT INTO fs12M SELECT toFixedString(toString(1000000000000000 + number * 3), 16), number, number / 3, "
                          f"toString(number % 1000), toUInt32(number % 100000), toDate('2020-01-01') + number % 1000 FROM numbers({n_fs})")
        statements.append("OPTIMIZE TABLE fs12M FINAL")
        statements.append("CREATE TABLE join20M (id UInt64, value Float64) ENGINE = Join(ANY, LEFT, id)")
        statements.append("INSERT INTO join20M SELECT id, value FROM int20M_g256")
        if not clickhouse:
            statements.append("CREATE DICTIONARY dict20M (id UInt64, value Float64) PRIMARY KEY id "
                              "SOURCE(CLICKHOUSE(TABLE 'int20M_g256')) LAYOUT(HASHED()) LIFETIME(0)")
        return statements

    dictionary_xml = """<dictionaries><dictionary><name>dict20M</name>
<source><clickhouse><host>127.0.0.1</host><port>TCP_PORT</port><user>default</user><password></password><db>default</db><table>int20M_g256</table></clickhouse></source>
<lifetime>0</lifetime><layout><hashed/></layout>
<structure><id><name>id</name></id><attribute><name>value</name><type>Float64</type><null_value>0</null_value></attribute></structure>
</dictionary></dictionaries>"""

    workloads = []  # (group, name, table, connections, bodies)
    for g in granularities:
        t = f"int20M_g{g}"
        workloads += [
            ("A", f"g{g}: id = X (WHERE)", 16, [f"SELECT * FROM {t} WHERE id = {k}" for k in single_int]),
            ("A", f"g{g}: id = X (PREWHERE)", 16, [f"SELECT * FROM {t} PREWHERE id = {k}" for k in single_int]),
            ("A", f"g{g}: id = X (cache)", 16, [f"SELECT * FROM {t} WHERE id = {k}{cache}" for k in single_int]),
            ("A", f"g{g}: IN (100)", 16, [f"SELECT * FROM {t} WHERE id IN ({ks})" for ks in lists_int]),
            ("A", f"g{g}: IN (100) (cache)", 16, [f"SELECT * FROM {t} WHERE id IN ({ks}){cache}" for ks in lists_int]),
        ]
    if 256 in granularities:
        for c in connection_counts:
            workloads += [
                ("B", f"id = X (cache), {c} conns", c, [f"SELECT * FROM int20M_g256 WHERE id = {k}{cache}" for k in single_int]),
                ("B", f"IN (100) (cache), {c} conns", c, [f"SELECT * FROM int20M_g256 WHERE id IN ({ks}){cache}" for ks in lists_int]),
                ("B", f"dictGetFloat64, {c} conns", c, [f"SELECT dictGetFloat64('dict20M', 'value', toUInt64({k}))" for k in single_int]),
                ("B", f"joinGet, {c} conns", c, [f"SELECT joinGet('join20M', 'value', toUInt64({k}))" for k in single_int]),
                ("B", f"SELECT 1, {c} conns", c, ["SELECT 1"]),
            ]
    workloads += [
        ("C", "fs12M: id = X", 16, [f"SELECT * FROM fs12M WHERE id = {k}" for k in single_fs]),
        ("C", "fs12M: id = X (cache)", 16, [f"SELECT * FROM fs12M WHERE id = {k}{cache}" for k in single_fs]),
        ("C", "fs12M: IN (100) (cache)", 16, [f"SELECT * FROM fs12M WHERE id IN ({ks}){cache}" for ks in lists_fs]),
    ]

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        servers = [("granary", None)] + ([("clickhouse", None)] if with_clickhouse else [])
        for name, _ in servers:
            if name == "granary":
                proc, port = granary_server.start(args.granary, os.path.join(tmp, "granary"))
                stop = lambda: (proc.terminate(), proc.wait(60))  # noqa: E731
            else:
                ch = ClickHouse(os.path.join(tmp, "clickhouse"), dictionary_xml)
                port, stop = ch.port, ch.stop
            try:
                t0 = time.perf_counter()
                for sql in setup_statements(name == "clickhouse"):
                    post(port, sql)
                print(f"{name}: loaded {len(granularities)} x {n_int} + {n_fs} rows in {time.perf_counter() - t0:.1f} s", flush=True)
                for group, label, connections, bodies in workloads:
                    post(port, bodies[0])  # warm: loads dictionaries, marks
                    results.setdefault(label, {})[name] = wrk(port, bodies, connections, args.seconds, tmp)
                    qps = results[label][name][0]
                    print(f"  {name:10} {label:32} {qps:9.0f} QPS", flush=True)
            finally:
                stop()

    print()
    print(f"int20M: {n_int} rows, fs12M: {n_fs} rows; wrk, {args.seconds} s per workload; latencies in ms")
    print("| workload | Granary QPS | p50 / p90 / p99 | ClickHouse 18.16 QPS | p50 / p90 / p99 | Granary / ClickHouse QPS |")
    print("|---|---|---|---|---|---|")
    for label, r in results.items():
        g, c = r.get("granary"), r.get("clickhouse")
        cell = lambda x: (f"{x[0]:.0f}" + (f" ({x[4]} errors)" if x[4] else ""), f"{x[1]:.2f} / {x[2]:.2f} / {x[3]:.2f}") if x else ("-", "-")  # noqa: E731
        ratio = f"{g[0] / c[0]:.1f}x" if g and c and c[0] else "-"
        print(f"| {label} | {cell(g)[0]} | {cell(g)[1]} | {cell(c)[0]} | {cell(c)[1]} | {ratio} |")


if __name__ == "__main__":
    sys.exit(main())
