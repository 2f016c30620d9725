-- groupBitmap: distinct integers, with ClickHouse's state bytes (small set, then Roaring).
SELECT groupBitmap(number % 7), toTypeName(groupBitmap(number)), toTypeName(groupBitmapState(toUInt16(number))) FROM numbers(20);
SELECT groupBitmap(toInt32(number) - 5), groupBitmap(toNullable(number)), groupBitmap(toUInt8(number)), groupBitmap(toUInt8(number % 255)) FROM numbers(300);
SELECT groupBitmap(toUInt8(number)) FROM numbers(0);
SELECT hex(groupBitmapState(toUInt32(number))) FROM numbers(3);
SELECT hex(groupBitmapState(toUInt8(number % 3))) FROM numbers(10);
SELECT hex(groupBitmapState(toUInt8(number))) FROM numbers(0);
SELECT hex(groupBitmapState(toInt8(number) - 1)), hex(groupBitmapState(toInt16(number) - 1)), hex(groupBitmapState(toInt32(number) - 1)) FROM numbers(2);
SELECT hex(groupBitmapState(toUInt32(number))) FROM numbers(5000);
SELECT hex(groupBitmapState(toUInt32(number * 3))) FROM numbers(40);
SELECT hex(groupBitmapState(number * 1000)) FROM numbers(40);
SELECT cityHash64(hex(groupBitmapState(toUInt32(number * 7919 % 200000)))), length(hex(groupBitmapState(toUInt32(number * 7919 % 200000)))) FROM numbers(30000);
SELECT cityHash64(hex(groupBitmapState(number * 4294967311))) FROM numbers(100);
SELECT cityHash64(hex(groupBitmapState(toUInt16(number * 13)))) FROM numbers(5000);
SELECT groupBitmapMerge(s) FROM (SELECT groupBitmapState(toUInt32(number % 50)) AS s FROM numbers(100) GROUP BY number % 3);
SELECT k, groupBitmap(number) FROM numbers(100) GROUP BY number % 4 AS k ORDER BY k;
SELECT groupBitmap(1.5); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT groupBitmap('a'); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
-- States round-trip through an AggregatingMergeTree table.
CREATE TABLE bitmaps (k UInt8, b AggregateFunction(groupBitmap, UInt32)) ENGINE = AggregatingMergeTree ORDER BY k;
INSERT INTO bitmaps SELECT number % 2, groupBitmapState(toUInt32(number)) FROM numbers(10) GROUP BY number % 2;
INSERT INTO bitmaps SELECT number % 2, groupBitmapState(toUInt32(number * 5)) FROM numbers(100) GROUP BY number % 2;
INSERT INTO bitmaps SELECT 1, groupBitmapState(toUInt32(number)) FROM numbers(3);
SELECT k, groupBitmapMerge(b) FROM bitmaps GROUP BY k ORDER BY k;
OPTIMIZE TABLE bitmaps FINAL;
SELECT k, hex(b) FROM bitmaps ORDER BY k;
SELECT k, groupBitmapMerge(b) FROM bitmaps GROUP BY k ORDER BY k;
