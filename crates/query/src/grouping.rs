//! ClickHouse's ROLLUP / CUBE / GROUPING SETS results on DataFusion plans.
//!
//! With `group_by_use_nulls = 0` (ClickHouse's default) a key that a row does not group
//! by (`b` in the `(a)` subtotal of `ROLLUP(a, b)`) shows its type's default value
//! (`0`, `''`), and keeps its type; DataFusion produces NULL there. After planning, each
//! aggregation by grouping sets gets a projection on top that replaces its non-nullable
//! keys by `coalesce(key, default)` under the same name. Keys that are `Nullable` in the
//! input stay NULL, as in ClickHouse.

use std::sync::Arc;

use datafusion::common::tree_node::Transformed;
use datafusion::common::{Column, ScalarValue};
use datafusion::logical_expr::{Expr, ExprSchemable, LogicalPlan, Projection};
use granary_common::Result;

/// Applies `group_by_use_nulls = 0` to every grouping-sets aggregation of `plan`.
pub fn fill_grouping_defaults(plan: LogicalPlan) -> Result<LogicalPlan> {
    let coalesce = datafusion::functions::core::coalesce();
    let rewritten = plan.transform_up_with_subqueries(|node| {
        let LogicalPlan::Aggregate(aggregate) = &node else { return Ok(Transformed::no(node)) };
        let [Expr::GroupingSet(set)] = aggregate.group_expr.as_slice() else { return Ok(Transformed::no(node)) };
        let keys = set.distinct_expr();
        let input = aggregate.input.schema();
        let output = node.schema().clone();
        let mut changed = false;
        let mut exprs = Vec::with_capacity(output.fields().len());
        for (i, (qualifier, field)) in output.iter().enumerate() {
            let column = Expr::Column(Column::new(qualifier.cloned(), field.name()));
            // The aggregate's outputs start with the distinct keys, in order.
            let key_not_null = keys.get(i).is_some_and(|key| key.nullable(input).is_ok_and(|nullable| !nullable));
            match ScalarValue::new_default(field.data_type()).ok().filter(|_| key_not_null) {
                Some(default) => {
                    changed = true;
                    exprs.push(crate::joins::coalesce_as(&coalesce, vec![column, Expr::Literal(default, None)], qualifier, field));
                }
                None => exprs.push(column),
            }
        }
        if !changed {
            return Ok(Transformed::no(node));
        }
        Ok(Transformed::yes(LogicalPlan::Projection(Projection::try_new(exprs, Arc::new(node))?)))
    })?;
    Ok(rewritten.data)
}
