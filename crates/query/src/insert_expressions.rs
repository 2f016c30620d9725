//! What an INSERT computes over the rows it writes: the values of the columns its input
//! does not give (DEFAULT, MATERIALIZED, ALIAS and EPHEMERAL expressions, and the DEFAULT
//! of a given column whose value is NULL while its type is not Nullable: ClickHouse's
//! null_as_default), and the table's CHECK constraints.
//!
//! Every expression is planned once per INSERT, all in one projection over the table
//! (`SELECT _CAST((a * 2), 'UInt64'), (a > 0), ... FROM db.t`), and compiled to a
//! physical expression over the table's columns:
//! - a default that reads no column (`DEFAULT 7`, `DEFAULT now()`) is computed then, once;
//! - one that reads columns of the row (`b DEFAULT a * 2`, `d MATERIALIZED toDate(ts)`)
//!   is evaluated by the conformer on every block, once the given columns are in place,
//!   in dependency order (`g DEFAULT f + b` after `b DEFAULT a * 2`);
//! - a CHECK is evaluated on every block once its defaults are filled: a row where it
//!   does not hold fails the INSERT (VIOLATED_CONSTRAINT) before anything is written.
//!
//! A default the physical planner cannot compile (a scalar subquery) runs as a query of
//! its own, once. ALIAS columns are computed and stored like MATERIALIZED ones, for
//! what reads blocks and parts directly (materialized views, mutations); a SELECT
//! computes them from the current expression (query/alias_columns.rs).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, UInt8Array};
use arrow::datatypes::{DataType, Schema};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, DFSchema};
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::physical_plan::PhysicalExpr;
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result};
use granary_storage::{ColumnKind, ColumnMeta, ConstraintMeta, Table};

use crate::instance::QueryContext;
use crate::interpreter::{execute_plan, plan_query};

/// What an INSERT writes into the columns its input leaves empty.
#[derive(Clone, Default)]
pub(crate) struct InsertExpressions {
    /// One-row values, by table column.
    pub(crate) constants: HashMap<usize, ArrayRef>,
    /// Expressions over the row, in the order they must be evaluated.
    pub(crate) per_row: Vec<RowDefault>,
    /// The table's CHECK constraints.
    pub(crate) checks: Vec<RowCheck>,
}

impl InsertExpressions {
    /// Whether column `i` has a value other than its type's zero.
    pub(crate) fn covers(&self, i: usize) -> bool {
        self.constants.contains_key(&i) || self.per_row.iter().any(|d| d.column == i)
    }
}

/// A column computed from other columns of the same row.
#[derive(Clone)]
pub(crate) struct RowDefault {
    pub(crate) column: usize,
    /// Over the table's columns, in the table's order; its result has the column's type.
    pub(crate) expression: Arc<dyn PhysicalExpr>,
}

/// A CHECK constraint, checked on every block.
#[derive(Clone)]
pub(crate) struct RowCheck {
    name: String,
    /// As written, for the error.
    text: String,
    /// `db.t (uuid)`, for the error.
    table: String,
    expression: Arc<dyn PhysicalExpr>,
    /// The columns it reads, whose values the error shows.
    reads: Vec<usize>,
}

impl RowCheck {
    /// Fails when the constraint does not hold on a row of `block` (in the table's schema).
    pub(crate) fn verify(&self, block: &RecordBatch) -> Result<()> {
        let values = self.expression.evaluate(block)?.into_array(block.num_rows())?;
        let holds = match values.data_type() {
            DataType::Boolean => values.as_boolean().clone(),
            DataType::UInt8 => arrow::compute::kernels::cmp::neq(&values, &UInt8Array::new_scalar(0))?,
            _ => return Err(Error::new(ErrorCode::UNSUPPORTED_METHOD, format!("Constraint `{}` does not return a value of type UInt8", self.name))),
        };
        if arrow::array::Array::null_count(&holds) > 0 {
            return Err(Error::new(
                ErrorCode::VIOLATED_CONSTRAINT,
                format!(
                    "Constraint `{}` for table {} is violated. Expression: ({}).Constraint expression returns nullable column that contains null value",
                    self.name, self.table, self.text
                ),
            ));
        }
        let Some(row) = (0..holds.len()).find(|&i| !holds.value(i)) else { return Ok(()) };
        let schema = block.schema();
        let mut shown: Vec<String> = Vec::with_capacity(self.reads.len());
        for &column in &self.reads {
            let value = arrow::util::display::array_value_to_string(block.column(column), row)?;
            let value = match block.column(column).data_type() {
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => granary_sql::params::quote_string(&value),
                _ => value,
            };
            shown.push(format!("{} = {value}", schema.field(column).name()));
        }
        Err(Error::new(
            ErrorCode::VIOLATED_CONSTRAINT,
            format!("Constraint `{}` for table {} is violated at row {}. Expression: ({}). Column values: {}", self.name, self.table, row + 1, self.text, shown.join(", ")),
        ))
    }
}

/// The defaults and checks of an INSERT into `table` whose input gives the columns `targets`.
pub(crate) async fn plan_insert_expressions(ctx: &QueryContext, table: &Table, targets: &[usize]) -> Result<InsertExpressions> {
    let schema = table.schema();
    let mut wanted: Vec<(usize, &str)> = Vec::new();
    for (i, column) in table.meta.columns.iter().enumerate() {
        let Some(expression) = column.default_expression.as_deref() else { continue };
        if column.default_kind.is_none() {
            continue;
        }
        let listed = targets.contains(&i);
        // A given column needs its default only for NULLs its type cannot hold.
        if listed && (schema.field(i).is_nullable() || !matches!(column.kind(), ColumnKind::Ordinary | ColumnKind::Ephemeral)) {
            continue;
        }
        wanted.push((i, expression));
    }
    let checks: Vec<&ConstraintMeta> = table.meta.constraints.iter().filter(|c| c.is_check()).collect();
    if wanted.is_empty() && checks.is_empty() {
        return Ok(InsertExpressions::default());
    }
    let columns = &table.meta.columns;
    let items = select_items(columns, &wanted, checks.iter().copied());
    let mut planned = plan_over_table(ctx, table, &items).await?;
    let planned_checks = planned.split_off(wanted.len());
    let mut out = InsertExpressions::default();
    let mut per_row: Vec<(usize, Arc<dyn PhysicalExpr>, Vec<usize>)> = Vec::new();
    for ((column, expression), planned) in wanted.iter().zip(planned) {
        match planned {
            Planned::Row { expression, reads } if !reads.is_empty() => per_row.push((*column, expression, reads)),
            Planned::Row { expression, .. } => {
                let empty = RecordBatch::try_new_with_options(Arc::new(Schema::empty()), vec![], &RecordBatchOptions::new().with_row_count(Some(1)))?;
                let value = expression.evaluate(&empty)?.into_array(1)?;
                out.constants.insert(*column, value);
            }
            Planned::Query => {
                let sql = format!("SELECT _CAST(({expression}), {})", granary_sql::params::quote_string(&columns[*column].type_name));
                let value = evaluate_scalar_sql(ctx, &sql).await.map_err(|e| e.context(format_args!("while computing the default of column {}", columns[*column].name)))?;
                out.constants.insert(*column, value);
            }
        }
    }
    out.per_row = dependency_order(columns, per_row)?.into_iter().map(|(column, expression)| RowDefault { column, expression }).collect();
    let table_name = format!("{}.{} ({})", table.meta.database, table.meta.name, table.meta.uuid);
    for (check, planned) in checks.into_iter().zip(planned_checks) {
        let Planned::Row { expression, reads } = planned else {
            return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Constraint `{}`: subqueries in CHECK constraints are not supported", check.name)));
        };
        out.checks.push(RowCheck { name: check.name.clone(), text: check.expression.clone(), table: table_name.clone(), expression, reads });
    }
    Ok(out)
}

/// How one default expression is computed.
enum Planned {
    /// A physical expression over the table's columns; `reads`: the columns it reads.
    Row { expression: Arc<dyn PhysicalExpr>, reads: Vec<usize> },
    /// As a query of its own (the physical planner cannot compile it).
    Query,
}

/// The SELECT list computing the defaults `wanted` (column, expression), each cast to its
/// column's type, then the `constraints`.
fn select_items<'a>(columns: &[ColumnMeta], wanted: &[(usize, &str)], constraints: impl Iterator<Item = &'a ConstraintMeta>) -> Vec<String> {
    wanted
        .iter()
        .map(|(i, expression)| format!("_CAST(({expression}), {})", granary_sql::params::quote_string(&columns[*i].type_name)))
        .chain(constraints.map(|c| format!("({})", c.expression)))
        .enumerate()
        .map(|(i, item)| format!("{item} AS `__insert_expression_{i}`"))
        .collect()
}

/// Plans the SELECT-list `items` as one projection over the table.
async fn plan_over_table(ctx: &QueryContext, table: &Table, items: &[String]) -> Result<Vec<Planned>> {
    let sql = format!(
        "SELECT {} FROM {}.{}",
        items.join(", "),
        granary_storage::meta::backquote(&table.meta.database),
        granary_storage::meta::backquote(&table.meta.name)
    );
    let plan = plan_sql(ctx, &sql).await?;
    let LogicalPlan::Projection(projection) = &plan else {
        return Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("the INSERT expressions of {}.{} planned as {}", table.meta.database, table.meta.name, plan.display())));
    };
    let schema = table.schema();
    let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
    let mut out = Vec::with_capacity(items.len());
    for expr in &projection.expr {
        let expr = unqualified(expr.clone().unalias())?;
        let mut reads: Vec<usize> = Vec::new();
        for column in expr.column_refs() {
            let index = schema.index_of(&column.name).map_err(|_| {
                Error::new(ErrorCode::UNKNOWN_IDENTIFIER, format!("Missing columns: '{}' while processing the INSERT expressions of {}.{}", column.name, table.meta.database, table.meta.name))
            })?;
            reads.push(index);
        }
        out.push(match ctx.state.create_physical_expr(expr, &df_schema) {
            Ok(expression) => Planned::Row { expression, reads },
            Err(_) if reads.is_empty() => Planned::Query,
            Err(e) => return Err(e.into()),
        });
    }
    Ok(out)
}

/// `expr` with its column references stripped of their table qualifier (the physical
/// expression reads a block of the table's own columns).
fn unqualified(expr: Expr) -> Result<Expr> {
    Ok(expr
        .transform(|e| match e {
            Expr::Column(c) if c.relation.is_some() => Ok(Transformed::yes(Expr::Column(Column::new_unqualified(c.name)))),
            other => Ok(Transformed::no(other)),
        })?
        .data)
}

/// Orders the row expressions so each comes after the computed columns it reads
/// (`pending`: column, payload, columns read); a cycle is ClickHouse's CYCLIC_ALIASES.
fn dependency_order<T>(table_columns: &[ColumnMeta], mut pending: Vec<(usize, T, Vec<usize>)>) -> Result<Vec<(usize, T)>> {
    let mut ordered = Vec::with_capacity(pending.len());
    while !pending.is_empty() {
        let computed: HashSet<usize> = pending.iter().map(|(column, ..)| *column).collect();
        let Some(ready) = pending.iter().position(|(_, _, reads)| reads.iter().all(|r| !computed.contains(r))) else {
            let names: Vec<&str> = pending.iter().map(|(c, ..)| table_columns[*c].name.as_str()).collect();
            return Err(Error::new(ErrorCode::CYCLIC_ALIASES, format!("Cyclic aliases detected in column DEFAULT expressions: {}", names.join(" -> "))));
        };
        let (column, payload, _) = pending.remove(ready);
        ordered.push((column, payload));
    }
    Ok(ordered)
}

/// Checks the DEFAULT, MATERIALIZED, ALIAS and EPHEMERAL expressions and the constraints
/// of a new table as ClickHouse does at CREATE: each plans over the table's columns (an
/// unknown name is UNKNOWN_IDENTIFIER) and no default depends on itself.
pub(crate) async fn check_table_expressions(ctx: &QueryContext, columns: &[ColumnMeta], constraints: &[ConstraintMeta]) -> Result<()> {
    let wanted: Vec<(usize, &str)> =
        columns.iter().enumerate().filter(|(_, c)| c.default_kind.is_some()).filter_map(|(i, c)| Some((i, c.default_expression.as_deref()?))).collect();
    if wanted.is_empty() && constraints.is_empty() {
        return Ok(());
    }
    // The table does not exist yet: its columns are a row of their types' defaults.
    let row: Vec<String> = columns
        .iter()
        .map(|c| format!("defaultValueOfTypeName({}) AS {}", granary_sql::params::quote_string(&c.type_name), granary_storage::meta::backquote(&c.name)))
        .collect();
    let row = format!("SELECT {}", row.join(", "));
    if plan_sql(ctx, &row).await.is_err() {
        // A type without a default value here: the expressions are checked at INSERT.
        return Ok(());
    }
    let items = select_items(columns, &wanted, constraints.iter());
    let plan = plan_sql(ctx, &format!("SELECT {} FROM ({row})", items.join(", "))).await?;
    let LogicalPlan::Projection(projection) = &plan else { return Ok(()) };
    let mut pending = Vec::with_capacity(wanted.len());
    for ((column, _), expr) in wanted.iter().zip(&projection.expr) {
        let reads: Vec<usize> = expr.column_refs().iter().filter_map(|r| columns.iter().position(|c| c.name == r.name)).collect();
        pending.push((*column, (), reads));
    }
    dependency_order(columns, pending).map(|_| ())
}

async fn plan_sql(ctx: &QueryContext, sql: &str) -> Result<LogicalPlan> {
    let params = HashMap::new();
    let options = granary_sql::ParseOptions { params: &params, rewrite: Default::default(), max_query_size: 0 };
    let (parsed, _) = granary_sql::parse_statement(sql, &options)?;
    let granary_sql::Statement::Query { query, .. } = parsed.statement else {
        return Err(Error::new(ErrorCode::LOGICAL_ERROR, "default expression is not a query"));
    };
    plan_query(ctx, query).await
}

async fn evaluate_scalar_sql(ctx: &QueryContext, sql: &str) -> Result<ArrayRef> {
    let plan = plan_sql(ctx, sql).await?;
    let mut stream = execute_plan(ctx, &plan).await?;
    while let Some(batch) = stream.next().await {
        let batch = batch?;
        if batch.num_rows() > 0 {
            return Ok(batch.column(0).slice(0, 1));
        }
    }
    Err(Error::new(ErrorCode::LOGICAL_ERROR, "default expression produced no value"))
}
