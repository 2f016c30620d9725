-- EXCHANGE TABLES a AND b swaps two tables (structure, engine and data); RENAME TABLE with several pairs
DROP TABLE IF EXISTS ex_a;
DROP TABLE IF EXISTS ex_b;
DROP TABLE IF EXISTS ex_c;
DROP TABLE IF EXISTS ex_d;
CREATE TABLE ex_a (x UInt8) ENGINE = MergeTree ORDER BY x;
CREATE TABLE ex_b (y String, z Float64) ENGINE = Memory;
INSERT INTO ex_a VALUES (1), (2);
INSERT INTO ex_b VALUES ('q', 0.5);
EXCHANGE TABLES ex_a AND ex_b;
SELECT * FROM ex_a;
SELECT * FROM ex_b ORDER BY x;
SELECT name, engine FROM system.tables WHERE database = currentDatabase() AND name LIKE 'ex\_%' ORDER BY name;
DESCRIBE TABLE ex_a;
INSERT INTO ex_b VALUES (3);
SELECT count() FROM ex_b;
EXCHANGE TABLES ex_a AND ex_b;
SELECT * FROM ex_a ORDER BY x;
EXCHANGE TABLES ex_a AND ex_a;
SELECT count() FROM ex_a;
EXCHANGE TABLES ex_a AND no_such_table; -- { serverError UNKNOWN_TABLE }
EXCHANGE TABLES no_such_table AND ex_a; -- { serverError UNKNOWN_TABLE }
SELECT count() FROM ex_a;
RENAME TABLE ex_a TO ex_c, ex_b TO ex_d;
SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE 'ex\_%' ORDER BY name;
SELECT * FROM ex_c ORDER BY x;
RENAME TABLE ex_c TO ex_d; -- { serverError TABLE_ALREADY_EXISTS }
RENAME TABLE no_such_table TO ex_e; -- { serverError UNKNOWN_TABLE }
EXCHANGE TABLES ex_c AND ex_d;
SELECT * FROM ex_d ORDER BY x;
SELECT * FROM ex_c;
DROP DATABASE IF EXISTS test_0635_exchange_rename_tables_from;
DROP DATABASE IF EXISTS test_0635_exchange_rename_tables_to;
CREATE DATABASE test_0635_exchange_rename_tables_from;
CREATE TABLE test_0635_exchange_rename_tables_from.r (n UInt8) ENGINE = MergeTree ORDER BY n;
INSERT INTO test_0635_exchange_rename_tables_from.r VALUES (5);
RENAME DATABASE test_0635_exchange_rename_tables_from TO test_0635_exchange_rename_tables_to;
SELECT * FROM test_0635_exchange_rename_tables_to.r;
SELECT count() FROM system.databases WHERE name = 'test_0635_exchange_rename_tables_from';
SELECT database, name FROM system.tables WHERE database LIKE 'test\_0635\_exchange\_rename\_tables\_%' ORDER BY name;
RENAME DATABASE test_0635_exchange_rename_tables_nope TO test_0635_exchange_rename_tables_x; -- { serverError UNKNOWN_DATABASE }
RENAME DATABASE test_0635_exchange_rename_tables_to TO test_0635_exchange_rename_tables; -- { serverError DATABASE_ALREADY_EXISTS }
EXCHANGE TABLES test_0635_exchange_rename_tables_to.r AND ex_c;
SELECT * FROM ex_c;
DROP DATABASE test_0635_exchange_rename_tables_to;
