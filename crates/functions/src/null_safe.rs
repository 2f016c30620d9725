//! NULL instead of an error, and NULL-aware predicates: `divideOrNull`, `intDivOrNull`,
//! `moduloOrNull`, `positiveModuloOrNull`, `isZeroOrNull`, `isDistinctFrom`,
//! `isNotDistinctFrom`, `firstNonDefault`, `isDecimalOverflow`.
//!
//! The `OrNull` forms run the registered operator itself (so result types and values
//! stay the operator's) on a divisor with 1 in the rows that would fail, and make those
//! rows NULL.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, UInt8Array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::kernels::{cmp, zip::zip};
use datafusion::arrow::datatypes::{DataType, Decimal128Type, Decimal256Type, Float64Type, Int64Type, i256};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{ColumnarValue, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_decimal, is_numeric, Arity, DfResult};
use crate::func::{call_return_field, call_scalar, registered_scalar, with_nulls, ExecCtx, ScalarDef};

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        or_null("divideOrNull", "divide", false),
        or_null("intDivOrNull", "intDiv", true),
        or_null("moduloOrNull", "modulo", true),
        or_null("positiveModuloOrNull", "positiveModulo", true),
        is_zero_or_null(),
        distinct_from("isDistinctFrom", true),
        distinct_from("isNotDistinctFrom", false),
        first_non_default(),
        is_decimal_overflow(),
    ]
}

/// Rows where `a op b` fails: a zero divisor, and for integer operators the smallest
/// signed number divided by -1.
fn failing_rows(a: &ArrayRef, b: &ArrayRef, integer_op: bool) -> DfResult<BooleanArray> {
    let divisor = datafusion::arrow::compute::cast(b, &DataType::Float64)?;
    let divisor = divisor.as_primitive::<Float64Type>();
    let smallest = match a.data_type() {
        DataType::Int8 => Some(i8::MIN as i64),
        DataType::Int16 => Some(i16::MIN as i64),
        DataType::Int32 => Some(i32::MIN as i64),
        DataType::Int64 => Some(i64::MIN),
        _ => None,
    };
    let dividend = match smallest {
        Some(_) if integer_op => Some(datafusion::arrow::compute::cast(a, &DataType::Int64)?),
        _ => None,
    };
    let dividend = dividend.as_ref().map(|d| d.as_primitive::<Int64Type>());
    Ok((0..divisor.len())
        .map(|row| {
            let d = divisor.value(row);
            let overflow = match (dividend, smallest) {
                (Some(x), Some(min)) => d == -1.0 && x.value(row) == min,
                _ => false,
            };
            Some(d == 0.0 || overflow)
        })
        .collect())
}

fn or_null(name: &'static str, operator: &'static str, integer_op: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            if is_decimal(ctx.dt(0)) || is_decimal(ctx.dt(1)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal types {} and {} of arguments of function {}", ctx.ch(0), ctx.ch(1), ctx.name),
                ));
            }
            let udf = registered_scalar(operator)?;
            let field = call_return_field(&udf, &ctx.fields, ctx.scalars)?;
            Ok(crate::func::ch_type_of_field(&field).into_nullable())
        },
        move |ctx| {
            let (a, b) = (ctx.array(0)?, ctx.array(1)?);
            let failing = failing_rows(&a, &b, integer_op)?;
            let one = ScalarValue::Int64(Some(1)).cast_to(b.data_type())?.to_scalar()?;
            let safe_divisor = zip(&failing, &one, &b)?;
            let udf = registered_scalar(operator)?;
            let (out, _) = call_scalar(
                &udf,
                vec![ColumnarValue::Array(a), ColumnarValue::Array(safe_divisor)],
                ctx.fields.to_vec(),
                ctx.len,
                ctx.config,
            )?;
            let valid = NullBuffer::new(datafusion::arrow::compute::not(&failing)?.values().clone());
            with_nulls(&out, NullBuffer::union(out.logical_nulls().as_ref(), Some(&valid)))
        },
    )
    .build()
}

fn is_zero_or_null() -> ScalarUDF {
    ScalarDef::new(
        "isZeroOrNull",
        Arity::exact(1),
        |ctx| {
            let t = ctx.dt(0);
            if !(is_numeric(t) && !is_decimal(t) && t != &DataType::Boolean || t == &DataType::Null) {
                return Err(ch_error(
                    ErrorCode::BAD_ARGUMENTS,
                    "The argument of function isZeroOrNull must have simple numeric type, possibly Nullable or Null",
                ));
            }
            Ok(ChType::UInt8)
        },
        |ctx| {
            let input = ctx.array(0)?;
            if input.data_type() == &DataType::Null {
                return Ok(Arc::new(UInt8Array::from(vec![1u8; ctx.len])) as ArrayRef);
            }
            let values = datafusion::arrow::compute::cast(&input, &DataType::Float64)?;
            let values = values.as_primitive::<Float64Type>();
            let out = (0..ctx.len).map(|row| u8::from(values.is_null(row) || values.value(row) == 0.0));
            Ok(Arc::new(UInt8Array::from_iter_values(out)) as ArrayRef)
        },
    )
    .custom_nulls()
    .build()
}

/// `isDistinctFrom(a, b)`: `a != b` where NULL equals NULL and nothing else;
/// `isNotDistinctFrom` (`<=>`) is its negation.
fn distinct_from(name: &'static str, distinct: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            let stripped: Vec<_> = ctx.fields.iter().map(|f| Arc::new(crate::func::strip_nullable(f))).collect();
            let equals = registered_scalar("equals")?;
            call_return_field(&equals, &stripped, ctx.scalars).map_err(|_| {
                ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal types of arguments (`{}`, `{}`) of function `{}`", ctx.ch(0).strip_nullable(), ctx.ch(1).strip_nullable(), ctx.name),
                )
            })?;
            Ok(ChType::UInt8)
        },
        move |ctx| {
            let (a, b) = (ctx.array(0)?, ctx.array(1)?);
            let both_present = ctx.dt(0) != &DataType::Null && ctx.dt(1) != &DataType::Null;
            let equal = if both_present {
                let equals = registered_scalar("equals")?;
                let (out, _) = call_scalar(&equals, vec![ColumnarValue::Array(Arc::clone(&a)), ColumnarValue::Array(Arc::clone(&b))], ctx.fields.to_vec(), ctx.len, ctx.config)?;
                Some(datafusion::arrow::compute::cast(&out, &DataType::Boolean)?)
            } else {
                None
            };
            let equal = equal.as_ref().map(|e| e.as_boolean());
            // Logical nulls: a NULL literal is a `Null` array, which has no validity bitmap.
            let (a_nulls, b_nulls) = (a.logical_nulls(), b.logical_nulls());
            let is_null = |nulls: &Option<NullBuffer>, row: usize| nulls.as_ref().is_some_and(|n| n.is_null(row));
            let out = (0..ctx.len).map(|row| {
                let same = match (is_null(&a_nulls, row), is_null(&b_nulls, row)) {
                    (true, true) => true,
                    (false, false) => equal.is_some_and(|e| e.is_valid(row) && e.value(row)),
                    _ => false,
                };
                u8::from(same != distinct)
            });
            Ok(Arc::new(UInt8Array::from_iter_values(out)) as ArrayRef)
        },
    )
    .custom_nulls()
    .build()
}

/// `firstNonDefault(a, b, ...)`: the first argument that is not the default value of
/// its own type (a Nullable one's default is NULL, so its 0 counts), in the arguments'
/// supertype.
fn first_non_default() -> ScalarUDF {
    ScalarDef::new(
        "firstNonDefault",
        Arity::at_least(0),
        |ctx| {
            if ctx.arg_count() == 0 {
                return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Function firstNonDefault requires at least one argument"));
            }
            let indices: Vec<usize> = (0..ctx.arg_count()).collect();
            crate::supertype::least_supertype_of_args(ctx, &indices)
        },
        |ctx| {
            let target = ctx.ret_ch();
            let default = default_scalar(&target, ctx.ret_type())?;
            let mut out: ArrayRef = default.to_array_of_size(ctx.len)?;
            for i in (0..ctx.args.len()).rev() {
                let original = ctx.array(i)?;
                if original.data_type() == &DataType::Null {
                    continue;
                }
                let own_default = default_scalar(&ctx.ch(i), original.data_type())?;
                let present = cmp::distinct(&original, &own_default.to_scalar()?)?;
                let converted = convert_to(ctx, i, &target)?;
                out = zip(&present, &converted, &out)?;
            }
            Ok(out)
        },
    )
    .custom_nulls()
    .build()
}

fn default_scalar(t: &ChType, data_type: &DataType) -> DfResult<ScalarValue> {
    if t.is_nullable() || data_type == &DataType::Null {
        return ScalarValue::try_from(data_type);
    }
    ScalarValue::new_default(data_type)
}

fn convert_to(ctx: &ExecCtx, i: usize, target: &ChType) -> DfResult<ArrayRef> {
    crate::conversion::convert_array(&ctx.array(i)?, &ctx.fields[i], target)
}

/// `isDecimalOverflow(d[, p])`: whether `d` has more digits than precision `p` (the
/// type's own by default) allows.
fn is_decimal_overflow() -> ScalarUDF {
    ScalarDef::new(
        "isDecimalOverflow",
        Arity::range(1, 2),
        |ctx| {
            if !is_decimal(ctx.dt(0)) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument of function isDecimalOverflow", ctx.ch(0))));
            }
            if ctx.arg_count() > 1 {
                let p = ctx.const_int(1, "precision")?;
                if !(1..=76).contains(&p) {
                    return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, "Illegal precision of the decimal"));
                }
            }
            Ok(ChType::UInt8)
        },
        |ctx| {
            let input = ctx.array(0)?;
            let own = match input.data_type() {
                DataType::Decimal128(p, _) | DataType::Decimal256(p, _) => *p,
                _ => 38,
            };
            let precision = if ctx.args.len() > 1 { ctx.const_int(1, "precision")? as u32 } else { u32::from(own) };
            let limit = i256::from_i128(10).wrapping_pow(precision);
            let values: Vec<i256> = match input.data_type() {
                DataType::Decimal128(..) => input.as_primitive::<Decimal128Type>().values().iter().map(|v| i256::from_i128(*v)).collect(),
                _ => input.as_primitive::<Decimal256Type>().values().to_vec(),
            };
            let out = values.iter().map(|v| u8::from(*v >= limit || *v <= limit.wrapping_neg()));
            Ok(Arc::new(UInt8Array::from_iter_values(out)) as ArrayRef)
        },
    )
    .build()
}
