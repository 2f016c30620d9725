//! Time slots and windows: `timeSlots`, and the window functions of ClickHouse's window
//! views, `tumble`/`tumbleStart`/`tumbleEnd` and `hop`/`hopStart`/`hopEnd`.
//!
//! `tumble(t, interval[, tz])` is the window `[toStartOfInterval(t, interval),
//! start + interval)`; `hop(t, hop, window[, tz])` is the window of length `window` that
//! ends at the first hop boundary after `t` (`toStartOfInterval(t, hop) + hop`). Both are
//! computed with the registered `toStartOfInterval`, `plus` and `minus`, so alignment and
//! result types (Date for weeks and longer units) are theirs.
//!
//! `timeSlots(start, duration[, size])` lists the starts of the `size`-second slots
//! (1800 by default) that the interval `[start, start + duration]` touches. For
//! `DateTime64` the duration and size are `Decimal64`s and everything is computed in
//! ticks of the largest of the three scales, which is also the result's precision.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int64Array, ListArray, StructArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Decimal128Type, Int64Type};
use datafusion::common::DataFusionError;
use datafusion::logical_expr::{ColumnarValue, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::{ChType, IntervalKind};

use crate::args::{ch_error, illegal_argument, scalar_i128, Arity, DfResult};
use crate::func::{call_return_field, call_scalar, ch_type_of_field, registered_scalar, ExecCtx, RetCtx, ScalarDef};
use crate::regexp::list_offset;
use crate::reinterpret::unit_digits;

const DEFAULT_SLOT_SECONDS: i64 = 1800;

fn expected(ctx_name: &str, index: usize, what: &str, expected: &str, got: &ChType) -> DataFusionError {
    illegal_argument(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, ctx_name, index, what, expected, got)
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

/// Which window function, and which part of the window it returns.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Window {
    Tumble,
    Hop,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Both,
    Start,
    End,
}

fn interval_unit(t: &ChType) -> Option<IntervalKind> {
    match t {
        ChType::Interval(kind) => Some(*kind),
        _ => None,
    }
}

/// Checks a window call's arguments: a DateTime, its intervals (whole seconds or
/// longer, positive, of one unit for `hop`, the hop not longer than the window).
fn check_window(ctx: &RetCtx, window: Window) -> DfResult<()> {
    if !matches!(ctx.ch(0).base(), ChType::DateTime(_)) {
        return Err(expected(ctx.name, 0, "time_column", "DateTime", &ctx.ch(0)));
    }
    let intervals = if window == Window::Hop { 2 } else { 1 };
    let mut units = Vec::new();
    for i in 1..=intervals {
        let unit = interval_unit(ctx.ch(i).base()).ok_or_else(|| expected(ctx.name, i, "interval", "Interval", &ctx.ch(i)))?;
        if matches!(unit, IntervalKind::Nanosecond | IntervalKind::Microsecond | IntervalKind::Millisecond) {
            return Err(ch_error(ErrorCode::SYNTAX_ERROR, "Fraction seconds are unsupported by windows yet"));
        }
        if let Some(count) = ctx.scalar(i).and_then(scalar_i128) {
            if count <= 0 {
                return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Value for column {} of function {} must be positive", ctx.ch(i), ctx.name)));
            }
        }
        units.push((unit, ctx.scalar(i).and_then(scalar_i128)));
    }
    if let [(hop_unit, hop), (window_unit, size)] = units.as_slice() {
        if hop_unit != window_unit {
            return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Illegal type of window and hop column of function {}, must be same", ctx.name)));
        }
        if let (Some(hop), Some(size)) = (hop, size) {
            if hop > size {
                return Err(ch_error(
                    ErrorCode::ARGUMENT_OUT_OF_BOUND,
                    format!("Value for hop interval of function {} must not larger than window interval", ctx.name),
                ));
            }
        }
    }
    Ok(())
}

/// The window's bound type and the index of the optional time-zone argument.
fn window_bound(ctx: &RetCtx, window: Window) -> DfResult<ChType> {
    let tz_index = if window == Window::Hop { 3 } else { 2 };
    let start_of = registered_scalar("toStartOfInterval")?;
    let mut fields = vec![Arc::clone(&ctx.fields[0]), Arc::clone(&ctx.fields[1])];
    let mut scalars = vec![ctx.scalar(0), ctx.scalar(1)];
    if ctx.arg_count() > tz_index {
        fields.push(Arc::clone(&ctx.fields[tz_index]));
        scalars.push(ctx.scalar(tz_index));
    }
    Ok(ch_type_of_field(call_return_field(&start_of, &fields, &scalars)?.as_ref()))
}

fn window_type(ctx: &RetCtx, window: Window, part: Part) -> DfResult<ChType> {
    // `tumbleStart(w)` / `hopEnd(w)` of a window made before.
    if ctx.arg_count() == 1 {
        return match ctx.ch(0) {
            ChType::Tuple(elements) if elements.len() == 2 && part != Part::Both => Ok(elements[if part == Part::Start { 0 } else { 1 }].1.clone()),
            other => Err(expected(ctx.name, 0, "time_column", "DateTime", &other)),
        };
    }
    let needed = if window == Window::Hop { 3 } else { 2 };
    if ctx.arg_count() < needed {
        return Err(ch_error(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!("Number of arguments for function {} doesn't match: passed {}, should be {needed} or {}", ctx.name, ctx.arg_count(), needed + 1),
        ));
    }
    check_window(ctx, window)?;
    let bound = window_bound(ctx, window)?;
    Ok(match part {
        Part::Both => ChType::Tuple(vec![("1".to_string(), bound.clone()), ("2".to_string(), bound)]),
        _ => bound,
    })
}

fn window_exec(ctx: &ExecCtx, window: Window, part: Part) -> DfResult<ArrayRef> {
    if ctx.args.len() == 1 {
        let tuple = ctx.array(0)?;
        let tuple = tuple.as_struct_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{} takes a window tuple", ctx.name)))?;
        return Ok(Arc::clone(tuple.column(if part == Part::Start { 0 } else { 1 })));
    }
    let tz_index = if window == Window::Hop { 3 } else { 2 };
    let time = (ctx.args[0].clone(), Arc::clone(&ctx.fields[0]));
    let step = (ctx.args[1].clone(), Arc::clone(&ctx.fields[1]));
    let mut start_args = vec![time.0, step.0.clone()];
    let mut start_fields = vec![time.1, Arc::clone(&step.1)];
    if ctx.args.len() > tz_index {
        start_args.push(ctx.args[tz_index].clone());
        start_fields.push(Arc::clone(&ctx.fields[tz_index]));
    }
    let (aligned, aligned_field) = call_scalar(registered_scalar("toStartOfInterval")?.as_ref(), start_args, start_fields, ctx.len, ctx.config)?;
    let plus = registered_scalar("plus")?;
    let (end, end_field) = call_scalar(&plus, vec![ColumnarValue::Array(Arc::clone(&aligned)), step.0.clone()], vec![Arc::clone(&aligned_field), step.1], ctx.len, ctx.config)?;
    let (start, end) = match window {
        Window::Tumble => (aligned, end),
        Window::Hop => {
            let minus = registered_scalar("minus")?;
            let size = (ctx.args[2].clone(), Arc::clone(&ctx.fields[2]));
            let (start, _) = call_scalar(&minus, vec![ColumnarValue::Array(Arc::clone(&end)), size.0], vec![end_field, size.1], ctx.len, ctx.config)?;
            check_no_wrap(ctx, &start, &end)?;
            (start, end)
        }
    };
    Ok(match part {
        Part::Start => start,
        Part::End => end,
        Part::Both => {
            let DataType::Struct(fields) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} returns a tuple", ctx.name)));
            };
            let start = cast(&start, fields[0].data_type())?;
            let end = cast(&end, fields[1].data_type())?;
            Arc::new(StructArray::try_new(fields.clone(), vec![start, end], None)?)
        }
    })
}

/// A hop window starting before the epoch wraps around in DateTime arithmetic; ClickHouse
/// refuses it.
fn check_no_wrap(ctx: &ExecCtx, start: &ArrayRef, end: &ArrayRef) -> DfResult<()> {
    let time = ctx.array(0)?;
    let starts = cast(&cast(start, &DataType::Int64)?, &DataType::Int64)?;
    let ends = cast(&cast(end, &DataType::Int64)?, &DataType::Int64)?;
    let (starts, ends) = (starts.as_primitive::<Int64Type>(), ends.as_primitive::<Int64Type>());
    let wrapped = (0..starts.len()).any(|row| time.is_valid(row) && starts.value(row) > ends.value(row));
    if wrapped {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Time overflow in function {}", ctx.name)));
    }
    Ok(())
}

fn window_function(name: &'static str, window: Window, part: Part) -> ScalarUDF {
    let arity = match (window, part) {
        (Window::Tumble, Part::Both) => Arity::range(2, 3),
        (Window::Hop, Part::Both) => Arity::range(3, 4),
        (Window::Tumble, _) => Arity::range(1, 3),
        (Window::Hop, _) => Arity::range(1, 4),
    };
    ScalarDef::new(name, arity, move |ctx| window_type(ctx, window, part), move |ctx| window_exec(ctx, window, part)).build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        time_slots(),
        window_function("tumble", Window::Tumble, Part::Both),
        window_function("tumbleStart", Window::Tumble, Part::Start),
        window_function("tumbleEnd", Window::Tumble, Part::End),
        window_function("hop", Window::Hop, Part::Both),
        window_function("hopStart", Window::Hop, Part::Start),
        window_function("hopEnd", Window::Hop, Part::End),
    ]
}
