//! ClickHouse's block-local row functions: `runningDifference`,
//! `runningDifferenceStartingWithFirstValue` and `neighbor`.
//!
//! As in ClickHouse they see only the block they run on (a DataFusion batch here): the
//! first row of every block has no previous row, and `neighbor` does not look past the
//! block's ends. ClickHouse allows them only with
//! `allow_deprecated_error_prone_window_functions = 1`, which the query layer checks
//! ([`crate::combinators::check_deprecated_window_functions`]).
//!
//! `runningDifference` skips NULLs: a NULL row gives NULL and the next value is compared
//! with the last non-NULL one. Differences are computed in 64 bits (wrapping, as
//! ClickHouse's `Int64` arithmetic) and returned in ClickHouse's result type: `Int16`
//! for 8-bit integers, `Int32` for 16-bit ones and `Date`, `Int64` for wider integers
//! and `DateTime`, `Float64` for floats.

use std::sync::Arc;

use datafusion::arrow::array::{new_null_array, Array, ArrayRef, AsArray, Float64Array, Int64Array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::{cast, interleave};
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type};
use datafusion::logical_expr::{ColumnarValue, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_integer, Arity, DfResult};
use crate::conversion::convert_array;
use crate::func::{ExecCtx, RetCtx, ScalarDef};

/// The result type of `runningDifference` for a (non-Nullable) argument type.
fn difference_type(t: &ChType) -> Option<ChType> {
    Some(match t {
        ChType::UInt8 | ChType::Int8 => ChType::Int16,
        ChType::UInt16 | ChType::Int16 | ChType::Date => ChType::Int32,
        ChType::UInt32 | ChType::Int32 | ChType::UInt64 | ChType::Int64 | ChType::DateTime(_) => ChType::Int64,
        ChType::Float32 | ChType::Float64 => ChType::Float64,
        _ => return None,
    })
}

fn running_difference_type(ctx: &RetCtx) -> DfResult<ChType> {
    let t = ctx.ch(0);
    let nullable = t.is_nullable();
    let result = difference_type(t.strip_nullable()).ok_or_else(|| {
        ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument for function {} must have numeric type", ctx.name))
    })?;
    Ok(if nullable { result.into_nullable() } else { result })
}

/// Differences of each non-NULL value from the previous non-NULL one; the first is 0, or
/// the value itself when `keep_first`.
fn differences<T: Copy + Default>(values: &[T], nulls: Option<&NullBuffer>, keep_first: bool, minus: impl Fn(T, T) -> T) -> Vec<T> {
    let mut out = Vec::with_capacity(values.len());
    let mut previous: Option<T> = None;
    for (row, value) in values.iter().enumerate() {
        if nulls.is_some_and(|n| n.is_null(row)) {
            out.push(T::default());
            continue;
        }
        out.push(match previous {
            Some(p) => minus(*value, p),
            None if keep_first => *value,
            None => T::default(),
        });
        previous = Some(*value);
    }
    out
}

fn running_difference(name: &'static str, keep_first: bool) -> ScalarUDF {
    ScalarDef::new(name, Arity::exact(1), running_difference_type, move |ctx| {
        let array = ctx.array(0)?;
        let nulls = array.logical_nulls();
        let out: ArrayRef = match array.data_type() {
            DataType::Float32 | DataType::Float64 => {
                let values = cast(&array, &DataType::Float64)?;
                let diffs = differences(values.as_primitive::<Float64Type>().values(), nulls.as_ref(), keep_first, |a, b| a - b);
                Arc::new(Float64Array::new(diffs.into(), nulls.clone()))
            }
            DataType::Null => return Ok(new_null_array(ctx.ret_type(), ctx.len)),
            _ => {
                let values: Vec<i64> = match array.data_type() {
                    DataType::UInt64 => array.as_primitive::<datafusion::arrow::datatypes::UInt64Type>().values().iter().map(|v| *v as i64).collect(),
                    _ => cast(&array, &DataType::Int64)?.as_primitive::<Int64Type>().values().to_vec(),
                };
                let diffs = differences(&values, nulls.as_ref(), keep_first, i64::wrapping_sub);
                Arc::new(Int64Array::new(diffs.into(), nulls.clone()))
            }
        };
        // The differences fit the result type (it is twice as wide as the argument, or 64-bit).
        Ok(cast(&out, ctx.ret_type())?)
    })
    .custom_nulls()
    .build()
}

fn neighbor_type(ctx: &RetCtx) -> DfResult<ChType> {
    if !is_integer(ctx.dt(1)) {
        return Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Illegal type {} of second argument of function {} - should be an integer", ctx.ch(1), ctx.name),
        ));
    }
    if ctx.arg_count() == 3 {
        crate::supertype::least_supertype_of_args(ctx, &[0, 2])
    } else {
        Ok(ctx.ch(0))
    }
}

/// `neighbor(column, offset[, default])`: the value `offset` rows away inside the block,
/// else `default` (the type's default value without one).
fn neighbor() -> ScalarUDF {
    ScalarDef::new("neighbor", Arity::range(2, 3), neighbor_type, |ctx| {
        let ret = ctx.ret_ch();
        let column = convert_array(&ctx.array(0)?, &ctx.fields[0], &ret)?;
        let default = match ctx.args.get(2) {
            Some(_) => convert_array(&ctx.array(2)?, &ctx.fields[2], &ret)?,
            None => default_column(&ctx, &ret)?,
        };
        let offsets = offsets(&ctx)?;
        let len = ctx.len as i64;
        let picks: Vec<(usize, usize)> = offsets
            .iter()
            .enumerate()
            .map(|(row, offset)| {
                let target = (row as i64).saturating_add(*offset);
                if (0..len).contains(&target) {
                    (0, target as usize)
                } else {
                    (1, row)
                }
            })
            .collect();
        Ok(interleave(&[column.as_ref(), default.as_ref()], &picks)?)
    })
    .custom_nulls()
    .build()
}

/// The offsets, one per row (a NULL offset counts as 0).
fn offsets(ctx: &ExecCtx) -> DfResult<Vec<i64>> {
    let array = ctx.array(1)?;
    Ok(match array.data_type() {
        DataType::UInt64 => array.as_primitive::<datafusion::arrow::datatypes::UInt64Type>().values().iter().map(|v| i64::try_from(*v).unwrap_or(i64::MAX)).collect(),
        _ => cast(&array, &DataType::Int64)?.as_primitive::<Int64Type>().values().to_vec(),
    })
}

/// A column of the type's default value (NULL for a Nullable type).
fn default_column(ctx: &ExecCtx, t: &ChType) -> DfResult<ArrayRef> {
    let data_type = ctx.ret_type();
    if t.is_nullable() {
        return Ok(new_null_array(data_type, ctx.len));
    }
    let default = datafusion::common::ScalarValue::new_default(data_type)?;
    ColumnarValue::Scalar(default).to_array(ctx.len)
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        running_difference("runningDifference", false),
        running_difference("runningDifferenceStartingWithFirstValue", true),
        neighbor(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_skip_nulls() {
        let nulls = NullBuffer::from(vec![true, false, true, true, false, true]);
        let values = [1i64, 0, 2, 10, 0, 3];
        assert_eq!(differences(&values, Some(&nulls), false, i64::wrapping_sub), vec![0, 0, 1, 8, 0, -7]);
        assert_eq!(differences(&values, Some(&nulls), true, i64::wrapping_sub), vec![1, 0, 1, 8, 0, -7]);
        assert_eq!(differences(&[u64::MAX as i64, 0], None, false, i64::wrapping_sub), vec![0, 1]);
    }
}
