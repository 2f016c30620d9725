-- How a join's `*` names its columns (a name two tables share is qualified by the right
-- table's alias), and USING without brackets
CREATE TABLE jl (a UInt64, b UInt64) ENGINE = Memory;
CREATE TABLE jr (a UInt64, c UInt64) ENGINE = Memory;
INSERT INTO jl VALUES (1, 2), (3, 4);
INSERT INTO jr VALUES (1, 5), (7, 8);
SELECT * FROM jl JOIN jr ON jl.a = jr.a FORMAT TSVWithNames;
SELECT * FROM jl JOIN jr USING (a) FORMAT TSVWithNames;
SELECT * FROM jl JOIN jr USING a FORMAT TSVWithNames;
SELECT * FROM jl AS x JOIN jl AS y ON x.a = y.a ORDER BY x.a FORMAT TSVWithNames;
SELECT *, 1 FROM jl AS x JOIN jl AS y ON x.a = y.a ORDER BY x.a FORMAT TSVWithNames;
SELECT x.*, y.* FROM jl AS x JOIN jl AS y ON x.a = y.a ORDER BY x.a FORMAT TSVWithNames;
SELECT * FROM jl AS x JOIN (SELECT 1 AS a, 5 AS b) AS y ON x.a = y.a FORMAT TSVWithNames;
SELECT * FROM jl AS x LEFT JOIN jr AS y ON x.a = y.a ORDER BY x.a FORMAT JSONEachRow;
SELECT * FROM jl AS x JOIN jl AS y USING a ORDER BY a FORMAT TSVWithNames;
SELECT count() FROM jl JOIN jr USING a WHERE c > 0;
SELECT * EXCEPT (b) FROM jl AS x JOIN jr AS y ON x.a = y.a FORMAT TSVWithNames;
