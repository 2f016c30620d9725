"""Users and access control against the real server: users from the config file (hashed
passwords, networks, profiles, grants, quotas) and from SQL (CREATE USER, roles, GRANT,
REVOKE, settings profiles), every way of sending credentials, what each privilege
allows and denies, and the HTTPS port."""
import base64
import gzip
import hashlib
import http.client
import os
import socket
import ssl
import subprocess
import tempfile

import clickhouse_connect
import pytest
from clickhouse_connect.driver.exceptions import DatabaseError

from conftest import Server, free_port

CONFIG = """
[profiles.ro]
readonly = 1

[users.reader]
password_sha256_hex = "{reader_hash}"
profile = "ro"
grants = ["SELECT ON shop.*"]

[users.remote_only]
password = "x"
networks = ["10.255.255.0/24"]

[users.quota_user]
password = "q"
grants = ["SELECT ON *.*"]

[quotas.tight]
users = ["quota_user"]
intervals = [{{ duration = 3600, queries = 3 }}]
"""


def lan_address():
    """A non-loopback address of this machine, or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # no packet is sent for UDP connect
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


@pytest.fixture(scope="module")
def secured():
    with tempfile.TemporaryDirectory(prefix="granary-access-") as tmp:
        config = os.path.join(tmp, "granary.toml")
        with open(config, "w") as f:
            f.write(CONFIG.format(reader_hash=hashlib.sha256(b"reader-pw").hexdigest()))
        server = Server(os.path.join(tmp, "data"), extra_args=["--config", config, "--listen", "0.0.0.0"]).start()
        server.query("CREATE DATABASE shop")
        server.query("CREATE TABLE shop.orders (id UInt64, amount Float64) ENGINE = MergeTree ORDER BY id")
        server.query("CREATE TABLE shop.other (id UInt64) ENGINE = MergeTree ORDER BY id")
        server.query("INSERT INTO shop.orders VALUES (1, 9.5), (2, 20)")
        server.query("CREATE DATABASE private")
        server.query("CREATE TABLE private.secrets (s String) ENGINE = MergeTree ORDER BY s")
        yield server
        server.stop()


def as_user(server, user, password, sql, **params):
    return server.request(sql, params={"user": user, "password": password, **params})


def assert_code(response, code, status=None):
    assert response.headers.get("X-ClickHouse-Exception-Code") == str(code), (response.status, response.text)
    assert f"Code: {code}." in response.text
    if status is not None:
        assert response.status == status, response.status


def test_credentials_every_way(secured):
    basic = base64.b64encode(b"reader:reader-pw").decode()
    for headers, params in [
        ({"Authorization": f"Basic {basic}"}, {}),
        ({"X-ClickHouse-User": "reader", "X-ClickHouse-Key": "reader-pw"}, {}),
        ({}, {"user": "reader", "password": "reader-pw"}),
    ]:
        r = secured.request("SELECT currentUser(), count() FROM shop.orders", params=params, headers=headers)
        assert r.status == 200 and r.text == "reader\t2\n", r.text


def test_wrong_credentials_tell_nothing(secured):
    wrong = as_user(secured, "reader", "nope", "SELECT 1")
    unknown = as_user(secured, "nobody", "nope", "SELECT 1")
    assert_code(wrong, 516, 403)
    assert_code(unknown, 516, 403)
    assert wrong.text.replace("reader", "X") == unknown.text.replace("nobody", "X")


def test_networks(secured):
    # Allowed only from 10.255.255.0/24: refused from loopback with the same message.
    assert_code(as_user(secured, "remote_only", "x", "SELECT 1"), 516, 403)
    address = lan_address()
    if address is None:
        pytest.skip("no non-loopback address to connect from")
    # The passwordless default user is refused from anywhere but loopback.
    from conftest import http_request

    r = http_request(secured.port, "POST", "/", b"SELECT 1", host=address)
    assert_code(r, 516, 403)


def test_readonly_profile_and_grants_of_config_user(secured):
    assert as_user(secured, "reader", "reader-pw", "SELECT sum(amount) FROM shop.orders").text == "29.5\n"
    denied = as_user(secured, "reader", "reader-pw", "SELECT * FROM private.secrets")
    assert_code(denied, 497, 403)
    assert "SELECT ON private.secrets" in denied.text
    assert_code(as_user(secured, "reader", "reader-pw", "INSERT INTO shop.orders VALUES (3, 1)"), 164)
    assert_code(as_user(secured, "reader", "reader-pw", "SELECT 1", max_threads=1), 164)
    # The config storage is read-only to SQL.
    assert_code(secured.request("DROP USER reader"), 495)


def test_sql_users_grants_and_revokes(secured):
    secured.query("CREATE USER writer IDENTIFIED WITH sha256_password BY 'w-pw' DEFAULT DATABASE shop")
    secured.query("GRANT INSERT, SELECT ON shop.orders TO writer")
    run = lambda sql, **p: as_user(secured, "writer", "w-pw", sql, **p)  # noqa: E731
    assert run("INSERT INTO orders VALUES (10, 1.5)").status == 200
    assert run("SELECT count() FROM orders").text == "3\n"
    assert_code(run("SELECT * FROM shop.other"), 497)
    assert_code(run("CREATE TABLE shop.t (a UInt8) ENGINE = MergeTree ORDER BY a"), 497)
    assert_code(run("DROP TABLE shop.orders"), 497)
    assert_code(run("TRUNCATE TABLE shop.orders"), 497)
    assert_code(run("CREATE USER sneaky"), 497)
    assert_code(run("GRANT SELECT ON shop.orders TO writer"), 497)
    assert_code(run("SELECT * FROM file('x.csv', 'CSV', 'a String')"), 497)
    assert_code(run("SELECT * FROM url('http://127.0.0.1:1/x.csv', 'CSV', 'a String')"), 497)
    assert run("SHOW GRANTS").text == "GRANT SELECT, INSERT ON shop.orders TO writer\n"
    # Other users are none of its business.
    assert_code(run("SELECT name FROM system.users"), 497)
    assert_code(run("SHOW GRANTS FOR reader"), 497)
    assert run("SELECT count() > 0 FROM system.tables").text == "1\n"
    # A role brings its privileges to everyone it is granted to.
    secured.query("CREATE ROLE analyst")
    secured.query("GRANT SELECT ON shop.other TO analyst")
    secured.query("GRANT analyst TO writer")
    assert run("SELECT count() FROM shop.other").text == "0\n"
    # Partial revoke: everything in shop but orders.
    secured.query("GRANT SELECT ON shop.* TO writer")
    secured.query("REVOKE SELECT ON shop.orders FROM writer")
    secured.query("REVOKE analyst FROM writer")
    assert run("SELECT count() FROM shop.other").text == "0\n"
    assert_code(run("SELECT count() FROM shop.orders"), 497)
    grants = secured.query("SELECT access_type, database, table, is_partial_revoke FROM system.grants WHERE user_name = 'writer' ORDER BY access_type, table")
    assert grants == "INSERT\tshop\torders\t0\nSELECT\tshop\torders\t1\nSELECT\tshop\t\\N\t0\n", grants
    # Source privileges.
    secured.query("GRANT FILE ON *.* TO writer")
    assert_code(run("SELECT * FROM file('missing.csv', 'CSV', 'a String')"), 107)  # allowed now: the file is missing
    assert secured.query("SELECT name, auth_type, storage FROM system.users WHERE name = 'writer'") == "writer\tsha256_password\tlocal_directory\n"
    secured.query("DROP USER writer")
    assert_code(run("SELECT 1"), 516)
    secured.query("DROP ROLE analyst")


def test_sql_settings_profile(secured):
    secured.query("CREATE USER prof IDENTIFIED WITH plaintext_password BY 'p'")
    secured.query("CREATE SETTINGS PROFILE fixed SETTINGS max_threads = 1 READONLY, max_block_size = 1000 TO prof")
    run = lambda sql, **p: as_user(secured, "prof", "p", sql, **p)  # noqa: E731
    assert run("SELECT getSetting('max_threads'), getSetting('max_block_size')").text == "1\t1000\n"
    assert_code(run("SELECT 1", max_threads=4), 452)
    assert run("SELECT getSetting('max_block_size')", max_block_size=5).text == "5\n"
    secured.query("DROP SETTINGS PROFILE fixed")
    secured.query("DROP USER prof")


def test_quota(secured):
    for _ in range(3):
        assert as_user(secured, "quota_user", "q", "SELECT 1").status == 200
    r = as_user(secured, "quota_user", "q", "SELECT 1")
    assert_code(r, 201)
    assert "queries = 4/3" in r.text
    usage = secured.query("SELECT quota_name, quota_key, queries, max_queries FROM system.quota_usage")
    assert "tight\tquota_user\t3\t3\n" in usage, usage


def test_clickhouse_connect_with_a_user(secured):
    secured.query("CREATE USER cc IDENTIFIED BY 'cc-pw'")
    secured.query("GRANT SELECT ON shop.orders TO cc")
    client = clickhouse_connect.get_client(host="127.0.0.1", port=secured.port, username="cc", password="cc-pw")
    assert client.query("SELECT count() FROM shop.orders").result_rows[0][0] >= 2
    with pytest.raises(DatabaseError) as e:
        client.query("SELECT * FROM private.secrets")
    assert "ACCESS_DENIED" in str(e.value)
    client.close()
    with pytest.raises(DatabaseError) as e:
        clickhouse_connect.get_client(host="127.0.0.1", port=secured.port, username="cc", password="wrong")
    assert "516" in str(e.value)
    secured.query("DROP USER cc")


def test_sql_users_survive_restart():
    with tempfile.TemporaryDirectory(prefix="granary-access-restart-") as tmp:
        server = Server(os.path.join(tmp, "data")).start()
        try:
            server.query("CREATE USER kept IDENTIFIED WITH sha256_password BY 'k'")
            server.query("CREATE ROLE keeper")
            server.query("GRANT SELECT ON system.* TO keeper")
            server.query("GRANT keeper TO kept")
            server.query("CREATE DATABASE d")
            server.query("CREATE TABLE d.t (a UInt8) ENGINE = MergeTree ORDER BY a")
            server.query("GRANT SELECT ON d.t TO kept")
            server.stop(9)
            server.start()
            r = as_user(server, "kept", "k", "SELECT count() FROM d.t")
            assert r.status == 200 and r.text == "0\n", r.text
            assert server.query("SHOW GRANTS FOR kept") == "GRANT SELECT ON d.t TO kept\nGRANT keeper TO kept\n"
        finally:
            server.stop()


def make_certificate(directory):
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True,
    )
    return cert, key


def test_https():
    with tempfile.TemporaryDirectory(prefix="granary-tls-") as tmp:
        cert, key = make_certificate(tmp)
        https_port = free_port()
        config = os.path.join(tmp, "granary.toml")
        with open(config, "w") as f:
            f.write(f'https_port = {https_port}\ntls_certificate_file = "{cert}"\ntls_private_key_file = "{key}"\n')
        server = Server(os.path.join(tmp, "data"), extra_args=["--config", config]).start()
        try:
            context = ssl.create_default_context(cafile=cert)
            connection = http.client.HTTPSConnection("127.0.0.1", https_port, context=context, timeout=30)
            connection.request("POST", "/", body=b"SELECT 'over tls', currentUser()")
            response = connection.getresponse()
            assert response.status == 200 and response.read() == b"over tls\tdefault\n"
            # Keep-alive over TLS, with progress headers and compression.
            connection.request("POST", "/?enable_http_compression=1", body=b"SELECT number FROM numbers(1000)", headers={"Accept-Encoding": "gzip"})
            response = connection.getresponse()
            assert response.getheader("Content-Encoding") == "gzip"
            assert gzip.decompress(response.read()).count(b"\n") == 1000
            connection.close()
            # Without the CA, verification fails: the certificate is really checked.
            with pytest.raises(ssl.SSLError):
                strict = http.client.HTTPSConnection("127.0.0.1", https_port, context=ssl.create_default_context(), timeout=30)
                strict.request("GET", "/ping")
            # Plain HTTP to the TLS port is refused without harm.
            with socket.create_connection(("127.0.0.1", https_port), timeout=10) as s:
                s.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
                s.recv(100)
            client = clickhouse_connect.get_client(host="127.0.0.1", port=https_port, secure=True, ca_cert=cert)
            assert client.query("SELECT 42").result_rows == [(42,)]
            client.close()
            assert server.query("SELECT 1") == "1\n"
        finally:
            server.stop()


def test_https_needs_certificate_and_key():
    with tempfile.TemporaryDirectory(prefix="granary-tls-bad-") as tmp:
        config = os.path.join(tmp, "granary.toml")
        with open(config, "w") as f:
            f.write(f'https_port = {free_port()}\ntls_certificate_file = "{tmp}/missing.pem"\ntls_private_key_file = "{tmp}/missing.key"\n')
        server = Server(os.path.join(tmp, "data"), extra_args=["--config", config])
        with pytest.raises(RuntimeError) as e:
            server.start()
        assert "Cannot read the certificate" in str(e.value)


def test_row_policies_filter_one_user_and_not_another():
    """A permissive policy TO one user filters what that user reads over HTTP; a user no
    policy covers reads every row; restrictive policies narrow the permissive ones; the
    policies survive a kill -9 and DROP ROW POLICY lifts them."""
    with tempfile.TemporaryDirectory(prefix="granary-row-policies-") as tmp:
        server = Server(os.path.join(tmp, "data")).start()
        try:
            server.query("CREATE DATABASE rp")
            server.query("CREATE TABLE rp.t (id UInt64, owner String) ENGINE = MergeTree ORDER BY id")
            server.query("INSERT INTO rp.t VALUES (1, 'alice'), (2, 'bob'), (3, 'alice'), (4, 'carol')")
            for user in ("alice", "bob"):
                server.query(f"CREATE USER {user} IDENTIFIED WITH plaintext_password BY 'pw'")
                server.query(f"GRANT SELECT ON rp.* TO {user}")
            server.query("CREATE ROW POLICY own ON rp.t FOR SELECT USING owner = 'alice' TO alice")
            alice = lambda sql: as_user(server, "alice", "pw", sql)  # noqa: E731
            bob = lambda sql: as_user(server, "bob", "pw", sql)  # noqa: E731
            assert alice("SELECT id FROM rp.t ORDER BY id").text == "1\n3\n"
            assert bob("SELECT id FROM rp.t ORDER BY id").text == "1\n2\n3\n4\n"
            # Through aliases, joins, subqueries and the key-value fast path alike.
            assert alice("SELECT count() FROM rp.t AS x JOIN rp.t AS y ON x.id = y.id").text == "2\n"
            assert alice("SELECT id FROM (SELECT * FROM rp.t) WHERE id > 1").text == "3\n"
            assert alice("SELECT owner FROM rp.t WHERE id = 2").text == ""
            assert alice("SELECT owner FROM rp.t WHERE id IN (2, 3)").text == "alice\n"
            # A view reads the filtered table for the user who reads the view.
            server.query("CREATE VIEW rp.v AS SELECT id FROM rp.t")
            assert alice("SELECT count() FROM rp.v").text == "2\n"
            assert bob("SELECT count() FROM rp.v").text == "4\n"
            # Permissive policies are OR-ed, restrictive ones AND-ed on top.
            server.query("CREATE ROW POLICY also_four ON rp.t AS PERMISSIVE FOR SELECT USING id = 4 TO alice")
            assert alice("SELECT id FROM rp.t ORDER BY id").text == "1\n3\n4\n"
            server.query("CREATE ROW POLICY small ON rp.t AS RESTRICTIVE FOR SELECT USING id < 4 TO ALL")
            assert alice("SELECT id FROM rp.t ORDER BY id").text == "1\n3\n"
            # Bob is covered by the restrictive policy alone: no permissive one lets rows in.
            assert bob("SELECT count() FROM rp.t").text == "0\n"
            server.query("CREATE OR REPLACE ROW POLICY small ON rp.t AS RESTRICTIVE USING id < 4 TO ALL EXCEPT bob")
            assert bob("SELECT count() FROM rp.t").text == "4\n"
            rows = server.query(
                "SELECT name, short_name, database, table, select_filter, is_restrictive, apply_to_all, apply_to_list, apply_to_except "
                "FROM system.row_policies ORDER BY name"
            )
            assert rows == (
                "also_four ON rp.t\talso_four\trp\tt\tid = 4\t0\t0\t['alice']\t[]\n"
                "own ON rp.t\town\trp\tt\towner = \\'alice\\'\t0\t0\t['alice']\t[]\n"
                "small ON rp.t\tsmall\trp\tt\tid < 4\t1\t1\t[]\t['bob']\n"
            ), rows
            assert server.query("SHOW ROW POLICIES") == "also_four ON rp.t\nown ON rp.t\nsmall ON rp.t\n"
            assert server.query("SHOW POLICIES ON rp.t") == "also_four ON rp.t\nown ON rp.t\nsmall ON rp.t\n"
            assert server.query("SHOW CREATE ROW POLICY own ON rp.t") == "CREATE ROW POLICY own ON rp.t FOR SELECT USING owner = \\'alice\\' TO alice\n"
            # Who may manage them, and ClickHouse's errors.
            assert_code(alice("CREATE ROW POLICY mine ON rp.t USING 1 TO alice"), 497)
            assert_code(alice("SELECT * FROM system.row_policies"), 497)
            assert_code(server.request("CREATE ROW POLICY own ON rp.t USING 1 TO alice"), 493)
            assert_code(server.request("CREATE ROW POLICY p ON rp.t USING 1 TO nobody"), 192)
            assert_code(server.request("DROP ROW POLICY nothing ON rp.t"), 492)
            assert server.request("DROP ROW POLICY IF EXISTS nothing ON rp.t").status == 200
            # Durable like the other access entities.
            server.stop(9)
            server.start()
            assert alice("SELECT id FROM rp.t ORDER BY id").text == "1\n3\n"
            server.query("DROP ROW POLICY own ON rp.t")
            server.query("DROP ROW POLICY also_four ON rp.t")
            server.query("DROP POLICY small ON rp.t")
            assert alice("SELECT count() FROM rp.t").text == "4\n"
            assert server.query("SELECT count() FROM system.row_policies") == "0\n"
        finally:
            server.stop()
