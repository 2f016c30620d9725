-- Log, TinyLog and StripeLog: append-only tables on disk
CREATE TABLE lg (a UInt8, s String, arr Array(Nullable(Int32))) ENGINE = Log;
CREATE TABLE tl (a UInt8, d DateTime('UTC')) ENGINE = TinyLog;
CREATE TABLE sl (k String, v Decimal(9, 2)) ENGINE = StripeLog;
INSERT INTO lg VALUES (1, 'a', [1, NULL]), (2, 'b', []);
INSERT INTO lg SELECT number, toString(number), [number] FROM numbers(3);
SELECT * FROM lg ORDER BY a, s;
SELECT count(), sum(a) FROM lg;
INSERT INTO tl VALUES (7, '2024-01-02 03:04:05');
SELECT * FROM tl;
INSERT INTO sl SELECT toString(number), number / 4 FROM numbers(5);
SELECT * FROM sl ORDER BY k;
SELECT name, engine, engine_full, total_rows FROM system.tables WHERE database = currentDatabase() ORDER BY name;
SHOW CREATE TABLE lg;
SHOW CREATE TABLE sl;
-- A failed INSERT leaves nothing behind
INSERT INTO tl SELECT throwIf(number = 5), now() FROM numbers(10) SETTINGS max_block_size = 2; -- { serverError FUNCTION_THROW_IF_VALUE_IS_NON_ZERO }
SELECT count() FROM tl;
TRUNCATE TABLE lg;
SELECT count() FROM lg;
INSERT INTO lg VALUES (9, 'z', [9]);
SELECT * FROM lg;
CREATE TABLE bad (a UInt8) ENGINE = Log(1); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT name FROM system.table_engines WHERE name IN ('Log', 'TinyLog', 'StripeLog') ORDER BY name;
DROP TABLE lg;
DROP TABLE tl;
DROP TABLE sl;
