-- system.dictionaries: statuses, attribute types (range columns are not attributes), and SYSTEM RELOAD DICTIONARIES reloading only dictionaries that were loaded or tried to load
CREATE DICTIONARY ranges_dict (id UInt64, a Date, b Date, price Float64) PRIMARY KEY id SOURCE(CLICKHOUSE(QUERY 'SELECT toUInt64(1) AS id, toDate(\'2024-01-01\') AS a, toDate(\'2024-12-31\') AS b, 1.5 AS price')) LAYOUT(RANGE_HASHED()) RANGE(MIN a MAX b) LIFETIME(0);
CREATE DICTIONARY missing_source (id UInt64, v String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'no_such_table')) LAYOUT(HASHED()) LIFETIME(0);
SELECT name, status, `key.names`, `attribute.names`, `attribute.types`, error_count, last_exception = '' FROM system.dictionaries WHERE database = currentDatabase() ORDER BY name;
SYSTEM RELOAD DICTIONARIES;
SELECT name, status FROM system.dictionaries WHERE database = currentDatabase() ORDER BY name;
SELECT dictGet('missing_source', 'v', 1); -- { serverError UNKNOWN_TABLE }
SELECT dictGet('ranges_dict', 'price', 1, toDate('2024-06-01'));
SELECT name, status, error_count, last_exception LIKE '%no_such_table%', element_count FROM system.dictionaries WHERE database = currentDatabase() ORDER BY name;
SYSTEM RELOAD DICTIONARIES; -- { serverError UNKNOWN_TABLE }
CREATE TABLE no_such_table (id UInt64, v String) ENGINE = MergeTree ORDER BY id;
INSERT INTO no_such_table VALUES (1, 'found');
SYSTEM RELOAD DICTIONARIES;
SELECT name, status, error_count, element_count FROM system.dictionaries WHERE database = currentDatabase() ORDER BY name;
SELECT dictGet('missing_source', 'v', 1);
