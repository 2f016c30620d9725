-- PRIMARY KEY in the column list and on columns: the engine's primary key, and its sorting key without ORDER BY
CREATE TABLE p1 (a UInt64 PRIMARY KEY, b String) ENGINE = MergeTree;
SHOW CREATE TABLE p1;
CREATE TABLE p2 (a UInt64, b String, PRIMARY KEY (a, b)) ENGINE = MergeTree;
SHOW CREATE TABLE p2;
CREATE TABLE p3 (a UInt64, b String, PRIMARY KEY a) ENGINE = MergeTree ORDER BY (a, b);
SHOW CREATE TABLE p3;
CREATE TABLE p4 (a UInt64 PRIMARY KEY, b String PRIMARY KEY) ENGINE = MergeTree;
SHOW CREATE TABLE p4;
CREATE TABLE p5 (a UInt64 PRIMARY KEY, b String) ENGINE = MergeTree PRIMARY KEY b; -- { serverError BAD_ARGUMENTS }
CREATE TABLE p6 (a UInt64 PRIMARY KEY) ENGINE = Memory; -- { serverError BAD_ARGUMENTS }
CREATE TABLE p7 (a UInt64 DEFAULT 1 PRIMARY KEY, b String) ENGINE = MergeTree;
SHOW CREATE TABLE p7;
INSERT INTO p1 VALUES (2, 'x'), (1, 'y');
SELECT * FROM p1;
SELECT primary_key, sorting_key FROM system.tables WHERE database = currentDatabase() ORDER BY name;
