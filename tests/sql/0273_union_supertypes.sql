-- UNION ALL columns take ClickHouse's least supertype: String with FixedString is String
-- (trailing zero bytes dropped, as CAST), Date with Date32 is Date32, DateTime64 takes
-- the largest precision (with that branch's time zone), Date32 with DateTime is
-- DateTime64(0); Nullable when a branch is.
SELECT x, toTypeName(x), length(x) FROM (SELECT 'ab' AS x UNION ALL SELECT toFixedString('cd', 3)) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toFixedString('cd', 3) AS x UNION ALL SELECT toFixedString('abcd', 4)) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toNullable('ab') AS x UNION ALL SELECT toFixedString('cd', 3) UNION ALL SELECT NULL) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toDate('2020-01-02') AS x UNION ALL SELECT toDate32('1960-01-02')) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toNullable(toDate('2020-01-02')) AS x UNION ALL SELECT toDate32('1960-01-02')) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toDateTime64('2020-01-02 03:04:05.123', 3, 'UTC') AS x UNION ALL SELECT toDateTime64('2020-01-02 03:04:05.123456', 6, 'UTC')) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toDateTime64('2020-01-02 03:04:05.1', 1, 'Asia/Tokyo') AS x UNION ALL SELECT toDateTime64('2020-01-02 03:04:05.123456', 6, 'UTC')) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toDateTime64('2020-01-02 03:04:05.1', 1, 'UTC') AS x UNION ALL SELECT NULL UNION ALL SELECT toDateTime64('2020-01-02 03:04:05.123456', 6, 'UTC')) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toDateTime('2020-01-02 03:04:05', 'UTC') AS x UNION ALL SELECT toDateTime64('2020-01-02 03:04:05.12', 2, 'UTC')) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toDate('2020-01-02') AS x UNION ALL SELECT toDateTime64('2020-01-02 03:04:05.12', 2, 'UTC')) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toDate32('2020-01-02') AS x UNION ALL SELECT toDateTime('2020-01-02 03:04:05', 'UTC')) ORDER BY x;
