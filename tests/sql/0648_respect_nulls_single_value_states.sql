-- any_respect_nulls / anyLast_respect_nulls states in ClickHouse's bytes: a status byte (1 nothing, 2 NULL, 3 a value), then the value.
SELECT hex(any_respect_nullsState(x)), hex(anyLast_respect_nullsState(x)) FROM (SELECT arrayJoin([NULL, 1, 2]) AS x);
SELECT hex(any_respect_nullsState(x)), hex(anyLast_respect_nullsState(x)) FROM (SELECT arrayJoin([3, 1, 2]) AS x);
SELECT hex(any_respect_nullsState(toNullable('ab'))), hex(anyLast_respect_nullsState('ab'));
SELECT hex(anyLast_respect_nullsState(x)) FROM (SELECT arrayJoin([1, 2, NULL]) AS x);
SELECT hex(any_respect_nullsState(number)), hex(any_respect_nullsState(toString(number))) FROM numbers(0);
SELECT any_respect_nullsMerge(s), toTypeName(any(s)) FROM (SELECT any_respect_nullsState(x) AS s FROM (SELECT arrayJoin([NULL, 1, 2]) AS x));
SELECT any_respect_nullsMerge(s) FROM (SELECT any_respect_nullsState(toNullable('ab')) AS s);
SELECT anyLast_respect_nullsMerge(s) FROM (SELECT anyLast_respect_nullsState(x) AS s FROM (SELECT arrayJoin([1, 2, 7]) AS x));
SELECT finalizeAggregation(s) FROM (SELECT any_respect_nullsState(toNullable(toFloat64(number) / 4)) AS s FROM numbers(3) GROUP BY number ORDER BY number);

-- singleValueOrNull states in ClickHouse's bytes: its single-value cell (the first value).
SELECT hex(singleValueOrNullState(x)) FROM (SELECT arrayJoin([1, 1]) AS x);
SELECT hex(singleValueOrNullState(x)) FROM (SELECT arrayJoin([1, 2]) AS x);
SELECT hex(singleValueOrNullState(number)), hex(singleValueOrNullState(toString(number))) FROM numbers(0);
SELECT hex(singleValueOrNullState(toString(number))) FROM numbers(1);
SELECT hex(singleValueOrNullState(toString(number))) FROM numbers(2);
SELECT hex(singleValueOrNullState(x)) FROM (SELECT arrayJoin([NULL, 5]) AS x);
SELECT singleValueOrNull(number % 1), singleValueOrNull(number) FROM numbers(10);
SELECT k, singleValueOrNull(intDiv(number, 5)) FROM numbers(10) GROUP BY number % 5 AS k ORDER BY k;
SELECT singleValueOrNullMerge(s) FROM (SELECT singleValueOrNullState(toString(number % 1)) AS s FROM numbers(4) GROUP BY number % 2);
