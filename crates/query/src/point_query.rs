//! The key-value fast path: `SELECT cols FROM t WHERE key = X` (or `key IN (...)`,
//! `PREWHERE`, `LIMIT n`) answered by the table engine's point read, skipping DataFusion
//! planning, optimisation and its per-query session state.
//!
//! Planning a query costs far more than finding one row through a sparse index, and
//! these queries are all a key-value workload sends. Anything outside the shape below
//! (expressions, aggregates, ORDER BY, joins, FINAL, a key the engine cannot look up,
//! a literal that does not convert exactly) declines, and the query is planned normally,
//! so results never depend on which path ran.

use std::sync::Arc;

use arrow::array::{ArrayRef, StringArray};
use arrow::datatypes::{DataType, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::common::ScalarValue;
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, ObjectNamePart, Query, Select, SelectItem, SetExpr, TableFactor, UnaryOperator, Value,
};
use granary_common::Result;
use granary_storage::PointReadRequest;

use crate::instance::QueryContext;

/// The rows of a point query, or `None` when the query is not one.
pub(crate) fn try_point_query(ctx: &QueryContext, query: &Query) -> Result<Option<SendableRecordBatchStream>> {
    if ctx.settings.get_bool("final") {
        return Ok(None);
    }
    let Some(shape) = match_shape(query) else { return Ok(None) };
    let database = shape.database.clone().unwrap_or_else(|| ctx.current_database.clone());
    if database == "system" {
        return Ok(None);
    }
    let Ok(table) = ctx.catalog.table(&database, &shape.table) else { return Ok(None) };
    crate::access::check_select(&ctx.access, &database, &shape.table)?;
    let schema = table.engine.schema();
    let Ok(key_index) = schema.index_of(&shape.key_column) else { return Ok(None) };
    let Some(keys) = literal_keys(&shape.keys, schema.field(key_index).data_type()) else { return Ok(None) };
    let mut projection = Vec::new();
    let mut out_fields = Vec::new();
    for item in &shape.columns {
        match item {
            Projected::All => {
                projection.extend(0..schema.fields().len());
                out_fields.extend(schema.fields().iter().map(|f| f.as_ref().clone()));
            }
            Projected::Column { name, alias } => {
                let Ok(index) = schema.index_of(name) else { return Ok(None) };
                projection.push(index);
                out_fields.push(schema.field(index).clone().with_name(alias.as_deref().unwrap_or(name)));
            }
        }
    }
    let request = PointReadRequest { column: shape.key_column.clone(), keys, projection, use_uncompressed_cache: ctx.settings.get_bool("use_uncompressed_cache") };
    let read: Vec<&str> = request.projection.iter().map(|&i| schema.field(i).name().as_str()).chain(std::iter::once(shape.key_column.as_str())).collect();
    let Some(result) = table.engine.point_read(&request) else { return Ok(None) };
    ctx.accessed.lock().add(&database, &shape.table, read);
    let result = result?;
    ctx.progress.add_read(result.read_rows, result.read_bytes);
    let out_schema: SchemaRef = Arc::new(Schema::new(out_fields));
    let mut remaining = shape.limit.unwrap_or(u64::MAX) as usize;
    let mut batches = Vec::with_capacity(result.batches.len());
    for batch in result.batches {
        if remaining == 0 {
            break;
        }
        let batch = batch.slice(0, batch.num_rows().min(remaining));
        remaining -= batch.num_rows();
        batches.push(Ok(RecordBatch::try_new(out_schema.clone(), batch.columns().to_vec())?));
    }
    Ok(Some(Box::pin(RecordBatchStreamAdapter::new(out_schema, futures::stream::iter(batches)))))
}

struct Shape {
    database: Option<String>,
    table: String,
    columns: Vec<Projected>,
    key_column: String,
    keys: Vec<Literal>,
    limit: Option<u64>,
}

enum Projected {
    All,
    Column { name: String, alias: Option<String> },
}

enum Literal {
    Number(String),
    String(String),
}

fn match_shape(query: &Query) -> Option<Shape> {
    if query.with.is_some() || query.order_by.is_some() || query.fetch.is_some() || !query.locks.is_empty() || query.for_clause.is_some() {
        return None;
    }
    let limit = match &query.limit_clause {
        None => None,
        Some(datafusion::sql::sqlparser::ast::LimitClause::LimitOffset { limit: Some(Expr::Value(v)), offset: None, limit_by }) if limit_by.is_empty() => {
            match &v.value {
                Value::Number(n, _) => Some(n.parse::<u64>().ok()?),
                _ => return None,
            }
        }
        Some(_) => return None,
    };
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    let select: &Select = select;
    let simple = select.distinct.is_none()
        && select.top.is_none()
        && select.into.is_none()
        && select.lateral_views.is_empty()
        && select.prewhere.is_none()
        && matches!(&select.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty())
        && select.cluster_by.is_empty()
        && select.distribute_by.is_empty()
        && select.sort_by.is_empty()
        && select.having.is_none()
        && select.named_window.is_empty()
        && select.qualify.is_none()
        && select.from.len() == 1
        && select.from[0].joins.is_empty();
    if !simple {
        return None;
    }
    let TableFactor::Table { name, args: None, with_hints, version: None, partitions, sample: None, .. } = &select.from[0].relation else {
        return None;
    };
    if !with_hints.is_empty() || !partitions.is_empty() {
        return None;
    }
    let parts: Vec<String> = name.0.iter().map(|p| match p {
        ObjectNamePart::Identifier(i) => Some(i.value.clone()),
        _ => None,
    }).collect::<Option<_>>()?;
    let (database, table) = match parts.as_slice() {
        [t] => (None, t.clone()),
        [d, t] => (Some(d.clone()), t.clone()),
        _ => return None,
    };
    let mut columns = Vec::new();
    for item in &select.projection {
        columns.push(match item {
            SelectItem::Wildcard(options) if options.opt_exclude.is_none() && options.opt_except.is_none() && options.opt_replace.is_none() && options.opt_rename.is_none() && options.opt_ilike.is_none() => {
                Projected::All
            }
            SelectItem::UnnamedExpr(Expr::Identifier(ident)) => Projected::Column { name: ident.value.clone(), alias: None },
            SelectItem::ExprWithAlias { expr: Expr::Identifier(ident), alias } => {
                Projected::Column { name: ident.value.clone(), alias: Some(alias.value.clone()) }
            }
            _ => return None,
        });
    }
    let (key_column, keys) = match select.selection.as_ref()? {
        Expr::BinaryOp { left, op: BinaryOperator::Eq, right } => match (left.as_ref(), right.as_ref()) {
            (Expr::Identifier(column), value) | (value, Expr::Identifier(column)) => (column.value.clone(), vec![literal(value)?]),
            _ => return None,
        },
        Expr::InList { expr, list, negated: false } => {
            let Expr::Identifier(column) = expr.as_ref() else { return None };
            (column.value.clone(), list.iter().map(literal).collect::<Option<Vec<_>>>()?)
        }
        _ => return None,
    };
    Some(Shape { database, table, columns, key_column, keys, limit })
}

fn literal(expr: &Expr) -> Option<Literal> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => Some(Literal::Number(n.clone())),
            Value::SingleQuotedString(s) => Some(Literal::String(s.clone())),
            _ => None,
        },
        Expr::UnaryOp { op: UnaryOperator::Minus, expr } => match literal(expr)? {
            Literal::Number(n) => Some(Literal::Number(format!("-{n}"))),
            Literal::String(_) => None,
        },
        Expr::Nested(inner) => literal(inner),
        _ => None,
    }
}

/// The literals as an array of the key column's type, when each converts exactly
/// (otherwise the planner decides what the comparison means).
fn literal_keys(literals: &[Literal], key_type: &DataType) -> Option<ArrayRef> {
    match key_type {
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 | DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            let text: Vec<&str> = literals.iter().map(|l| match l {
                Literal::Number(n) if !n.contains(['.', 'e', 'E']) => Some(n.as_str()),
                _ => None,
            }).collect::<Option<_>>()?;
            let strings: ArrayRef = Arc::new(StringArray::from(text));
            let options = arrow::compute::CastOptions { safe: false, ..Default::default() };
            arrow::compute::cast_with_options(&strings, key_type, &options).ok()
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let text: Vec<&str> = literals.iter().map(|l| match l {
                Literal::String(s) => Some(s.as_str()),
                Literal::Number(_) => None,
            }).collect::<Option<_>>()?;
            arrow::compute::cast(&(Arc::new(StringArray::from(text)) as ArrayRef), key_type).ok()
        }
        // FixedString(N) compares with a string literal padded with zero bytes.
        DataType::FixedSizeBinary(n) => {
            let width = *n as usize;
            let values: Vec<Vec<u8>> = literals.iter().map(|l| match l {
                Literal::String(s) if s.len() <= width => {
                    let mut bytes = s.as_bytes().to_vec();
                    bytes.resize(width, 0);
                    Some(bytes)
                }
                _ => None,
            }).collect::<Option<_>>()?;
            arrow::array::FixedSizeBinaryArray::try_from_iter(values.into_iter()).ok().map(|a| Arc::new(a) as ArrayRef)
        }
        _ => None,
    }
}

/// `SELECT dictGet*(...)`, `dictHas`, `joinGet*` with constant arguments and no FROM (the
/// dictionary and Join-table key-value pattern): evaluated by calling the lookup
/// functions directly, without planning. Key arguments must be typed unambiguously
/// (`toUInt64(123)`, `'text'`); a bare number literal is left to the planner, which owns
/// literal typing.
pub(crate) async fn try_constant_lookup(
    ctx: &QueryContext,
    query: &Query,
    functions: &std::collections::HashMap<String, Arc<datafusion::logical_expr::ScalarUDF>>,
) -> Result<Option<SendableRecordBatchStream>> {
    use datafusion::logical_expr::{ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs};
    use datafusion::sql::sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};

    if query.with.is_some() || query.order_by.is_some() || query.limit_clause.is_some() || query.fetch.is_some() {
        return Ok(None);
    }
    let SetExpr::Select(select) = query.body.as_ref() else { return Ok(None) };
    if !select.from.is_empty() || select.selection.is_some() || select.having.is_some() || select.distinct.is_some() || select.prewhere.is_some() {
        return Ok(None);
    }
    if !matches!(&select.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty()) {
        return Ok(None);
    }
    let mut calls = Vec::new();
    for item in &select.projection {
        let (expr, name) = match item {
            SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.clone()),
            SelectItem::UnnamedExpr(expr) => (expr, expr.to_string()),
            _ => return Ok(None),
        };
        let Expr::Function(function) = expr else { return Ok(None) };
        let Some(udf) = function.name.0.last().and_then(|p| p.as_ident()).and_then(|i| functions.get(&i.value)) else { return Ok(None) };
        let FunctionArguments::List(list) = &function.args else { return Ok(None) };
        if !list.clauses.is_empty() || function.over.is_some() || function.filter.is_some() {
            return Ok(None);
        }
        let mut args = Vec::with_capacity(list.args.len());
        for arg in &list.args {
            let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg else { return Ok(None) };
            let Some(value) = typed_constant(e) else { return Ok(None) };
            args.push(value);
        }
        // Names are qualified with the current database, as the planned path does.
        if let Some(ScalarValue::Utf8(Some(object))) = args.first_mut() {
            *object = crate::lookups::qualify_name(&ctx.dictionaries, udf.name(), object, &ctx.current_database);
        }
        calls.push((udf.clone(), args, name));
    }
    if calls.is_empty() {
        return Ok(None);
    }
    let dictionaries: Vec<String> = calls
        .iter()
        .filter(|(udf, _, _)| udf.name().starts_with("dict"))
        .filter_map(|(_, args, _)| match args.first() {
            Some(ScalarValue::Utf8(Some(name))) => Some(name.clone()),
            _ => None,
        })
        .collect();
    crate::lookups::load_dictionaries(ctx, &dictionaries).await?;
    let mut fields = Vec::with_capacity(calls.len());
    let mut columns = Vec::with_capacity(calls.len());
    for (udf, args, name) in calls {
        let arg_fields: Vec<arrow::datatypes::FieldRef> =
            args.iter().map(|a| Arc::new(arrow::datatypes::Field::new("", a.data_type(), a.is_null()))).collect();
        let scalars: Vec<Option<&ScalarValue>> = args.iter().map(Some).collect();
        let return_field = udf.return_field_from_args(ReturnFieldArgs { arg_fields: &arg_fields, scalar_arguments: &scalars })?;
        let value = udf.invoke_with_args(ScalarFunctionArgs {
            args: args.into_iter().map(ColumnarValue::Scalar).collect(),
            arg_fields,
            number_rows: 1,
            return_field: return_field.clone(),
            config_options: Arc::new(datafusion::common::config::ConfigOptions::default()),
        })?;
        columns.push(value.to_array(1)?);
        fields.push(return_field.as_ref().clone().with_name(name));
    }
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), columns)?;
    Ok(Some(Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::iter(vec![Ok(batch)])))))
}

/// A constant whose type does not depend on literal-typing rules: a string literal, or
/// `to<Int|UInt><N>(number)`.
fn typed_constant(expr: &Expr) -> Option<ScalarValue> {
    use datafusion::sql::sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    match expr {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => Some(ScalarValue::Utf8(Some(s.clone()))),
            _ => None,
        },
        Expr::Function(function) => {
            let name = function.name.0.last()?.as_ident()?.value.clone();
            let FunctionArguments::List(list) = &function.args else { return None };
            let [FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))] = list.args.as_slice() else { return None };
            let Literal::Number(text) = literal(arg)? else { return None };
            match name.as_str() {
                "toUInt64" => text.parse().ok().map(|v| ScalarValue::UInt64(Some(v))),
                "toUInt32" => text.parse().ok().map(|v| ScalarValue::UInt32(Some(v))),
                "toUInt16" => text.parse().ok().map(|v| ScalarValue::UInt16(Some(v))),
                "toUInt8" => text.parse().ok().map(|v| ScalarValue::UInt8(Some(v))),
                "toInt64" => text.parse().ok().map(|v| ScalarValue::Int64(Some(v))),
                "toInt32" => text.parse().ok().map(|v| ScalarValue::Int32(Some(v))),
                _ => None,
            }
        }
        _ => None,
    }
}
