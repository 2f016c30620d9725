//! Human-readable numbers: `formatReadableSize` (powers of 1024, `KiB`..),
//! `formatReadableDecimalSize` (powers of 1000, `KB`..), `formatReadableQuantity`
//! (`thousand`, `million`, ..) and `formatReadableTimeDelta` (`1 hour, 2 minutes and 3
//! seconds`, with its maximum and minimum unit arguments).
//!
//! The value is divided by the step while it is at least one step and a larger unit is
//! left, then printed with two decimals (correct rounding of the binary value, as
//! ClickHouse's `{:.2f}`); NaN and infinities keep their names (`nan B`, `inf YiB`).

use datafusion::arrow::array::{ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{RetCtx, ScalarDef};
use crate::text::ByteStrings;

const BINARY_UNITS: [&str; 9] = [" B", " KiB", " MiB", " GiB", " TiB", " PiB", " EiB", " ZiB", " YiB"];
const DECIMAL_UNITS: [&str; 9] = [" B", " KB", " MB", " GB", " TB", " PB", " EB", " ZB", " YB"];
const QUANTITY_UNITS: [&str; 22] = [
    "",
    " thousand",
    " million",
    " billion",
    " trillion",
    " quadrillion",
    " quintillion",
    " sextillion",
    " septillion",
    " octillion",
    " nonillion",
    " decillion",
    " undecillion",
    " duodecillion",
    " tredecillion",
    " quattuordecillion",
    " quindecillion",
    " sexdecillion",
    " septendecillion",
    " octodecillion",
    " novemdecillion",
    " vigintillion",
];

/// Integers of up to 64 bits and floats, ClickHouse's `isNativeNumber`.
pub(crate) fn is_native_number(t: &ChType) -> bool {
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
    )
}

/// `nan`, `inf`, `-inf` as ClickHouse writes them; `None` for finite values.
fn non_finite(value: f64) -> Option<&'static str> {
    if value.is_nan() {
        Some("nan")
    } else if value.is_infinite() {
        Some(if value > 0.0 { "inf" } else { "-inf" })
    } else {
        None
    }
}

fn readable(mut value: f64, step: f64, units: &[&str], out: &mut Vec<u8>) {
    let mut i = 0;
    while value.abs() >= step && i + 1 < units.len() {
        value /= step;
        i += 1;
    }
    match non_finite(value) {
        Some(text) => out.extend_from_slice(text.as_bytes()),
        None => out.extend_from_slice(format!("{value:.2}").as_bytes()),
    }
    out.extend_from_slice(units[i].as_bytes());
}

/// The values of a numeric argument as Float64.
fn float_values(array: &ArrayRef) -> DfResult<ArrayRef> {
    Ok(cast(array, &DataType::Float64)?)
}

fn readable_fn(name: &'static str, step: f64, units: &'static [&'static str]) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx: &RetCtx| {
            let t = ctx.ch(0);
            if !is_native_number(&t) && !matches!(t, ChType::Decimal(..) | ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!(
                        "A value of illegal type was provided as 1st argument 'value' to function '{}'. Expected: Number, got: {t}",
                        ctx.name
                    ),
                ));
            }
            Ok(ChType::String)
        },
        move |ctx| {
            let values = float_values(&ctx.array(0)?)?;
            let values = values.as_primitive::<Float64Type>();
            // A UInt256 of 2^255 and above is held as a negative two's-complement value.
            let unsigned_256 = ctx.ch(0).strip_nullable() == &ChType::UInt256;
            let mut out = ByteStrings::with_capacity(values.len(), values.len() * 10);
            let mut text = Vec::new();
            for row in 0..values.len() {
                text.clear();
                let value = values.value(row);
                let value = if unsigned_256 && value < 0.0 { value + 2f64.powi(256) } else { value };
                readable(value, step, units, &mut text);
                out.push_value(&text)?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// The units of `formatReadableTimeDelta`, smallest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Unit {
    Nanoseconds = 1,
    Microseconds,
    Milliseconds,
    Seconds,
    Minutes,
    Hours,
    Days,
    Months,
    Years,
}

impl Unit {
    fn parse(text: &str, bound: &str, name: &str) -> DfResult<Unit> {
        Ok(match text {
            "years" => Unit::Years,
            "months" => Unit::Months,
            "days" => Unit::Days,
            "hours" => Unit::Hours,
            "minutes" => Unit::Minutes,
            "seconds" => Unit::Seconds,
            "milliseconds" => Unit::Milliseconds,
            "microseconds" => Unit::Microseconds,
            "nanoseconds" => Unit::Nanoseconds,
            _ => {
                return Err(ch_error(
                    ErrorCode::BAD_ARGUMENTS,
                    format!(
                        "Unexpected value of {bound} unit argument ({text}) for function {name}, the only allowed values are: \
                         'nanoseconds', 'microseconds', 'nanoseconds', 'seconds', 'minutes', 'hours', 'days', 'months', 'years'."
                    ),
                ))
            }
        })
    }

    /// Seconds per unit (whole units) or the number of fraction digits (sub-second ones),
    /// and the singular name.
    fn spec(self) -> (u64, u32, &'static str) {
        match self {
            Unit::Years => (365 * 24 * 3600, 0, " year"),
            // ClickHouse's month is 30.5 days.
            Unit::Months => (30 * 24 * 3600 + 12 * 3600, 0, " month"),
            Unit::Days => (24 * 3600, 0, " day"),
            Unit::Hours => (3600, 0, " hour"),
            Unit::Minutes => (60, 0, " minute"),
            Unit::Seconds => (1, 0, " second"),
            Unit::Milliseconds => (1, 3, " millisecond"),
            Unit::Microseconds => (1, 6, " microsecond"),
            Unit::Nanoseconds => (1, 9, " nanosecond"),
        }
    }

    fn smaller(self) -> Option<Unit> {
        Some(match self {
            Unit::Years => Unit::Months,
            Unit::Months => Unit::Days,
            Unit::Days => Unit::Hours,
            Unit::Hours => Unit::Minutes,
            Unit::Minutes => Unit::Seconds,
            Unit::Seconds => Unit::Milliseconds,
            Unit::Milliseconds => Unit::Microseconds,
            Unit::Microseconds => Unit::Nanoseconds,
            Unit::Nanoseconds => return None,
        })
    }
}

/// One row of `formatReadableTimeDelta`, following ClickHouse's unit-by-unit walk from
/// `max_unit` down to `min_unit` (units with zero count are skipped; the last separator
/// is " and ").
fn time_delta(value: f64, max_unit: Unit, min_unit: Unit, out: &mut Vec<u8>) {
    if let Some(text) = non_finite(value) {
        out.extend_from_slice(text.as_bytes());
        return;
    }
    let mut value = value;
    if value < 0.0 {
        out.push(b'-');
        value = -value;
    }
    let mut whole = value.trunc();
    // Nine fraction digits, as double-conversion's ToFixed(x, 9) prints them.
    let fixed = format!("{:.9}", value - whole);
    let mut fraction: Vec<u8> = fixed.as_bytes().get(2..).unwrap_or(b"").to_vec();
    fraction.resize(9, b'0');
    let mut has_output = false;
    let mut unit = max_unit;
    loop {
        let is_minimum = unit == min_unit || unit == Unit::Nanoseconds;
        let (multiplier, scale, name) = unit.spec();
        let scale_multiplier = 10u64.pow(scale);
        'unit: {
            if whole + 1.0 == whole {
                // Too large for exact smaller units: all of it in this unit.
                let units = (whole * scale_multiplier as f64 / multiplier as f64).floor();
                granary_types::text::float::write_f64(units, out);
                out.extend_from_slice(name.as_bytes());
                out.push(b's');
                has_output = true;
                whole = 0.0;
                break 'unit;
            }
            let mut count: u64 = 0;
            if scale == 0 {
                count = (whole / multiplier as f64).floor() as u64;
                if count == 0 && (multiplier != 1 || has_output) {
                    break 'unit;
                }
                whole -= (count * multiplier) as f64;
            } else {
                if whole >= 1.0 {
                    count += whole as u64 * scale_multiplier;
                    whole = 0.0;
                }
                for i in 0..scale as usize {
                    count += u64::from(fraction[i] - b'0') * 10u64.pow(scale - i as u32 - 1);
                    fraction[i] = b'0';
                }
                if count == 0 && (!is_minimum || has_output) {
                    break 'unit;
                }
            }
            if has_output {
                // Digits that smaller units shown (down to min_unit) would still print.
                let pending = (4 - (min_unit as i32)).max(0) as usize * 3;
                let rest_zero = fraction[..pending.min(9)].iter().all(|c| *c == b'0');
                if is_minimum || (whole < 1.0 && rest_zero) {
                    out.extend_from_slice(b" and ");
                } else {
                    out.extend_from_slice(b", ");
                }
            }
            out.extend_from_slice(count.to_string().as_bytes());
            out.extend_from_slice(name.as_bytes());
            if count != 1 {
                out.push(b's');
            }
            has_output = true;
        }
        if is_minimum {
            break;
        }
        match unit.smaller() {
            Some(next) => unit = next,
            None => break,
        }
    }
}

fn format_readable_time_delta() -> ScalarUDF {
    ScalarDef::new(
        "formatReadableTimeDelta",
        Arity::range(1, 3),
        |ctx: &RetCtx| {
            let t = ctx.ch(0);
            if !is_native_number(&t) && !matches!(t, ChType::Decimal(..) | ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!(
                        "A value of illegal type was provided as 1st argument 'value' to function '{}'. Expected: Number or Interval, got: {t}",
                        ctx.name
                    ),
                ));
            }
            for (i, what) in [(1, "2nd argument 'maximum_unit'"), (2, "3rd argument 'minimum_unit'")] {
                if i < ctx.arg_count() && !matches!(ctx.ch(i).base(), ChType::String | ChType::FixedString(_)) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!(
                            "A value of illegal type was provided as {what} to function '{}'. Expected: String or FixedString, got: {}",
                            ctx.name,
                            ctx.ch(i)
                        ),
                    ));
                }
            }
            Ok(ChType::String)
        },
        |ctx| {
            let unit_arg = |i: usize, bound: &str, default: Unit| -> DfResult<(Unit, bool)> {
                if i >= ctx.args.len() {
                    return Ok((default, false));
                }
                let text = ctx.scalar(i).and_then(crate::args::scalar_str).ok_or_else(|| {
                    ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Argument at index {i} for function {} must be constant", ctx.name))
                })?;
                if text.is_empty() {
                    return Ok((default, false));
                }
                Ok((Unit::parse(text, bound, ctx.name)?, true))
            };
            let (max_unit, _) = unit_arg(1, "maximum", Unit::Years)?;
            let (mut min_unit, explicit_min) = unit_arg(2, "minimum", Unit::Seconds)?;
            if min_unit > max_unit {
                if !explicit_min {
                    // A sub-second maximum shows all sub-second units.
                    min_unit = Unit::Nanoseconds;
                } else {
                    let text = |i: usize| ctx.scalar(i).and_then(crate::args::scalar_str).unwrap_or("").to_string();
                    return Err(ch_error(
                        ErrorCode::BAD_ARGUMENTS,
                        format!(
                            "Explicitly specified value of minimum unit argument ({}) for function {} must not be greater than maximum unit value ({}).",
                            text(2),
                            ctx.name,
                            text(1)
                        ),
                    ));
                }
            }
            let values = float_values(&ctx.array(0)?)?;
            let values = values.as_primitive::<Float64Type>();
            let mut out = ByteStrings::with_capacity(values.len(), values.len() * 24);
            let mut text = Vec::new();
            for row in 0..values.len() {
                text.clear();
                time_delta(values.value(row), max_unit, min_unit, &mut text);
                out.push_value(&text)?;
            }
            out.finish(None)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        readable_fn("formatReadableSize", 1024.0, &BINARY_UNITS),
        readable_fn("formatReadableDecimalSize", 1000.0, &DECIMAL_UNITS),
        readable_fn("formatReadableQuantity", 1000.0, &QUANTITY_UNITS),
        format_readable_time_delta(),
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn size(v: f64) -> String {
        let mut out = Vec::new();
        readable(v, 1024.0, &BINARY_UNITS, &mut out);
        String::from_utf8(out).unwrap()
    }

    fn delta(v: f64, max: Unit, min: Unit) -> String {
        let mut out = Vec::new();
        time_delta(v, max, min, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn sizes_follow_clickhouse() {
        assert_eq!(size(0.0), "0.00 B");
        assert_eq!(size(1536.0), "1.50 KiB");
        assert_eq!(size(-1536.0), "-1.50 KiB");
        assert_eq!(size(f64::INFINITY), "inf YiB");
        assert_eq!(size(f64::NAN), "nan B");
    }

    #[test]
    fn time_deltas_follow_clickhouse() {
        assert_eq!(delta(0.0, Unit::Years, Unit::Seconds), "0 seconds");
        assert_eq!(delta(3600.0, Unit::Years, Unit::Seconds), "1 hour");
        assert_eq!(delta(100000000.0, Unit::Years, Unit::Seconds), "3 years, 2 months, 1 day, 9 hours, 46 minutes and 40 seconds");
        assert_eq!(delta(1.5, Unit::Seconds, Unit::Milliseconds), "1 second and 500 milliseconds");
        assert_eq!(delta(100000.0, Unit::Minutes, Unit::Seconds), "1666 minutes and 40 seconds");
    }
}
