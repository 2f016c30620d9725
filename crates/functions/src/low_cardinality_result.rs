//! `coalesce`, `greatest` and `least` with ClickHouse's LowCardinality result rule.
//!
//! ClickHouse runs such functions on a LowCardinality argument's dictionary and gives a
//! `LowCardinality` result when some argument is LowCardinality, at most one of them is
//! a full column and every other argument is a constant (`greatest(lc, 'x')`); two full
//! LowCardinality columns, or a full ordinary one, give the plain type. DataFusion's
//! built-ins compute the values; this wrapper only decides the result's ClickHouse type
//! (the Arrow type is the same).

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::Result;
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::{ColumnarValue, Documentation, Expr, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature};
use granary_types::ChType;

use crate::func::ch_type_of_field;

#[derive(Debug, PartialEq, Eq, Hash)]
struct LowCardinalityResult {
    inner: Arc<ScalarUDF>,
}

/// Whether ClickHouse makes the result LowCardinality (see the module docs).
fn low_cardinality_result(args: &ReturnFieldArgs) -> bool {
    let mut any = false;
    let mut full_low_cardinality = 0;
    let mut full_ordinary = 0;
    for (i, field) in args.arg_fields.iter().enumerate() {
        let constant = args.scalar_arguments.get(i).copied().flatten().is_some();
        let low_cardinality = matches!(ch_type_of_field(field), ChType::LowCardinality(_));
        any |= low_cardinality;
        match (low_cardinality, constant) {
            (true, false) => full_low_cardinality += 1,
            (false, false) => full_ordinary += 1,
            _ => {}
        }
    }
    any && full_low_cardinality <= 1 && full_ordinary == 0
}

impl LowCardinalityResult {
    fn is_coalesce(&self) -> bool {
        self.inner.name() == "coalesce"
    }
}

impl ScalarUDFImpl for LowCardinalityResult {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn signature(&self) -> &Signature {
        self.inner.signature()
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let low_cardinality = low_cardinality_result(&args);
        // coalesce is NULL only when every argument can be; greatest/least when any can.
        // A constant `toNullable(7)` has a field Arrow says is not nullable: its
        // ClickHouse type says it is.
        let can_be_null = |f: &FieldRef| f.is_nullable() || ch_type_of_field(f).is_nullable();
        let nullable = if self.is_coalesce() { args.arg_fields.iter().all(can_be_null) } else { args.arg_fields.iter().any(can_be_null) };
        // Wide integers are scale-0 decimals to Arrow, told apart only by their fields'
        // metadata, which the built-ins drop: an argument of the result's Arrow type
        // says which one it is (the planner cast them all to their supertype).
        let wide_argument = args
            .arg_fields
            .iter()
            .map(|f| ch_type_of_field(f).strip_nullable().clone())
            .find(|t| granary_types::wide::WideInt::of(t).is_some_and(|w| args.arg_fields.iter().all(|f| f.data_type() == &w.arrow_type())));
        let field = self.inner.return_field_from_args(args)?;
        // The built-ins copy an argument's field, LowCardinality or not: the result is
        // decided here from the plain type.
        let mut plain = wide_argument.unwrap_or_else(|| ch_type_of_field(&field));
        if let ChType::LowCardinality(inner) = plain {
            plain = *inner;
        }
        plain = plain.strip_nullable().clone();
        if nullable {
            plain = plain.into_nullable();
        }
        let wanted = if low_cardinality && crate::supertype::can_be_low_cardinality(&plain) { ChType::LowCardinality(Box::new(plain)) } else { plain };
        // A folded constant keeps its `Nullable` only through the field's marker.
        let out = crate::func::result_field(field.name(), &wanted);
        if out.data_type() != field.data_type() {
            return Ok(field);
        }
        Ok(Arc::new(out))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        if !self.is_coalesce() {
            return self.inner.invoke_with_args(args);
        }
        // The first non-NULL value of each row. ClickHouse evaluates every argument
        // (coalesce is no short-circuit function there).
        let all_scalars = args.args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let mut result = match arrays.first() {
            Some(first) => Arc::clone(first),
            None => return datafusion::common::exec_err!("coalesce must have at least one argument"),
        };
        for next in &arrays[1..] {
            if result.null_count() == 0 {
                break;
            }
            let next = if next.data_type() == result.data_type() { Arc::clone(next) } else { datafusion::arrow::compute::cast(next, result.data_type())? };
            result = datafusion::arrow::compute::kernels::zip::zip(&datafusion::arrow::compute::is_not_null(&result)?, &result, &next)?;
        }
        if all_scalars {
            return Ok(ColumnarValue::Scalar(datafusion::common::ScalarValue::try_from_array(&result, 0)?));
        }
        Ok(ColumnarValue::Array(result))
    }

    fn aliases(&self) -> &[String] {
        self.inner.aliases()
    }

    // DataFusion rewrites coalesce as a CASE, whose type would be the CASE's: it is
    // run here instead (see invoke_with_args).
    fn simplify(&self, args: Vec<Expr>, info: &SimplifyContext) -> Result<ExprSimplifyResult> {
        if self.is_coalesce() {
            return Ok(ExprSimplifyResult::Original(args));
        }
        self.inner.inner().simplify(args, info)
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        self.inner.coerce_types(arg_types)
    }

    fn documentation(&self) -> Option<&Documentation> {
        self.inner.documentation()
    }
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    [datafusion::functions::core::coalesce(), datafusion::functions::core::greatest(), datafusion::functions::core::least()]
        .into_iter()
        .map(|inner| ScalarUDF::new_from_impl(LowCardinalityResult { inner }))
        .collect()
}
