//! `UInt256` in unsigned order. Its values are held as their raw bits in a signed
//! `Decimal256` (see `granary_types::wide`), so DataFusion's own comparisons and sorts
//! would put values from 2^255 up below zero. Comparisons with a `UInt256` side in
//! WHERE, HAVING, CASE and the like become ClickHouse's comparison functions (which
//! compare wide words mathematically, also against signed types); ORDER BY keys of type
//! `UInt256` (also those of window functions) become [`UnsignedOrderKey`]s, whose signed order is the unsigned one (as
//! ClickHouse's radix sort flips the top bit). `min`/`max`/`argMin`/`argMax` use the same
//! key inside their accumulators (crate::aggregate).

use std::sync::Arc;

use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::{DataType, Decimal256Type};
use datafusion::common::tree_node::Transformed;
use datafusion::common::{exec_err, DFSchema, Result, ScalarValue};
use datafusion::logical_expr::expr::{Alias, ScalarFunction};
use datafusion::logical_expr::{
    Between, BinaryExpr, ColumnarValue, Expr, ExprSchemable, LogicalPlan, Operator, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Sort, SortExpr,
    Volatility, Window, WindowFrameBound, WindowFrameUnits,
};
use granary_types::wide::{unsigned_order_keys, WideInt};
use granary_types::ChType;

use crate::func::ch_type_of_field;

fn is_uint256(expr: &Expr, schema: &DFSchema) -> bool {
    expr.to_field(schema).is_ok_and(|(_, field)| ch_type_of_field(&field).base() == &ChType::UInt256)
}

/// Rewrites the comparisons with a `UInt256` side of `plan` (and its subqueries) into
/// ClickHouse's comparison functions.
pub fn uint256_comparisons(plan: LogicalPlan) -> Result<LogicalPlan> {
    crate::float_comparisons::rewrite_single_input_expressions(plan, rewrite_comparison)
}

fn rewrite_comparison(expr: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) if (is_uint256(&left, schema) || is_uint256(&right, schema)) => {
            match crate::arithmetic::comparison_udf(op) {
                Some(udf) => Ok(Transformed::yes(clickhouse_comparison(udf, *left, *right))),
                None => Ok(Transformed::no(Expr::BinaryExpr(BinaryExpr { left, op, right }))),
            }
        }
        Expr::Between(Between { expr, negated, low, high })
            if is_uint256(&expr, schema) || is_uint256(&low, schema) || is_uint256(&high, schema) =>
        {
            let (low_op, high_op, join) = if negated { (Operator::Lt, Operator::Gt, Operator::Or) } else { (Operator::GtEq, Operator::LtEq, Operator::And) };
            let bound = |op: Operator, bound: Expr| match crate::arithmetic::comparison_udf(op) {
                Some(udf) => Ok(clickhouse_comparison(udf, (*expr).clone(), bound)),
                None => exec_err!("no comparison function for {op}"),
            };
            let (low, high) = (bound(low_op, *low)?, bound(high_op, *high)?);
            Ok(Transformed::yes(Expr::BinaryExpr(BinaryExpr { left: Box::new(low), op: join, right: Box::new(high) })))
        }
        other => Ok(Transformed::no(other)),
    }
}

/// `udf(left, right) != 0`: ClickHouse's comparisons return UInt8, where a plan needs a
/// boolean (NULL stays NULL).
fn clickhouse_comparison(udf: ScalarUDF, left: Expr, right: Expr) -> Expr {
    let call = Expr::ScalarFunction(ScalarFunction::new_udf(Arc::new(udf), vec![left, right]));
    Expr::BinaryExpr(BinaryExpr { left: Box::new(call), op: Operator::NotEq, right: Box::new(Expr::Literal(ScalarValue::UInt8(Some(0)), None)) })
}

/// Replaces the `UInt256` ORDER BY keys of `plan` (and its subqueries), those of window
/// functions included, by their [`UnsignedOrderKey`].
pub fn uint256_sort_keys(plan: LogicalPlan) -> Result<LogicalPlan> {
    let order_key = Arc::new(ScalarUDF::new_from_impl(UnsignedOrderKey::default()));
    let out = plan.transform_up_with_subqueries(|node| match node {
        LogicalPlan::Sort(sort) => {
            let schema = sort.input.schema();
            if !sort.expr.iter().any(|key| is_uint256(&key.expr, schema)) {
                return Ok(Transformed::no(LogicalPlan::Sort(sort)));
            }
            let keys = sort.expr.iter().map(|key| unsigned_sort_key(key, schema, &order_key)).collect();
            Ok(Transformed::yes(LogicalPlan::Sort(Sort { expr: keys, input: Arc::clone(&sort.input), fetch: sort.fetch })))
        }
        LogicalPlan::Window(window) => {
            let schema = Arc::clone(window.input.schema());
            let rewrites: Vec<Transformed<Expr>> =
                window.window_expr.iter().map(|expr| unsigned_window_order(expr, &schema, &order_key)).collect::<Result<_>>()?;
            if !rewrites.iter().any(|rewrite| rewrite.transformed) {
                return Ok(Transformed::no(LogicalPlan::Window(window)));
            }
            let exprs = rewrites.into_iter().map(|rewrite| rewrite.data).collect();
            Ok(Transformed::yes(LogicalPlan::Window(Window::try_new_with_schema(exprs, window.input, window.schema)?)))
        }
        other => Ok(Transformed::no(other)),
    })?;
    Ok(out.data)
}

/// `key` by its [`UnsignedOrderKey`] when it is a `UInt256` (over `schema`), for plans
/// that place their Sort after [`uint256_sort_keys`] (WITH FILL).
pub fn uint256_sort_key(key: &SortExpr, schema: &DFSchema) -> SortExpr {
    unsigned_sort_key(key, schema, &Arc::new(ScalarUDF::new_from_impl(UnsignedOrderKey::default())))
}

fn unsigned_sort_key(key: &SortExpr, schema: &DFSchema, order_key: &Arc<ScalarUDF>) -> SortExpr {
    if !is_uint256(&key.expr, schema) {
        return key.clone();
    }
    let expr = Expr::ScalarFunction(ScalarFunction::new_udf(Arc::clone(order_key), vec![key.expr.clone()]));
    SortExpr { expr, asc: key.asc, nulls_first: key.nulls_first }
}

/// A window function whose ORDER BY has a `UInt256` key, ordered by the keys'
/// [`UnsignedOrderKey`] under its old name (the nodes above refer to it by name). A RANGE
/// frame with offsets (`RANGE 5 PRECEDING`) adds to the key's value, so it keeps it.
fn unsigned_window_order(expr: &Expr, schema: &DFSchema, order_key: &Arc<ScalarUDF>) -> Result<Transformed<Expr>> {
    let (function, alias) = match expr {
        Expr::WindowFunction(function) => (function, None),
        Expr::Alias(Alias { expr: inner, relation, name, .. }) => match inner.as_ref() {
            Expr::WindowFunction(function) => (function, Some((relation.clone(), name.clone()))),
            _ => return Ok(Transformed::no(expr.clone())),
        },
        _ => return Ok(Transformed::no(expr.clone())),
    };
    let frame = &function.params.window_frame;
    let offset_range = |bound: &WindowFrameBound| !bound.is_unbounded() && !matches!(bound, WindowFrameBound::CurrentRow);
    let range_with_offsets = frame.units == WindowFrameUnits::Range && (offset_range(&frame.start_bound) || offset_range(&frame.end_bound));
    if range_with_offsets || !function.params.order_by.iter().any(|key| is_uint256(&key.expr, schema)) {
        return Ok(Transformed::no(expr.clone()));
    }
    let mut rewritten = function.as_ref().clone();
    rewritten.params.order_by = function.params.order_by.iter().map(|key| unsigned_sort_key(key, schema, order_key)).collect();
    let (relation, name) = match alias {
        Some(alias) => alias,
        None => (None, expr.schema_name().to_string()),
    };
    Ok(Transformed::yes(Expr::WindowFunction(Box::new(rewritten)).alias_qualified(relation, name)))
}

/// `UInt256` words with the top bit flipped: a plain `Decimal256(76, 0)` whose order is
/// the values' unsigned order.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct UnsignedOrderKey {
    signature: Signature,
}

impl Default for UnsignedOrderKey {
    fn default() -> Self {
        Self { signature: Signature::exact(vec![WideInt::UInt256.arrow_type()], Volatility::Immutable) }
    }
}

impl ScalarUDFImpl for UnsignedOrderKey {
    fn name(&self) -> &str {
        "__uint256_order_key"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(WideInt::UInt256.arrow_type())
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let words = args.args[0].to_array(args.number_rows)?;
        if !matches!(words.data_type(), DataType::Decimal256(..)) {
            return exec_err!("__uint256_order_key of {}", words.data_type());
        }
        Ok(ColumnarValue::Array(Arc::new(unsigned_order_keys(words.as_primitive::<Decimal256Type>()))))
    }
}
