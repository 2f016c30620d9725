//! Float comparisons outside the SELECT list (WHERE, HAVING, CASE conditions, ...) on
//! IEEE rules, as ClickHouse compares: NaN equals nothing and orders with nothing
//! (`nan = nan` is 0, `nan != nan` is 1, `nan > 1` is 0), `-0 = 0`. Arrow's kernels
//! order floats totally (NaN above +inf, -NaN below -inf, -0 below 0); the SELECT list
//! already uses ClickHouse's `equals`/`less`/... (crate::arithmetic).
//!
//! A comparison of a float with a constant stays a plain comparison, so scans still
//! prune with it, and only where the orders differ: `x = c` and `x != c` for a non-zero,
//! non-NaN `c` are the same in both orders and are left alone; `x < c` gets a bound that
//! keeps NaNs out (`x < c AND x >= -inf`), a zero is compared as the signed zeros that
//! make both orders agree (`x = 0` is `x >= -0.0 AND x <= 0.0`), and a NaN constant
//! makes the answer false (true for `!=`), NULL where the other side is. A comparison
//! of two non-constant floats is [`IeeeCompare`], a one-pass IEEE kernel. Other types
//! and join keys are untouched.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray};
use datafusion::arrow::buffer::{BooleanBuffer, NullBuffer};
use datafusion::arrow::datatypes::{DataType, Float32Type, Float64Type};
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{DFSchema, Result, ScalarValue};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::expr_rewriter::NamePreserver;
use datafusion::logical_expr::simplify::SimplifyContext;
use datafusion::logical_expr::{
    Between, BinaryExpr, ColumnarValue, Expr, ExprSchemable, LogicalPlan, Operator, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::optimizer::simplify_expressions::ExprSimplifier;

/// Rewrites the float comparisons of `plan` (and its subqueries) to IEEE semantics.
pub fn ieee_float_comparisons(plan: LogicalPlan) -> Result<LogicalPlan> {
    rewrite_single_input_expressions(plan, rewrite)
}

/// Applies `rewrite` bottom-up to the expressions of every Filter, Projection,
/// Aggregate, Window and Sort of `plan` (and its subqueries), keeping their output names.
/// Join conditions are left alone: equalities there become hash-join keys, and
/// ClickHouse's hash joins match NaN keys too.
pub(crate) fn rewrite_single_input_expressions(plan: LogicalPlan, rewrite: fn(Expr, &DFSchema) -> Result<Transformed<Expr>>) -> Result<LogicalPlan> {
    let out = plan.transform_up_with_subqueries(|node| {
        if !matches!(node, LogicalPlan::Filter(_) | LogicalPlan::Projection(_) | LogicalPlan::Aggregate(_) | LogicalPlan::Window(_) | LogicalPlan::Sort(_)) {
            return Ok(Transformed::no(node));
        }
        let schema = match node.inputs().as_slice() {
            [input] => Arc::clone(input.schema()),
            _ => return Ok(Transformed::no(node)),
        };
        let names = NamePreserver::new(&node);
        node.map_expressions(|expr| {
            let saved = names.save(&expr);
            let rewritten = expr.transform_up(|e| rewrite(e, &schema))?;
            Ok(if rewritten.transformed { Transformed::yes(saved.restore(rewritten.data)) } else { rewritten })
        })
    })?;
    Ok(out.data)
}

fn is_comparison(op: Operator) -> bool {
    matches!(op, Operator::Eq | Operator::NotEq | Operator::Lt | Operator::LtEq | Operator::Gt | Operator::GtEq)
}

fn is_float_type(t: &DataType) -> bool {
    matches!(t, DataType::Float16 | DataType::Float32 | DataType::Float64)
}

fn rewrite(expr: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) if is_comparison(op) => compare(*left, op, *right, schema),
        Expr::Between(Between { expr, negated, low, high }) if expr.get_type(schema).is_ok_and(|t| is_float_type(&t)) => {
            // `x NOT BETWEEN a AND b` is `x < a OR x > b` in ClickHouse: false for NaN.
            let (low_op, high_op, join) = if negated { (Operator::Lt, Operator::Gt, Operator::Or) } else { (Operator::GtEq, Operator::LtEq, Operator::And) };
            let low = compare((*expr).clone(), low_op, *low, schema)?.data;
            let high = compare(*expr, high_op, *high, schema)?.data;
            Ok(Transformed::yes(binary(low, join, high)))
        }
        other => Ok(Transformed::no(other)),
    }
}

fn binary(left: Expr, op: Operator, right: Expr) -> Expr {
    Expr::BinaryExpr(BinaryExpr { left: Box::new(left), op, right: Box::new(right) })
}

fn literal(value: ScalarValue) -> Expr {
    Expr::Literal(value, None)
}

/// The value of `expr` when it is a constant (folded if needed), as f64, with the
/// constant itself; `None` for anything that reads columns or a subquery.
fn constant_value(expr: &Expr) -> Option<(ScalarValue, f64)> {
    let value = match expr {
        Expr::Literal(value, _) => value.clone(),
        _ => {
            let foldable = !expr.any_column_refs()
                && !expr.is_volatile()
                && !expr.exists(|e| Ok(matches!(e, Expr::ScalarSubquery(_) | Expr::Exists(_) | Expr::InSubquery(_) | Expr::OuterReferenceColumn(..) | Expr::Placeholder(_)))).unwrap_or(true);
            if !foldable {
                return None;
            }
            match ExprSimplifier::new(SimplifyContext::default()).simplify(expr.clone()) {
                Ok(Expr::Literal(value, _)) => value,
                _ => return None,
            }
        }
    };
    let number = match value.cast_to(&DataType::Float64) {
        Ok(ScalarValue::Float64(v)) => v.unwrap_or(0.0),
        _ => return None,
    };
    Some((value, number))
}

fn float_literal(t: &DataType, value: f64) -> ScalarValue {
    match t {
        DataType::Float32 => ScalarValue::Float32(Some(value as f32)),
        _ => ScalarValue::Float64(Some(value)),
    }
}

fn flipped(op: Operator) -> Operator {
    match op {
        Operator::Lt => Operator::Gt,
        Operator::LtEq => Operator::GtEq,
        Operator::Gt => Operator::Lt,
        Operator::GtEq => Operator::LtEq,
        other => other,
    }
}

fn compare(left: Expr, op: Operator, right: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
    let unchanged = |left: Expr, right: Expr| Ok(Transformed::no(binary(left, op, right)));
    let (Ok(left_type), Ok(right_type)) = (left.get_type(schema), right.get_type(schema)) else { return unchanged(left, right) };
    if !is_float_type(&left_type) && !is_float_type(&right_type) {
        return unchanged(left, right);
    }
    let constants = (constant_value(&left), constant_value(&right));
    let (column, column_type, op, (value, number)) = match constants {
        (Some((l, x)), Some((r, y))) => {
            if l.is_null() || r.is_null() {
                return Ok(Transformed::yes(literal(ScalarValue::Boolean(None))));
            }
            return Ok(Transformed::yes(literal(ScalarValue::Boolean(Some(holds(op, x, y))))));
        }
        (None, Some(constant)) => (left, left_type, op, constant),
        (Some(constant), None) => (right, right_type, flipped(op), constant),
        (None, None) => {
            let udf = Arc::new(ScalarUDF::new_from_impl(IeeeCompare::new(op)));
            return Ok(Transformed::yes(Expr::ScalarFunction(ScalarFunction::new_udf(udf, vec![left, right]))));
        }
    };
    if value.is_null() {
        return Ok(Transformed::no(binary(column, op, literal(value))));
    }
    if number.is_nan() {
        // False (true for `!=`) for every value, NULL for NULL.
        let nullable = column.nullable(schema).unwrap_or(true);
        let is_ne = op == Operator::NotEq;
        return Ok(Transformed::yes(match (nullable, is_ne) {
            (false, ne) => literal(ScalarValue::Boolean(Some(ne))),
            (true, false) => binary(Expr::IsNull(Box::new(column)), Operator::And, literal(ScalarValue::Boolean(None))),
            (true, true) => binary(Expr::IsNotNull(Box::new(column)), Operator::Or, literal(ScalarValue::Boolean(None))),
        }));
    }
    if !is_float_type(&column_type) {
        // An integer or decimal side holds no NaN and no -0 (cast to float, 0 is +0.0):
        // only a float -0.0 constant would compare differently.
        if number == 0.0 && is_float_type(&value.data_type()) {
            return Ok(Transformed::yes(binary(column, op, literal(float_literal(&value.data_type(), 0.0)))));
        }
        return Ok(Transformed::no(binary(column, op, literal(value))));
    }
    let bound = |value: f64| literal(float_literal(&column_type, value));
    let (infinity, zero) = (f64::INFINITY, 0.0);
    // In the total order -0.0 sits just below 0.0, and NaN / -NaN beyond ±inf.
    Ok(Transformed::yes(if number == 0.0 {
        match op {
            Operator::Eq => binary(binary(column.clone(), Operator::GtEq, bound(-zero)), Operator::And, binary(column, Operator::LtEq, bound(zero))),
            Operator::NotEq => binary(binary(column.clone(), Operator::Lt, bound(-zero)), Operator::Or, binary(column, Operator::Gt, bound(zero))),
            Operator::Lt => binary(binary(column.clone(), Operator::Lt, bound(-zero)), Operator::And, binary(column, Operator::GtEq, bound(-infinity))),
            Operator::LtEq => binary(binary(column.clone(), Operator::LtEq, bound(zero)), Operator::And, binary(column, Operator::GtEq, bound(-infinity))),
            Operator::Gt => binary(binary(column.clone(), Operator::Gt, bound(zero)), Operator::And, binary(column, Operator::LtEq, bound(infinity))),
            _ => binary(binary(column.clone(), Operator::GtEq, bound(-zero)), Operator::And, binary(column, Operator::LtEq, bound(infinity))),
        }
    } else {
        let constant = literal(value);
        match op {
            Operator::Eq | Operator::NotEq => return Ok(Transformed::no(binary(column, op, constant))),
            Operator::Lt | Operator::LtEq => binary(binary(column.clone(), op, constant), Operator::And, binary(column, Operator::GtEq, bound(-infinity))),
            _ => binary(binary(column.clone(), op, constant), Operator::And, binary(column, Operator::LtEq, bound(infinity))),
        }
    }))
}

fn holds(op: Operator, x: f64, y: f64) -> bool {
    match op {
        Operator::Eq => x == y,
        Operator::NotEq => x != y,
        Operator::Lt => x < y,
        Operator::LtEq => x <= y,
        Operator::Gt => x > y,
        _ => x >= y,
    }
}

/// `a <op> b` of two float columns on IEEE rules, Boolean (the conditions' type).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct IeeeCompare {
    op: Operator,
    name: String,
    signature: Signature,
}

impl IeeeCompare {
    fn new(op: Operator) -> Self {
        IeeeCompare { op, name: format!("__ieee_compare({op})"), signature: Signature::user_defined(Volatility::Immutable) }
    }
}

impl ScalarUDFImpl for IeeeCompare {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Boolean)
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        // Float32 against Float32 stays narrow; anything else compares as Float64.
        let common = if arg_types.iter().all(|t| matches!(t, DataType::Float32 | DataType::Null)) { DataType::Float32 } else { DataType::Float64 };
        Ok(vec![common; arg_types.len()])
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let [l, r] = arrays.as_slice() else {
            return Err(datafusion::error::DataFusionError::Internal(format!("{} takes two arguments", self.name)));
        };
        Ok(ColumnarValue::Array(Arc::new(ieee_compare(self.op, l, r)?)))
    }
}

fn ieee_compare(op: Operator, l: &ArrayRef, r: &ArrayRef) -> Result<BooleanArray> {
    fn run<T: Copy + PartialOrd>(op: Operator, l: &[T], r: &[T]) -> BooleanBuffer {
        let len = l.len().min(r.len());
        match op {
            Operator::Eq => BooleanBuffer::collect_bool(len, |i| l[i] == r[i]),
            Operator::NotEq => BooleanBuffer::collect_bool(len, |i| l[i] != r[i]),
            Operator::Lt => BooleanBuffer::collect_bool(len, |i| l[i] < r[i]),
            Operator::LtEq => BooleanBuffer::collect_bool(len, |i| l[i] <= r[i]),
            Operator::Gt => BooleanBuffer::collect_bool(len, |i| l[i] > r[i]),
            _ => BooleanBuffer::collect_bool(len, |i| l[i] >= r[i]),
        }
    }
    let values = match (l.data_type(), r.data_type()) {
        (DataType::Float32, DataType::Float32) => run(op, l.as_primitive::<Float32Type>().values(), r.as_primitive::<Float32Type>().values()),
        _ => {
            let cast = |a: &ArrayRef| datafusion::arrow::compute::cast(a, &DataType::Float64);
            let (l, r) = (cast(l)?, cast(r)?);
            run(op, l.as_primitive::<Float64Type>().values(), r.as_primitive::<Float64Type>().values())
        }
    };
    Ok(BooleanArray::new(values, NullBuffer::union(l.nulls(), r.nulls())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::Float64Array;

    #[test]
    fn columns_compare_on_ieee_rules() {
        let l: ArrayRef = Arc::new(Float64Array::from(vec![Some(f64::NAN), Some(-0.0), Some(1.0), None, Some(-f64::NAN)]));
        let r: ArrayRef = Arc::new(Float64Array::from(vec![Some(f64::NAN), Some(0.0), Some(f64::NAN), Some(1.0), Some(0.0)]));
        let eq = ieee_compare(Operator::Eq, &l, &r).unwrap();
        assert_eq!(eq.iter().collect::<Vec<_>>(), vec![Some(false), Some(true), Some(false), None, Some(false)]);
        let ne = ieee_compare(Operator::NotEq, &l, &r).unwrap();
        assert_eq!(ne.iter().collect::<Vec<_>>(), vec![Some(true), Some(false), Some(true), None, Some(true)]);
        let lt = ieee_compare(Operator::Lt, &l, &r).unwrap();
        assert_eq!(lt.iter().collect::<Vec<_>>(), vec![Some(false), Some(false), Some(false), None, Some(false)]);
    }
}
