//! `round(x[, N])` and `roundBankers(x[, N])` with ClickHouse's rules: the result keeps
//! the argument's type; floats round half to even (`round(2.5)` is 2, `round(3.5)` is 4)
//! after scaling by `10^N` (`round(2.675, 2)` is 2.68: 2.675 * 100 is exactly 267.5 in
//! binary64); integers and decimals round half away from zero under `round` and half to
//! even under `roundBankers`; a negative `N` rounds to tens, hundreds, ... and an integer
//! result wraps to its type (`round(toUInt8(250), -2)` is 44).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{i256, DataType, Decimal128Type, Decimal256Type, Float32Type, Float64Type, Int64Type};
use datafusion::logical_expr::ScalarUDF;

use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, is_decimal, is_float, is_integer, Arity, DfResult};
use crate::func::{ExecCtx, ScalarDef};

/// Rounds `value / unit` to an integer: half to even, or half away from zero.
fn round_quotient(value: i128, unit: i128, bankers: bool) -> i128 {
    let (q, r) = (value / unit, value % unit);
    let twice = r.abs() * 2;
    let up = if bankers { twice > unit || (twice == unit && q % 2 != 0) } else { twice >= unit };
    if up {
        q + value.signum()
    } else {
        q
    }
}

fn round_quotient256(value: i256, unit: i256, bankers: bool) -> i256 {
    let (q, r) = (value.wrapping_div(unit), value.wrapping_rem(unit));
    let twice = r.wrapping_abs().wrapping_mul(i256::from_i128(2));
    let odd = q.wrapping_rem(i256::from_i128(2)) != i256::ZERO;
    let up = if bankers { twice > unit || (twice == unit && odd) } else { twice >= unit };
    if !up {
        return q;
    }
    if value < i256::ZERO {
        q.wrapping_sub(i256::ONE)
    } else {
        q.wrapping_add(i256::ONE)
    }
}

/// `x` rounded to `digits` decimal digits, half to even.
fn round_float(x: f64, digits: i64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    if digits >= 0 {
        let scale = 10f64.powi(digits.min(400) as i32);
        let scaled = x * scale;
        if !scale.is_finite() || !scaled.is_finite() {
            return x;
        }
        scaled.round_ties_even() / scale
    } else {
        let scale = 10f64.powi((-digits).min(400) as i32);
        if !scale.is_finite() {
            return 0.0 * x.signum();
        }
        (x / scale).round_ties_even() * scale
    }
}

fn digits_per_row(ctx: &ExecCtx) -> DfResult<Vec<i64>> {
    if ctx.args.len() < 2 {
        return Ok(vec![0; ctx.len]);
    }
    let digits = cast(&ctx.array(1)?, &DataType::Int64)?;
    Ok(digits.as_primitive::<Int64Type>().iter().map(|d| d.unwrap_or(0)).collect())
}

fn rounding(name: &'static str, bankers: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 2),
        |ctx| {
            let dt = ctx.dt(0);
            if !(is_integer(dt) || is_float(dt) || is_decimal(dt)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            if ctx.arg_count() > 1 && !is_integer(ctx.dt(1)) {
                return Err(illegal_type(ctx.name, 1, ctx.field(1)));
            }
            Ok(ctx.ch(0).strip_nullable().clone())
        },
        move |ctx| {
            let values = ctx.array(0)?;
            let digits = digits_per_row(ctx)?;
            let at = |i: usize| digits.get(i).copied().unwrap_or(0);
            match values.data_type() {
                DataType::Float64 => {
                    let floats = values.as_primitive::<Float64Type>();
                    let out: PrimitiveArray<Float64Type> = floats.iter().enumerate().map(|(i, v)| v.map(|v| round_float(v, at(i)))).collect();
                    Ok(Arc::new(out))
                }
                DataType::Float32 => {
                    let floats = values.as_primitive::<Float32Type>();
                    let out: PrimitiveArray<Float32Type> = floats.iter().enumerate().map(|(i, v)| v.map(|v| round_float(f64::from(v), at(i)) as f32)).collect();
                    Ok(Arc::new(out))
                }
                DataType::Decimal128(p, s) => {
                    let scale = i64::from(*s);
                    let decimals = values.as_primitive::<Decimal128Type>();
                    let out: PrimitiveArray<Decimal128Type> = decimals
                        .iter()
                        .enumerate()
                        .map(|(i, v)| {
                            v.map(|v| {
                                let drop = scale - at(i);
                                if drop <= 0 {
                                    v
                                } else if drop > 38 {
                                    0
                                } else {
                                    let unit = 10i128.pow(drop as u32);
                                    round_quotient(v, unit, bankers).wrapping_mul(unit)
                                }
                            })
                        })
                        .collect();
                    Ok(Arc::new(out.with_precision_and_scale(*p, *s)?))
                }
                DataType::Decimal256(p, s) => {
                    let scale = i64::from(*s);
                    let decimals = values.as_primitive::<Decimal256Type>();
                    let out: PrimitiveArray<Decimal256Type> = decimals
                        .iter()
                        .enumerate()
                        .map(|(i, v)| {
                            v.map(|v| {
                                let drop = scale - at(i);
                                if drop <= 0 {
                                    v
                                } else if drop > 76 {
                                    i256::ZERO
                                } else {
                                    let unit = i256::from_i128(10).wrapping_pow(drop as u32);
                                    round_quotient256(v, unit, bankers).wrapping_mul(unit)
                                }
                            })
                        })
                        .collect();
                    Ok(Arc::new(out.with_precision_and_scale(*p, *s)?))
                }
                _ => {
                    // Integers: only negative digit counts change them; computed on
                    // 128 bits, wrapped back to the type.
                    let wide: Vec<Option<i128>> = match values.data_type() {
                        DataType::UInt64 => values.as_primitive::<datafusion::arrow::datatypes::UInt64Type>().iter().map(|v| v.map(i128::from)).collect(),
                        _ => cast(&values, &DataType::Int64)?.as_primitive::<Int64Type>().iter().map(|v| v.map(i128::from)).collect(),
                    };
                    let rounded: PrimitiveArray<Int64Type> = wide
                        .iter()
                        .enumerate()
                        .map(|(i, v)| {
                            v.map(|v| {
                                let d = at(i);
                                let r = if d >= 0 {
                                    v
                                } else if d < -38 {
                                    0
                                } else {
                                    let unit = 10i128.pow((-d) as u32);
                                    round_quotient(v, unit, bankers).wrapping_mul(unit)
                                };
                                r as i64
                            })
                        })
                        .collect();
                    wrap_integers(rounded, ctx)
                }
            }
        },
    )
    .build()
}

/// Int64 results (two's complement bits) back in the argument's integer type.
fn wrap_integers(values: PrimitiveArray<Int64Type>, ctx: &ExecCtx) -> DfResult<ArrayRef> {
    use datafusion::arrow::datatypes::{Int16Type, Int32Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
    Ok(match ctx.ret_ch().strip_nullable().to_arrow() {
        DataType::Int8 => Arc::new(values.unary::<_, Int8Type>(|v| v as i8)),
        DataType::Int16 => Arc::new(values.unary::<_, Int16Type>(|v| v as i16)),
        DataType::Int32 => Arc::new(values.unary::<_, Int32Type>(|v| v as i32)),
        DataType::UInt8 => Arc::new(values.unary::<_, UInt8Type>(|v| v as u8)),
        DataType::UInt16 => Arc::new(values.unary::<_, UInt16Type>(|v| v as u16)),
        DataType::UInt32 => Arc::new(values.unary::<_, UInt32Type>(|v| v as u32)),
        DataType::UInt64 => Arc::new(values.unary::<_, UInt64Type>(|v| v as u64)),
        _ => Arc::new(values),
    })
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![rounding("round", false), rounding("roundBankers", true), round_down()]
}

fn is_number(t: &ChType) -> bool {
    crate::readable::is_native_number(t) || matches!(t, ChType::Decimal(..))
}

/// `roundDown(x, [b1, b2, ...])`: the largest boundary not above `x`, or the smallest
/// boundary when `x` is below them all (NaN stays NaN), in the least supertype of `x` and
/// the boundaries, which must be a constant array of numbers (in any order).
fn round_down() -> ScalarUDF {
    const NAME: &str = "roundDown";
    ScalarDef::new(
        NAME,
        Arity::exact(2),
        |ctx| {
            let x = ctx.ch(0);
            if !is_number(&x) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Unsupported type {x} of first argument of function {NAME}, must be numeric type")));
            }
            let ChType::Array(bound) = ctx.ch(1) else {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Second argument of function {NAME}, must be array of boundaries to round to.")));
            };
            if !is_number(&bound) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Elements of array of second argument of function {NAME} must be numeric type.")));
            }
            match crate::supertype::least_supertype(&[x.clone(), (*bound).clone()]) {
                // Integer literals of an array are still Int64 when a query is first
                // planned; the literal pass narrows them and the type is worked out again.
                Err(_) if matches!(*bound, ChType::Int64 | ChType::UInt64) => Ok(x),
                result => result,
            }
        },
        |ctx| {
            let Some(bounds) = ctx.scalar(1) else {
                return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Argument at index 1 for function {NAME} must be constant")));
            };
            let bounds = bounds.to_array()?;
            let bounds = bounds.as_list_opt::<i32>().map(|list| list.values().clone()).ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Second argument of function {NAME} must be constant array.")))?;
            let target = ctx.ret_type();
            let (x, bounds) = (cast(&ctx.array(0)?, target)?, cast(&bounds, target)?);
            use datafusion::arrow::datatypes as t;
            match target {
                DataType::UInt8 => round_down_values::<t::UInt8Type>(&x, &bounds),
                DataType::UInt16 => round_down_values::<t::UInt16Type>(&x, &bounds),
                DataType::UInt32 => round_down_values::<t::UInt32Type>(&x, &bounds),
                DataType::UInt64 => round_down_values::<t::UInt64Type>(&x, &bounds),
                DataType::Int8 => round_down_values::<t::Int8Type>(&x, &bounds),
                DataType::Int16 => round_down_values::<t::Int16Type>(&x, &bounds),
                DataType::Int32 => round_down_values::<t::Int32Type>(&x, &bounds),
                DataType::Int64 => round_down_values::<Int64Type>(&x, &bounds),
                DataType::Float32 => round_down_values::<Float32Type>(&x, &bounds),
                DataType::Float64 => round_down_values::<Float64Type>(&x, &bounds),
                DataType::Decimal128(..) => round_down_values::<Decimal128Type>(&x, &bounds),
                DataType::Decimal256(..) => round_down_values::<Decimal256Type>(&x, &bounds),
                other => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Unsupported type {other} of function {NAME}"))),
            }
        },
    )
    .build()
}

fn round_down_values<T: datafusion::arrow::datatypes::ArrowPrimitiveType>(x: &ArrayRef, bounds: &ArrayRef) -> DfResult<ArrayRef>
where
    T::Native: PartialOrd,
{
    let mut sorted: Vec<T::Native> = bounds.as_primitive::<T>().values().to_vec();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    sorted.dedup_by(|a, b| a == b);
    let Some(&lowest) = sorted.first() else {
        return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, "Second argument of function roundDown must be a non-empty array"));
    };
    let x = x.as_primitive::<T>();
    #[allow(clippy::eq_op)] // `v != v` is how a NaN of any of the types shows itself
    let rounded: PrimitiveArray<T> = x.unary(|v| {
        if v != v {
            return v;
        }
        match sorted.partition_point(|b| *b <= v) {
            0 => lowest,
            i => sorted[i - 1],
        }
    });
    Ok(Arc::new(rounded.with_data_type(x.data_type().clone())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves() {
        assert_eq!(round_quotient(25, 10, false), 3);
        assert_eq!(round_quotient(-25, 10, false), -3);
        assert_eq!(round_quotient(25, 10, true), 2);
        assert_eq!(round_quotient(35, 10, true), 4);
        assert_eq!(round_quotient(-245, 10, false), -25);
        assert_eq!(round_quotient256(i256::from_i128(-25), i256::from_i128(10), false), i256::from_i128(-3));
        assert_eq!(round_float(2.5, 0), 2.0);
        assert_eq!(round_float(3.5, 0), 4.0);
        assert_eq!(round_float(2.675, 2), 2.68);
        assert_eq!(round_float(1234.5, -2), 1200.0);
        assert_eq!(round_float(2.5, 400), 2.5);
    }
}
