CREATE TABLE st (id UInt64, name String DEFAULT 'x' COMMENT 'the name') ENGINE = Memory COMMENT 'a table';
SELECT name, engine FROM system.tables WHERE database = currentDatabase() ORDER BY name;
SELECT name, type, position, default_kind, default_expression, comment FROM system.columns WHERE database = currentDatabase() AND table = 'st' ORDER BY position;
SELECT name FROM system.databases WHERE name IN ('default', 'system') ORDER BY name;
SELECT count() > 0 FROM system.functions WHERE name IN ('count', 'toString', 'sum');
SELECT name, is_aggregate FROM system.functions WHERE name IN ('count', 'toString') ORDER BY name;
SELECT name, value FROM system.settings WHERE name = 'max_block_size';
SELECT count() FROM system.build_options WHERE name = 'VERSION_FULL';
SELECT * FROM system.no_such_table; -- { serverError UNKNOWN_TABLE }
