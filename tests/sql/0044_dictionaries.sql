CREATE TABLE src (id UInt64, name String, v Float64) ENGINE = MergeTree ORDER BY id;
INSERT INTO src VALUES (1, 'a', 1.5), (2, 'b', 2.5);
CREATE DICTIONARY d (id UInt64, name String DEFAULT 'none', v Float64) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'src')) LAYOUT(HASHED()) LIFETIME(MIN 0 MAX 1000);
CREATE DICTIONARY d (id UInt64, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'src')) LAYOUT(HASHED()) LIFETIME(0); -- { serverError DICTIONARY_ALREADY_EXISTS }
CREATE DICTIONARY IF NOT EXISTS d (id UInt64, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'src')) LAYOUT(HASHED()) LIFETIME(0);
SELECT dictGet('d', 'name', toUInt64(1)), dictGet('d', 'name', toUInt64(5)), dictGetOrDefault('d', 'name', 5, 'dd');
SELECT dictHas('d', 2), dictHas('d', 3), dictGetOrNull('d', 'v', 7), toTypeName(dictGetOrNull('d', 'v', 7)), dictGetFloat64('d', 'v', 2);
SELECT number, dictGet('d', 'name', number), dictGetOrDefault('d', 'v', number, toFloat64(-1)) FROM numbers(4) ORDER BY number;
SELECT dictGetString('d', 'v', 1); -- { serverError TYPE_MISMATCH }
SELECT dictGet('d', 'nope', 1); -- { serverError BAD_ARGUMENTS }
SELECT dictGet('no_such_dictionary', 'name', 1); -- { serverError BAD_ARGUMENTS }
SELECT dictGet('d', 'name', -1); -- { serverError CANNOT_CONVERT_TYPE }
SELECT * FROM d ORDER BY id;
SELECT id, name FROM dictionary('d') ORDER BY id;
SELECT * FROM dictionary('no_such'); -- { serverError BAD_ARGUMENTS }
SELECT name, engine FROM system.tables WHERE database = currentDatabase() AND name = 'd';
SELECT name, status, type, `key.names`, `key.types`, `attribute.names`, `attribute.types`, element_count, lifetime_min, lifetime_max FROM system.dictionaries WHERE database = currentDatabase() ORDER BY name;
INSERT INTO src VALUES (3, 'c', 3.5);
SYSTEM RELOAD DICTIONARY d;
SELECT dictGet('d', 'name', toUInt64(3)), dictGetUInt64OrDefault('d', 'id', 3, 0); -- { serverError BAD_ARGUMENTS }
SELECT dictGet('d', 'name', toUInt64(3));
CREATE DICTIONARY d2 (k String, name String, n UInt32 DEFAULT 42) PRIMARY KEY k SOURCE(CLICKHOUSE(QUERY 'SELECT name AS k, name, toUInt32(id) AS n FROM test_0044_dictionaries.src')) LAYOUT(COMPLEX_KEY_HASHED()) LIFETIME(0);
SELECT dictGet('d2', 'name', 'a'), dictGet('d2', 'n', 'c'), dictGet('d2', 'n', 'zz');
SELECT dictGetString('d', 'name', dictGetUInt32('d2', 'n', 'b'));
CREATE DICTIONARY d3 (a UInt64, b String, val Float64) PRIMARY KEY a, b SOURCE(CLICKHOUSE(QUERY 'SELECT id AS a, name AS b, v AS val FROM test_0044_dictionaries.src')) LAYOUT(COMPLEX_KEY_HASHED()) LIFETIME(0);
CREATE DICTIONARY d4 (id UInt64, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'src')) LAYOUT(FLAT()) LIFETIME(0);
SELECT dictGet('d4', 'name', toUInt64(2));
CREATE DICTIONARY d5 (id UInt64, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'src')) LAYOUT(DIRECT());
SELECT dictGet('d5', 'name', toUInt64(1));
INSERT INTO src VALUES (4, 'd', 4.5);
SELECT dictGet('d5', 'name', toUInt64(4));
SHOW DICTIONARIES;
DROP DICTIONARY d4;
SHOW DICTIONARIES;
RENAME DICTIONARY d5 TO d6;
SELECT dictGet('d6', 'name', toUInt64(2));
SHOW DICTIONARIES;
