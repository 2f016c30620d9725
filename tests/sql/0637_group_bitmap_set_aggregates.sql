-- groupBitmapAnd/Or/Xor over bitmaps, their -State forms (groupBitmap states, as in
-- ClickHouse) and states that round-trip through tables and hex.
SELECT groupBitmapAnd(b), groupBitmapOr(b), groupBitmapXor(b) FROM (SELECT bitmapBuild([1, 2, 3]::Array(UInt32)) AS b UNION ALL SELECT bitmapBuild([2, 3, 4]::Array(UInt32)));
SELECT toTypeName(groupBitmapAndState(b)), toTypeName(groupBitmapOrState(b)), toTypeName(groupBitmapXorState(b)), toTypeName(groupBitmapAnd(b)) FROM (SELECT bitmapBuild([1, 2, 3]::Array(UInt32)) AS b);
SELECT groupBitmapAnd(b), hex(groupBitmapAndState(b)), groupBitmapOr(b), hex(groupBitmapOrState(b)) FROM (SELECT bitmapBuild([1, 2, 3]::Array(UInt32)) AS b WHERE 0);
SELECT groupBitmapAnd(b) FROM (SELECT groupBitmapState(x) AS b FROM (SELECT 1::UInt32 AS x WHERE 0));
SELECT toTypeName(groupBitmapAnd(b)), groupBitmapAnd(b), groupBitmapOr(b) FROM (SELECT bitmapBuild(range(300)::Array(UInt8)) AS b);
SELECT groupBitmapAnd(b) FROM (SELECT groupBitmapState(number::UInt8) AS b FROM numbers(256));
SELECT bitmapCardinality(groupBitmapOrState(bitmapBuild([1::UInt32]))), bitmapToArray(groupBitmapOrState(bitmapBuild([1::UInt32])));
SELECT finalizeAggregation(groupBitmapXorState(bitmapBuild([1, 2]::Array(UInt32)))), hex(groupBitmapXorState(bitmapBuild([1, 2]::Array(UInt32))));
CREATE TABLE tags (tag String, ids AggregateFunction(groupBitmap, UInt32)) ENGINE = AggregatingMergeTree ORDER BY tag;
INSERT INTO tags SELECT 'even', groupBitmapState(toUInt32(number * 2)) FROM numbers(50);
INSERT INTO tags SELECT 'small', groupBitmapState(toUInt32(number)) FROM numbers(20);
INSERT INTO tags SELECT 'threes', groupBitmapState(toUInt32(number * 3)) FROM numbers(40);
SELECT groupBitmapAnd(ids), groupBitmapOr(ids), groupBitmapXor(ids) FROM tags;
SELECT bitmapToArray(groupBitmapAndState(ids)), groupBitmapOr(ids), bitmapCardinality(groupBitmapXorState(ids)) FROM tags WHERE tag IN ('even', 'threes');
SELECT arraySort(bitmapToArray(groupBitmapAndState(ids))) FROM tags WHERE tag IN ('small', 'threes');
SELECT tag, bitmapCardinality(ids), bitmapMin(ids), bitmapMax(ids), bitmapContains(ids, toUInt32(18)), hex(ids) FROM tags ORDER BY tag;
SELECT a.tag, b.tag, bitmapAndCardinality(a.ids, b.ids), bitmapOrCardinality(a.ids, b.ids), bitmapHasAll(a.ids, b.ids), bitmapToArray(bitmapSubsetLimit(bitmapAnd(a.ids, b.ids), 10, 3)) FROM tags AS a, tags AS b ORDER BY a.tag, b.tag;
-- A -State of the set aggregates fits a groupBitmap column and merges there.
CREATE TABLE merged (k UInt8, b AggregateFunction(groupBitmap, UInt32)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO merged SELECT 1, groupBitmapAndState(ids) FROM tags WHERE tag IN ('even', 'threes');
INSERT INTO merged SELECT 1, groupBitmapOrState(ids) FROM tags WHERE tag = 'small';
OPTIMIZE TABLE merged FINAL;
SELECT k, bitmapCardinality(b), hex(b) FROM merged ORDER BY k;
SELECT k, groupBitmapMerge(b), groupBitmapAnd(b) FROM merged GROUP BY k ORDER BY k;
SELECT k, groupBitmapXor(ids) FROM (SELECT number % 2 AS k, bitmapBuild([toUInt16(number), toUInt16(number + 1)]) AS ids FROM numbers(10)) GROUP BY k ORDER BY k;
SELECT groupBitmapAnd(x) FROM (SELECT 1::UInt32 AS x); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT groupBitmapOrState(s) FROM (SELECT 1 AS s); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT groupBitmapAnd(b, b) FROM (SELECT bitmapBuild([1]) AS b); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT groupBitmapXor(1)(b) FROM (SELECT bitmapBuild([1]) AS b); -- { serverError AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS }
