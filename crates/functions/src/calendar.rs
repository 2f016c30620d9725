//! Calendar functions, ClickHouse's (DateLUT) rules: weeks in MySQL's eight week modes
//! (`toWeek`, `toYearWeek`, `toISOWeek`, `toISOYear`, `toStartOfWeek`, `toMonday`,
//! `toLastDayOfWeek`, `toDayOfWeek` with a mode), `toLastDayOfMonth`, `toRelative*Num`,
//! `toStartOfInterval` (with an `Interval*` value, whose type keeps the unit, so weeks
//! stay weeks), `dateTrunc` (its unit as a string, ClickHouse's own result types),
//! `timeSlot`, `makeDate`/`makeDate32`/`makeDateTime`/`makeDateTime64`, the
//! `YYYYMMDDToDate*`/`YYYYMMDDhhmmssToDateTime*` family, `dateName`, `monthName` and `age`. Every function works on local wall-clock seconds in the
//! argument's (or the explicit) time zone, as the other date functions do.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Date32Type, Float32Type, Float64Type, TimeUnit, Int64Type, TimestampSecondType, UInt16Type, UInt32Type, UInt8Type};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, is_integer, is_numeric, is_string, must_be_constant, ordinal, Arity, DfResult};
use crate::conversion::convert::timestamp_ticks;
use crate::datetime::{check_date_arg, local_seconds, optional_tz, parse_unit, retype, ymd, zone_for, Unit};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::tz::{civil_from_days, day_of_week, days_from_civil, days_in_month, is_leap, parse_tz, SessionTz, DATE32_MAX_DAYS, DATE32_MIN_DAYS, DATE_MAX_DAYS};

const MONDAY_FIRST: u8 = 1;
const YEAR: u8 = 2;
const FIRST_WEEKDAY: u8 = 4;
const NEWYEAR_DAY: u8 = 8;

fn day_count_of_year(year: i64) -> i64 {
    if is_leap(year) {
        366
    } else {
        365
    }
}

/// Weekday of a day number, 0 = the week's first day (Monday, or Sunday when
/// `sunday_first`).
fn weekday(days: i64, sunday_first: bool) -> i64 {
    (days + 3 + i64::from(sunday_first)).rem_euclid(7)
}

/// (year, week) of day `days` in week mode `mode` (ClickHouse's `toYearWeek`, itself
/// MySQL's `calc_week`).
fn year_week(days: i64, mode: u8) -> (i64, i64) {
    let newyear_day = mode & NEWYEAR_DAY != 0;
    let mut mode = mode & 7;
    if mode & MONDAY_FIRST == 0 {
        mode ^= FIRST_WEEKDAY;
    }
    let monday_first = mode & MONDAY_FIRST != 0;
    let mut week_year = mode & YEAR != 0;
    let first_weekday = mode & FIRST_WEEKDAY != 0;
    let (year, month, day) = civil_from_days(days);
    if newyear_day {
        return year_week_from_new_year(days, monday_first);
    }
    let mut year = year;
    let mut first = days_from_civil(year, 1, 1);
    let mut wd = weekday(first, !monday_first);
    if month == 1 && (day as i64) <= 7 - wd {
        if !week_year && ((first_weekday && wd != 0) || (!first_weekday && wd >= 4)) {
            return (year, 0);
        }
        week_year = true;
        year -= 1;
        let length = day_count_of_year(year);
        first -= length;
        wd = (wd + 53 * 7 - length).rem_euclid(7);
    }
    let offset = if (first_weekday && wd != 0) || (!first_weekday && wd >= 4) { days - (first + (7 - wd)) } else { days - (first - wd) };
    if week_year && offset >= 52 * 7 {
        let next = (wd + day_count_of_year(year)).rem_euclid(7);
        if (!first_weekday && next < 4) || (first_weekday && next == 0) {
            return (year + 1, 1);
        }
    }
    (year, offset / 7 + 1)
}

/// Week modes 8 and 9: week 1 is the one holding January 1st.
fn year_week_from_new_year(days: i64, monday_first: bool) -> (i64, i64) {
    let week_start = |d: i64| d - weekday(d, !monday_first);
    let (year, _, _) = civil_from_days(week_start(days) + 6);
    let first = week_start(days_from_civil(year, 1, 1));
    (year, (week_start(days) - first) / 7 + 1)
}

/// First day of the week holding `days`: Monday in modes with bit 1 set, else Sunday.
fn week_start(days: i64, mode: u8) -> i64 {
    days - weekday(days, mode & MONDAY_FIRST == 0)
}

fn clamp_date(days: i64) -> i32 {
    days.clamp(0, DATE_MAX_DAYS) as i32
}

fn clamp_date32(days: i64) -> i32 {
    days.clamp(DATE32_MIN_DAYS, DATE32_MAX_DAYS) as i32
}

/// An optional constant `mode` argument at `index` (a string there is the time zone).
fn mode_arg(ctx: &RetCtx, index: usize) -> DfResult<()> {
    if ctx.arg_count() > index && !is_string(ctx.dt(index)) {
        if !is_integer(ctx.dt(index)) {
            return Err(illegal_type(ctx.name, index, ctx.field(index)));
        }
        ctx.const_int(index, "mode")?;
    }
    Ok(())
}

/// (mode, index of the time-zone argument) for `f(t[, mode][, tz])`.
fn mode_and_zone(ctx: &ExecCtx, index: usize) -> DfResult<(u8, usize)> {
    if ctx.args.len() > index && !is_string(ctx.dt(index)) {
        Ok((ctx.const_int(index, "mode")?.clamp(0, 255) as u8, index + 1))
    } else {
        Ok((0, index))
    }
}

fn check_ret_zone(ctx: &RetCtx, index: usize) -> DfResult<()> {
    if ctx.arg_count() > index && is_string(ctx.dt(index)) {
        optional_tz(ctx, index)?;
    }
    Ok(())
}

/// `f(t[, mode][, tz])` returning a number computed from the local day number.
fn week_number<T: datafusion::arrow::datatypes::ArrowPrimitiveType>(name: &'static str, ret: ChType, default_mode: u8, f: fn(i64, u8) -> T::Native) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 3),
        move |ctx| {
            check_date_arg(ctx, 0, true)?;
            mode_arg(ctx, 1)?;
            check_ret_zone(ctx, if ctx.arg_count() > 1 && !is_string(ctx.dt(1)) { 2 } else { 1 })?;
            Ok(ret.clone())
        },
        move |ctx| {
            let (mode, zone_index) = mode_and_zone(ctx, 1)?;
            let mode = if ctx.args.len() > 1 && !is_string(ctx.dt(1)) { mode } else { default_mode };
            let zone = zone_for(ctx, 0, Some(zone_index))?;
            let local = local_seconds(&ctx.array(0)?, &zone)?;
            Ok(Arc::new(local.unary::<_, T>(move |s| f(s.div_euclid(86_400), mode))))
        },
    )
    .build()
}

/// `f(t[, mode][, tz])` returning a Date computed from the local day number.
fn week_day_fn(name: &'static str, f: fn(i64, u8) -> i64) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 3),
        |ctx| {
            check_date_arg(ctx, 0, true)?;
            mode_arg(ctx, 1)?;
            check_ret_zone(ctx, if ctx.arg_count() > 1 && !is_string(ctx.dt(1)) { 2 } else { 1 })?;
            Ok(ChType::Date)
        },
        move |ctx| {
            let (mode, zone_index) = mode_and_zone(ctx, 1)?;
            let zone = zone_for(ctx, 0, Some(zone_index))?;
            let local = local_seconds(&ctx.array(0)?, &zone)?;
            Ok(Arc::new(local.unary::<_, Date32Type>(move |s| clamp_date(f(s.div_euclid(86_400), mode)))))
        },
    )
    .build()
}

/// `toDayOfWeek(t[, mode][, tz])`: mode 0 Monday = 1 .. Sunday = 7; 1 Monday = 0 .. 6;
/// 2 Sunday = 0 .. 6; 3 Sunday = 1 .. 7.
fn day_of_week_with_mode(days: i64, mode: u8) -> u8 {
    let iso = day_of_week(days); // Monday = 1 .. Sunday = 7
    match mode & 3 {
        0 => iso,
        1 => iso - 1,
        2 => iso % 7,
        _ => iso % 7 + 1,
    }
}

/// `toRelative<Unit>Num(t[, tz])`: UInt32 counts since the epoch, as ClickHouse numbers
/// them (weeks from Monday, months as year * 12 + month, seconds as the Unix time).
fn relative_num(name: &'static str, unit: Unit) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 2),
        |ctx| {
            check_date_arg(ctx, 0, true)?;
            optional_tz(ctx, 1)?;
            Ok(ChType::UInt32)
        },
        move |ctx| {
            let zone = zone_for(ctx, 0, Some(1))?;
            let array = ctx.array(0)?;
            if unit == Unit::Second {
                // The Unix time itself, whatever the zone.
                let utc = utc_seconds(&array, &zone)?;
                return Ok(Arc::new(utc.unary::<_, UInt32Type>(|s| s as u32)));
            }
            let local = local_seconds(&array, &zone)?;
            Ok(Arc::new(local.unary::<_, UInt32Type>(move |s| {
                let days = s.div_euclid(86_400);
                let value = match unit {
                    Unit::Minute => s.div_euclid(60),
                    Unit::Hour => s.div_euclid(3600),
                    Unit::Day => days,
                    Unit::Week => (days + 8 - day_of_week(days) as i64).div_euclid(7),
                    Unit::Month | Unit::Quarter | Unit::Year => {
                        let (y, m, _) = civil_from_days(days);
                        match unit {
                            Unit::Month => y * 12 + m as i64,
                            Unit::Quarter => y * 4 + (m as i64 - 1) / 3,
                            _ => y,
                        }
                    }
                    _ => s,
                };
                value as u32
            })))
        },
    )
    .build()
}

/// Seconds since the epoch (UTC) of a date or time column; dates are midnight in `zone`.
fn utc_seconds(array: &ArrayRef, zone: &SessionTz) -> DfResult<PrimitiveArray<Int64Type>> {
    match array.data_type() {
        DataType::Date32 => {
            let zone = *zone;
            Ok(array.as_primitive::<Date32Type>().unary(move |d| zone.to_utc(d as i64 * 86_400)))
        }
        _ => {
            let (raw, per) = timestamp_ticks(array)?;
            Ok(raw.unary(move |v| v.div_euclid(per)))
        }
    }
}

/// A DateTime column (seconds, with the result type's zone) from UTC seconds.
fn datetime_array(values: PrimitiveArray<Int64Type>, ret: &DataType) -> ArrayRef {
    let tz = match ret {
        DataType::Timestamp(_, tz) => tz.clone(),
        _ => None,
    };
    let out: PrimitiveArray<TimestampSecondType> = values.unary(|v| v.max(0));
    Arc::new(out.with_timezone_opt(tz))
}

/// The zone a DateTime result is shown in: the explicit argument, else the input's.
fn result_zone(ctx: &RetCtx, tz_index: usize, input: usize) -> DfResult<Option<String>> {
    Ok(optional_tz(ctx, tz_index)?.or_else(|| match ctx.dt(input) {
        DataType::Timestamp(_, Some(z)) => Some(z.to_string()),
        _ => None,
    }))
}

/// `toStartOfInterval(t, INTERVAL n unit[, tz])`. Intervals are aligned as
/// ClickHouse aligns them: seconds and minutes on the epoch, hours within the day, days
/// on the epoch, weeks on Mondays counted from 1970-01-05, months from January 1900;
/// milliseconds, microseconds and nanoseconds (DateTime64 only) on the epoch.
fn start_of_interval() -> ScalarUDF {
    ScalarDef::new(
        "toStartOfInterval",
        Arity::range(2, 4),
        |ctx| {
            check_date_arg(ctx, 0, true)?;
            // The count is checked here when the interval is a literal, else once folded.
            let (count, unit, tz_index) = interval_of(|i| ctx.ch(i), |i| ctx.scalar(i).cloned(), ctx.name)?;
            if let Some(count) = count {
                positive_count(count, ctx.name)?;
            }
            if let Some(scale) = unit.sub_second_precision() {
                // Sub-second intervals only for DateTime64; the result has the
                // interval's own scale (milliseconds: DateTime64(3)), whatever the input's.
                if !matches!(ctx.ch(0).base(), ChType::DateTime64(..)) {
                    return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal interval kind for argument data type {}", ctx.ch(0).base())));
                }
                return Ok(ChType::DateTime64(scale, result_zone(ctx, tz_index, 0)?));
            }
            Ok(match unit {
                Unit::Week | Unit::Month | Unit::Quarter | Unit::Year => ChType::Date,
                _ => ChType::DateTime(result_zone(ctx, tz_index, 0)?),
            })
        },
        |ctx| {
            let (n, unit, tz_index) = interval_of(|i| ctx.ch(i), |i| ctx.scalar(i).cloned(), ctx.name)?;
            let n = positive_count(n.ok_or_else(|| must_be_constant(ctx.name, 1, "interval"))?, ctx.name)?;
            if let Some(scale) = unit.sub_second_precision() {
                // Zone offsets are whole seconds: sub-second starts are the same in every
                // zone, counted from the epoch in the interval's unit.
                let (ticks, per) = timestamp_ticks(&ctx.array(0)?)?;
                let target = 10i64.pow(u32::from(scale));
                let starts: PrimitiveArray<Int64Type> = ticks.unary(move |v| {
                    let v = if target >= per { v.saturating_mul(target / per) } else { v.div_euclid(per / target) };
                    v.div_euclid(n) * n
                });
                let data = starts.into_data().into_builder().data_type(ctx.ret_type().clone()).build()?;
                return Ok(datafusion::arrow::array::make_array(data));
            }
            let zone = zone_for(ctx, 0, Some(tz_index))?;
            let local = local_seconds(&ctx.array(0)?, &zone)?;
            let day_of = |s: i64| s.div_euclid(86_400);
            match unit {
                Unit::Week | Unit::Month | Unit::Quarter | Unit::Year => {
                    let out: PrimitiveArray<Date32Type> = local.unary(move |s| {
                        let days = day_of(s);
                        let start = match unit {
                            Unit::Week if n == 1 => week_start(days, MONDAY_FIRST),
                            Unit::Week => 4 + (days - 4).div_euclid(7 * n) * 7 * n,
                            Unit::Year => {
                                let (y, _, _) = civil_from_days(days);
                                days_from_civil(y.div_euclid(n) * n, 1, 1)
                            }
                            _ => {
                                let months = if unit == Unit::Quarter { 3 * n } else { n };
                                let (y, m, _) = civil_from_days(days);
                                let index = ((y - 1900) * 12 + m as i64 - 1).div_euclid(months) * months;
                                days_from_civil(1900 + index.div_euclid(12), (index.rem_euclid(12) + 1) as u32, 1)
                            }
                        };
                        clamp_date(start)
                    });
                    Ok(Arc::new(out))
                }
                _ => {
                    let utc: PrimitiveArray<Int64Type> = local.unary(move |s| {
                        let start = match unit {
                            Unit::Day => day_of(s).div_euclid(n) * n * 86_400,
                            Unit::Hour => {
                                let midnight = day_of(s) * 86_400;
                                midnight + (s - midnight).div_euclid(3600 * n) * 3600 * n
                            }
                            Unit::Minute => s.div_euclid(60 * n) * 60 * n,
                            _ => s.div_euclid(n) * n,
                        };
                        zone.to_utc(start)
                    });
                    Ok(datetime_array(utc, ctx.ret_type()))
                }
            }
        },
    )
    .build()
}

/// `toStartOfSecond`, `toStartOfMillisecond`, `toStartOfMicrosecond`,
/// `toStartOfNanosecond` (DateTime64 only): the value floored to the unit, as a
/// DateTime64 of the input's scale or the unit's, whichever is finer.
fn start_of_sub_second(name: &'static str, unit_scale: u8) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 2),
        move |ctx| {
            let ChType::DateTime64(precision, _) = ctx.ch(0).base().clone() else {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument for function {}", ctx.ch(0), ctx.name)));
            };
            Ok(ChType::DateTime64(precision.max(unit_scale), result_zone(ctx, 1, 0)?))
        },
        move |ctx| {
            let (ticks, per) = timestamp_ticks(&ctx.array(0)?)?;
            let per_out = match ctx.ret_type() {
                DataType::Timestamp(unit, _) => match unit {
                    datafusion::arrow::datatypes::TimeUnit::Second => 1,
                    datafusion::arrow::datatypes::TimeUnit::Millisecond => 1_000,
                    datafusion::arrow::datatypes::TimeUnit::Microsecond => 1_000_000,
                    datafusion::arrow::datatypes::TimeUnit::Nanosecond => 1_000_000_000,
                },
                other => return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} must return a DateTime64, not {other}", ctx.name))),
            };
            let step = (per / 10i64.pow(u32::from(unit_scale))).max(1);
            let scale_up = (per_out / per).max(1);
            let starts: PrimitiveArray<Int64Type> = ticks.unary(move |v| (v.div_euclid(step) * step).saturating_mul(scale_up));
            let data = starts.into_data().into_builder().data_type(ctx.ret_type().clone()).build()?;
            Ok(datafusion::arrow::array::make_array(data))
        },
    )
    .build()
}

/// The unit of `dateTrunc`: only the singular unit names ClickHouse's
/// `IntervalKind::tryParseString` knows (`'mm'` or `'days'` are errors here, unlike in
/// `dateDiff`).
fn date_trunc_unit(ctx: &RetCtx) -> DfResult<Unit> {
    let Some(text) = ctx.scalar(0).and_then(crate::args::scalar_str) else {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("First argument for function {} must be constant string: name of datepart", ctx.name)));
    };
    let text = text.to_lowercase();
    if text.is_empty() {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("First argument (name of datepart) for function {} cannot be empty", ctx.name)));
    }
    Unit::ALL
        .into_iter()
        .find(|unit| unit.name().eq_ignore_ascii_case(&text))
        .ok_or_else(|| ch_error(ErrorCode::BAD_ARGUMENTS, format!("{text} doesn't look like datepart name in {}", ctx.name)))
}

/// `dateTrunc(unit, t[, tz])` (alias `DATE_TRUNC`): `toStartOfInterval(t, INTERVAL 1
/// unit[, tz])` with ClickHouse's own result types: a date for weeks and longer, a
/// DateTime for days down to seconds, a DateTime64 of the unit's scale below; Date32
/// and DateTime64 inputs widen Date and DateTime to Date32 and DateTime64(0), as
/// `function_date_trunc_return_type_behavior = 0` (the default) has them.
fn date_trunc() -> ScalarUDF {
    ScalarDef::new(
        "dateTrunc",
        Arity::range(2, 3),
        |ctx| {
            let unit = date_trunc_unit(ctx)?;
            let input = ctx.ch(1).base().clone();
            if !matches!(input, ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type {} of 2nd argument of function {}. Should be a date or a date with time", ctx.ch(1), ctx.name),
                ));
            }
            let is_date = matches!(input, ChType::Date | ChType::Date32);
            if is_date && matches!(unit, Unit::Hour | Unit::Minute | Unit::Second) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {input} of argument for function {}", ctx.name)));
            }
            let calendar = matches!(unit, Unit::Week | Unit::Month | Unit::Quarter | Unit::Year);
            if ctx.arg_count() > 2 {
                if !is_string(ctx.dt(2)) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Illegal type {} of argument of function {}. This argument is optional and must be a constant string with timezone name", ctx.ch(2), ctx.name),
                    ));
                }
                if is_date && calendar {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("The timezone argument of function {} with datepart '{}' is allowed only when the 2nd argument has the type DateTime", ctx.name, unit.name().to_lowercase()),
                    ));
                }
            }
            let wide = matches!(input, ChType::Date32 | ChType::DateTime64(..));
            if let Some(scale) = unit.sub_second_precision() {
                if !matches!(input, ChType::DateTime64(..)) {
                    return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal interval kind for argument data type {input}")));
                }
                return Ok(ChType::DateTime64(scale, result_zone(ctx, 2, 1)?));
            }
            Ok(match (calendar, wide) {
                (true, false) => ChType::Date,
                (true, true) => ChType::Date32,
                (false, false) => ChType::DateTime(result_zone(ctx, 2, 1)?),
                (false, true) => ChType::DateTime64(0, result_zone(ctx, 2, 1)?),
            })
        },
        |ctx| {
            let array = ctx.array(1)?;
            let ret = ctx.ret_ch();
            if let ChType::DateTime64(scale, _) = ret.base() {
                if *scale > 0 {
                    // Offsets are whole seconds: sub-second starts are the same in every zone.
                    let (ticks, per) = timestamp_ticks(&array)?;
                    let target = 10i64.pow(u32::from(*scale));
                    let starts: PrimitiveArray<Int64Type> =
                        ticks.unary(move |v| if target >= per { v.saturating_mul(target / per) } else { v.div_euclid(per / target) });
                    return retype(starts, ret.base());
                }
            }
            let unit = match parse_unit(ctx.name, ctx.const_str(0, "unit")?)? {
                Unit::Nanosecond | Unit::Microsecond | Unit::Millisecond => Unit::Second,
                unit => unit,
            };
            let zone = zone_for(ctx, 1, Some(2))?;
            let local = local_seconds(&array, &zone)?;
            match ret.base() {
                ChType::Date | ChType::Date32 => {
                    let date32 = matches!(ret.base(), ChType::Date32);
                    let out: PrimitiveArray<Date32Type> = local.unary(move |s| {
                        let days = s.div_euclid(86_400);
                        let (y, m, _) = civil_from_days(days);
                        let start = match unit {
                            Unit::Week => week_start(days, MONDAY_FIRST),
                            Unit::Month => days_from_civil(y, m, 1),
                            Unit::Quarter => days_from_civil(y, (m - 1) / 3 * 3 + 1, 1),
                            _ => days_from_civil(y, 1, 1),
                        };
                        if date32 {
                            clamp_date32(start)
                        } else {
                            clamp_date(start)
                        }
                    });
                    Ok(Arc::new(out))
                }
                _ => {
                    let step = match unit {
                        Unit::Day => 86_400,
                        Unit::Hour => 3600,
                        Unit::Minute => 60,
                        _ => 1,
                    };
                    let utc: PrimitiveArray<Int64Type> = local.unary(move |s| zone.to_utc(s.div_euclid(step) * step));
                    match ret.base() {
                        ChType::DateTime(_) => Ok(datetime_array(utc, ctx.ret_type())),
                        _ => retype(utc, ret.base()),
                    }
                }
            }
        },
    )
    .build()
}

/// (count when constant, unit, index of the time-zone argument) of
/// `toStartOfInterval(t, interval[, tz])`.
fn interval_of(ch: impl Fn(usize) -> ChType, scalar: impl Fn(usize) -> Option<ScalarValue>, name: &str) -> DfResult<(Option<i64>, Unit, usize)> {
    let ChType::Interval(unit) = *ch(1).base() else {
        return Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Illegal type {} of argument of function {name}. Should be an interval of time", ch(1)),
        ));
    };
    let count = scalar(1).as_ref().and_then(crate::args::scalar_i128).map(|n| n as i64);
    Ok((count, unit, 2))
}

fn positive_count(count: i64, name: &str) -> DfResult<i64> {
    if count <= 0 {
        return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Value for second argument of function {name} must be positive")));
    }
    Ok(count)
}

/// `timeSlot(t)`: the start of the half hour.
fn time_slot() -> ScalarUDF {
    ScalarDef::new(
        "timeSlot",
        Arity::range(1, 2),
        |ctx| {
            check_date_arg(ctx, 0, false)?;
            Ok(ChType::DateTime(result_zone(ctx, 1, 0)?))
        },
        |ctx| {
            let zone = zone_for(ctx, 0, Some(1))?;
            let local = local_seconds(&ctx.array(0)?, &zone)?;
            Ok(datetime_array(local.unary(move |s| zone.to_utc(s.div_euclid(1800) * 1800)), ctx.ret_type()))
        },
    )
    .build()
}

/// Arguments of `makeDate*` as Float64: ClickHouse checks the ranges before it drops
/// fractions.
fn float_column(ctx: &ExecCtx, i: usize) -> DfResult<PrimitiveArray<Float64Type>> {
    Ok(cast(&ctx.array(i)?, &DataType::Float64)?.as_primitive::<Float64Type>().clone())
}

/// The day number of (year, month, day), or (year, day of year) with `month` None, as
/// ClickHouse's `makeDate` reads them: a year in 0..=9999, a month in 1..=12, a day in
/// 1..=31 (running into the next month past the month's end) or a day of the year in
/// 1..=365; `None` otherwise (also for NaN).
fn make_days(year: f64, month: Option<f64>, day: f64) -> Option<i64> {
    let within = |v: f64, low: f64, high: f64| v >= low && v <= high;
    if !within(year, 0.0, 9999.0) {
        return None;
    }
    let year = year as i64;
    match month {
        Some(month) if within(month, 1.0, 12.0) && within(day, 1.0, 31.0) => Some(days_from_civil(year, month as u32, 1) + day as i64 - 1),
        None if within(day, 1.0, 365.0) => Some(days_from_civil(year, 1, 1) + day as i64 - 1),
        _ => None,
    }
}

/// `makeDate(y, m, d)` / `makeDate(y, day_of_year)` and `makeDate32`: 1970-01-01 for
/// parts that name no day, or a day outside the type's range.
fn make_date(name: &'static str, date32: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(2, 3),
        move |ctx| {
            for i in 0..ctx.arg_count() {
                if !is_numeric(ctx.dt(i)) {
                    return Err(illegal_type(ctx.name, i, ctx.field(i)));
                }
            }
            Ok(if date32 { ChType::Date32 } else { ChType::Date })
        },
        move |ctx| {
            let years = float_column(ctx, 0)?;
            let months = if ctx.args.len() == 3 { Some(float_column(ctx, 1)?) } else { None };
            let days = float_column(ctx, ctx.args.len() - 1)?;
            let (low, high) = if date32 { (days_from_civil(0, 1, 1), days_from_civil(9999, 12, 31)) } else { (0, DATE_MAX_DAYS) };
            let out: PrimitiveArray<Date32Type> = (0..ctx.len)
                .map(|i| {
                    let day = make_days(years.value(i), months.as_ref().map(|m| m.value(i)), days.value(i)).filter(|d| (low..=high).contains(d));
                    Some(day.unwrap_or(0) as i32)
                })
                .collect();
            Ok(Arc::new(out))
        },
    )
    .build()
}

/// Local civil fields as ClickHouse's `makeDateTime` family reads them
/// (`FunctionDateTimeBase::dateTime`), in UTC seconds: a field out of range (month 13,
/// hour 100, a year before 1900) gives the first second of 1900, a year after 2299 the
/// last second of 2299; otherwise a day past the month's end runs into the next month
/// and hours, minutes and seconds up to 99 carry over, as when text is parsed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MadeTime {
    First,
    Last,
    At(i64),
}

impl MadeTime {
    fn new(fields: [f64; 6], zone: &SessionTz) -> MadeTime {
        let [year, month, day, hour, minute, second] = fields;
        let within = |v: f64, low: f64, high: f64| v >= low && v <= high;
        if fields.iter().any(|v| v.is_nan())
            || year < 1900.0
            || !within(month, 1.0, 12.0)
            || !within(day, 1.0, 31.0)
            || !within(hour, 0.0, 99.0)
            || !within(minute, 0.0, 99.0)
            || !within(second, 0.0, 99.0)
        {
            return MadeTime::First;
        }
        if year > 2299.0 {
            return MadeTime::Last;
        }
        // The fields are whole numbers in range now; fractions are dropped, as C++ casts do.
        let days = (days_from_civil(year as i64, month as u32, 1) + day as i64 - 1).min(DATE32_MAX_DAYS);
        MadeTime::At(zone.to_utc(days * 86_400 + hour as i64 * 3600 + minute as i64 * 60 + second as i64))
    }

    fn seconds(self, zone: &SessionTz) -> i64 {
        match self {
            MadeTime::First => zone.to_utc(DATE32_MIN_DAYS * 86_400),
            MadeTime::Last => zone.to_utc(DATE32_MAX_DAYS * 86_400 + 86_399),
            MadeTime::At(seconds) => seconds,
        }
    }
}

/// Numeric arguments as ClickHouse's `makeDateTime` converts them: to Float32.
fn float32_column(ctx: &ExecCtx, i: usize) -> DfResult<Vec<f64>> {
    let as_float = cast(&ctx.array(i)?, &DataType::Float32)?;
    Ok(as_float.as_primitive::<Float32Type>().values().iter().map(|v| f64::from(*v)).collect())
}

fn check_numbers(ctx: &RetCtx, names: &[&str]) -> DfResult<()> {
    for (i, name) in names.iter().enumerate() {
        if !is_numeric(ctx.dt(i)) {
            return Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("A value of illegal type was provided as {} argument '{name}' to function '{}'. Expected: Number, got: {}", ordinal(i + 1), ctx.name, ctx.ch(i)),
            ));
        }
    }
    Ok(())
}

/// The constant `precision` argument of `makeDateTime64` and `YYYYMMDDhhmmssToDateTime64`.
fn precision_at(ctx: &RetCtx, i: usize) -> DfResult<u8> {
    if ctx.arg_count() <= i {
        return Ok(3);
    }
    if !is_numeric(ctx.dt(i)) {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument 'precision' for function {} must be constant number", ctx.name)));
    }
    let Some(p) = ctx.scalar(i).and_then(crate::args::scalar_i128) else {
        return Err(ch_error(
            ErrorCode::ILLEGAL_COLUMN,
            format!("A value of illegal type was provided as {} argument 'precision' to function '{}'. Expected: const Number, got: {}", ordinal(i + 1), ctx.name, ctx.ch(i)),
        ));
    };
    if !(0..=9).contains(&p) {
        return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Argument 'precision' for function {} must be in range [0, 9]", ctx.name)));
    }
    Ok(p as u8)
}

/// The zone of `f(..., tz)` at argument `i`, when given.
fn zone_at(ctx: &RetCtx, i: usize) -> DfResult<Option<String>> {
    if ctx.arg_count() > i && !is_string(ctx.dt(i)) {
        return Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("A value of illegal type was provided as {} argument 'timezone' to function '{}'. Expected: const String, got: {}", ordinal(i + 1), ctx.name, ctx.ch(i)),
        ));
    }
    optional_tz(ctx, i)
}

fn exec_zone(ctx: &ExecCtx, i: usize) -> DfResult<SessionTz> {
    if ctx.args.len() > i {
        parse_tz(ctx.const_str(i, "time zone")?)
    } else {
        ctx.session_tz()
    }
}

/// UTC seconds clamped to DateTime's range.
fn datetime_seconds(made: MadeTime, zone: &SessionTz) -> i64 {
    made.seconds(zone).clamp(0, crate::tz::DATETIME_MAX)
}

/// Seconds and a fraction (in units of 10^-precision) as the ticks of the DateTime64's
/// Arrow unit: `whole * 10^p + fraction`, as ClickHouse's `decimalFromComponents` adds
/// them (also below 1970); ticks past Int64 are DECIMAL_OVERFLOW.
fn datetime64_ticks(seconds: i64, fraction: i64, precision: u8) -> DfResult<i64> {
    let scale = 10i64.pow(u32::from(precision));
    let per = match crate::conversion::convert::time_unit_for_precision(precision) {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    };
    seconds
        .checked_mul(scale)
        .and_then(|t| t.checked_add(fraction % scale))
        .and_then(|t| t.checked_mul(per / scale))
        .ok_or_else(|| ch_error(ErrorCode::DECIMAL_OVERFLOW, "Decimal math overflow"))
}

const DATE_TIME_FIELDS: [&str; 6] = ["year", "month", "day", "hour", "minute", "second"];

/// `makeDateTime(y, m, d, h, mi, s[, tz])`.
fn make_date_time() -> ScalarUDF {
    ScalarDef::new(
        "makeDateTime",
        Arity::range(6, 7),
        |ctx| {
            check_numbers(ctx, &DATE_TIME_FIELDS)?;
            Ok(ChType::DateTime(zone_at(ctx, 6)?))
        },
        |ctx| {
            let zone = exec_zone(ctx, 6)?;
            let parts = (0..6).map(|i| float32_column(ctx, i)).collect::<DfResult<Vec<_>>>()?;
            let utc: PrimitiveArray<Int64Type> =
                (0..ctx.len).map(|row| Some(datetime_seconds(MadeTime::new(std::array::from_fn(|k| parts[k][row]), &zone), &zone))).collect();
            Ok(datetime_array(utc, ctx.ret_type()))
        },
    )
    .build()
}

/// `makeDateTime64(y, m, d, h, mi, s[, fraction[, precision[, tz]]])`: the fraction is
/// in units of the precision (3 by default), clamped to [0, 10^p - 1]; the first
/// second of 1900 has no fraction and the last of 2299 the largest.
fn make_date_time64() -> ScalarUDF {
    ScalarDef::new(
        "makeDateTime64",
        Arity::range(6, 9),
        |ctx| {
            check_numbers(ctx, &DATE_TIME_FIELDS)?;
            if ctx.arg_count() > 6 && !is_numeric(ctx.dt(6)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 7th argument 'fraction' to function '{}'. Expected: const Number, got: {}", ctx.name, ctx.ch(6)),
                ));
            }
            Ok(ChType::DateTime64(precision_at(ctx, 7)?, zone_at(ctx, 8)?))
        },
        |ctx| {
            let ChType::DateTime64(precision, _) = ctx.ret_ch().base().clone() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, "makeDateTime64 must return a DateTime64"));
            };
            let zone = exec_zone(ctx, 8)?;
            let parts = (0..6).map(|i| float32_column(ctx, i)).collect::<DfResult<Vec<_>>>()?;
            let fractions = if ctx.args.len() > 6 {
                let f = cast(&ctx.array(6)?, &DataType::Float64)?;
                f.as_primitive::<Float64Type>().values().to_vec()
            } else {
                vec![0.0; ctx.len]
            };
            let max_fraction = (10f64.powi(i32::from(precision)) - 1.0).max(0.0);
            let ticks = (0..ctx.len)
                .map(|row| {
                    let mut made = MadeTime::new(std::array::from_fn(|k| parts[k][row]), &zone);
                    let fraction = match made {
                        MadeTime::First => 0,
                        MadeTime::Last => 999_999_999,
                        MadeTime::At(_) if fractions[row].is_nan() => {
                            made = MadeTime::First;
                            0
                        }
                        MadeTime::At(_) => fractions[row].clamp(0.0, max_fraction) as i64,
                    };
                    datetime64_ticks(made.seconds(&zone), fraction, precision).map(Some)
                })
                .collect::<DfResult<PrimitiveArray<Int64Type>>>()?;
            retype(ticks, ctx.ret_ch().base())
        },
    )
    .build()
}

/// A `YYYYMMDD...` number rounded to an integer; infinities and NaN are errors.
fn packed_number(value: f64, name: &str) -> DfResult<i64> {
    if !value.is_finite() {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Argument for function {name} must be finite")));
    }
    Ok(value.round() as i64)
}

/// `YYYYMMDDToDate(n)` / `YYYYMMDDToDate32(n)`: the day of a `YYYYMMDD` number (a day
/// past the month's end runs into the next month, as in ClickHouse).
fn yyyymmdd_to_date(name: &'static str, date32: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            check_numbers(ctx, &["YYYYMMDD"])?;
            Ok(if date32 { ChType::Date32 } else { ChType::Date })
        },
        move |ctx| {
            let values = cast(&ctx.array(0)?, &DataType::Float64)?;
            // ClickHouse 26's Date32 spans the years 0000-9999; a day it cannot name is
            // 1970-01-01 for both types.
            let (min_year, max_year, max_day) = if date32 { (0, 9999, days_from_civil(9999, 12, 31)) } else { (1970, 2149, days_from_civil(2149, 6, 6)) };
            let days = values
                .as_primitive::<Float64Type>()
                .values()
                .iter()
                .map(|v| {
                    let n = packed_number(*v, ctx.name)?;
                    let (year, month, day) = (n / 10_000, n / 100 % 100, n % 100);
                    let valid = (min_year..=max_year).contains(&year) && (1..=12).contains(&month) && (1..=31).contains(&day);
                    let days = if valid { days_from_civil(year, month as u32, 1) + day - 1 } else { 0 };
                    Ok(Some(if days > max_day { 0 } else { days } as i32))
                })
                .collect::<DfResult<PrimitiveArray<Date32Type>>>()?;
            Ok(Arc::new(days))
        },
    )
    .build()
}

/// The civil fields of a `YYYYMMDDhhmmss` number.
fn packed_fields(n: i64) -> [f64; 6] {
    let (date, time) = (n / 1_000_000, n % 1_000_000);
    [date / 10_000, date / 100 % 100, date % 100, time / 10_000, time / 100 % 100, time % 100].map(|v| v as f64)
}

/// `YYYYMMDDhhmmssToDateTime(n[, tz])` and `YYYYMMDDhhmmssToDateTime64(n[, precision[, tz]])`
/// (whose fraction is the number's own, scaled to the precision).
fn yyyymmddhhmmss_to(name: &'static str, wide: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, if wide { 3 } else { 2 }),
        move |ctx| {
            check_numbers(ctx, &["YYYYMMDDhhmmss"])?;
            if wide {
                Ok(ChType::DateTime64(precision_at(ctx, 1)?, zone_at(ctx, 2)?))
            } else {
                Ok(ChType::DateTime(zone_at(ctx, 1)?))
            }
        },
        move |ctx| {
            let zone = exec_zone(ctx, if wide { 2 } else { 1 })?;
            let values = cast(&ctx.array(0)?, &DataType::Float64)?;
            let values = values.as_primitive::<Float64Type>().values();
            if !wide {
                let utc = values
                    .iter()
                    .map(|v| Ok(Some(datetime_seconds(MadeTime::new(packed_fields(packed_number(*v, ctx.name)?), &zone), &zone))))
                    .collect::<DfResult<PrimitiveArray<Int64Type>>>()?;
                return Ok(datetime_array(utc, ctx.ret_type()));
            }
            let ChType::DateTime64(precision, _) = ctx.ret_ch().base().clone() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, "YYYYMMDDhhmmssToDateTime64 must return a DateTime64"));
            };
            let scale = 10f64.powi(i32::from(precision));
            let ticks = values
                .iter()
                .map(|v| {
                    let n = packed_number(*v, ctx.name)?;
                    let fraction = ((v - n as f64) * scale).round() as i64;
                    let seconds = MadeTime::new(packed_fields(n), &zone).seconds(&zone);
                    datetime64_ticks(seconds, fraction, precision).map(Some)
                })
                .collect::<DfResult<PrimitiveArray<Int64Type>>>()?;
            retype(ticks, ctx.ret_ch().base())
        },
    )
    .build()
}

const MONTH_NAMES: [&str; 12] = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAY_NAMES: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

pub(crate) fn month_name(month: u32) -> &'static str {
    MONTH_NAMES[(month.clamp(1, 12) - 1) as usize]
}

pub(crate) fn day_name(iso_day_of_week: u8) -> &'static str {
    DAY_NAMES[(iso_day_of_week.clamp(1, 7) - 1) as usize]
}

/// `dateName(part, t[, tz])` and `monthName(t)`.
fn date_name() -> ScalarUDF {
    ScalarDef::new(
        "dateName",
        Arity::range(2, 3),
        |ctx| {
            let part = ctx.const_str(0, "date part")?.to_ascii_lowercase();
            if !matches!(part.as_str(), "year" | "quarter" | "month" | "week" | "dayofyear" | "day" | "weekday" | "hour" | "minute" | "second") {
                return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Invalid date part {part} for function dateName")));
            }
            check_date_arg(ctx, 1, true)?;
            if matches!(part.as_str(), "hour" | "minute" | "second") {
                check_date_arg(ctx, 1, false)?;
            }
            optional_tz(ctx, 2)?;
            Ok(ChType::String)
        },
        |ctx| {
            let part = ctx.const_str(0, "date part")?.to_ascii_lowercase();
            let zone = zone_for(ctx, 1, Some(2))?;
            let local = local_seconds(&ctx.array(1)?, &zone)?;
            let out: StringArray = local
                .iter()
                .map(|s| {
                    s.map(|s| {
                        let days = s.div_euclid(86_400);
                        let (y, m, d) = ymd(s);
                        match part.as_str() {
                            "year" => y.to_string(),
                            "quarter" => ((m - 1) / 3 + 1).to_string(),
                            "month" => month_name(m).to_string(),
                            "week" => year_week(days, 3).1.to_string(),
                            "dayofyear" => (days - days_from_civil(y, 1, 1) + 1).to_string(),
                            "day" => d.to_string(),
                            "weekday" => day_name(day_of_week(days)).to_string(),
                            "hour" => (s.rem_euclid(86_400) / 3600).to_string(),
                            "minute" => (s.rem_euclid(3600) / 60).to_string(),
                            _ => s.rem_euclid(60).to_string(),
                        }
                    })
                })
                .collect();
            Ok(Arc::new(out))
        },
    )
    .build()
}

fn month_name_fn() -> ScalarUDF {
    ScalarDef::new(
        "monthName",
        Arity::range(1, 2),
        |ctx| {
            check_date_arg(ctx, 0, true)?;
            optional_tz(ctx, 1)?;
            Ok(ChType::String)
        },
        |ctx| {
            let zone = zone_for(ctx, 0, Some(1))?;
            let local = local_seconds(&ctx.array(0)?, &zone)?;
            let out: StringArray = local.iter().map(|s| s.map(|s| month_name(ymd(s).1))).collect();
            Ok(Arc::new(out))
        },
    )
    .build()
}

const NANOS_PER_SECOND: i128 = 1_000_000_000;
const NANOS_PER_DAY: i128 = 86_400 * NANOS_PER_SECOND;

/// Full `unit`s from local time `a` to `b`, both in nanoseconds (negative when `b` is
/// earlier): ClickHouse's `age`, which, unlike `dateDiff`, does not count a unit that is
/// not complete, down to the fraction of a second.
fn age_between(unit: Unit, a: i128, b: i128) -> i64 {
    if b < a {
        return -age_between(unit, b, a);
    }
    let months = || {
        let (ya, ma, da) = civil_from_days(a.div_euclid(NANOS_PER_DAY) as i64);
        let (yb, mb, db) = civil_from_days(b.div_euclid(NANOS_PER_DAY) as i64);
        let mut months = (yb - ya) * 12 + (mb as i64 - ma as i64);
        if (db, b.rem_euclid(NANOS_PER_DAY)) < (da, a.rem_euclid(NANOS_PER_DAY)) {
            months -= 1;
        }
        months
    };
    let length: i128 = match unit {
        Unit::Year => return months().div_euclid(12),
        Unit::Quarter => return months().div_euclid(3),
        Unit::Month => return months(),
        Unit::Week => 7 * NANOS_PER_DAY,
        Unit::Day => NANOS_PER_DAY,
        Unit::Hour => 3600 * NANOS_PER_SECOND,
        Unit::Minute => 60 * NANOS_PER_SECOND,
        Unit::Second => NANOS_PER_SECOND,
        Unit::Millisecond => 1_000_000,
        Unit::Microsecond => 1_000,
        Unit::Nanosecond => 1,
    };
    ((b - a) / length) as i64
}

/// Nanoseconds of a date or time column: local wall-clock time in `zone`, or (`elapsed`)
/// since the epoch, dates being midnight in `zone`.
fn nanos(array: &ArrayRef, zone: &SessionTz, elapsed: bool) -> DfResult<Vec<i128>> {
    let seconds = if elapsed { utc_seconds(array, zone)? } else { local_seconds(array, zone)? };
    let fractions: Vec<i128> = match array.data_type() {
        DataType::Timestamp(..) => {
            let (raw, per) = timestamp_ticks(array)?;
            raw.values().iter().map(|v| i128::from(v.rem_euclid(per)) * NANOS_PER_SECOND / i128::from(per)).collect()
        }
        _ => vec![0; array.len()],
    };
    Ok(seconds.values().iter().zip(fractions).map(|(s, f)| i128::from(*s) * NANOS_PER_SECOND + f).collect())
}

fn age() -> ScalarUDF {
    ScalarDef::new(
        "age",
        Arity::range(3, 4),
        |ctx| {
            crate::datetime::check_unit_and_dates(ctx)?;
            Ok(ChType::Int64)
        },
        |ctx| {
            let unit = parse_unit(ctx.name, ctx.const_str(0, "unit")?)?;
            let zone = zone_for(ctx, 1, Some(3))?;
            // Hours and shorter units are elapsed time (a DST change makes a day of 23
            // hours), longer ones count on the local calendar.
            let elapsed = matches!(unit, Unit::Hour | Unit::Minute | Unit::Second | Unit::Millisecond | Unit::Microsecond | Unit::Nanosecond);
            let a = nanos(&ctx.array(1)?, &zone, elapsed)?;
            let b = nanos(&ctx.array(2)?, &zone, elapsed)?;
            let out: PrimitiveArray<Int64Type> = a.into_iter().zip(b).map(|(x, y)| Some(age_between(unit, x, y))).collect();
            Ok(Arc::new(out))
        },
    )
    .build()
}

/// The part of a date or time that `changeYear` ... `changeSecond` replace.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Component {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
}

impl Component {
    fn of_time(self) -> bool {
        matches!(self, Component::Hour | Component::Minute | Component::Second)
    }
}

/// Civil fields of local time, as ClickHouse's `toNumYYYYMMDDhhmmss` splits them.
#[derive(Clone, Copy)]
struct Civil {
    year: i64,
    month: u32,
    day: u32,
    hour: i64,
    minute: i64,
    second: i64,
}

impl Civil {
    fn of_local(local: i64) -> Civil {
        let (year, month, day) = civil_from_days(local.div_euclid(86_400));
        let in_day = local.rem_euclid(86_400);
        Civil { year, month, day, hour: in_day / 3600, minute: in_day / 60 % 60, second: in_day % 60 }
    }

    /// ClickHouse's `makeDayNum`: a day past the month's end runs into the next month.
    fn days(self) -> i64 {
        days_from_civil(self.year, self.month, 1) + i64::from(self.day) - 1
    }

    /// `self` with `component` set to `value`, or `None` where ClickHouse gives the
    /// type's smallest value (a month, day, hour, ... out of its range). A year outside
    /// [`min_year`, `max_year`] gives `Err(too_late)`.
    fn with(mut self, component: Component, value: f64, min_year: i64, max_year: i64) -> Result<Option<Civil>, bool> {
        let in_range = |low: f64, high: f64| value >= low && value <= high;
        match component {
            Component::Year if value < min_year as f64 => return Err(false),
            Component::Year if value > max_year as f64 => return Err(true),
            Component::Year => self.year = value as i64,
            Component::Month if in_range(1.0, 12.0) => self.month = value as u32,
            Component::Day if in_range(1.0, 31.0) => self.day = value as u32,
            Component::Hour if in_range(0.0, 23.0) => self.hour = value as i64,
            Component::Minute if in_range(0.0, 59.0) => self.minute = value as i64,
            Component::Second if in_range(0.0, 59.0) => self.second = value as i64,
            _ => return Ok(None),
        }
        Ok(Some(self))
    }
}

/// `changeYear(t, v)` ... `changeSecond(t, v)`: `t` with one component replaced, as
/// ClickHouse's `changeDate.cpp` does: an out-of-range component gives the type's first
/// value, a day past the month's end runs into the next month, results are clamped to
/// the type's range; a Date gets a time as DateTime, a Date32 as DateTime64(3).
fn change_component(name: &'static str, component: Component) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            check_date_arg(ctx, 0, true)?;
            if !is_integer(ctx.dt(1)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 2nd argument 'value' to function '{}'. Expected: Integer, got: {}", ctx.name, ctx.ch(1)),
                ));
            }
            Ok(match (ctx.ch(0).base(), component.of_time()) {
                (ChType::Date, true) => ChType::DateTime(None),
                (ChType::Date32, true) => ChType::DateTime64(3, None),
                (other, _) => other.clone(),
            })
        },
        move |ctx| {
            let zone = zone_for(ctx, 0, None)?;
            let input = ctx.array(0)?;
            let local = local_seconds(&input, &zone)?;
            let values = cast(&ctx.array(1)?, &DataType::Float64)?;
            let values = values.as_primitive::<Float64Type>().values();
            let result = ctx.ret_ch();
            let changed = |row: usize, min_year: i64, max_year: i64| Civil::of_local(local.value(row)).with(component, values[row], min_year, max_year);
            match result.base() {
                ChType::Date | ChType::Date32 => {
                    let (min, max, min_year, max_year) = match result.base() {
                        ChType::Date => (0, DATE_MAX_DAYS, 1970, 2149),
                        _ => (DATE32_MIN_DAYS, DATE32_MAX_DAYS, 1900, 2299),
                    };
                    let days: Vec<i32> = (0..ctx.len)
                        .map(|row| match changed(row, min_year, max_year) {
                            Ok(Some(civil)) => civil.days().clamp(min, max) as i32,
                            Ok(None) | Err(false) => min as i32,
                            Err(true) => max as i32,
                        })
                        .collect();
                    Ok(Arc::new(PrimitiveArray::<Date32Type>::from(days)) as ArrayRef)
                }
                _ => {
                    let (ticks, per) = match input.data_type() {
                        DataType::Timestamp(..) => {
                            let (raw, per) = timestamp_ticks(&input)?;
                            (raw.values().to_vec(), per)
                        }
                        _ => (vec![0; ctx.len], 1),
                    };
                    let per = match (result.base(), input.data_type()) {
                        (ChType::DateTime64(..), DataType::Date32) => 1000,
                        _ => per,
                    };
                    let seconds_of = |civil: Civil| zone.to_utc(civil.days() * 86_400 + civil.hour * 3600 + civil.minute * 60 + civil.second);
                    let (min, max, min_year, max_year) = match result.base() {
                        ChType::DateTime(_) => (0, 0xFFFF_FFFF, 1970, 2106),
                        _ => {
                            let first = Civil { year: 1900, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
                            let last = Civil { year: 2299, month: 12, day: 31, hour: 23, minute: 59, second: 59 };
                            (seconds_of(first) * per, seconds_of(last) * per + per - 1, 1900, 2299)
                        }
                    };
                    let out: Vec<i64> = (0..ctx.len)
                        .map(|row| match changed(row, min_year, max_year) {
                            Ok(Some(civil)) => (seconds_of(civil) * per + ticks[row].rem_euclid(per)).clamp(min, max),
                            Ok(None) | Err(false) => min,
                            Err(true) => max,
                        })
                        .collect();
                    let out: ArrayRef = Arc::new(PrimitiveArray::<Int64Type>::from(out));
                    Ok(cast(&out, ctx.ret_type())?)
                }
            }
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        change_component("changeYear", Component::Year),
        change_component("changeMonth", Component::Month),
        change_component("changeDay", Component::Day),
        change_component("changeHour", Component::Hour),
        change_component("changeMinute", Component::Minute),
        change_component("changeSecond", Component::Second),
        week_number::<UInt8Type>("toWeek", ChType::UInt8, 0, |d, mode| year_week(d, mode).1 as u8),
        week_number::<UInt32Type>("toYearWeek", ChType::UInt32, 0, |d, mode| {
            let (y, w) = year_week(d, mode | YEAR);
            (y * 100 + w) as u32
        }),
        week_number::<UInt8Type>("toISOWeek", ChType::UInt8, 3, |d, _| year_week(d, 3).1 as u8),
        week_number::<UInt16Type>("toISOYear", ChType::UInt16, 3, |d, _| year_week(d, 3).0 as u16),
        week_number::<UInt8Type>("toDayOfWeek", ChType::UInt8, 0, day_of_week_with_mode),
        week_day_fn("toStartOfWeek", week_start),
        week_day_fn("toMonday", |d, _| week_start(d, MONDAY_FIRST)),
        week_day_fn("toLastDayOfWeek", |d, mode| week_start(d, mode) + 6),
        week_day_fn("toStartOfISOYear", |d, _| {
            let iso_year = year_week(d, 3).0;
            let january_4 = days_from_civil(iso_year, 1, 4);
            january_4 - i64::from(day_of_week(january_4)) + 1
        }),
        week_day_fn("toLastDayOfMonth", |d, _| {
            let (y, m, _) = civil_from_days(d);
            days_from_civil(y, m, days_in_month(y, m))
        }),
        relative_num("toRelativeSecondNum", Unit::Second),
        relative_num("toRelativeMinuteNum", Unit::Minute),
        relative_num("toRelativeHourNum", Unit::Hour),
        relative_num("toRelativeDayNum", Unit::Day),
        relative_num("toRelativeWeekNum", Unit::Week),
        relative_num("toRelativeMonthNum", Unit::Month),
        relative_num("toRelativeQuarterNum", Unit::Quarter),
        relative_num("toRelativeYearNum", Unit::Year),
        start_of_interval(),
        date_trunc(),
        start_of_sub_second("toStartOfSecond", 0),
        start_of_sub_second("toStartOfMillisecond", 3),
        start_of_sub_second("toStartOfMicrosecond", 6),
        start_of_sub_second("toStartOfNanosecond", 9),
        time_slot(),
        make_date("makeDate", false),
        make_date("makeDate32", true),
        make_date_time(),
        make_date_time64(),
        yyyymmdd_to_date("YYYYMMDDToDate", false),
        yyyymmdd_to_date("YYYYMMDDToDate32", true),
        yyyymmddhhmmss_to("YYYYMMDDhhmmssToDateTime", false),
        yyyymmddhhmmss_to("YYYYMMDDhhmmssToDateTime64", true),
        date_name(),
        month_name_fn(),
        age(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i64, m: u32, d: u32) -> i64 {
        days_from_civil(y, m, d)
    }

    #[test]
    fn week_modes_like_clickhouse() {
        // Values from ClickHouse (chdb).
        assert_eq!(year_week(day(2024, 12, 30), 3), (2025, 1));
        assert_eq!(year_week(day(2024, 7, 17), 0).1, 28);
        assert_eq!(year_week(day(2024, 1, 1), 1).1, 1);
        assert_eq!(year_week(day(2024, 12, 31), 3).1, 1);
        assert_eq!(year_week(day(2023, 1, 1), 0).1, 1);
        assert_eq!(year_week(day(2023, 1, 1), 2).1, 1);
        assert_eq!(year_week(day(2024, 7, 17), YEAR), (2024, 28));
        assert_eq!(year_week(day(2024, 1, 1), 1 | YEAR), (2024, 1));
    }

    #[test]
    fn age_counts_complete_units() {
        let t = |y, m, d| i128::from(day(y, m, d)) * NANOS_PER_DAY;
        assert_eq!(age_between(Unit::Day, t(2024, 1, 31), t(2024, 2, 1)), 1);
        assert_eq!(age_between(Unit::Month, t(2024, 1, 31), t(2024, 2, 29)), 0);
        assert_eq!(age_between(Unit::Year, t(2023, 3, 1), t(2024, 2, 29)), 0);
        assert_eq!(age_between(Unit::Year, t(2024, 2, 29), t(2023, 3, 1)), 0);
        assert_eq!(age_between(Unit::Month, t(2024, 3, 15), t(2024, 1, 20)), -1);
        // A second that is not complete by its fraction does not count (chdb).
        assert_eq!(age_between(Unit::Second, t(2024, 1, 1) + 900_000_000, t(2024, 1, 1) + NANOS_PER_SECOND + 100_000_000), 0);
        assert_eq!(age_between(Unit::Millisecond, t(2024, 1, 1) + 1_050_000_000, t(2024, 1, 1) + 100_000_000), -950);
    }
}
