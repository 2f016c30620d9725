//! Functional forms of arithmetic and comparison: `plus`, `minus`, `multiply`,
//! `divide`, `intDiv`, `modulo`, `positiveModulo`, `equals`, `notEquals`, `less`, `greater`,
//! `lessOrEquals`, `greaterOrEquals`.
//!
//! Result types follow ClickHouse's `NumberTraits` (checked with chdb):
//! `plus`/`multiply` widen to the next size (`UInt8 + UInt8` -> `UInt16`, capped at 64
//! bits, signed if either side is); `minus` is always signed; `divide` is `Float64`;
//! `intDiv` keeps the dividend's width; `modulo` takes the divisor's width (one size up
//! when a signed value is divided by an unsigned one); any float makes `Float64`.
//! Wide integers (`Int128`..`UInt256`) compute on 256-bit words with their own rules
//! ([`wide_result_type`]).
//! Integer overflow wraps. Comparisons return `UInt8` (0/1) like ClickHouse.
//! Dates: `Date ± n` adds days, `DateTime ± n` adds seconds (wrapping in 32 bits),
//! `Date - Date` is `Int32`, `date ± interval` moves by the interval's unit.
//! Comparisons follow ClickHouse on NaN (IEEE) and compare arrays/tuples lexicographically.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, PrimitiveArray, UInt8Array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::compute::kernels::{cmp, numeric};
use datafusion::arrow::datatypes::{DataType, Date32Type, Decimal128Type, Decimal256Type, Float64Type, Int64Type, UInt64Type};
use datafusion::arrow::error::ArrowError;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::wide::{f64_to_i256_wrapping, WideInt};
use granary_types::ChType;

use crate::args::{byte_width, ch_error, illegal_type, int_type, is_decimal, is_float, is_integer, is_signed_int, Arity, DfResult};
use crate::conditional::to_type;
use crate::conversion::convert::{convert, Conv, Mode};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use datafusion::common::ScalarValue;
use crate::supertype::least_supertype;
use crate::tuple_arithmetic::{tuple_operator, tuple_operator_exec, tuple_operator_type};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Plus,
    Minus,
    Multiply,
    Divide,
    IntDiv,
    Modulo,
}

fn numeric_or_bool(dt: &DataType) -> bool {
    is_integer(dt) || is_float(dt) || dt == &DataType::Boolean
}

fn width(dt: &DataType) -> usize {
    if is_float(dt) {
        8
    } else {
        byte_width(dt)
    }
}

fn next_width(w: usize) -> usize {
    (w * 2).min(8)
}

fn result_type(op: Op, ctx: &RetCtx) -> DfResult<ChType> {
    if let Some(t) = interval_result_type(op, &ctx.ch(0), &ctx.ch(1), ctx.name)? {
        return Ok(t);
    }
    let (a, b) = (ctx.dt(0), ctx.dt(1));
    // Date and time arithmetic.
    match (op, a, b) {
        (Op::Plus | Op::Minus, DataType::Date32 | DataType::Timestamp(..), r) if is_integer(r) => return Ok(ctx.ch(0)),
        (Op::Plus, l, DataType::Date32 | DataType::Timestamp(..)) if is_integer(l) => return Ok(ctx.ch(1)),
        (Op::Minus, DataType::Date32, DataType::Date32) => return Ok(ChType::Int32),
        (Op::Minus, DataType::Timestamp(..), DataType::Timestamp(..)) => return Ok(ChType::Int64),
        (Op::Plus | Op::Minus, DataType::Time32(_) | DataType::Time64(_), r) if is_integer(r) || is_float(r) => return Ok(ctx.ch(0)),
        (Op::Plus, l, DataType::Time32(_) | DataType::Time64(_)) if is_integer(l) || is_float(l) => return Ok(ctx.ch(1)),
        (Op::Minus, DataType::Time32(_) | DataType::Time64(_), DataType::Time32(_) | DataType::Time64(_)) => {
            let digits = |t: ChType| match t.base() {
                ChType::Time64(p) => Some(*p),
                _ => None,
            };
            // Seconds between two times: Int32, or a Decimal64 of the finer precision.
            return Ok(match digits(ctx.ch(0)).max(digits(ctx.ch(1))) {
                None => ChType::Int32,
                Some(p) => ChType::Decimal(18, p),
            });
        }
        _ => {}
    }
    if is_wide(&ctx.ch(0)) || is_wide(&ctx.ch(1)) {
        if op != Op::IntDiv && wide_with_decimal(&ctx.ch(0), &ctx.ch(1)) {
            return decimal_result_type(op, ctx);
        }
        return wide_result_type(op, ctx);
    }
    if is_decimal(a) || is_decimal(b) {
        return decimal_result_type(op, ctx);
    }
    for i in 0..2 {
        if !numeric_or_bool(ctx.dt(i)) {
            return Err(illegal_type(ctx.name, i, ctx.field(i)));
        }
    }
    let any_float = is_float(a) || is_float(b);
    let signed = is_signed_int(a) || is_signed_int(b);
    let dt = match op {
        Op::Divide => DataType::Float64,
        _ if any_float && op != Op::IntDiv => DataType::Float64,
        Op::Plus | Op::Multiply => int_type(signed, next_width(width(a).max(width(b)))),
        Op::Minus => int_type(true, next_width(width(a).max(width(b)))),
        Op::IntDiv => int_type(signed || is_float(a) || is_float(b), width(a)),
        // A signed dividend can leave a remainder of the divisor's magnitude with a sign:
        // one size up (`toInt8(-7) % toInt8(2)` is Int16).
        Op::Modulo => {
            let w = if is_signed_int(a) { next_width(width(b)) } else { width(b) };
            int_type(is_signed_int(a), w)
        }
    };
    Ok(ChType::from_arrow(&dt, false))
}

fn is_interval(t: &ChType) -> bool {
    matches!(t, ChType::Interval(_))
}

/// A tuple of intervals, as `INTERVAL 1 DAY + INTERVAL 1 HOUR` makes.
fn is_interval_tuple(t: &ChType) -> bool {
    matches!(t, ChType::Tuple(items) if !items.is_empty() && items.iter().all(|(_, t)| is_interval(t)))
}

fn is_date_or_time(t: &ChType) -> bool {
    matches!(t, ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..) | ChType::Time | ChType::Time64(_))
}

/// Arithmetic with intervals, typed as ClickHouse types it: `date ± interval` and
/// `interval + date` move the date ([`crate::datetime::shifted_type`]); intervals of one
/// unit add up to that unit, of different units to a tuple of both (`INTERVAL 1 DAY +
/// INTERVAL 1 HOUR` is `Tuple(IntervalDay, IntervalHour)`), which later intervals grow
/// ([`crate::intervals::grown_interval_tuple`]) and which a date applies in order. Anything else with an interval
/// (`INTERVAL 1 DAY * 2`, `1 + INTERVAL 1 DAY`) is ILLEGAL_TYPE_OF_ARGUMENT. `None` when
/// no argument is an interval.
fn interval_result_type(op: Op, a: &ChType, b: &ChType, name: &str) -> DfResult<Option<ChType>> {
    let (a, b) = (a.base(), b.base());
    let involved = [a, b].iter().any(|t| is_interval(t) || is_interval_tuple(t));
    if !involved {
        return Ok(None);
    }
    let additive = matches!(op, Op::Plus | Op::Minus);
    let t = match (a, b) {
        (d, ChType::Interval(unit)) if additive && is_date_or_time(d) => crate::datetime::shifted_type(d, *unit)?,
        (ChType::Interval(unit), d) if op == Op::Plus && is_date_or_time(d) => crate::datetime::shifted_type(d, *unit)?,
        (ChType::Tuple(_), d) if op == Op::Plus && is_date_or_time(d) && is_interval_tuple(a) => return interval_result_type(op, b, a, name),
        (d, ChType::Tuple(items)) if additive && is_date_or_time(d) && is_interval_tuple(b) => {
            let mut t = d.clone();
            for (_, item) in items {
                if let ChType::Interval(unit) = item {
                    t = crate::datetime::shifted_type(&t, *unit)?;
                }
            }
            t
        }
        (ChType::Interval(x), ChType::Interval(y)) if additive && x == y => a.clone(),
        (ChType::Interval(_), ChType::Interval(_)) if additive => ChType::Tuple(vec![("1".into(), a.clone()), ("2".into(), b.clone())]),
        (ChType::Tuple(items), ChType::Interval(_)) if additive && is_interval_tuple(a) => crate::intervals::grown_interval_tuple(items, b),
        _ => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal types {a} and {b} of arguments of function {name}"))),
    };
    Ok(Some(t))
}

/// Computes what [`interval_result_type`] typed.
fn interval_compute(op: Op, ctx: &ExecCtx, ret: &ChType) -> DfResult<ArrayRef> {
    let (a_ch, b_ch) = (ctx.ch(0).base().clone(), ctx.ch(1).base().clone());
    let sign = if op == Op::Minus { -1 } else { 1 };
    let counts = |array: &ArrayRef| -> DfResult<PrimitiveArray<Int64Type>> { Ok(cast(array, &DataType::Int64)?.as_primitive::<Int64Type>().clone()) };
    let (a, b) = (ctx.array(0)?, ctx.array(1)?);
    match (&a_ch, &b_ch) {
        (d, ChType::Interval(unit)) if is_date_or_time(d) => {
            let zone = crate::datetime::zone_for(ctx, 0, None)?;
            crate::datetime::shift(&a, &counts(&b)?, *unit, sign, &zone, ret)
        }
        (ChType::Interval(unit), d) if is_date_or_time(d) => {
            let zone = crate::datetime::zone_for(ctx, 1, None)?;
            crate::datetime::shift(&b, &counts(&a)?, *unit, sign, &zone, ret)
        }
        (ChType::Tuple(items), d) if is_date_or_time(d) => apply_interval_tuple(ctx, 1, b, d, a.as_struct(), items, sign),
        (d, ChType::Tuple(items)) if is_date_or_time(d) => apply_interval_tuple(ctx, 0, a, d, b.as_struct(), items, sign),
        (ChType::Interval(x), ChType::Interval(y)) if x == y => Ok(if sign < 0 { numeric::sub_wrapping(&a, &b)? } else { numeric::add_wrapping(&a, &b)? }),
        (ChType::Tuple(items), b_unit) => crate::intervals::grow_interval_tuple(a.as_struct().columns().to_vec(), items, b_unit, &b, sign, ret),
        // Intervals of different units: a tuple of their counts.
        _ => crate::intervals::grow_interval_tuple(vec![a], &[("1".into(), a_ch.clone())], &b_ch, &b, sign, ret),
    }
}

/// The date or time `date` (argument `date_index`, of type `d`) moved by each interval
/// of a tuple in turn.
fn apply_interval_tuple(
    ctx: &ExecCtx,
    date_index: usize,
    date: ArrayRef,
    d: &ChType,
    parts: &datafusion::arrow::array::StructArray,
    items: &[(String, ChType)],
    sign: i64,
) -> DfResult<ArrayRef> {
    let zone = crate::datetime::zone_for(ctx, date_index, None)?;
    let (mut value, mut t) = (date, d.clone());
    for ((_, item), part) in items.iter().zip(parts.columns()) {
        if let ChType::Interval(unit) = item {
            let next = crate::datetime::shifted_type(&t, *unit)?;
            let counts = cast(part, &DataType::Int64)?;
            value = crate::datetime::shift(&value, counts.as_primitive::<Int64Type>(), *unit, sign, &zone, &next)?;
            t = next;
        }
    }
    Ok(value)
}

pub(crate) fn is_wide(t: &ChType) -> bool {
    WideInt::of(t.base()).is_some()
}

/// Width in bytes and signedness of an integer operand, wide integers included.
pub(crate) fn int_shape(t: &ChType) -> Option<(usize, bool)> {
    Some(match t.base() {
        ChType::UInt8 | ChType::Bool => (1, false),
        ChType::UInt16 => (2, false),
        ChType::UInt32 => (4, false),
        ChType::UInt64 => (8, false),
        ChType::Int8 => (1, true),
        ChType::Int16 => (2, true),
        ChType::Int32 => (4, true),
        ChType::Int64 => (8, true),
        ChType::UInt128 => (16, false),
        ChType::Int128 => (16, true),
        ChType::UInt256 => (32, false),
        ChType::Int256 => (32, true),
        _ => return None,
    })
}

/// The integer type of a width in bytes, wide ones included.
pub(crate) fn int_of_width(signed: bool, width: usize) -> ChType {
    match (signed, width) {
        (false, 16) => ChType::UInt128,
        (true, 16) => ChType::Int128,
        (false, 32) => ChType::UInt256,
        (true, 32) => ChType::Int256,
        _ => ChType::from_arrow(&int_type(signed, width), false),
    }
}

/// Result types with a wide integer operand (ClickHouse's `NumberTraits`, checked with
/// chdb): `+ - *` take the wider operand's width without growing past it (`UInt64 +
/// Int128` is Int128, `UInt128 + Int8` is Int128), `-` is signed; `intDiv` keeps the
/// dividend's width, `%` the divisor's (one size up below 8 bytes for a signed dividend:
/// `toInt128(7) % 2` is Int16); `/` is Float64. Floats only divide (`/`, `%`, `intDiv`):
/// `toInt128(1) + 1.5` is ILLEGAL_TYPE_OF_ARGUMENT in ClickHouse. With a Decimal, the
/// decimal's type ([`decimal_result_type`]; `intDiv` stays here).
fn wide_result_type(op: Op, ctx: &RetCtx) -> DfResult<ChType> {
    let (a, b) = (ctx.ch(0).base().clone(), ctx.ch(1).base().clone());
    let is_float_type = |t: &ChType| matches!(t, ChType::Float32 | ChType::Float64);
    let illegal_pair = || ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal types {a} and {b} of arguments of function {}", ctx.name));
    let (sa, sb) = (int_shape(&a), int_shape(&b));
    for (shape, t) in [(sa, &a), (sb, &b)] {
        if shape.is_none() && !is_float_type(t) {
            return Err(illegal_pair());
        }
    }
    let grown = |w: usize| if w < 8 { w * 2 } else { w };
    Ok(match (op, sa, sb) {
        (Op::Divide, ..) | (Op::Modulo, None, _) | (Op::Modulo, _, None) => ChType::Float64,
        (Op::IntDiv, Some((wa, signed_a)), b) => int_of_width(signed_a || b.is_none_or(|(_, signed_b)| signed_b), wa),
        (Op::Plus | Op::Multiply, Some((wa, signed_a)), Some((wb, signed_b))) => int_of_width(signed_a || signed_b, wa.max(wb)),
        (Op::Minus, Some((wa, _)), Some((wb, _))) => int_of_width(true, wa.max(wb)),
        (Op::Modulo, Some((_, signed_a)), Some((wb, _))) => int_of_width(signed_a, if signed_a { grown(wb) } else { wb }),
        _ => return Err(illegal_pair()),
    })
}

/// Argument `i` as 256-bit words (sign- or zero-extended by its own type).
pub(crate) fn words_of(ctx: &ExecCtx, i: usize) -> DfResult<PrimitiveArray<Decimal256Type>> {
    let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
    let words = convert(&ctx.array(i)?, &ctx.fields[i], &ChType::Int256, &cv)?;
    Ok(words.as_primitive::<Decimal256Type>().clone())
}

/// 256-bit words as a column of `ret` (wrapped into a narrower type as ClickHouse does).
pub(crate) fn words_to(words: PrimitiveArray<Decimal256Type>, ret: &ChType, ctx: &ExecCtx) -> DfResult<ArrayRef> {
    if let Some(kind) = WideInt::of(ret) {
        return Ok(kind.narrow(&words));
    }
    let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
    let words: ArrayRef = Arc::new(words.with_data_type(WideInt::Int256.arrow_type()));
    convert(&words, &ChType::Int256.to_arrow_field(""), ret, &cv)
}

/// Computes what [`wide_result_type`] typed: in 256-bit words, wrapping, then wrapped
/// into the result type; `/` and `%` by a float in Float64.
fn wide_compute(op: Op, ctx: &ExecCtx, ret: &ChType, or_zero: bool) -> DfResult<ArrayRef> {
    use datafusion::arrow::datatypes::{i256, Float64Type};
    let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
    let floats = |i: usize| -> DfResult<PrimitiveArray<Float64Type>> {
        Ok(convert(&ctx.array(i)?, &ctx.fields[i], &ChType::Float64, &cv)?.as_primitive::<Float64Type>().clone())
    };
    let any_float = is_float(ctx.dt(0)) || is_float(ctx.dt(1));
    if *ret == ChType::Float64 {
        let (l, r) = (floats(0)?, floats(1)?);
        let out = if op == Op::Divide { numeric::div(&l, &r) } else { numeric::rem(&l, &r) };
        return out.map_err(arrow_error);
    }
    let words: PrimitiveArray<Decimal256Type> = if any_float {
        // intDiv with a float operand: the truncated float quotient.
        let (l, r) = (floats(0)?, floats(1)?);
        datafusion::arrow::compute::try_binary(&l, &r, |x, y| {
            let q = (x / y).trunc();
            f64_to_i256_wrapping(q).or(or_zero.then_some(datafusion::arrow::datatypes::i256::ZERO)).ok_or(ArrowError::DivideByZero)
        })
        .map_err(arrow_error)?
    } else {
        let (l, r) = (words_of(ctx, 0)?, words_of(ctx, 1)?);
        let dividend_min = match ctx.ch(0).base() {
            ChType::Int128 => Some(i256::from_i128(i128::MIN)),
            ChType::Int256 => Some(i256::MIN),
            _ => None,
        };
        let divide = |x: i256, y: i256| -> Result<i256, ArrowError> {
            let undefined = y == i256::ZERO || (y == i256::MINUS_ONE && Some(x) == dividend_min);
            if undefined && or_zero {
                return Ok(i256::ZERO);
            }
            if y == i256::ZERO {
                return Err(ArrowError::DivideByZero);
            }
            if undefined {
                return Err(ArrowError::ArithmeticOverflow(String::new()));
            }
            Ok(if op == Op::IntDiv { x.wrapping_div(y) } else { x.wrapping_rem(y) })
        };
        match op {
            Op::Plus => datafusion::arrow::compute::binary(&l, &r, |x, y| x.wrapping_add(y))?,
            Op::Minus => datafusion::arrow::compute::binary(&l, &r, |x, y| x.wrapping_sub(y))?,
            Op::Multiply => datafusion::arrow::compute::binary(&l, &r, |x, y| x.wrapping_mul(y))?,
            _ => datafusion::arrow::compute::try_binary(&l, &r, divide).map_err(arrow_error)?,
        }
    };
    words_to(words, ret, ctx)
}

fn decimal_parts(dt: &DataType) -> Option<(u8, u8)> {
    match dt {
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) | DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => {
            Some((*p, (*s).max(0) as u8))
        }
        _ => None,
    }
}

/// ClickHouse's precision classes: Decimal32, Decimal64, Decimal128, Decimal256.
fn precision_class(p: u8) -> u8 {
    match p {
        0..=9 => 9,
        10..=18 => 18,
        19..=38 => 38,
        _ => 76,
    }
}

/// Decimal arithmetic: the widest decimal operand's class; an integer operand takes
/// the decimal's. Scales: `+ - %` the larger, `*` the sum, `/` the dividend's.
fn decimal_result_type(op: Op, ctx: &RetCtx) -> DfResult<ChType> {
    let (a, b) = (ctx.dt(0), ctx.dt(1));
    // A wide integer is an integer here, whatever decimal holds it.
    let parts = |i: usize| if is_wide(&ctx.ch(i)) { None } else { decimal_parts(ctx.dt(i)) };
    for i in 0..2 {
        let dt = ctx.dt(i);
        if !(is_decimal(dt) || numeric_or_bool(dt)) {
            return Err(illegal_type(ctx.name, i, ctx.field(i)));
        }
    }
    if op == Op::IntDiv {
        return Ok(decimal_int_div_type(parts(0).map(|(p, _)| p), a));
    }
    if is_float(a) || is_float(b) {
        return Ok(ChType::Float64);
    }
    let (pa, sa) = parts(0).unwrap_or((0, 0));
    let (pb, sb) = parts(1).unwrap_or((0, 0));
    let p = precision_class(pa.max(pb));
    let s = match op {
        Op::Plus | Op::Minus | Op::Modulo => sa.max(sb),
        Op::Multiply => sa + sb,
        Op::Divide => {
            if parts(0).is_some() {
                sa
            } else {
                sb
            }
        }
        Op::IntDiv => return Err(illegal_type(ctx.name, 0, ctx.field(0))),
    };
    if s > p {
        return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, "Decimal result's scale is less than argument's one"));
    }
    Ok(ChType::Decimal(p, s))
}

/// `intDiv` with a Decimal operand: a signed integer as wide as the dividend (a
/// Decimal32 dividend gives Int32, `intDiv(toUInt64(7), toDecimal32(2.5, 1))` Int64).
fn decimal_int_div_type(dividend_precision: Option<u8>, dividend: &DataType) -> ChType {
    let bytes = match dividend_precision.map(precision_class) {
        Some(9) => 4,
        Some(18) => 8,
        Some(38) => 16,
        Some(_) => 32,
        None => width(dividend),
    };
    match bytes {
        1 => ChType::Int8,
        2 => ChType::Int16,
        4 => ChType::Int32,
        8 => ChType::Int64,
        16 => ChType::Int128,
        _ => ChType::Int256,
    }
}

/// `intDiv` with a Decimal operand: the operands' real values divided, truncated toward
/// zero (both brought to the larger scale, then divided as integers). A zero divisor
/// gives 0 with `or_zero` (`intDivOrZero`), error 153 otherwise.
fn decimal_int_div(a: &ArrayRef, b: &ArrayRef, base: &ChType, or_zero: bool) -> DfResult<ArrayRef> {
    use datafusion::arrow::datatypes::{i256, Decimal256Type};
    let scale_of = |x: &ArrayRef| decimal_parts(x.data_type()).map(|(_, s)| s).unwrap_or(0);
    let common = scale_of(a).max(scale_of(b));
    let error = |e: ArrowError| match e {
        ArrowError::DivideByZero => ch_error(ErrorCode::ILLEGAL_DIVISION, "Division by zero"),
        other => ch_error(ErrorCode::DECIMAL_OVERFLOW, format!("Decimal math overflow: {other}")),
    };
    let strict = datafusion::arrow::compute::CastOptions { safe: false, ..Default::default() };
    let at_common_scale = |x: &ArrayRef| -> DfResult<ArrayRef> {
        datafusion::arrow::compute::cast_with_options(x, &DataType::Decimal256(76, common as i8), &strict).map_err(error)
    };
    let (l, r) = (at_common_scale(a)?, at_common_scale(b)?);
    let quotient: PrimitiveArray<Decimal256Type> =
        datafusion::arrow::compute::try_binary(l.as_primitive::<Decimal256Type>(), r.as_primitive::<Decimal256Type>(), |x, y| {
            if y == i256::ZERO {
                return if or_zero { Ok(i256::ZERO) } else { Err(ArrowError::DivideByZero) };
            }
            x.checked_div(y).ok_or_else(|| ArrowError::ArithmeticOverflow("division".into()))
        })
        .map_err(error)?;
    let quotient: ArrayRef = Arc::new(quotient.with_precision_and_scale(76, 0)?);
    datafusion::arrow::compute::cast_with_options(&quotient, &base.to_arrow(), &strict).map_err(error)
}

/// A wide integer with a Decimal: ClickHouse computes in the decimal's type (`toInt128(5)
/// + toDecimal64(1.5, 2)` is Decimal(18, 2)).
fn wide_with_decimal(a: &ChType, b: &ChType) -> bool {
    (is_wide(a) && matches!(b.base(), ChType::Decimal(..))) || (is_wide(b) && matches!(a.base(), ChType::Decimal(..)))
}

/// `integer` tells which operands are integers (wide ones are held as decimals).
fn decimal_compute(op: Op, a: &ArrayRef, b: &ArrayRef, base: &ChType, integer: [bool; 2]) -> DfResult<ArrayRef> {
    let target = base.to_arrow();
    let a_is_decimal = !integer[0] && decimal_parts(a.data_type()).is_some();
    if target == DataType::Float64 {
        let (l, r) = (cast(a, &DataType::Float64)?, cast(b, &DataType::Float64)?);
        let out = match op {
            Op::Plus => numeric::add(&l, &r),
            Op::Minus => numeric::sub(&l, &r),
            Op::Multiply => numeric::mul(&l, &r),
            Op::Divide => numeric::div(&l, &r),
            Op::Modulo => numeric::rem(&l, &r),
            Op::IntDiv => numeric::div(&l, &r),
        }
        .map_err(arrow_error)?;
        return Ok(out);
    }
    let ChType::Decimal(p, s) = base else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("decimal arithmetic produced {base}")));
    };
    let wide = *p > 38;
    let work = |scale: u8| if wide { DataType::Decimal256(76, scale as i8) } else { DataType::Decimal128(38, scale as i8) };
    let scale_of = |x: &ArrayRef| decimal_parts(x.data_type()).map(|(_, s)| s).unwrap_or(0);
    let overflow = |e: ArrowError| match e {
        ArrowError::DivideByZero => ch_error(ErrorCode::ILLEGAL_DIVISION, "Division by zero"),
        other => ch_error(ErrorCode::DECIMAL_OVERFLOW, format!("Decimal math overflow: {other}")),
    };
    let strict = datafusion::arrow::compute::CastOptions { safe: false, ..Default::default() };
    let cast = |x: &ArrayRef, to: &DataType| datafusion::arrow::compute::cast_with_options(x, to, &strict).map_err(overflow);
    // ClickHouse's `%` takes an integer operand's raw value at the decimal's scale
    // (`5 % toDecimal64(1.5, 2)` is 0.05); the other operators scale it.
    let operand = |x: &ArrayRef, is_integer: bool, scale: u8| -> DfResult<ArrayRef> {
        if op == Op::Modulo && is_integer {
            let raw = cast(x, &work(0))?;
            return Ok(match raw.data_type() {
                DataType::Decimal128(..) => Arc::new(raw.as_primitive::<Decimal128Type>().clone().with_precision_and_scale(38, scale as i8)?),
                _ => Arc::new(raw.as_primitive::<datafusion::arrow::datatypes::Decimal256Type>().clone().with_precision_and_scale(76, scale as i8)?),
            });
        }
        cast(x, &work(scale))
    };
    let out = match op {
        Op::Plus | Op::Minus | Op::Modulo => {
            let b_is_integer = integer[1] || decimal_parts(b.data_type()).is_none();
            let (l, r) = (operand(a, !a_is_decimal, *s)?, operand(b, b_is_integer, *s)?);
            match op {
                Op::Plus => numeric::add(&l, &r),
                Op::Minus => numeric::sub(&l, &r),
                _ => numeric::rem(&l, &r),
            }
            .map_err(overflow)?
        }
        Op::Multiply => {
            let (l, r) = (cast(a, &work(scale_of(a)))?, cast(b, &work(scale_of(b)))?);
            numeric::mul(&l, &r).map_err(overflow)?
        }
        Op::Divide if !wide => {
            // raw(a) * 10^scale(b) / raw(b) is the quotient at a's scale.
            let (sa, sb) = (scale_of(a), scale_of(b));
            let l = cast(a, &work(sa))?;
            let r = cast(b, &work(sb))?;
            let (l, r) = (l.as_primitive::<Decimal128Type>(), r.as_primitive::<Decimal128Type>());
            let out_scale = if a_is_decimal { sa } else { sb };
            // raw(a) * 10^(scale(b) + out_scale - scale(a)) / raw(b) is the quotient at out_scale.
            let factor = 10i128.pow(u32::from(sb + out_scale - sa));
            let q: PrimitiveArray<Decimal128Type> = datafusion::arrow::compute::try_binary(l, r, |x, y| {
                if y == 0 {
                    return Err(ArrowError::DivideByZero);
                }
                x.checked_mul(factor).map(|n| n / y).ok_or_else(|| ArrowError::ArithmeticOverflow("multiplication".into()))
            })
            .map_err(overflow)?;
            Arc::new(q.with_precision_and_scale(38, out_scale as i8)?)
        }
        Op::Divide => {
            use datafusion::arrow::datatypes::{i256, Decimal256Type};
            let (sa, sb) = (scale_of(a), scale_of(b));
            let l = cast(a, &work(sa))?;
            let r = cast(b, &work(sb))?;
            let (l, r) = (l.as_primitive::<Decimal256Type>(), r.as_primitive::<Decimal256Type>());
            let out_scale = if a_is_decimal { sa } else { sb };
            let factor = i256::from_i128(10).wrapping_pow(u32::from(sb + out_scale - sa));
            let q: PrimitiveArray<Decimal256Type> = datafusion::arrow::compute::try_binary(l, r, |x, y| {
                if y == i256::ZERO {
                    return Err(ArrowError::DivideByZero);
                }
                x.checked_mul(factor).and_then(|n| n.checked_div(y)).ok_or_else(|| ArrowError::ArithmeticOverflow("multiplication".into()))
            })
            .map_err(overflow)?;
            Arc::new(q.with_precision_and_scale(76, out_scale as i8)?)
        }
        Op::IntDiv => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "intDiv is not defined for Decimal")),
    };
    let options = datafusion::arrow::compute::CastOptions { safe: false, ..Default::default() };
    datafusion::arrow::compute::cast_with_options(&out, &target, &options).map_err(overflow)
}

fn arrow_error(e: ArrowError) -> datafusion::common::DataFusionError {
    match e {
        ArrowError::DivideByZero => ch_error(ErrorCode::ILLEGAL_DIVISION, "Division by zero"),
        ArrowError::ArithmeticOverflow(m) | ArrowError::ComputeError(m) => {
            ch_error(ErrorCode::ILLEGAL_DIVISION, format!("Division of minimal signed number by minus one: {m}"))
        }
        other => other.into(),
    }
}

fn wrap_to(array: &ArrayRef, to: &ChType, ctx: &ExecCtx) -> DfResult<ArrayRef> {
    let field = datafusion::arrow::datatypes::Field::new("", array.data_type().clone(), true);
    let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
    convert(array, &field, to, &cv)
}

fn compute(op: Op, ctx: &ExecCtx) -> DfResult<ArrayRef> {
    let ret = ctx.ret_ch();
    let base = ret.strip_nullable().clone();
    if [ctx.ch(0), ctx.ch(1)].iter().any(|t| is_interval(t.base()) || is_interval_tuple(t.base())) {
        return interval_compute(op, ctx, &base);
    }
    let a = ctx.array(0)?;
    if matches!(a.data_type(), DataType::Time32(_) | DataType::Time64(_)) || matches!(ctx.dt(1), DataType::Time32(_) | DataType::Time64(_)) {
        return time_arith(op, &a, &ctx.array(1)?, &base);
    }
    // Dates.
    if matches!(a.data_type(), DataType::Date32 | DataType::Timestamp(..))
        || matches!(ctx.dt(1), DataType::Date32 | DataType::Timestamp(..))
    {
        return date_arith(op, &a, &ctx.array(1)?, &base, ctx);
    }
    // Wide integers are decimals to Arrow: plain integer columns never pay for the check.
    if (is_decimal(a.data_type()) || is_decimal(ctx.dt(1))) && (is_wide(&ctx.ch(0)) || is_wide(&ctx.ch(1))) {
        if matches!(base, ChType::Decimal(..)) {
            return decimal_compute(op, &a, &ctx.array(1)?, &base, [is_wide(&ctx.ch(0)), is_wide(&ctx.ch(1))]);
        }
        return wide_compute(op, ctx, &base, false);
    }
    if is_decimal(a.data_type()) || is_decimal(ctx.dt(1)) {
        if op == Op::IntDiv {
            return decimal_int_div(&a, &ctx.array(1)?, &base, false);
        }
        return decimal_compute(op, &a, &ctx.array(1)?, &base, [false, false]);
    }
    let float = matches!(base, ChType::Float64 | ChType::Float32) || (op == Op::IntDiv && (is_float(a.data_type()) || is_float(ctx.dt(1))));
    let work = if float {
        DataType::Float64
    } else if !is_signed_int(a.data_type()) && !is_signed_int(ctx.dt(1)) && op != Op::Minus {
        DataType::UInt64
    } else {
        DataType::Int64
    };
    let work_ch = ChType::from_arrow(&work, false);
    let l = wrap_to(&a, &work_ch, ctx)?;
    let by_constant = match (&ctx.args[1], float) {
        (datafusion::logical_expr::ColumnarValue::Scalar(c), false) => integer_by_constant(op, &l, &wrap_to(&c.to_array()?, &work_ch, ctx)?),
        _ => None,
    };
    let out = match by_constant {
        Some(out) => Ok(out),
        None => {
            let r = wrap_to(&ctx.array(1)?, &work_ch, ctx)?;
            match op {
                Op::Plus => numeric::add_wrapping(&l, &r),
                Op::Minus => numeric::sub_wrapping(&l, &r),
                Op::Multiply => numeric::mul_wrapping(&l, &r),
                Op::Divide => numeric::div(&l, &r),
                Op::IntDiv if float => {
                    let q = numeric::div(&l, &r).map_err(arrow_error)?;
                    let q = q.as_primitive::<datafusion::arrow::datatypes::Float64Type>();
                    if q.iter().flatten().any(|v| !v.is_finite()) {
                        return Err(ch_error(ErrorCode::ILLEGAL_DIVISION, "Division by zero"));
                    }
                    Ok(Arc::new(q.unary::<_, datafusion::arrow::datatypes::Float64Type>(f64::trunc)) as ArrayRef)
                }
                Op::IntDiv => numeric::div(&l, &r),
                Op::Modulo => numeric::rem(&l, &r),
            }
        }
    }
    .map_err(arrow_error)?;
    if out.data_type() == &base.to_arrow() {
        Ok(out)
    } else {
        wrap_to(&out, &base, ctx)
    }
}

/// `column op constant` over the integer work type (`UInt64` or `Int64`) without the
/// per-row checks of Arrow's kernels, with a constant divisor turned into a
/// multiplication and a shift (ClickHouse divides by constants with libdivide). `None`
/// leaves the cases with errors or special results to the general path: a NULL
/// constant, division by zero, and a signed division by -1.
fn integer_by_constant(op: Op, column: &ArrayRef, constant: &ArrayRef) -> Option<ArrayRef> {
    use datafusion::arrow::datatypes::UInt64Type;
    use crate::constant_divisor::ConstantDivisor;
    if constant.is_empty() || constant.is_null(0) {
        return None;
    }
    let out: ArrayRef = match column.data_type() {
        DataType::UInt64 => {
            let values = column.as_primitive::<UInt64Type>();
            let c = constant.as_primitive::<UInt64Type>().value(0);
            match op {
                Op::Plus => Arc::new(values.unary::<_, UInt64Type>(|x| x.wrapping_add(c))),
                Op::Minus => Arc::new(values.unary::<_, UInt64Type>(|x| x.wrapping_sub(c))),
                Op::Multiply => Arc::new(values.unary::<_, UInt64Type>(|x| x.wrapping_mul(c))),
                Op::IntDiv => Arc::new(ConstantDivisor::new(c)?.map::<_, UInt64Type>(values, |x| x, |_, q| q)),
                Op::Modulo => {
                    let d = ConstantDivisor::new(c)?;
                    Arc::new(d.map::<_, UInt64Type>(values, |x| x, |x, q| x - q * d.divisor()))
                }
                Op::Divide => return None,
            }
        }
        DataType::Int64 => {
            let values = column.as_primitive::<Int64Type>();
            let c = constant.as_primitive::<Int64Type>().value(0);
            match op {
                Op::Plus => Arc::new(values.unary::<_, Int64Type>(|x| x.wrapping_add(c))),
                Op::Minus => Arc::new(values.unary::<_, Int64Type>(|x| x.wrapping_sub(c))),
                Op::Multiply => Arc::new(values.unary::<_, Int64Type>(|x| x.wrapping_mul(c))),
                Op::IntDiv | Op::Modulo if c == 0 || c == -1 => return None,
                // Truncated toward zero, the remainder taking the dividend's sign, as
                // Rust's and ClickHouse's `/` and `%`: computed on magnitudes.
                Op::IntDiv => Arc::new(ConstantDivisor::new(c.unsigned_abs())?.map::<_, Int64Type>(values, i64::unsigned_abs, |x, q| {
                    let q = q as i64;
                    if (x < 0) != (c < 0) { q.wrapping_neg() } else { q }
                })),
                Op::Modulo => {
                    let d = ConstantDivisor::new(c.unsigned_abs())?;
                    Arc::new(d.map::<_, Int64Type>(values, i64::unsigned_abs, |x, q| {
                        let r = (x.unsigned_abs() - q * d.divisor()) as i64;
                        if x < 0 { -r } else { r }
                    }))
                }
                Op::Divide => return None,
            }
        }
        _ => return None,
    };
    Some(out)
}

/// `time ± number` (whole seconds: a fraction is cut first, as in ClickHouse) and
/// `time - time` (seconds, `Decimal(18, p)` when either has a fraction).
fn time_arith(op: Op, a: &ArrayRef, b: &ArrayRef, base: &ChType) -> DfResult<ArrayRef> {
    let is_time = |x: &ArrayRef| matches!(x.data_type(), DataType::Time32(_) | DataType::Time64(_));
    let seconds_as_nanos = |x: &ArrayRef| -> DfResult<PrimitiveArray<Int64Type>> {
        let whole = if is_float(x.data_type()) { cast(&cast(x, &DataType::Float64)?.as_primitive::<Float64Type>().unary::<_, Float64Type>(f64::trunc), &DataType::Int64)? } else { cast(x, &DataType::Int64)? };
        Ok(whole.as_primitive::<Int64Type>().unary(|v| v.saturating_mul(1_000_000_000)))
    };
    let nanos = |x: &ArrayRef| if is_time(x) { crate::datetime::time_nanos(x) } else { seconds_as_nanos(x) };
    let (l, r) = (nanos(a)?, nanos(b)?);
    let out: PrimitiveArray<Int64Type> = match op {
        Op::Minus => datafusion::arrow::compute::binary(&l, &r, i64::saturating_sub)?,
        _ => datafusion::arrow::compute::binary(&l, &r, i64::saturating_add)?,
    };
    match base {
        ChType::Int32 => Ok(Arc::new(out.unary::<_, datafusion::arrow::datatypes::Int32Type>(|v| (v / 1_000_000_000) as i32))),
        ChType::Decimal(p, s) => {
            let step = 10i64.pow(9 - u32::from((*s).min(9)));
            Ok(Arc::new(out.unary::<_, Decimal128Type>(|v| i128::from(v / step)).with_precision_and_scale(*p, *s as i8)?))
        }
        other => crate::datetime::time_from_nanos(&out, other),
    }
}

fn date_arith(op: Op, a: &ArrayRef, b: &ArrayRef, base: &ChType, ctx: &ExecCtx) -> DfResult<ArrayRef> {
    let int64 = |x: &ArrayRef| -> DfResult<ArrayRef> {
        Ok(match x.data_type() {
            DataType::Timestamp(..) => {
                let (raw, _) = crate::conversion::convert::timestamp_ticks(x)?;
                Arc::new(raw)
            }
            _ => cast(x, &DataType::Int64)?,
        })
    };
    let per = match (a.data_type(), b.data_type()) {
        (DataType::Timestamp(..), _) => crate::conversion::convert::timestamp_ticks(a)?.1,
        (_, DataType::Timestamp(..)) => crate::conversion::convert::timestamp_ticks(b)?.1,
        _ => 1,
    };
    let (l, r) = (int64(a)?, int64(b)?);
    // ClickHouse adds whole seconds (or days) to DateTime64 ticks.
    let scale = |x: &ArrayRef, is_time: bool| -> DfResult<ArrayRef> {
        if is_time || per == 1 {
            return Ok(Arc::clone(x));
        }
        Ok(Arc::new(x.as_primitive::<Int64Type>().unary::<_, Int64Type>(|v| v.wrapping_mul(per))))
    };
    let l = scale(&l, !is_integer(a.data_type()))?;
    let r = scale(&r, !is_integer(b.data_type()))?;
    let out = match op {
        Op::Minus => numeric::sub_wrapping(&l, &r)?,
        _ => numeric::add_wrapping(&l, &r)?,
    };
    let out = out.as_primitive::<Int64Type>();
    Ok(match base {
        ChType::Date => Arc::new(out.unary::<_, Date32Type>(|d| (d as u16) as i32)),
        ChType::Date32 => Arc::new(out.unary::<_, Date32Type>(|d| d as i32)),
        ChType::Int32 | ChType::Int64 => wrap_to(&(Arc::new(out.clone()) as ArrayRef), base, ctx)?,
        // DateTime is 32-bit seconds: `toDateTime('1970-01-01 00:00:01') - 3600` wraps
        // to 2106, as in ClickHouse.
        ChType::DateTime(_) => {
            let wrapped = out.unary::<_, Int64Type>(|v| i64::from(v as u32));
            let data = wrapped.to_data().into_builder().data_type(base.to_arrow()).build()?;
            datafusion::arrow::array::make_array(data)
        }
        other => {
            let data = out.to_data().into_builder().data_type(other.to_arrow()).build()?;
            datafusion::arrow::array::make_array(data)
        }
    })
}

fn arith(name: &'static str, op: Op) -> ScalarUDF {
    ScalarDef::new(name, Arity::exact(2), move |ctx| {
        if let Some((target, swap)) = tuple_operator(name, &[ctx.dt(0), ctx.dt(1)]) {
            return tuple_operator_type(ctx, target, swap);
        }
        result_type(op, ctx)
    }, move |ctx| {
        if let Some((target, swap)) = tuple_operator(name, &[ctx.dt(0), ctx.dt(1)]) {
            return tuple_operator_exec(ctx, target, swap);
        }
        if op == Op::Modulo && is_most_negative_constant_divisor(ctx) {
            return Err(ch_error(ErrorCode::ILLEGAL_DIVISION, "Division by the most negative number"));
        }
        compute(op, ctx)
    })
    .build()
}

/// ClickHouse's `%` by a constant refuses the smallest value of the divisor's signed
/// type when the dividend is a signed 32- or 64-bit integer no narrower than it (its
/// constant-divisor kernel negates the divisor); other widths compute the remainder.
fn is_most_negative_constant_divisor(ctx: &ExecCtx) -> bool {
    let dividend_bits = match ctx.dt(0) {
        DataType::Int32 => 32,
        DataType::Int64 => 64,
        _ => return false,
    };
    match ctx.scalar(1) {
        Some(ScalarValue::Int8(Some(v))) => *v == i8::MIN,
        Some(ScalarValue::Int16(Some(v))) => *v == i16::MIN,
        Some(ScalarValue::Int32(Some(v))) => *v == i32::MIN,
        Some(ScalarValue::Int64(Some(v))) => dividend_bits == 64 && *v == i64::MIN,
        _ => false,
    }
}

/// `intDivOrZero` / `moduloOrZero`: the same types, 0 where the divisor is 0 (and where
/// the minimal signed number is divided by -1).
/// `multiply`, for functions defined as a product (`sqr`).
pub(crate) fn multiply() -> ScalarUDF {
    arith("multiply", Op::Multiply)
}

fn arith_or_zero(name: &'static str, op: Op) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            if is_wide(&ctx.ch(0)) || is_wide(&ctx.ch(1)) {
                return wide_result_type(op, ctx);
            }
            if is_decimal(ctx.dt(0)) || is_decimal(ctx.dt(1)) {
                // intDivOrZero takes Decimals as intDiv does; moduloOrZero does not (as ClickHouse).
                if op != Op::IntDiv {
                    return Err(illegal_type(ctx.name, 0, ctx.field(0)));
                }
                return decimal_result_type(op, ctx);
            }
            result_type(op, ctx)
        },
        move |ctx| {
            let base = ctx.ret_ch().strip_nullable().clone();
            if (is_decimal(ctx.dt(0)) || is_decimal(ctx.dt(1))) && (is_wide(&ctx.ch(0)) || is_wide(&ctx.ch(1))) {
                return wide_compute(op, ctx, &base, true);
            }
            let (a, b) = (ctx.array(0)?, ctx.array(1)?);
            if is_decimal(a.data_type()) || is_decimal(b.data_type()) {
                return decimal_int_div(&a, &b, &base, true);
            }
            let float = is_float(a.data_type()) || is_float(b.data_type());
            let work = if float { DataType::Float64 } else { DataType::Int64 };
            let work_ch = ChType::from_arrow(&work, false);
            // Divisors of 0 (and -1 under the minimal dividend) become 1, their results 0.
            let l = wrap_to(&a, &work_ch, ctx)?;
            let r = wrap_to(&b, &work_ch, ctx)?;
            let zero_mask: BooleanArray = if float {
                let r = r.as_primitive::<datafusion::arrow::datatypes::Float64Type>();
                r.unary::<_, datafusion::arrow::datatypes::Int8Type>(|v| i8::from(v == 0.0 || !v.is_finite()))
                    .iter()
                    .map(|v| v.map(|v| v == 1))
                    .collect()
            } else {
                let (lp, rp) = (l.as_primitive::<Int64Type>(), r.as_primitive::<Int64Type>());
                lp.iter().zip(rp.iter()).map(|(x, y)| Some(matches!((x, y), (_, Some(0)) | (Some(i64::MIN), Some(-1))))).collect()
            };
            let one: ArrayRef = if float {
                Arc::new(datafusion::arrow::array::Float64Array::from(vec![1.0; r.len()]))
            } else {
                Arc::new(datafusion::arrow::array::Int64Array::from(vec![1; r.len()]))
            };
            let safe_r = datafusion::arrow::compute::kernels::zip::zip(&zero_mask, &one, &r)?;
            let out = match op {
                Op::IntDiv if float => {
                    let q = numeric::div(&l, &safe_r)?;
                    let q = q.as_primitive::<datafusion::arrow::datatypes::Float64Type>();
                    Arc::new(q.unary::<_, datafusion::arrow::datatypes::Float64Type>(f64::trunc)) as ArrayRef
                }
                Op::IntDiv => numeric::div(&l, &safe_r)?,
                _ => numeric::rem(&l, &safe_r)?,
            };
            let zeros = match out.data_type() {
                DataType::Float64 => Arc::new(datafusion::arrow::array::Float64Array::from(vec![0.0; out.len()])) as ArrayRef,
                _ => Arc::new(datafusion::arrow::array::Int64Array::from(vec![0; out.len()])) as ArrayRef,
            };
            let out = datafusion::arrow::compute::kernels::zip::zip(&zero_mask, &zeros, &out)?;
            wrap_to(&out, &base, ctx)
        },
    )
    .build()
}

/// `negate(x)`, the unary minus: unsigned types become the next wider signed type
/// (`-toUInt8(1)` is `Int16`, `UInt64` gives `Int64`), values wrap.
fn negate() -> ScalarUDF {
    ScalarDef::new(
        "negate",
        Arity::exact(1),
        |ctx| {
            let dt = ctx.dt(0);
            if let Some((target, swap)) = tuple_operator("negate", &[dt]) {
                return tuple_operator_type(ctx, target, swap);
            }
            // `-toUInt128(1)` is Int128: the signed type of the same width.
            if let Some((width, _)) = int_shape(&ctx.ch(0)).filter(|_| is_wide(&ctx.ch(0))) {
                return Ok(int_of_width(true, width));
            }
            if is_decimal(dt) || is_float(dt) || is_signed_int(dt) {
                return Ok(ctx.ch(0).strip_nullable().clone());
            }
            if is_integer(dt) || dt == &DataType::Boolean {
                return Ok(ChType::from_arrow(&int_type(true, next_width(width(dt))), false));
            }
            Err(illegal_type(ctx.name, 0, ctx.field(0)))
        },
        |ctx| {
            if let Some((target, swap)) = tuple_operator("negate", &[ctx.dt(0)]) {
                return tuple_operator_exec(ctx, target, swap);
            }
            let base = ctx.ret_ch().strip_nullable().clone();
            if is_wide(&base) {
                return words_to(words_of(ctx, 0)?.unary(|v| v.wrapping_neg()), &base, ctx);
            }
            let a = ctx.array(0)?;
            let a = if a.data_type() == &base.to_arrow() { a } else { wrap_to(&a, &base, ctx)? };
            Ok(numeric::neg_wrapping(&a)?)
        },
    )
    .build()
}

/// `abs(x)`: signed integers become the unsigned type of their width, so the minimal
/// value has an answer (`abs(toInt8(-128))` is `128`, a UInt8); other numbers keep
/// their type.
fn abs() -> ScalarUDF {
    ScalarDef::new(
        "abs",
        Arity::exact(1),
        |ctx| {
            let dt = ctx.dt(0);
            // `abs(toInt128(-1))` is UInt128.
            if let Some((width, _)) = int_shape(&ctx.ch(0)).filter(|_| is_wide(&ctx.ch(0))) {
                return Ok(int_of_width(false, width));
            }
            if is_signed_int(dt) {
                return Ok(ChType::from_arrow(&int_type(false, width(dt)), false));
            }
            if is_integer(dt) || is_float(dt) || is_decimal(dt) || dt == &DataType::Boolean {
                return Ok(ChType::from_arrow(dt, false).base().clone());
            }
            Err(illegal_type(ctx.name, 0, ctx.field(0)))
        },
        |ctx| {
            let a = ctx.array(0)?;
            let base = ctx.ret_ch().strip_nullable().clone();
            if is_wide(&base) {
                return words_to(words_of(ctx, 0)?.unary(|v| v.wrapping_abs()), &base, ctx);
            }
            if is_signed_int(a.data_type()) {
                let wide = cast(&a, &DataType::Int64)?;
                let magnitudes: ArrayRef = Arc::new(wide.as_primitive::<Int64Type>().unary::<_, datafusion::arrow::datatypes::UInt64Type>(i64::unsigned_abs));
                return wrap_to(&magnitudes, &base, ctx);
            }
            match a.data_type() {
                DataType::Float32 => Ok(Arc::new(a.as_primitive::<datafusion::arrow::datatypes::Float32Type>().unary::<_, datafusion::arrow::datatypes::Float32Type>(f32::abs))),
                DataType::Float64 => Ok(Arc::new(a.as_primitive::<datafusion::arrow::datatypes::Float64Type>().unary::<_, datafusion::arrow::datatypes::Float64Type>(f64::abs))),
                DataType::Decimal128(..) => Ok(Arc::new(a.as_primitive::<Decimal128Type>().unary::<_, Decimal128Type>(i128::wrapping_abs).with_data_type(a.data_type().clone()))),
                DataType::Decimal256(..) => Ok(Arc::new(
                    a.as_primitive::<datafusion::arrow::datatypes::Decimal256Type>()
                        .unary::<_, datafusion::arrow::datatypes::Decimal256Type>(|v| v.wrapping_abs())
                        .with_data_type(a.data_type().clone()),
                )),
                _ => Ok(a),
            }
        },
    )
    .build()
}

#[derive(Clone, Copy)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
}

impl Cmp {
    fn holds(self, ordering: std::cmp::Ordering) -> bool {
        match self {
            Cmp::Eq => ordering.is_eq(),
            Cmp::Ne => ordering.is_ne(),
            Cmp::Lt => ordering.is_lt(),
            Cmp::Gt => ordering.is_gt(),
            Cmp::Le => ordering.is_le(),
            Cmp::Ge => ordering.is_ge(),
        }
    }
}

/// The type both sides are compared in.
pub(crate) fn comparison_type(a: &ChType, b: &ChType, adt: &DataType, bdt: &DataType) -> DfResult<ChType> {
    constant_comparison_type(a, b, adt, bdt, [true, true])
}

/// [`comparison_type`] knowing which sides are constants: a constant string compared
/// with a non-string is read as the other type (`d = '2024-01-01'`, `n = '5'`); a String
/// column meets a number only through a common type, which they do not have (dates and
/// times are read from the string either way).
pub(crate) fn constant_comparison_type(a: &ChType, b: &ChType, adt: &DataType, bdt: &DataType, constant: [bool; 2]) -> DfResult<ChType> {
    let is_str = |t: &DataType| matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View);
    let readable = |constant: bool, other: &ChType| constant || !(other.base().to_arrow().is_numeric() || matches!(other.base(), ChType::Bool));
    if is_str(adt) && !is_str(bdt) && !matches!(bdt, DataType::FixedSizeBinary(_)) && readable(constant[0], b) {
        return Ok(b.base().clone());
    }
    if is_str(bdt) && !is_str(adt) && !matches!(adt, DataType::FixedSizeBinary(_)) && readable(constant[1], a) {
        return Ok(a.base().clone());
    }
    // A decimal meets a float as Float64 (`toDecimal32(1.5, 2) = 1.5`).
    if (is_decimal(adt) && is_float(bdt)) || (is_float(adt) && is_decimal(bdt)) {
        return Ok(ChType::Float64);
    }
    match least_supertype(&[a.base().clone(), b.base().clone()]) {
        Ok(t) => Ok(t.strip_nullable().clone()),
        Err(e) => comparable_without_supertype(a.base(), b.base()).ok_or(e),
    }
}

/// Numbers without a common type still compare: UInt64 against Int64 exactly as
/// decimals, 64-bit integers against floats as Float64; arrays and tuples element by
/// element (`[toUInt64(1)] < [-1]`, `(number, 'x') < (1, 'y')`).
fn comparable_without_supertype(a: &ChType, b: &ChType) -> Option<ChType> {
    let is_number = |t: &ChType| t.to_arrow().is_numeric() && !matches!(t, ChType::Decimal(..) | ChType::Interval(_));
    match (a, b) {
        (ChType::Array(x), ChType::Array(y)) => {
            let inner = least_supertype(&[x.as_ref().clone(), y.as_ref().clone()]).ok().or_else(|| comparable_without_supertype(x.base(), y.base()))?;
            Some(ChType::Array(Box::new(inner)))
        }
        (ChType::Tuple(xs), ChType::Tuple(ys)) if xs.len() == ys.len() => {
            let items = xs
                .iter()
                .zip(ys)
                .map(|((name, x), (_, y))| {
                    let t = least_supertype(&[x.clone(), y.clone()]).ok().or_else(|| comparable_without_supertype(x.base(), y.base()))?;
                    Some((name.clone(), t))
                })
                .collect::<Option<Vec<_>>>()?;
            Some(ChType::Tuple(items))
        }
        // A wide integer meets a decimal at the decimal's scale.
        (ChType::Decimal(_, s), x) | (x, ChType::Decimal(_, s)) if WideInt::of(x).is_some() => Some(ChType::Decimal(76, *s)),
        (x, y) if is_number(x) && is_number(y) && (WideInt::of(x).is_some() || WideInt::of(y).is_some()) => {
            // UInt256 with a signed type: compared as Int256, in which UInt256 values
            // from 2^255 up are negative (as everywhere, see granary_types::wide).
            Some(if matches!(x, ChType::Float32 | ChType::Float64) || matches!(y, ChType::Float32 | ChType::Float64) { ChType::Float64 } else { ChType::Int256 })
        }
        (x, y) if is_number(x) && is_number(y) => {
            Some(if matches!(x, ChType::Float32 | ChType::Float64) || matches!(y, ChType::Float32 | ChType::Float64) { ChType::Float64 } else { ChType::Decimal(20, 0) })
        }
        // A time meets a number as its seconds.
        (ChType::Time | ChType::Time64(_), x) | (x, ChType::Time | ChType::Time64(_)) if is_number(x) => Some(ChType::Float64),
        _ => None,
    }
}

fn comparison(name: &'static str, how: Cmp) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            let common = constant_comparison_type(&ctx.ch(0), &ctx.ch(1), ctx.dt(0), ctx.dt(1), [ctx.scalar(0).is_some(), ctx.scalar(1).is_some()])?;
            if matches!(&common, ChType::Tuple(items) if items.is_empty()) {
                return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "Comparison of zero-sized tuples is not implemented"));
            }
            Ok(ChType::UInt8)
        },
        move |ctx| {
            let common = constant_comparison_type(&ctx.ch(0), &ctx.ch(1), ctx.dt(0), ctx.dt(1), [ctx.scalar(0).is_some(), ctx.scalar(1).is_some()])?;
            let (l, r) = match (ctx.dt(0), ctx.dt(1)) {
                // ClickHouse compares FixedString(N) with String as the string without
                // its zero padding (`toFixedString('abc', 5) = 'abc'` is 1).
                (DataType::FixedSizeBinary(_), other) | (other, DataType::FixedSizeBinary(_)) if is_string_type(other) => {
                    (fixed_as_unpadded_string(ctx, 0)?, fixed_as_unpadded_string(ctx, 1)?)
                }
                _ => {
                    // A constant string that does not read as the other side's type is
                    // ClickHouse's TYPE_MISMATCH.
                    let convert = |i: usize| {
                        to_type(ctx, i, &common).map_err(|e| {
                            let text = ctx.scalar(i).and_then(crate::args::scalar_str);
                            match text {
                                Some(text) if is_string_type(ctx.dt(i)) => {
                                    ch_error(ErrorCode::TYPE_MISMATCH, format!("Cannot convert string '{text}' to type {common}"))
                                }
                                _ => e,
                            }
                        })
                    };
                    (convert(0)?, convert(1)?)
                }
            };
            // UInt256 values from 2^255 up are negative words to Arrow (granary_types::wide).
            if matches!(common, ChType::Int256 | ChType::UInt256) && (ctx.ch(0).base() == &ChType::UInt256 || ctx.ch(1).base() == &ChType::UInt256) {
                let is_uint256 = |i: usize| common == ChType::UInt256 || ctx.ch(i).base() == &ChType::UInt256;
                return Ok(Arc::new(bool_to_u8(&compare_wide_words(&l, is_uint256(0), &r, is_uint256(1), how))));
            }
            Ok(Arc::new(bool_to_u8(&compare_arrays(&l, &r, how)?)))
        },
    )
    .build()
}

/// Compares two columns of one type. Floats compare as IEEE numbers (NaN equals
/// nothing, not even NaN; Arrow's kernels order NaN as a value). Arrays, tuples and maps
/// compare lexicographically, element by element, as ClickHouse's `compareAt` does: NULL
/// elements are equal to each other and greater than any value, and NaN elements equal.
fn compare_arrays(l: &ArrayRef, r: &ArrayRef, how: Cmp) -> DfResult<BooleanArray> {
    use datafusion::arrow::datatypes::Float64Type;
    if is_float(l.data_type()) {
        let (l, r) = (cast(l, &DataType::Float64)?, cast(r, &DataType::Float64)?);
        let (l, r) = (l.as_primitive::<Float64Type>(), r.as_primitive::<Float64Type>());
        let holds = |x: f64, y: f64| match how {
            Cmp::Eq => x == y,
            Cmp::Ne => x != y,
            Cmp::Lt => x < y,
            Cmp::Gt => x > y,
            Cmp::Le => x <= y,
            Cmp::Ge => x >= y,
        };
        let values: Vec<bool> = l.values().iter().zip(r.values().iter()).map(|(&x, &y)| holds(x, y)).collect();
        return Ok(BooleanArray::new(values.into(), NullBuffer::union(l.nulls(), r.nulls())));
    }
    if l.data_type().is_nested() {
        let options = datafusion::arrow::compute::SortOptions { descending: false, nulls_first: false };
        let order = datafusion::arrow::array::make_comparator(l.as_ref(), r.as_ref(), options)?;
        let values: Vec<bool> = (0..l.len()).map(|i| how.holds(order(i, i))).collect();
        return Ok(BooleanArray::new(values.into(), NullBuffer::union(l.nulls(), r.nulls())));
    }
    Ok(match how {
        Cmp::Eq => cmp::eq(l, r)?,
        Cmp::Ne => cmp::neq(l, r)?,
        Cmp::Lt => cmp::lt(l, r)?,
        Cmp::Gt => cmp::gt(l, r)?,
        Cmp::Le => cmp::lt_eq(l, r)?,
        Cmp::Ge => cmp::gt_eq(l, r)?,
    })
}

/// Compares two columns of 256-bit words in their mathematical order: `*_is_uint256`
/// tells which side holds a `UInt256`'s raw bits ([`granary_types::wide::compare_words`]).
fn compare_wide_words(l: &ArrayRef, l_is_uint256: bool, r: &ArrayRef, r_is_uint256: bool, how: Cmp) -> BooleanArray {
    let (l, r) = (l.as_primitive::<Decimal256Type>(), r.as_primitive::<Decimal256Type>());
    let values: Vec<bool> =
        l.values().iter().zip(r.values().iter()).map(|(&x, &y)| how.holds(granary_types::wide::compare_words(x, l_is_uint256, y, r_is_uint256))).collect();
    BooleanArray::new(values.into(), NullBuffer::union(l.nulls(), r.nulls()))
}

/// The ClickHouse comparison function of a SQL comparison operator.
pub(crate) fn comparison_udf(op: datafusion::logical_expr::Operator) -> Option<ScalarUDF> {
    use datafusion::logical_expr::Operator;
    Some(match op {
        Operator::Eq => comparison("equals", Cmp::Eq),
        Operator::NotEq => comparison("notEquals", Cmp::Ne),
        Operator::Lt => comparison("less", Cmp::Lt),
        Operator::Gt => comparison("greater", Cmp::Gt),
        Operator::LtEq => comparison("lessOrEquals", Cmp::Le),
        Operator::GtEq => comparison("greaterOrEquals", Cmp::Ge),
        _ => return None,
    })
}

fn is_string_type(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// Argument `i` as a `Binary` column without trailing zero bytes: ClickHouse pads the
/// String to the FixedString's width, so zeros at the end of either side do not count
/// (`toFixedString('a', 3) = 'a'` and `= 'a\0\0'` are both 1).
fn fixed_as_unpadded_string(ctx: &crate::func::ExecCtx, i: usize) -> DfResult<ArrayRef> {
    let array = ctx.array(i)?;
    let unpadded = |bytes: &[u8]| -> usize { bytes.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1) };
    if let Some(fixed) = array.as_any().downcast_ref::<datafusion::arrow::array::FixedSizeBinaryArray>() {
        let trimmed: datafusion::arrow::array::BinaryArray = fixed.iter().map(|v| v.map(|bytes| &bytes[..unpadded(bytes)])).collect();
        return Ok(Arc::new(trimmed));
    }
    let binary = datafusion::arrow::compute::cast(&array, &DataType::Binary)?;
    let trimmed: datafusion::arrow::array::BinaryArray = binary.as_binary::<i32>().iter().map(|v| v.map(|bytes| &bytes[..unpadded(bytes)])).collect();
    Ok(Arc::new(trimmed))
}

/// A Boolean column as ClickHouse's UInt8 0/1, keeping nulls.
pub(crate) fn bool_to_u8(mask: &BooleanArray) -> UInt8Array {
    let bits = mask.values();
    let mut values = vec![0u8; bits.len()];
    let chunks = bits.bit_chunks();
    let words = chunks.iter().chain(std::iter::once(chunks.remainder_bits()));
    for (slots, word) in values.chunks_mut(64).zip(words) {
        for (k, eight) in slots.chunks_mut(8).enumerate() {
            let spread = spread_bits((word >> (8 * k)) as u8).to_le_bytes();
            match <&mut [u8; 8]>::try_from(&mut *eight) {
                Ok(eight) => *eight = spread,
                Err(_) => eight.copy_from_slice(&spread[..eight.len()]),
            }
        }
    }
    UInt8Array::new(values.into(), mask.nulls().cloned())
}

/// The eight bits of `bits` as eight 0/1 bytes (bit j in byte j, little-endian), with
/// one multiplication instead of a loop over the bits.
#[inline(always)]
fn spread_bits(bits: u8) -> u64 {
    let broadcast = (bits as u64).wrapping_mul(0x0101_0101_0101_0101);
    // Byte j keeps bit j; adding 0x7f sets the byte's top bit exactly when it is not 0.
    (((broadcast & 0x8040_2010_0804_0201) + 0x7f7f_7f7f_7f7f_7f7f) & 0x8080_8080_8080_8080) >> 7
}

/// `isNaN`, `isFinite`, `isInfinite`: UInt8 tests of a number (integers are finite).
fn float_predicate(name: &'static str, test: fn(f64) -> bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| if is_integer(ctx.dt(0)) || is_float(ctx.dt(0)) { Ok(ChType::UInt8) } else { Err(crate::args::illegal_type(ctx.name, 0, ctx.field(0))) },
        move |ctx| {
            let values = datafusion::arrow::compute::cast(&ctx.array(0)?, &DataType::Float64)?;
            let values = values.as_primitive::<datafusion::arrow::datatypes::Float64Type>();
            Ok(Arc::new(values.unary::<_, datafusion::arrow::datatypes::UInt8Type>(|v| u8::from(test(v)))))
        },
    )
    .build()
}

/// `exp2(x)`, `exp10(x)`: Float64 powers of 2 and 10.
fn power_of(name: &'static str, base: f64) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| if is_integer(ctx.dt(0)) || is_float(ctx.dt(0)) || crate::args::is_decimal(ctx.dt(0)) { Ok(ChType::Float64) } else { Err(crate::args::illegal_type(ctx.name, 0, ctx.field(0))) },
        move |ctx| {
            let values = datafusion::arrow::compute::cast(&ctx.array(0)?, &DataType::Float64)?;
            let values = values.as_primitive::<datafusion::arrow::datatypes::Float64Type>();
            Ok(Arc::new(values.unary::<_, datafusion::arrow::datatypes::Float64Type>(|v| base.powf(v))))
        },
    )
    .build()
}

/// The values of an integer column of at most 64 bits, widened (NULL rows as `None`).
fn integer_values(array: &ArrayRef) -> DfResult<Vec<Option<i128>>> {
    Ok(match array.data_type() {
        DataType::UInt64 => array.as_primitive::<UInt64Type>().iter().map(|v| v.map(i128::from)).collect(),
        _ => cast(array, &DataType::Int64)?.as_primitive::<Int64Type>().iter().map(|v| v.map(i128::from)).collect(),
    })
}

/// `positiveModulo(a, b)` (`pmod`): `modulo` moved into `[0, |b|)`. As ClickHouse's
/// `ResultOfPositiveModulo`, the result is the unsigned integer of the divisor's width, or
/// Float64 when either side is a float; a negative remainder by the most negative divisor
/// is error 153, as is an integer division by zero.
fn positive_modulo() -> ScalarUDF {
    ScalarDef::new(
        "positiveModulo",
        Arity::exact(2),
        |ctx| {
            let (a, b) = (ctx.dt(0), ctx.dt(1));
            let supported = |t: &DataType| numeric_or_bool(t) && width(t) <= 8;
            if !supported(a) || !supported(b) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal types {} and {} of arguments of function {}", ctx.ch(0), ctx.ch(1), ctx.name)));
            }
            if is_float(a) || is_float(b) {
                return Ok(ChType::Float64);
            }
            Ok(int_of_width(false, byte_width(b)))
        },
        |ctx| {
            let (a, b) = (ctx.array(0)?, ctx.array(1)?);
            if ctx.ret_type() == &DataType::Float64 {
                let (a, b) = (cast(&a, &DataType::Float64)?, cast(&b, &DataType::Float64)?);
                let values = a.as_primitive::<Float64Type>().iter().zip(b.as_primitive::<Float64Type>().iter()).map(|(a, b)| {
                    let (a, b) = (a?, b?);
                    let rest = a % b;
                    Some(if rest < 0.0 { rest + b.abs() } else { rest })
                });
                return Ok(Arc::new(values.collect::<PrimitiveArray<Float64Type>>()));
            }
            let lowest = if is_signed_int(b.data_type()) { Some(-(1i128 << (byte_width(b.data_type()) * 8 - 1))) } else { None };
            let mut out = Vec::with_capacity(ctx.len);
            for (a, b) in integer_values(&a)?.into_iter().zip(integer_values(&b)?) {
                let (Some(a), Some(b)) = (a, b) else {
                    out.push(None);
                    continue;
                };
                if b == 0 {
                    return Err(ch_error(ErrorCode::ILLEGAL_DIVISION, "Division by zero"));
                }
                let rest = a % b;
                if rest < 0 && Some(b) == lowest {
                    return Err(ch_error(ErrorCode::ILLEGAL_DIVISION, "Division by the most negative number"));
                }
                // In [0, |b|), so it fits the divisor's unsigned width.
                out.push(Some((if rest < 0 { rest + b.abs() } else { rest }) as u64));
            }
            let values: ArrayRef = Arc::new(out.into_iter().collect::<PrimitiveArray<UInt64Type>>());
            Ok(cast(&values, ctx.ret_type())?)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        positive_modulo(),
        float_predicate("isNaN", f64::is_nan),
        float_predicate("isFinite", f64::is_finite),
        float_predicate("isInfinite", f64::is_infinite),
        power_of("exp2", 2.0),
        power_of("exp10", 10.0),
        arith("plus", Op::Plus),
        arith("minus", Op::Minus),
        arith("multiply", Op::Multiply),
        arith("divide", Op::Divide),
        arith("intDiv", Op::IntDiv),
        arith("modulo", Op::Modulo),
        arith_or_zero("intDivOrZero", Op::IntDiv),
        arith_or_zero("moduloOrZero", Op::Modulo),
        negate(),
        abs(),
        comparison("equals", Cmp::Eq),
        comparison("notEquals", Cmp::Ne),
        comparison("less", Cmp::Lt),
        comparison("greater", Cmp::Gt),
        comparison("lessOrEquals", Cmp::Le),
        comparison("greaterOrEquals", Cmp::Ge),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use datafusion::arrow::array::{Int64Array, UInt64Array};

    #[test]
    fn division_by_a_constant_agrees_with_the_kernels() {
        let unsigned: Vec<u64> = [0, 1, 2, 7, 99, 100, 101, 999_999, 1_000_000, u64::MAX / 3, u64::MAX - 1, u64::MAX].into_iter().chain((0..200).map(|i| i * 2_654_435_761)).collect();
        let signed: Vec<i64> = [i64::MIN, i64::MIN + 1, -1_000_001, -7, -1, 0, 1, 6, 7, 1_000_000, i64::MAX].into_iter().chain((0..200).map(|i| (i - 100) * 2_654_435_761)).collect();
        let column = |v: &[u64]| -> ArrayRef { Arc::new(UInt64Array::from(v.to_vec())) };
        for c in [1u64, 2, 3, 7, 10, 64, 1000, 1_000_000, 2_654_435_761, u64::MAX / 2, u64::MAX] {
            let (l, r) = (column(&unsigned), column(&vec![c; unsigned.len()]));
            for (op, kernel) in [(Op::IntDiv, numeric::div(&l, &r).unwrap()), (Op::Modulo, numeric::rem(&l, &r).unwrap()), (Op::Plus, numeric::add_wrapping(&l, &r).unwrap()), (Op::Multiply, numeric::mul_wrapping(&l, &r).unwrap())] {
                assert_eq!(integer_by_constant(op, &l, &column(&[c])).unwrap().as_ref(), kernel.as_ref(), "{op:?} {c}");
            }
        }
        let column = |v: &[i64]| -> ArrayRef { Arc::new(Int64Array::from(v.to_vec())) };
        for c in [i64::MIN, -1_000_000, -7, -2, 1, 2, 3, 7, 1000, i64::MAX] {
            let (l, r) = (column(&signed), column(&vec![c; signed.len()]));
            let division = [(Op::IntDiv, numeric::div(&l, &r)), (Op::Modulo, numeric::rem(&l, &r))];
            for (op, kernel) in division {
                // i64::MIN / 1 is fine; the kernels refuse nothing else here.
                assert_eq!(integer_by_constant(op, &l, &column(&[c])).unwrap().as_ref(), kernel.unwrap().as_ref(), "{op:?} {c}");
            }
            assert_eq!(integer_by_constant(Op::Minus, &l, &column(&[c])).unwrap().as_ref(), numeric::sub_wrapping(&l, &r).unwrap().as_ref());
        }
        // Left to the general path, which reports or special-cases them.
        assert!(integer_by_constant(Op::Modulo, &column(&signed), &column(&[0])).is_none());
        assert!(integer_by_constant(Op::IntDiv, &column(&signed), &column(&[-1])).is_none());
        let null: ArrayRef = Arc::new(Int64Array::from(vec![None]));
        assert!(integer_by_constant(Op::Modulo, &column(&signed), &null).is_none());
    }
}
