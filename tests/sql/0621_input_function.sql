-- no-chdb: chdb runs INSERT ... FROM input() without passing it the data that follows FORMAT (its tables stay empty)
-- input(structure): the data of INSERT ... SELECT ... FROM input(...) FORMAT X, converted by the SELECT
CREATE TABLE t (a UInt32, s String, d Date) ENGINE = Memory;
INSERT INTO t SELECT x * 100, upper(y), toDate('2024-01-01') + x FROM input('x UInt16, y String') FORMAT JSONEachRow
{"x": 1, "y": "one"}
{"x": 2, "y": "two"}
{"x": 300, "y": "many"}
;
SELECT * FROM t ORDER BY a;
INSERT INTO t (s, a) SELECT concat(k, '!'), length(k) FROM input('k String') WHERE k != 'skip' FORMAT JSONEachRow
{"k": "abc"}
{"k": "skip"}
{"k": "de"}
;
SELECT * FROM t ORDER BY a, s;
SELECT name FROM system.table_functions WHERE name = 'input';
