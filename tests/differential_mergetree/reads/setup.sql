-- Scans that read many small granules per block, so the reader decodes them straight into
-- one array per column (reader.rs GranuleConcat): NULLs in some granules only, strings,
-- value transforms (Delta, Gorilla), FixedString, Bool (decoded granule by granule).
CREATE DATABASE IF NOT EXISTS rd;
CREATE TABLE rd.t (
    id UInt64,
    d Int64 CODEC(Delta, LZ4),
    g Float64 CODEC(Gorilla, LZ4),
    s String,
    ns Nullable(String),
    ni Nullable(UInt32),
    fs FixedString(3),
    b Bool
) ENGINE = MergeTree ORDER BY id SETTINGS index_granularity = 100;
SYSTEM STOP MERGES rd.t;
INSERT INTO rd.t SELECT
    number,
    number * 3 - 1000,
    number / 8,
    concat('s', toString(number % 977)),
    if(number % 5 = 0 OR intDiv(number, 1000) % 3 = 1, NULL, repeat('x', number % 13)),
    if(number % 7 = 0 OR intDiv(number, 100) % 4 = 2, NULL, toUInt32(number % 1000)),
    toFixedString(toString(number % 1000), 3),
    number % 3 = 0
FROM numbers(100000);
INSERT INTO rd.t SELECT number + 100000, number, number, 'tail', 'tail', number, 'abc', true FROM numbers(555);
