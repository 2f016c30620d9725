//! Decimal arithmetic at a chosen scale and decimal text: `multiplyDecimal`,
//! `divideDecimal` (results `Decimal(76, S)`, computed in 256-bit integers, truncated
//! toward zero as ClickHouse does), `toDecimalString`.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Decimal256Array, StringArray};
use datafusion::arrow::datatypes::{i256, DataType, Decimal256Type, Float64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_decimal, is_float, is_integer, scalar_i128, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![decimal_op("multiplyDecimal", true), decimal_op("divideDecimal", false), to_decimal_string()]
}

fn scale_of(t: &DataType) -> u32 {
    match t {
        DataType::Decimal128(_, s) | DataType::Decimal256(_, s) => (*s).max(0) as u32,
        _ => 0,
    }
}

fn pow10(n: u32) -> Option<i256> {
    i256::from_i128(10).checked_pow(n)
}

/// The result scale: the third argument, else the larger argument scale.
fn result_scale(ctx: &RetCtx) -> DfResult<u32> {
    if ctx.arg_count() < 3 {
        return Ok(scale_of(ctx.dt(0)).max(scale_of(ctx.dt(1))));
    }
    let scale = ctx.scalar(2).and_then(scalar_i128).ok_or_else(|| {
        ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Illegal column of third argument of function {}. Should be constant UInt8", ctx.name))
    })?;
    if !(0..=76).contains(&scale) {
        return Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Illegal value of third argument of function {}: must be integer in range [0, 76]", ctx.name),
        ));
    }
    Ok(scale as u32)
}

fn decimal_values(ctx: &ExecCtx, i: usize) -> DfResult<Decimal256Array> {
    let scale = scale_of(ctx.dt(i)) as i8;
    let wide = datafusion::arrow::compute::cast(&ctx.array(i)?, &DataType::Decimal256(76, scale))?;
    Ok(wide.as_primitive::<Decimal256Type>().clone())
}

fn overflow(name: &str) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::DECIMAL_OVERFLOW, format!("Numeric overflow: result bigger that Decimal256 in function {name}"))
}

fn decimal_op(name: &'static str, multiply: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(2, 3),
        |ctx| {
            if !is_decimal(ctx.dt(0)) || !is_decimal(ctx.dt(1)) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Arguments for {} function must be Decimal", ctx.name)));
            }
            Ok(ChType::Decimal(76, result_scale(ctx)? as u8))
        },
        move |ctx| {
            let (a, b) = (decimal_values(ctx, 0)?, decimal_values(ctx, 1)?);
            let (scale_a, scale_b) = (scale_of(ctx.dt(0)), scale_of(ctx.dt(1)));
            let scale = match ctx.ret_type() {
                DataType::Decimal256(_, s) => (*s).max(0) as u32,
                _ => 0,
            };
            let mut out = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                if a.is_null(row) || b.is_null(row) {
                    out.push(None);
                    continue;
                }
                let (x, y) = (a.value(row), b.value(row));
                let value = if multiply { multiply_at_scale(x, y, scale_a + scale_b, scale) } else { divide_at_scale(x, y, scale_a, scale_b, scale)? };
                out.push(Some(value.ok_or_else(|| overflow(ctx.name))?));
            }
            Ok(Arc::new(Decimal256Array::from(out).with_precision_and_scale(76, scale as i8)?) as ArrayRef)
        },
    )
    .build()
}

/// `x * y` (scale `product_scale`) brought to `scale`, truncated toward zero.
fn multiply_at_scale(x: i256, y: i256, product_scale: u32, scale: u32) -> Option<i256> {
    let product = x.checked_mul(y)?;
    if product_scale >= scale {
        product.checked_div(pow10(product_scale - scale)?)
    } else {
        product.checked_mul(pow10(scale - product_scale)?)
    }
}

/// `x / y` at `scale`: `x` is first raised so that the quotient has that scale.
fn divide_at_scale(x: i256, y: i256, scale_x: u32, scale_y: u32, scale: u32) -> DfResult<Option<i256>> {
    if y == i256::ZERO {
        return Err(ch_error(ErrorCode::ILLEGAL_DIVISION, "Division by zero"));
    }
    let shift = i64::from(scale_y) + i64::from(scale) - i64::from(scale_x);
    let dividend = if shift >= 0 {
        pow10(shift as u32).and_then(|p| x.checked_mul(p))
    } else {
        pow10((-shift) as u32).and_then(|p| x.checked_div(p))
    };
    Ok(dividend.and_then(|d| d.checked_div(y)))
}

/// ClickHouse's `toDecimalString` of a decimal `value` of `scale`: rounded half away
/// from zero when digits are dropped (and then always with a point, also for no
/// digits: `123.`), padded with zeros otherwise.
fn decimal_text(value: i256, scale: u32, digits: u32) -> Option<String> {
    let negative = value < i256::ZERO;
    let magnitude = value.checked_abs()?;
    let mut out = String::from(if negative { "-" } else { "" });
    if scale > digits {
        let divisor = pow10(scale - digits)?;
        let mut kept = magnitude.checked_div(divisor)?;
        let rest = magnitude.checked_rem(divisor)?;
        if rest.checked_mul(i256::from_i128(2))? >= divisor {
            kept = kept.checked_add(i256::ONE)?;
        }
        let unit = pow10(digits)?;
        out.push_str(&kept.checked_div(unit)?.to_string());
        out.push('.');
        if digits > 0 {
            out.push_str(&format!("{:0>width$}", kept.checked_rem(unit)?.to_string(), width = digits as usize));
        }
    } else {
        let unit = pow10(scale)?;
        out.push_str(&magnitude.checked_div(unit)?.to_string());
        if digits > 0 {
            out.push('.');
            if scale > 0 {
                out.push_str(&format!("{:0>width$}", magnitude.checked_rem(unit)?.to_string(), width = scale as usize));
            }
            out.push_str(&"0".repeat((digits - scale) as usize));
        }
    }
    Some(out)
}

/// A float with `digits` decimals as double-conversion's `ToFixed` writes it: exact
/// value, ties (only possible when the value is exactly halfway) away from zero.
fn float_text(value: f64, digits: usize) -> String {
    if value.is_nan() {
        return "nan".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // Rust prints the exact binary value rounded half to even; a tie shows as a 5
    // followed by zeros only, one digit further.
    let longer = format!("{value:.prec$}", prec = digits + 40);
    let (head, tail) = longer.split_at(longer.len() - 40);
    if !(tail.starts_with('5') && tail[1..].bytes().all(|b| b == b'0')) {
        return format!("{value:.digits$}");
    }
    // Away from zero: drop the 5 and carry one into the last kept digit.
    let mut bytes: Vec<u8> = head.trim_end_matches('.').bytes().collect();
    let mut i = bytes.len();
    loop {
        if i == 0 || !bytes[i - 1].is_ascii_digit() {
            bytes.insert(i, b'1');
            break;
        }
        i -= 1;
        if bytes[i] == b'9' {
            bytes[i] = b'0';
        } else {
            bytes[i] += 1;
            break;
        }
        if i > 0 && bytes[i - 1] == b'.' {
            i -= 1;
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn to_decimal_string() -> ScalarUDF {
    ScalarDef::new(
        "toDecimalString",
        Arity::exact(2),
        |ctx| {
            let t = ctx.dt(0);
            if !(is_integer(t) || is_float(t) || is_decimal(t)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 1st argument 'Value' to function 'toDecimalString'. Expected: Number, got: {}", ctx.ch(0)),
                ));
            }
            let digits = ctx.scalar(1).and_then(scalar_i128).ok_or_else(|| {
                ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 2nd argument 'precision' to function 'toDecimalString'. Expected: const Integer, got: {}", ctx.ch(1)),
                )
            })?;
            if digits < 0 {
                return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Illegal column {} of second argument of function formatDecimal", ctx.ch(1))));
            }
            if is_float(t) && digits > 60 {
                return Err(ch_error(
                    ErrorCode::CANNOT_PRINT_FLOAT_OR_DOUBLE_NUMBER,
                    format!("Too high precision requested for Float, must not be more than 60, got {digits}"),
                ));
            }
            if digits > 77 {
                return Err(ch_error(ErrorCode::CANNOT_PRINT_FLOAT_OR_DOUBLE_NUMBER, "Too many fractional digits requested, shall not be more than 77"));
            }
            Ok(ChType::String)
        },
        |ctx| {
            let digits = ctx.const_int(1, "precision")? as u32;
            let input = ctx.array(0)?;
            let out: StringArray = if is_float(input.data_type()) {
                let values = datafusion::arrow::compute::cast(&input, &DataType::Float64)?;
                let values = values.as_primitive::<Float64Type>();
                // Float32 values are widened exactly, as ClickHouse prints them.
                values.iter().map(|v| v.map(|v| float_text(v, digits as usize))).collect()
            } else {
                let scale = scale_of(input.data_type());
                let wide = datafusion::arrow::compute::cast(&input, &DataType::Decimal256(76, scale as i8))?;
                let wide = wide.as_primitive::<Decimal256Type>();
                let mut texts = Vec::with_capacity(ctx.len);
                for v in wide.iter() {
                    texts.push(match v {
                        None => None,
                        Some(v) => Some(decimal_text(v, scale, digits).ok_or_else(|| overflow("toDecimalString"))?),
                    });
                }
                texts.into_iter().collect()
            };
            Ok(Arc::new(out) as ArrayRef)
        },
    )
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text_rounds_half_away_and_keeps_the_point() {
        let d = |v: i128, s: u32, p: u32| decimal_text(i256::from_i128(v), s, p).unwrap_or_default();
        assert_eq!(d(125, 2, 1), "1.3");
        assert_eq!(d(-125, 2, 1), "-1.3");
        assert_eq!(d(123456, 3, 0), "123.");
        assert_eq!(d(5, 0, 2), "5.00");
        assert_eq!(d(5, 0, 0), "5");
        assert_eq!(d(-4, 2, 1), "-0.0");
    }

    #[test]
    fn float_ties_round_away_from_zero() {
        assert_eq!(float_text(2.5, 0), "3");
        assert_eq!(float_text(0.125, 2), "0.13");
        assert_eq!(float_text(-0.125, 2), "-0.13");
        assert_eq!(float_text(9.5, 0), "10");
        assert_eq!(float_text(0.95, 1), "0.9");
        assert_eq!(float_text(1.0 / 3.0, 10), "0.3333333333");
        assert_eq!(float_text(-0.0, 2), "-0.00");
    }
}
