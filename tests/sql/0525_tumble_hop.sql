-- Window-view window functions: tumble, hop and their Start/End forms, over constants, columns and NULLs.
CREATE TABLE t (id UInt32, ts DateTime('UTC'), nts Nullable(DateTime('UTC'))) ENGINE = MergeTree ORDER BY id;
INSERT INTO t VALUES (1, '2020-01-01 12:34:56', '2020-01-01 12:34:56'), (2, '2020-02-29 23:59:59', NULL), (3, '1980-01-01 00:04:56', '2021-06-15 00:00:00'), (5, '1980-01-01 00:00:00', '1970-01-01 03:00:00'), (4, '2024-12-31 00:00:00', '2024-01-01 00:00:00');
SELECT tumble(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 10 MINUTE) AS w, toTypeName(w), tumbleStart(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 10 MINUTE) AS s, toTypeName(s), tumbleEnd(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 10 MINUTE) AS e;
SELECT tumble(toDateTime('2020-01-15 12:34:56', 'UTC'), INTERVAL 1 MONTH) AS a, toTypeName(a), tumble(toDateTime('2020-05-15 12:34:56', 'UTC'), INTERVAL 1 QUARTER), tumble(toDateTime('2020-05-15 12:34:56', 'UTC'), INTERVAL 2 YEAR), tumble(toDateTime('2020-05-15 12:34:56', 'UTC'), INTERVAL 1 WEEK), tumble(toDateTime('2020-05-15 12:34:56', 'UTC'), INTERVAL 3 DAY), tumble(toDateTime('2020-05-15 12:34:56', 'UTC'), INTERVAL 5 SECOND), tumble(toDateTime('2020-05-15 12:34:56', 'UTC'), INTERVAL 7 HOUR);
SELECT hop(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 5 MINUTE, INTERVAL 10 MINUTE) AS w, toTypeName(w), hopStart(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 5 MINUTE, INTERVAL 10 MINUTE), hopEnd(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 5 MINUTE, INTERVAL 10 MINUTE);
SELECT hop(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 3 MINUTE, INTERVAL 10 MINUTE), hop(toDateTime('2020-01-15 12:34:56', 'UTC'), INTERVAL 1 MONTH, INTERVAL 3 MONTH) AS m, toTypeName(m), hop(toDateTime('2020-01-15 12:34:56', 'UTC'), INTERVAL 1 DAY, INTERVAL 7 DAY);
SELECT tumble(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 1 HOUR, 'Asia/Kolkata') AS w, toTypeName(w), hop(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 1 DAY, INTERVAL 2 DAY, 'America/New_York') AS h, toTypeName(h);
SELECT tumbleStart(tumble(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 10 MINUTE)), tumbleEnd(tumble(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 10 MINUTE)), hopStart(hop(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 5 MINUTE, INTERVAL 15 MINUTE)), hopEnd(hop(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 5 MINUTE, INTERVAL 15 MINUTE));
SELECT tumble(toNullable(toDateTime('2020-01-01 12:34:56', 'UTC')), INTERVAL 10 MINUTE) AS w, toTypeName(w);
SELECT id, tumble(ts, INTERVAL 15 MINUTE), tumbleStart(ts, INTERVAL 1 WEEK), tumbleEnd(ts, INTERVAL 1 MONTH), hop(ts, INTERVAL 1 HOUR, INTERVAL 3 HOUR), hopStart(ts, INTERVAL 2 DAY, INTERVAL 4 DAY), hopEnd(ts, INTERVAL 1 YEAR, INTERVAL 2 YEAR) FROM t ORDER BY id;
SELECT id, tumble(nts, INTERVAL 1 DAY) AS w, toTypeName(w), tumbleEnd(nts, INTERVAL 1 DAY) AS e, toTypeName(e), hopStart(nts, INTERVAL 1 HOUR, INTERVAL 3 HOUR) FROM t WHERE nts IS NOT NULL ORDER BY id;
SELECT hop(nts, INTERVAL 1 HOUR, INTERVAL 5 HOUR) FROM t WHERE id = 5; -- { serverError BAD_ARGUMENTS }
SELECT tumble(toDateTime64('2020-01-01 12:34:56.789', 3, 'UTC'), INTERVAL 10 MINUTE); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tumbleStart(toDate('2020-01-05'), INTERVAL 1 DAY); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tumble(toDateTime('2020-01-01 12:34:56', 'UTC'), 10); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT hop(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 1 MONTH, INTERVAL 10 MINUTE); -- { serverError ILLEGAL_COLUMN }
SELECT hop(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 10 MINUTE, INTERVAL 3 MINUTE); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT tumble(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 0 MINUTE); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT tumble(toDateTime('2020-01-01 12:34:56', 'UTC'), INTERVAL 1 MILLISECOND); -- { serverError SYNTAX_ERROR }
