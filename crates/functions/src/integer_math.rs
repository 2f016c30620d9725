//! Integer arithmetic helpers of ClickHouse: `countDigits`, `intExp2`, `intExp10`,
//! `isPrime`, `isProbablePrime`, `sqr` and `midpoint`.
//!
//! `intExp2/10` saturate to UInt64 (a negative exponent gives 0, a float exponent is
//! truncated, NaN is BAD_ARGUMENTS), and like ClickHouse read a UInt64 exponent as Int64
//! (`intExp10(toUInt64(-1))` is 0). `midpoint(x, ...)` is the mean of its non-NULL
//! arguments in their least supertype, rounded toward zero for integers, decimals and
//! times, computed wide enough not to overflow.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray, UInt64Array, UInt8Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{i256, DataType, Decimal256Type, Float64Type, Int64Type, UInt64Type};
use datafusion::logical_expr::{ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::wide::WideInt;
use granary_types::ChType;

use crate::args::{ch_error, is_float, is_integer, Arity, DfResult};
use crate::arithmetic::{is_wide, words_of};
use crate::bits::bits_of;
use crate::func::ScalarDef;

fn illegal_argument(name: &str, argument: &str, expected: &str, got: &ChType) -> datafusion::common::DataFusionError {
    ch_error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!("A value of illegal type was provided as 1st argument '{argument}' to function '{name}'. Expected: {expected}, got: {got}"),
    )
}

/// `countDigits(x)`: the number of decimal digits of an integer or of a decimal's
/// unscaled value (0 has one).
fn count_digits() -> ScalarUDF {
    ScalarDef::new(
        "countDigits",
        Arity::exact(1),
        |ctx| {
            let t = ctx.ch(0).base().clone();
            if !(is_integer(ctx.dt(0)) || ctx.dt(0) == &DataType::Boolean || is_wide(&t) || matches!(t, ChType::Decimal(..))) {
                return Err(illegal_argument(ctx.name, "x", "(U)Int* or Decimal", &ctx.ch(0)));
            }
            Ok(ChType::UInt8)
        },
        |ctx| {
            let t = ctx.ch(0).base().clone();
            let digits = |text: String| text.trim_start_matches('-').len() as u8;
            let out: UInt8Array = match (&t, ctx.dt(0)) {
                (ChType::Decimal(_, s), _) => {
                    let words = cast(&ctx.array(0)?, &DataType::Decimal256(76, *s as i8))?;
                    words.as_primitive::<Decimal256Type>().iter().map(|v| Some(v.map_or(1, |v| digits(v.to_string())))).collect()
                }
                _ if is_wide(&t) => {
                    let kind = WideInt::of(&t).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "not a wide integer"))?;
                    words_of(ctx, 0)?.iter().map(|v| Some(v.map_or(1, |v| digits(kind.to_text(v))))).collect()
                }
                (_, DataType::UInt64) => cast(&ctx.array(0)?, &DataType::UInt64)?.as_primitive::<UInt64Type>().iter().map(|v| Some(digits(v.unwrap_or(0).to_string()))).collect(),
                _ => bits_of(ctx, 0)?.iter().map(|v| Some(digits(v.unwrap_or(0).to_string()))).collect(),
            };
            Ok(Arc::new(out))
        },
    )
    .build()
}

fn int_exp(name: &'static str, base: u64) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            if is_wide(&ctx.ch(0)) {
                return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, format!("{} not implemented for big integers", ctx.name)));
            }
            if !(is_integer(ctx.dt(0)) || is_float(ctx.dt(0)) || ctx.dt(0) == &DataType::Boolean) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument of function {}", ctx.ch(0), ctx.name)));
            }
            Ok(ChType::UInt64)
        },
        move |ctx| {
            // The largest exponent whose power fits UInt64.
            let top: i64 = if base == 2 { 63 } else { 19 };
            let power = move |e: i64| match e {
                e if e < 0 => 0,
                e if e > top => u64::MAX,
                e => base.pow(e as u32),
            };
            let out: UInt64Array = if is_float(ctx.dt(0)) {
                let floats = cast(&ctx.array(0)?, &DataType::Float64)?;
                let floats = floats.as_primitive::<Float64Type>();
                if floats.iter().flatten().any(f64::is_nan) {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("{} must not be called with nan", ctx.name)));
                }
                floats.unary(|e| match e {
                    e if e < 0.0 => 0,
                    e if e >= 64.0 => u64::MAX,
                    e => power(e as i64),
                })
            } else {
                bits_of(ctx, 0)?.unary(power)
            };
            Ok(Arc::new(out))
        },
    )
    .build()
}

fn mul_mod(a: u128, b: u128, m: u128) -> u128 {
    if let Some(p) = a.checked_mul(b) {
        return p % m;
    }
    // Double and add: every intermediate stays below 2m, which may pass 2^128, so the
    // additions are checked for the carry.
    let add = |x: u128, y: u128| -> u128 {
        let (s, carry) = x.overflowing_add(y);
        if carry || s >= m {
            s.wrapping_sub(m)
        } else {
            s
        }
    };
    let (mut result, mut a, mut b) = (0u128, a % m, b);
    while b > 0 {
        if b & 1 == 1 {
            result = add(result, a);
        }
        a = add(a, a);
        b >>= 1;
    }
    result
}

fn pow_mod(mut b: u128, mut e: u128, m: u128) -> u128 {
    let mut result = 1 % m;
    b %= m;
    while e > 0 {
        if e & 1 == 1 {
            result = mul_mod(result, b, m);
        }
        b = mul_mod(b, b, m);
        e >>= 1;
    }
    result
}

/// Miller-Rabin with the first twelve primes as bases: exact below 3.3e24 (every UInt64),
/// a probable-prime test above.
fn is_prime(n: u128) -> bool {
    const BASES: [u128; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    if n < 2 {
        return false;
    }
    for p in BASES {
        if n % p == 0 {
            return n == p;
        }
    }
    let (mut d, mut s) = (n - 1, 0);
    while d % 2 == 0 {
        d /= 2;
        s += 1;
    }
    'bases: for a in BASES {
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

fn prime_test(name: &'static str, wide: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            let t = ctx.literal_ch(0).base().clone();
            let narrow = matches!(t, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Bool);
            if narrow || (wide && matches!(t, ChType::UInt128 | ChType::UInt256)) {
                return Ok(ChType::UInt8);
            }
            let expected = if wide { "UInt8/UInt16/UInt32/UInt64/UInt128/UInt256" } else { "UInt8/UInt16/UInt32/UInt64" };
            Err(illegal_argument(ctx.name, "n", expected, &ctx.ch(0)))
        },
        |ctx| {
            let out: UInt8Array = match ctx.ch(0).base() {
                ChType::UInt128 => words_of(ctx, 0)?.iter().map(|v| Some(u8::from(v.is_some_and(|v| is_prime(v.as_i128() as u128))))).collect(),
                ChType::UInt256 => {
                    let mut out = Vec::with_capacity(ctx.len);
                    for v in words_of(ctx, 0)?.iter() {
                        let v = v.unwrap_or(i256::ZERO);
                        let (low, high) = v.to_parts();
                        if high != 0 {
                            return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, format!("{} of a UInt256 of 2^128 or more is not implemented", ctx.name)));
                        }
                        out.push(u8::from(is_prime(low)));
                    }
                    UInt8Array::from(out)
                }
                _ => cast(&ctx.array(0)?, &DataType::UInt64)?.as_primitive::<UInt64Type>().iter().map(|v| Some(u8::from(is_prime(u128::from(v.unwrap_or(0)))))).collect(),
            };
            Ok(Arc::new(out))
        },
    )
    .build()
}

/// `sqr(x)`: `multiply(x, x)`, with its types and errors.
fn sqr(multiply: ScalarUDF) -> ScalarUDF {
    let for_exec = multiply.clone();
    ScalarDef::new(
        "sqr",
        Arity::exact(1),
        move |ctx| {
            let fields = vec![Arc::clone(&ctx.fields[0]), Arc::clone(&ctx.fields[0])];
            let scalars = [ctx.scalar(0), ctx.scalar(0)];
            let field = multiply.return_field_from_args(ReturnFieldArgs { arg_fields: &fields, scalar_arguments: &scalars })?;
            Ok(crate::func::ch_type_of_field(&field).strip_nullable().clone())
        },
        move |ctx| {
            let args = ScalarFunctionArgs {
                args: vec![ctx.args[0].clone(), ctx.args[0].clone()],
                arg_fields: vec![Arc::clone(&ctx.fields[0]), Arc::clone(&ctx.fields[0])],
                number_rows: ctx.len,
                return_field: Arc::clone(ctx.ret),
                config_options: Arc::new(ctx.config.clone()),
            };
            for_exec.invoke_with_args(args)?.to_array(ctx.len)
        },
    )
    .build()
}

fn is_midpoint_operand(t: &ChType) -> bool {
    let t = t.strip_nullable().base();
    matches!(
        t,
        ChType::Nothing | ChType::Float32 | ChType::Float64 | ChType::Decimal(..) | ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..)
    ) || crate::arithmetic::int_shape(t).is_some()
}

/// A column of the supertype as 256-bit words (unscaled values for decimals, ticks for
/// times), and back.
fn to_words(array: &ArrayRef, t: &ChType) -> DfResult<PrimitiveArray<Decimal256Type>> {
    if let Some(kind) = WideInt::of(t) {
        return Ok(kind.widen(array.as_ref()).map_err(granary_common::Error::into_datafusion)?);
    }
    Ok(match (t, array.data_type()) {
        (ChType::Decimal(_, s), _) => cast(array, &DataType::Decimal256(76, *s as i8))?.as_primitive::<Decimal256Type>().clone(),
        (_, DataType::UInt64) => array.as_primitive::<UInt64Type>().unary(|v| i256::from_i128(i128::from(v))),
        (_, DataType::Boolean) => cast(&cast(array, &DataType::UInt8)?, &DataType::Int64)?.as_primitive::<Int64Type>().unary(i256::from),
        _ => cast(array, &DataType::Int64)?.as_primitive::<Int64Type>().unary(i256::from),
    })
}

fn from_words(words: PrimitiveArray<Decimal256Type>, t: &ChType, target: &DataType) -> DfResult<ArrayRef> {
    if let Some(kind) = WideInt::of(t) {
        return Ok(kind.narrow(&words));
    }
    Ok(match (t, target) {
        (ChType::Decimal(_, s), _) => cast(&(Arc::new(words.with_data_type(DataType::Decimal256(76, *s as i8))) as ArrayRef), target)?,
        (_, DataType::UInt64) => Arc::new(words.unary::<_, UInt64Type>(|w| w.as_i128() as u64)),
        (_, DataType::Boolean) => cast(&(Arc::new(words.unary::<_, Int64Type>(|w| w.as_i128() as i64)) as ArrayRef), target)?,
        (_, DataType::Date32) => {
            let days = cast(&(Arc::new(words.unary::<_, Int64Type>(|w| w.as_i128() as i64)) as ArrayRef), &DataType::Int32)?;
            cast(&days, target)?
        }
        _ => cast(&(Arc::new(words.unary::<_, Int64Type>(|w| w.as_i128() as i64)) as ArrayRef), target)?,
    })
}

fn midpoint() -> ScalarUDF {
    ScalarDef::new(
        "midpoint",
        Arity::at_least(1),
        |ctx| {
            let indices: Vec<usize> = (0..ctx.arg_count()).collect();
            let supertype = crate::supertype::least_supertype_of_args(ctx, &indices)?;
            if !is_midpoint_operand(&supertype) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Function {} supports only numeric/temporal types, got {supertype}", ctx.name)));
            }
            Ok(supertype)
        },
        |ctx| {
            let ret = ctx.ret_ch();
            let target = ret.strip_nullable().base().clone();
            let out_type = ctx.ret_type().clone();
            if target == ChType::Nothing {
                return Ok(datafusion::arrow::array::new_null_array(&out_type, ctx.len));
            }
            let columns = (0..ctx.args.len())
                .filter(|&i| ctx.ch(i).strip_nullable().base() != &ChType::Nothing)
                .map(|i| crate::conversion::convert_array(&ctx.array(i)?, &ctx.fields[i], &target))
                .collect::<DfResult<Vec<ArrayRef>>>()?;
            if matches!(target, ChType::Float32 | ChType::Float64) {
                let floats = columns.iter().map(|c| Ok(cast(c, &DataType::Float64)?.as_primitive::<Float64Type>().clone())).collect::<DfResult<Vec<_>>>()?;
                let out: PrimitiveArray<Float64Type> = (0..ctx.len)
                    .map(|row| {
                        let values: Vec<f64> = floats.iter().filter(|c| c.is_valid(row)).map(|c| c.value(row)).collect();
                        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
                    })
                    .collect();
                return Ok(cast(&(Arc::new(out) as ArrayRef), &out_type)?);
            }
            let words = columns.iter().map(|c| to_words(c, &target)).collect::<DfResult<Vec<_>>>()?;
            let out: PrimitiveArray<Decimal256Type> = (0..ctx.len)
                .map(|row| {
                    let values: Vec<i256> = words.iter().filter(|c| c.is_valid(row)).map(|c| c.value(row)).collect();
                    let sum = values.iter().fold(i256::ZERO, |s, v| s.wrapping_add(*v));
                    // i256 division truncates toward zero, as ClickHouse's does.
                    (!values.is_empty()).then(|| sum.wrapping_div(i256::from(values.len() as i64)))
                })
                .collect();
            from_words(out, &target, &out_type)
        },
    )
    .custom_nulls()
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        count_digits(),
        int_exp("intExp2", 2),
        int_exp("intExp10", 10),
        prime_test("isPrime", false),
        prime_test("isProbablePrime", true),
        sqr(crate::arithmetic::multiply()),
        midpoint(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primes_agree_with_trial_division() {
        let by_trial = |n: u128| n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0);
        for n in 0..5000u128 {
            assert_eq!(is_prime(n), by_trial(n), "{n}");
        }
        assert!(is_prime(18_446_744_073_709_551_557));
        assert!(!is_prime(u128::from(u64::MAX)));
        // 2^127 - 1 is a Mersenne prime; 2^127 + 1 is divisible by 3.
        assert!(is_prime((1u128 << 127) - 1));
        assert!(!is_prime((1u128 << 127) + 1));
        // Carmichael numbers fool Fermat's test, not this one.
        for n in [561u128, 1105, 1729, 2465, 2821, 6601, 8911, 3_215_031_751] {
            assert!(!is_prime(n), "{n}");
        }
    }

    #[test]
    fn modular_products_do_not_overflow() {
        let m = u128::MAX - 158;
        assert_eq!(mul_mod(m - 1, m - 1, m), 1);
        assert_eq!(mul_mod(m - 1, 2, m), m - 2);
    }
}
