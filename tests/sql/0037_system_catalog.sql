-- system.databases, system.tables, system.columns (stable columns only) for this file's database
CREATE TABLE m (id UInt64, name String DEFAULT 'n/a' COMMENT 'who', amount Decimal(10, 2), tags Array(String), maybe Nullable(Float64)) ENGINE = Memory COMMENT 'memory table';
CREATE TABLE z (x UInt8) ENGINE = Null;
SELECT name, engine FROM system.databases WHERE name = currentDatabase();
SELECT name FROM system.databases WHERE name IN ('default', 'system', currentDatabase()) ORDER BY name;
SELECT database = currentDatabase(), name, engine, is_temporary, comment FROM system.tables WHERE database = currentDatabase() ORDER BY name;
SELECT name, create_table_query FROM system.tables WHERE database = currentDatabase() ORDER BY name;
SELECT name, engine_full FROM system.tables WHERE database = currentDatabase() ORDER BY name;
SELECT table, name, type, position, default_kind, default_expression, comment FROM system.columns WHERE database = currentDatabase() ORDER BY table, position;
SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'm';
SELECT name FROM system.tables WHERE database = 'system' AND name IN ('one', 'numbers', 'tables', 'columns', 'databases', 'settings', 'functions', 'build_options') ORDER BY name;
SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'one';
SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'numbers';
SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'databases' AND name IN ('name', 'engine', 'data_path', 'comment') ORDER BY name;
SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'tables' AND name IN ('database', 'name', 'engine', 'is_temporary', 'create_table_query', 'engine_full', 'comment', 'total_rows') ORDER BY name;
SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'columns' AND name IN ('database', 'table', 'name', 'type', 'position', 'default_kind', 'default_expression', 'comment') ORDER BY name;
DROP TABLE z;
SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name;
RENAME TABLE m TO m2;
SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name;
SELECT DISTINCT table FROM system.columns WHERE database = currentDatabase();
SHOW TABLES FROM system LIKE 'numbers%';
SELECT * FROM system.no_such_table; -- { serverError UNKNOWN_TABLE }
