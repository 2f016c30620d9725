//! ClickHouse's conditions: any number is a condition, non-zero being true.
//!
//! `WHERE active` (a UInt8 column), `WHERE x > 2 AND x % 2`, `NOT ignore(x)` and
//! `JOIN ... ON a.k = b.k AND b.flag` are everyday ClickHouse SQL, but DataFusion wants
//! Booleans in filters and around AND/OR/NOT, and checks that while building the plan,
//! before any of our functions could step in. So every condition operand that is not
//! Boolean by its shape (a comparison, IN, BETWEEN, LIKE, IS NULL, EXISTS, or AND/OR/NOT
//! of such) is wrapped as `__condition(x, '<where>')`. That function checks the type as
//! ClickHouse does (numbers and Bool, also Nullable or LowCardinality; a String is an
//! error) and is simplified away during optimization: a Boolean operand is itself, an
//! integer `x != 0`, so filter pushdown and primary-key pruning see ordinary predicates.
//!
//! Where the condition sits decides the error ClickHouse reports for a bad type, so the
//! second argument names it: the clause (`WHERE`, `PREWHERE`, `HAVING`, `QUALIFY`,
//! `JOIN ON`) for a whole condition, the function (`and`, `or`, `not`) for an operand.
//!
//! Inside a wrapped operand, AND/OR/NOT and comparisons are values, not conditions
//! (`WHERE if(a AND b, x, y)`), so they get the projection's treatment: ClickHouse's
//! UInt8 functions `and`, `equals`, ....
//!
//! ORDER BY keys are values too and get the same treatment.
//!
//! This pass also joins `PREWHERE` to `WHERE` (the filter is the same; reading order is
//! the storage engine's business), in every SELECT, subqueries included. Under FINAL it
//! is not the same (ClickHouse applies PREWHERE before merging the row versions): the
//! PREWHERE of a SELECT reading a table with FINAL is marked `__final_prewhere(c)` for
//! the MergeTree scan.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, JoinConstraint, JoinOperator, ObjectNamePart, OrderBy, OrderByKind, Query, Select, TableFactor, TableWithJoins,
    UnaryOperator, Value, VisitorMut,
};

use crate::rewrite::{comparisons_as_functions, function_call};
use crate::walk::walk_mut;

/// The internal function that takes a number or Bool as a DataFusion Boolean.
pub const CONDITION_FUNCTION: &str = "__condition";

/// The internal function marking the PREWHERE condition of a SELECT that reads a table
/// with FINAL: the MergeTree scan applies it to the rows before the FINAL merge, as
/// ClickHouse does (a WHERE filters the merged rows).
pub const FINAL_PREWHERE_FUNCTION: &str = "__final_prewhere";

/// Rewrites the conditions of every SELECT in `query`. With `wrap` false (no ClickHouse
/// functions registered), only PREWHERE is joined to WHERE.
pub(crate) fn rewrite_conditions(query: &mut Query, wrap: bool) {
    let _ = walk_mut(query, &mut Conditions { wrap });
}

struct Conditions {
    wrap: bool,
}

impl VisitorMut for Conditions {
    type Break = ();

    // An ORDER BY key is a value: `ORDER BY x % 2 AND x > 1` sorts by ClickHouse's UInt8
    // `and(...)` (the same order a Boolean would give, but over numbers too).
    fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        if let (true, Some(OrderBy { kind: OrderByKind::Expressions(keys), .. })) = (self.wrap, &mut query.order_by) {
            keys.iter_mut().for_each(|key| comparisons_as_functions(&mut key.expr));
        }
        ControlFlow::Continue(())
    }

    // Post-order: subqueries inside a condition are done before the condition is wrapped.
    fn post_visit_select(&mut self, select: &mut Select) -> ControlFlow<()> {
        let wrap = self.wrap;
        let condition = |expr: &mut Expr, clause: &'static str| {
            if wrap {
                as_condition(expr, clause);
            }
        };
        if let Some(prewhere) = &mut select.prewhere {
            condition(prewhere, "PREWHERE");
            if wrap && reads_final_table(select_from(&select.from)) {
                *prewhere = function_call(FINAL_PREWHERE_FUNCTION, vec![std::mem::replace(prewhere, Expr::Value(Value::Null.into()))]);
            }
        }
        if let Some(selection) = &mut select.selection {
            condition(selection, "WHERE");
        }
        if let Some(prewhere) = select.prewhere.take() {
            select.selection = Some(match select.selection.take() {
                Some(selection) => Expr::BinaryOp {
                    left: Box::new(Expr::Nested(Box::new(prewhere))),
                    op: BinaryOperator::And,
                    right: Box::new(Expr::Nested(Box::new(selection))),
                },
                None => prewhere,
            });
        }
        if let Some(having) = &mut select.having {
            condition(having, "HAVING");
        }
        if let Some(qualify) = &mut select.qualify {
            condition(qualify, "QUALIFY");
        }
        if wrap {
            select.from.iter_mut().for_each(join_conditions);
        }
        ControlFlow::Continue(())
    }
}

fn select_from(from: &[TableWithJoins]) -> impl Iterator<Item = &TableFactor> {
    from.iter().flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)))
}

/// Whether a table of the FROM clause was written with FINAL (its hint is still there).
fn reads_final_table<'a>(mut factors: impl Iterator<Item = &'a TableFactor>) -> bool {
    factors.any(|factor| match factor {
        TableFactor::Table { with_hints, .. } => {
            with_hints.iter().any(|hint| matches!(hint, Expr::Identifier(ident) if ident.value == crate::FINAL_MARKER && ident.quote_style.is_none()))
        }
        TableFactor::NestedJoin { table_with_joins, .. } => reads_final_table(select_from(std::slice::from_ref(table_with_joins.as_ref()))),
        _ => false,
    })
}

fn join_conditions(table: &mut TableWithJoins) {
    if let TableFactor::NestedJoin { table_with_joins, .. } = &mut table.relation {
        join_conditions(table_with_joins);
    }
    for join in &mut table.joins {
        if let TableFactor::NestedJoin { table_with_joins, .. } = &mut join.relation {
            join_conditions(table_with_joins);
        }
        if let Some(JoinConstraint::On(on)) = join_constraint(&mut join.join_operator) {
            as_condition(on, "JOIN ON");
        }
    }
}

pub(crate) fn join_constraint(operator: &mut JoinOperator) -> Option<&mut JoinConstraint> {
    match operator {
        JoinOperator::Join(c)
        | JoinOperator::Inner(c)
        | JoinOperator::Left(c)
        | JoinOperator::LeftOuter(c)
        | JoinOperator::Right(c)
        | JoinOperator::RightOuter(c)
        | JoinOperator::FullOuter(c)
        | JoinOperator::CrossJoin(c)
        | JoinOperator::Semi(c)
        | JoinOperator::LeftSemi(c)
        | JoinOperator::RightSemi(c)
        | JoinOperator::Anti(c)
        | JoinOperator::LeftAnti(c)
        | JoinOperator::RightAnti(c)
        | JoinOperator::StraightJoin(c)
        | JoinOperator::AsOf { constraint: c, .. } => Some(c),
        JoinOperator::CrossApply | JoinOperator::OuterApply | JoinOperator::ArrayJoin | JoinOperator::LeftArrayJoin | JoinOperator::InnerArrayJoin => None,
    }
}

/// Makes `expr`, which sits where a condition is expected (`context`), Boolean for
/// DataFusion: AND/OR/NOT are entered, Boolean shapes kept, anything else wrapped.
fn as_condition(expr: &mut Expr, context: &'static str) {
    match expr {
        Expr::BinaryOp { op: BinaryOperator::And, left, right } => {
            as_condition(left, "and");
            as_condition(right, "and");
        }
        Expr::BinaryOp { op: BinaryOperator::Or, left, right } => {
            as_condition(left, "or");
            as_condition(right, "or");
        }
        Expr::UnaryOp { op: UnaryOperator::Not, expr: inner } => as_condition(inner, "not"),
        Expr::Nested(inner) => as_condition(inner, context),
        e if is_boolean_shape(e) || is_wrapped(e) => {}
        value => {
            comparisons_as_functions(value);
            let inner = std::mem::replace(value, Expr::value(Value::Null));
            *value = function_call(CONDITION_FUNCTION, vec![inner, Expr::value(Value::SingleQuotedString(context.to_string()))]);
        }
    }
}

/// Whether DataFusion plans `expr` as a Boolean whatever its operands.
fn is_boolean_shape(expr: &Expr) -> bool {
    match expr {
        Expr::BinaryOp { op, .. } => matches!(
            op,
            BinaryOperator::Eq
                | BinaryOperator::NotEq
                | BinaryOperator::Lt
                | BinaryOperator::LtEq
                | BinaryOperator::Gt
                | BinaryOperator::GtEq
                | BinaryOperator::Spaceship
        ),
        Expr::Value(v) => matches!(v.value, Value::Boolean(_)),
        Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::IsTrue(_)
        | Expr::IsNotTrue(_)
        | Expr::IsFalse(_)
        | Expr::IsNotFalse(_)
        | Expr::IsUnknown(_)
        | Expr::IsNotUnknown(_)
        | Expr::IsDistinctFrom(..)
        | Expr::IsNotDistinctFrom(..)
        | Expr::InList { .. }
        | Expr::InSubquery { .. }
        | Expr::InUnnest { .. }
        | Expr::Between { .. }
        | Expr::Like { .. }
        | Expr::ILike { .. }
        | Expr::SimilarTo { .. }
        | Expr::RLike { .. }
        | Expr::Exists { .. }
        | Expr::AnyOp { .. }
        | Expr::AllOp { .. } => true,
        // An ASOF join's marked inequality is Boolean and must stay visible as itself.
        Expr::Function(f) => matches!(f.name.0.as_slice(), [ObjectNamePart::Identifier(i)] if i.value == crate::ASOF_MARKER),
        _ => false,
    }
}

fn is_wrapped(expr: &Expr) -> bool {
    matches!(expr, Expr::Function(f) if matches!(f.name.0.as_slice(), [ObjectNamePart::Identifier(i)] if i.value == CONDITION_FUNCTION))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    fn rewrite(sql: &str) -> String {
        let mut query = Parser::new(&ClickHouseDialect {}).try_with_sql(sql).unwrap().parse_query().unwrap();
        rewrite_conditions(&mut query, true);
        query.to_string()
    }

    #[test]
    fn numbers_in_conditions_are_wrapped() {
        assert_eq!(rewrite("SELECT 1 FROM t WHERE active"), "SELECT 1 FROM t WHERE __condition(active, 'WHERE')");
        assert_eq!(
            rewrite("SELECT 1 FROM t WHERE x > 2 AND (x % 2 OR NOT ignore(x))"),
            "SELECT 1 FROM t WHERE x > 2 AND (__condition(x % 2, 'or') OR NOT __condition(ignore(x), 'not'))"
        );
        // Boolean shapes are left alone; values inside a wrapped operand are UInt8 functions.
        assert_eq!(rewrite("SELECT 1 FROM t WHERE x IN (1, 2) AND s LIKE 'a%' AND y IS NULL"), "SELECT 1 FROM t WHERE x IN (1, 2) AND s LIKE 'a%' AND y IS NULL");
        assert_eq!(rewrite("SELECT 1 FROM t WHERE if(a AND b, 1, 0)"), "SELECT 1 FROM t WHERE __condition(if(and(a, b), 1, 0), 'WHERE')");
    }

    #[test]
    fn every_clause_and_subquery() {
        assert_eq!(
            rewrite("SELECT k FROM t JOIN u ON t.k = u.k AND u.flag WHERE k IN (SELECT k FROM v WHERE ok) GROUP BY k HAVING count() QUALIFY 1"),
            "SELECT k FROM t JOIN u ON t.k = u.k AND __condition(u.flag, 'and') WHERE k IN (SELECT k FROM v WHERE __condition(ok, 'WHERE')) \
             GROUP BY k HAVING __condition(count(), 'HAVING') QUALIFY __condition(1, 'QUALIFY')"
        );
        assert_eq!(rewrite("SELECT 1 FROM t PREWHERE a WHERE b = 1"), "SELECT 1 FROM t WHERE (__condition(a, 'PREWHERE')) AND (b = 1)");
        // A PREWHERE over a FINAL table is marked for the scan, which applies it before merging.
        assert_eq!(
            rewrite("SELECT 1 FROM t WITH (__granary_final) PREWHERE a < 1 WHERE b = 1"),
            "SELECT 1 FROM t WITH (__granary_final) WHERE (__final_prewhere(a < 1)) AND (b = 1)"
        );
        // Already wrapped: unchanged.
        assert_eq!(rewrite("SELECT 1 FROM t WHERE __condition(a, 'WHERE')"), "SELECT 1 FROM t WHERE __condition(a, 'WHERE')");
    }
}
