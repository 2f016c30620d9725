#![allow(clippy::unwrap_used)]
//! Test harness: a DataFusion session with every Granary function registered, and
//! helpers that render results the way ClickHouse's TabSeparated output does (type
//! names via `ChType::from_field`, values via the crate's `toString` rules, NULL as
//! `\N`). Expected values in the tests were produced by chdb (ClickHouse 26.9) for the
//! same expressions.
#![allow(dead_code)]

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, Date32Array, Float64Array, Int32Array, RecordBatch, StringArray, TimestampSecondArray, UInt64Array,
    UInt8Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use datafusion::datasource::MemTable;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use granary_types::ChType;

pub fn ctx_tz(tz: &str) -> SessionContext {
    let mut config = SessionConfig::new();
    config.options_mut().execution.time_zone = Some(tz.to_string());
    config.options_mut().sql_parser.enable_ident_normalization = false;
    config.options_mut().catalog.default_schema = "default".to_string();
    let mut state = SessionStateBuilder::new().with_config(config).with_default_features().build();
    granary_functions::register_all(&mut state).expect("register");
    let ctx = SessionContext::new_with_state(state);
    register_tables(&ctx);
    ctx
}

pub fn ctx() -> SessionContext {
    ctx_tz("UTC")
}

/// `t`: 5 rows. n UInt64 (0..4), x Nullable(Int32) (1, NULL, 3, NULL, 5),
/// s String ('a', '', 'abc', 'b', 'a'), f Float64, d Date (Date32 with metadata),
/// dt DateTime, g UInt8 group key (0,1,0,1,0).
/// `e`: the same columns, no rows.
fn register_tables(ctx: &SessionContext) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("n", DataType::UInt64, false),
        Field::new("x", DataType::Int32, true),
        Field::new("s", DataType::Utf8, false),
        Field::new("f", DataType::Float64, false),
        ChType::Date.to_arrow_field("d"),
        Field::new("dt", DataType::Timestamp(TimeUnit::Second, None), false),
        Field::new("g", DataType::UInt8, false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(UInt64Array::from(vec![0, 1, 2, 3, 4])),
        Arc::new(Int32Array::from(vec![Some(1), None, Some(3), None, Some(5)])),
        Arc::new(StringArray::from(vec!["a", "", "abc", "b", "a"])),
        Arc::new(Float64Array::from(vec![1.5, -2.25, 0.0, 1e20, 3.0])),
        Arc::new(Date32Array::from(vec![19_723, 19_782, 0, 19_783, 19_723])),
        Arc::new(TimestampSecondArray::from(vec![1_704_067_200, 1_709_210_096, 0, 1_710_052_200, 1_704_067_199])),
        Arc::new(UInt8Array::from(vec![0, 1, 0, 1, 0])),
    ];
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns).expect("batch");
    let t = MemTable::try_new(Arc::clone(&schema), vec![vec![batch]]).expect("table");
    ctx.register_table("t", Arc::new(t)).expect("register t");
    let e = MemTable::try_new(Arc::clone(&schema), vec![vec![]]).expect("table");
    ctx.register_table("e", Arc::new(e)).expect("register e");
}

/// Runs a query; returns the ClickHouse type of each column and the rows as text.
pub async fn run(ctx: &SessionContext, sql: &str) -> Result<(Vec<String>, Vec<Vec<String>>), granary_common::Error> {
    // The SQL front end's job, done here the same way: ClickHouse dialect, function
    // names kept as written (case-insensitive ones lowercased).
    let dialect = datafusion::sql::sqlparser::dialect::ClickHouseDialect {};
    let mut statements = datafusion::sql::sqlparser::parser::Parser::parse_sql(&dialect, sql)
        .map_err(|e| granary_common::Error::new(granary_common::ErrorCode::SYNTAX_ERROR, e.to_string()))?;
    let mut statement = statements.remove(0);
    granary_functions::prepare_function_names(&mut statement)?;
    let plan = ctx.state().statement_to_plan(datafusion::sql::parser::Statement::Statement(Box::new(statement))).await?;
    let df = ctx.execute_logical_plan(plan).await?;
    let schema = df.schema().as_arrow().clone();
    let batches = df.collect().await?;
    let types = schema.fields().iter().map(|f| granary_functions::ch_type_of_field(f).to_string()).collect();
    let mut rows = Vec::new();
    let fctx = granary_functions::format::FormatCtx::from_config(ctx.state().config_options())?;
    for batch in &batches {
        for r in 0..batch.num_rows() {
            let mut row = Vec::new();
            for (c, col) in batch.columns().iter().enumerate() {
                if col.logical_nulls().is_some_and(|n| n.is_null(r)) {
                    row.push("\\N".to_string());
                } else {
                    let field = schema.field(c);
                    row.push(granary_functions::format::value_to_string(field, col.as_ref(), r, &fctx)?);
                }
            }
            rows.push(row);
        }
    }
    Ok((types, rows))
}

/// `SELECT <exprs>` must give these types and this single row (tab-separated).
pub async fn check(ctx: &SessionContext, exprs: &str, types: &str, row: &str) {
    let sql = format!("SELECT {exprs}");
    let (t, rows) = run(ctx, &sql).await.unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    assert_eq!(t.join("\t"), types, "types of {sql}");
    assert_eq!(rows.len(), 1, "rows of {sql}");
    assert_eq!(rows[0].join("\t"), row, "values of {sql}");
}

/// A full query must give these types and rows (rows joined by '\n', cells by '\t').
pub async fn check_query(ctx: &SessionContext, sql: &str, types: &str, rows: &str) {
    let (t, got) = run(ctx, sql).await.unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    assert_eq!(t.join("\t"), types, "types of {sql}");
    let got: Vec<String> = got.iter().map(|r| r.join("\t")).collect();
    assert_eq!(got.join("\n"), rows, "values of {sql}");
}

/// The query must fail with this ClickHouse code.
pub async fn check_error(ctx: &SessionContext, sql: &str, code: i32) {
    match run(ctx, sql).await {
        Ok(r) => panic!("{sql} should fail with code {code}, got {r:?}"),
        Err(e) => assert_eq!(e.code().number(), code, "{sql}: {e:?}"),
    }
}
