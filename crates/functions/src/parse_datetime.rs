//! `parseDateTime(s[, format[, timezone]])`, `parseDateTimeOrNull`, `parseDateTimeOrZero`:
//! text to DateTime by a MySQL-style format (`%Y-%m-%d %H:%i:%s` by default), the inverse
//! of `formatDateTime`, following ClickHouse's parser step by step.
//!
//! The format is compiled once into steps (literal text or a `%` code). Fixed-width
//! numbers are read as ClickHouse reads them: each byte's value minus `'0'`, without a
//! digit check (so `20a1` is the year 2491 and fails the range check, not the digit
//! check); `%c`, `%k`, `%l` (and `%e`, after an optional space) take one or two digits.
//! Each value is range-checked when read; the date is checked once the whole input is
//! consumed (left-over text is an error). Without `%z` the time zone argument (or the
//! session's) gives the offset, taken, as ClickHouse does, at the instant the local
//! fields would have in UTC. The result is a UInt32 second count (years up to 2106).
//! `parseDateTime64` (and `OrNull`, `OrZero`) read the same formats into a
//! DateTime64(6) of the years 0000-9999, `%f` (one to six digits) giving the fraction.
//!
//! `parseDateTimeInJodaSyntax` (and `OrNull`, `OrZero`) read a Joda pattern
//! (`yyyy-MM-dd HH:mm:ss` by default) into the same fields: a run of one letter is one
//! field whose repetitions set how many digits it reads (ClickHouse's
//! `readNumberWithVariableLength`; `yy` of exactly two digits is 1970-2069), `'text'` is
//! literal, `S` is read and dropped, `Z` is a `+hhmm` offset and `z` a time zone name
//! (the rest of the input); other letters are NOT_IMPLEMENTED.


use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, scalar_str, Arity, DfResult};
use crate::func::{RetCtx, ScalarDef};
use crate::tz::{days_from_civil, is_leap, parse_tz, SessionTz};

const MIN_YEAR: i32 = 1970;
const MAX_YEAR: i32 = 2106;
const DEFAULT_FORMAT: &str = "%Y-%m-%d %H:%i:%s";
const DEFAULT_FORMAT64: &str = "%Y-%m-%d %H:%i:%s.%f";
const MONTHS: [&str; 12] = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const WEEKDAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

type ParseResult<T> = Result<T, (ErrorCode, String)>;

fn fail<T>(message: String) -> ParseResult<T> {
    Err((ErrorCode::CANNOT_PARSE_DATETIME, message))
}

/// One step of a compiled format.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Literal(Vec<u8>),
    Code(u8),
}

fn compile_format(format: &str, name: &str) -> DfResult<Vec<Step>> {
    let bytes = format.as_bytes();
    let mut steps = Vec::new();
    let mut literal = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            literal.push(bytes[i]);
            i += 1;
            continue;
        }
        let Some(&code) = bytes.get(i + 1) else {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "'%' must not be the last character in the format string, use '%%' instead"));
        };
        if !literal.is_empty() {
            steps.push(Step::Literal(std::mem::take(&mut literal)));
        }
        match code {
            b'a' | b'b' | b'c' | b'C' | b'd' | b'D' | b'e' | b'f' | b'F' | b'g' | b'G' | b'j' | b'm' | b'u' | b'V' | b'w' | b'W' | b'y'
            | b'Y' | b'z' | b'M' | b'p' | b'r' | b'R' | b's' | b'S' | b'T' | b'h' | b'H' | b'i' | b'I' | b'k' | b'l' => {
                steps.push(Step::Code(code))
            }
            b't' => steps.push(Step::Literal(b"\t".to_vec())),
            b'n' => steps.push(Step::Literal(b"\n".to_vec())),
            b'%' => steps.push(Step::Literal(b"%".to_vec())),
            b'Q' => return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "format is not supported for quarter")),
            b'U' => return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "format is not supported for WEEK (Sun-Sat)")),
            b'v' => return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "format is not supported for WEEK (Mon-Sun)")),
            b'x' => return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "format is not supported for YEAR for week (Mon-Sun)")),
            b'X' => return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "format is not supported for YEAR for week (Sun-Sat)")),
            other => {
                return Err(ch_error(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Incorrect syntax '{format}', symbol is not supported '{}' for function {name}", other as char),
                ))
            }
        }
        i += 2;
    }
    if !literal.is_empty() {
        steps.push(Step::Literal(literal));
    }
    Ok(steps)
}

/// The fields read so far (ClickHouse's `DateTime` helper of the parser).
struct Fields {
    year: i32,
    month: i32,
    day: i32,
    week: i32,
    day_of_week: i32,
    week_date: bool,
    day_of_year: i32,
    day_of_year_format: bool,
    has_year: bool,
    hour: i32,
    minute: i32,
    second: i32,
    is_am: bool,
    half_day: bool,
    offset: Option<i64>,
    /// A time zone named in the input (Joda `z`): its offset at the parsed time.
    zone: Option<SessionTz>,
    /// `parseDateTime64`: years 0000-9999 and times before 1970 are fine.
    wide: bool,
    /// The fraction `%f` read, in microseconds.
    micros: i64,
    /// The last Joda fraction (`S..`) read, as the number written: ticks of the result's
    /// precision, unbounded, as ClickHouse adds it (`.55` for `S` is 5.5 seconds).
    fraction: i64,
}

impl Fields {
    fn new(wide: bool) -> Fields {
        Fields {
            year: 1970,
            month: 1,
            day: 1,
            week: 1,
            day_of_week: 1,
            week_date: false,
            day_of_year: 1,
            day_of_year_format: false,
            has_year: false,
            hour: 0,
            minute: 0,
            second: 0,
            is_am: true,
            half_day: false,
            offset: None,
            zone: None,
            wide,
            micros: 0,
            fraction: 0,
        }
    }

    /// The years a result may fall in.
    fn years(&self) -> (i32, i32) {
        if self.wide {
            (0, 9999)
        } else {
            (MIN_YEAR, MAX_YEAR)
        }
    }

    fn default_year(&mut self) {
        if !self.has_year {
            self.has_year = true;
            self.year = 2000;
        }
    }

    fn set_year(&mut self, year: i32) -> ParseResult<()> {
        let (min, max) = self.years();
        if !(min..=max).contains(&year) {
            return fail(format!("Value {year} for year must be in the range [{min}, {max}]"));
        }
        self.year = year;
        self.has_year = true;
        Ok(())
    }

    fn set_year2(&mut self, year: i32) -> ParseResult<()> {
        match year {
            70..=99 => self.set_year(year + 1900),
            0..=69 => self.set_year(year + 2000),
            _ => fail(format!("Value {year} for year2 must be in the range [0, 99]")),
        }
    }

    fn set_century(&mut self, century: i32) -> ParseResult<()> {
        if !(19..=21).contains(&century) {
            return fail(format!("Value {century} for century must be in the range [19, 21]"));
        }
        self.year = 100 * century;
        self.has_year = true;
        Ok(())
    }

    fn set_month(&mut self, month: i32) -> ParseResult<()> {
        if !(1..=12).contains(&month) {
            return fail(format!("Value {month} for month of year must be in the range [1, 12]"));
        }
        self.month = month;
        self.week_date = false;
        self.day_of_year_format = false;
        self.default_year();
        Ok(())
    }

    fn set_week(&mut self, week: i32) -> ParseResult<()> {
        if !(1..=53).contains(&week) {
            return fail(format!("Value {week} for week of week year must be in the range [1, 53]"));
        }
        self.week = week;
        self.week_date = true;
        self.day_of_year_format = false;
        self.default_year();
        Ok(())
    }

    fn set_day_of_year(&mut self, day: i32) -> ParseResult<()> {
        if !(1..=366).contains(&day) {
            return fail(format!("Value {day} for day of year must be in the range [1, 366]"));
        }
        self.day_of_year = day;
        self.day_of_year_format = true;
        self.week_date = false;
        self.default_year();
        Ok(())
    }

    fn set_day_of_month(&mut self, day: i32) -> ParseResult<()> {
        if !(1..=31).contains(&day) {
            return fail(format!("Value {day} for day of month must be in the range [1, 31]"));
        }
        self.day = day;
        self.week_date = false;
        self.day_of_year_format = false;
        self.default_year();
        Ok(())
    }

    fn set_day_of_week(&mut self, day: i32) -> ParseResult<()> {
        if !(1..=7).contains(&day) {
            return fail(format!("Value {day} for day of week must be in the range [1, 7]"));
        }
        self.day_of_week = day;
        self.week_date = true;
        self.day_of_year_format = false;
        self.default_year();
        Ok(())
    }

    /// `half_day`: a 12-hour clock; `from_1`: hours counted from 1 (12 means 0).
    fn set_hour(&mut self, hour: i32, half_day: bool, from_1: bool) -> ParseResult<()> {
        let (min, max) = match (half_day, from_1) {
            (false, false) => (0, 23),
            (false, true) => (1, 24),
            (true, false) => (0, 11),
            (true, true) => (1, 12),
        };
        if hour < min || hour > max {
            return fail(format!("Value {hour} for hour must be in the range [{min}, {max}]"));
        }
        self.hour = if from_1 { hour % (max) } else { hour };
        self.half_day = half_day;
        Ok(())
    }

    fn set_minute(&mut self, minute: i32) -> ParseResult<()> {
        if !(0..=59).contains(&minute) {
            return fail(format!("Value {minute} for minute must be in the range [0, 59]"));
        }
        self.minute = minute;
        Ok(())
    }

    fn set_second(&mut self, second: i32) -> ParseResult<()> {
        if !(0..=59).contains(&second) {
            return fail(format!("Value {second} for second must be in the range [0, 59]"));
        }
        self.second = second;
        Ok(())
    }

    fn date_days(&self) -> ParseResult<i64> {
        let year = self.year;
        let (min, max) = self.years();
        if !(min..=max).contains(&year) {
            return fail(format!("Invalid date, out of range (year: {year} month: {} day_of_month: {})", self.month, self.day));
        }
        if self.week_date {
            // ISO week date: the Monday of week 1 is the Monday on or before January 4.
            let jan4 = days_from_civil(i64::from(year), 1, 4);
            let iso_weekday = (jan4 + 3).rem_euclid(7) + 1;
            return Ok(jan4 - (iso_weekday - 1) + 7 * i64::from(self.week - 1) + i64::from(self.day_of_week - 1));
        }
        if self.day_of_year_format {
            if self.day_of_year > 365 + i32::from(is_leap(i64::from(year))) {
                return fail(format!("Invalid day of year, out of range (year: {year} day of year: {})", self.day_of_year));
            }
            return Ok(days_from_civil(i64::from(year), 1, 1) + i64::from(self.day_of_year - 1));
        }
        let max_day = crate::tz::days_in_month(i64::from(year), self.month as u32) as i32;
        if self.day > max_day {
            return fail(format!("Invalid date, out of range (year: {year} month: {} day_of_month: {})", self.month, self.day));
        }
        Ok(days_from_civil(i64::from(year), self.month as u32, self.day as u32))
    }

    /// Seconds since the epoch, or microseconds for `parseDateTime64`.
    fn seconds(&mut self, zone: &SessionTz) -> ParseResult<i64> {
        if self.half_day && !self.is_am {
            self.hour += 12;
        }
        let local = self.date_days()? * 86_400 + i64::from(self.hour) * 3600 + i64::from(self.minute) * 60 + i64::from(self.second);
        let offset = self.offset.unwrap_or_else(|| self.zone.unwrap_or(*zone).offset_at_utc(local));
        if self.wide {
            return Ok((local - offset) * 1_000_000 + self.micros);
        }
        if local < offset {
            return Err((ErrorCode::VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE, "Seconds since epoch is negative".to_string()));
        }
        // ClickHouse stores the count as UInt32.
        Ok(i64::from((local - offset) as u32))
    }
}

/// The input being parsed.
struct Input<'a> {
    s: &'a [u8],
    pos: usize,
    /// The format fragment being read, as messages name it.
    fragment: &'a str,
}

impl Input<'_> {
    fn rest(&self) -> String {
        String::from_utf8_lossy(&self.s[self.pos.min(self.s.len())..]).into_owned()
    }

    fn need(&self, n: usize, what: &str) -> ParseResult<()> {
        if self.pos + n > self.s.len() {
            return fail(format!("Unable to parse fragment {} from {} because {what}", self.fragment, self.rest()));
        }
        Ok(())
    }

    /// A byte's value as ClickHouse's fixed-width readers take it (no digit check).
    fn digit(&mut self) -> i32 {
        let v = i32::from(self.s[self.pos] as i8) - i32::from(b'0');
        self.pos += 1;
        v
    }

    fn fixed(&mut self, n: usize) -> ParseResult<i32> {
        self.need(n, &format!("readNumber{n} requires size >= {n}"))?;
        let mut v = 0;
        for _ in 0..n {
            v = v * 10 + self.digit();
        }
        Ok(v)
    }

    /// One or two digits (at least one).
    fn variable(&mut self, max_digits: usize) -> ParseResult<i32> {
        let start = self.pos;
        let mut v = 0;
        while self.pos < self.s.len() && self.pos < start + max_digits && self.s[self.pos].is_ascii_digit() {
            v = v * 10 + i32::from(self.s[self.pos] - b'0');
            self.pos += 1;
        }
        if self.pos == start {
            return fail(format!("Unable to parse fragment {} from {} because read number failed", self.fragment, self.rest()));
        }
        Ok(v)
    }

    fn expect(&mut self, c: u8) -> ParseResult<()> {
        self.need(1, "assertChar requires size >= 1")?;
        if self.s[self.pos] != c {
            return fail(format!(
                "Unable to parse fragment {} from {} because char {} is expected but {} provided",
                self.fragment,
                self.rest(),
                c as char,
                self.s[self.pos] as char
            ));
        }
        self.pos += 1;
        Ok(())
    }

    /// A lowercase word of `n` bytes.
    fn word(&mut self, n: usize, what: &str) -> ParseResult<String> {
        self.need(n, &format!("{what} requires size >= {n}"))?;
        let w = String::from_utf8_lossy(&self.s[self.pos..self.pos + n]).to_ascii_lowercase();
        self.pos += n;
        Ok(w)
    }

    /// A full month or weekday name: its first three letters pick it, the rest must follow.
    fn long_name(&mut self, names: &[&str], what: &str) -> ParseResult<usize> {
        let first = self.word(3, what)?;
        let Some(index) = names.iter().position(|n| n[..3] == first) else {
            return fail(format!("Unable to parse first part of fragment {} from {} because of unknown text: {first}", self.fragment, self.rest()));
        };
        let tail = &names[index][3..];
        let second = self.word(tail.len(), what)?;
        if second != tail {
            return fail(format!("Unable to parse second part of fragment {} because of unknown text: {first}{second}", self.fragment));
        }
        Ok(index)
    }
}

fn fragment_name(code: u8) -> &'static str {
    const NAMES: &[(u8, &str)] = &[
        (b'a', "%a"), (b'b', "%b"), (b'c', "%c"), (b'C', "%C"), (b'd', "%d"), (b'D', "%D"), (b'e', "%e"), (b'f', "%f"), (b'F', "%F"),
        (b'g', "%g"), (b'G', "%G"), (b'j', "%j"), (b'm', "%m"), (b'u', "%u"), (b'V', "%V"), (b'w', "%w"), (b'W', "%W"), (b'y', "%y"),
        (b'Y', "%Y"), (b'z', "%z"), (b'M', "%M"), (b'p', "%p"), (b'r', "%r"), (b'R', "%R"), (b's', "%s"), (b'S', "%S"), (b'T', "%T"),
        (b'h', "%h"), (b'H', "%H"), (b'i', "%i"), (b'I', "%I"), (b'k', "%k"), (b'l', "%l"),
    ];
    NAMES.iter().find(|(c, _)| *c == code).map_or("%?", |(_, n)| n)
}

fn am_pm(input: &mut Input, f: &mut Fields) -> ParseResult<()> {
    match input.word(2, "mysqlAMPM")?.as_str() {
        "am" => f.is_am = true,
        "pm" => f.is_am = false,
        other => return fail(format!("Unknown half day of day: {other}")),
    }
    Ok(())
}

fn apply(code: u8, input: &mut Input, f: &mut Fields) -> ParseResult<()> {
    input.fragment = fragment_name(code);
    match code {
        b'a' => {
            let w = input.word(3, "mysqlDayOfWeekTextShort")?;
            let Some(i) = WEEKDAYS.iter().position(|d| d[..3] == w) else {
                return fail(format!("Unable to parse fragment %a because of unknown day of week short text {w}"));
            };
            f.set_day_of_week(i as i32 + 1)
        }
        b'W' => {
            let i = input.long_name(&WEEKDAYS, "mysqlDayOfWeekTextLong")?;
            f.set_day_of_week(i as i32 + 1)
        }
        b'b' => {
            let w = input.word(3, "mysqlMonthOfYearTextShort")?;
            let Some(i) = MONTHS.iter().position(|m| m[..3] == w) else {
                return fail(format!("Unable to parse fragment %b because of unknown month of year short text {w}"));
            };
            f.set_month(i as i32 + 1)
        }
        b'M' => {
            let i = input.long_name(&MONTHS, "mysqlMonthOfYearTextLong")?;
            f.set_month(i as i32 + 1)
        }
        b'c' => {
            let v = input.variable(2)?;
            f.set_month(v)
        }
        b'm' => {
            let v = input.fixed(2)?;
            f.set_month(v)
        }
        b'C' => {
            let v = input.fixed(2)?;
            f.set_century(v)
        }
        b'd' => {
            let v = input.fixed(2)?;
            f.set_day_of_month(v)
        }
        b'e' => {
            if input.pos < input.s.len() && input.s[input.pos] == b' ' {
                input.pos += 1;
            }
            let v = input.variable(2)?;
            f.set_day_of_month(v)
        }
        b'D' => {
            input.need(8, "mysqlAmericanDate requires size >= 8")?;
            let m = input.fixed(2)?;
            input.expect(b'/')?;
            f.set_month(m)?;
            let d = input.fixed(2)?;
            input.expect(b'/')?;
            f.set_day_of_month(d)?;
            let y = input.fixed(2)?;
            f.set_year(y + 2000)
        }
        b'F' => {
            input.need(10, "mysqlISO8601Date requires size >= 10")?;
            let y = input.fixed(4)?;
            input.expect(b'-')?;
            let m = input.fixed(2)?;
            input.expect(b'-')?;
            let d = input.fixed(2)?;
            f.set_year(y)?;
            f.set_month(m)?;
            f.set_day_of_month(d)
        }
        b'y' | b'g' => {
            let v = input.fixed(2)?;
            f.set_year2(v)
        }
        b'Y' | b'G' => {
            let v = input.fixed(4)?;
            f.set_year(v)
        }
        b'j' => {
            let v = input.fixed(3)?;
            f.set_day_of_year(v)
        }
        b'u' => {
            input.need(1, "mysqlDayOfWeek requires size >= 1")?;
            let v = input.digit();
            f.set_day_of_week(v)
        }
        b'w' => {
            input.need(1, "mysqlDayOfWeek0To6 requires size >= 1")?;
            let v = input.digit();
            f.set_day_of_week(if v == 0 { 7 } else { v })
        }
        b'V' => {
            let v = input.fixed(2)?;
            f.set_week(v)
        }
        b'z' => {
            input.need(5, "mysqlTimezoneOffset requires size >= 5")?;
            let sign = match input.s[input.pos] {
                b'-' => -1,
                b'+' => 1,
                other => return fail(format!("Unable to parse fragment %z because of unknown sign time zone offset: {}", other as char)),
            };
            input.pos += 1;
            let h = input.fixed(2)?;
            let m = input.fixed(2)?;
            f.offset = Some(i64::from(sign * (h * 3600 + m * 60)));
            Ok(())
        }
        b'p' => am_pm(input, f),
        b'r' => {
            input.need(8, "mysqlHHMM12 requires size >= 8")?;
            let h = input.fixed(2)?;
            input.expect(b':')?;
            f.set_hour(h, true, true)?;
            let m = input.fixed(2)?;
            input.expect(b' ')?;
            f.set_minute(m)?;
            am_pm(input, f)
        }
        b'R' => {
            input.need(5, "mysqlHHMM24 requires size >= 5")?;
            let h = input.fixed(2)?;
            input.expect(b':')?;
            f.set_hour(h, false, false)?;
            let m = input.fixed(2)?;
            f.set_minute(m)
        }
        b'T' => {
            input.need(8, "mysqlISO8601Time requires size >= 8")?;
            let h = input.fixed(2)?;
            input.expect(b':')?;
            let m = input.fixed(2)?;
            input.expect(b':')?;
            let s = input.fixed(2)?;
            f.set_hour(h, false, false)?;
            f.set_minute(m)?;
            f.set_second(s)
        }
        b's' | b'S' => {
            let v = input.fixed(2)?;
            f.set_second(v)
        }
        b'i' => {
            let v = input.fixed(2)?;
            f.set_minute(v)
        }
        b'f' => {
            // One to six digits, the leading digits of the microseconds.
            input.need(1, "mysqlMicrosecond requires size >= 1")?;
            let start = input.pos;
            let mut micros = 0;
            while input.pos < input.s.len() && input.pos < start + 6 && input.s[input.pos].is_ascii_digit() {
                micros = micros * 10 + i64::from(input.s[input.pos] - b'0');
                input.pos += 1;
            }
            if input.pos == start {
                return fail(format!("Unable to parse fragment %f from {} because {} is not a number", input.rest(), input.s[input.pos] as char));
            }
            f.micros = micros * 10i64.pow((6 - (input.pos - start)) as u32);
            Ok(())
        }
        b'h' | b'I' => {
            let v = input.fixed(2)?;
            f.set_hour(v, true, true)
        }
        b'l' => {
            let v = input.variable(2)?;
            f.set_hour(v, true, true)
        }
        b'H' => {
            let v = input.fixed(2)?;
            f.set_hour(v, false, false)
        }
        b'k' => {
            let v = input.variable(2)?;
            f.set_hour(v, false, false)
        }
        _ => fail(format!("Unsupported format code %{}", code as char)),
    }
}

/// Reads the literal `lit` of a format at the input's position, or ClickHouse's error.
fn match_literal(input: &mut Input, text: &[u8], lit: &[u8]) -> ParseResult<()> {
    input.fragment = "LITERAL";
    input.need(lit.len(), "insufficient space to parse literal")?;
    if &text[input.pos..input.pos + lit.len()] != lit {
        return fail(format!(
            "Unable to parse fragment LITERAL from {} because literal {} is expected but {} provided",
            input.rest(),
            String::from_utf8_lossy(lit),
            String::from_utf8_lossy(&text[input.pos..input.pos + lit.len()])
        ));
    }
    input.pos += lit.len();
    Ok(())
}

/// Seconds since the epoch of `text`, or ClickHouse's error.
/// For `parseDateTime64` (`wide`), microseconds since the epoch.
fn parse(text: &[u8], steps: &[Step], zone: &SessionTz, wide: bool) -> ParseResult<i64> {
    let mut input = Input { s: text, pos: 0, fragment: "LITERAL" };
    let mut fields = Fields::new(wide);
    for step in steps {
        match step {
            Step::Literal(lit) => {
                match_literal(&mut input, text, lit)?;
            }
            Step::Code(code) => apply(*code, &mut input, &mut fields)?,
        }
    }
    if input.pos < text.len() {
        return fail(format!("Invalid format input {} is malformed at {}", String::from_utf8_lossy(text), input.rest()));
    }
    fields.seconds(zone)
}

/// What a parse function gives for text it cannot read (`f`, `fOrNull`, `fOrZero`).
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum OnError {
    Throw,
    Null,
    Zero,
}

impl OnError {
    /// The function of `def`: an `OrNull` form makes its own NULLs.
    pub(crate) fn build(self, def: ScalarDef) -> ScalarUDF {
        if self == OnError::Null {
            def.custom_nulls().build()
        } else {
            def.build()
        }
    }
}

fn string_arg(ctx: &RetCtx, i: usize, what: &str, constant: bool) -> DfResult<()> {
    let ordinal = ["1st", "2nd", "3rd"][i];
    // parseDateTimeOrNull sees its arguments' own types (NULL is Nullable(Nothing)).
    if !matches!(ctx.ch(i).strip_nullable(), ChType::String | ChType::Nothing) {
        return Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "A value of illegal type was provided as {ordinal} argument '{what}' to function '{}'. Expected: String, got: {}",
                ctx.name,
                ctx.ch(i)
            ),
        ));
    }
    if constant && ctx.scalar(i).is_none() {
        return Err(ch_error(
            ErrorCode::ILLEGAL_COLUMN,
            format!(
                "A value of illegal type was provided as {ordinal} argument '{what}' to function '{}'. Expected: const String, got: String",
                ctx.name
            ),
        ));
    }
    Ok(())
}

/// The format a parse function reads when it is given none.
fn default_format(name: &str) -> &'static str {
    if name.contains("InJodaSyntax") {
        JODA_DEFAULT_FORMAT
    } else if name.starts_with("parseDateTime64") {
        DEFAULT_FORMAT64
    } else {
        DEFAULT_FORMAT
    }
}

/// For the parse functions whose result type names a time zone (`parseDateTime*`,
/// `parseDateTime64*`, their Joda forms and aliases): the format they read when given
/// none. ClickHouse names the session's zone in the type when no zone argument is given;
/// a type rule cannot see settings, so the query layer passes that zone explicitly, and
/// the format first when it is missing.
pub fn zoned_parse_default_format(name: &str) -> Option<&'static str> {
    let canonical = crate::registry::ALIASES.iter().find(|(alias, _)| alias.eq_ignore_ascii_case(name)).map_or(name, |(_, target)| *target);
    let parsers = ["parseDateTime", "parseDateTime64", "parseDateTimeInJodaSyntax", "parseDateTime64InJodaSyntax"];
    let base = canonical.strip_suffix("OrNull").or_else(|| canonical.strip_suffix("OrZero")).unwrap_or(canonical);
    parsers.contains(&base).then(|| default_format(canonical))
}

fn parse_date_time_fn(name: &'static str, on_error: OnError) -> ScalarUDF {
    let joda = name.contains("InJodaSyntax");
    let wide = name.starts_with("parseDateTime64");
    let def = ScalarDef::new(
        name,
        Arity::range(1, 3),
        move |ctx| {
            string_arg(ctx, 0, "time", false)?;
            let format = if ctx.arg_count() > 1 {
                string_arg(ctx, 1, "format", true)?;
                ctx.scalar(1).and_then(scalar_str).unwrap_or(default_format(ctx.name))
            } else {
                default_format(ctx.name)
            };
            let precision = if joda {
                let steps = compile_joda(format)?;
                if wide { joda_precision(&steps)? } else { 0 }
            } else {
                compile_format(format, ctx.name)?;
                6
            };
            let zone = if ctx.arg_count() > 2 {
                string_arg(ctx, 2, "timezone", true)?;
                let tz = ctx.scalar(2).and_then(scalar_str).unwrap_or_default();
                parse_tz(tz)?;
                Some(tz.to_string())
            } else {
                None
            };
            let t = if wide { ChType::DateTime64(precision, zone) } else { ChType::DateTime(zone) };
            Ok(if on_error == OnError::Null { ChType::Nullable(Box::new(t)) } else { t })
        },
        move |ctx| {
            let format = if ctx.args.len() > 1 { ctx.const_str(1, "format")? } else { default_format(ctx.name) };
            let (steps, joda_steps) = if joda { (Vec::new(), compile_joda(format)?) } else { (compile_format(format, ctx.name)?, Vec::new()) };
            // Joda fractions wider than microseconds are refused when parsing, as
            // ClickHouse's parser does (its message names precision 0).
            let joda_ticks = if joda && wide {
                let precision = joda_precision(&joda_steps)?;
                if precision > 6 {
                    return Err(ch_error(ErrorCode::CANNOT_PARSE_DATETIME, "Precision 0 is invalid (must be [0, 6])"));
                }
                let per = match crate::conversion::convert::time_unit_for_precision(precision) {
                    datafusion::arrow::datatypes::TimeUnit::Second => 1,
                    datafusion::arrow::datatypes::TimeUnit::Millisecond => 1_000,
                    datafusion::arrow::datatypes::TimeUnit::Microsecond => 1_000_000,
                    datafusion::arrow::datatypes::TimeUnit::Nanosecond => 1_000_000_000,
                };
                Some((precision, per))
            } else {
                None
            };
            let session = ctx.session_tz()?;
            let zone = if ctx.args.len() > 2 { parse_tz(ctx.const_str(2, "time zone")?)? } else { session };
            let input = cast(&ctx.array(0)?, &DataType::Utf8)?;
            let input = input.as_string::<i32>();
            let mut values: Vec<Option<i64>> = Vec::with_capacity(input.len());
            for row in 0..input.len() {
                if input.is_null(row) {
                    values.push(None);
                    continue;
                }
                let parsed = if joda {
                    parse_joda(input.value(row).as_bytes(), &joda_steps, &zone, &session, joda_ticks)
                } else {
                    parse(input.value(row).as_bytes(), &steps, &zone, wide)
                };
                match parsed {
                    Ok(seconds) => values.push(Some(seconds)),
                    Err((code, message)) => match on_error {
                        OnError::Null => values.push(None),
                        OnError::Zero => values.push(Some(0)),
                        OnError::Throw => return Err(ch_error(code, message)),
                    },
                }
            }
            let raw = PrimitiveArray::<Int64Type>::from(values);
            let data = raw.into_data().into_builder().data_type(ctx.ret_type().clone()).build()?;
            Ok(datafusion::arrow::array::make_array(data) as ArrayRef)
        },
    );
    on_error.build(def)
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        parse_date_time_fn("parseDateTime", OnError::Throw),
        parse_date_time_fn("parseDateTimeOrNull", OnError::Null),
        parse_date_time_fn("parseDateTimeOrZero", OnError::Zero),
        parse_date_time_fn("parseDateTime64", OnError::Throw),
        parse_date_time_fn("parseDateTime64OrNull", OnError::Null),
        parse_date_time_fn("parseDateTime64OrZero", OnError::Zero),
        parse_date_time_fn("parseDateTimeInJodaSyntax", OnError::Throw),
        parse_date_time_fn("parseDateTimeInJodaSyntaxOrNull", OnError::Null),
        parse_date_time_fn("parseDateTimeInJodaSyntaxOrZero", OnError::Zero),
        parse_date_time_fn("parseDateTime64InJodaSyntax", OnError::Throw),
        parse_date_time_fn("parseDateTime64InJodaSyntaxOrNull", OnError::Null),
        parse_date_time_fn("parseDateTime64InJodaSyntaxOrZero", OnError::Zero),
    ]
}

// ------------------------------------------------------------------ Joda syntax

const JODA_DEFAULT_FORMAT: &str = "yyyy-MM-dd HH:mm:ss";

/// One step of a compiled Joda format: literal text, or a pattern letter repeated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JodaStep {
    Literal(Vec<u8>),
    Field { letter: u8, repetitions: usize, fragment: String },
}

/// The length of a quoted literal starting after its opening quote (`''` inside counts
/// as two), or None without a closing quote (ClickHouse's `numLiteralChars`).
fn quoted_len(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            if bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Compiles a Joda format as ClickHouse's `parseJodaFormat`: `'text'` is literal (`''`
/// a quote), a run of one pattern letter is one field, other characters are literal.
pub(crate) fn compile_joda(format: &str) -> DfResult<Vec<JodaStep>> {
    let bytes = format.as_bytes();
    let mut steps = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let c = bytes[pos];
        if c == b'\'' {
            if bytes.get(pos + 1) == Some(&b'\'') {
                steps.push(JodaStep::Literal(b"'".to_vec()));
                pos += 2;
                continue;
            }
            let Some(count) = quoted_len(&bytes[pos + 1..]) else {
                return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "No closing single quote for literal"));
            };
            let mut i = 1;
            while i <= count {
                steps.push(JodaStep::Literal(vec![bytes[pos + i]]));
                if bytes[pos + i] == b'\'' {
                    i += 1;
                }
                i += 1;
            }
            pos += count + 2;
            continue;
        }
        let start = pos;
        while pos < bytes.len() && bytes[pos] == c {
            pos += 1;
        }
        let repetitions = pos - start;
        let token = String::from_utf8_lossy(&bytes[start..pos]).into_owned();
        match c {
            b'G' | b'C' | b'Y' | b'x' | b'w' | b'e' | b'E' | b'y' | b'D' | b'M' | b'd' | b'a' | b'K' | b'h' | b'H' | b'k' | b'm' | b's' | b'S'
            | b'Z' | b'z' => steps.push(JodaStep::Field { letter: c, repetitions, fragment: token }),
            _ if c.is_ascii_alphabetic() => return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, format!("format is not supported for {token}"))),
            _ => steps.push(JodaStep::Literal(bytes[start..pos].to_vec())),
        }
    }
    Ok(steps)
}

impl Input<'_> {
    /// ClickHouse's `readNumberWithVariableLength`: an optional sign, then up to
    /// `max_digits` digits (at least one); a two-letter year of exactly two digits is
    /// 1970-2069.
    fn joda_number(&mut self, allow_negative: bool, allow_plus: bool, is_year: bool, repetitions: usize, max_digits: usize) -> ParseResult<i32> {
        let mut negative = false;
        if allow_negative && self.s.get(self.pos) == Some(&b'-') {
            negative = true;
            self.pos += 1;
        } else if allow_plus && self.s.get(self.pos) == Some(&b'+') {
            self.pos += 1;
        }
        let start = self.pos;
        if max_digits >= 18 {
            return fail(format!("Unable to parse fragment {} from {} because max_digits_to_read is too big", self.fragment, ""));
        }
        let mut number: i64 = 0;
        while self.pos < self.s.len() && self.pos < start + max_digits && self.s[self.pos].is_ascii_digit() {
            number = number * 10 + i64::from(self.s[self.pos] - b'0');
            self.pos += 1;
        }
        if is_year && repetitions == 2 && self.pos - start == 2 {
            number += if number >= 70 { 1900 } else { 2000 };
        }
        if negative {
            number = -number;
        }
        if self.pos == start {
            return fail(format!("Unable to parse fragment {} from {} because read number failed", self.fragment, self.rest()));
        }
        i32::try_from(number).or_else(|_| {
            fail(format!(
                "Unable to parse fragment {} from {} because number is out of range of Int32",
                self.fragment,
                String::from_utf8_lossy(&self.s[start..self.pos])
            ))
        })
    }

    fn joda_need(&self, n: usize, what: &str) -> ParseResult<()> {
        self.need(n, &format!("{what} requires size >= {n}"))
    }
}

/// Full names after their first three letters, for the optional rest of a text field.
const JODA_WEEKDAYS: [(&str, &str); 7] =
    [("mon", "day"), ("tue", "sday"), ("wed", "nesday"), ("thu", "rsday"), ("fri", "day"), ("sat", "urday"), ("sun", "day")];
const JODA_MONTHS: [(&str, &str); 12] = [
    ("jan", "uary"),
    ("feb", "ruary"),
    ("mar", "ch"),
    ("apr", "il"),
    ("may", ""),
    ("jun", "e"),
    ("jul", "y"),
    ("aug", "ust"),
    ("sep", "tember"),
    ("oct", "ober"),
    ("nov", "ember"),
    ("dec", "ember"),
];

/// A weekday or month name: three letters pick it, the rest of the full name is skipped
/// when it follows. Its 1-based index.
fn joda_text(input: &mut Input, names: &[(&str, &str)], what: &str, unknown: &str) -> ParseResult<i32> {
    input.joda_need(3, what)?;
    let first = String::from_utf8_lossy(&input.s[input.pos..input.pos + 3]).to_ascii_lowercase();
    let Some(index) = names.iter().position(|(short, _)| *short == first) else {
        return fail(format!("Unable to parse fragment {} from {} because of unknown {unknown} text: {first}", input.fragment, input.rest()));
    };
    input.pos += 3;
    let tail = names[index].1.as_bytes();
    if input.pos + tail.len() <= input.s.len() && input.s[input.pos..input.pos + tail.len()].eq_ignore_ascii_case(tail) {
        input.pos += tail.len();
    }
    Ok(index as i32 + 1)
}

/// ClickHouse's `setHour` for the Joda letters, with its message (the hour already set
/// and the range's ends as it prints them).
fn joda_hour(f: &mut Fields, hour: i32, half_day: bool, from_1: bool) -> ParseResult<()> {
    let (min, max) = match (half_day, from_1) {
        (false, false) => (0, 23),
        (false, true) => (1, 24),
        (true, false) => (0, 11),
        (true, true) => (1, 12),
    };
    if hour < min || hour > max {
        return fail(format!(
            "Value {} for hour must be in the range [{max}, {min}] if_hour_of_half_day={half_day} and hour_starts_at_1={from_1}",
            f.hour
        ));
    }
    f.hour = if from_1 { hour % max } else { hour };
    f.half_day = half_day;
    Ok(())
}

fn joda_field(letter: u8, repetitions: usize, input: &mut Input, f: &mut Fields, session: &SessionTz) -> ParseResult<()> {
    let r = repetitions;
    match letter {
        b'G' => {
            input.joda_need(2, "jodaEra")?;
            let era = String::from_utf8_lossy(&input.s[input.pos..input.pos + 2]).to_ascii_lowercase();
            match era.as_str() {
                "ad" => {}
                "bc" => return fail("Era BC exceeds the range of DateTime".to_string()),
                _ => return fail(format!("Unknown era {era} (expected 'ad' or 'bc')")),
            }
            input.pos += 2;
            Ok(())
        }
        b'C' => {
            let v = input.joda_number(false, false, false, r, r)?;
            f.set_century(v)
        }
        b'Y' => {
            let v = input.joda_number(false, false, true, r, r)?;
            f.set_year(v)
        }
        b'x' => {
            let v = input.joda_number(true, true, true, r, r)?;
            f.set_year(v)?;
            f.week_date = true;
            f.day_of_year_format = false;
            Ok(())
        }
        b'w' => {
            let v = input.joda_number(false, false, false, r, r.max(2))?;
            f.set_week(v)
        }
        b'e' => {
            let v = input.joda_number(false, false, false, r, r)?;
            f.set_day_of_week(v)
        }
        b'E' => {
            let v = joda_text(input, &JODA_WEEKDAYS, "jodaDayOfWeekText", "day of week")?;
            f.set_day_of_week(v)
        }
        b'y' => {
            let v = input.joda_number(true, true, true, r, r)?;
            f.set_year(v)
        }
        b'D' => {
            let v = input.joda_number(false, false, false, r, r.max(3))?;
            f.set_day_of_year(v)
        }
        b'M' if r <= 2 => {
            let v = input.joda_number(false, false, false, r, 2)?;
            f.set_month(v)
        }
        b'M' => {
            let v = joda_text(input, &JODA_MONTHS, "jodaMonthOfYearText", "month of year")?;
            f.set_month(v)
        }
        b'd' => {
            let v = input.joda_number(false, false, false, r, r.max(2))?;
            f.set_day_of_month(v)
        }
        b'a' => {
            input.joda_need(2, "jodaHalfDayOfDay")?;
            let text = String::from_utf8_lossy(&input.s[input.pos..input.pos + 2]).to_ascii_lowercase();
            match text.as_str() {
                "am" => f.is_am = true,
                "pm" => f.is_am = false,
                _ => return fail(format!("Unknown half day of day: {text}")),
            }
            input.pos += 2;
            Ok(())
        }
        b'K' | b'h' | b'H' | b'k' => {
            let v = input.joda_number(false, false, false, r, r.max(2))?;
            joda_hour(f, v, matches!(letter, b'K' | b'h'), matches!(letter, b'h' | b'k'))
        }
        b'm' => {
            let v = input.joda_number(false, false, false, r, r.max(2))?;
            f.set_minute(v)
        }
        b's' => {
            let v = input.joda_number(false, false, false, r, r.max(2))?;
            f.set_second(v)
        }
        // Fractions of a second are read and dropped: the result is a DateTime.
        b'S' => {
            f.fraction = i64::from(input.joda_number(false, false, false, r, r.max(2))?);
            Ok(())
        }
        b'Z' => {
            input.joda_need(5, "jodaTimezoneOffset")?;
            let sign = match input.s[input.pos] {
                b'+' => 1,
                b'-' => -1,
                other => {
                    return fail(format!(
                        "Unable to parse fragment {} from {} because of unknown sign in time zone offset: {}",
                        input.fragment,
                        input.rest(),
                        other as char
                    ))
                }
            };
            input.pos += 1;
            let hours = input.joda_number(false, false, false, r, 2)?;
            let minutes = input.joda_number(false, false, false, r, 2)?;
            f.offset = Some(sign * (i64::from(hours) * 3600 + i64::from(minutes) * 60));
            Ok(())
        }
        // A time zone name: the rest of the input (empty: the server's zone).
        b'z' => {
            let name = input.rest();
            input.pos = input.s.len();
            f.zone = Some(if name.is_empty() {
                *session
            } else {
                parse_tz(&name).map_err(|_| (ErrorCode::BAD_ARGUMENTS, format!("Cannot load time zone {name}")))?
            });
            Ok(())
        }
        other => fail(format!("Unsupported format letter {}", other as char)),
    }
}

/// Seconds since the epoch of `text` read by a Joda format, or ClickHouse's error.
/// Seconds since the epoch; for `parseDateTime64InJodaSyntax` (`precision` given),
/// ticks of `ticks_per_second` with the fraction read at that precision.
fn parse_joda(text: &[u8], steps: &[JodaStep], zone: &SessionTz, session: &SessionTz, precision: Option<(u8, i64)>) -> ParseResult<i64> {
    let mut input = Input { s: text, pos: 0, fragment: "LITERAL" };
    let mut fields = Fields::new(precision.is_some());
    for step in steps {
        match step {
            JodaStep::Literal(lit) => {
                match_literal(&mut input, text, lit)?;
            }
            JodaStep::Field { letter, repetitions, fragment } => {
                // Messages name the pattern's own text (`yyyy`).
                let mut field_input = Input { s: text, pos: input.pos, fragment: fragment.as_str() };
                joda_field(*letter, *repetitions, &mut field_input, &mut fields, session)?;
                input.pos = field_input.pos;
            }
        }
    }
    if input.pos < text.len() {
        return fail(format!("Invalid format input {} is malformed at {}", String::from_utf8_lossy(text), input.rest()));
    }
    let Some((precision, ticks_per_second)) = precision else {
        return fields.seconds(zone);
    };
    // Wide fields count microseconds; Joda reads no `%f`, so they are whole seconds.
    let seconds = fields.seconds(zone)?.div_euclid(1_000_000);
    let per_unit = ticks_per_second / 10i64.pow(u32::from(precision));
    Ok(seconds.wrapping_mul(ticks_per_second).wrapping_add(fields.fraction.wrapping_mul(per_unit)))
}

/// The precision of `parseDateTime64InJodaSyntax`'s result: the width of the format's
/// first fraction field (`SSS` is 3), 0 without one.
fn joda_precision(steps: &[JodaStep]) -> DfResult<u8> {
    let width = steps
        .iter()
        .find_map(|s| match s {
            JodaStep::Field { letter: b'S', repetitions, .. } => Some(*repetitions),
            _ => None,
        })
        .unwrap_or(0);
    if width > 9 {
        return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Scale {width} is too large for DateTime64. Maximum is up to nanoseconds (9)")));
    }
    Ok(width as u8)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn utc(text: &str, format: &str) -> Result<i64, String> {
        let steps = compile_format(format, "parseDateTime").unwrap();
        parse(text.as_bytes(), &steps, &parse_tz("UTC").unwrap(), false).map_err(|(_, m)| m)
    }

    fn utc_micros(text: &str, format: &str) -> Result<i64, String> {
        let steps = compile_format(format, "parseDateTime64").unwrap();
        parse(text.as_bytes(), &steps, &parse_tz("UTC").unwrap(), true).map_err(|(_, m)| m)
    }

    #[test]
    fn parses_fractions_and_early_years_into_micros() {
        // Values from ClickHouse (chdb).
        assert_eq!(utc_micros("2024-05-17 10:11:12.345678", "%Y-%m-%d %H:%i:%s.%f"), Ok(1715940672345678));
        assert_eq!(utc_micros("2024-05-17 10:11:12.3", "%Y-%m-%d %H:%i:%s.%f"), Ok(1715940672300000));
        assert_eq!(utc_micros("1960-05-17 10:11:12.5", "%Y-%m-%d %H:%i:%s.%f"), Ok(-303745727500000));
        assert!(utc_micros("2024-05-17 10:11:12.1234567", "%Y-%m-%d %H:%i:%s.%f").is_err());
        assert!(utc_micros("2024-05-17 10:11:12.", "%Y-%m-%d %H:%i:%s.%f").is_err());
        assert!(utc("1960-05-17 10:11:12", DEFAULT_FORMAT).is_err());
    }

    #[test]
    fn parses_like_clickhouse() {
        assert_eq!(utc("2021-01-04 23:00:00", DEFAULT_FORMAT), Ok(1609801200));
        assert_eq!(utc("Jan 4 2021 11:05 PM", "%b %e %Y %h:%i %p"), Ok(1609801500));
        assert_eq!(utc("2021-01-04T23:00:00+0300", "%Y-%m-%dT%H:%i:%s%z"), Ok(1609790400));
        assert!(utc("20a1-01-04", "%Y-%m-%d").unwrap_err().contains("2491"));
        assert!(utc("2021-02-30", "%Y-%m-%d").is_err());
        assert!(utc("2021-01-04 x", "%Y-%m-%d").is_err());
        assert_eq!(utc("2106-02-07 06:28:16", DEFAULT_FORMAT), Ok(0));
        assert!(compile_format("%Y%", "parseDateTime").is_err());
    }

    fn joda(text: &str, format: &str) -> Result<i64, String> {
        let steps = compile_joda(format).map_err(|e| e.to_string())?;
        let utc = parse_tz("UTC").unwrap();
        parse_joda(text.as_bytes(), &steps, &utc, &utc, None).map_err(|(_, m)| m)
    }

    #[test]
    fn parses_joda_like_clickhouse() {
        assert_eq!(joda("2021-01-04 23:00:00", JODA_DEFAULT_FORMAT), Ok(1609801200));
        assert_eq!(joda("Jan 4, 2021 11:05:00 PM", "MMM d, yyyy h:mm:ss a"), Ok(1609801500));
        assert_eq!(joda("2021-01-04T23:00:00 +0300", "yyyy-MM-dd'T'HH:mm:ss Z"), Ok(1609790400));
        assert_eq!(joda("21-1-4", "yy-M-d"), Ok(1609718400));
        assert_eq!(joda("Monday 2021 1", "EEEE xxxx w"), Ok(1609718400));
        assert!(joda("2021-2-4", "y-M-d").unwrap_err().contains("Value 2 for year"));
        assert!(joda("2021", "yyyy 'x").unwrap_err().contains("No closing single quote"));
        assert!(joda("2021", "QQ").unwrap_err().contains("format is not supported for QQ"));
        assert!(joda("2021-01-04 x", "yyyy-MM-dd").unwrap_err().contains("malformed at  x"));
    }
}
