//! Modified Julian Days: `toModifiedJulianDay(OrNull)` reads `YYYY-MM-DD` text into the
//! day number counted from 1858-11-17, `fromModifiedJulianDay(OrNull)` writes it back.
//!
//! As ClickHouse's `GregorianDate`, the text must be exactly four year digits, two month
//! digits and two day digits separated by `-`, nothing after them, and a real date of
//! the years 0000-9999; the errors keep ClickHouse's codes (27 for the syntax, 38 for a
//! date that does not exist, 490 for a day number outside those years). The `OrNull`
//! forms give NULL instead of each of these errors.

use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, Int32Builder, Int64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type};
use datafusion::common::DataFusionError;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::text::datetime::{days_from_civil, days_in_month, write_date};
use granary_types::ChType;

use crate::args::{ch_error, is_integer, Arity, DfResult};
use crate::func::ScalarDef;
use crate::string::text_bytes;
use crate::text::ByteStrings;

/// Days from 1858-11-17 (day 0 of the Modified Julian Day count) to 1970-01-01.
const MJD_OF_UNIX_EPOCH: i64 = 40_587;
/// The day numbers of 0000-01-01 and 9999-12-31.
const FIRST_DAY: i64 = -678_941;
const LAST_DAY: i64 = 2_973_483;

fn parse_error(message: String) -> DataFusionError {
    ch_error(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, message)
}

/// The Modified Julian Day of `YYYY-MM-DD` text.
fn parse_modified_julian_day(text: &[u8]) -> DfResult<i64> {
    let mut pos = 0;
    let digits = |count: usize, pos: &mut usize| -> DfResult<u32> {
        let mut value = 0u32;
        for _ in 0..count {
            match text.get(*pos) {
                Some(c) if c.is_ascii_digit() => value = value * 10 + u32::from(c - b'0'),
                Some(_) => return Err(parse_error("Cannot read input: expected a digit but got something else".to_string())),
                None => return Err(parse_error("Cannot parse input: expected a digit at the end of stream".to_string())),
            }
            *pos += 1;
        }
        Ok(value)
    };
    let expect = |byte: u8, pos: &mut usize| -> DfResult<()> {
        if text.get(*pos) == Some(&byte) {
            *pos += 1;
            return Ok(());
        }
        let rest = String::from_utf8_lossy(&text[(*pos).min(text.len())..]).into_owned();
        Err(parse_error(format!("Cannot parse input: expected '{}' before: '{rest}'", byte as char)))
    };
    let year = digits(4, &mut pos)?;
    expect(b'-', &mut pos)?;
    let month = digits(2, &mut pos)?;
    expect(b'-', &mut pos)?;
    let day = digits(2, &mut pos)?;
    if pos < text.len() {
        let rest = String::from_utf8_lossy(&text[pos..]).into_owned();
        return Err(parse_error(format!("Cannot parse input: expected 'eof' before: '{rest}'")));
    }
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(i64::from(year), month) {
        return Err(ch_error(
            ErrorCode::CANNOT_PARSE_DATE,
            format!("Invalid date, out of range (year: {year}, month: {month}, day_of_month: {day})"),
        ));
    }
    Ok(days_from_civil(i64::from(year), month, day) + MJD_OF_UNIX_EPOCH)
}

fn to_modified_julian_day(name: &'static str, or_null: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| match ctx.ch(0).base() {
            ChType::String | ChType::FixedString(_) => Ok(if or_null { ChType::Int32.into_nullable() } else { ChType::Int32 }),
            _ => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The argument of function {name} must be String or FixedString"))),
        },
        move |ctx| {
            let input = ctx.array(0)?;
            let valid = input.logical_nulls();
            let texts = text_bytes(&input);
            let mut out = Int32Builder::with_capacity(ctx.len);
            for row in 0..ctx.len {
                if valid.as_ref().is_some_and(|v| v.is_null(row)) {
                    out.append_null();
                    continue;
                }
                match parse_modified_julian_day(texts.value(row)) {
                    Ok(day) => out.append_value(day as i32),
                    Err(_) if or_null => out.append_null(),
                    Err(e) => return Err(e),
                }
            }
            Ok(Arc::new(out.finish()))
        },
    )
    .build()
}

fn from_modified_julian_day(name: &'static str, or_null: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            if !is_integer(ctx.dt(0)) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The argument of function {name} must be integral")));
            }
            Ok(if or_null { ChType::String.into_nullable() } else { ChType::String })
        },
        move |ctx| {
            let input = ctx.array(0)?;
            // UInt64 values past i64::MAX are out of range either way: saturate them.
            let days: Int64Array = match input.data_type() {
                DataType::UInt64 => input.as_primitive::<datafusion::arrow::datatypes::UInt64Type>().unary(|v| i64::try_from(v).unwrap_or(i64::MAX)),
                _ => cast(&input, &DataType::Int64)?.as_primitive::<Int64Type>().clone(),
            };
            let mut out = ByteStrings::with_capacity(ctx.len, ctx.len * 10);
            let mut out_of_range: Option<Vec<bool>> = None;
            let mut scratch = Vec::with_capacity(10);
            for (row, day) in days.values().iter().enumerate() {
                if days.is_valid(row) && (FIRST_DAY..=LAST_DAY).contains(day) {
                    scratch.clear();
                    write_date(day - MJD_OF_UNIX_EPOCH, &mut scratch);
                    out.extend(&scratch);
                } else if days.is_valid(row) {
                    if !or_null {
                        return Err(ch_error(ErrorCode::CANNOT_FORMAT_DATETIME, "Value cannot be represented as date because it's out of range"));
                    }
                    out_of_range.get_or_insert_with(|| vec![false; ctx.len])[row] = true;
                }
                out.finish_value()?;
            }
            let nulls = out_of_range.map(|bad| bad.iter().map(|b| !b).collect());
            out.finish(nulls)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        to_modified_julian_day("toModifiedJulianDay", false),
        to_modified_julian_day("toModifiedJulianDayOrNull", true),
        from_modified_julian_day("fromModifiedJulianDay", false),
        from_modified_julian_day("fromModifiedJulianDayOrNull", true),
    ]
}

/// The civil date of a Modified Julian Day, for tests.
#[cfg(test)]
fn civil_of(day: i64) -> (i64, u32, u32) {
    granary_types::text::datetime::civil_from_days(day - MJD_OF_UNIX_EPOCH)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use granary_common::Error;

    fn code(text: &str) -> Option<ErrorCode> {
        parse_modified_julian_day(text.as_bytes()).err().map(|e| Error::from(e).code())
    }

    #[test]
    fn day_numbers_match_clickhouse() {
        assert_eq!(parse_modified_julian_day(b"1858-11-17").unwrap(), 0);
        assert_eq!(parse_modified_julian_day(b"1858-11-16").unwrap(), -1);
        assert_eq!(parse_modified_julian_day(b"2020-01-01").unwrap(), 58_849);
        assert_eq!(parse_modified_julian_day(b"0000-01-01").unwrap(), FIRST_DAY);
        assert_eq!(parse_modified_julian_day(b"9999-12-31").unwrap(), LAST_DAY);
        assert_eq!(parse_modified_julian_day(b"2000-02-29").unwrap(), 51_603);
        assert_eq!(civil_of(58_849), (2020, 1, 1));
        assert_eq!(civil_of(FIRST_DAY), (0, 1, 1));
    }

    #[test]
    fn bad_text_has_clickhouse_codes() {
        let syntax = Some(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
        for bad in ["", "2020-1-01", "20200101", "2020-01-01 ", "12345-01-01", "2020/01/01"] {
            assert_eq!(code(bad), syntax, "{bad}");
        }
        for bad in ["2020-02-30", "2020-13-01", "2019-02-29", "2020-00-10", "2020-01-00"] {
            assert_eq!(code(bad), Some(ErrorCode::CANNOT_PARSE_DATE), "{bad}");
        }
    }
}
