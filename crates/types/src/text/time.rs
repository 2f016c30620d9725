//! `Time` and `Time64(p)` text: a signed duration `[-]H:MM:SS[.fff]` of at most
//! 999:59:59.999999999, not a time of day (ClickHouse allows negative values and more
//! than 24 hours).
//!
//! Values are carried as signed nanoseconds here; the Arrow column holds seconds
//! (`Time`), microseconds (`Time64(0..=6)`) or nanoseconds (`Time64(7..=9)`).

use granary_common::{Error, ErrorCode, Result};

use super::escape::shorten;

/// The largest magnitude of a `Time` in seconds (999:59:59): values beyond are clamped
/// on conversion and printed as the bound.
pub const TIME_MAX_SECONDS: i64 = 3_599_999;

const NANOS: i64 = 1_000_000_000;

/// The largest magnitude of a `Time64(precision)` in nanoseconds, fraction included.
pub fn max_nanos(precision: u32) -> i64 {
    let step = 10i64.pow(9 - precision.min(9));
    TIME_MAX_SECONDS * NANOS + (NANOS - step)
}

/// Parses `[-]H{1,3}:MM:SS[.f]`, `MM:SS[.f]` or `SS[.f]` as ClickHouse's `Time`/`Time64`
/// do: minutes and seconds of two digits may exceed 59 and carry; digits past
/// `precision` are cut (`None`: a `Time`, which takes no fraction at all). Returns signed
/// nanoseconds, clamped to the type's range.
pub fn parse_time(text: &[u8], precision: Option<u8>, type_name: &str) -> Result<i64> {
    let fraction_allowed = precision.is_some();
    let precision = precision.map_or(0, |p| u32::from(p.min(9)));
    if text.is_empty() {
        return Err(Error::new(ErrorCode::CANNOT_PARSE_DATETIME, format!("Cannot parse time from empty string: Cannot parse {type_name} from String")));
    }
    let negative = text[0] == b'-';
    let start = usize::from(negative);
    if !text.get(start).is_some_and(u8::is_ascii_digit) {
        return Err(Error::new(ErrorCode::CANNOT_PARSE_DATETIME, format!("Cannot parse time: invalid first character: Cannot parse {type_name} from String")));
    }
    let syntax = |at: usize| {
        let at = at.min(text.len());
        Error::new(
            ErrorCode::CANNOT_PARSE_TEXT,
            format!("Cannot parse string '{}' as {type_name}: syntax error at position {at} (parsed just '{}')", shorten(text), shorten(&text[..at])),
        )
    };
    // Up to three groups of digits separated by ':' (the first of up to 3 digits when
    // it is the hours, else 2), then an optional fraction.
    let mut groups: Vec<i64> = Vec::with_capacity(3);
    let mut pos = start;
    loop {
        let begin = pos;
        while pos < text.len() && text[pos].is_ascii_digit() && pos - begin < 3 {
            pos += 1;
        }
        let digits = &text[begin..pos];
        if digits.is_empty() {
            return Err(syntax(pos));
        }
        groups.push(digits.iter().fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0')));
        if groups.len() < 3 && text.get(pos) == Some(&b':') {
            pos += 1;
            continue;
        }
        break;
    }
    // Only the hours may have three digits; a three-digit last group is an error at its
    // third digit, as in ClickHouse (`'3600'` parses just `36`).
    let last_len = {
        let mut n = 0;
        while n < pos && text[pos - 1 - n].is_ascii_digit() {
            n += 1;
        }
        n
    };
    let hours_group = groups.len() == 3;
    if last_len > 2 || (!hours_group && groups.len() > 1 && digits_of_first_group(text, start) > 2) {
        return Err(syntax(pos - last_len + 2));
    }
    if negative && !hours_group {
        return Err(Error::new(ErrorCode::CANNOT_PARSE_DATETIME, format!("Cannot parse time: invalid first character: Cannot parse {type_name} from String")));
    }
    let seconds = match groups.as_slice() {
        [h, m, s] => h * 3600 + m * 60 + s,
        [m, s] => m * 60 + s,
        [s] => *s,
        _ => return Err(syntax(pos)),
    };
    let mut fraction = 0i64;
    if text.get(pos) == Some(&b'.') && fraction_allowed {
        pos += 1;
        let begin = pos;
        while pos < text.len() && text[pos].is_ascii_digit() {
            let digit = pos - begin;
            if digit < 9 {
                fraction += i64::from(text[pos] - b'0') * 10i64.pow(8 - digit as u32);
            }
            pos += 1;
        }
        if pos == begin {
            return Err(syntax(pos));
        }
        let step = 10i64.pow(9 - precision.min(9));
        fraction = fraction / step * step;
    }
    if pos != text.len() {
        return Err(syntax(pos));
    }
    let magnitude = (seconds.min(TIME_MAX_SECONDS + 1) * NANOS + fraction).min(max_nanos(precision));
    Ok(if negative { -magnitude } else { magnitude })
}

fn digits_of_first_group(text: &[u8], start: usize) -> usize {
    text[start..].iter().take_while(|b| b.is_ascii_digit()).count()
}

/// Writes signed nanoseconds as `[-]HH:MM:SS[.f]` with `precision` fraction digits,
/// clamped to the type's range as ClickHouse prints out-of-range values.
pub fn write_time(nanos: i64, precision: u32, out: &mut Vec<u8>) {
    let magnitude = nanos.unsigned_abs().min(max_nanos(precision) as u64);
    if nanos < 0 {
        out.push(b'-');
    }
    let seconds = magnitude / NANOS as u64;
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h < 10 {
        out.push(b'0');
    }
    out.extend_from_slice(itoa::Buffer::new().format(h).as_bytes());
    out.extend_from_slice(&[b':', b'0' + (m / 10) as u8, b'0' + (m % 10) as u8, b':', b'0' + (s / 10) as u8, b'0' + (s % 10) as u8]);
    if precision > 0 {
        let precision = precision.min(9);
        let fraction = magnitude % NANOS as u64 / 10u64.pow(9 - precision);
        out.push(b'.');
        let digits = itoa::Buffer::new().format(fraction).to_string();
        out.extend(std::iter::repeat_n(b'0', precision as usize - digits.len()));
        out.extend_from_slice(digits.as_bytes());
    }
}

/// Arrow units per second of a `Time` (`None`) or `Time64(p)` column.
pub fn units_per_second(precision: Option<u8>) -> i64 {
    match precision {
        None => 1,
        Some(0..=6) => 1_000_000,
        Some(_) => NANOS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str, precision: u32) -> String {
        let digits = (precision > 0).then_some(precision as u8);
        match parse_time(text.as_bytes(), digits, "Time") {
            Ok(n) => {
                let mut out = Vec::new();
                write_time(n, precision, &mut out);
                String::from_utf8(out).unwrap()
            }
            Err(e) => format!("error {}", e.code().number()),
        }
    }

    #[test]
    fn parses_and_prints_as_clickhouse() {
        assert_eq!(show("12:34:56", 0), "12:34:56");
        assert_eq!(show("1:02:03", 0), "01:02:03");
        assert_eq!(show("-01:02:03", 0), "-01:02:03");
        assert_eq!(show("999:59:59", 0), "999:59:59");
        assert_eq!(show("12:34", 0), "00:12:34");
        assert_eq!(show("12", 0), "00:00:12");
        assert_eq!(show("12:60", 0), "00:13:00");
        assert_eq!(show("1:99:00", 0), "02:39:00");
        assert_eq!(show("1:02:03.123456789", 3), "01:02:03.123");
        assert_eq!(show("1:02:03.1", 6), "01:02:03.100000");
        assert_eq!(show("03.5", 3), "00:00:03.500");
        assert_eq!(show("5", 2), "00:00:05.00");
        assert_eq!(parse_time(b"01:00:00.5", Some(0), "Time64(0)").ok(), Some(3600 * NANOS));
        assert_eq!(show("3600", 0), "error 6");
        assert_eq!(show("1000:00:00", 0), "error 6");
        assert_eq!(show("12:34:56.7", 0), "error 6");
        assert_eq!(show("1:02:03 ", 0), "error 6");
        assert_eq!(show(" 12:34:56", 0), "error 41");
        assert_eq!(show("-5", 0), "error 41");
        assert_eq!(show("100:0", 0), "error 6");
        assert_eq!(show("", 0), "error 41");
    }

    #[test]
    fn prints_out_of_range_values_as_the_bound() {
        let mut out = Vec::new();
        write_time(3_600_000 * NANOS, 0, &mut out);
        assert_eq!(out, b"999:59:59");
        out.clear();
        write_time(-(3_600_000 * NANOS), 3, &mut out);
        assert_eq!(out, b"-999:59:59.999");
    }
}
