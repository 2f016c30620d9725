//! `UInt256` in unsigned order. Its values are held as their raw bits in a signed
//! `Decimal256` (see `granary_types::wide`), so DataFusion's own comparisons and sorts
//! would put values from 2^255 up below zero. Comparisons with a `UInt256` side in
//! WHERE, HAVING, CASE and the like become ClickHouse's comparison functions (which
//! compare wide words mathematically, also against signed types); ORDER BY keys of type
//! `UInt256` become [`UnsignedOrderKey`]s, whose signed order is the unsigned one (as
//! ClickHouse's radix sort flips the top bit). `min`/`max`/`argMin`/`argMax` use the same
//! key inside their accumulators (crate::aggregate).

use std::sync::Arc;

use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::{DataType, Decimal256Type};
use datafusion::common::tree_node::Transformed;
use datafusion::common::{exec_err, DFSchema, Result, ScalarValue};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::{
    Between, BinaryExpr, ColumnarValue, Expr, ExprSchemable, LogicalPlan, Operator, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Sort, SortExpr,
    Volatility,
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

/// Replaces the `UInt256` ORDER BY keys of `plan` (and its subqueries) by their
/// [`UnsignedOrderKey`].
pub fn uint256_sort_keys(plan: LogicalPlan) -> Result<LogicalPlan> {
    let out = plan.transform_up_with_subqueries(|node| {
        let LogicalPlan::Sort(sort) = &node else { return Ok(Transformed::no(node)) };
        let schema = sort.input.schema();
        if !sort.expr.iter().any(|key| is_uint256(&key.expr, schema)) {
            return Ok(Transformed::no(node));
        }
        let order_key = Arc::new(ScalarUDF::new_from_impl(UnsignedOrderKey::default()));
        let keys = sort
            .expr
            .iter()
            .map(|key| {
                if !is_uint256(&key.expr, schema) {
                    return key.clone();
                }
                let expr = Expr::ScalarFunction(ScalarFunction::new_udf(Arc::clone(&order_key), vec![key.expr.clone()]));
                SortExpr { expr, asc: key.asc, nulls_first: key.nulls_first }
            })
            .collect();
        Ok(Transformed::yes(LogicalPlan::Sort(Sort { expr: keys, input: Arc::clone(&sort.input), fetch: sort.fetch })))
    })?;
    Ok(out.data)
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
