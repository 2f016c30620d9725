//! Dates and times as ClickHouse writes and reads them: `YYYY-MM-DD`,
//! `YYYY-MM-DD hh:mm:ss[.fff]` in a time zone.
//!
//! Civil-date arithmetic is done here (Howard Hinnant's days-from-civil algorithms) so
//! that writing a date is a few integer operations and no allocation; time zones come
//! from `chrono-tz` and are only consulted for the UTC offset of an instant.

use chrono::{DateTime, Offset, TimeZone};
use chrono_tz::Tz;
use granary_common::{Error, ErrorCode, Result};

/// Seconds per day.
pub const SECONDS_PER_DAY: i64 = 86_400;

/// The smallest and largest day numbers of `Date` (1970-01-01 .. 2149-06-06).
pub const DATE_MIN_DAY: i64 = 0;
pub const DATE_MAX_DAY: i64 = 65_535;
/// The smallest and largest day numbers of `Date32` (1900-01-01 .. 2299-12-31).
pub const DATE32_MIN_DAY: i64 = -25_567;
pub const DATE32_MAX_DAY: i64 = 120_529;

/// Year, month (1..=12), day (1..=31) of a day number (days since 1970-01-01).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Day number (days since 1970-01-01) of a civil date; the date must be valid.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub fn is_leap_year(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

fn push_2(value: u32, out: &mut Vec<u8>) {
    out.push(b'0' + (value / 10 % 10) as u8);
    out.push(b'0' + (value % 10) as u8);
}

fn push_year(year: i64, out: &mut Vec<u8>) {
    if (0..10_000).contains(&year) {
        let y = year as u32;
        push_2(y / 100, out);
        push_2(y % 100, out);
    } else {
        out.extend_from_slice(itoa::Buffer::new().format(year).as_bytes());
    }
}

/// Appends `YYYY-MM-DD` for a day number.
pub fn write_date(days: i64, out: &mut Vec<u8>) {
    let (y, m, d) = civil_from_days(days);
    push_year(y, out);
    out.push(b'-');
    push_2(m, out);
    out.push(b'-');
    push_2(d, out);
}

/// Appends `YYYY-MM-DD hh:mm:ss` for local seconds since the epoch.
pub fn write_local_datetime(local_seconds: i64, out: &mut Vec<u8>) {
    let days = local_seconds.div_euclid(SECONDS_PER_DAY);
    let sod = local_seconds.rem_euclid(SECONDS_PER_DAY) as u32;
    write_date(days, out);
    out.push(b' ');
    push_2(sod / 3600, out);
    out.push(b':');
    push_2(sod / 60 % 60, out);
    out.push(b':');
    push_2(sod % 60, out);
}

/// Appends `.` and exactly `digits` digits of `fraction` (already scaled to `digits`).
pub fn write_fraction(fraction: u64, digits: u32, out: &mut Vec<u8>) {
    if digits == 0 {
        return;
    }
    out.push(b'.');
    let mut buf = [b'0'; 9];
    let mut f = fraction;
    for slot in buf[..digits as usize].iter_mut().rev() {
        *slot = b'0' + (f % 10) as u8;
        f /= 10;
    }
    out.extend_from_slice(&buf[..digits as usize]);
}

/// A time zone: the UTC fast path, a fixed offset (`+05:30` in Arrow types) or a named
/// IANA zone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Zone {
    Utc,
    Fixed(i32),
    Named(Tz),
}

impl Zone {
    /// Parses a zone name as found in a ClickHouse type (`'Asia/Tokyo'`) or an Arrow
    /// timestamp type (`+05:30`).
    pub fn parse(name: &str) -> Result<Zone> {
        if let Some(offset) = parse_fixed_offset(name) {
            return Ok(if offset == 0 { Zone::Utc } else { Zone::Fixed(offset) });
        }
        match name.parse::<Tz>() {
            Ok(tz) => Ok(Zone::from_tz(tz)),
            Err(_) => Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Invalid time zone: {name}"))),
        }
    }

    pub fn from_tz(tz: Tz) -> Zone {
        match tz {
            Tz::UTC | Tz::Etc__UTC | Tz::Etc__UCT | Tz::UCT | Tz::Etc__Universal | Tz::Universal | Tz::Etc__Zulu | Tz::Zulu => Zone::Utc,
            Tz::GMT | Tz::Etc__GMT | Tz::Etc__GMT0 | Tz::GMT0 | Tz::Etc__Greenwich | Tz::Greenwich => Zone::Utc,
            other => Zone::Named(other),
        }
    }

    /// The zone of a column: its own when the type names one, else the session's.
    pub fn for_column(type_zone: Option<&str>, session: Tz) -> Result<Zone> {
        match type_zone {
            Some(name) if !name.is_empty() => Zone::parse(name),
            _ => Ok(Zone::from_tz(session)),
        }
    }

    /// Seconds to add to a UTC instant to get local time.
    pub fn offset_at(&self, utc_seconds: i64) -> i64 {
        match self {
            Zone::Utc => 0,
            Zone::Fixed(offset) => *offset as i64,
            Zone::Named(tz) => match DateTime::from_timestamp(utc_seconds, 0) {
                Some(utc) => tz.offset_from_utc_datetime(&utc.naive_utc()).fix().local_minus_utc() as i64,
                None => 0,
            },
        }
    }

    /// Local seconds of a UTC instant.
    pub fn to_local(&self, utc_seconds: i64) -> i64 {
        utc_seconds + self.offset_at(utc_seconds)
    }

    /// The UTC instant of local wall-clock seconds. In a gap (clocks moved forward) the
    /// offset before the change is used; in an overlap, the first of the two instants.
    pub fn to_utc(&self, local_seconds: i64) -> i64 {
        match self {
            Zone::Utc => local_seconds,
            Zone::Fixed(offset) => local_seconds - *offset as i64,
            Zone::Named(_) => {
                let guess = local_seconds - self.offset_at(local_seconds);
                let offset = self.offset_at(guess);
                let utc = local_seconds - offset;
                // Re-check once: across a transition the offset at the result may differ.
                let again = self.offset_at(utc);
                if again == offset {
                    utc
                } else {
                    local_seconds - again.max(offset)
                }
            }
        }
    }
}

/// `+05:30`, `-0800`, `+05`, `Z`: seconds east of UTC.
fn parse_fixed_offset(text: &str) -> Option<i32> {
    if text == "Z" {
        return Some(0);
    }
    let bytes = text.as_bytes();
    let sign = match bytes.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let rest: Vec<u8> = bytes[1..].iter().copied().filter(|b| *b != b':').collect();
    if rest.is_empty() || rest.len() > 4 || !rest.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let num = |s: &[u8]| s.iter().fold(0i32, |a, d| a * 10 + (d - b'0') as i32);
    let (h, m) = match rest.len() {
        1 | 2 => (num(&rest), 0),
        3 => (num(&rest[..1]), num(&rest[1..])),
        _ => (num(&rest[..2]), num(&rest[2..])),
    };
    if h > 23 || m > 59 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60))
}

/// A date and time read from text, before the time zone is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsedDateTime {
    /// Wall-clock seconds since the epoch (or UTC seconds when `utc` is set).
    pub seconds: i64,
    /// Nanoseconds of the fraction.
    pub nanos: u32,
    /// The text was a unix timestamp or had an explicit offset: `seconds` is UTC.
    pub utc: bool,
}

impl ParsedDateTime {
    /// UTC seconds and nanoseconds, applying `zone` to wall-clock values.
    pub fn to_utc(self, zone: &Zone) -> (i64, u32) {
        if self.utc {
            (self.seconds, self.nanos)
        } else {
            (zone.to_utc(self.seconds), self.nanos)
        }
    }
}

/// A small cursor over ASCII text for the date parsers.
struct Cursor<'a> {
    text: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }
    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }
    /// Up to `max` digits (at least `min`): their value.
    fn digits(&mut self, min: usize, max: usize) -> Option<u32> {
        let start = self.pos;
        let mut value: u32 = 0;
        while self.pos - start < max {
            match self.peek() {
                Some(d @ b'0'..=b'9') => {
                    value = value * 10 + (d - b'0') as u32;
                    self.pos += 1;
                }
                _ => break,
            }
        }
        (self.pos - start >= min).then_some(value)
    }
    fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    /// A date separator: any one non-digit, non-space punctuation byte.
    fn separator(&mut self) -> bool {
        match self.peek() {
            Some(b) if b.is_ascii_punctuation() => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }
}

fn date_error(text: &[u8]) -> Error {
    Error::new(
        ErrorCode::CANNOT_PARSE_DATE,
        format!("Cannot parse date: expected a date in the YYYY-MM-DD or YYYYMMDD format, got '{}'", crate::text::escape::shorten(text)),
    )
}

fn datetime_error(text: &[u8], what: &str) -> Error {
    Error::new(ErrorCode::CANNOT_PARSE_DATETIME, format!("Cannot parse DateTime from '{}': {what}", crate::text::escape::shorten(text)))
}

/// `YYYY-MM-DD` (any one punctuation separator, one- or two-digit month and day) or
/// `YYYYMMDD`: the civil date, validated.
fn read_ymd(c: &mut Cursor<'_>) -> Option<(i64, u32, u32)> {
    let start = c.pos;
    let year = c.digits(4, 4)? as i64;
    let (month, day) = if c.separator() {
        let m = c.digits(1, 2)?;
        if !c.separator() {
            return None;
        }
        let d = c.digits(1, 2)?;
        (m, d)
    } else {
        let m = c.digits(2, 2)?;
        let d = c.digits(2, 2)?;
        (m, d)
    };
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        c.pos = start;
        return None;
    }
    Some((year, month, day))
}

/// Reads `Date`/`Date32` text: the day number. ClickHouse saturates dates outside the
/// type's range, and so does the caller (it knows the range).
pub fn parse_date(text: &[u8]) -> Result<i64> {
    let mut c = Cursor { text, pos: 0 };
    let (y, m, d) = read_ymd(&mut c).ok_or_else(|| date_error(text))?;
    if !c.at_end() {
        return Err(date_error(text));
    }
    Ok(days_from_civil(y, m, d))
}

/// Reads `DateTime`/`DateTime64` text.
///
/// `basic` (ClickHouse's default `date_time_input_format`): `YYYY-MM-DD hh:mm:ss[.f]`
/// (`T` also separates date and time), `YYYY-MM-DD`, `YYYYMMDD`, `YYYYMMDDhhmmss` and
/// unix timestamps (`1700000000[.5]`). `best_effort` also takes a trailing `Z` or UTC
/// offset (`+03:00`, `-0800`), and a time without seconds.
pub fn parse_datetime(text: &[u8], best_effort: bool) -> Result<ParsedDateTime> {
    if let Some(parsed) = parse_canonical_datetime(text) {
        return Ok(parsed);
    }
    if text.is_empty() {
        return Err(datetime_error(text, "the value is empty"));
    }
    // Only digits (and a fraction): a compact date, or a unix timestamp.
    let int_len = text.iter().position(|b| !b.is_ascii_digit()).unwrap_or(text.len());
    let rest = &text[int_len..];
    let fraction_only = rest.is_empty() || (rest[0] == b'.' && rest[1..].iter().all(u8::is_ascii_digit));
    if int_len > 0 && fraction_only && !(rest.is_empty() && (int_len == 8 || int_len == 14)) {
        let seconds = text[..int_len].iter().try_fold(0i64, |a, d| a.checked_mul(10)?.checked_add((d - b'0') as i64));
        let seconds = seconds.ok_or_else(|| datetime_error(text, "the timestamp is too large"))?;
        let nanos = if rest.is_empty() { 0 } else { fraction_nanos(&rest[1..]) };
        return Ok(ParsedDateTime { seconds, nanos, utc: true });
    }
    let mut c = Cursor { text, pos: 0 };
    let (y, mo, d) = read_ymd(&mut c).ok_or_else(|| datetime_error(text, "expected a date in the YYYY-MM-DD format"))?;
    let mut seconds = days_from_civil(y, mo, d) * SECONDS_PER_DAY;
    let mut nanos = 0;
    let mut utc = false;
    if !c.at_end() {
        let compact = c.pos == 8;
        if compact {
            // YYYYMMDDhhmmss
            let h = c.digits(2, 2);
            let mi = c.digits(2, 2);
            let s = c.digits(2, 2);
            match (h, mi, s) {
                (Some(h), Some(mi), Some(s)) if h < 24 && mi < 60 && s < 61 => seconds += (h * 3600 + mi * 60 + s) as i64,
                _ => return Err(datetime_error(text, "expected YYYYMMDDhhmmss")),
            }
        } else {
            if !(c.eat(b' ') || c.eat(b'T')) {
                return Err(datetime_error(text, "expected a space or 'T' between the date and the time"));
            }
            let h = c.digits(1, 2).ok_or_else(|| datetime_error(text, "expected hours"))?;
            if !c.eat(b':') {
                return Err(datetime_error(text, "expected ':' after the hours"));
            }
            let mi = c.digits(1, 2).ok_or_else(|| datetime_error(text, "expected minutes"))?;
            let s = if c.eat(b':') {
                c.digits(1, 2).ok_or_else(|| datetime_error(text, "expected seconds"))?
            } else if best_effort {
                0
            } else {
                return Err(datetime_error(text, "expected ':' after the minutes"));
            };
            if h > 23 || mi > 59 || s > 60 {
                return Err(datetime_error(text, "the time is out of range"));
            }
            seconds += (h * 3600 + mi * 60 + s) as i64;
            if c.eat(b'.') || c.eat(b',') {
                let start = c.pos;
                while c.peek().is_some_and(|b| b.is_ascii_digit()) {
                    c.pos += 1;
                }
                nanos = fraction_nanos(&text[start..c.pos]);
            }
        }
        // A zone designator: `Z` or an offset. ClickHouse's basic parser accepts `Z`.
        let tail = &text[c.pos..];
        let tail = tail.strip_prefix(b" ").filter(|_| best_effort).unwrap_or(tail);
        if !tail.is_empty() {
            let offset = std::str::from_utf8(tail).ok().and_then(parse_fixed_offset);
            match offset {
                Some(offset) if best_effort || tail == b"Z" => {
                    seconds -= offset as i64;
                    utc = true;
                }
                _ => return Err(datetime_error(text, "unexpected text after the time")),
            }
        }
    }
    Ok(ParsedDateTime { seconds, nanos, utc })
}

/// `YYYY-MM-DD hh:mm:ss`, the form nearly all text data has, read without the general
/// parser; `None` for anything else (then read, or rejected, by `parse_datetime`).
fn parse_canonical_datetime(text: &[u8]) -> Option<ParsedDateTime> {
    let t: &[u8; 19] = text.try_into().ok()?;
    if t[4] != b'-' || t[7] != b'-' || t[10] != b' ' || t[13] != b':' || t[16] != b':' {
        return None;
    }
    // All fourteen digits checked at once, without a branch per digit.
    const DIGITS: [usize; 14] = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];
    let mut bad = 0u8;
    let mut k = 0;
    while k < DIGITS.len() {
        bad |= u8::from(t[DIGITS[k]].wrapping_sub(b'0') > 9);
        k += 1;
    }
    if bad != 0 {
        return None;
    }
    let two = |i: usize| u32::from(t[i] - b'0') * 10 + u32::from(t[i + 1] - b'0');
    let year = (two(0) * 100 + two(2)) as i64;
    let (month, day, h, mi, s) = (two(5), two(8), two(11), two(14), two(17));
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    Some(ParsedDateTime { seconds: days_from_civil(year, month, day) * SECONDS_PER_DAY + (h * 3600 + mi * 60 + s) as i64, nanos: 0, utc: false })
}

/// Nanoseconds of fraction digits (extra digits beyond 9 are dropped).
fn fraction_nanos(digits: &[u8]) -> u32 {
    let mut nanos = 0u32;
    for i in 0..9 {
        nanos = nanos * 10 + digits.get(i).map_or(0, |d| (d - b'0') as u32);
    }
    nanos
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for days in [-25_567i64, -1, 0, 1, 59, 365, 10_957, 19_724, 65_535, 120_529] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(DATE_MAX_DAY), (2149, 6, 6));
        assert_eq!(civil_from_days(DATE32_MIN_DAY), (1900, 1, 1));
        assert_eq!(civil_from_days(DATE32_MAX_DAY), (2299, 12, 31));
    }

    #[test]
    fn writes_dates_and_times() {
        let mut out = Vec::new();
        write_date(19_724, &mut out);
        out.push(b'|');
        write_local_datetime(1_704_164_645, &mut out);
        write_fraction(123, 3, &mut out);
        out.push(b'|');
        write_local_datetime(-1, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "2024-01-02|2024-01-02 03:04:05.123|1969-12-31 23:59:59");
    }

    #[test]
    fn zones() {
        let tokyo = Zone::parse("Asia/Tokyo").unwrap();
        assert_eq!(tokyo.offset_at(0), 9 * 3600);
        assert_eq!(tokyo.to_utc(9 * 3600), 0);
        assert_eq!(Zone::parse("+05:30").unwrap(), Zone::Fixed(19_800));
        assert_eq!(Zone::parse("UTC").unwrap(), Zone::Utc);
        assert!(Zone::parse("Mars/Base").is_err());
        // New York, 2024-03-10 02:30 does not exist (clocks jump 02:00 -> 03:00).
        let ny = Zone::parse("America/New_York").unwrap();
        let local = days_from_civil(2024, 3, 10) * SECONDS_PER_DAY + 2 * 3600 + 1800;
        let utc = ny.to_utc(local);
        assert!(utc == local + 5 * 3600 || utc == local + 4 * 3600);
        let local = days_from_civil(2024, 7, 1) * SECONDS_PER_DAY;
        assert_eq!(ny.to_utc(local), local + 4 * 3600);
    }

    #[test]
    fn parses_dates() {
        assert_eq!(parse_date(b"2024-01-02").unwrap(), 19_724);
        assert_eq!(parse_date(b"20240102").unwrap(), 19_724);
        assert_eq!(parse_date(b"2024/1/2").unwrap(), 19_724);
        assert_eq!(parse_date(b"2024-02-30").unwrap_err().code(), ErrorCode::CANNOT_PARSE_DATE);
        assert!(parse_date(b"19000").is_err());
        assert!(parse_date(b"2024-01-02x").is_err());
    }

    #[test]
    fn parses_datetimes() {
        let dt = |t: &str| parse_datetime(t.as_bytes(), false).unwrap();
        let base = days_from_civil(2020, 1, 2) * SECONDS_PER_DAY;
        assert_eq!(dt("2020-01-02 10:11:12"), ParsedDateTime { seconds: base + 36_672, nanos: 0, utc: false });
        assert_eq!(dt("2020-01-02T10:11:12.5").nanos, 500_000_000);
        assert_eq!(dt("2020-01-02").seconds, base);
        assert_eq!(dt("20200102").seconds, base);
        assert_eq!(dt("20200102101112").seconds, base + 36_672);
        assert_eq!(dt("1700000000"), ParsedDateTime { seconds: 1_700_000_000, nanos: 0, utc: true });
        assert_eq!(dt("1700000000.25").nanos, 250_000_000);
        assert!(dt("2020-01-02 10:11:12Z").utc);
        assert!(parse_datetime(b"2020-01-02 10:11:12+03:00", false).is_err());
        let be = parse_datetime(b"2020-01-02T10:11:12+03:00", true).unwrap();
        assert_eq!(be, ParsedDateTime { seconds: base + 36_672 - 3 * 3600, nanos: 0, utc: true });
        assert_eq!(parse_datetime(b"abc", false).unwrap_err().code(), ErrorCode::CANNOT_PARSE_DATETIME);
        assert!(parse_datetime(b"2020-01-02 25:00:00", false).is_err());
        // The canonical form's shortcut gives what the general parser gives.
        for text in ["2020-01-02 10:11:12", "1970-01-01 00:00:00", "2024-02-29 23:59:60", "0000-01-01 00:00:00", "9999-12-31 23:59:59", "2106-02-07 06:28:15"] {
            let fast = parse_canonical_datetime(text.as_bytes()).unwrap();
            let mut general = text.as_bytes().to_vec();
            general.extend_from_slice(b".0");
            let general = parse_datetime(&general, false).unwrap();
            assert_eq!((fast.seconds, fast.nanos, fast.utc), (general.seconds, general.nanos, general.utc), "{text}");
        }
        for text in ["2023-02-29 00:00:00", "2020-13-01 00:00:00", "2020-00-01 00:00:00", "2020-01-00 00:00:00", "2020-01-01 24:00:00", "2020-01-01 00:60:00", "2020-01-01 00:00:61", "2020-01-01T00:00:00", "2020-01-0a 00:00:00", "2020/01/01 00:00:00"] {
            assert!(parse_canonical_datetime(text.as_bytes()).is_none(), "{text}");
        }
    }
}
