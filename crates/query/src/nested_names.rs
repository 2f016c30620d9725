//! Subcolumns of Nested columns written without quotes: `n.a`, `t.n.a`.
//!
//! A `Nested(a T, b U)` column is stored as the columns `n.a Array(T)` and `n.b Array(U)`
//! (ClickHouse's `flatten_nested = 1`). SQL reads `n.a` as column `a` of a table `n`,
//! which does not exist; ClickHouse resolves it to the column named `n.a`. Which reading
//! is meant is known only with the tables' columns, so planning tries the plain reading
//! first and, when DataFusion reports a missing field whose dotted text is the name of a
//! column it lists, writes that identifier as the column's name and plans again. Queries
//! without such names pay nothing.

use std::ops::ControlFlow;

use datafusion::common::{Column, DataFusionError, SchemaError};
use datafusion::execution::SessionState;
use datafusion::logical_expr::LogicalPlan;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{Expr, Ident, Visit, VisitMut};
use granary_common::Result;

/// Attempts at most: each resolves one distinct name.
const MAX_ATTEMPTS: usize = 32;

/// Plans `statement`, resolving dotted names of Nested subcolumns.
pub(crate) async fn statement_to_plan(state: &SessionState, statement: DFStatement) -> Result<LogicalPlan> {
    if !has_compound_identifier(&statement) {
        return Ok(state.statement_to_plan(statement).await?);
    }
    let mut statement = statement;
    for _ in 0..MAX_ATTEMPTS {
        let error = match state.statement_to_plan(statement.clone()).await {
            Ok(plan) => return Ok(plan),
            Err(e) => e,
        };
        let Some((written, replacement)) = resolution(&error) else { return Err(error.into()) };
        if !replace(&mut statement, &written, &replacement) {
            return Err(error.into());
        }
        // `SELECT n.a, `n.a``: now the same column twice, which ClickHouse allows.
        if let DFStatement::Statement(inner) = &mut statement {
            if let datafusion::sql::sqlparser::ast::Statement::Query(query) = inner.as_mut() {
                granary_sql::names::name_repeated_columns(query);
            }
        }
    }
    Ok(state.statement_to_plan(statement).await?)
}

fn has_compound_identifier(statement: &DFStatement) -> bool {
    let DFStatement::Statement(inner) = statement else { return false };
    inner
        .visit(&mut ExprVisitor(|e: &Expr| if matches!(e, Expr::CompoundIdentifier(_)) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }))
        .is_break()
}

/// For a missing field written `p1.p2...pk`, the parts as written and what to write
/// instead: the dotted name of a listed column (`n.a`), qualified by its table when the
/// text named one (`t.n.a` -> `t` . `n.a`).
fn resolution(error: &DataFusionError) -> Option<(Vec<String>, Vec<String>)> {
    let DataFusionError::SchemaError(schema_error, _) = error.find_root() else { return None };
    let SchemaError::FieldNotFound { field, valid_fields } = schema_error.as_ref() else { return None };
    let written = written_parts(field);
    if written.len() < 2 {
        return None;
    }
    let dotted = written.join(".");
    for valid in valid_fields {
        if !valid.name.contains('.') {
            continue;
        }
        if dotted == valid.name {
            return Some((written, vec![valid.name.clone()]));
        }
        if let Some(relation) = &valid.relation {
            let table = relation.table();
            if dotted == format!("{table}.{}", valid.name) {
                return Some((written, vec![table.to_string(), valid.name.clone()]));
            }
        }
    }
    None
}

/// The identifier parts of a column reference as the query wrote them.
fn written_parts(column: &Column) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(relation) = &column.relation {
        if let Some(catalog) = relation.catalog() {
            parts.push(catalog.to_string());
        }
        if let Some(schema) = relation.schema() {
            parts.push(schema.to_string());
        }
        parts.push(relation.table().to_string());
    }
    parts.push(column.name.clone());
    parts
}

/// Rewrites every `CompoundIdentifier` equal to `written`; false when there was none.
fn replace(statement: &mut DFStatement, written: &[String], replacement: &[String]) -> bool {
    let DFStatement::Statement(inner) = statement else { return false };
    let mut replaced = false;
    let _ = inner.visit(&mut ExprRewriter(|e: &mut Expr| {
        if let Expr::CompoundIdentifier(parts) = e {
            if parts.len() == written.len() && parts.iter().zip(written).all(|(p, w)| p.value == *w) {
                *e = match replacement {
                    [name] => Expr::Identifier(Ident::with_quote('`', name)),
                    _ => Expr::CompoundIdentifier(replacement.iter().map(|p| Ident::with_quote('`', p)).collect()),
                };
                replaced = true;
            }
        }
        ControlFlow::<()>::Continue(())
    }));
    replaced
}

struct ExprVisitor<F>(F);

impl<F: FnMut(&Expr) -> ControlFlow<()>> datafusion::sql::sqlparser::ast::Visitor for ExprVisitor<F> {
    type Break = ();
    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        (self.0)(expr)
    }
}

struct ExprRewriter<F>(F);

impl<F: FnMut(&mut Expr) -> ControlFlow<()>> datafusion::sql::sqlparser::ast::VisitorMut for ExprRewriter<F> {
    type Break = ();
    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        (self.0)(expr)
    }
}
