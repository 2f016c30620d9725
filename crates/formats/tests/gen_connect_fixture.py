#!/usr/bin/env python3
"""Writes tests/fixtures/connect.Native: a Native insert body as clickhouse-connect
(pip clickhouse-connect 1.12) serializes it, for tests/binary.rs."""
import os
from clickhouse_connect.datatypes.registry import get_from_name
from clickhouse_connect.driver.insert import InsertContext
from clickhouse_connect.driver.transform import NativeTransform

COLUMNS = [("lc", "LowCardinality(String)"), ("lcn", "LowCardinality(Nullable(String))"), ("ni", "Nullable(Int32)"),
           ("arr", "Array(LowCardinality(String))"), ("m", "Map(String, Nullable(UInt64))")]
ROWS = [["b", None, 1, ["x", "y"], {"k": 1}], ["a", "x", None, [], {}], ["b", "", 3, ["x"], {"n": None}]]

ctx = InsertContext("t", [n for n, _ in COLUMNS], [get_from_name(t) for _, t in COLUMNS], data=ROWS, compression=None)
body = b"".join(NativeTransform.build_insert(ctx))
# The query text goes first when it is sent in the body; the server parses it.
body = body[body.index(b"\n") + 1 :]
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "connect.Native")
with open(path, "wb") as f:
    f.write(body)
print(len(body), body.hex(" "))
