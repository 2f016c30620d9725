#![allow(clippy::unwrap_used)]
//! Conversions, compared with chdb (ClickHouse 26.9) output for the same expressions.
mod common;
use common::*;

#[tokio::test]
async fn integers_wrap_and_truncate() {
    let c = ctx();
    check(&c, "toUInt8(300), toUInt8(-1), toInt8(200), toInt32(3.9), toInt32(-3.9)", "UInt8\tUInt8\tInt8\tInt32\tInt32", "44\t255\t-56\t3\t-3").await;
    check(&c, "toUInt64('123'), toUInt64OrZero('abc'), toUInt64OrNull('abc'), toInt64OrZero(''), toUInt8('300')",
        "UInt64\tUInt64\tNullable(UInt64)\tInt64\tUInt8", "123\t0\t\\N\t0\t44").await;
    check(&c, "toInt32(1e20), toUInt8(256.7), toUInt64(-1.5), toInt64(1e19), toUInt8(-1.5), toInt32(-2147483649.0)",
        "Int32\tUInt8\tUInt64\tInt64\tUInt8\tInt32", "-2147483648\t0\t18446744073709551615\t-9223372036854775808\t255\t-2147483648").await;
    check(&c, "toUInt32(5e9), toUInt32(-1.0), toUInt64(1e20), toUInt16(70000.5), toInt16(-40000.0), toUInt8(1e20), toInt8(1e10), toUInt32(1e20)",
        "UInt32\tUInt32\tUInt64\tUInt16\tInt16\tUInt8\tInt8\tUInt32", "705032704\t4294967295\t9223372036854775808\t4464\t25536\t0\t0\t0").await;
    check(&c, "toUInt8OrNull('300'), toUInt8OrZero('300'), toInt8OrNull('-129'), toInt32OrNull(' 1'), toInt32OrNull('+1'), toUInt32OrNull('-1'), toUInt32OrNull('-0'), toInt32OrNull('1.5')",
        "Nullable(UInt8)\tUInt8\tNullable(Int8)\tNullable(Int32)\tNullable(Int32)\tNullable(UInt32)\tNullable(UInt32)\tNullable(Int32)",
        "\\N\t0\t\\N\t\\N\t1\t\\N\t\\N\t\\N").await;
    check(&c, "toInt32('-0'), toInt32('+5'), toUInt32('+5'), toInt8('127'), toInt8('128'), toInt8('-129'), toUInt64('18446744073709551616')",
        "Int32\tInt32\tUInt32\tInt8\tInt8\tInt8\tUInt64", "0\t5\t5\t127\t-128\t127\t0").await;
    check(&c, "toInt32(true), toUInt32(toDate('2024-01-01')), toInt64(toDateTime('2024-01-01 00:00:00', 'UTC')), toFloat64(toDateTime64('2024-01-01 00:00:00.5', 3, 'UTC'))",
        "Int32\tUInt32\tInt64\tFloat64", "1\t19723\t1704067200\t1704067200.5").await;
}

#[tokio::test]
async fn parse_errors_have_clickhouse_codes() {
    let c = ctx();
    check_error(&c, "SELECT toUInt64('abc')", 6).await;
    check_error(&c, "SELECT toUInt8('-1')", 72).await;
    check_error(&c, "SELECT toInt32(' 12')", 6).await;
    check_error(&c, "SELECT toInt32('12 ')", 6).await;
    check_error(&c, "SELECT toInt32('1e3')", 6).await;
    check_error(&c, "SELECT toInt32('')", 32).await;
    check_error(&c, "SELECT toInt64(toFloat64('nan'))", 70).await;
    check_error(&c, "SELECT toFloat64(' 1')", 72).await;
    check_error(&c, "SELECT toFloat64('1 ')", 6).await;
    check_error(&c, "SELECT toUInt8OrZero(1.5)", 43).await;
    check_error(&c, "SELECT toUInt8()", 42).await;
    check_error(&c, "SELECT toUInt8(1, 2)", 42).await;
    check_error(&c, "SELECT toUInt64(s) FROM t", 6).await;
}

#[tokio::test]
async fn nulls_follow_clickhouse() {
    let c = ctx();
    check(&c, "toUInt8(NULL), toTypeName(toUInt8(NULL)), toTypeName(toUInt8OrNull('1')), toTypeName(toUInt8OrZero('1'))",
        "Nullable(Nothing)\tString\tString\tString", "\\N\tNullable(Nothing)\tNullable(UInt8)\tUInt8").await;
    check_query(&c, "SELECT toInt64(x), toString(x) FROM t ORDER BY n", "Nullable(Int64)\tNullable(String)", "1\t1\n\\N\t\\N\n3\t3\n\\N\t\\N\n5\t5").await;
    check_query(&c, "SELECT toUInt8OrNull(s) FROM t ORDER BY n", "Nullable(UInt8)", "\\N\n\\N\n\\N\n\\N\n\\N").await;
}

#[tokio::test]
async fn floats() {
    let c = ctx();
    check(&c, "toFloat32(1.1), toFloat64(toFloat32(1.1)), toFloat64('1e400'), toFloat64('inf'), toFloat64('nan'), toFloat64('-Inf'), toFloat64OrNull('1.5x'), toFloat64('1e5'), toFloat64('.5'), toFloat64('5.'), toFloat64OrNull('0x10')",
        "Float32\tFloat64\tFloat64\tFloat64\tFloat64\tFloat64\tNullable(Float64)\tFloat64\tFloat64\tFloat64\tNullable(Float64)",
        "1.1\t1.100000023841858\tinf\tinf\tnan\t-inf\t\\N\t100000\t0.5\t5\t\\N").await;
    check(&c, "toFloat32('1.5'), toFloat64OrZero('x'), toFloat32(toDecimal32(1.25, 2))", "Float32\tFloat64\tFloat32", "1.5\t0\t1.25").await;
}

#[tokio::test]
async fn to_string_matches_clickhouse_text() {
    let c = ctx();
    check(&c, "toString(1.1), toString(toFloat32(1.1)), toString(1e20), toString(1e-7), toString(0.1+0.2), toString(-0.0), toString(1e21)",
        "String\tString\tString\tString\tString\tString\tString", "1.1\t1.1\t100000000000000000000\t1e-7\t0.30000000000000004\t-0\t1e21").await;
    check(&c, "toString(toDate('2024-02-29')), toString(toDateTime('2024-01-01 10:00:00', 'Asia/Tokyo')), toString(toDateTime64('2024-01-01 10:00:00.123', 3)), toString(true), toString(toDecimal32(1.5, 3)), toString(toDecimal64(-0.01, 4))",
        "String\tString\tString\tString\tString\tString", "2024-02-29\t2024-01-01 10:00:00\t2024-01-01 10:00:00.123\ttrue\t1.5\t-0.01").await;
    check(&c, "toString(toNullable(1)), toTypeName(toString(toNullable(1))), toString(NULL), toString(''), toString(toFixedString('ab', 4))",
        "Nullable(String)\tString\tNullable(Nothing)\tString\tString", "1\tNullable(String)\t\\N\t\tab").await;
    check(&c, "toString(toDateTime('2024-01-01 10:00:00', 'UTC'), 'Asia/Tokyo')", "String", "2024-01-01 19:00:00").await;
}

#[tokio::test]
async fn dates() {
    let c = ctx();
    check(&c, "toDate('2024-02-29'), toDate('2024-1-5'), toDate(19723), toDate(1704067200), toDate('2024-01-01 10:00:00'), toDate32('1900-01-01'), toDate('1900-01-01'), toDate('2200-01-01'), toDate(65536), toDate32(-1)",
        "Date\tDate\tDate\tDate\tDate\tDate32\tDate\tDate\tDate\tDate32",
        "2024-02-29\t2024-01-05\t2024-01-01\t2024-01-01\t2024-01-01\t1900-01-01\t1970-01-01\t2149-06-06\t1970-01-01\t1969-12-31").await;
    // ClickHouse does not reject 2024-02-30: the day runs into March. Month 13 gives the zero date.
    check(&c, "toDate('2024-02-30'), toDate('2023-02-29'), toDate('2024-04-31'), toDate('20240115'), toDate('2024/01/15'), toDate('2024-13-01'), toDate('2024-02-00')",
        "Date\tDate\tDate\tDate\tDate\tDate\tDate", "2024-03-01\t2023-03-01\t2024-05-01\t2024-01-15\t2024-01-15\t1970-01-01\t1970-01-01").await;
    check(&c, "toDateOrNull('abc'), toDateOrZero('abc'), toDateOrNull('2024-01-01x'), toDate32OrNull('abc'), toDate(-1), toDate(1.5), toDate(4294967295)",
        "Nullable(Date)\tDate\tNullable(Date)\tNullable(Date32)\tDate\tDate\tDate", "\\N\t1970-01-01\t\\N\t\\N\t1970-01-01\t1970-01-02\t2106-02-07").await;
    check(&c, "toDate32(100000), toDate32(1704067200), toDate32(-30000), toDate(65535), toDate32(toDate('2024-01-01')), toDate(toDate32('1950-01-01')), toDate(toDateTime64('2024-01-01 23:59:59.9', 3, 'UTC'))",
        "Date32\tDate32\tDate32\tDate\tDate32\tDate\tDate", "2243-10-17\t2024-01-01\t1887-11-12\t2149-06-06\t2024-01-01\t2129-06-07\t2024-01-01").await;
    check(&c, "toDate(toDateTime('2024-01-01 23:00:00', 'America/New_York'))", "Date", "2024-01-01").await;
    check_error(&c, "SELECT toDate('abc')", 38).await;
    check_error(&c, "SELECT toDate('')", 38).await;
    check_error(&c, "SELECT toDate('2024-01-01x')", 6).await;
}

#[tokio::test]
async fn datetimes() {
    let c = ctx();
    check(&c, "toDateTime('2024-01-01 10:00:00'), toDateTime('2024-01-01 10:00:00', 'Asia/Tokyo'), toUnixTimestamp(toDateTime('2024-01-01 10:00:00', 'Asia/Tokyo')), toDateTime(1704067200), toDateTime(1704067200.7), toDateTime(toDate('2024-01-01'))",
        "DateTime\tDateTime('Asia/Tokyo')\tUInt32\tDateTime\tDateTime\tDateTime",
        "2024-01-01 10:00:00\t2024-01-01 10:00:00\t1704070800\t2024-01-01 00:00:00\t2024-01-01 00:00:00\t2024-01-01 00:00:00").await;
    check(&c, "toDateTime(toDate('2024-01-01'), 'Asia/Tokyo'), toUnixTimestamp(toDateTime(toDate('2024-01-01'), 'Asia/Tokyo')), toDateTime('2024-01-01'), toDateTime('2024-01-01T10:00:00'), toDateTime(-1), toDateTime('1960-01-01 00:00:00'), toDateTime('2200-01-01 00:00:00')",
        "DateTime('Asia/Tokyo')\tUInt32\tDateTime\tDateTime\tDateTime\tDateTime\tDateTime",
        "2024-01-01 00:00:00\t1704034800\t2024-01-01 00:00:00\t2024-01-01 10:00:00\t1970-01-01 00:00:00\t1970-01-01 00:00:00\t2106-02-07 06:28:15").await;
    check(&c, "toDateTime('1704067200'), toDateTime('2024-1-5 1:2:3'), toDateTime('2024-01-01 10:00:00+03:00'), toDateTime('2024-01-01 10'), toDateTime('2024-01-01 10:00:00.5')",
        "DateTime\tDateTime\tDateTime\tDateTime\tDateTime",
        "2024-01-01 00:00:00\t2024-01-05 01:02:03\t2024-01-01 07:00:00\t2024-01-01 10:00:00\t2024-01-01 10:00:00").await;
    // DST: a local time in the spring gap and one in the autumn overlap.
    check(&c, "toDateTime('2024-03-10 02:30:00', 'America/New_York'), toUnixTimestamp(toDateTime('2024-03-10 02:30:00', 'America/New_York')), toUnixTimestamp(toDateTime('2024-11-03 01:30:00', 'America/New_York'))",
        "DateTime('America/New_York')\tUInt32\tUInt32", "2024-03-10 01:30:00\t1710052200\t1730611800").await;
    check(&c, "toDateTimeOrNull('x'), toDateTimeOrZero('x'), toDateTimeOrNull('2024-01-01 24:00:00'), toDateTimeOrNull('2024-02-30 10:00:00'), toDateTimeOrNull('20240101'), toDateTimeOrNull('')",
        "Nullable(DateTime)\tDateTime\tNullable(DateTime)\tNullable(DateTime)\tNullable(DateTime)\tNullable(DateTime)",
        "\\N\t1970-01-01 00:00:00\t2024-01-02 00:00:00\t2024-03-01 10:00:00\t1970-08-23 06:15:01\t\\N").await;
    check_error(&c, "SELECT toDateTime(1704067200, 'Bad/Zone')", 36).await;
    // The session time zone is the default zone of DateTime without one.
    let tokyo = ctx_tz("Asia/Tokyo");
    check(&tokyo, "toUnixTimestamp(toDateTime('2024-01-01 10:00:00')), toDateTime(0)", "UInt32\tDateTime", "1704070800\t1970-01-01 09:00:00").await;
}

#[tokio::test]
async fn datetime64() {
    let c = ctx();
    check(&c, "toDateTime64('2024-01-01 10:00:00.123456', 3), toDateTime64('2024-01-01 10:00:00.1', 6, 'Asia/Tokyo'), toDateTime64(1704067200.123, 3), toDateTime64(1704067200, 9), toDateTime64(toDate('2024-01-01'), 2), toDateTime64('1900-01-01 00:00:00', 0)",
        "DateTime64(3)\tDateTime64(6, 'Asia/Tokyo')\tDateTime64(3)\tDateTime64(9)\tDateTime64(2)\tDateTime64(0)",
        "2024-01-01 10:00:00.123\t2024-01-01 10:00:00.100000\t2024-01-01 00:00:00.123\t2024-01-01 00:00:00.000000000\t2024-01-01 00:00:00.00\t1900-01-01 00:00:00").await;
    check(&c, "toDateTime64('2024-01-01 10:00:00.123456789', 9, 'UTC'), toDateTime64('2024-01-01 10:00:00.1234', 3), toDateTime64(-1.5, 3, 'UTC'), toDateTime64OrNull('x', 3)",
        "DateTime64(9, 'UTC')\tDateTime64(3)\tDateTime64(3, 'UTC')\tNullable(DateTime64(3))",
        "2024-01-01 10:00:00.123456789\t2024-01-01 10:00:00.123\t1969-12-31 23:59:58.500\t\\N").await;
    check_error(&c, "SELECT toDateTime64(1, 10)", 69).await;
}

#[tokio::test]
async fn decimals_fixed_strings_bools() {
    let c = ctx();
    check(&c, "toDecimal32(1.555, 2), toDecimal64('3.14159', 3), toDecimal128(-1.999, 1), toTypeName(toDecimal128(1, 20)), toDecimal32(toNullable(2), 1), toDecimal64(10, 0), toDecimal32('1.5e1', 1)",
        "Decimal(9, 2)\tDecimal(18, 3)\tDecimal(38, 1)\tString\tNullable(Decimal(9, 1))\tDecimal(18, 0)\tDecimal(9, 1)",
        "1.55\t3.141\t-1.9\tDecimal(38, 20)\t2\t10\t15").await;
    check(&c, "toDecimal32OrNull('abc', 2), toDecimal32OrZero('abc', 2)", "Nullable(Decimal(9, 2))\tDecimal(9, 2)", "\\N\t0").await;
    // A float out of range is DECIMAL_OVERFLOW (407), as in ClickHouse.
    check_error(&c, "SELECT toDecimal32(1e10, 2)", 407).await;
    check_error(&c, "SELECT toDecimal32('abc', 2)", 6).await;
    check_error(&c, "SELECT toDecimal32(1, 10)", 69).await;
    check(&c, "toFixedString('ab', 4), toTypeName(toFixedString('ab', 4)), toFixedString('', 1)", "FixedString(4)\tString\tFixedString(1)", "ab\0\0\tFixedString(4)\t\0").await;
    check_error(&c, "SELECT toFixedString('abcde', 4)", 131).await;
    check(&c, "toBool(1), toBool(0), toBool('true'), toBool('false'), toBool(2), toBool(0.5), toTypeName(toBool(1)), toBool('1'), toBool('yes'), toBool('FALSE')",
        "Bool\tBool\tBool\tBool\tBool\tBool\tString\tBool\tBool\tBool", "true\tfalse\ttrue\tfalse\ttrue\ttrue\tBool\ttrue\ttrue\tfalse").await;
    check_error(&c, "SELECT toBool('abc')", 6).await;
}

#[tokio::test]
async fn cast_and_type_names() {
    let c = ctx();
    check(&c, "CAST(1, 'String'), CAST('1', 'UInt8'), CAST(300, 'UInt8'), CAST(1.7, 'Int32'), CAST('2024-01-01', 'Date'), CAST(1, 'Nullable(Int32)'), toTypeName(CAST(1, 'Nullable(Int32)')), CAST(1, 'Float64'), toTypeName(CAST(NULL, 'Nullable(String)')), CAST('a', 'FixedString(3)')",
        "String\tUInt8\tUInt8\tInt32\tDate\tNullable(Int32)\tString\tFloat64\tString\tFixedString(3)",
        "1\t1\t44\t1\t2024-01-01\t1\tNullable(Int32)\t1\tNullable(String)\ta\0\0").await;
    check(&c, "CAST(-1, 'UInt64'), CAST(1.5, 'Decimal(10,2)'), CAST('1.234', 'Decimal(10,2)'), CAST(true, 'String'), CAST(toDateTime('2024-01-01 10:00:00'), 'Date'), CAST(toDate('2024-01-01'), 'DateTime')",
        "UInt64\tDecimal(10, 2)\tDecimal(10, 2)\tString\tDate\tDateTime", "18446744073709551615\t1.5\t1.23\ttrue\t2024-01-01\t2024-01-01 00:00:00").await;
    check_error(&c, "SELECT CAST(NULL, 'Int32')", 70).await;
    check_error(&c, "SELECT CAST('abc', 'Int32')", 6).await;
    check_error(&c, "SELECT CAST(1, 'NoSuchType')", 50).await;
    // The helper the SQL front end uses for CAST(x AS T).
    let expr = granary_functions::cast_to_chtype(datafusion::prelude::lit("42"), &granary_types::ChType::UInt16);
    let df = c.read_empty().unwrap().select(vec![expr]).unwrap();
    let batches = df.collect().await.unwrap();
    assert_eq!(batches[0].column(0).data_type(), &datafusion::arrow::datatypes::DataType::UInt16);
    check(&c, "toTypeName(1), toTypeName(300), toTypeName(-1), toTypeName('a'), toTypeName(1.5), toTypeName(NULL), toTypeName(x), toTypeName(d), toTypeName(dt) FROM t LIMIT 1",
        "String\tString\tString\tString\tString\tString\tString\tString\tString",
        "Int64\tInt64\tInt64\tString\tFloat64\tNullable(Nothing)\tNullable(Int32)\tDate\tDateTime").await;
    check(&c, "materialize(1), identity('a'), ignore(1, 'a', NULL), toTypeName(ignore(1))", "Int64\tString\tUInt8\tString", "1\ta\t0\tUInt8").await;
}
