-- SHOW CREATE TABLE and DESCRIBE over all foundation types, defaults and comments
CREATE TABLE all_types
(
    u8 UInt8, u16 UInt16, u32 UInt32, u64 UInt64,
    i8 Int8, i16 Int16, i32 Int32, i64 Int64,
    f32 Float32, f64 Float64, b Bool,
    s String, fs FixedString(3),
    d Date, d32 Date32, dt DateTime, dt64 DateTime64(3), dt64_6 DateTime64(6),
    dec Decimal(10, 2), dec38 Decimal(38, 10), dec32 Decimal32(4), dec64 Decimal64(2),
    n Nullable(Int32), ns Nullable(String), lc LowCardinality(String), lcn LowCardinality(Nullable(String)),
    a Array(UInt8), aa Array(Array(String)), an Array(Nullable(Float64))
) ENGINE = Memory;
SHOW CREATE TABLE all_types;
DESCRIBE TABLE all_types;
DESC all_types;
SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = 'all_types' ORDER BY position;
CREATE TABLE with_defaults
(
    id UInt64,
    name String DEFAULT 'anonymous',
    score Float64 DEFAULT 1.5 COMMENT 'the score',
    created Date DEFAULT '2024-01-01',
    flag UInt8 DEFAULT 1 COMMENT 'a flag'
) ENGINE = Memory COMMENT 'table with defaults';
SHOW CREATE TABLE with_defaults;
DESCRIBE with_defaults;
DESCRIBE TABLE with_defaults FORMAT TSVWithNames;
SELECT name, default_kind, default_expression, comment FROM system.columns WHERE database = currentDatabase() AND table = 'with_defaults' ORDER BY position;
SELECT comment FROM system.tables WHERE database = currentDatabase() AND name = 'with_defaults';
CREATE TABLE nul (x UInt8, y String) ENGINE = Null;
SHOW CREATE TABLE nul;
SHOW CREATE nul;
SHOW CREATE TABLE nul FORMAT TSVRaw;
SHOW CREATE TABLE missing; -- { serverError CANNOT_GET_CREATE_TABLE_QUERY }
DESCRIBE missing; -- { serverError UNKNOWN_TABLE }
DESCRIBE (SELECT 1 AS a, 'x' AS b, [1.5] AS c, NULL AS d);
DESCRIBE numbers(3);
DESCRIBE system.one;
DESCRIBE system.numbers;
