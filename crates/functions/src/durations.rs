//! Text to numbers of seconds or bytes: `parseTimeDelta` (`1h 30min`),
//! `parseISO8601Duration` (`PT1H30M`) and `parseReadableSize` (`1.5 MiB`, with
//! `OrNull`/`OrZero` forms), the inverses of `formatReadableTimeDelta` and
//! `formatReadableSize`, on ClickHouse's grammars and messages.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, UInt64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_argument, Arity, DfResult};
use crate::func::{ExecCtx, ScalarDef};
use crate::parse_datetime::OnError;

/// A failed parse: ClickHouse's code and message.
type ParseError = (ErrorCode, String);

/// Seconds per unit of `parseTimeDelta` (years are 365 days, months 30.5).
fn time_delta_unit(unit: &str) -> Option<f64> {
    Some(match unit {
        "years" | "year" | "yr" | "y" => 365.0 * 86_400.0,
        "months" | "month" | "mo" => 30.5 * 86_400.0,
        "weeks" | "week" | "w" => 7.0 * 86_400.0,
        "days" | "day" | "d" => 86_400.0,
        "hours" | "hour" | "hr" | "h" => 3600.0,
        "minutes" | "minute" | "min" | "m" => 60.0,
        "seconds" | "second" | "sec" | "s" => 1.0,
        "milliseconds" | "millisecond" | "millisec" | "ms" => 1e-3,
        "microseconds" | "microsecond" | "microsec" | "μs" | "µs" | "us" => 1e-6,
        "nanoseconds" | "nanosecond" | "nanosec" | "ns" => 1e-9,
        _ => return None,
    })
}

fn is_delta_separator(b: u8) -> bool {
    matches!(b, b';' | b'-' | b'+' | b',' | b':' | b' ')
}

/// `parseTimeDelta`'s reading of `text`: numbers (with an optional fraction), each
/// followed by a unit, separated by one of `;-+,: ` and spaces; trailing spaces and dots
/// are ignored and the text must end with a unit.
fn parse_time_delta(text: &str) -> Result<f64, ParseError> {
    let fail = |what: String| Err((ErrorCode::BAD_ARGUMENTS, format!("Invalid argument of function parseTimeDelta, {what}")));
    let s = text.as_bytes();
    let mut end = s.len();
    while end > 0 && matches!(s[end - 1], b' ' | b'.') {
        end -= 1;
    }
    if end == 0 {
        return fail(format!("no valid characters, str: \"{text}\""));
    }
    if !s[end - 1].is_ascii_alphabetic() {
        return fail(format!("str: \"{text}\""));
    }
    let digits = |pos: &mut usize| {
        let start = *pos;
        while *pos < end && s[*pos].is_ascii_digit() {
            *pos += 1;
        }
        *pos > start
    };
    let spaces = |pos: &mut usize| {
        while *pos < end && s[*pos] == b' ' {
            *pos += 1;
        }
    };
    let mut pos = 0;
    spaces(&mut pos);
    let mut total = 0.0;
    while pos < end {
        let start = pos;
        if !digits(&mut pos) {
            return fail(format!("number not found, str: \"{text}\""));
        }
        if pos < end && s[pos] == b'.' {
            pos += 1;
            if !digits(&mut pos) {
                return fail(format!("number not found after '.', str: \"{text}\""));
            }
        }
        let number: f64 = text[start..pos].parse().map_err(|_| (ErrorCode::BAD_ARGUMENTS, format!("Invalid argument of function parseTimeDelta, can't convert String to Float64: \"{}\"", &text[start..pos])))?;
        spaces(&mut pos);
        let unit_start = pos;
        while pos < end && !s[pos].is_ascii_digit() && !is_delta_separator(s[pos]) {
            pos += 1;
        }
        if pos == unit_start {
            return fail(format!("time unit not found, str: \"{text}\""));
        }
        let unit = &text[unit_start..pos];
        let Some(seconds) = time_delta_unit(unit) else {
            return fail(format!("can't parse the unit: \"{unit}\""));
        };
        total += number * seconds;
        // One separator, with spaces around it.
        spaces(&mut pos);
        if pos < end && is_delta_separator(s[pos]) {
            pos += 1;
        }
        spaces(&mut pos);
    }
    Ok(total)
}

/// `parseISO8601Duration`'s reading of `text`: `P[nW][nD][T[nH][nM][nS]]`, each number
/// with an optional fraction, designators in that order; years and months have no
/// fixed length and are refused.
fn parse_iso8601_duration(text: &str) -> Result<f64, ParseError> {
    let fail = |what: String| Err((ErrorCode::BAD_ARGUMENTS, format!("Invalid argument of function parseISO8601Duration: {what}, str: \"{text}\"")));
    let s = text.as_bytes();
    if s.first() != Some(&b'P') {
        return fail("a duration must start with 'P'".to_string());
    }
    let (mut pos, mut in_time, mut time_parts, mut parts, mut last_rank) = (1, false, 0, 0, None);
    let mut total = 0.0;
    while pos < s.len() {
        if s[pos] == b'T' && !in_time {
            in_time = true;
            pos += 1;
            continue;
        }
        let start = pos;
        while pos < s.len() && s[pos].is_ascii_digit() {
            pos += 1;
        }
        if pos == start {
            return fail(format!("expected a number at position {pos}"));
        }
        if pos < s.len() && s[pos] == b'.' {
            pos += 1;
            let fraction = pos;
            while pos < s.len() && s[pos].is_ascii_digit() {
                pos += 1;
            }
            if pos == fraction {
                return fail("expected digits after the decimal point".to_string());
            }
        }
        let Some(&designator) = s.get(pos) else {
            return fail("a number is not followed by a unit designator".to_string());
        };
        let (rank, seconds) = match (in_time, designator) {
            (false, b'Y') => return fail("the 'Y' designator is not supported because years have no fixed length in seconds; use weeks, days, hours, minutes or seconds, or resolve the duration against a reference date before converting it".to_string()),
            (false, b'M') => return fail("the 'M' designator is not supported because months have no fixed length in seconds; use weeks, days, hours, minutes or seconds, or resolve the duration against a reference date before converting it".to_string()),
            (false, b'W') => (0, 604_800.0),
            (false, b'D') => (1, 86_400.0),
            (true, b'H') => (2, 3600.0),
            (true, b'M') => (3, 60.0),
            (true, b'S') => (4, 1.0),
            (_, other) => return fail(format!("unexpected designator '{}' after '{}'", char::from(other), if in_time { 'T' } else { 'P' })),
        };
        if last_rank.is_some_and(|r| rank <= r) {
            return fail(format!("the '{}' designator is repeated or out of order", char::from(designator)));
        }
        last_rank = Some(rank);
        let number: f64 = text[start..pos].parse().unwrap_or(0.0);
        total += number * seconds;
        parts += 1;
        if in_time {
            time_parts += 1;
        }
        pos += 1;
    }
    if parts == 0 {
        return fail("a duration must contain at least one component".to_string());
    }
    if in_time && time_parts == 0 {
        return fail("'T' must be followed by at least one time component".to_string());
    }
    Ok(total)
}

/// Bytes per unit of `parseReadableSize`, the unit lowercased.
fn size_unit(unit: &str) -> Option<f64> {
    let decimal = ["b", "kb", "mb", "gb", "tb", "pb", "eb"];
    let binary = ["b", "kib", "mib", "gib", "tib", "pib", "eib"];
    if let Some(i) = decimal.iter().position(|u| *u == unit) {
        return Some(1000f64.powi(i as i32));
    }
    binary.iter().position(|u| *u == unit).map(|i| 1024f64.powi(i as i32))
}

/// How C++'s `fmt` prints a double: the shortest text, with a signed exponent from 1e16.
fn fmt_double(v: f64) -> String {
    if v.abs() >= 1e16 {
        let text = format!("{v:e}");
        match text.split_once('e') {
            Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
            _ => text,
        }
    } else {
        v.to_string()
    }
}

/// `parseReadableSize`'s reading of `text`: a number, optional whitespace and a unit
/// (`B`, `KB`..`EB`, `KiB`..`EiB`, any case), rounded up to whole bytes.
fn parse_readable_size(text: &str) -> Result<u64, ParseError> {
    let fail = |code: ErrorCode, what: String| Err((code, format!("Invalid expression for function parseReadableSize - {what}")));
    let s = text.as_bytes();
    if s.first().is_some_and(|b| b.is_ascii_whitespace()) {
        return fail(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Leading whitespace is not allowed (\"{text}\")"));
    }
    // A float as ClickHouse reads it: sign, digits, fraction, exponent; or inf/nan.
    let mut pos = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        pos += 1;
    }
    let lower = text.to_ascii_lowercase();
    let number: f64 = if lower[pos..].starts_with("inf") || lower[pos..].starts_with("nan") {
        let word = &lower[pos..pos + 3];
        return fail(ErrorCode::BAD_ARGUMENTS, format!("Invalid numeric component: {word}"));
    } else {
        let digits_start = pos;
        while pos < s.len() && s[pos].is_ascii_digit() {
            pos += 1;
        }
        let mut any = pos > digits_start;
        if pos < s.len() && s[pos] == b'.' {
            pos += 1;
            let fraction = pos;
            while pos < s.len() && s[pos].is_ascii_digit() {
                pos += 1;
            }
            any |= pos > fraction;
        }
        if !any {
            return fail(ErrorCode::CANNOT_PARSE_NUMBER, format!("Unable to parse readable size numeric component (\"{text}\")"));
        }
        if pos < s.len() && matches!(s[pos], b'e' | b'E') {
            let mut exp = pos + 1;
            if matches!(s.get(exp), Some(b'+' | b'-')) {
                exp += 1;
            }
            let exp_digits = exp;
            while exp < s.len() && s[exp].is_ascii_digit() {
                exp += 1;
            }
            if exp > exp_digits {
                pos = exp;
            }
        }
        text[..pos].parse().unwrap_or(0.0)
    };
    if number < 0.0 {
        return fail(ErrorCode::BAD_ARGUMENTS, format!("Negative sizes are not allowed ({})", fmt_double(number)));
    }
    while pos < s.len() && s[pos].is_ascii_whitespace() {
        pos += 1;
    }
    let unit_start = pos;
    while pos < s.len() && !s[pos].is_ascii_whitespace() {
        pos += 1;
    }
    let unit = lower[unit_start..pos].to_string();
    let Some(multiplier) = size_unit(&unit) else {
        return fail(ErrorCode::CANNOT_PARSE_TEXT, format!("Unknown readable size unit (\"{unit}\")"));
    };
    if pos < s.len() {
        return fail(ErrorCode::UNEXPECTED_DATA_AFTER_PARSED_VALUE, format!("Found trailing characters after readable size string (\"{text}\")"));
    }
    let bytes = (number * multiplier).ceil();
    // 2^64 itself does not fit.
    if bytes >= 18_446_744_073_709_551_616.0 {
        return fail(ErrorCode::BAD_ARGUMENTS, format!("Result is too big for output type (\"{}\")", fmt_double(bytes)));
    }
    Ok(bytes as u64)
}

/// Each row of the String argument parsed by `parse`; NULL rows stay NULL.
fn parse_rows<T: Default>(ctx: &ExecCtx, on_error: OnError, parse: impl Fn(&str) -> Result<T, ParseError>) -> DfResult<Vec<Option<T>>> {
    let input = cast(&ctx.array(0)?, &DataType::Utf8)?;
    let input = input.as_string::<i32>();
    let mut out = Vec::with_capacity(input.len());
    for row in 0..input.len() {
        if input.is_null(row) {
            out.push(None);
            continue;
        }
        match parse(input.value(row)) {
            Ok(v) => out.push(Some(v)),
            Err((code, message)) => match on_error {
                OnError::Throw => return Err(ch_error(code, message)),
                OnError::Null => out.push(None),
                OnError::Zero => out.push(Some(T::default())),
            },
        }
    }
    Ok(out)
}

fn check_string(ctx: &crate::func::RetCtx, what: &str) -> DfResult<()> {
    if !matches!(ctx.ch(0).base(), ChType::String | ChType::FixedString(_)) {
        return Err(illegal_argument(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, ctx.name, 0, what, "String", &ctx.ch(0)));
    }
    Ok(())
}

/// `parseTimeDelta(text)` / `parseISO8601Duration(text)`: seconds as Float64.
fn seconds_fn(name: &'static str, what: &'static str, parse: fn(&str) -> Result<f64, ParseError>) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            check_string(ctx, what)?;
            Ok(ChType::Float64)
        },
        move |ctx| Ok(Arc::new(Float64Array::from(parse_rows(ctx, OnError::Throw, parse)?)) as ArrayRef),
    )
    .build()
}

/// `parseReadableSize(text)` and its `OrNull`/`OrZero` forms: bytes as UInt64.
fn readable_size_fn(name: &'static str, on_error: OnError) -> ScalarUDF {
    let def = ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            check_string(ctx, "readable_size")?;
            Ok(if on_error == OnError::Null { ChType::UInt64.into_nullable() } else { ChType::UInt64 })
        },
        move |ctx| Ok(Arc::new(UInt64Array::from(parse_rows(ctx, on_error, parse_readable_size)?)) as ArrayRef),
    );
    on_error.build(def)
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        seconds_fn("parseTimeDelta", "timestr", parse_time_delta),
        seconds_fn("parseISO8601Duration", "duration", parse_iso8601_duration),
        readable_size_fn("parseReadableSize", OnError::Throw),
        readable_size_fn("parseReadableSizeOrNull", OnError::Null),
        readable_size_fn("parseReadableSizeOrZero", OnError::Zero),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_deltas_read_as_clickhouse() {
        // Values from ClickHouse (chdb).
        assert_eq!(parse_time_delta("11s+22min"), Ok(1331.0));
        assert_eq!(parse_time_delta("1yr2mo"), Ok(36_806_400.0));
        assert_eq!(parse_time_delta("1 s 2 s"), Ok(3.0));
        assert_eq!(parse_time_delta("1s  ,  2s"), Ok(3.0));
        assert!(parse_time_delta("1s 2").is_err());
        assert!(parse_time_delta("-1s").is_err());
        assert!(parse_time_delta("1S").is_err());
    }

    #[test]
    fn readable_sizes_round_up() {
        assert_eq!(parse_readable_size("1.0000000001 KiB"), Ok(1025));
        assert_eq!(parse_readable_size("0.4 B"), Ok(1));
        assert_eq!(parse_readable_size("15.999 EiB"), Ok(18_445_591_152_204_945_408));
        assert_eq!(parse_readable_size("16 EiB").map_err(|e| e.1), Err("Invalid expression for function parseReadableSize - Result is too big for output type (\"1.8446744073709552e+19\")".to_string()));
    }
}
