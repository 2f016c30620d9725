//! ClickHouse's text parsing rules for conversions from `String`.
//!
//! ClickHouse is strict about the shape of a number (no spaces, no hex, no exponent
//! for integers) but lenient about its size (`toUInt8('300')` wraps to 44) and about
//! calendar values (`toDate('2024-02-30')` is 2024-03-01; a month of 13 gives the
//! type's zero date). The functions here return what was read or *why* it could not be
//! read; callers turn that into an error, a zero or a NULL (`...OrZero`/`...OrNull`).

use datafusion::arrow::datatypes::i256;
use granary_common::ErrorCode;

use crate::tz::days_from_civil;

/// Why a text value could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParseFail {
    /// Empty input (ClickHouse: ATTEMPT_TO_READ_AFTER_EOF).
    Empty,
    /// Nothing readable at the start.
    AtBegin,
    /// A value was read, then unexpected text at this byte position.
    Trailing(usize),
    /// A minus sign for an unsigned type.
    Negative,
    /// Out of the type's range (only the OrNull/OrZero variants care).
    Overflow,
    /// Not a date at all.
    NotDate,
}

impl ParseFail {
    /// The ClickHouse error for this failure when converting `text` to `type_name`.
    pub fn to_error(self, text: &str, type_name: &str, func: &str) -> datafusion::common::DataFusionError {
        use crate::args::ch_error;
        let note = if func.is_empty() {
            String::new()
        } else {
            format!(". Note: there are {func}OrZero and {func}OrNull functions, which returns zero/NULL instead of throwing exception")
        };
        match self {
            ParseFail::Empty => ch_error(
                ErrorCode::ATTEMPT_TO_READ_AFTER_EOF,
                format!("Attempt to read after eof: Cannot parse {type_name} from String, because value is too short"),
            ),
            ParseFail::AtBegin | ParseFail::Overflow => ch_error(
                ErrorCode::CANNOT_PARSE_TEXT,
                format!("Cannot parse string '{text}' as {type_name}: syntax error at begin of string{note}"),
            ),
            ParseFail::Trailing(pos) => ch_error(
                ErrorCode::CANNOT_PARSE_TEXT,
                format!(
                    "Cannot parse string '{text}' as {type_name}: syntax error at position {pos} (parsed just '{}'){note}",
                    text.get(..pos).unwrap_or(text)
                ),
            ),
            ParseFail::Negative => ch_error(
                ErrorCode::CANNOT_PARSE_NUMBER,
                format!("Unsigned type must not contain '-' symbol: Cannot parse {type_name} from String"),
            ),
            ParseFail::NotDate => ch_error(
                ErrorCode::CANNOT_PARSE_DATE,
                format!("Cannot parse date: expected a date in the YYYY-MM-DD or YYYYMMDD format: Cannot parse {type_name} from String"),
            ),
        }
    }
}

/// Reads an integer: optional sign, then decimal digits, nothing else.
/// Returns the value wrapped into 128 bits (callers truncate to the target width,
/// as ClickHouse does) and whether it fit `[min, max]`.
pub(crate) fn parse_int(text: &str, unsigned: bool, min: i128, max: i128) -> Result<(i128, bool), ParseFail> {
    let bytes = text.as_bytes();
    if bytes.is_empty() {
        return Err(ParseFail::Empty);
    }
    let (negative, start) = match bytes[0] {
        b'-' => (true, 1),
        b'+' => (false, 1),
        _ => (false, 0),
    };
    if negative && unsigned {
        return Err(ParseFail::Negative);
    }
    let mut value: i128 = 0;
    let mut overflow = false;
    let mut i = start;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        let digit = (bytes[i] - b'0') as i128;
        let next = value.checked_mul(10).and_then(|v| v.checked_add(digit));
        match next {
            Some(v) => value = v,
            None => {
                overflow = true;
                value = value.wrapping_mul(10).wrapping_add(digit);
            }
        }
        i += 1;
    }
    if i == start {
        return Err(if i >= bytes.len() { ParseFail::Empty } else { ParseFail::AtBegin });
    }
    if i < bytes.len() {
        return Err(ParseFail::Trailing(i));
    }
    let value = if negative { value.wrapping_neg() } else { value };
    Ok((value, !overflow && value >= min && value <= max))
}

/// Reads a float the way ClickHouse does: decimal or exponent notation, `inf`, `nan`;
/// no spaces, no hex.
pub(crate) fn parse_float(text: &str) -> Result<f64, ParseFail> {
    if text.is_empty() {
        return Err(ParseFail::Empty);
    }
    let first = text.as_bytes()[0];
    if !(first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'.' | b'i' | b'I' | b'n' | b'N')) {
        return Err(ParseFail::AtBegin);
    }
    text.parse::<f64>().map_err(|_| {
        let valid = text
            .char_indices()
            .take_while(|(_, c)| c.is_ascii_digit() || matches!(c, '.' | '-' | '+'))
            .count();
        if valid == 0 {
            ParseFail::AtBegin
        } else {
            ParseFail::Trailing(valid)
        }
    })
}

/// A date read from text. `days: None` means the numbers were not a calendar date
/// (month 13, day 0): ClickHouse then yields the type's zero date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DateText {
    pub days: Option<i64>,
    /// Bytes consumed.
    pub end: usize,
}

fn read_digits(bytes: &[u8], start: usize, max: usize) -> (u32, usize) {
    let mut v = 0u32;
    let mut i = start;
    while i < bytes.len() && i - start < max && bytes[i].is_ascii_digit() {
        v = v * 10 + (bytes[i] - b'0') as u32;
        i += 1;
    }
    (v, i)
}

fn civil_days(y: i64, m: u32, d: u32) -> Option<i64> {
    // ClickHouse accepts day 1..=31 in any month and lets it run into the next month.
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some(days_from_civil(y, m, 1) + d as i64 - 1)
}

/// Reads `YYYY-MM-DD` (any one-byte separator, 1–2 digit month and day) or `YYYYMMDD`.
pub(crate) fn read_date(text: &str) -> Result<DateText, ParseFail> {
    let b = text.as_bytes();
    if b.is_empty() {
        return Err(ParseFail::NotDate);
    }
    let (year, i) = read_digits(b, 0, 4);
    if i != 4 {
        return Err(ParseFail::NotDate);
    }
    if b.len() >= 8 && b[4..8].iter().all(u8::is_ascii_digit) {
        // YYYYMMDD
        let (m, _) = read_digits(b, 4, 2);
        let (d, end) = read_digits(b, 6, 2);
        return Ok(DateText { days: civil_days(year as i64, m, d), end });
    }
    if i >= b.len() || b[i].is_ascii_digit() {
        return Err(ParseFail::NotDate);
    }
    let (m, j) = read_digits(b, i + 1, 2);
    if j == i + 1 || j >= b.len() || b[j].is_ascii_digit() {
        return Err(ParseFail::NotDate);
    }
    let (d, k) = read_digits(b, j + 1, 2);
    if k == j + 1 {
        return Err(ParseFail::NotDate);
    }
    Ok(DateText { days: civil_days(year as i64, m, d), end: k })
}

/// Reads a whole `Date` value: a date, optionally followed by a time part that is
/// ignored (`2024-01-01 10:00:00`, `2024-01-01T10:00:00`).
pub(crate) fn parse_date(text: &str) -> Result<Option<i64>, ParseFail> {
    let date = read_date(text)?;
    let rest = &text.as_bytes()[date.end..];
    if rest.is_empty() {
        return Ok(date.days);
    }
    if matches!(rest[0], b' ' | b'T') && rest.len() > 1 && rest[1].is_ascii_digit() {
        // The time part is parsed for its shape only.
        return match parse_time_tail(text, date.end) {
            Ok(_) => Ok(date.days),
            Err(e) => Err(e),
        };
    }
    Err(ParseFail::Trailing(date.end))
}

/// A date-time read from text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DateTimeText {
    /// Local wall-clock time: days since epoch (None: not a calendar date), seconds
    /// of the day, nanoseconds, and an explicit UTC offset if the text had one.
    Civil { days: Option<i64>, secs: i64, nanos: u32, offset: Option<i64> },
    /// The text was a plain number: a Unix timestamp.
    Unix(i64),
}

struct TimeTail {
    secs: i64,
    nanos: u32,
    offset: Option<i64>,
}

fn parse_time_tail(text: &str, start: usize) -> Result<TimeTail, ParseFail> {
    let b = text.as_bytes();
    let mut i = start + 1; // the ' ' or 'T'
    let (h, j) = read_digits(b, i, 2);
    if j == i {
        return Err(ParseFail::Trailing(start));
    }
    i = j;
    let mut m = 0;
    let mut s = 0;
    let mut nanos = 0u32;
    if i < b.len() && b[i] == b':' {
        let (v, j) = read_digits(b, i + 1, 2);
        if j == i + 1 {
            return Err(ParseFail::Trailing(i));
        }
        m = v;
        i = j;
        if i < b.len() && b[i] == b':' {
            let (v, j) = read_digits(b, i + 1, 2);
            if j == i + 1 {
                return Err(ParseFail::Trailing(i));
            }
            s = v;
            i = j;
        }
    }
    if i < b.len() && b[i] == b'.' {
        let mut scale = 100_000_000u32;
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            nanos += (b[i] - b'0') as u32 * scale;
            scale /= 10;
            i += 1;
        }
    }
    let mut offset = None;
    if i < b.len() && b[i] == b'Z' {
        offset = Some(0);
        i += 1;
    } else if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        let sign = if b[i] == b'-' { -1 } else { 1 };
        let (oh, j) = read_digits(b, i + 1, 2);
        if j != i + 3 {
            return Err(ParseFail::Trailing(i));
        }
        let mut k = j;
        if k < b.len() && b[k] == b':' {
            k += 1;
        }
        let (om, l) = read_digits(b, k, 2);
        let om = if l == k + 2 { om } else { 0 };
        i = if l == k + 2 { l } else { j };
        offset = Some(sign * (oh as i64 * 3600 + om as i64 * 60));
    }
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    if i < b.len() {
        return Err(ParseFail::Trailing(i));
    }
    Ok(TimeTail { secs: h as i64 * 3600 + m as i64 * 60 + s as i64, nanos, offset })
}

/// Reads a `DateTime`/`DateTime64` value in ClickHouse's basic format.
pub(crate) fn parse_datetime(text: &str) -> Result<DateTimeText, ParseFail> {
    let b = text.as_bytes();
    if b.is_empty() {
        return Err(ParseFail::Empty);
    }
    if b.iter().all(u8::is_ascii_digit) {
        // ClickHouse reads a plain number (even an 8-digit one) as a Unix timestamp.
        let mut v: i64 = 0;
        for d in b {
            v = v.saturating_mul(10).saturating_add((d - b'0') as i64);
        }
        return Ok(DateTimeText::Unix(v));
    }
    let date = read_date(text).map_err(|_| ParseFail::AtBegin)?;
    let rest = &b[date.end..];
    if rest.is_empty() {
        return Ok(DateTimeText::Civil { days: date.days, secs: 0, nanos: 0, offset: None });
    }
    if !matches!(rest[0], b' ' | b'T') {
        return Err(ParseFail::Trailing(date.end));
    }
    if rest.iter().all(|c| *c == b' ') {
        return Ok(DateTimeText::Civil { days: date.days, secs: 0, nanos: 0, offset: None });
    }
    let tail = parse_time_tail(text, date.end)?;
    Ok(DateTimeText::Civil { days: date.days, secs: tail.secs, nanos: tail.nanos, offset: tail.offset })
}

/// Reads a decimal number into an integer scaled by `10^scale`, truncating extra
/// fraction digits (ClickHouse truncates: `toDecimal64('3.14159', 3)` is 3.141).
/// Accepts an exponent (`1.5e1`). Returns `Overflow` past 38 digits.
pub(crate) fn parse_decimal(text: &str, scale: u8) -> Result<i128, ParseFail> {
    let (negative, digits, shift) = decimal_digits(text, scale)?;
    let mut value: i128 = 0;
    for d in digits {
        value = value.checked_mul(10).and_then(|v| v.checked_add(d as i128)).ok_or(ParseFail::Overflow)?;
    }
    for _ in 0..shift {
        value = value.checked_mul(10).ok_or(ParseFail::Overflow)?;
    }
    Ok(if negative { -value } else { value })
}

/// [`parse_decimal`] for `Decimal256` (up to 76 digits).
pub(crate) fn parse_decimal256(text: &str, scale: u8) -> Result<i256, ParseFail> {
    let (negative, digits, shift) = decimal_digits(text, scale)?;
    let ten = i256::from_i128(10);
    let mut value = i256::ZERO;
    for d in digits {
        value = value.checked_mul(ten).and_then(|v| v.checked_add(i256::from_i128(d as i128))).ok_or(ParseFail::Overflow)?;
    }
    for _ in 0..shift {
        value = value.checked_mul(ten).ok_or(ParseFail::Overflow)?;
    }
    Ok(if negative { value.wrapping_neg() } else { value })
}

/// The sign of a decimal number, the digits kept at `scale` (fraction digits past it
/// dropped) and how many zeros follow them.
fn decimal_digits(text: &str, scale: u8) -> Result<(bool, Vec<u8>, u64), ParseFail> {
    let b = text.as_bytes();
    if b.is_empty() {
        return Err(ParseFail::Empty);
    }
    let mut i = 0;
    let negative = match b[0] {
        b'-' => {
            i = 1;
            true
        }
        b'+' => {
            i = 1;
            false
        }
        _ => false,
    };
    let mut digits: Vec<u8> = Vec::with_capacity(b.len());
    let mut point: Option<usize> = None;
    let start = i;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_digit() => digits.push(c - b'0'),
            b'.' if point.is_none() => point = Some(digits.len()),
            _ => break,
        }
        i += 1;
    }
    if digits.is_empty() {
        return Err(if i == start && i < b.len() { ParseFail::AtBegin } else if b.len() == start { ParseFail::Empty } else { ParseFail::AtBegin });
    }
    let mut exponent: i64 = 0;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let rest = &text[i + 1..];
        match rest.parse::<i64>() {
            Ok(e) => exponent = e,
            Err(_) => return Err(ParseFail::Trailing(i)),
        }
        i = b.len();
    }
    if i < b.len() {
        return Err(ParseFail::Trailing(i));
    }
    // Value = digits * 10^(exponent - fraction_len); we want value * 10^scale.
    let fraction_len = point.map(|p| digits.len() - p).unwrap_or(0) as i64;
    let shift = exponent - fraction_len + scale as i64;
    let keep = if shift >= 0 { digits.len() } else { (digits.len() as i64 + shift).max(0) as usize };
    digits.truncate(keep);
    // Leading zeros do not count against the width.
    let first = digits.iter().position(|d| *d != 0).unwrap_or(digits.len());
    digits.drain(..first);
    if digits.is_empty() {
        return Ok((negative, digits, 0));
    }
    if shift > 100 {
        return Err(ParseFail::Overflow);
    }
    Ok((negative, digits, shift.max(0) as u64))
}

/// ClickHouse's accepted spellings of booleans.
pub(crate) fn parse_bool(text: &str) -> Option<bool> {
    let lower = text.to_ascii_lowercase();
    match lower.as_str() {
        "true" | "t" | "y" | "yes" | "on" | "enable" | "enabled" | "1" => Some(true),
        "false" | "f" | "n" | "no" | "off" | "disable" | "disabled" | "0" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(parse_int("300", true, 0, 255), Ok((300, false)));
        assert_eq!(parse_int("-1", true, 0, 255), Err(ParseFail::Negative));
        assert_eq!(parse_int("+5", false, -128, 127), Ok((5, true)));
        assert_eq!(parse_int("", false, 0, 1), Err(ParseFail::Empty));
        assert_eq!(parse_int("abc", false, 0, 1), Err(ParseFail::AtBegin));
        assert_eq!(parse_int("12 ", false, 0, 100), Err(ParseFail::Trailing(2)));
        assert_eq!(parse_int(" 12", false, 0, 100), Err(ParseFail::AtBegin));
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date("2024-02-29"), Ok(Some(19_782)));
        assert_eq!(parse_date("2024-02-30"), Ok(Some(19_783)));
        assert_eq!(parse_date("2024-13-01"), Ok(None));
        assert_eq!(parse_date("20240115"), Ok(Some(days_from_civil(2024, 1, 15))));
        assert_eq!(parse_date("2024-1-5"), Ok(Some(days_from_civil(2024, 1, 5))));
        assert_eq!(parse_date("2024-01-01 10:00:00"), Ok(Some(19_723)));
        assert_eq!(parse_date("2024-01-01x"), Err(ParseFail::Trailing(10)));
        assert_eq!(parse_date("abc"), Err(ParseFail::NotDate));
    }

    #[test]
    fn datetimes() {
        assert_eq!(
            parse_datetime("2024-01-01 10:00:00.5"),
            Ok(DateTimeText::Civil { days: Some(19_723), secs: 36_000, nanos: 500_000_000, offset: None })
        );
        assert_eq!(parse_datetime("1704067200"), Ok(DateTimeText::Unix(1_704_067_200)));
        assert_eq!(
            parse_datetime("2024-01-01 10:00:00+03:00"),
            Ok(DateTimeText::Civil { days: Some(19_723), secs: 36_000, nanos: 0, offset: Some(10_800) })
        );
        assert!(parse_datetime("x").is_err());
    }

    #[test]
    fn decimals() {
        assert_eq!(parse_decimal("3.14159", 3), Ok(3141));
        assert_eq!(parse_decimal("-1.999", 1), Ok(-19));
        assert_eq!(parse_decimal("1.5e1", 1), Ok(150));
        assert_eq!(parse_decimal("abc", 2), Err(ParseFail::AtBegin));
    }
}
