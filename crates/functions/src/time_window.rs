//! Time slots and windows: `timeSlots`.
//!
//! `timeSlots(start, duration[, size])` lists the starts of the `size`-second slots
//! (1800 by default) that the interval `[start, start + duration]` touches. For
//! `DateTime64` the duration and size are `Decimal64`s and everything is computed in
//! ticks of the largest of the three scales, which is also the result's precision.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int64Array, ListArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Decimal128Type, Int64Type, TimeUnit};
use datafusion::common::DataFusionError;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, scalar_i128, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::regexp::list_offset;

const DEFAULT_SLOT_SECONDS: i64 = 1800;

fn expected(ctx_name: &str, index: usize, what: &str, expected: &str, got: &ChType) -> DataFusionError {
    let ordinal = ["1st", "2nd", "3rd"].get(index).copied().unwrap_or("next");
    ch_error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!("A value of illegal type was provided as {ordinal} argument '{what}' to function '{ctx_name}'. Expected: {expected}, got: {got}"),
    )
}

fn is_decimal64(t: &ChType) -> bool {
    matches!(t, ChType::Decimal(10..=18, _))
}

fn decimal_scale(t: &ChType) -> u8 {
    match t {
        ChType::Decimal(_, s) => *s,
        _ => 0,
    }
}

fn time_slots_type(ctx: &RetCtx) -> DfResult<ChType> {
    let start = ctx.ch(0);
    let duration = ctx.ch(1);
    let size = (ctx.arg_count() == 3).then(|| ctx.ch(2));
    match &start {
        ChType::DateTime(_) => {
            if duration != ChType::UInt32 {
                return Err(expected(ctx.name, 1, "duration", "UInt32", &duration));
            }
            if let Some(size) = &size {
                // A query literal may still be typed Int64 here (DataFusion's `return_type`
                // has no values): a non-negative one is the UInt literal ClickHouse sees.
                let literal_unknown = *size == ChType::Int64 && ctx.scalar(2).and_then(scalar_i128).is_none_or(|v| v >= 0);
                if !matches!(size, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64) && !literal_unknown {
                    return Err(expected(ctx.name, 2, "size", "UInt*", size));
                }
            }
            Ok(ChType::Array(Box::new(start)))
        }
        ChType::DateTime64(precision, tz) => {
            if !is_decimal64(&duration) {
                return Err(expected(ctx.name, 1, "duration", "Decimal64", &duration));
            }
            let mut scale = (*precision).max(decimal_scale(&duration));
            if let Some(size) = &size {
                if !is_decimal64(size) {
                    return Err(expected(ctx.name, 2, "size", "Decimal64", size));
                }
                scale = scale.max(decimal_scale(size));
            }
            Ok(ChType::Array(Box::new(ChType::DateTime64(scale, tz.clone()))))
        }
        other => Err(expected(ctx.name, 0, "start_time", "DateTime64", other)),
    }
}

fn unit_digits(unit: &TimeUnit) -> u32 {
    match unit {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 3,
        TimeUnit::Microsecond => 6,
        TimeUnit::Nanosecond => 9,
    }
}

/// Values of argument `i` (a timestamp or a decimal) in ticks of `10^-scale` seconds.
fn ticks(ctx: &ExecCtx, i: usize, scale: u8) -> DfResult<Vec<i64>> {
    let array = ctx.array(i)?;
    let (values, from_scale): (Vec<i64>, u32) = match array.data_type() {
        DataType::Timestamp(unit, _) => {
            let raw = cast(&array, &DataType::Int64)?;
            let own = match ctx.ch(i).strip_nullable() {
                ChType::DateTime64(p, _) => u32::from(*p),
                _ => 0,
            };
            // Arrow keeps DateTime64(p) in a unit of 0, 3, 6 or 9 digits.
            let divisor = 10i64.pow(unit_digits(unit).saturating_sub(own));
            (raw.as_primitive::<Int64Type>().values().iter().map(|v| v / divisor).collect(), own)
        }
        DataType::Decimal128(_, s) => {
            (array.as_primitive::<Decimal128Type>().values().iter().map(|v| *v as i64).collect(), u32::try_from(*s).unwrap_or(0))
        }
        _ => (cast(&array, &DataType::Int64)?.as_primitive::<Int64Type>().values().to_vec(), 0),
    };
    let factor = 10i64.pow(u32::from(scale).saturating_sub(from_scale));
    Ok(values.into_iter().map(|v| v.saturating_mul(factor)).collect())
}

fn time_slots() -> ScalarUDF {
    ScalarDef::new("timeSlots", Arity::range(2, 3), time_slots_type, |ctx| {
        let ret = ctx.ret_ch();
        let ChType::Array(element) = ret.strip_nullable() else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, "timeSlots returns an array"));
        };
        let scale = match element.as_ref() {
            ChType::DateTime64(p, _) => *p,
            _ => 0,
        };
        let size = if ctx.args.len() == 3 {
            let Some(value) = ctx.scalar(2) else {
                return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Argument at index 2 for function {} must be constant", ctx.name)));
            };
            match value {
                datafusion::common::ScalarValue::Decimal128(Some(v), _, s) => {
                    (*v as i64).saturating_mul(10i64.pow(u32::from(scale).saturating_sub(u32::try_from(*s).unwrap_or(0))))
                }
                other => scalar_i128(other).map_or(0, |v| i64::try_from(v).unwrap_or(i64::MAX)),
            }
        } else {
            DEFAULT_SLOT_SECONDS * 10i64.pow(u32::from(scale))
        };
        if size <= 0 {
            return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Third argument for function {} must be greater than zero", ctx.name)));
        }
        let starts = ticks(&ctx, 0, scale)?;
        let durations = ticks(&ctx, 1, scale)?;
        let mut slots: Vec<i64> = Vec::with_capacity(ctx.len * 2);
        let mut offsets: Vec<i32> = Vec::with_capacity(ctx.len + 1);
        offsets.push(0);
        for (start, duration) in starts.iter().zip(&durations) {
            let first = start.div_euclid(size);
            let last = start.saturating_add(*duration).div_euclid(size);
            slots.extend((first..=last).map(|slot| slot * size));
            offsets.push(list_offset(slots.len())?);
        }
        let element_field = Arc::new(element.to_arrow_field("item"));
        let DataType::Timestamp(unit, _) = element_field.data_type() else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, "timeSlots returns times"));
        };
        let to_unit = 10i64.pow(unit_digits(unit).saturating_sub(u32::from(scale)));
        let values: ArrayRef = Arc::new(Int64Array::from_iter_values(slots.into_iter().map(|v| v * to_unit)));
        let values = cast(&values, element_field.data_type())?;
        Ok(Arc::new(ListArray::try_new(element_field, OffsetBuffer::new(offsets.into()), values, None)?))
    })
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![time_slots()]
}
