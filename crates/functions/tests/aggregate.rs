#![allow(clippy::unwrap_used)]
//! Aggregates: ClickHouse result types and empty/NULL behaviour (chdb 26.9 values).
mod common;
use common::*;

#[tokio::test]
async fn count_forms() {
    let c = ctx();
    check_query(&c, "SELECT count() FROM t", "UInt64", "5").await;
    check_query(&c, "SELECT count(*) FROM t", "UInt64", "5").await;
    check_query(&c, "SELECT COUNT(*), Count(x), count(DISTINCT x), count(DISTINCT s), count(NULL) FROM t", "UInt64\tUInt64\tUInt64\tUInt64\tUInt64", "5\t3\t3\t4\t0").await;
    check_query(&c, "SELECT g, count(), count(x), count(DISTINCT s) FROM t GROUP BY g ORDER BY g", "UInt8\tUInt64\tUInt64\tUInt64", "0\t3\t3\t2\n1\t2\t0\t2").await;
    check_query(&c, "SELECT count(), count(x) FROM e", "UInt64\tUInt64", "0\t0").await;
    check_query(&c, "SELECT toTypeName(count()) FROM t", "String", "UInt64").await;
    check_query(&c, "SELECT count() FROM t WHERE n > 1", "UInt64", "3").await;
}

#[tokio::test]
async fn sums_widen() {
    let c = ctx();
    check(&c, "toTypeName(sum(toUInt8(1))), toTypeName(sum(toInt32(1))), toTypeName(sum(toFloat32(1))), toTypeName(sum(toNullable(toInt8(1)))), toTypeName(sum(toDecimal32(1,2))), toTypeName(avg(1)), toTypeName(avg(toNullable(1))), toTypeName(avg(toDecimal32(1,2)))",
        "String\tString\tString\tString\tString\tString\tString\tString",
        "UInt64\tInt64\tFloat64\tNullable(Int64)\tDecimal(38, 2)\tFloat64\tNullable(Float64)\tFloat64").await;
    check_query(&c, "SELECT sum(n), sum(x), avg(n), avg(x), sum(f) FROM t", "UInt64\tNullable(Int64)\tFloat64\tNullable(Float64)\tFloat64", "10\t9\t2\t3\t100000000000000000000").await;
    // ClickHouse wraps on overflow.
    check_query(&c, "SELECT sum(toInt64(9223372036854775807) + toInt64(n)) FROM t WHERE n < 2", "Int64", "-1").await;
    check_query(&c, "SELECT g, sum(x), sum(n) FROM t GROUP BY g ORDER BY g", "UInt8\tNullable(Int64)\tUInt64", "0\t9\t6\n1\t\\N\t4").await;
}

#[tokio::test]
async fn empty_input_defaults() {
    let c = ctx();
    // Non-Nullable arguments: the type's default; Nullable ones: NULL (as chdb gives).
    check_query(&c, "SELECT sum(n), avg(n), min(n), max(s), any(n), anyLast(n), count(), groupArray(n), uniqExact(n), argMin(n, n), argMax(s, n), min(d) FROM e",
        "UInt64\tFloat64\tUInt64\tString\tUInt64\tUInt64\tUInt64\tArray(UInt64)\tUInt64\tUInt64\tString\tDate",
        "0\tnan\t0\t\t0\t0\t0\t[]\t0\t0\t\t1970-01-01").await;
    check_query(&c, "SELECT sum(x), avg(x), min(x), max(x), any(x), anyLast(x), count(x), groupArray(x), uniqExact(x), argMin(x, x) FROM e",
        "Nullable(Int64)\tNullable(Float64)\tNullable(Int32)\tNullable(Int32)\tNullable(Int32)\tNullable(Int32)\tUInt64\tArray(Int32)\tUInt64\tNullable(Int32)",
        "\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t0\t[]\t0\t\\N").await;
}

#[tokio::test]
async fn min_max_any_arg() {
    let c = ctx();
    check_query(&c, "SELECT min(x), max(x), min(s), max(s), min(d), max(dt), any(x), anyLast(x) FROM t",
        "Nullable(Int32)\tNullable(Int32)\tString\tString\tDate\tDateTime\tNullable(Int32)\tNullable(Int32)",
        "1\t5\t\tb\t1970-01-01\t2024-03-10 06:30:00\t1\t5").await;
    check_query(&c, "SELECT argMin(s, f), argMax(s, f), argMax(n, x), argMin(x, n) FROM t",
        "String\tString\tNullable(UInt64)\tNullable(Int32)", "\tb\t4\t1").await;
    check_query(&c, "SELECT g, argMax(s, n), min(s), any(s) FROM t GROUP BY g ORDER BY g",
        "UInt8\tString\tString\tString", "0\ta\ta\ta\n1\tb\t\t").await;
}

#[tokio::test]
async fn uniq_and_group_array() {
    let c = ctx();
    check_query(&c, "SELECT uniqExact(s), uniqExact(x), groupArray(x), toTypeName(groupArray(x)) FROM t",
        "UInt64\tUInt64\tArray(Int32)\tString", "4\t3\t[1,3,5]\tArray(Int32)").await;
    check_query(&c, "SELECT g, uniqExact(n), groupArray(s) FROM t GROUP BY g ORDER BY g",
        "UInt8\tUInt64\tArray(String)", "0\t3\t['a','abc','a']\n1\t2\t['','b']").await;
    check_error(&c, "SELECT sum(s) FROM t", 43).await;
    check_error(&c, "SELECT sum(n, n) FROM t", 42).await;
}

/// Several partitions: partial and final aggregation, state merging, hash grouping.
#[tokio::test]
async fn multi_partition_states_merge() {
    use std::sync::Arc;
    use datafusion::arrow::array::{Int32Array, RecordBatch, StringArray, UInt64Array};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    let c = ctx();
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::UInt64, false),
        Field::new("v", DataType::Int32, true),
        Field::new("s", DataType::Utf8, false),
    ]));
    let mut partitions = Vec::new();
    for p in 0..4u64 {
        let k: Vec<u64> = (0..1000).map(|i| (i + p) % 7).collect();
        let v: Vec<Option<i32>> = (0..1000).map(|i| if i % 5 == 0 { None } else { Some(i - 500) }).collect();
        let s: Vec<String> = (0..1000).map(|i| format!("s{}", i % 13)).collect();
        let batch = RecordBatch::try_new(
            Arc::clone(&schema),
            vec![Arc::new(UInt64Array::from(k)), Arc::new(Int32Array::from(v)), Arc::new(StringArray::from(s))],
        )
        .unwrap();
        partitions.push(vec![batch]);
    }
    let table = datafusion::datasource::MemTable::try_new(Arc::clone(&schema), partitions).unwrap();
    c.register_table("big", Arc::new(table)).unwrap();
    check_query(&c, "SELECT count(), count(v), count(DISTINCT v), uniqExact(s), sum(v), min(v), max(v), avg(k) FROM big",
        "UInt64\tUInt64\tUInt64\tUInt64\tNullable(Int64)\tNullable(Int32)\tNullable(Int32)\tFloat64",
        "4000\t3200\t800\t13\t0\t-499\t499\t3.00075").await;
    check_query(&c, "SELECT k, count(), uniqExact(s), length(groupArray(v)), argMax(s, v) FROM big GROUP BY k ORDER BY k LIMIT 2",
        "UInt64\tUInt64\tUInt64\tUInt64\tNullable(String)", "0\t571\t13\t457\ts11\n1\t571\t13\t456\ts11").await;
}

/// `SELECT count() FROM t` is answered from table statistics without scanning.
#[tokio::test]
async fn count_uses_statistics() {
    let c = ctx();
    let (_, rows) = run(&c, "EXPLAIN SELECT count() FROM t").await.unwrap();
    let plan: String = rows.iter().map(|r| r.join(" ")).collect::<Vec<_>>().join("\n");
    assert!(plan.contains("PlaceholderRowExec"), "count() should come from statistics:\n{plan}");
}

#[tokio::test]
async fn group_array_keeps_element_types() {
    let c = ctx();
    check_query(&c, "SELECT groupArray(toDate(n)) FROM t WHERE n < 2", "Array(Date)", "['1970-01-01','1970-01-02']").await;
    check_query(&c, "SELECT arraySort(groupArray(toDate(n))) FROM t WHERE n < 2", "Array(Date)", "['1970-01-01','1970-01-02']").await;
}
