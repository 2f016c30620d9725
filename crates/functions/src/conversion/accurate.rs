//! `accurateCast(x, 'T')`, `accurateCastOrNull(x, 'T')` and
//! `accurateCastOrDefault(x, 'T'[, default])`: a conversion that keeps the value or
//! gives none. Between numbers (integers and floats) a value is kept only when it
//! survives the round trip: `300` is no `UInt8`, `1.5` no `Int32`, `16777217` no
//! `Float32`, `0.1` no `Float32`; otherwise `accurateCast` fails with
//! CANNOT_CONVERT_TYPE, `OrNull` gives NULL and `OrDefault` the default. From other
//! types (text, dates) the conversion is `toTOrNull`'s: strict parsing, NULL when the
//! text is not a value of the type.

use datafusion::arrow::array::{Array, ArrayRef, BooleanArray};
use datafusion::arrow::compute::kernels::cmp::eq;
use datafusion::arrow::compute::kernels::zip::zip;
use datafusion::arrow::compute::{cast_with_options, is_null, nullif, CastOptions};
use datafusion::arrow::datatypes::DataType;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use super::convert::{convert, Conv, Mode};
use crate::args::{ch_error, illegal_type, is_string, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Failure {
    Throw,
    Null,
    Default,
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![accurate_cast("accurateCast", Failure::Throw), accurate_cast("accurateCastOrNull", Failure::Null), accurate_cast("accurateCastOrDefault", Failure::Default)]
}

/// The target type named by the constant second argument.
fn target_type(ctx: &RetCtx) -> DfResult<ChType> {
    if !is_string(ctx.dt(1)) {
        return Err(illegal_type(ctx.name, 1, ctx.field(1)));
    }
    ChType::parse(ctx.const_str(1, "type name")?).map_err(|e| e.into_datafusion())
}

fn accurate_cast(name: &'static str, failure: Failure) -> ScalarUDF {
    let arity = if failure == Failure::Default { Arity::range(2, 3) } else { Arity::exact(2) };
    ScalarDef::new(
        name,
        arity,
        move |ctx| {
            let target = target_type(ctx)?;
            if failure == Failure::Default && ctx.arg_count() == 3 && ctx.ch(2) != target {
                return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Default value type should be same as cast type. Expected {target}. Actual {}", ctx.ch(2))));
            }
            Ok(match failure {
                Failure::Null => target.into_nullable(),
                _ => target,
            })
        },
        move |ctx| {
            let target = ctx.ret_ch().strip_nullable().clone();
            let input = ctx.array(0)?;
            let converted = exact_or_null(ctx, &input, &target)?;
            match failure {
                Failure::Null => Ok(converted),
                Failure::Throw => {
                    // A value the input has that the result lost could not be converted.
                    if converted.null_count() > input.null_count() {
                        return Err(ch_error(
                            ErrorCode::CANNOT_CONVERT_TYPE,
                            format!("Value in column {} cannot be safely converted into type {target}", ctx.ch(0).strip_nullable()),
                        ));
                    }
                    Ok(converted)
                }
                Failure::Default => {
                    let default = match ctx.args.len() {
                        3 => ctx.array(2)?,
                        _ => datafusion::arrow::array::new_null_array(&target.to_arrow(), ctx.len),
                    };
                    let default = crate::func::defaults_at_nulls(&default)?;
                    Ok(zip(&is_null(&converted)?, &default, &converted)?)
                }
            }
        },
    )
    .custom_nulls()
    .build()
}

/// A number type whose values Arrow converts with range checks (integers up to 64 bits
/// and floats).
fn plain_number(t: &ChType) -> bool {
    matches!(
        t,
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Float32 | ChType::Float64
    )
}

/// `input` as `target`, NULL where the value cannot be kept exactly.
fn exact_or_null(ctx: &ExecCtx, input: &ArrayRef, target: &ChType) -> DfResult<ArrayRef> {
    let source = ctx.ch(0);
    let source = source.strip_nullable();
    let wide = |t: &ChType| matches!(t, ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256);
    let number = |t: &ChType| plain_number(t) || wide(t);
    if !(number(source) && number(target)) {
        let cv = Conv { func: "accurateCastOrNull", mode: Mode::OrNull, config: ctx.config };
        return convert(input, &ctx.fields[0], target, &cv);
    }
    let (converted, back, sign_kept) = if wide(source) || wide(target) {
        // ClickHouse's conversion wraps: `-1` becomes `2^128 - 1` as a UInt128 and goes
        // back to `-1`, so the sign must be kept as well.
        let cv = Conv { func: "accurateCast", mode: Mode::OrNull, config: ctx.config };
        let converted = convert(input, &ctx.fields[0], target, &cv)?;
        let back = convert(&converted, &crate::func::result_field("converted", &target.clone().into_nullable()), source, &cv)?;
        let sign_kept = eq(&negative(input, source)?, &negative(&converted, target)?)?;
        (converted, back, Some(sign_kept))
    } else {
        // Arrow's `safe` cast gives NULL out of the target's range.
        let options = CastOptions { safe: true, ..Default::default() };
        let converted = cast_with_options(input, &target.to_arrow(), &options)?;
        let back = cast_with_options(&converted, input.data_type(), &options)?;
        (converted, back, None)
    };
    // Kept where the value converts back to itself.
    let mut kept = match input.data_type() {
        DataType::Float32 | DataType::Float64 => float_same(&back, input)?,
        _ => eq(&back, input)?,
    };
    if let Some(sign_kept) = sign_kept {
        kept = datafusion::arrow::compute::and(&kept, &sign_kept)?;
    }
    // NULL (a NULL input) is not a loss: the result is NULL there anyway.
    let kept = if kept.null_count() > 0 { datafusion::arrow::compute::prep_null_mask_filter(&kept) } else { kept };
    Ok(nullif(&converted, &datafusion::arrow::compute::not(&kept)?)?)
}

/// Per value, whether it is below zero; never for unsigned types (a UInt256 of 2^255 and
/// above is held as a negative two's-complement value).
fn negative(values: &ArrayRef, t: &ChType) -> DfResult<BooleanArray> {
    if matches!(t, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::UInt128 | ChType::UInt256) {
        return Ok(BooleanArray::from(vec![false; values.len()]));
    }
    let zero = datafusion::common::ScalarValue::new_zero(values.data_type())?.to_scalar()?;
    Ok(datafusion::arrow::compute::kernels::cmp::lt(values, &zero)?)
}

/// Whether float values are the same number by IEEE rules (-0 is 0), NaN being the same as
/// NaN; NULL where either is.
fn float_same(a: &ArrayRef, b: &ArrayRef) -> DfResult<BooleanArray> {
    let as_f64 = |x: &ArrayRef| -> DfResult<datafusion::arrow::array::Float64Array> {
        let values = cast_with_options(x, &DataType::Float64, &CastOptions::default())?;
        Ok(values.as_any().downcast_ref::<datafusion::arrow::array::Float64Array>().cloned().unwrap_or_else(|| datafusion::arrow::array::Float64Array::from(Vec::<f64>::new())))
    };
    let (a, b) = (as_f64(a)?, as_f64(b)?);
    Ok(a.iter().zip(b.iter()).map(|(x, y)| Some(x? == y? || x?.is_nan() && y?.is_nan())).collect())
}
