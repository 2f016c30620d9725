-- Hierarchical dictionaries: a HIERARCHICAL UInt64 attribute holds the parent key; dictGetHierarchy, dictIsIn, dictGetChildren, dictGetDescendants walk it, cycles included
CREATE TABLE regions (id UInt64, parent UInt64, name String) ENGINE = MergeTree ORDER BY id;
INSERT INTO regions VALUES (1, 0, 'Earth'), (2, 1, 'Europe'), (3, 1, 'Asia'), (4, 2, 'France'), (5, 4, 'Paris'), (6, 99, 'Orphan'), (7, 7, 'Self'), (8, 9, 'LoopA'), (9, 8, 'LoopB'), (10, 8, 'IntoLoop'), (11, 2, 'Germany'), (12, 11, 'Berlin');
CREATE DICTIONARY regions_flat (id UInt64, parent UInt64 HIERARCHICAL, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'regions')) LAYOUT(FLAT()) LIFETIME(0);
CREATE DICTIONARY regions_hashed (id UInt64, parent UInt64 HIERARCHICAL, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'regions')) LAYOUT(HASHED()) LIFETIME(0);
CREATE DICTIONARY regions_array (id UInt64, parent UInt64 HIERARCHICAL, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'regions')) LAYOUT(HASHED_ARRAY()) LIFETIME(0);
CREATE DICTIONARY regions_sparse (id UInt64, parent UInt64 HIERARCHICAL, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'regions')) LAYOUT(SPARSE_HASHED()) LIFETIME(0);
-- Up the tree: stops at a missing key, at the null value (0), on a cycle; keys of one block reuse earlier chains
SELECT number, dictGetHierarchy('regions_flat', number), dictGetHierarchy('regions_hashed', number), dictGetHierarchy('regions_array', number), dictGetHierarchy('regions_sparse', number) FROM numbers(14) ORDER BY number;
SELECT number, dictGetHierarchy('regions_hashed', number) FROM numbers(14) WHERE number IN (9, 10) ORDER BY number;
SELECT number, dictIsIn('regions_flat', number, 1), dictIsIn('regions_flat', number, 2), dictIsIn('regions_flat', number, number), dictIsIn('regions_flat', number, 8), dictIsIn('regions_hashed', number, 99), dictIsIn('regions_hashed', number, 0) FROM numbers(14) ORDER BY number;
SELECT dictGetHierarchy('regions_flat', toUInt8(5)), dictGetHierarchy('regions_flat', toInt32(12)), dictGetHierarchy('regions_flat', '4'), dictIsIn('regions_hashed', toUInt16(12), '2'), dictGet('regions_hashed', 'parent', 5), dictGet('regions_hashed', 'name', dictGet('regions_hashed', 'parent', 12));
-- Down the tree: children in the layout's key order (ascending for FLAT, source order for HASHED_ARRAY, hash table order for HASHED and SPARSE_HASHED)
SELECT number, dictGetChildren('regions_flat', number), dictGetChildren('regions_hashed', number), dictGetChildren('regions_array', number), dictGetChildren('regions_sparse', number) FROM numbers(14) ORDER BY number;
SELECT number, dictGetDescendants('regions_flat', number), dictGetDescendants('regions_hashed', number), dictGetDescendants('regions_array', number, 0) FROM numbers(14) ORDER BY number;
SELECT number, dictGetDescendants('regions_flat', number, 1), dictGetDescendants('regions_flat', number, 2), dictGetDescendants('regions_hashed', number, 2), dictGetDescendants('regions_hashed', number, 3) FROM numbers(14) ORDER BY number;
SELECT dictGetDescendants('regions_flat', 1, toUInt8(2)), dictGetChildren('regions_flat', 0), arrayMap(x -> dictGet('regions_flat', 'name', x), dictGetDescendants('regions_flat', 2));
SELECT toTypeName(dictGetHierarchy('regions_flat', 5)), toTypeName(dictIsIn('regions_flat', 5, 1)), toTypeName(dictGetChildren('regions_flat', 5)), toTypeName(dictGetDescendants('regions_flat', 5, 1));
SHOW CREATE DICTIONARY regions_flat;
-- DEFAULT sets the null value: a parent equal to it ends the walk up, but still has its children
CREATE DICTIONARY regions_default (id UInt64, parent UInt64 DEFAULT 2 HIERARCHICAL, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'regions')) LAYOUT(FLAT()) LIFETIME(0);
SELECT number, dictGetHierarchy('regions_default', number), dictGetChildren('regions_default', number), dictGetDescendants('regions_default', number) FROM numbers(14) ORDER BY number;
-- A NULL parent ends the walk and has no children
CREATE TABLE tree (id UInt64, parent Nullable(UInt64)) ENGINE = MergeTree ORDER BY id;
INSERT INTO tree VALUES (1, NULL), (2, 1), (3, 2), (4, 2);
CREATE DICTIONARY tree_dict (id UInt64, parent Nullable(UInt64) HIERARCHICAL) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'tree')) LAYOUT(HASHED()) LIFETIME(0);
SELECT dictGetHierarchy('tree_dict', 3), dictGetChildren('tree_dict', 1), dictGetDescendants('tree_dict', 1), dictIsIn('tree_dict', 3, 1), dictGetChildren('tree_dict', 0);
-- A larger HASHED tree: children come in ClickHouse's hash table order
CREATE TABLE big_tree (id UInt64, parent UInt64) ENGINE = MergeTree ORDER BY id;
INSERT INTO big_tree SELECT number + 1, intDiv(number, 3) FROM numbers(3000);
CREATE DICTIONARY big_tree_dict (id UInt64, parent UInt64 HIERARCHICAL) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'big_tree')) LAYOUT(HASHED()) LIFETIME(0);
SELECT number, dictGetChildren('big_tree_dict', number), dictGetDescendants('big_tree_dict', number, 2), length(dictGetDescendants('big_tree_dict', number)), dictGetHierarchy('big_tree_dict', number * 97) FROM numbers(12) ORDER BY number;
SELECT count(), sum(x) FROM (SELECT arrayJoin(dictGetDescendants('big_tree_dict', number)) AS x FROM numbers(100));
-- Only CACHE and DIRECT walk up without listing children
CREATE DICTIONARY regions_cache (id UInt64, parent UInt64 HIERARCHICAL, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'regions')) LAYOUT(CACHE(SIZE_IN_CELLS 100)) LIFETIME(0);
CREATE DICTIONARY regions_direct (id UInt64, parent UInt64 HIERARCHICAL, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'regions')) LAYOUT(DIRECT());
SELECT dictGetHierarchy('regions_cache', 12), dictIsIn('regions_cache', 12, 1), dictGetHierarchy('regions_direct', 10), dictIsIn('regions_direct', 5, 3);
SELECT dictGetChildren('regions_cache', 1); -- { serverError NOT_IMPLEMENTED }
SELECT dictGetDescendants('regions_direct', 1); -- { serverError NOT_IMPLEMENTED }
-- Errors
CREATE DICTIONARY plain (id UInt64, parent UInt64, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'regions')) LAYOUT(HASHED()) LIFETIME(0);
SELECT dictGetHierarchy('plain', 5); -- { serverError UNSUPPORTED_METHOD }
SELECT dictIsIn('plain', 5, 1); -- { serverError UNSUPPORTED_METHOD }
CREATE DICTIONARY complex (id UInt64, parent UInt64 HIERARCHICAL, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'regions')) LAYOUT(COMPLEX_KEY_HASHED()) LIFETIME(0); -- { serverError BAD_ARGUMENTS }
CREATE DICTIONARY wrong_type (id UInt64, parent UInt32 HIERARCHICAL, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'regions')) LAYOUT(HASHED()) LIFETIME(0); -- { serverError TYPE_MISMATCH }
CREATE DICTIONARY two (id UInt64, parent UInt64 HIERARCHICAL, other UInt64 HIERARCHICAL) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'regions')) LAYOUT(HASHED()) LIFETIME(0); -- { serverError BAD_ARGUMENTS }
SELECT dictGetHierarchy('regions_flat', -5); -- { serverError CANNOT_CONVERT_TYPE }
SELECT dictGetDescendants('regions_flat', 1, -1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dictGetDescendants('regions_flat', 1, 1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dictGetDescendants('regions_flat', 1, number) FROM numbers(2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT dictGetDescendants('regions_flat', 1, 1, 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT dictGetChildren('regions_flat', 1, 1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT dictGetHierarchy('regions_flat'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT dictGetHierarchy('no_such_dict', 1); -- { serverError BAD_ARGUMENTS }
-- A repeated key: hashed layouts keep its first row, FLAT (and CACHE, DIRECT) the last; the dictionary shows the rows it answers with
CREATE TABLE repeated (id UInt64, parent UInt64, name String) ENGINE = Memory;
INSERT INTO repeated VALUES (3, 0, 'first'), (1, 0, 'one'), (3, 1, 'last');
CREATE DICTIONARY repeated_hashed (id UInt64, parent UInt64 HIERARCHICAL, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'repeated')) LAYOUT(HASHED()) LIFETIME(0);
CREATE DICTIONARY repeated_flat (id UInt64, parent UInt64 HIERARCHICAL, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'repeated')) LAYOUT(FLAT()) LIFETIME(0);
CREATE DICTIONARY repeated_complex (id UInt64, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'repeated')) LAYOUT(COMPLEX_KEY_HASHED()) LIFETIME(0);
SELECT dictGet('repeated_hashed', 'name', 3), dictGet('repeated_flat', 'name', 3), dictGet('repeated_complex', 'name', toUInt64(3)), dictGetHierarchy('repeated_hashed', 3), dictGetHierarchy('repeated_flat', 3), dictGetChildren('repeated_hashed', 0), dictGetChildren('repeated_flat', 0);
SELECT * FROM repeated_hashed ORDER BY id;
SELECT * FROM repeated_flat ORDER BY id;
SELECT name, element_count FROM system.dictionaries WHERE name LIKE 'repeated%' ORDER BY name;
-- Many cycles: parents drawn from a permutation-like formula, some keys missing
CREATE TABLE cyclic (id UInt64, parent UInt64) ENGINE = MergeTree ORDER BY id;
INSERT INTO cyclic SELECT number, (number * 7919 + 13) % 2100 FROM numbers(2000);
CREATE DICTIONARY cyclic_hashed (id UInt64, parent UInt64 HIERARCHICAL) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'cyclic')) LAYOUT(HASHED()) LIFETIME(0);
CREATE DICTIONARY cyclic_flat (id UInt64, parent UInt64 HIERARCHICAL) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'cyclic')) LAYOUT(FLAT()) LIFETIME(0);
SELECT sum(length(dictGetHierarchy('cyclic_hashed', number))), sum(length(dictGetHierarchy('cyclic_flat', number))), sum(length(dictGetDescendants('cyclic_hashed', number))), sum(length(dictGetDescendants('cyclic_flat', number))), sum(length(dictGetDescendants('cyclic_flat', number, 3))) FROM numbers(2200);
SELECT number, dictGetHierarchy('cyclic_hashed', number), dictGetDescendants('cyclic_hashed', number), dictGetDescendants('cyclic_flat', number, 2), dictIsIn('cyclic_hashed', number, 13) FROM numbers(2200) WHERE number % 97 = 0 ORDER BY number;
