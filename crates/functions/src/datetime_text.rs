//! Dates and times as text: `formatDateTime` (MySQL-style `%` codes, as ClickHouse
//! prints them) and `formatDateTimeInJodaSyntax` (Joda patterns, compiled by
//! `parse_datetime`'s Joda reader), `fromUnixTimestamp` and
//! `fromUnixTimestampInJodaSyntax` (a DateTime, or formatted text with a format
//! argument), and the `parseDateTimeBestEffort` family (ISO 8601 with `T`, fractions and
//! offsets, `DD/MM/YYYY` or US `MM/DD/YYYY`, month names, RFC 2822, `YYYYMMDD[hhmmss]`
//! and Unix timestamps).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray, StringArray, StringBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, TimeUnit};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, is_integer, is_string, Arity, DfResult};
use crate::calendar::{day_name, month_name};
use crate::conversion::convert::timestamp_ticks;
use crate::datetime::{check_date_arg, optional_tz, zone_for};
use crate::func::{ExecCtx, ScalarDef};
use crate::parse_datetime::{compile_joda, JodaStep};
use crate::tz::{civil_from_days, day_of_week, days_from_civil, days_in_month, parse_tz, SessionTz, DATETIME_MAX};

/// One piece of a parsed format: text copied as is, or a `%` code.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    Code(char),
}

const CODES: &str = "abcCdDefFgGhHiIjklmMnpQrRsStTuVwWyYz%";

fn parse_format(name: &str, format: &str) -> DfResult<Vec<Piece>> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        let Some(code) = chars.next() else {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Incorrect syntax '{format}', symbol '%' at the end of the format of function {name}")));
        };
        if !CODES.contains(code) {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Incorrect syntax '{format}', symbol is not supported '{code}' for function {name}")));
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut text)));
        }
        pieces.push(Piece::Code(code));
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// Writes local time `local` (seconds) with `micros` after the second in `pieces`.
fn format_time(pieces: &[Piece], local: i64, micros: i64, offset: i64, out: &mut String) {
    use std::fmt::Write;
    let days = local.div_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let seconds_of_day = local.rem_euclid(86_400);
    let (hour, minute, second) = (seconds_of_day / 3600, seconds_of_day % 3600 / 60, seconds_of_day % 60);
    let hour12 = if hour % 12 == 0 { 12 } else { hour % 12 };
    let iso = day_of_week(days);
    for piece in pieces {
        let _ = match piece {
            Piece::Text(t) => {
                out.push_str(t);
                Ok(())
            }
            Piece::Code(c) => match c {
                'a' => write!(out, "{}", &day_name(iso)[..3]),
                'b' => write!(out, "{}", &month_name(m)[..3]),
                'c' | 'm' => write!(out, "{m:02}"),
                'C' => write!(out, "{:02}", y.div_euclid(100)),
                'd' => write!(out, "{d:02}"),
                'D' => write!(out, "{m:02}/{d:02}/{:02}", y.rem_euclid(100)),
                'e' => write!(out, "{d}"),
                'f' => write!(out, "{micros:06}"),
                'F' => write!(out, "{y:04}-{m:02}-{d:02}"),
                'g' => write!(out, "{:02}", iso_year(days).rem_euclid(100)),
                'G' => write!(out, "{:04}", iso_year(days)),
                'h' | 'I' | 'l' => write!(out, "{hour12:02}"),
                'H' | 'k' => write!(out, "{hour:02}"),
                'i' => write!(out, "{minute:02}"),
                'j' => write!(out, "{:03}", days - days_from_civil(y, 1, 1) + 1),
                'M' => write!(out, "{}", month_name(m)),
                'n' => write!(out, "\n"),
                'p' => write!(out, "{}", if hour < 12 { "AM" } else { "PM" }),
                'Q' => write!(out, "{}", (m - 1) / 3 + 1),
                'r' => write!(out, "{hour12:02}:{minute:02} {}", if hour < 12 { "AM" } else { "PM" }),
                'R' => write!(out, "{hour:02}:{minute:02}"),
                's' | 'S' => write!(out, "{second:02}"),
                't' => write!(out, "\t"),
                'T' => write!(out, "{hour:02}:{minute:02}:{second:02}"),
                'u' => write!(out, "{iso}"),
                'V' => write!(out, "{:02}", iso_week(days)),
                'w' => write!(out, "{}", iso % 7),
                'W' => write!(out, "{}", day_name(iso)),
                'y' => write!(out, "{:02}", y.rem_euclid(100)),
                'Y' => write!(out, "{y:04}"),
                'z' => write!(out, "{}{:02}{:02}", if offset < 0 { '-' } else { '+' }, offset.abs() / 3600, offset.abs() % 3600 / 60),
                _ => write!(out, "%"),
            },
        };
    }
}

/// The ISO 8601 week-numbering year and week of a day.
fn iso_week_date(days: i64) -> (i64, i64) {
    // The Thursday of the day's week decides the year.
    let thursday = days - (day_of_week(days) as i64 - 1) + 3;
    let (year, _, _) = civil_from_days(thursday);
    (year, (thursday - days_from_civil(year, 1, 1)) / 7 + 1)
}

fn iso_year(days: i64) -> i64 {
    iso_week_date(days).0
}

fn iso_week(days: i64) -> i64 {
    iso_week_date(days).1
}

/// (UTC seconds, fraction of the second in ticks, ticks per second) of a date, time or
/// Unix-time column.
fn utc_and_fraction(array: &ArrayRef, zone: &SessionTz) -> DfResult<(Vec<Option<i64>>, Vec<i64>, i64)> {
    match array.data_type() {
        DataType::Date32 => {
            let dates = array.as_primitive::<datafusion::arrow::datatypes::Date32Type>();
            Ok((dates.iter().map(|d| d.map(|d| zone.to_utc(d as i64 * 86_400))).collect(), vec![0; dates.len()], 1))
        }
        DataType::Timestamp(..) => {
            let (raw, per) = timestamp_ticks(array)?;
            let seconds = raw.iter().map(|v| v.map(|v| v.div_euclid(per))).collect();
            let fractions = raw.iter().map(|v| v.map_or(0, |v| v.rem_euclid(per))).collect();
            Ok((seconds, fractions, per))
        }
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 | DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
            let values = cast(array, &DataType::Int64)?;
            let values = values.as_primitive::<Int64Type>();
            Ok((values.iter().collect(), vec![0; values.len()], 1))
        }
        other => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{other} is not a date or time"))),
    }
}

/// A compiled format of either syntax.
enum Format {
    MySql(Vec<Piece>),
    Joda(Vec<JodaStep>),
}

/// Which syntax a formatting function reads its format in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Syntax {
    MySql,
    Joda,
}

fn compile(syntax: Syntax, name: &str, format: &str) -> DfResult<Format> {
    match syntax {
        Syntax::MySql => Ok(Format::MySql(parse_format(name, format)?)),
        Syntax::Joda => {
            let steps = compile_joda(format)?;
            for step in &steps {
                match step {
                    JodaStep::Field { letter: b'Z', .. } => {
                        return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "format is not supported for TIMEZONE_OFFSET_ID"));
                    }
                    JodaStep::Field { letter: b'z', repetitions, .. } if *repetitions <= 3 => {
                        return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "Short name time zone is not yet supported"));
                    }
                    _ => {}
                }
            }
            Ok(Format::Joda(steps))
        }
    }
}

/// Writes local time `local` (seconds) in a Joda format, field by field as ClickHouse's
/// `formatDateTimeInJodaSyntax` does: a run of `n` letters pads numbers to `n` digits,
/// `yy`/`YY` are the last two digits of the year, 3 or fewer `E`/`M`/`G` are short names,
/// `S`s are the fraction's leading digits (`fraction` ticks of `per` per second).
fn format_joda(steps: &[JodaStep], local: i64, fraction: i64, per: i64, zone_name: &str, out: &mut String) {
    use std::fmt::Write;
    let days = local.div_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let seconds_of_day = local.rem_euclid(86_400);
    let (hour, minute, second) = (seconds_of_day / 3600, seconds_of_day % 3600 / 60, seconds_of_day % 60);
    let iso = day_of_week(days);
    for step in steps {
        let (letter, n) = match step {
            JodaStep::Literal(bytes) => {
                out.push_str(&String::from_utf8_lossy(bytes));
                continue;
            }
            JodaStep::Field { letter, repetitions, .. } => (*letter, *repetitions),
        };
        let number = |out: &mut String, v: i64| {
            let _ = write!(out, "{v:0n$}");
        };
        match letter {
            b'G' => out.push_str(match (n <= 3, y > 0) {
                (true, true) => "AD",
                (true, false) => "BC",
                (false, true) => "Anno Domini",
                (false, false) => "Before Christ",
            }),
            b'C' => number(out, y.abs() / 100),
            b'Y' if n == 2 => number(out, y.abs() % 100),
            b'Y' => number(out, if y <= 0 { (y - 1).abs() } else { y }),
            b'y' if n == 2 => number(out, y.abs() % 100),
            b'y' => number(out, y),
            b'x' => number(out, iso_year(days)),
            b'w' => number(out, iso_week(days)),
            b'e' => number(out, i64::from(iso)),
            b'E' if n <= 3 => out.push_str(&day_name(iso)[..3]),
            b'E' => out.push_str(day_name(iso)),
            b'D' => number(out, days - days_from_civil(y, 1, 1) + 1),
            b'M' if n <= 2 => number(out, i64::from(m)),
            b'M' if n == 3 => out.push_str(&month_name(m)[..3]),
            b'M' => out.push_str(month_name(m)),
            b'd' => number(out, i64::from(d)),
            b'a' => out.push_str(if hour < 12 { "AM" } else { "PM" }),
            b'K' => number(out, hour % 12),
            b'h' => number(out, (hour + 11) % 12 + 1),
            b'H' => number(out, hour),
            b'k' => number(out, (hour + 23) % 24 + 1),
            b'm' => number(out, minute),
            b's' => number(out, second),
            b'S' => {
                let n = n.min(9);
                let scale = per.ilog10() as usize;
                let mut digits = if scale == 0 { String::new() } else { format!("{fraction:0scale$}") };
                digits.truncate(n);
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', n - digits.len()));
            }
            _ => out.push_str(zone_name),
        }
    }
}

/// Formats argument 0 with the constant format at `format_index` in the zone at
/// `format_index + 1` (or the value's own zone).
fn format_column(ctx: &ExecCtx, format_index: usize, syntax: Syntax) -> DfResult<ArrayRef> {
    let format = compile(syntax, ctx.name, ctx.const_str(format_index, "format")?)?;
    let zone = zone_for(ctx, 0, Some(format_index + 1))?;
    let zone_name = if ctx.args.len() > format_index + 1 {
        ctx.const_str(format_index + 1, "time zone")?.to_string()
    } else {
        match ctx.dt(0) {
            DataType::Timestamp(_, Some(tz)) => tz.to_string(),
            _ => crate::tz::server_tz_name(ctx.config),
        }
    };
    let (utc, fractions, per) = utc_and_fraction(&ctx.array(0)?, &zone)?;
    let mut builder = StringBuilder::with_capacity(utc.len(), utc.len() * 20);
    let mut text = String::new();
    for (seconds, fraction) in utc.into_iter().zip(fractions) {
        match seconds {
            None => builder.append_null(),
            Some(seconds) => {
                text.clear();
                let offset = zone.offset_at_utc(seconds);
                match &format {
                    Format::MySql(pieces) => format_time(pieces, seconds + offset, fraction * 1_000_000 / per, offset, &mut text),
                    Format::Joda(steps) => format_joda(steps, seconds + offset, fraction, per, &zone_name, &mut text),
                }
                builder.append_value(&text);
            }
        }
    }
    Ok(Arc::new(builder.finish()))
}

/// `formatDateTime(t, format[, tz])` (alias `DATE_FORMAT`) and
/// `formatDateTimeInJodaSyntax(t, format[, tz])`.
fn format_date_time(name: &'static str, syntax: Syntax) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(2, 3),
        move |ctx| {
            if syntax == Syntax::Joda && !matches!(ctx.dt(0), DataType::Date32 | DataType::Timestamp(..)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type {} of first argument of function {}. Should be a date or a date with time", ctx.ch(0), ctx.name),
                ));
            }
            check_date_arg(ctx, 0, true)?;
            if !is_string(ctx.dt(1)) {
                return Err(illegal_type(ctx.name, 1, ctx.field(1)));
            }
            let format = compile(syntax, ctx.name, ctx.const_str(1, "format")?)?;
            if matches!(ctx.dt(0), DataType::Date32) && matches!(&format, Format::MySql(pieces) if pieces.contains(&Piece::Code('z'))) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal argument of type {} for function timezoneOffset", ctx.ch(0))));
            }
            optional_tz(ctx, 2)?;
            Ok(ChType::String)
        },
        move |ctx| format_column(ctx, 1, syntax),
    )
    .build()
}

/// `fromUnixTimestamp(n[, tz])` is a DateTime; `fromUnixTimestamp(n, format[, tz])` the
/// formatted text (alias `FROM_UNIXTIME`); `fromUnixTimestampInJodaSyntax` the same
/// with a Joda format.
fn from_unix_timestamp(name: &'static str, syntax: Syntax) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 3),
        move |ctx| {
            if !is_integer(ctx.dt(0)) && !matches!(ctx.dt(0), DataType::Timestamp(..)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            if ctx.arg_count() >= 2 {
                if !is_string(ctx.dt(1)) {
                    return Err(illegal_type(ctx.name, 1, ctx.field(1)));
                }
                compile(syntax, ctx.name, ctx.const_str(1, "format")?)?;
                optional_tz(ctx, 2)?;
                return Ok(ChType::String);
            }
            Ok(ChType::DateTime(None))
        },
        move |ctx| {
            if ctx.args.len() >= 2 {
                return format_column(ctx, 1, syntax);
            }
            let values = cast(&ctx.array(0)?, &DataType::Int64)?;
            let values = values.as_primitive::<Int64Type>();
            let out: PrimitiveArray<datafusion::arrow::datatypes::TimestampSecondType> = values.unary(|v| v.clamp(0, DATETIME_MAX));
            Ok(Arc::new(out))
        },
    )
    .build()
}

/// What a best-effort parse found: local date and time, fraction, and the offset from
/// UTC when the text gave one.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Parsed {
    year: i64,
    month: u32,
    day: u32,
    hour: i64,
    minute: i64,
    second: i64,
    nanos: i64,
    offset: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
enum Token<'a> {
    Number(&'a str),
    Word(&'a str),
    Sep(char),
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let c = bytes[i];
        if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            out.push(Token::Number(&text[start..i]));
        } else if c.is_ascii_alphabetic() {
            while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                i += 1;
            }
            out.push(Token::Word(&text[start..i]));
        } else {
            let ch = text[i..].chars().next().unwrap_or(' ');
            i += ch.len_utf8();
            if !ch.is_whitespace() {
                out.push(Token::Sep(ch));
            } else if !matches!(out.last(), Some(Token::Sep(' '))) {
                out.push(Token::Sep(' '));
            }
        }
    }
    out
}

/// The month a word names: its full name or a prefix of at least three letters.
fn month_of_word(word: &str) -> Option<u32> {
    let lower = word.to_ascii_lowercase();
    if lower.len() < 3 {
        return None;
    }
    (1..=12).find(|&m| month_name(m).to_ascii_lowercase().starts_with(&lower))
}

fn is_weekday_word(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].iter().any(|d| lower.starts_with(d)) && lower.len() <= 9
}

/// Parses the date and time in `text` as ClickHouse's best-effort parser would;
/// `us`: an ambiguous `a/b/yyyy` is month/day.
fn parse_best_effort(text: &str, us: bool) -> Option<Parsed> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        let digits = |range: std::ops::Range<usize>| text.get(range).and_then(|s| s.parse::<i64>().ok());
        return match text.len() {
            8 => Some(Parsed { year: digits(0..4)?, month: digits(4..6)? as u32, day: digits(6..8)? as u32, ..Parsed::default() }),
            12 | 14 => Some(Parsed {
                year: digits(0..4)?,
                month: digits(4..6)? as u32,
                day: digits(6..8)? as u32,
                hour: digits(8..10)?,
                minute: digits(10..12)?,
                second: if text.len() == 14 { digits(12..14)? } else { 0 },
                ..Parsed::default()
            }),
            // Anything else all-digit is a Unix timestamp.
            _ => {
                let seconds: i64 = text.parse().ok()?;
                let days = seconds.div_euclid(86_400);
                let (year, month, day) = civil_from_days(days);
                let s = seconds.rem_euclid(86_400);
                Some(Parsed { year, month, day, hour: s / 3600, minute: s % 3600 / 60, second: s % 60, offset: Some(0), ..Parsed::default() })
            }
        };
    }
    let tokens = tokens(text);
    let mut p = Parsed::default();
    let mut i = 0;
    fn number<'a>(t: Option<&Token<'a>>) -> Option<&'a str> {
        match t {
            Some(Token::Number(n)) => Some(*n),
            _ => None,
        }
    }
    let skip_spaces = |i: &mut usize| {
        while matches!(tokens.get(*i), Some(Token::Sep(' ' | ','))) {
            *i += 1;
        }
    };
    // A leading weekday name ("Mon, 15 Jul 2024").
    if let Some(Token::Word(w)) = tokens.first() {
        if is_weekday_word(w) && month_of_word(w).is_none() {
            i += 1;
            skip_spaces(&mut i);
        }
    }
    // The date.
    let mut have_date = false;
    match (tokens.get(i), tokens.get(i + 1), tokens.get(i + 2), tokens.get(i + 3), tokens.get(i + 4)) {
        (Some(Token::Number(y)), Some(Token::Sep(s1 @ ('-' | '/' | '.'))), Some(Token::Number(m)), rest, day) if y.len() == 4 => {
            p.year = y.parse().ok()?;
            p.month = m.parse().ok()?;
            p.day = 1;
            i += 3;
            if let (Some(Token::Sep(s2)), Some(Token::Number(d))) = (rest, day) {
                if s2 == s1 {
                    p.day = d.parse().ok()?;
                    i += 2;
                }
            }
            have_date = true;
        }
        (Some(Token::Number(a)), Some(Token::Sep(s1 @ ('-' | '/' | '.'))), Some(Token::Number(b)), Some(Token::Sep(s2)), Some(Token::Number(y))) if s1 == s2 && a.len() <= 2 && b.len() <= 2 => {
            let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
            let year: i64 = y.parse().ok()?;
            p.year = if y.len() == 2 { 2000 + year } else { year };
            (p.month, p.day) = if a > 12 || (!us && b <= 12) { (b, a) } else { (a, b) };
            i += 5;
            have_date = true;
        }
        (Some(Token::Number(d)), sep, _, _, _) if d.len() <= 2 && {
            let next = if matches!(sep, Some(Token::Sep(' ' | '-'))) { tokens.get(i + 2) } else { sep };
            matches!(next, Some(Token::Word(w)) if month_of_word(w).is_some())
        } =>
        {
            p.day = d.parse().ok()?;
            i += 1;
            if matches!(tokens.get(i), Some(Token::Sep(' ' | '-'))) {
                i += 1;
            }
            let Some(Token::Word(w)) = tokens.get(i) else { return None };
            p.month = month_of_word(w)?;
            i += 1;
            if matches!(tokens.get(i), Some(Token::Sep(' ' | '-' | ','))) {
                i += 1;
            }
            p.year = number(tokens.get(i))?.parse().ok()?;
            i += 1;
            have_date = true;
        }
        (Some(Token::Word(w)), _, _, _, _) if month_of_word(w).is_some() => {
            p.month = month_of_word(w)?;
            i += 1;
            skip_spaces(&mut i);
            let first = number(tokens.get(i))?;
            i += 1;
            if first.len() == 4 {
                p.year = first.parse().ok()?;
                p.day = 1;
            } else {
                p.day = first.parse().ok()?;
                skip_spaces(&mut i);
                p.year = number(tokens.get(i))?.parse().ok()?;
                i += 1;
            }
            have_date = true;
        }
        _ => {}
    }
    if !have_date {
        return None;
    }
    // The time, after `T` or spaces.
    skip_spaces(&mut i);
    if matches!(tokens.get(i), Some(Token::Word(w)) if w.eq_ignore_ascii_case("T")) {
        i += 1;
    }
    if let (Some(Token::Number(h)), Some(Token::Sep(':')), Some(Token::Number(m))) = (tokens.get(i), tokens.get(i + 1), tokens.get(i + 2)) {
        p.hour = h.parse().ok()?;
        p.minute = m.parse().ok()?;
        i += 3;
        if let (Some(Token::Sep(':')), Some(Token::Number(s))) = (tokens.get(i), tokens.get(i + 1)) {
            p.second = s.parse().ok()?;
            i += 2;
            if let (Some(Token::Sep('.' | ',')), Some(Token::Number(f))) = (tokens.get(i), tokens.get(i + 1)) {
                let digits: String = f.chars().take(9).collect();
                p.nanos = format!("{digits:0<9}").parse().ok()?;
                i += 2;
            }
        }
        skip_spaces(&mut i);
        if let Some(Token::Word(w)) = tokens.get(i) {
            let pm = w.eq_ignore_ascii_case("PM");
            if pm || w.eq_ignore_ascii_case("AM") {
                if p.hour == 12 {
                    p.hour = 0;
                }
                if pm {
                    p.hour += 12;
                }
                i += 1;
            }
        }
    }
    // The zone.
    skip_spaces(&mut i);
    match tokens.get(i) {
        Some(Token::Word(w)) if ["Z", "UTC", "GMT", "UT"].iter().any(|z| w.eq_ignore_ascii_case(z)) => {
            p.offset = Some(0);
            i += 1;
            if let (Some(Token::Sep(sign @ ('+' | '-'))), Some(Token::Number(n))) = (tokens.get(i), tokens.get(i + 1)) {
                p.offset = Some(offset_of(*sign, n, tokens.get(i + 2), tokens.get(i + 3))?.0);
                i += offset_of(*sign, n, tokens.get(i + 2), tokens.get(i + 3))?.1;
            }
        }
        Some(Token::Sep(sign @ ('+' | '-'))) => {
            let n = number(tokens.get(i + 1))?;
            let (offset, used) = offset_of(*sign, n, tokens.get(i + 2), tokens.get(i + 3))?;
            p.offset = Some(offset);
            i += used;
        }
        _ => {}
    }
    skip_spaces(&mut i);
    if i < tokens.len() {
        return None;
    }
    let valid = (1..=12).contains(&p.month)
        && p.day >= 1
        && p.day <= days_in_month(p.year, p.month)
        && (0..24).contains(&p.hour)
        && (0..60).contains(&p.minute)
        && (0..=60).contains(&p.second);
    valid.then_some(p)
}

/// (offset in seconds, tokens used after the sign) of `+hh`, `+hhmm`, `+hh:mm`.
fn offset_of(sign: char, number: &str, colon: Option<&Token>, minutes: Option<&Token>) -> Option<(i64, usize)> {
    let sign = if sign == '-' { -1 } else { 1 };
    let (hours, mins, used) = match (number.len(), colon, minutes) {
        (1 | 2, Some(Token::Sep(':')), Some(Token::Number(m))) => (number.parse::<i64>().ok()?, m.parse::<i64>().ok()?, 4),
        (1 | 2, _, _) => (number.parse::<i64>().ok()?, 0, 2),
        (4, _, _) => (number[..2].parse::<i64>().ok()?, number[2..].parse::<i64>().ok()?, 2),
        _ => return None,
    };
    Some((sign * (hours * 3600 + mins * 60), used))
}

/// UTC (seconds, nanoseconds) of a parse, its local time read in `zone` when the text
/// gave no offset.
fn to_utc(p: &Parsed, zone: &SessionTz) -> i64 {
    let local = days_from_civil(p.year, p.month, p.day) * 86_400 + p.hour * 3600 + p.minute * 60 + p.second;
    match p.offset {
        Some(offset) => local - offset,
        None => zone.to_utc(local),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum OnError {
    Throw,
    Null,
    Zero,
}

/// `parseDateTime[64]BestEffort[US][OrNull|OrZero](s[, precision][, tz])`.
fn parse_best_effort_fn(name: &'static str, precision: Option<u8>, us: bool, on_error: OnError) -> ScalarUDF {
    let tz_index = if precision.is_some() { 2 } else { 1 };
    let def = ScalarDef::new(
        name,
        Arity::range(1, tz_index + 1),
        move |ctx| {
            if !is_string(ctx.dt(0)) && !matches!(ctx.dt(0), DataType::FixedSizeBinary(_)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            let zone = optional_tz(ctx, tz_index)?;
            let t = match precision {
                Some(default) => {
                    let p = if ctx.arg_count() > 1 { ctx.const_int(1, "precision")?.clamp(0, 9) as u8 } else { default };
                    ChType::DateTime64(p, zone)
                }
                None => ChType::DateTime(zone),
            };
            Ok(if on_error == OnError::Null { ChType::Nullable(Box::new(t)) } else { t })
        },
        move |ctx| {
            let zone = if ctx.args.len() > tz_index { parse_tz(ctx.const_str(tz_index, "time zone")?)? } else { ctx.session_tz()? };
            let input = cast(&ctx.array(0)?, &DataType::Utf8)?;
            let input: &StringArray = input.as_string::<i32>();
            let scale = match ctx.ret_type() {
                DataType::Timestamp(TimeUnit::Second, _) => 0,
                DataType::Timestamp(TimeUnit::Millisecond, _) => 3,
                DataType::Timestamp(TimeUnit::Microsecond, _) => 6,
                _ => 9,
            };
            let per = 10i64.pow(scale);
            let mut values: Vec<Option<i64>> = Vec::with_capacity(input.len());
            for text in input.iter() {
                let Some(text) = text else {
                    values.push(None);
                    continue;
                };
                match parse_best_effort(text, us) {
                    Some(parsed) => {
                        let seconds = to_utc(&parsed, &zone);
                        let seconds = if precision.is_some() { seconds } else { seconds.clamp(0, DATETIME_MAX) };
                        values.push(Some(seconds * per + parsed.nanos / (1_000_000_000 / per)));
                    }
                    None => match on_error {
                        OnError::Null => values.push(None),
                        OnError::Zero => values.push(Some(0)),
                        OnError::Throw => {
                            return Err(ch_error(ErrorCode::CANNOT_PARSE_DATETIME, format!("Cannot read DateTime: unexpected text '{text}' for function {}", ctx.name)));
                        }
                    },
                }
            }
            let raw = PrimitiveArray::<Int64Type>::from(values);
            let data = raw.into_data().into_builder().data_type(ctx.ret_type().clone()).build()?;
            Ok(datafusion::arrow::array::make_array(data))
        },
    );
    if on_error == OnError::Null {
        def.custom_nulls().build()
    } else {
        def.build()
    }
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    let mut out = vec![
        format_date_time("formatDateTime", Syntax::MySql),
        format_date_time("formatDateTimeInJodaSyntax", Syntax::Joda),
        from_unix_timestamp("fromUnixTimestamp", Syntax::MySql),
        from_unix_timestamp("fromUnixTimestampInJodaSyntax", Syntax::Joda),
    ];
    for (suffix, on_error) in [("", OnError::Throw), ("OrNull", OnError::Null), ("OrZero", OnError::Zero)] {
        for (us, us_suffix) in [(false, ""), (true, "US")] {
            let name = |base: &str| -> &'static str { Box::leak(format!("{base}{us_suffix}{suffix}").into_boxed_str()) };
            out.push(parse_best_effort_fn(name("parseDateTimeBestEffort"), None, us, on_error));
            out.push(parse_best_effort_fn(name("parseDateTime64BestEffort"), Some(3), us, on_error));
        }
        out.push(parse_best_effort_fn(Box::leak(format!("parseDateTime32BestEffort{suffix}").into_boxed_str()), None, false, on_error));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Option<(i64, u32, u32, i64, i64, i64, Option<i64>)> {
        parse_best_effort(text, false).map(|p| (p.year, p.month, p.day, p.hour, p.minute, p.second, p.offset))
    }

    #[test]
    fn best_effort_forms() {
        assert_eq!(parsed("2024-07-15T12:30:45Z"), Some((2024, 7, 15, 12, 30, 45, Some(0))));
        assert_eq!(parsed("2024-07-15 12:30:45.123+02:00"), Some((2024, 7, 15, 12, 30, 45, Some(7200))));
        assert_eq!(parsed("15/07/2024 12:30"), Some((2024, 7, 15, 12, 30, 0, None)));
        assert_eq!(parsed("07/15/2024"), Some((2024, 7, 15, 0, 0, 0, None)));
        assert_eq!(parsed("Mon, 15 Jul 2024 12:30:45 GMT"), Some((2024, 7, 15, 12, 30, 45, Some(0))));
        assert_eq!(parsed("Jul 15 2024"), Some((2024, 7, 15, 0, 0, 0, None)));
        assert_eq!(parsed("15 July 2024"), Some((2024, 7, 15, 0, 0, 0, None)));
        assert_eq!(parsed("20240715"), Some((2024, 7, 15, 0, 0, 0, None)));
        assert_eq!(parsed("2024-07"), Some((2024, 7, 1, 0, 0, 0, None)));
        assert_eq!(parsed("2024-07-15T12:30:45.5-0500"), Some((2024, 7, 15, 12, 30, 45, Some(-18000))));
        assert_eq!(parsed("1721046645"), Some((2024, 7, 15, 12, 30, 45, Some(0))));
        assert_eq!(parsed("garbage"), None);
        assert_eq!(parsed("2024-13-01"), None);
        assert_eq!(parse_best_effort("07/08/2024", true).map(|p| (p.month, p.day)), Some((7, 8)));
    }

    #[test]
    fn formats_like_clickhouse() {
        let pieces = parse_format("formatDateTime", "%a %b %c %C %d %D %e %F %g %G %h %H %i %I %j %k %l %m %M %p %Q %r %R %S %T %u %V %w %W %y %Y %z %% %f").unwrap();
        let local = days_from_civil(2024, 7, 5) * 86_400 + 9 * 3600 + 3 * 60 + 7;
        let mut out = String::new();
        format_time(&pieces, local, 0, 0, &mut out);
        assert_eq!(out, "Fri Jul 07 20 05 07/05/24 5 2024-07-05 24 2024 09 09 03 09 187 09 09 07 July AM 3 09:03 AM 09:03 07 09:03:07 5 27 5 Friday 24 2024 +0000 % 000000");
        assert!(parse_format("formatDateTime", "%A").is_err());
    }
}
