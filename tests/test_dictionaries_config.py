"""Dictionaries from configuration files (ClickHouse's `dictionaries_config`), through a
real server started with a config file: XML and TOML definitions, every source kind,
system.dictionaries, name resolution, reloads, broken files and DROP."""

import http.server
import json
import threading
import time

from conftest import Server

REGIONS_XML = """<?xml version="1.0"?>
<clickhouse>
  <comment>Regions, from a file next to this one.</comment>
  <dictionary>
    <name>regions</name>
    <source>
      <file><path>../data/regions.tsv</path><format>TabSeparated</format></file>
    </source>
    <layout><hashed/></layout>
    <structure>
      <id><name>id</name></id>
      <attribute><name>parent</name><type>UInt64</type><null_value>0</null_value><hierarchical>true</hierarchical></attribute>
      <attribute><name>name</name><type>String</type><null_value>unknown &amp; unseen</null_value></attribute>
    </structure>
    <lifetime><min>0</min><max>0</max></lifetime>
  </dictionary>
  <dictionary>
    <name>networks</name>
    <source><clickhouse><table>networks_src</table></clickhouse></source>
    <layout><ip_trie><access_to_key_from_attributes>true</access_to_key_from_attributes></ip_trie></layout>
    <structure>
      <key><attribute><name>prefix</name><type>String</type></attribute></key>
      <attribute><name>asn</name><type>UInt32</type><null_value>0</null_value></attribute>
    </structure>
    <lifetime>0</lifetime>
  </dictionary>
</clickhouse>
"""

PRICES_TOML = """
[[dictionary]]
name = "prices"
layout = "range_hashed"
lifetime = { min = 0, max = 0 }
[dictionary.source.clickhouse]
query = "SELECT toUInt64(1) AS id, toDate('2024-01-01') AS start, toDate('2024-01-31') AS end, 10.5 AS price"
[dictionary.structure.id]
name = "id"
[dictionary.structure.range_min]
name = "start"
type = "Date"
[dictionary.structure.range_max]
name = "end"
type = "Date"
[[dictionary.structure.attribute]]
name = "price"
type = "Float64"
null_value = "-1"

[[dictionary]]
name = "colors"
lifetime = 0
[dictionary.layout.complex_key_hashed]
[dictionary.source.http]
url = "{url}"
format = "TabSeparated"
[[dictionary.structure.key.attribute]]
name = "code"
type = "String"
[[dictionary.structure.attribute]]
name = "rgb"
type = "String"
null_value = "?"
"""


class _Tsv(http.server.BaseHTTPRequestHandler):
    body = b"red\t#f00\ngreen\t#0f0\n"

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/tab-separated-values")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()

    def do_GET(self):
        self.do_HEAD()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


def _rows(server, sql):
    return [json.loads(line) for line in server.query(sql + " FORMAT JSONEachRow").splitlines()]


def _error(response):
    return response.status, response.headers.get("X-ClickHouse-Exception-Code"), response.text


def _start(tmp_path, files, extra=""):
    (tmp_path / "conf" / "dicts").mkdir(parents=True)
    (tmp_path / "data").mkdir()
    for name, text in files.items():
        (tmp_path / "conf" / "dicts" / name).write_text(text)
    config = tmp_path / "conf" / "server.toml"
    config.write_text('dictionaries_config = "dicts/*"\n' + extra)
    return Server(str(tmp_path / "db"), ["--config", str(config)]).start()


def test_config_dictionaries_of_every_source_and_layout(tmp_path):
    http_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Tsv)
    threading.Thread(target=http_server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{http_server.server_address[1]}/colors.tsv"
    files = {"regions.xml": REGIONS_XML, "prices.toml": PRICES_TOML.replace("{url}", url)}
    s = _start(tmp_path, files)
    (tmp_path / "conf" / "data").mkdir()
    (tmp_path / "conf" / "data" / "regions.tsv").write_text("1\t0\tEarth\n2\t1\tEurope\n3\t2\tFrance\n4\t2\tSpain\n")
    try:
        rows = _rows(s, "SELECT database, name, uuid, status, origin, type, `key.names`, `key.types`, `attribute.names`, comment FROM system.dictionaries ORDER BY name")
        conf = tmp_path / "conf" / "dicts"
        assert rows == [
            {"database": "", "name": "colors", "uuid": "00000000-0000-0000-0000-000000000000", "status": "NOT_LOADED", "origin": str(conf / "prices.toml"),
             "type": "ComplexKeyHashed", "key.names": ["code"], "key.types": ["String"], "attribute.names": ["rgb"], "comment": ""},
            {"database": "", "name": "networks", "uuid": "00000000-0000-0000-0000-000000000000", "status": "NOT_LOADED", "origin": str(conf / "regions.xml"),
             "type": "Trie", "key.names": ["prefix"], "key.types": ["String"], "attribute.names": ["asn"], "comment": ""},
            {"database": "", "name": "prices", "uuid": "00000000-0000-0000-0000-000000000000", "status": "NOT_LOADED", "origin": str(conf / "prices.toml"),
             "type": "RangeHashed", "key.names": ["id"], "key.types": ["UInt64"], "attribute.names": ["price"], "comment": ""},
            {"database": "", "name": "regions", "uuid": "00000000-0000-0000-0000-000000000000", "status": "NOT_LOADED", "origin": str(conf / "regions.xml"),
             "type": "Hashed", "key.names": ["id"], "key.types": ["UInt64"], "attribute.names": ["parent", "name"], "comment": ""},
        ]
        # FILE source (relative to the XML file), hierarchy, null_value with an entity.
        assert s.query("SELECT dictGet('regions', 'name', toUInt64(3)), dictGet('regions', 'name', toUInt64(9)), dictGetHierarchy('regions', 3), "
                       "arraySort(dictGetChildren('regions', 2)), dictIsIn('regions', 4, 1)") == "France\tunknown & unseen\t[3,2,1]\t[3,4]\t1\n"
        assert s.query("SELECT * FROM dictionary('regions') ORDER BY id") == "1\t0\tEarth\n2\t1\tEurope\n3\t2\tFrance\n4\t2\tSpain\n"
        # CLICKHOUSE source: a table in `default`, created after the server started.
        s.query("CREATE TABLE networks_src (prefix String, asn UInt32) ENGINE = MergeTree ORDER BY prefix")
        s.query("INSERT INTO networks_src VALUES ('10.0.0.0/8', 1), ('10.1.0.0/16', 2)")
        assert s.query("SELECT dictGet('networks', 'asn', IPv4StringToNum('10.1.2.3')), dictGet('networks', 'prefix', IPv4StringToNum('10.9.9.9')), "
                       "dictGet('networks', 'asn', '10.1.0.1')") == "2\t10.0.0.0/8\t2\n"
        # A QUERY source, RANGE_HASHED from TOML.
        assert s.query("SELECT dictGet('prices', 'price', 1, toDate('2024-01-10')), dictGet('prices', 'price', 1, toDate('2024-02-10'))") == "10.5\t-1\n"
        # An HTTP source.
        assert s.query("SELECT dictGet('colors', 'rgb', 'green'), dictGet('colors', 'rgb', 'blue'), dictHas('colors', 'red')") == "#0f0\t?\t1\n"
        # joinGet names a table of the current database, whatever the configuration defines.
        s.query("CREATE TABLE colors (code String, rgb String) ENGINE = Join(ANY, LEFT, code)")
        s.query("INSERT INTO colors VALUES ('red', 'crimson')")
        assert s.query("SELECT joinGet('colors', 'rgb', 'red'), dictGet('colors', 'rgb', 'red')") == "crimson\t#f00\n"
        rows = _rows(s, "SELECT name, status, element_count, last_exception FROM system.dictionaries ORDER BY name")
        assert [(r["name"], r["status"], r["element_count"], r["last_exception"]) for r in rows] == [
            ("colors", "LOADED", 2, ""), ("networks", "LOADED", 2, ""), ("prices", "LOADED", 1, ""), ("regions", "LOADED", 4, "")]
        # Unqualified names find the configuration's dictionary first; db.name the SQL one.
        s.query("CREATE DICTIONARY regions (id UInt64, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(QUERY 'SELECT toUInt64(3) AS id, \\'from SQL\\' AS name')) LAYOUT(HASHED()) LIFETIME(0)")
        assert s.query("SELECT dictGet('regions', 'name', toUInt64(3)), dictGet('default.regions', 'name', toUInt64(3))") == "France\tfrom SQL\n"
        assert s.query("SELECT database, name FROM system.dictionaries WHERE name = 'regions' ORDER BY database") == "\tregions\ndefault\tregions\n"
        assert s.query("SHOW DICTIONARIES") == "regions\n"
        # DROP DICTIONARY takes the database's; then the configuration's cannot be dropped.
        s.query("DROP DICTIONARY regions")
        status, code, text = _error(s.request("DROP DICTIONARY regions"))
        assert (status, code) == (404, "60") and "is defined in the configuration file" in text and "regions.xml" in text, text
        s.query("DROP DICTIONARY IF EXISTS regions")
        assert s.query("SELECT dictGet('regions', 'name', toUInt64(4))") == "Spain\n"
    finally:
        http_server.shutdown()
        assert s.stop() == 0


def test_config_dictionary_reloads_and_broken_files(tmp_path):
    squares = """<dictionaries><dictionary><name>squares</name>
      <source><clickhouse><query>SELECT number AS n, number * number AS sq FROM numbers(5)</query></clickhouse></source>
      <layout><flat/></layout>
      <structure><id><name>n</name></id><attribute><name>sq</name><type>UInt64</type><null_value>{null_value}</null_value></attribute></structure>
      <lifetime>0</lifetime></dictionary></dictionaries>"""
    files = {
        "squares.xml": squares.format(null_value=7),
        "broken.xml": "<clickhouse><dictionary><name>half</name>\n",
        "bad_layout.xml": "<clickhouse><dictionary><name>bad_layout</name><source><clickhouse><table>t</table></clickhouse></source>"
                          "<layout><nonsense/></layout><structure><id><name>id</name></id><attribute><name>v</name><type>String</type></attribute>"
                          "</structure></dictionary></clickhouse>",
        "no_source.toml": '[[dictionary]]\nname = "no_source"\nlayout = "hashed"\n[dictionary.structure.id]\nname = "id"\n',
    }
    s = _start(tmp_path, files)
    conf = tmp_path / "conf" / "dicts"
    try:
        rows = {r["name"]: r for r in _rows(s, "SELECT name, status, origin, error_count, last_exception FROM system.dictionaries")}
        assert set(rows) == {"squares", "broken", "bad_layout", "no_source"}, rows
        assert rows["broken"]["status"] == "FAILED" and rows["broken"]["origin"] == str(conf / "broken.xml")
        assert rows["broken"]["last_exception"].startswith("Code: 347. DB::Exception: Cannot load dictionaries from") and "not valid XML" in rows["broken"]["last_exception"]
        assert rows["bad_layout"]["status"] == "FAILED" and "Unknown dictionary layout type: nonsense" in rows["bad_layout"]["last_exception"]
        assert rows["bad_layout"]["last_exception"].endswith("(UNKNOWN_ELEMENT_IN_CONFIG)")
        assert "Element <dictionary.source> is missing" in rows["no_source"]["last_exception"], rows["no_source"]
        assert rows["squares"]["status"] == "NOT_LOADED" and rows["squares"]["error_count"] == 0
        # A broken definition is that dictionary's error; the others work.
        status, code, text = _error(s.request("SELECT dictGet('bad_layout', 'v', 1)"))
        assert (code, "Unknown dictionary layout type: nonsense" in text) == ("137", True), text
        assert s.query("SELECT dictGet('squares', 'sq', 3), dictGet('squares', 'sq', 30)") == "9\t7\n"
        # SYSTEM RELOAD DICTIONARY reads the changed file (a new null value).
        (conf / "squares.xml").write_text(squares.format(null_value=1000))
        s.query("SYSTEM RELOAD DICTIONARY squares")
        assert s.query("SELECT dictGet('squares', 'sq', 30), status FROM system.dictionaries WHERE name = 'squares'") == "1000\tLOADED\n"
        # Fixed and removed files, by SYSTEM RELOAD DICTIONARIES.
        (conf / "broken.xml").write_text(squares.format(null_value=0).replace("squares", "half"))
        (conf / "bad_layout.xml").unlink()
        s.query("SYSTEM RELOAD DICTIONARIES")
        assert s.query("SELECT name, status FROM system.dictionaries ORDER BY name") == "half\tNOT_LOADED\nno_source\tFAILED\nsquares\tLOADED\n"
        assert s.query("SELECT dictGet('half', 'sq', 4)") == "16\n"
        status, code, text = _error(s.request("SELECT dictGet('bad_layout', 'v', 1)"))
        assert code == "36" and "Dictionary (`default.bad_layout`) not found" in text, text
        status, code, text = _error(s.request("SYSTEM RELOAD DICTIONARY no_source"))
        assert code == "139" and "dictionary.source" in text, text
        # A new file is found within seconds, without any statement.
        (conf / "late.xml").write_text(squares.format(null_value=0).replace("squares", "late"))
        deadline = time.time() + 20
        while s.query("SELECT count() FROM system.dictionaries WHERE name = 'late'") != "1\n":
            assert time.time() < deadline, "late.xml was not read"
            time.sleep(0.5)
        assert s.query("SELECT dictGet('late', 'sq', 2)") == "4\n"
        # Two files defining one name: the first file (in path order) wins.
        (conf / "zz_duplicate.xml").write_text(squares.format(null_value=5).replace("numbers(5)", "numbers(1)"))
        s.query("SYSTEM RELOAD DICTIONARIES")
        assert s.query("SELECT origin FROM system.dictionaries WHERE name = 'squares'") == str(conf / "squares.xml") + "\n"
        assert s.alive()
    finally:
        assert s.stop() == 0


def test_config_dictionaries_need_a_global_dictget_grant(tmp_path):
    squares = ("<clickhouse><dictionary><name>squares</name><source><clickhouse><query>SELECT number AS n, number * number AS sq FROM numbers(5)</query>"
               "</clickhouse></source><layout><flat/></layout><structure><id><name>n</name></id><attribute><name>sq</name><type>UInt64</type>"
               "</attribute></structure></dictionary></clickhouse>")
    users = ('[users.default]\naccess_management = true\n'
             '[users.reader]\npassword = "pw"\ngrants = ["SELECT ON default.*"]\n'
             '[users.looker]\npassword = "pw"\ngrants = ["dictGet ON *.*"]\n')
    s = _start(tmp_path, {"squares.xml": squares}, users)
    try:
        denied = s.request("SELECT dictGet('squares', 'sq', 2)", params={"user": "reader", "password": "pw"})
        assert denied.headers.get("X-ClickHouse-Exception-Code") == "497", denied.text
        allowed = s.request("SELECT dictGet('squares', 'sq', 2)", params={"user": "looker", "password": "pw"})
        assert (allowed.status, allowed.text) == (200, "4\n"), allowed.text
    finally:
        assert s.stop() == 0
