//! ClickHouse's floating-point math functions: `sqrt`, `cbrt`, `exp`, `exp2`, `exp10`,
//! `log` (`ln`), `log2`, `log10`, `log1p`, trigonometric and hyperbolic functions and
//! their inverses, `degrees`, `radians`, `sigmoid`, `erf`, `erfc`, `lgamma` (the last three
//! in `special_math`); `pow` (`power`), `atan2`, `hypot`.
//! Also the bucketing `roundAge`, `roundDuration` and `roundToExp2`, which are not
//! Float64: UInt8, UInt16 and the argument's own type.
//!
//! They take any integer, float or decimal and return `Float64` (a `Float32` argument is
//! widened first), computed per row with IEEE results (`sqrt(-1)` is `nan`, `log(0)` is
//! `-inf`), and a result is `Nullable` only when an argument is. DataFusion's own
//! functions of these names differ: `log` is base 10 there, `sqrt(-1)` fails, Float32
//! stays Float32 and every result is typed nullable.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, Float64Array, UInt16Array, UInt8Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{
    DataType, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};

fn is_math_argument(t: &ChType) -> bool {
    matches!(
        t,
        ChType::UInt8
            | ChType::UInt16
            | ChType::UInt32
            | ChType::UInt64
            | ChType::Int8
            | ChType::Int16
            | ChType::Int32
            | ChType::Int64
            | ChType::Float32
            | ChType::Float64
            | ChType::Bool
            | ChType::Decimal(..)
    )
}

fn float64_result(ctx: &RetCtx) -> DfResult<ChType> {
    for i in 0..ctx.arg_count() {
        let t = ctx.ch(i);
        if !is_math_argument(&t) {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {t} of argument of function {}", ctx.name)));
        }
    }
    Ok(ChType::Float64)
}

fn float_arg(ctx: &ExecCtx, i: usize) -> DfResult<ArrayRef> {
    Ok(cast(&ctx.array(i)?, &DataType::Float64)?)
}

fn unary(name: &'static str, f: fn(f64) -> f64) -> ScalarUDF {
    ScalarDef::new(name, Arity::exact(1), float64_result, move |ctx| {
        let x = float_arg(ctx, 0)?;
        let out: Float64Array = x.as_primitive::<Float64Type>().values().iter().map(|v| f(*v)).collect::<Vec<_>>().into();
        Ok(Arc::new(out) as ArrayRef)
    })
    .build()
}

fn binary(name: &'static str, f: fn(f64, f64) -> f64) -> ScalarUDF {
    ScalarDef::new(name, Arity::exact(2), float64_result, move |ctx| {
        let x = float_arg(ctx, 0)?;
        let y = float_arg(ctx, 1)?;
        let (x, y) = (x.as_primitive::<Float64Type>().values(), y.as_primitive::<Float64Type>().values());
        let out: Float64Array = x.iter().zip(y.iter()).map(|(a, b)| f(*a, *b)).collect::<Vec<_>>().into();
        Ok(Arc::new(out) as ArrayRef)
    })
    .build()
}

/// `sign(x)`: -1, 0 or 1 as Int8. A float's sign bit decides, so `nan` is 1 and `-nan` is -1 as in ClickHouse.
fn sign() -> ScalarUDF {
    ScalarDef::new(
        "sign",
        Arity::exact(1),
        |ctx| {
            float64_result(ctx)?;
            Ok(ChType::Int8)
        },
        |ctx| {
            let x = float_arg(ctx, 0)?;
            let signs = x.as_primitive::<Float64Type>().unary::<_, Int8Type>(|v| if v == 0.0 { 0 } else if v.is_sign_negative() { -1 } else { 1 });
            Ok(Arc::new(signs) as ArrayRef)
        },
    )
    .build()
}

/// `max2(a, b)` / `min2(a, b)`: the larger / smaller of two numbers as Float64, picked
/// as ClickHouse does, `a > b ? a : b` (so a NaN `a` gives `b`, a NaN `b` gives NaN).
fn pick_of_two(name: &'static str, larger: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            for i in 0..2 {
                if !crate::args::is_numeric(ctx.dt(i)) {
                    return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument of function {}", ctx.ch(i), ctx.name)));
                }
            }
            Ok(ChType::Float64)
        },
        move |ctx| {
            let (a, b) = (cast(&ctx.array(0)?, &DataType::Float64)?, cast(&ctx.array(1)?, &DataType::Float64)?);
            let (a, b) = (a.as_primitive::<Float64Type>().values(), b.as_primitive::<Float64Type>().values());
            let picked = a.iter().zip(b.iter()).map(|(&a, &b)| if (larger && a > b) || (!larger && a < b) { a } else { b });
            Ok(Arc::new(Float64Array::from_iter_values(picked)) as ArrayRef)
        },
    )
    .build()
}

/// The integer and float arguments of `roundAge`, `roundDuration` and `roundToExp2`
/// (ClickHouse refuses decimals there).
fn native_number(ctx: &RetCtx) -> DfResult<ChType> {
    let t = ctx.ch(0);
    if matches!(t, ChType::Decimal(..) | ChType::Bool) || !is_math_argument(&t) {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {t} of argument of function {}", ctx.name)));
    }
    Ok(t)
}

/// `x` placed in the bucket of the greatest bound not above it (0 below the first):
/// ClickHouse's age groups and call durations.
fn bucket(bounds: &[u16], x: f64) -> u16 {
    bounds.iter().rev().find(|b| x >= f64::from(**b)).copied().unwrap_or(0)
}

const AGE_BOUNDS: [u16; 6] = [1, 18, 25, 35, 45, 55];
const DURATION_BOUNDS: [u16; 15] = [1, 10, 30, 60, 120, 180, 240, 300, 600, 1200, 1800, 3600, 7200, 18000, 36000];

fn round_age() -> ScalarUDF {
    ScalarDef::new(
        "roundAge",
        Arity::exact(1),
        |ctx| native_number(ctx).map(|_| ChType::UInt8),
        |ctx| {
            let x = float_arg(ctx, 0)?;
            // Ages 1 to 17 all land in the bucket ClickHouse labels 17, not 1.
            let out: UInt8Array = x
                .as_primitive::<Float64Type>()
                .values()
                .iter()
                .map(|v| match bucket(&AGE_BOUNDS, *v) {
                    1 => 17,
                    b => b as u8,
                })
                .collect::<Vec<_>>()
                .into();
            Ok(Arc::new(out) as ArrayRef)
        },
    )
    .build()
}

fn round_duration() -> ScalarUDF {
    ScalarDef::new(
        "roundDuration",
        Arity::exact(1),
        |ctx| native_number(ctx).map(|_| ChType::UInt16),
        |ctx| {
            let x = float_arg(ctx, 0)?;
            let out: UInt16Array = x.as_primitive::<Float64Type>().values().iter().map(|v| bucket(&DURATION_BOUNDS, *v)).collect::<Vec<_>>().into();
            Ok(Arc::new(out) as ArrayRef)
        },
    )
    .build()
}

/// `roundToExp2(x)`: the greatest power of two not above `x`, in `x`'s type (0 for
/// `x <= 0`). For floats ClickHouse clears the mantissa bits, so the sign stays
/// (`roundToExp2(-0.5)` is -0.5) and `nan` becomes `inf`.
fn round_to_exp2() -> ScalarUDF {
    macro_rules! ints {
        ($a:expr, $t:ty, $u:ty) => {{
            let out = $a.as_primitive::<$t>().unary::<_, $t>(|v| if v <= 0 { 0 } else { 1 << (<$u>::BITS - 1 - (v as $u).leading_zeros()) });
            Arc::new(out) as ArrayRef
        }};
    }
    ScalarDef::new("roundToExp2", Arity::exact(1), native_number, |ctx| {
        let a = ctx.array(0)?;
        Ok(match a.data_type() {
            DataType::UInt8 => ints!(a, UInt8Type, u8),
            DataType::UInt16 => ints!(a, UInt16Type, u16),
            DataType::UInt32 => ints!(a, UInt32Type, u32),
            DataType::UInt64 => ints!(a, UInt64Type, u64),
            DataType::Int8 => ints!(a, Int8Type, u8),
            DataType::Int16 => ints!(a, Int16Type, u16),
            DataType::Int32 => ints!(a, Int32Type, u32),
            DataType::Int64 => ints!(a, Int64Type, u64),
            DataType::Float32 => Arc::new(a.as_primitive::<Float32Type>().unary::<_, Float32Type>(|v| f32::from_bits(v.to_bits() & !((1 << 23) - 1)))),
            DataType::Float64 => Arc::new(a.as_primitive::<Float64Type>().unary::<_, Float64Type>(|v| f64::from_bits(v.to_bits() & !((1 << 52) - 1)))),
            other => return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("roundToExp2 of {other}"))),
        })
    })
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        pick_of_two("max2", true),
        pick_of_two("min2", false),
        sign(),
        unary("sqrt", f64::sqrt),
        unary("cbrt", f64::cbrt),
        unary("exp", f64::exp),
        unary("exp2", f64::exp2),
        unary("exp10", |x| 10f64.powf(x)),
        unary("log", f64::ln),
        unary("log2", f64::log2),
        unary("log10", f64::log10),
        unary("log1p", f64::ln_1p),
        unary("sin", f64::sin),
        unary("cos", f64::cos),
        unary("tan", f64::tan),
        unary("asin", f64::asin),
        unary("acos", f64::acos),
        unary("atan", f64::atan),
        unary("sinh", f64::sinh),
        unary("cosh", f64::cosh),
        unary("tanh", f64::tanh),
        unary("asinh", f64::asinh),
        unary("acosh", f64::acosh),
        unary("atanh", f64::atanh),
        unary("degrees", f64::to_degrees),
        unary("radians", f64::to_radians),
        unary("sigmoid", |x| 1.0 / (1.0 + (-x).exp())),
        unary("erf", crate::special_math::erf),
        unary("erfc", crate::special_math::erfc),
        unary("lgamma", crate::special_math::lgamma),
        unary("tgamma", crate::special_math::tgamma),
        round_age(),
        round_duration(),
        round_to_exp2(),
        binary("pow", f64::powf),
        binary("atan2", f64::atan2),
        binary("hypot", f64::hypot),
    ]
}
