"""EXPLAIN indexes = 1: what index analysis selected for each MergeTree read, in the
layout of ClickHouse's `Indexes:` section (the parts and granules match chdb's for the
same table and query; the plan above it is DataFusion's, so no golden file)."""


def test_explain_indexes_shows_partition_and_primary_key_selection(server):
    db = "test_explain_indexes"
    server.query(f"DROP DATABASE IF EXISTS {db}")
    server.query(f"CREATE DATABASE {db}")
    server.query(
        f"CREATE TABLE {db}.est (d Date, k UInt32, v String) ENGINE = MergeTree "
        "PARTITION BY toYYYYMM(d) ORDER BY (k, toDate(d)) SETTINGS index_granularity = 4"
    )
    server.query(f"INSERT INTO {db}.est SELECT toDate('2024-01-01') + number % 60, number, toString(number) FROM numbers(100)")
    text = server.query(f"EXPLAIN indexes = 1 SELECT count() FROM {db}.est WHERE k > 50 AND d >= '2024-02-01'")
    section = text[text.index("ReadFromMergeTree"):]
    assert section == (
        f"ReadFromMergeTree ({db}.est)\n"
        "  Indexes:\n"
        "    Partition\n"
        "      Keys:\n"
        "        toYYYYMM(d)\n"
        "      Parts: 1/2\n"
        "      Granules: 10/26\n"
        "    PrimaryKey\n"
        "      Keys:\n"
        "        k\n"
        "        toDate(d)\n"
        "      Parts: 1/1\n"
        "      Granules: 6/10\n"
        "    Ranges: 1\n"
    ), section
    # Without indexes = 1 (or with 0) there is no such section.
    assert "ReadFromMergeTree" not in server.query(f"EXPLAIN indexes = 0 SELECT count() FROM {db}.est WHERE k > 50")
    server.query(f"DROP DATABASE {db}")
