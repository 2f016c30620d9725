//! ORDER BY on floats puts NaN next to NULL, as ClickHouse does: `ASC NULLS LAST` gives
//! `..., inf, nan, NULL`, `ASC NULLS FIRST` gives `NULL, nan, -inf, ...`, `DESC NULLS
//! LAST` gives `inf, ..., nan, NULL`. DataFusion orders by IEEE total order, where NaN
//! is the largest value but `-nan` (sign bit set, from `-nan` or `0/0 * -1`) the
//! smallest, so every float key gets a key `isnan(x)` sorted first.

use std::sync::Arc;

use arrow::datatypes::DataType;
use datafusion::common::tree_node::Transformed;
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::{Expr, ExprSchemable, LogicalPlan, Sort, SortExpr};
use granary_common::Result;

pub(crate) fn nan_next_to_null(plan: LogicalPlan) -> Result<LogicalPlan> {
    let plan = plan.transform_up_with_subqueries(|node| {
        let LogicalPlan::Sort(sort) = &node else { return Ok(Transformed::no(node)) };
        let schema = sort.input.schema();
        let needs_key = |key: &SortExpr| matches!(key.expr.get_type(schema), Ok(DataType::Float16 | DataType::Float32 | DataType::Float64));
        if !sort.expr.iter().any(needs_key) {
            return Ok(Transformed::no(node));
        }
        let mut keys = Vec::with_capacity(sort.expr.len() + 1);
        for key in &sort.expr {
            if needs_key(key) {
                let is_nan = Expr::ScalarFunction(ScalarFunction::new_udf(datafusion::functions::math::isnan(), vec![key.expr.clone()]));
                // NULL keys stay on their side; NaN (true) goes next to them.
                keys.push(SortExpr { expr: is_nan, asc: !key.nulls_first, nulls_first: key.nulls_first });
            }
            keys.push(key.clone());
        }
        let LogicalPlan::Sort(sort) = node else { unreachable!("matched above") };
        Ok(Transformed::yes(LogicalPlan::Sort(Sort { expr: keys, input: Arc::clone(&sort.input), fetch: sort.fetch })))
    })?;
    Ok(plan.data)
}
