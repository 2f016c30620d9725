//! `GROUP BY ... WITH TOTALS`: one more row after the result, the aggregates over all the
//! rows that reached GROUP BY, with the keys at their types' defaults (NULL for
//! `Nullable` keys), and the SELECT list computed over that row. Formats show it apart
//! from the data (TSV/CSV after an empty line, JSON as `"totals"`, Pretty as a `Totals:`
//! table); ORDER BY and LIMIT do not apply to it.
//!
//! ```text
//! outer query plan:  Projection ─ [Limit] ─ [Sort] ─ [Filter: HAVING] ─ Aggregate(keys, aggs) ─ input
//! totals plan:       Projection ─────────────────────────── keys as defaults ─ Aggregate((), aggs) ─ input'
//! ```
//!
//! The totals plan runs as a second DataFusion plan over the same input, read again.
//! With HAVING, ClickHouse's default `totals_mode = 'after_having_exclusive'` counts only
//! the groups that pass HAVING: `input'` is then the input rows whose keys are those of
//! a passing group (a semi-join with the filtered aggregate), and HAVING itself does not
//! filter the totals row.

use std::ops::ControlFlow;
use std::sync::Arc;

use datafusion::common::metadata::FieldMetadata;
use datafusion::common::{Column, JoinType, ScalarValue};
use datafusion::logical_expr::{
    Aggregate, EmptyRelation, Expr, LogicalPlan, LogicalPlanBuilder, Operator, Projection,
};
use datafusion::sql::sqlparser::ast::{self, Visitor};
use granary_sql::walk::walk;
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

/// Where the totals row of a query comes from.
pub(crate) enum TotalsSource {
    /// `GROUP BY ... WITH TOTALS` of the outer SELECT.
    Outer,
    /// `WITH TOTALS` of the subquery that is the outer SELECT's only FROM item, by the
    /// name of its derived table: ClickHouse passes that totals row through the outer
    /// SELECT list (not through WHERE, ORDER BY or LIMIT), and drops it when the outer
    /// query aggregates.
    Derived(String),
    /// `WITH TOTALS` of a branch of the outer `UNION ALL` (its own, or that of its only
    /// FROM subquery), by the branch's position: ClickHouse shows the totals row of
    /// the first branch that has one.
    UnionBranch(usize, Box<TotalsSource>),
}

/// Takes `WITH TOTALS` out of the outer SELECT, or out of the subquery that is its FROM
/// item or a side of its joins. `WITH TOTALS` anywhere else (deeper subqueries, a second
/// joined subquery) is refused.
pub(crate) fn take_totals(query: &mut ast::Query) -> Result<Option<TotalsSource>> {
    let mut source = None;
    match query.body.as_mut() {
        ast::SetExpr::Select(select) => source = take_select_totals(select, 0),
        body @ ast::SetExpr::SetOperation { op: ast::SetOperator::Union, set_quantifier: ast::SetQuantifier::All, .. } => {
            let mut branches = Vec::new();
            union_all_selects(body, &mut branches);
            for (position, select) in branches.into_iter().enumerate() {
                // Every branch's WITH TOTALS is taken; the first one's row is shown.
                if let Some(Some(branch)) = select.map(|s| take_select_totals(s, position)) {
                    source.get_or_insert(TotalsSource::UnionBranch(position, Box::new(branch)));
                }
            }
        }
        _ => {}
    }
    struct NestedTotals;
    impl Visitor for NestedTotals {
        type Break = ();
        fn pre_visit_query(&mut self, query: &ast::Query) -> ControlFlow<()> {
            if has_totals(&query.body) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
    }
    if walk(query, &mut NestedTotals).is_break() {
        return Err(Error::new(
            ErrorCode::NOT_IMPLEMENTED,
            "GROUP BY ... WITH TOTALS is supported only in the outer SELECT (or a branch of its UNION ALL) or in a subquery that is its FROM item or one side of its joins, not in deeper subqueries",
        ));
    }
    Ok(source)
}

/// The totals of one SELECT: its own, or those of the subquery that is its FROM item or
/// one side of its joins (named `__granary_totals<n>` when it had no alias).
fn take_select_totals(select: &mut ast::Select, position: usize) -> Option<TotalsSource> {
    if take_own_totals(select) {
        return Some(TotalsSource::Outer);
    }
    let [ast::TableWithJoins { relation, joins }] = select.from.as_mut_slice() else { return None };
    let factors = std::iter::once(relation).chain(joins.iter_mut().map(|j| &mut j.relation));
    let mut found = None;
    for factor in factors {
        if let ast::TableFactor::Derived { subquery, alias, .. } = factor {
            if let ast::SetExpr::Select(inner) = subquery.body.as_mut() {
                if take_own_totals(inner) {
                    found = Some(alias);
                    break;
                }
            }
        }
    }
    let alias = found?;
    let name = match alias {
        Some(alias) => alias.name.value.clone(),
        None => {
            let name = if position == 0 { "__granary_totals".to_string() } else { format!("__granary_totals{position}") };
            *alias = Some(ast::TableAlias { explicit: true, name: ast::Ident::new(name.clone()), columns: Vec::new(), at: None });
            name
        }
    };
    Some(TotalsSource::Derived(name))
}

/// The branches of a `UNION ALL` chain in order (None for a branch that is no SELECT).
fn union_all_selects<'a>(body: &'a mut ast::SetExpr, out: &mut Vec<Option<&'a mut ast::Select>>) {
    match body {
        ast::SetExpr::SetOperation { op: ast::SetOperator::Union, set_quantifier: ast::SetQuantifier::All, left, right } => {
            union_all_selects(left, out);
            union_all_selects(right, out);
        }
        ast::SetExpr::Select(select) => out.push(Some(select)),
        _ => out.push(None),
    }
}

/// The totals row of `UNION ALL` branch `position` (see [`TotalsSource::UnionBranch`]),
/// in the union's column names and types; ORDER BY and LIMIT over the union do not
/// apply to it.
pub(crate) fn plan_union_totals(plan: &LogicalPlan, position: usize, source: &TotalsSource) -> Result<Option<LogicalPlan>> {
    match plan {
        LogicalPlan::Sort(sort) => plan_union_totals(&sort.input, position, source),
        LogicalPlan::Limit(limit) => plan_union_totals(&limit.input, position, source),
        LogicalPlan::Union(union) => {
            let mut branches = Vec::new();
            union_inputs(plan, &mut branches);
            let Some(branch) = branches.get(position) else { return Err(Error::new(ErrorCode::LOGICAL_ERROR, "WITH TOTALS of a UNION branch that is not there")) };
            let totals = match source {
                TotalsSource::Outer => Some(plan_totals(branch)?),
                TotalsSource::Derived(alias) => plan_totals_through(branch, alias)?,
                TotalsSource::UnionBranch(..) => None,
            };
            let Some(totals) = totals else { return Ok(None) };
            let columns = totals.schema().columns();
            let exprs = union
                .schema
                .fields()
                .iter()
                .zip(columns)
                .map(|(field, column)| datafusion::logical_expr::cast(Expr::Column(column), field.data_type().clone()).alias(field.name()))
                .collect::<Vec<_>>();
            Ok(Some(LogicalPlanBuilder::from(totals).project(exprs)?.build()?))
        }
        other => Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("WITH TOTALS in a UNION ALL branch is not supported below a {}", other.display()))),
    }
}

fn union_inputs<'a>(plan: &'a LogicalPlan, out: &mut Vec<&'a LogicalPlan>) {
    match plan {
        LogicalPlan::Union(union) => union.inputs.iter().for_each(|input| union_inputs(input, out)),
        other => out.push(other),
    }
}

/// Removes `WITH TOTALS` from `select`'s GROUP BY; true if it was there.
fn take_own_totals(select: &mut ast::Select) -> bool {
    let ast::GroupByExpr::Expressions(_, modifiers) = &mut select.group_by else { return false };
    let before = modifiers.len();
    modifiers.retain(|m| !matches!(m, ast::GroupByWithModifier::Totals));
    modifiers.len() != before
}

/// The totals plan of a query whose FROM subquery `alias` had WITH TOTALS: the outer
/// projections over that subquery's totals row; None when the outer query aggregates
/// (ClickHouse then shows no totals).
pub(crate) fn plan_totals_through(plan: &LogicalPlan, alias: &str) -> Result<Option<LogicalPlan>> {
    match plan {
        LogicalPlan::Sort(sort) => plan_totals_through(&sort.input, alias),
        LogicalPlan::Limit(limit) => plan_totals_through(&limit.input, alias),
        // The outer WHERE does not filter the totals row.
        LogicalPlan::Filter(filter) => plan_totals_through(&filter.input, alias),
        LogicalPlan::Extension(extension) if extension.node.name() == "Fill" => match extension.node.inputs().first() {
            Some(input) => plan_totals_through(input, alias),
            None => Err(Error::new(ErrorCode::LOGICAL_ERROR, "Fill without an input")),
        },
        LogicalPlan::Projection(projection) => match plan_totals_through(&projection.input, alias)? {
            Some(input) => Ok(Some(LogicalPlan::Projection(Projection::try_new(projection.expr.clone(), Arc::new(input))?))),
            None => Ok(None),
        },
        LogicalPlan::SubqueryAlias(subquery) if subquery.alias.table() == alias => {
            let totals = plan_totals(&subquery.input)?;
            Ok(Some(LogicalPlan::SubqueryAlias(datafusion::logical_expr::SubqueryAlias::try_new(Arc::new(totals), subquery.alias.clone())?)))
        }
        // A joined subquery's totals: its totals row joined with the other side's
        // defaults, as ClickHouse joins the totals of one side with a row of defaults
        // when the other has none.
        LogicalPlan::Join(join) => {
            let left_holds = holds_alias(&join.left, alias);
            if !left_holds && !holds_alias(&join.right, alias) {
                return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "WITH TOTALS in a subquery is not supported below this join"));
            }
            let (side, other) = if left_holds { (&join.left, &join.right) } else { (&join.right, &join.left) };
            let Some(totals) = plan_totals_through(side, alias)? else { return Ok(None) };
            let left_width = join.left.schema().fields().len();
            let mut exprs = Vec::with_capacity(join.schema.fields().len());
            for (i, (qualifier, field)) in join.schema.iter().enumerate() {
                let on_left = i < left_width;
                let expr = if on_left == left_holds {
                    Expr::Column(Column::new(qualifier.cloned(), field.name()))
                } else {
                    let j = if on_left { i } else { i - left_width };
                    let own = other.schema().fields().get(j).cloned().unwrap_or_else(|| Arc::clone(field));
                    let value = if ChType::from_field(&own).is_nullable() {
                        ScalarValue::try_from(field.data_type())?
                    } else {
                        ScalarValue::new_default(field.data_type())?
                    };
                    Expr::Literal(value, Some(FieldMetadata::from(own.metadata().clone())))
                };
                exprs.push(expr.alias_qualified(qualifier.cloned(), field.name()));
            }
            Ok(Some(LogicalPlan::Projection(Projection::try_new(exprs, Arc::new(totals))?)))
        }
        LogicalPlan::Aggregate(_) | LogicalPlan::Distinct(_) | LogicalPlan::Window(_) => Ok(None),
        other => Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("WITH TOTALS in a subquery is not supported below a {} of the outer query", other.display()))),
    }
}

/// Whether `plan` reads the subquery named `alias`.
fn holds_alias(plan: &LogicalPlan, alias: &str) -> bool {
    use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
    let mut found = false;
    let _ = plan.apply(|node| {
        if matches!(node, LogicalPlan::SubqueryAlias(s) if s.alias.table() == alias) {
            found = true;
            return Ok(TreeNodeRecursion::Stop);
        }
        Ok(TreeNodeRecursion::Continue)
    });
    found
}

fn has_totals(body: &ast::SetExpr) -> bool {
    match body {
        ast::SetExpr::Select(select) => {
            matches!(&select.group_by, ast::GroupByExpr::Expressions(_, m) | ast::GroupByExpr::All(m) if m.contains(&ast::GroupByWithModifier::Totals))
        }
        ast::SetExpr::SetOperation { left, right, .. } => has_totals(left) || has_totals(right),
        _ => false,
    }
}

/// The plan of the totals row of `plan`, the outer query's plan.
pub(crate) fn plan_totals(plan: &LogicalPlan) -> Result<LogicalPlan> {
    match plan {
        // One row: ordering, limits and WITH FILL do not apply.
        LogicalPlan::Sort(sort) => plan_totals(&sort.input),
        LogicalPlan::Limit(limit) => plan_totals(&limit.input),
        LogicalPlan::Extension(extension) if extension.node.name() == "Fill" => match extension.node.inputs().first() {
            Some(input) => plan_totals(input),
            None => Err(Error::new(ErrorCode::LOGICAL_ERROR, "Fill without an input")),
        },
        LogicalPlan::Projection(projection) => {
            let input = plan_totals(&projection.input)?;
            Ok(LogicalPlan::Projection(Projection::try_new(projection.expr.clone(), Arc::new(input))?))
        }
        LogicalPlan::Distinct(_) => {
            let input = plan.inputs().first().map(|i| plan_totals(i)).transpose()?.ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "DISTINCT without an input"))?;
            Ok(plan.with_new_exprs(plan.expressions(), vec![input])?)
        }
        LogicalPlan::Filter(filter) => match filter.input.as_ref() {
            LogicalPlan::Aggregate(aggregate) => totals_after_having(aggregate, &filter.predicate),
            _ => Err(not_supported(plan)),
        },
        LogicalPlan::Aggregate(aggregate) => totals_of(aggregate, aggregate.input.as_ref().clone()),
        other => Err(not_supported(other)),
    }
}

fn not_supported(plan: &LogicalPlan) -> Error {
    Error::new(ErrorCode::NOT_IMPLEMENTED, format!("WITH TOTALS is not supported over a {} in the outer query", plan.display()))
}

/// The aggregates of `aggregate` over all of `input`, in `aggregate`'s output schema.
fn totals_of(aggregate: &Aggregate, input: LogicalPlan) -> Result<LogicalPlan> {
    let keys = aggregate.schema.fields().len() - aggregate.aggr_expr.len();
    let totals = if aggregate.aggr_expr.is_empty() {
        // Nothing to aggregate: the row is keys alone.
        LogicalPlan::EmptyRelation(EmptyRelation { produce_one_row: true, schema: Arc::new(datafusion::common::DFSchema::empty()) })
    } else {
        LogicalPlan::Aggregate(Aggregate::try_new(Arc::new(input), Vec::new(), aggregate.aggr_expr.clone())?)
    };
    let mut exprs = Vec::with_capacity(aggregate.schema.fields().len());
    for (i, (qualifier, field)) in aggregate.schema.iter().enumerate() {
        let expr = if i < keys {
            // Keys (and a grouping-set id) at their defaults; the metadata keeps the
            // exact ClickHouse type (Date vs Date32) for what is computed from them.
            let value = if ChType::from_field(field).is_nullable() {
                ScalarValue::try_from(field.data_type())?
            } else {
                ScalarValue::new_default(field.data_type())?
            };
            Expr::Literal(value, Some(FieldMetadata::from(field.metadata().clone())))
        } else {
            let (total_qualifier, total_field) = totals.schema().qualified_field(i - keys);
            Expr::Column(Column::new(total_qualifier.cloned(), total_field.name()))
        };
        exprs.push(expr.alias_qualified(qualifier.cloned(), field.name()));
    }
    Ok(LogicalPlan::Projection(Projection::try_new(exprs, Arc::new(totals))?))
}

/// `totals_mode = 'after_having_exclusive'`: the aggregates over the rows of the groups
/// that pass HAVING.
fn totals_after_having(aggregate: &Aggregate, having: &Expr) -> Result<LogicalPlan> {
    if aggregate.group_expr.iter().any(|e| matches!(e, Expr::GroupingSet(_))) {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "WITH TOTALS with HAVING over ROLLUP, CUBE or GROUPING SETS is not supported"));
    }
    const GROUPS: &str = "__granary_totals_groups";
    let keys: Vec<Expr> = aggregate
        .schema
        .iter()
        .take(aggregate.group_expr.len())
        .enumerate()
        .map(|(i, (qualifier, field))| Expr::Column(Column::new(qualifier.cloned(), field.name())).alias(format!("key_{i}")))
        .collect();
    let passing = LogicalPlanBuilder::from(LogicalPlan::Aggregate(aggregate.clone())).filter(having.clone())?.project(keys)?.alias(GROUPS)?.build()?;
    let on: Vec<Expr> = aggregate
        .group_expr
        .iter()
        .enumerate()
        .map(|(i, key)| Expr::BinaryExpr(datafusion::logical_expr::BinaryExpr::new(
            Box::new(key.clone()),
            Operator::IsNotDistinctFrom,
            Box::new(Expr::Column(Column::new(Some(GROUPS), format!("key_{i}")))),
        )))
        .collect();
    let rows = LogicalPlanBuilder::from(aggregate.input.as_ref().clone()).join_on(passing, JoinType::LeftSemi, on)?.build()?;
    totals_of(aggregate, rows)
}
