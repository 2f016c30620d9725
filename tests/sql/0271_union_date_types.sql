-- UNION ALL of Date with DateTime is DateTime (in the DateTime's time zone), Nullable
-- when a branch is.
SELECT x, toTypeName(x) FROM (SELECT toDate('2020-01-02') AS x UNION ALL SELECT toDateTime('2020-01-02 03:04:05', 'UTC')) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toNullable(toDate('2020-01-02')) AS x UNION ALL SELECT toDateTime('2020-01-02 03:04:05', 'UTC') UNION ALL SELECT NULL) ORDER BY x;
SELECT x, toTypeName(x) FROM (SELECT toDateTime('2021-05-06 07:08:09', 'UTC') AS x UNION ALL SELECT toDate('2020-01-02')) ORDER BY x;
