"""azureBlobStorage() and azureBlobStorageCluster() against a local Azurite
(scripts/azure_server.sh), compared with chdb's azureBlobStorage() reading the same blobs:
connection strings and storage account URLs with keys, globs, formats, the positional
overloads, INSERT INTO FUNCTION (single and block uploads, truncate / new file, a missing
container created first), hive partitioning, named collections and errors. Skipped when node/npm are missing."""
import os
import shutil
import subprocess

import pytest

chdb = pytest.importorskip("chdb")

ACCOUNT = "devstoreaccount1"
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


def ch(sql: str) -> str:
    return chdb.query(sql, "TSV").bytes().decode()


def error(server, sql):
    r = server.request(sql)
    assert r.status != 200, f"{sql} succeeded: {r.text}"
    return r.text


@pytest.fixture(scope="module")
def azurite(tmp_path_factory):
    """The blob endpoint of a fresh Azurite, stopped by PID at the end of the module."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Azurite needs node and npm, which are not installed")
    script = os.path.join(os.path.dirname(__file__), "..", "scripts", "azure_server.sh")
    data = str(tmp_path_factory.mktemp("azurite"))
    try:
        out = subprocess.run(["bash", script, "start", data], check=True, capture_output=True, text=True, timeout=600)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        pytest.fail(f"Azurite did not start: {getattr(e, 'stderr', e)}")
    yield out.stdout.strip()
    subprocess.run(["bash", script, "stop", data], check=False, timeout=60)


@pytest.fixture(scope="module")
def blobs(azurite):
    """Blobs written by chdb (which also creates the container); returns the connection string."""
    cs = f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={KEY};BlobEndpoint={azurite};"
    rows = "SELECT number AS id, toString(number * 7) AS name, number / 4 AS score FROM numbers({start}, {n})"
    for i in range(1, 4):
        ch(f"INSERT INTO FUNCTION azureBlobStorage('{cs}', 'granary', 'csv/part-{i}.csv', 'CSVWithNames') " + rows.format(start=i * 100, n=50))
    ch(f"INSERT INTO FUNCTION azureBlobStorage('{cs}', 'granary', 'data.parquet') " + rows.format(start=0, n=5000))
    ch(f"INSERT INTO FUNCTION azureBlobStorage('{cs}', 'granary', 'data.csv.gz', 'CSVWithNames') " + rows.format(start=0, n=1000))
    for year in (2023, 2024):
        ch(f"INSERT INTO FUNCTION azureBlobStorage('{cs}', 'granary', 'hive/year={year}/data.parquet') " + rows.format(start=year, n=10))
    return cs


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM azureBlobStorage('{cs}', 'granary', 'csv/part-1.csv') ORDER BY id",
        "DESCRIBE azureBlobStorage('{cs}', 'granary', 'data.parquet')",
        "SELECT count(), sum(id), max(name) FROM azureBlobStorage('{cs}', 'granary', 'csv/*.csv')",
        "SELECT _path, _file, count() FROM azureBlobStorage('{cs}', 'granary', 'csv/part-{1,3}.csv') GROUP BY _path, _file ORDER BY _path",
        "SELECT _file, _etag, toTypeName(_etag), count() FROM azureBlobStorage('{cs}', 'granary', 'csv/part-{1,3}.csv') GROUP BY ALL ORDER BY _file",
        "SELECT count(), sum(id), sum(score) FROM azureBlobStorage('{cs}', 'granary', 'data.parquet') WHERE id % 7 = 3",
        "SELECT count(), sum(id) FROM azureBlobStorage('{cs}', 'granary', 'data.csv.gz')",
        "SELECT count(), sum(id) FROM azureBlobStorage('{cs}', 'granary', 'data.csv.gz', 'CSVWithNames', 'gzip', 'id UInt64, name String, score Float64')",
        "SELECT count(), sum(id) FROM azureBlobStorage('{url}', 'granary', 'csv/*.csv', '%s', '%s')" % (ACCOUNT, KEY),
        "SELECT * FROM azureBlobStorage('{url}', 'granary', 'csv/part-2.csv', '%s', '%s', 'CSVWithNames', 'none', 'id UInt8, name String, score Float32') ORDER BY id LIMIT 3" % (ACCOUNT, KEY),
        "SELECT year, count(), sum(id) FROM azureBlobStorage('{cs}', 'granary', 'hive/**.parquet') WHERE year = 2024 GROUP BY year",
    ],
)
def test_azure_matches_chdb(server, azurite, blobs, query):
    sql = query.replace("{cs}", blobs).replace("{url}", azurite)
    ours = server.query(sql + " FORMAT TSV")
    theirs = ch(sql)
    if query.startswith("DESCRIBE"):
        ours = "\n".join("\t".join(l.split("\t")[:2]) for l in ours.splitlines())
        theirs = "\n".join("\t".join(l.split("\t")[:2]) for l in theirs.splitlines())
    assert ours == theirs


def test_azure_cluster_on_one_node_reads_like_azure(server, blobs):
    query = "SELECT count(), sum(id) FROM {f}('%s', 'granary', 'csv/*.csv')" % blobs
    assert server.query(query.format(f="azureBlobStorageCluster").replace("Cluster(", "Cluster('default', ")) == ch(query.format(f="azureBlobStorage"))


def test_insert_into_function_azure(server, blobs):
    q = server.query
    target = f"azureBlobStorage('{blobs}', 'granary', 'written/a.parquet')"
    q(f"INSERT INTO FUNCTION {target} SELECT number AS id, toString(number) AS s FROM numbers(5000)")
    assert ch(f"SELECT count(), sum(id), max(s) FROM {target}") == "5000\t12497500\t999\n"
    text = error(server, f"INSERT INTO FUNCTION {target} SELECT 1 AS id, 'x' AS s")
    assert "Code: 36" in text and "azure_truncate_on_insert" in text
    q(f"INSERT INTO FUNCTION {target} SELECT 1 AS id, 'x' AS s SETTINGS azure_create_new_file_on_insert = 1")
    q(f"INSERT INTO FUNCTION {target} SELECT 2 AS id, 'y' AS s SETTINGS azure_truncate_on_insert = 1")
    assert ch(f"SELECT _file, count() FROM azureBlobStorage('{blobs}', 'granary', 'written/a*.parquet') GROUP BY _file ORDER BY _file") == "a.1.parquet\t1\na.parquet\t1\n"
    # Larger than azure_max_single_part_upload_size: uploaded as blocks of 5 MiB.
    q(
        f"INSERT INTO FUNCTION azureBlobStorage('{blobs}', 'granary', 'written/big.csv.zst', 'CSVWithNames') SELECT number AS id, repeat('x', 50) AS pad FROM numbers(400000) "
        "SETTINGS azure_max_single_part_upload_size = 1048576, azure_min_upload_part_size = 5242880, output_format_compression_level = 1"
    )
    assert ch(f"SELECT count(), sum(id), sum(length(pad)) FROM azureBlobStorage('{blobs}', 'granary', 'written/big.csv.zst')") == "400000\t79999800000\t20000000\n"
    # PARTITION BY into {_partition_id}, and hive partitioning into a prefix.
    q(f"INSERT INTO FUNCTION azureBlobStorage('{blobs}', 'granary', 'written/p_{{_partition_id}}.csv', 'CSV', 'auto', 'k UInt64, v String') PARTITION BY v SELECT number, toString(number % 2) FROM numbers(9)")
    assert ch(f"SELECT _file, count(), sum(k) FROM azureBlobStorage('{blobs}', 'granary', 'written/p_*.csv', 'CSV', 'auto', 'k UInt64, v String') GROUP BY _file ORDER BY _file") == "p_0.csv\t5\t20\np_1.csv\t4\t16\n"
    q(f"INSERT INTO FUNCTION azureBlobStorage('{blobs}', 'granary', 'written/hive/', 'Parquet') PARTITION BY k SELECT number AS id, number % 3 AS k FROM numbers(30)")
    assert ch(f"SELECT k, count(), sum(id) FROM azureBlobStorage('{blobs}', 'granary', 'written/hive/**.parquet') GROUP BY k ORDER BY k") == "0\t10\t135\n1\t10\t145\n2\t10\t155\n"
    # A failing SELECT leaves no blob.
    error(server, f"INSERT INTO FUNCTION azureBlobStorage('{blobs}', 'granary', 'written/failed.csv') SELECT throwIf(number = 70000, 'boom') AS x FROM numbers(100000) SETTINGS max_block_size = 1000")
    assert ch(f"SELECT count() FROM azureBlobStorage('{blobs}', 'granary', 'written/failed*', 'CSV', 'auto', 'x String')") == "0\n"


def test_insert_creates_missing_container(server, azurite, blobs):
    # ClickHouse's writing client creates a container that does not exist; reads do not.
    glob = f"azureBlobStorage('{blobs}', 'made-by-insert', '*.csv', 'CSV', 'auto', 'id UInt64, s String')"
    assert "ContainerNotFound" in error(server, f"SELECT count() FROM {glob}")
    target = f"azureBlobStorage('{blobs}', 'made-by-insert', 'x.csv', 'CSV')"
    server.query(f"INSERT INTO FUNCTION {target} SELECT number AS id, toString(number * 2) AS s FROM numbers(100)")
    check = f"SELECT count(), sum(id), max(s) FROM {glob}"
    assert server.query(check) == ch(check) == "100\t4950\t98\n"
    # The container exists now: a second INSERT writes beside the first blob.
    server.query(f"INSERT INTO FUNCTION azureBlobStorage('{blobs}', 'made-by-insert', 'y.csv', 'CSV') SELECT 1000 AS id, 'z' AS s")
    assert server.query(check) == ch(check) == "101\t5950\tz\n"
    # A storage account URL with the account name and key signs the same requests.
    by_url = f"azureBlobStorage('{azurite}', 'made-by-url', 'data.parquet', '{ACCOUNT}', '{KEY}')"
    server.query(f"INSERT INTO FUNCTION {by_url} SELECT number AS id FROM numbers(10)")
    assert server.query(f"SELECT count(), sum(id) FROM {by_url}") == ch(f"SELECT count(), sum(id) FROM {by_url}") == "10\t45\n"
    # A wrong key cannot create the container.
    wrong = KEY.replace("Eby8", "AAAA")
    text = error(server, f"INSERT INTO FUNCTION azureBlobStorage('{azurite}', 'never-made', 'a.csv', '{ACCOUNT}', '{wrong}', 'CSV') SELECT 1 AS x")
    assert "Code: 500" in text and "never-made" in text, text
    assert "ContainerNotFound" in error(server, f"SELECT count() FROM azureBlobStorage('{blobs}', 'never-made', '*.csv', 'CSV', 'auto', 'x UInt8')")


def test_azure_named_collection(server, blobs):
    server.query(f"CREATE NAMED COLLECTION nc_azure AS connection_string = '{blobs}', container = 'granary', format = 'CSVWithNames'")
    try:
        expected = ch(f"SELECT count(), sum(id) FROM azureBlobStorage('{blobs}', 'granary', 'csv/*.csv')")
        assert server.query("SELECT count(), sum(id) FROM azureBlobStorage(nc_azure, blob_path = 'csv/*.csv')") == expected
        assert "Code: 36" in error(server, "SELECT * FROM azureBlobStorage(nc_azure)")
    finally:
        server.query("DROP NAMED COLLECTION nc_azure")


def test_azure_errors(server, azurite, blobs):
    # ClickHouse reports these as STD_EXCEPTION (1001) from the Azure SDK; Granary as
    # AZURE_BLOB_STORAGE_ERROR (500).
    text = error(server, f"SELECT * FROM azureBlobStorage('{blobs}', 'granary', 'nope.csv', 'CSV', 'auto', 'a String')")
    assert "Code: 500" in text and "AZURE_BLOB_STORAGE_ERROR" in text and "granary/nope.csv" in text
    text = error(server, f"SELECT * FROM azureBlobStorage('{blobs}', 'no-such-container', 'a.csv', 'CSV', 'auto', 'a String')")
    assert "Code: 500" in text and "container) does not exist" in text
    text = error(server, f"SELECT * FROM azureBlobStorage('{blobs}', 'no-such-container', '*.csv', 'CSV', 'auto', 'a String')")
    assert "Code: 500" in text and "ContainerNotFound" in text, text
    wrong = KEY.replace("Eby8", "AAAA")
    assert "Code: 500" in error(server, f"SELECT * FROM azureBlobStorage('{azurite}', 'granary', 'csv/part-1.csv', '{ACCOUNT}', '{wrong}', 'CSV', 'auto', 'a String')")
    assert server.query(f"SELECT count() FROM azureBlobStorage('{blobs}', 'granary', 'none-*.csv', 'CSV', 'auto', 'a String')") == "0\n"
    assert "Code: 107" in error(server, f"SELECT count() FROM azureBlobStorage('{blobs}', 'granary', 'none-*.csv', 'CSV', 'auto', 'a String') SETTINGS azure_throw_on_zero_files_match = 1")
    assert "Code: 42" in error(server, f"SELECT * FROM azureBlobStorage('{blobs}', 'granary')")
    assert "Code: 36" in error(server, "SELECT * FROM azureBlobStorage('not a connection string', 'granary', 'a.csv')")
