//! Bit functions: `bitAnd`, `bitOr`, `bitXor`, `bitNot`, `bitShiftLeft`, `bitShiftRight`,
//! `bitTest`, `bitCount`, on integers (and Bool, as UInt8).
//!
//! Result types are ClickHouse's: `bitAnd/Or/Xor` take the wider width, signed if either
//! side is (`bitAnd(toUInt8(1), toInt8(1))` is Int8); `bitNot` and the shifts keep the
//! first argument's type, so bits shifted past its width are lost (`bitShiftLeft(
//! toUInt8(1), 8)` is 0). The work is done on 64 bits (256 for wide integers) and wrapped
//! to the result type.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, UInt8Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{byte_width, ch_error, int_type, is_float, is_integer, is_signed_int, Arity, DfResult};
use crate::arithmetic::{int_of_width, int_shape, is_wide, words_of, words_to};
use crate::func::{ExecCtx, RetCtx, ScalarDef};

pub(crate) fn is_bit_operand(dt: &DataType) -> bool {
    is_integer(dt) || dt == &DataType::Boolean
}

fn illegal_pair(ctx: &RetCtx) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal types {} and {} of arguments of function {}", ctx.ch(0), ctx.ch(1), ctx.name))
}

/// Argument `i` as Int64 bits (unsigned 64-bit values keep their bits).
pub(crate) fn bits_of(ctx: &ExecCtx, i: usize) -> DfResult<PrimitiveArray<Int64Type>> {
    let array = ctx.array(i)?;
    let array = match array.data_type() {
        DataType::Boolean => cast(&array, &DataType::UInt8)?,
        DataType::Float32 | DataType::Float64 => {
            let floats = cast(&array, &DataType::Float64)?;
            Arc::new(floats.as_primitive::<datafusion::arrow::datatypes::Float64Type>().unary::<_, Int64Type>(|v| v as i64))
        }
        _ => array,
    };
    let out = match array.data_type() {
        DataType::UInt64 => array.as_primitive::<datafusion::arrow::datatypes::UInt64Type>().unary(|v| v as i64),
        _ => cast(&array, &DataType::Int64)?.as_primitive::<Int64Type>().clone(),
    };
    Ok(out)
}

/// Int64 bits narrowed (wrapping) to the result's integer type.
fn narrowed(bits: PrimitiveArray<Int64Type>, ctx: &ExecCtx) -> DfResult<ArrayRef> {
    narrowed_to(bits, &ctx.ret_ch().strip_nullable().to_arrow())
}

/// Int64 bits narrowed (wrapping) to `target`, an integer type or Boolean.
pub(crate) fn narrowed_to(bits: PrimitiveArray<Int64Type>, target: &DataType) -> DfResult<ArrayRef> {
    let target = target.clone();
    if target == DataType::UInt64 {
        return Ok(Arc::new(bits.unary::<_, datafusion::arrow::datatypes::UInt64Type>(|v| v as u64)));
    }
    let options = datafusion::arrow::compute::CastOptions { safe: true, ..Default::default() };
    // Wrapping: keep the low bits, then reinterpret in the narrower type.
    let wrapped: ArrayRef = match target {
        DataType::Int8 => Arc::new(bits.unary::<_, datafusion::arrow::datatypes::Int8Type>(|v| v as i8)),
        DataType::Int16 => Arc::new(bits.unary::<_, datafusion::arrow::datatypes::Int16Type>(|v| v as i16)),
        DataType::Int32 => Arc::new(bits.unary::<_, datafusion::arrow::datatypes::Int32Type>(|v| v as i32)),
        DataType::UInt8 => Arc::new(bits.unary::<_, UInt8Type>(|v| v as u8)),
        DataType::UInt16 => Arc::new(bits.unary::<_, datafusion::arrow::datatypes::UInt16Type>(|v| v as u16)),
        DataType::UInt32 => Arc::new(bits.unary::<_, datafusion::arrow::datatypes::UInt32Type>(|v| v as u32)),
        other => datafusion::arrow::compute::cast_with_options(&(Arc::new(bits) as ArrayRef), &other, &options)?,
    };
    Ok(wrapped)
}

pub(crate) fn width_of(dt: &DataType) -> usize {
    if dt == &DataType::Boolean {
        1
    } else {
        byte_width(dt)
    }
}

#[derive(Clone, Copy)]
enum Logic {
    And,
    Or,
    Xor,
}

fn bit_logic(name: &'static str, how: Logic) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            if is_wide(&ctx.ch(0)) || is_wide(&ctx.ch(1)) {
                let (Some((wa, sa)), Some((wb, sb))) = (int_shape(&ctx.ch(0)), int_shape(&ctx.ch(1))) else { return Err(illegal_pair(ctx)) };
                return Ok(int_of_width(sa || sb, wa.max(wb)));
            }
            let (a, b) = (ctx.dt(0), ctx.dt(1));
            if !is_bit_operand(a) || !is_bit_operand(b) {
                return Err(illegal_pair(ctx));
            }
            let signed = is_signed_int(a) || is_signed_int(b);
            Ok(ChType::from_arrow(&int_type(signed, width_of(a).max(width_of(b))), false))
        },
        move |ctx| {
            let ret = ctx.ret_ch().strip_nullable().clone();
            if is_wide(&ret) {
                let (a, b) = (words_of(ctx, 0)?, words_of(ctx, 1)?);
                let out = datafusion::arrow::compute::binary(&a, &b, |x, y| match how {
                    Logic::And => x & y,
                    Logic::Or => x | y,
                    Logic::Xor => x ^ y,
                })?;
                return words_to(out, &ret, ctx);
            }
            let (a, b) = (bits_of(ctx, 0)?, bits_of(ctx, 1)?);
            let out: PrimitiveArray<Int64Type> = datafusion::arrow::compute::binary(&a, &b, |x, y| match how {
                Logic::And => x & y,
                Logic::Or => x | y,
                Logic::Xor => x ^ y,
            })?;
            narrowed(out, ctx)
        },
    )
    .build()
}

fn bit_not() -> ScalarUDF {
    ScalarDef::new(
        "bitNot",
        Arity::exact(1),
        |ctx| {
            let dt = ctx.dt(0);
            if is_float(dt) {
                return Ok(ChType::Int64);
            }
            if is_wide(&ctx.ch(0)) {
                return Ok(ctx.ch(0).base().clone());
            }
            if !is_bit_operand(dt) {
                return Err(crate::args::illegal_type(ctx.name, 0, ctx.field(0)));
            }
            Ok(ChType::from_arrow(&int_type(is_signed_int(dt), width_of(dt)), false))
        },
        |ctx| {
            let ret = ctx.ret_ch().strip_nullable().clone();
            if is_wide(&ret) {
                return words_to(words_of(ctx, 0)?.unary(|v| !v), &ret, ctx);
            }
            narrowed(bits_of(ctx, 0)?.unary(|v| !v), ctx)
        },
    )
    .build()
}

fn bit_shift(name: &'static str, left: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            let (a, b) = (ctx.dt(0), ctx.dt(1));
            if !is_bit_operand(a) || !is_bit_operand(b) {
                return Err(illegal_pair(ctx));
            }
            Ok(ChType::from_arrow(&int_type(is_signed_int(a), width_of(a)), false))
        },
        move |ctx| {
            let signed = is_signed_int(ctx.dt(0));
            let (a, b) = (bits_of(ctx, 0)?, bits_of(ctx, 1)?);
            if is_signed_int(ctx.dt(1)) && b.iter().flatten().any(|n| n < 0) {
                return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, "The number of shift positions needs to be a non-negative value"));
            }
            let out: PrimitiveArray<Int64Type> = datafusion::arrow::compute::binary(&a, &b, |x, n| {
                // Shifts of 64 positions or more (a UInt64 count above i64::MAX reads as
                // negative) push every bit out.
                let n = if n < 0 { 64 } else { n.min(64) as u32 };
                match (left, n >= 64) {
                    (true, true) => 0,
                    (true, false) => x.wrapping_shl(n),
                    (false, true) if signed => x >> 63,
                    (false, true) => 0,
                    (false, false) if signed => x >> n,
                    (false, false) => ((x as u64) >> n) as i64,
                }
            })?;
            narrowed(out, ctx)
        },
    )
    .build()
}

/// `bitTest(x, n)`: bit `n` of `x`, as UInt8.
fn bit_test() -> ScalarUDF {
    ScalarDef::new(
        "bitTest",
        Arity::exact(2),
        |ctx| {
            if !is_bit_operand(ctx.dt(0)) || !is_bit_operand(ctx.dt(1)) {
                return Err(illegal_pair(ctx));
            }
            Ok(ChType::UInt8)
        },
        |ctx| {
            let (a, b) = (bits_of(ctx, 0)?, bits_of(ctx, 1)?);
            let out: PrimitiveArray<UInt8Type> = datafusion::arrow::compute::binary(&a, &b, |x, n| if (0..64).contains(&n) { ((x >> n) & 1) as u8 } else { 0 })?;
            Ok(Arc::new(out))
        },
    )
    .build()
}

/// `bitCount(x)`: the number of set bits in `x`'s own width, as UInt8.
fn bit_count() -> ScalarUDF {
    ScalarDef::new(
        "bitCount",
        Arity::exact(1),
        |ctx| {
            if !is_bit_operand(ctx.dt(0)) && !is_float(ctx.dt(0)) {
                return Err(crate::args::illegal_type(ctx.name, 0, ctx.field(0)));
            }
            Ok(ChType::UInt8)
        },
        |ctx| {
            let bits_in_type = 8 * width_of(ctx.dt(0)) as u32;
            let mask = if bits_in_type >= 64 { u64::MAX } else { (1u64 << bits_in_type) - 1 };
            let values = bits_of(ctx, 0)?;
            Ok(Arc::new(values.unary::<_, UInt8Type>(move |v| ((v as u64) & mask).count_ones() as u8)))
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        bit_logic("bitAnd", Logic::And),
        bit_logic("bitOr", Logic::Or),
        bit_logic("bitXor", Logic::Xor),
        bit_not(),
        bit_shift("bitShiftLeft", true),
        bit_shift("bitShiftRight", false),
        bit_test(),
        bit_count(),
    ]
}
