//! ClickHouse's outer-join semantics on DataFusion plans.
//!
//! With `join_use_nulls = 0` (ClickHouse's default) the columns of the side that has no
//! match in a LEFT/RIGHT/FULL join get their type's default value (`0`, `''`,
//! `1970-01-01`), not NULL; a column that is `Nullable` in its table stays NULL. Type
//! names do not change either (`UInt8`, not `Nullable(UInt8)`). DataFusion produces
//! NULLs, so after planning each such join gets a projection on top that replaces the
//! filled side's non-nullable columns by `coalesce(column, default)`, under the same
//! qualified name, so everything above the join resolves the columns as before.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::{Expr, JoinType, LogicalPlan, Projection};
use granary_common::Result;

/// Applies `join_use_nulls = 0` to every outer join of `plan`.
pub fn fill_join_defaults(plan: LogicalPlan) -> Result<LogicalPlan> {
    let coalesce = datafusion::functions::core::coalesce();
    let rewritten = plan.transform_up(|node| {
        let LogicalPlan::Join(join) = &node else { return Ok(Transformed::no(node)) };
        let (fill_left, fill_right) = match join.join_type {
            JoinType::Left => (false, true),
            JoinType::Right => (true, false),
            JoinType::Full => (true, true),
            _ => return Ok(Transformed::no(node)),
        };
        let left_len = join.left.schema().fields().len();
        let inputs = [join.left.schema().clone(), join.right.schema().clone()];
        let output = node.schema().clone();
        if output.fields().len() != left_len + inputs[1].fields().len() {
            return Ok(Transformed::no(node)); // not the plain left ++ right layout
        }
        // USING keys of the filled side take the other side's value (ClickHouse shows
        // the key of whichever side matched).
        let using_partner = |side: usize, name: &str| -> Option<Expr> {
            if join.join_constraint != datafusion::logical_expr::JoinConstraint::Using {
                return None;
            }
            join.on.iter().find_map(|(l, r)| {
                let (mine, other) = if side == 0 { (l, r) } else { (r, l) };
                match mine {
                    Expr::Column(c) if c.name == name => Some(other.clone()),
                    _ => None,
                }
            })
        };
        let mut changed = false;
        let mut exprs = Vec::with_capacity(output.fields().len());
        for (i, (qualifier, field)) in output.iter().enumerate() {
            let (side, index, fill) = if i < left_len { (0, i, fill_left) } else { (1, i - left_len, fill_right) };
            let column = Expr::Column(datafusion::common::Column::new(qualifier.cloned(), field.name()));
            let nullable_in_input = inputs[side].field(index).is_nullable();
            let default = if fill && !nullable_in_input { ScalarValue::new_default(field.data_type()).ok() } else { None };
            let partner = if fill { using_partner(side, field.name()) } else { None };
            match (default, partner) {
                (default, Some(partner)) => {
                    changed = true;
                    let mut args = vec![column, partner];
                    args.extend(default.map(|d| Expr::Literal(d, None)));
                    exprs.push(coalesce_as(&coalesce, args, qualifier, field));
                }
                (Some(default), None) => {
                    changed = true;
                    exprs.push(coalesce_as(&coalesce, vec![column, Expr::Literal(default, None)], qualifier, field));
                }
                (None, None) => exprs.push(column),
            }
        }
        if !changed {
            return Ok(Transformed::no(node));
        }
        Ok(Transformed::yes(LogicalPlan::Projection(Projection::try_new(exprs, Arc::new(node))?)))
    })?;
    Ok(rewritten.data)
}

/// `coalesce(args...)` under the qualified name and metadata of `field`, so the nodes
/// above resolve it exactly as the column it replaces.
pub(crate) fn coalesce_as(
    coalesce: &Arc<datafusion::logical_expr::ScalarUDF>,
    args: Vec<Expr>,
    qualifier: Option<&datafusion::common::TableReference>,
    field: &datafusion::arrow::datatypes::Field,
) -> Expr {
    let filled = Expr::ScalarFunction(ScalarFunction::new_udf(coalesce.clone(), args));
    let metadata = (!field.metadata().is_empty()).then(|| field.metadata().clone().into());
    filled.alias_qualified_with_metadata(qualifier.cloned(), field.name(), metadata)
}

/// ClickHouse's names for result columns read from a join whose tables share a column
/// name: a column listed as `y.a` is named `y.a` unless it comes from the left-most table
/// (as `*` names it, query/column_lists.rs). DataFusion names it `a` (or the SQL layer's
/// repeat name `a\0<n>`); a projection on top of the result renames it. Only the SELECT
/// list of the outermost query, under its ORDER BY / LIMIT / DISTINCT, is looked at.
pub fn name_qualified_join_columns(plan: LogicalPlan) -> Result<LogicalPlan> {
    let mut select = &plan;
    let projection = loop {
        match select {
            LogicalPlan::Limit(limit) => select = limit.input.as_ref(),
            LogicalPlan::Sort(sort) => select = sort.input.as_ref(),
            LogicalPlan::Distinct(datafusion::logical_expr::Distinct::All(input)) => select = input.as_ref(),
            LogicalPlan::Projection(projection) => break projection,
            _ => return Ok(plan),
        }
    };
    let from = projection.input.schema();
    let Some(first_table) = from.iter().next().and_then(|(q, _)| q.cloned()) else { return Ok(plan) };
    let new_names: Vec<Option<String>> = projection
        .expr
        .iter()
        .map(|expr| {
            let column = match expr {
                Expr::Column(c) => c,
                Expr::Alias(alias) => match alias.expr.as_ref() {
                    Expr::Column(c) if granary_sql::names::displayed_name(&alias.name) == c.name && alias.name != c.name => c,
                    _ => return None,
                },
                _ => return None,
            };
            let qualifier = column.relation.as_ref()?;
            let shared = from.iter().filter(|(_, f)| f.name() == &column.name).count() > 1;
            (shared && qualifier != &first_table).then(|| format!("{}.{}", qualifier.table(), column.name))
        })
        .collect();
    if new_names.iter().all(Option::is_none) || new_names.len() != plan.schema().fields().len() {
        return Ok(plan);
    }
    let schema = plan.schema().clone();
    let exprs = schema
        .iter()
        .zip(new_names)
        .map(|((qualifier, field), new_name)| {
            let column = Expr::Column(datafusion::common::Column::new(qualifier.cloned(), field.name()));
            match new_name {
                Some(name) => column.alias(name),
                None => column,
            }
        })
        .collect();
    Ok(LogicalPlan::Projection(Projection::try_new(exprs, Arc::new(plan))?))
}
