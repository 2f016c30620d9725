//! `ORDER BY ... WITH FILL [FROM a] [TO b] [STEP s] ... [INTERPOLATE (c [AS expr], ...)]`.
//!
//! ClickHouse adds rows for the values of the sort key that the sorted result skips:
//! `ORDER BY n WITH FILL` over `0, 3` gives `0, 1, 2, 3`; the other columns of an added
//! row hold their type's default, or, under INTERPOLATE, an expression of the row before.
//! DataFusion has no such operator, so:
//!
//! ```text
//! query AST ──► take_fill_clause: WITH FILL / INTERPOLATE taken out of the outer ORDER BY
//!           ──► DataFusion plans the query as if they were not there
//!           ──► plan_fill: above the outer Sort (below LIMIT) a FillNode extension
//!               (sort keys that are expressions first become hidden columns)
//!           ──► FillPlanner ─► FillExec (exec.rs): streams batch by batch, keeping only
//!               the last row's keys between batches
//! ```
//!
//! The node blocks limit push-down (LIMIT counts filled rows, as in ClickHouse) and asks
//! for one sorted partition, so the physical optimizer merges sorted partitions rather
//! than concatenating them. WITH FILL in a subquery in FROM is found again by the name of
//! its derived table (SubqueryAlias) and planned there (with subquery sort elimination
//! off, so its Sort stays); elsewhere (IN, scalar subqueries) it is refused.

mod exec;
mod row;

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use arrow::array::RecordBatchOptions;
use arrow::datatypes::{i256, DataType, Schema, TimeUnit};
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::{Column, DFSchema, DFSchemaRef, ScalarValue};
use datafusion::logical_expr::physical_planning_context::PhysicalPlanningContext;
use datafusion::execution::context::{QueryPlanner, SessionState};
use datafusion::logical_expr::{Extension, Limit, LogicalPlan, Projection, Sort, SortExpr, UserDefinedLogicalNode, UserDefinedLogicalNodeCore};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::{LexOrdering, PhysicalSortExpr};
use datafusion::physical_plan::{ColumnarValue, ExecutionPlan};
use datafusion::physical_planner::{DefaultPhysicalPlanner, ExtensionPlanner, PhysicalPlanner};
use datafusion::sql::sqlparser::ast::{self, Visitor};
use granary_sql::walk::walk;
use granary_common::{Error, ErrorCode, Result};
use granary_functions::tz::{days_from_civil, parse_tz};
use granary_types::wide::{unsigned_order_key, WideInt};
use granary_types::{ChType, IntervalKind};

use row::{CalendarUnit, FillKey, FillStep, FillValue};

/// The WITH FILL parts of the outer ORDER BY, taken out of the AST before planning.
pub(crate) struct FillClause {
    /// One entry per ORDER BY item: its WITH FILL, if it has one.
    items: Vec<Option<ast::WithFill>>,
    /// `INTERPOLATE` absent (`None`), without a list (`Some(None)`: every other column
    /// keeps the previous row's value), or with one.
    interpolate: Option<Option<Vec<ast::InterpolateExpr>>>,
}

/// Takes WITH FILL and INTERPOLATE out of the outer query's ORDER BY, so DataFusion plans
/// a plain sort. Subqueries with WITH FILL other than derived tables (taken out before by
/// [`take_derived_table_fills`]) are refused.
pub(crate) fn take_fill_clause(query: &mut ast::Query) -> Result<Option<FillClause>> {
    let clause = take_own_fill(query)?;
    struct NestedFill;
    impl Visitor for NestedFill {
        type Break = ();
        fn pre_visit_query(&mut self, query: &ast::Query) -> std::ops::ControlFlow<()> {
            let Some(order_by) = &query.order_by else { return std::ops::ControlFlow::Continue(()) };
            let fill = order_by.interpolate.is_some()
                || matches!(&order_by.kind, ast::OrderByKind::Expressions(exprs) if exprs.iter().any(|e| e.with_fill.is_some()));
            if fill {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        }
    }
    if walk(query, &mut NestedFill).is_break() {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "ORDER BY ... WITH FILL is supported only in the outer query, not in subqueries"));
    }
    Ok(clause)
}

/// The WITH FILL / INTERPOLATE of `query`'s own ORDER BY, taken out.
fn take_own_fill(query: &mut ast::Query) -> Result<Option<FillClause>> {
    let Some(order_by) = &mut query.order_by else { return Ok(None) };
    let interpolate = order_by.interpolate.take().map(|i| i.exprs);
    let items: Vec<Option<ast::WithFill>> = match &mut order_by.kind {
        ast::OrderByKind::Expressions(exprs) => exprs.iter_mut().map(|e| e.with_fill.take()).collect(),
        ast::OrderByKind::All(_) => Vec::new(),
    };
    if items.iter().any(Option::is_some) {
        return Ok(Some(FillClause { items, interpolate }));
    }
    if interpolate.is_some() {
        return Err(Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, "INTERPOLATE requires ORDER BY ... WITH FILL"));
    }
    Ok(None)
}

/// WITH FILL of subqueries in FROM (`FROM (SELECT .. ORDER BY x WITH FILL) AS s`), taken
/// out of the AST with the name of their derived table (a generated one when it has
/// none), so that [`plan_derived_table_fills`] finds their plans again under that
/// SubqueryAlias.
pub(crate) fn take_derived_table_fills(query: &mut ast::Query) -> Result<Vec<(String, FillClause)>> {
    fn in_set_expr(body: &mut ast::SetExpr, out: &mut Vec<(String, FillClause)>) -> Result<()> {
        match body {
            ast::SetExpr::Select(select) => {
                for table in &mut select.from {
                    in_factor(&mut table.relation, out)?;
                    for join in &mut table.joins {
                        in_factor(&mut join.relation, out)?;
                    }
                }
                Ok(())
            }
            ast::SetExpr::Query(query) => in_set_expr(&mut query.body, out),
            ast::SetExpr::SetOperation { left, right, .. } => {
                in_set_expr(left, out)?;
                in_set_expr(right, out)
            }
            _ => Ok(()),
        }
    }
    fn in_factor(factor: &mut ast::TableFactor, out: &mut Vec<(String, FillClause)>) -> Result<()> {
        let ast::TableFactor::Derived { subquery, alias, .. } = factor else { return Ok(()) };
        in_set_expr(&mut subquery.body, out)?;
        if let Some(clause) = take_own_fill(subquery)? {
            let name = match alias {
                Some(alias) => alias.name.value.clone(),
                None => {
                    let name = format!("__granary_fill_{}", out.len());
                    *alias = Some(ast::TableAlias { explicit: true, name: ast::Ident::new(name.clone()), columns: Vec::new(), at: None });
                    name
                }
            };
            out.push((name, clause));
        }
        Ok(())
    }
    let mut out = Vec::new();
    in_set_expr(&mut query.body, &mut out)?;
    Ok(out)
}

/// Puts each derived table's [`FillNode`] above the Sort of its plan.
pub(crate) fn plan_derived_table_fills(state: &SessionState, plan: LogicalPlan, fills: &[(String, FillClause)]) -> Result<LogicalPlan> {
    use datafusion::common::tree_node::{Transformed, TreeNode};
    let mut placed = 0;
    let plan = plan
        .transform_down(|node| {
            let LogicalPlan::SubqueryAlias(alias) = &node else { return Ok(Transformed::no(node)) };
            let Some((_, clause)) = fills.iter().find(|(name, _)| alias.alias.table() == name) else { return Ok(Transformed::no(node)) };
            let input = plan_fill(state, Arc::unwrap_or_clone(Arc::clone(&alias.input)), clause).map_err(Error::into_datafusion)?;
            placed += 1;
            let replaced = datafusion::logical_expr::SubqueryAlias::try_new(Arc::new(input), alias.alias.clone())?;
            Ok(Transformed::new(LogicalPlan::SubqueryAlias(replaced), true, datafusion::common::tree_node::TreeNodeRecursion::Jump))
        })?
        .data;
    if placed != fills.len() {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "ORDER BY ... WITH FILL in this subquery is not supported (its plan could not be found again)"));
    }
    Ok(plan)
}

/// Whether the outer query's ORDER BY has WITH FILL.
pub(crate) fn has_with_fill(query: &ast::Query) -> bool {
    matches!(&query.order_by, Some(ast::OrderBy { kind: ast::OrderByKind::Expressions(exprs), .. }) if exprs.iter().any(|e| e.with_fill.is_some()))
}

/// Puts a [`FillNode`] above the outer query's Sort in `plan`.
pub(crate) fn plan_fill(state: &SessionState, plan: LogicalPlan, clause: &FillClause) -> Result<LogicalPlan> {
    match plan {
        LogicalPlan::Projection(projection) => {
            let input = plan_fill(state, Arc::unwrap_or_clone(projection.input), clause)?;
            Ok(LogicalPlan::Projection(Projection::try_new(projection.expr, Arc::new(input))?))
        }
        LogicalPlan::Limit(limit) => {
            let input = plan_fill(state, Arc::unwrap_or_clone(limit.input), clause)?;
            Ok(LogicalPlan::Limit(Limit { skip: limit.skip, fetch: limit.fetch, input: Arc::new(input) }))
        }
        LogicalPlan::Sort(sort) => fill_over_sort(state, sort, clause),
        other => Err(Error::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!("ORDER BY ... WITH FILL is not supported over a {} of the outer query", other.display()),
        )),
    }
}

fn fill_over_sort(state: &SessionState, sort: Sort, clause: &FillClause) -> Result<LogicalPlan> {
    if sort.expr.len() != clause.items.len() {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "ORDER BY ... WITH FILL over ORDER BY keys that were merged or removed in planning"));
    }
    let original_schema = sort.input.schema().clone();
    // Every key becomes a column: a filled row gets the key's value, which no other
    // column can be made to produce (`ORDER BY number * 2 WITH FILL`).
    let mut hidden = Vec::new();
    let mut keys = Vec::with_capacity(sort.expr.len());
    for (i, key) in sort.expr.iter().enumerate() {
        match &key.expr {
            Expr::Column(_) => keys.push(key.clone()),
            other => {
                let name = format!("__granary_fill_key_{i}");
                hidden.push(other.clone().alias(name.clone()));
                keys.push(SortExpr { expr: Expr::Column(Column::from_name(name)), asc: key.asc, nulls_first: key.nulls_first });
            }
        }
    }
    let input = if hidden.is_empty() {
        sort.input
    } else {
        let mut exprs: Vec<Expr> = original_schema.iter().map(|(qualifier, field)| Expr::Column(Column::new(qualifier.cloned(), field.name()))).collect();
        exprs.extend(hidden.iter().cloned());
        Arc::new(LogicalPlan::Projection(Projection::try_new(exprs, sort.input)?))
    };
    let schema = input.schema().clone();
    let column_of = |key: &SortExpr| -> Result<usize> {
        let Expr::Column(column) = &key.expr else { return Err(Error::new(ErrorCode::LOGICAL_ERROR, "WITH FILL key is not a column")) };
        Ok(schema.index_of_column(column)?)
    };
    let mut fill_keys: Vec<(usize, FillKey)> = Vec::new();
    // As ClickHouse, a key repeated in ORDER BY counts where it first appears: a plain
    // key first and WITH FILL later conflict; WITH FILL first and plain later do not.
    let mut first_plain = Vec::new();
    let mut seen = Vec::new();
    let mut prefix = Vec::new();
    for (key, item) in keys.iter().zip(&clause.items) {
        let column = column_of(key)?;
        let first = !seen.contains(&column);
        seen.push(column);
        match item {
            Some(with_fill) => {
                if fill_keys.iter().any(|(c, _)| *c == column) {
                    return Err(Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, "Multiple WITH FILL for identical expressions is not supported in ORDER BY"));
                }
                if first_plain.contains(&column) {
                    return Err(Error::new(
                        ErrorCode::INVALID_WITH_FILL_EXPRESSION,
                        "ORDER BY containing the same expression with and without WITH FILL modifier is not supported",
                    ));
                }
                let field = schema.field(column);
                fill_keys.push((column, fill_key(state, with_fill, field.as_ref(), key.asc)?));
            }
            None if first => {
                if fill_keys.is_empty() {
                    prefix.push(column);
                }
                first_plain.push(column);
            }
            None => {}
        }
    }
    let key_columns: Vec<usize> = keys.iter().map(column_of).collect::<Result<_>>()?;
    let (interpolate_columns, interpolate) = interpolation(state, &schema, &key_columns, &prefix, clause)?;
    let spec = FillSpec { description: describe(&schema, &fill_keys, &prefix, &interpolate_columns), keys: fill_keys, prefix, interpolate_columns };
    // `UInt256` keys sort by their unsigned order key, as everywhere else.
    let keys: Vec<SortExpr> = keys.iter().map(|key| granary_functions::uint256_sort_key(key, &schema)).collect();
    let sorted = LogicalPlan::Sort(Sort { expr: keys.clone(), input, fetch: sort.fetch });
    let node = FillNode { input: sorted, sort: keys, spec: Arc::new(spec), interpolate };
    let filled = LogicalPlan::Extension(Extension { node: Arc::new(node) });
    if hidden.is_empty() {
        return Ok(filled);
    }
    let exprs = original_schema.iter().map(|(qualifier, field)| Expr::Column(Column::new(qualifier.cloned(), field.name()))).collect();
    Ok(LogicalPlan::Projection(Projection::try_new(exprs, Arc::new(filled))?))
}

/// The columns INTERPOLATE computes and their expressions (over the row before).
fn interpolation(state: &SessionState, schema: &DFSchemaRef, key_columns: &[usize], prefix: &[usize], clause: &FillClause) -> Result<(Vec<usize>, Vec<Expr>)> {
    let column_expr = |i: usize| {
        let (qualifier, field) = schema.qualified_field(i);
        Expr::Column(Column::new(qualifier.cloned(), field.name()))
    };
    match &clause.interpolate {
        None => Ok((Vec::new(), Vec::new())),
        Some(None) => {
            let columns: Vec<usize> = (0..schema.fields().len()).filter(|i| !key_columns.contains(i)).collect();
            let exprs = columns.iter().map(|&i| column_expr(i)).collect();
            Ok((columns, exprs))
        }
        Some(Some(list)) => {
            let mut columns = Vec::with_capacity(list.len());
            let mut exprs = Vec::with_capacity(list.len());
            for item in list {
                let name = &item.column.value;
                let Some(column) = schema.fields().iter().position(|f| f.name() == name) else {
                    return Err(Error::new(ErrorCode::UNKNOWN_IDENTIFIER, format!("Unknown expression identifier `{name}` in INTERPOLATE")));
                };
                if prefix.contains(&column) {
                    return Err(Error::new(
                        ErrorCode::INVALID_WITH_FILL_EXPRESSION,
                        format!("The same column in ORDER BY before WITH FILL (sorting prefix) and INTERPOLATE is not allowed. Column: {name}"),
                    ));
                }
                if key_columns.contains(&column) {
                    return Err(Error::new(
                        ErrorCode::INVALID_WITH_FILL_EXPRESSION,
                        format!("Column '{name}' is participating in ORDER BY expression and can't be INTERPOLATE output"),
                    ));
                }
                let expr = match &item.expr {
                    Some(expr) => granary_functions::type_expression_literals(state.create_logical_expr(&expr.to_string(), schema)?)?,
                    None => column_expr(column),
                };
                columns.push(column);
                exprs.push(expr);
            }
            Ok((columns, exprs))
        }
    }
}

/// What the type of a WITH FILL column allows.
enum KeyKind {
    Integer { min: i64, max: i64 },
    Float,
    /// `Date` or `Date32`: day numbers in `min..=max`.
    Date { min: i64, max: i64 },
    /// `DateTime` (one tick per second, `max` = u32::MAX) or `DateTime64`.
    Time { ticks_per_second: i64, tz: String, max: Option<i64> },
    /// `Int128`, `UInt128`, `Int256` or `UInt256`: values are [`FillValue::Wide`].
    Wide(WideInt),
}

fn key_kind(field: &arrow::datatypes::Field, state: &SessionState) -> Result<(KeyKind, ChType)> {
    let ch = ChType::from_field(field);
    let base = ch.strip_nullable().clone();
    let server_tz = || state.config_options().execution.time_zone.clone().unwrap_or_else(|| "UTC".to_string());
    let kind = match (&base, field.data_type()) {
        (ChType::UInt8, _) => KeyKind::Integer { min: 0, max: u8::MAX.into() },
        (ChType::UInt16, _) => KeyKind::Integer { min: 0, max: u16::MAX.into() },
        (ChType::UInt32, _) => KeyKind::Integer { min: 0, max: u32::MAX.into() },
        (ChType::UInt64, _) => KeyKind::Integer { min: 0, max: i64::MAX },
        (ChType::Int8, _) => KeyKind::Integer { min: i8::MIN.into(), max: i8::MAX.into() },
        (ChType::Int16, _) => KeyKind::Integer { min: i16::MIN.into(), max: i16::MAX.into() },
        (ChType::Int32, _) => KeyKind::Integer { min: i32::MIN.into(), max: i32::MAX.into() },
        (ChType::Int64, _) => KeyKind::Integer { min: i64::MIN, max: i64::MAX },
        (ChType::Float32 | ChType::Float64, _) => KeyKind::Float,
        (ChType::Date, _) => KeyKind::Date { min: 0, max: u16::MAX.into() },
        // ClickHouse's Date32 calendar: 1900-01-01 to 2299-12-31.
        (ChType::Date32, _) => KeyKind::Date { min: days_from_civil(1900, 1, 1), max: days_from_civil(2299, 12, 31) },
        (ChType::DateTime(_) | ChType::DateTime64(..), DataType::Timestamp(unit, tz)) => {
            let ticks_per_second = match unit {
                TimeUnit::Second => 1,
                TimeUnit::Millisecond => 1_000,
                TimeUnit::Microsecond => 1_000_000,
                TimeUnit::Nanosecond => 1_000_000_000,
            };
            let max = matches!(base, ChType::DateTime(_)).then_some(u32::MAX.into());
            KeyKind::Time { ticks_per_second, tz: tz.as_deref().map(str::to_string).unwrap_or_else(server_tz), max }
        }
        _ => match WideInt::of(&base) {
            Some(wide) => KeyKind::Wide(wide),
            None => return Err(incompatible(&ch)),
        },
    };
    Ok((kind, ch))
}

fn incompatible(ch: &ChType) -> Error {
    Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, format!("Incompatible types of WITH FILL expression values with column type {}", ch.strip_nullable()))
}

fn fill_key(state: &SessionState, with_fill: &ast::WithFill, field: &arrow::datatypes::Field, asc: bool) -> Result<FillKey> {
    let (kind, ch) = key_kind(field, state)?;
    let direction: i8 = if asc { 1 } else { -1 };
    let bound = |expr: &Option<ast::Expr>| -> Result<Option<FillValue>> {
        match expr {
            None => Ok(None),
            Some(expr) => bound_value(&kind, &ch, &constant(state, expr)?),
        }
    };
    let (from, to) = match kind {
        KeyKind::Wide(wide) => {
            let bound = |expr: &Option<ast::Expr>| -> Result<Option<FillValue>> {
                match expr {
                    None => Ok(None),
                    Some(expr) => Ok(wide_constant(wide, &ch, typed_constant(state, expr)?, true)?.map(FillValue::Wide)),
                }
            };
            (bound(&with_fill.from)?, bound(&with_fill.to)?)
        }
        _ => (bound(&with_fill.from)?, bound(&with_fill.to)?),
    };
    if let (Some(from), Some(to)) = (from, to) {
        if asc && row::less(Some(to), Some(from), 1) {
            return Err(Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, "WITH FILL TO value cannot be less than FROM value for sorting in ascending direction"));
        }
        if !asc && row::less(Some(from), Some(to), 1) {
            return Err(Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, "WITH FILL FROM value cannot be less than TO value for sorting in descending direction"));
        }
    }
    if let KeyKind::Integer { min: 0, .. } = kind {
        if from.is_some_and(FillValue::is_negative) || to.is_some_and(FillValue::is_negative) {
            return Err(Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, format!("WITH FILL bound values cannot be negative for unsigned type {}", ch.strip_nullable())));
        }
    }
    let step = match (&kind, &with_fill.step) {
        (KeyKind::Wide(_), None) => FillStep::Add(FillValue::Wide(i256::from_i128(i128::from(direction)))),
        (KeyKind::Wide(wide), Some(expr)) => match typed_constant(state, expr)? {
            interval @ (_, ChType::Interval(_)) => step_value(&kind, &ch, interval)?,
            amount => match wide_constant(*wide, &ch, amount, false)? {
                Some(amount) => FillStep::Add(FillValue::Wide(amount)),
                None => return Err(incompatible(&ch)),
            },
        },
        (_, None) => numeric_step(&kind, &ch, &ScalarValue::Int64(Some(i64::from(direction))))?,
        (_, Some(expr)) => step_value(&kind, &ch, typed_constant(state, expr)?)?,
    };
    let (zero, negative) = match &step {
        FillStep::Add(v) => (v.is_zero(), v.is_negative()),
        FillStep::DateCalendar { amount, .. } | FillStep::TimeCalendar { amount, .. } => (*amount == 0, *amount < 0),
    };
    if zero {
        return Err(Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, "WITH FILL STEP value cannot be zero"));
    }
    if asc && negative {
        return Err(Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, "WITH FILL STEP value cannot be negative for sorting in ascending direction"));
    }
    if !asc && !negative {
        return Err(Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, "WITH FILL STEP value cannot be positive for sorting in descending direction"));
    }
    // ClickHouse converts the step to the column's type: a descending fill of an unsigned
    // wide integer fails there.
    if let (KeyKind::Wide(wide @ (WideInt::UInt128 | WideInt::UInt256)), FillStep::Add(step), true) = (&kind, &step, negative) {
        return Err(Error::new(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Cannot convert value '{step}': it cannot be represented as {}", wide.ch_type())));
    }
    let range = match kind {
        KeyKind::Integer { min, max } | KeyKind::Date { min, max } => Some((FillValue::Int(min), FillValue::Int(max))),
        KeyKind::Time { max: Some(max), .. } => Some((FillValue::Int(0), FillValue::Int(max))),
        KeyKind::Wide(WideInt::Int128) => Some((FillValue::Wide(i256::from_i128(i128::MIN)), FillValue::Wide(i256::from_i128(i128::MAX)))),
        KeyKind::Wide(WideInt::UInt128) => Some((FillValue::Wide(i256::ZERO), FillValue::Wide(i256::from_parts(u128::MAX, 0)))),
        // 256-bit values leave the type exactly when the step's `i256` addition overflows.
        KeyKind::Wide(WideInt::Int256 | WideInt::UInt256) | KeyKind::Float | KeyKind::Time { max: None, .. } => None,
    };
    let wide = match kind {
        KeyKind::Wide(wide) => Some(wide),
        _ => None,
    };
    Ok(FillKey { direction, from, to, step, range, type_name: ch.strip_nullable().to_string(), wide })
}

/// Evaluates a constant expression (FROM, TO, STEP) planned by DataFusion.
fn constant(state: &SessionState, expr: &ast::Expr) -> Result<ScalarValue> {
    Ok(typed_constant(state, expr)?.0)
}

/// The value of a constant expression with its ClickHouse type (an `IntervalDay` step is
/// an Int64 count whose unit is in the type).
fn typed_constant(state: &SessionState, expr: &ast::Expr) -> Result<(ScalarValue, ChType)> {
    use datafusion::logical_expr::ExprSchemable;
    let empty = DFSchema::empty();
    let logical = state.create_logical_expr(&expr.to_string(), &empty)?;
    let (_, field) = logical.to_field(&empty)?;
    let physical = state.create_physical_expr(logical, &empty)?;
    let batch = RecordBatch::try_new_with_options(Arc::new(Schema::empty()), vec![], &RecordBatchOptions::new().with_row_count(Some(1)))?;
    let value = match physical.evaluate(&batch)? {
        ColumnarValue::Scalar(value) => value,
        ColumnarValue::Array(array) => ScalarValue::try_from_array(&array, 0)?,
    };
    Ok((value, ChType::from_field(&field)))
}

/// A FROM or TO value in the column's carrier units; NULL means no bound.
fn bound_value(kind: &KeyKind, ch: &ChType, value: &ScalarValue) -> Result<Option<FillValue>> {
    if value.is_null() {
        return Ok(None);
    }
    let value = match (kind, value) {
        (KeyKind::Date { .. }, ScalarValue::Date32(Some(days))) => FillValue::Int((*days).into()),
        (KeyKind::Time { ticks_per_second, .. }, ScalarValue::TimestampSecond(Some(v), _)) => FillValue::Int(rescale(*v, 1, *ticks_per_second, ch)?),
        (KeyKind::Time { ticks_per_second, .. }, ScalarValue::TimestampMillisecond(Some(v), _)) => FillValue::Int(rescale(*v, 1_000, *ticks_per_second, ch)?),
        (KeyKind::Time { ticks_per_second, .. }, ScalarValue::TimestampMicrosecond(Some(v), _)) => FillValue::Int(rescale(*v, 1_000_000, *ticks_per_second, ch)?),
        (KeyKind::Time { ticks_per_second, .. }, ScalarValue::TimestampNanosecond(Some(v), _)) => FillValue::Int(rescale(*v, 1_000_000_000, *ticks_per_second, ch)?),
        (_, ScalarValue::Date32(_) | ScalarValue::Date64(_) | ScalarValue::TimestampSecond(..) | ScalarValue::TimestampMillisecond(..))
        | (_, ScalarValue::TimestampMicrosecond(..) | ScalarValue::TimestampNanosecond(..)) => return Err(incompatible(ch)),
        _ => match numeric_step(kind, ch, value)? {
            FillStep::Add(v) => v,
            _ => return Err(incompatible(ch)),
        },
    };
    Ok(Some(value))
}

/// A FROM, TO (`bound`) or STEP constant for a wide integer column of type `wide`, as
/// ClickHouse converts it: a 256-bit constant is no value for a 128-bit column, and one
/// the column's type cannot hold is an error. Bounds come in [`FillValue::Wide`]'s order
/// form, steps as plain amounts; `None` for NULL.
fn wide_constant(wide: WideInt, ch: &ChType, (value, value_type): (ScalarValue, ChType), bound: bool) -> Result<Option<i256>> {
    let value_wide = WideInt::of(value_type.strip_nullable());
    let is_256_bit = |w: Option<WideInt>| matches!(w, Some(WideInt::Int256 | WideInt::UInt256));
    if !is_256_bit(Some(wide)) && is_256_bit(value_wide) {
        return Err(incompatible(ch));
    }
    let out_of_bound = || Error::new(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Cannot convert value '{value}': it cannot be represented as {}", wide.ch_type()));
    let small = |v: i128| Ok((i256::from_i128(v), false));
    // The constant's 256-bit word, and whether that word is a `UInt256`'s raw bits.
    let (word, raw_uint256) = match &value {
        v if v.is_null() => return Ok(None),
        ScalarValue::Decimal128(Some(v), _, 0) if value_wide.is_some() => small(*v),
        ScalarValue::Decimal256(Some(v), _, 0) if value_wide.is_some() => Ok((*v, value_wide == Some(WideInt::UInt256))),
        ScalarValue::Int8(Some(v)) => small((*v).into()),
        ScalarValue::Int16(Some(v)) => small((*v).into()),
        ScalarValue::Int32(Some(v)) => small((*v).into()),
        ScalarValue::Int64(Some(v)) => small((*v).into()),
        ScalarValue::UInt8(Some(v)) => small((*v).into()),
        ScalarValue::UInt16(Some(v)) => small((*v).into()),
        ScalarValue::UInt32(Some(v)) => small((*v).into()),
        ScalarValue::UInt64(Some(v)) => small((*v).into()),
        ScalarValue::Float32(Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e18 => small(*f as i128),
        ScalarValue::Float64(Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e18 => small(*f as i128),
        ScalarValue::Float32(_) | ScalarValue::Float64(_) => Err(out_of_bound()),
        _ => Err(incompatible(ch)),
    }?;
    let above_i256 = raw_uint256 && word.is_negative();
    if !bound {
        return if above_i256 { Err(out_of_bound()) } else { Ok(Some(word)) };
    }
    let fits = match wide {
        WideInt::Int128 => word.to_i128().is_some(),
        WideInt::UInt128 => !word.is_negative() && word.to_parts().1 == 0,
        WideInt::Int256 => !above_i256,
        WideInt::UInt256 => raw_uint256 || !word.is_negative(),
    };
    match (fits, wide) {
        (false, _) => Err(out_of_bound()),
        (true, WideInt::UInt256) => Ok(Some(unsigned_order_key(word))),
        (true, _) => Ok(Some(word)),
    }
}

/// `v` ticks of `from_per_second` per second in the column's ticks; sub-tick parts are an error.
fn rescale(v: i64, from_per_second: i64, to_per_second: i64, ch: &ChType) -> Result<i64> {
    let scaled = if to_per_second >= from_per_second {
        v.checked_mul(to_per_second / from_per_second)
    } else {
        let divisor = from_per_second / to_per_second;
        (v % divisor == 0).then_some(v / divisor)
    };
    scaled.ok_or_else(|| incompatible(ch))
}

/// A number as an amount of the column's unit: itself for numbers, days for dates,
/// seconds for `DateTime` and `DateTime64`.
fn numeric_step(kind: &KeyKind, ch: &ChType, value: &ScalarValue) -> Result<FillStep> {
    let float = match value {
        ScalarValue::Float32(Some(v)) => Some(f64::from(*v)),
        ScalarValue::Float64(Some(v)) => Some(*v),
        _ => None,
    };
    let integer = match float {
        Some(f) if f.fract() == 0.0 && f.abs() < 9.0e18 => Some(f as i64),
        Some(_) => None,
        None => match value.cast_to(&DataType::Int64) {
            Ok(ScalarValue::Int64(Some(v))) => Some(v),
            _ => return Err(incompatible(ch)),
        },
    };
    let step = match (kind, integer) {
        (KeyKind::Float, _) => FillValue::Float(float.or(integer.map(|i| i as f64)).unwrap_or_default()),
        (KeyKind::Integer { .. } | KeyKind::Date { .. }, Some(i)) => FillValue::Int(i),
        (KeyKind::Time { ticks_per_second, .. }, Some(i)) => FillValue::Int(i.checked_mul(*ticks_per_second).ok_or_else(|| incompatible(ch))?),
        (KeyKind::Wide(_), _) | (_, None) => return Err(incompatible(ch)),
    };
    Ok(FillStep::Add(step))
}

fn step_value(kind: &KeyKind, ch: &ChType, (value, value_type): (ScalarValue, ChType)) -> Result<FillStep> {
    let ChType::Interval(unit) = value_type.base() else { return numeric_step(kind, ch, &value) };
    let count = match value.cast_to(&DataType::Int64) {
        Ok(ScalarValue::Int64(Some(n))) => n,
        _ => return Err(incompatible(ch)),
    };
    let overflow = || Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, format!("WITH FILL STEP {count} {} is out of range", unit.name()));
    let nanos_of = |per_unit: i64| count.checked_mul(per_unit).ok_or_else(overflow);
    let (months, days, nanos) = match unit {
        IntervalKind::Nanosecond => (0, 0, count),
        IntervalKind::Microsecond => (0, 0, nanos_of(1_000)?),
        IntervalKind::Millisecond => (0, 0, nanos_of(1_000_000)?),
        IntervalKind::Second => (0, 0, nanos_of(1_000_000_000)?),
        IntervalKind::Minute => (0, 0, nanos_of(60_000_000_000)?),
        IntervalKind::Hour => (0, 0, nanos_of(3_600_000_000_000)?),
        IntervalKind::Day => (0, count, 0),
        IntervalKind::Week => (0, count.checked_mul(7).ok_or_else(overflow)?, 0),
        IntervalKind::Month => (count, 0, 0),
        IntervalKind::Quarter => (count.checked_mul(3).ok_or_else(overflow)?, 0, 0),
        IntervalKind::Year => (count.checked_mul(12).ok_or_else(overflow)?, 0, 0),
    };
    const NANOS_PER_DAY: i64 = 86_400 * 1_000_000_000;
    match kind {
        KeyKind::Date { .. } => {
            if nanos != 0 && nanos.abs() < NANOS_PER_DAY {
                return Err(Error::new(
                    ErrorCode::INVALID_WITH_FILL_EXPRESSION,
                    format!("Value of step is too low ({} seconds). Must be >= 1 day", nanos.abs() / 1_000_000_000),
                ));
            }
            if nanos % NANOS_PER_DAY != 0 {
                return Err(Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, "WITH FILL STEP on a Date must be a whole number of days"));
            }
            if months != 0 {
                Ok(FillStep::DateCalendar { unit: CalendarUnit::Months, amount: months })
            } else {
                Ok(FillStep::Add(FillValue::Int(days + nanos / NANOS_PER_DAY)))
            }
        }
        KeyKind::Time { ticks_per_second, tz, .. } => {
            let tz = parse_tz(tz)?;
            if months != 0 {
                return Ok(FillStep::TimeCalendar { unit: CalendarUnit::Months, amount: months, ticks_per_second: *ticks_per_second, tz });
            }
            if days != 0 {
                return Ok(FillStep::TimeCalendar { unit: CalendarUnit::Days, amount: days, ticks_per_second: *ticks_per_second, tz });
            }
            let nanos_per_tick = 1_000_000_000 / ticks_per_second;
            if nanos % nanos_per_tick != 0 {
                return Err(Error::new(ErrorCode::INVALID_WITH_FILL_EXPRESSION, format!("WITH FILL STEP is finer than the precision of {}", ch.strip_nullable())));
            }
            Ok(FillStep::Add(FillValue::Int(nanos / nanos_per_tick)))
        }
        KeyKind::Integer { .. } | KeyKind::Float | KeyKind::Wide(_) => Err(Error::new(
            ErrorCode::INVALID_WITH_FILL_EXPRESSION,
            format!("STEP of Interval type can be used only with Date/DateTime types, but got {}", ch.strip_nullable()),
        )),
    }
}

fn describe(schema: &DFSchema, keys: &[(usize, FillKey)], prefix: &[usize], interpolate: &[usize]) -> String {
    let name = |i: usize| schema.field(i).name().clone();
    let keys: Vec<String> = keys
        .iter()
        .map(|(c, k)| {
            let bound = |v: Option<FillValue>| v.map(|v| k.text(v)).unwrap_or_else(|| "-".into());
            format!("{} {} from={} to={} step={:?}", name(*c), if k.direction > 0 { "ASC" } else { "DESC" }, bound(k.from), bound(k.to), k.step)
        })
        .collect();
    let prefix: Vec<String> = prefix.iter().map(|&c| name(c)).collect();
    let interpolate: Vec<String> = interpolate.iter().map(|&c| name(c)).collect();
    format!("fill=[{}], prefix=[{}], interpolate=[{}]", keys.join(", "), prefix.join(", "), interpolate.join(", "))
}

/// What the operator needs besides its input: positions are columns of the input.
#[derive(Debug)]
pub(crate) struct FillSpec {
    keys: Vec<(usize, FillKey)>,
    /// ORDER BY columns before the first WITH FILL key: filling restarts for each value.
    prefix: Vec<usize>,
    interpolate_columns: Vec<usize>,
    /// For EXPLAIN and plan equality.
    description: String,
}

/// The logical WITH FILL operator over a Sort.
#[derive(Debug, Clone)]
pub(crate) struct FillNode {
    input: LogicalPlan,
    /// The Sort's keys: columns of `input`, a `UInt256` one by its unsigned order key.
    sort: Vec<SortExpr>,
    spec: Arc<FillSpec>,
    /// One per `spec.interpolate_columns`, over the previous row.
    interpolate: Vec<Expr>,
}

impl PartialEq for FillNode {
    fn eq(&self, other: &Self) -> bool {
        self.input == other.input && self.sort == other.sort && self.interpolate == other.interpolate && self.spec.description == other.spec.description
    }
}

impl Eq for FillNode {}

impl Hash for FillNode {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.input.hash(state);
        self.sort.hash(state);
        self.interpolate.hash(state);
        self.spec.description.hash(state);
    }
}

impl PartialOrd for FillNode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        (self == other).then_some(std::cmp::Ordering::Equal)
    }
}

impl UserDefinedLogicalNodeCore for FillNode {
    fn name(&self) -> &str {
        "Fill"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        self.input.schema()
    }

    fn expressions(&self) -> Vec<Expr> {
        self.interpolate.clone()
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Fill: {}", self.spec.description)
    }

    fn with_exprs_and_inputs(&self, exprs: Vec<Expr>, mut inputs: Vec<LogicalPlan>) -> datafusion::common::Result<Self> {
        let input = inputs.pop().ok_or_else(|| datafusion::common::DataFusionError::Internal("Fill has one input".into()))?;
        Ok(FillNode { input, sort: self.sort.clone(), spec: self.spec.clone(), interpolate: exprs })
    }
}

/// Physical planning of [`FillNode`].
struct FillPlanner;

#[async_trait]
impl ExtensionPlanner for FillPlanner {
    async fn plan_extension(
        &self,
        planner: &dyn PhysicalPlanner,
        node: &dyn UserDefinedLogicalNode,
        logical_inputs: &[&LogicalPlan],
        physical_inputs: &[Arc<dyn ExecutionPlan>],
        session_state: &dyn Session,
        planning_ctx: &PhysicalPlanningContext,
    ) -> datafusion::common::Result<Option<Arc<dyn ExecutionPlan>>> {
        let Some(fill) = node.as_any().downcast_ref::<FillNode>() else { return Ok(None) };
        let (Some(logical_input), Some(input)) = (logical_inputs.first(), physical_inputs.first()) else {
            return datafusion::common::internal_err!("Fill has one input");
        };
        let input_schema = logical_input.schema();
        let interpolate = fill.interpolate.iter().map(|e| planner.create_physical_expr(e, input_schema, session_state, planning_ctx)).collect::<datafusion::common::Result<Vec<_>>>()?;
        let mut ordering = Vec::with_capacity(fill.sort.len());
        for key in &fill.sort {
            let expr = planner.create_physical_expr(&key.expr, input_schema, session_state, planning_ctx)?;
            ordering.push(PhysicalSortExpr::new(expr, arrow::compute::SortOptions { descending: !key.asc, nulls_first: key.nulls_first }));
        }
        let ordering = LexOrdering::new(ordering);
        Ok(Some(Arc::new(exec::FillExec::new(input.clone(), fill.spec.clone(), interpolate, ordering))))
    }
}

/// DataFusion's physical planner with Granary's extension nodes.
#[derive(Debug)]
pub(crate) struct GranaryQueryPlanner;

#[async_trait]
impl QueryPlanner for GranaryQueryPlanner {
    async fn create_physical_plan(&self, logical_plan: &LogicalPlan, session_state: &dyn Session) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        DefaultPhysicalPlanner::with_extension_planners(vec![Arc::new(FillPlanner), Arc::new(crate::asof::AsofPlanner)]).create_physical_plan(logical_plan, session_state).await
    }
}
