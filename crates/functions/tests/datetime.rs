#![allow(clippy::unwrap_used)]
//! Date and time functions (chdb 26.9 values; server zone UTC unless said).
mod common;
use common::*;

#[tokio::test]
async fn components_and_types() {
    let c = ctx();
    check(&c, "toYear(toDate('2024-02-29')), toMonth(toDate('2024-02-29')), toDayOfMonth(toDate('2024-02-29')), toDayOfWeek(toDate('2024-01-07')), toYYYYMM(toDate('2024-02-29')), toYYYYMMDD(toDateTime('2024-02-29 23:59:59', 'UTC')), toYYYYMMDD(toDateTime('2024-02-29 23:59:59', 'UTC'), 'Asia/Tokyo')",
        "UInt16\tUInt8\tUInt8\tUInt8\tUInt32\tUInt32\tUInt32", "2024\t2\t29\t7\t202402\t20240229\t20240301").await;
    check(&c, "toHour(toDateTime('2024-01-01 10:11:12')), toMinute(toDateTime('2024-01-01 10:11:12')), toSecond(toDateTime64('2024-01-01 00:00:59.9', 3, 'UTC')), toHour(toDateTime('2024-01-01 10:00:00', 'UTC'), 'Asia/Tokyo'), toYear(toDate32('1900-01-01')), toYear(toNullable(toDate('2024-01-01')))",
        "UInt8\tUInt8\tUInt8\tUInt8\tUInt16\tNullable(UInt16)", "10\t11\t59\t19\t1900\t2024").await;
    check_error(&c, "SELECT toHour(toDate('2024-01-01'))", 43).await;
    check_error(&c, "SELECT toYear('2024-01-01')", 43).await;
    check_query(&c, "SELECT toYear(d), toMonth(dt), toDayOfWeek(d) FROM t ORDER BY n", "UInt16\tUInt8\tUInt8",
        "2024\t1\t1\n2024\t2\t4\n1970\t1\t4\n2024\t3\t5\n2024\t12\t1").await;
}

#[tokio::test]
async fn start_of() {
    let c = ctx();
    check(&c, "toStartOfDay(toDateTime('2024-01-01 10:00:00', 'Asia/Tokyo')), toStartOfMonth(toDate('2024-02-29')), toStartOfYear(toDateTime('2024-06-01 10:00:00')), toStartOfMinute(toDateTime64('2024-01-01 10:11:12.345', 3)), toStartOfHour(toDateTime('2024-01-01 10:11:12'))",
        "DateTime('Asia/Tokyo')\tDate\tDate\tDateTime\tDateTime", "2024-01-01 00:00:00\t2024-02-01\t2024-01-01\t2024-01-01 10:11:00\t2024-01-01 10:00:00").await;
    check(&c, "toTypeName(toStartOfMonth(toDate32('2024-01-01'))), toTypeName(toStartOfDay(toDate32('2024-01-01'))), toStartOfDay(toDate('2024-01-01'))", "String\tString\tDateTime", "Date\tDateTime\t2024-01-01 00:00:00").await;
    check_error(&c, "SELECT toStartOfHour(toDate('2024-01-01'))", 43).await;
}

#[tokio::test]
async fn unix_timestamps_and_zones() {
    let c = ctx();
    check(&c, "toUnixTimestamp('2024-01-01 00:00:00'), toUnixTimestamp('2024-01-01 00:00:00', 'Asia/Tokyo'), toUnixTimestamp(toDateTime64('2024-01-01 00:00:00.9', 3, 'UTC')), toUnixTimestamp(toDate('2024-01-01'))",
        "UInt32\tUInt32\tUInt32\tUInt32", "1704067200\t1704034800\t1704067200\t1704067200").await;
    check(&c, "timezone(), timeZone() AS tz2, toTypeName(timezone())", "String\tString\tString", "UTC\tUTC\tString").await;
    let tokyo = ctx_tz("Asia/Tokyo");
    check(&tokyo, "timezone(), toHour(toDateTime(0)), toDate(toDateTime('2024-01-01 01:00:00'))", "String\tUInt8\tDate", "Asia/Tokyo\t9\t2024-01-01").await;
}

#[tokio::test]
async fn now_today() {
    let c = ctx();
    check(&c, "toTypeName(now()), toTypeName(now64()), toTypeName(now64(6)), toTypeName(today()), toTypeName(yesterday()), toTypeName(now('Asia/Tokyo'))",
        "String\tString\tString\tString\tString\tString", "DateTime\tDateTime64(3)\tDateTime64(6)\tDate\tDate\tDateTime('Asia/Tokyo')").await;
    // Constant within a query, also across rows.
    check(&c, "equals(now(), now()), dateDiff('day', yesterday(), today()), equals(toDate(now()), today()), equals(toDateTime64(now(), 0), now())", "UInt8\tInt64\tUInt8\tUInt8", "1\t1\t1\t1").await;
    check_query(&c, "SELECT uniqExact(now()) FROM t", "UInt64", "1").await;
    check_query(&c, "SELECT equals(CURRENT_TIMESTAMP(), now())", "UInt8", "1").await;
}

#[tokio::test]
async fn date_diff() {
    let c = ctx();
    check(&c, "dateDiff('day', toDateTime('2024-01-01 23:00:00'), toDateTime('2024-01-02 01:00:00')), dateDiff('month', toDate('2024-01-31'), toDate('2024-02-01')), dateDiff('year', toDate('2023-12-31'), toDate('2024-01-01')), dateDiff('week', toDate('2024-01-07'), toDate('2024-01-08')), dateDiff('hour', toDateTime('2024-01-01 10:59:59'), toDateTime('2024-01-01 11:00:00'))",
        "Int64\tInt64\tInt64\tInt64\tInt64", "1\t1\t1\t1\t1").await;
    check(&c, "dateDiff('second', toDate('2024-01-01'), toDateTime('2024-01-01 00:00:10')), dateDiff('quarter', toDate('2024-03-31'), toDate('2024-04-01')), dateDiff('d', toDate('2024-01-01'), toDate('2023-01-01')), dateDiff('days', toDate('2024-01-01'), toDate('2024-03-01')), DATE_DIFF('day', toDate('2024-02-28'), toDate('2024-03-01'))",
        "Int64\tInt64\tInt64\tInt64\tInt64", "10\t1\t-365\t60\t2").await;
    check_error(&c, "SELECT dateDiff('fortnight', now(), now())", 36).await;
}

#[tokio::test]
async fn add_subtract() {
    let c = ctx();
    check(&c, "addMonths(toDate('2024-01-31'), 1), addYears(toDate('2024-02-29'), 1), addDays(toDate('2024-02-28'), 1), addHours(toDate('2024-01-01'), 25), subtractMonths(toDateTime('2024-03-31 10:00:00'), 1), addSeconds(toDateTime64('2024-01-01 00:00:00.5', 3), 1), addWeeks(toDate32('2024-01-01'), 1)",
        "Date\tDate\tDate\tDateTime\tDateTime\tDateTime64(3)\tDate32",
        "2024-02-29\t2025-02-28\t2024-02-29\t2024-01-02 01:00:00\t2024-02-29 10:00:00\t2024-01-01 00:00:01.500\t2024-01-08").await;
    check(&c, "addQuarters(toDate('2024-01-31'), 1), addMinutes(toDateTime('2024-01-01 00:00:00', 'Asia/Tokyo'), 90), toTypeName(addMinutes(toDateTime('2024-01-01 00:00:00', 'Asia/Tokyo'), 90)), addDays(toDate('2149-06-06'), 1), subtractDays(toDate('1970-01-01'), 1), addDays(toDateTime('2024-01-01 10:00:00'), -1), addMonths(toDate('2024-01-31'), -2)",
        "Date\tDateTime('Asia/Tokyo')\tString\tDate\tDate\tDateTime\tDate",
        "2024-04-30\t2024-01-01 01:30:00\tDateTime('Asia/Tokyo')\t1970-01-01\t2149-06-06\t2023-12-31 10:00:00\t2023-11-30").await;
}
