-- Constant lookups (dictGet*, dictHas, joinGet* with constant arguments and no FROM) sent again with other literals: the fast path remembers the parsed query by its normalized text and answers without parsing; every flavour gives what the planned path (FROM system.one) gives, NULLs, defaults, formats, settings and errors included
CREATE TABLE src (id UInt64, name String, v Float64) ENGINE = MergeTree ORDER BY id;
INSERT INTO src VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, 'c', 3.5);
CREATE DICTIONARY d (id UInt64, name String DEFAULT 'none', v Float64 DEFAULT -1) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'src')) LAYOUT(HASHED()) LIFETIME(0);
SELECT dictGet('d', 'name', toUInt64(1));
SELECT dictGet('d', 'name', toUInt64(2));
SELECT dictGet('d', 'name', toUInt64(9));
SELECT dictGet('d', 'name', toUInt64(3)) FROM system.one;
SELECT dictGetFloat64('d', 'v', toUInt64(1)), dictGetString('d', 'name', toUInt32(2));
SELECT dictGetFloat64('d', 'v', toUInt64(7)), dictGetString('d', 'name', toUInt32(3));
SELECT dictGetFloat64('d', 'v', toUInt64(3)), dictGetString('d', 'name', toUInt32(8)) FROM system.one;
SELECT dictGetOrDefault('d', 'name', toUInt64(5), 'dflt');
SELECT dictGetOrDefault('d', 'name', toUInt64(1), 'other');
SELECT dictGetOrDefault('d', 'name', toUInt64(6), 'other') FROM system.one;
SELECT dictGetOrNull('d', 'v', toUInt64(2)), dictGetOrNull('d', 'v', toUInt64(8));
SELECT dictGetOrNull('d', 'v', toUInt64(9)), dictGetOrNull('d', 'v', toUInt64(3));
SELECT dictGetOrNull('d', 'v', toUInt64(9)), dictGetOrNull('d', 'v', toUInt64(3)) FROM system.one;
SELECT dictHas('d', toUInt64(1)), dictHas('d', toUInt64(5));
SELECT dictHas('d', toUInt64(6)), dictHas('d', toUInt64(2));
SELECT dictHas('d', toUInt64(6)), dictHas('d', toUInt64(2)) FROM system.one;
SELECT dictGet('d', 'name', toUInt64(2)) AS x FORMAT JSONEachRow;
SELECT dictGet('d', 'name', toUInt64(3)) AS x FORMAT JSONEachRow;
SELECT dictGetFloat64('d', 'v', toUInt64(1)), dictGetOrNull('d', 'name', toUInt64(9)) FORMAT TSVWithNamesAndTypes;
SELECT dictGetFloat64('d', 'v', toUInt64(2)), dictGetOrNull('d', 'name', toUInt64(1)) FORMAT TSVWithNamesAndTypes;
SELECT dictGetFloat64('d', 'v', toUInt64(2)), dictGetOrNull('d', 'name', toUInt64(1)) FROM system.one FORMAT TSVWithNamesAndTypes;
SELECT dictGet('d', 'name', toUInt64(1)) SETTINGS max_threads = 1;
SELECT dictGet('d', 'name', toUInt64(2)) SETTINGS max_threads = 2;
SELECT dictGet('d', 'name', toUInt64(3)) SETTINGS max_threads = 1;
SELECT dictGet('d', 'name', toUInt8(1));
SELECT dictGet('d', 'name', toUInt8(258));
SELECT dictGetString('d', 'name', toUInt64(dictGetFloat64('d', 'v', toUInt64(2))));
SELECT dictGetString('d', 'name', toUInt64(dictGetFloat64('d', 'v', toUInt64(3))));
SELECT dictGet('d', 'nope', toUInt64(2)); -- { serverError BAD_ARGUMENTS }
SELECT dictGetString('d', 'name', toUInt64(2));
SELECT dictGetString('d', 'v', toUInt64(2)); -- { serverError TYPE_MISMATCH }
CREATE TABLE j (id UInt64, name String, v Float64) ENGINE = Join(ANY, LEFT, id);
INSERT INTO j SELECT id, name, v FROM src;
SELECT joinGet('j', 'name', toUInt64(1)), joinGet('j', 'v', toUInt64(1));
SELECT joinGet('j', 'name', toUInt64(7)), joinGet('j', 'v', toUInt64(3));
SELECT joinGet('j', 'name', toUInt64(2)), joinGet('j', 'v', toUInt64(8)) FROM system.one;
SELECT joinGetOrNull('j', 'name', toUInt64(2)), joinGetOrNull('j', 'v', toUInt64(9));
SELECT joinGetOrNull('j', 'name', toUInt64(8)), joinGetOrNull('j', 'v', toUInt64(1));
SELECT joinGetOrNull('j', 'name', toUInt64(8)), joinGetOrNull('j', 'v', toUInt64(1)) FROM system.one;
SELECT joinGet('j', 'nope', toUInt64(1)); -- { serverError NO_SUCH_COLUMN_IN_TABLE }
SELECT joinGet('no_such_join', 'name', toUInt64(1)); -- { serverError UNKNOWN_TABLE }
DROP DICTIONARY d;
SELECT dictGet('d', 'name', toUInt64(2)); -- { serverError BAD_ARGUMENTS }
DROP TABLE j;
SELECT joinGet('j', 'name', toUInt64(2)); -- { serverError UNKNOWN_TABLE }
