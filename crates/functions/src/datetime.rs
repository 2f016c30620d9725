//! Date and time functions: `now`, `now64`, `UTCTimestamp`, `today`, `yesterday`,
//! `timezone`/`serverTimezone`, `timezoneOffset`, `toYear` .. `toSecond`, `toYYYYMM`,
//! `toYYYYMMDD`, day and month counts (`toDaysSinceYearZero`, `fromDaysSinceYearZero`,
//! `toYearNumSinceEpoch`, ...), `toStartOfDay/Hour/Minute/Month/Year`,
//! `toUnixTimestamp`, `dateDiff`, `toTimezone`, `addNanoseconds` .. `addYears` and
//! `subtract*`, and the interval constructors `toIntervalNanosecond` .. `toIntervalYear`
//! (whose values `plus`/`minus` add to dates through [`shift`]).
//!
//! Values are decomposed in local time: the zone argument if given, else the zone of
//! the value's type, else the server zone (see [`crate::tz`]). `Date`/`Date32` values
//! are days and need no zone. Result types are ClickHouse's (toYear -> UInt16,
//! toMonth -> UInt8, toYYYYMM -> UInt32, toStartOfMonth -> Date, ...). `now()` and
//! `today()` are replaced by constants when the query is planned, so they are the same
//! everywhere in one query.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray, StringArray};
use datafusion::arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Int64Type, TimeUnit, UInt16Type, UInt32Type, UInt8Type,
};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::simplify::ExprSimplifyResult;
use datafusion::logical_expr::{Expr, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, is_integer, is_float, is_string, Arity, DfResult};
use crate::conversion::convert::{convert, timestamp_ticks, time_unit_for_precision, Conv, Mode};
use crate::func::{result_field, ExecCtx, RetCtx, ScalarDef};
use crate::tz::{civil_from_days, days_from_civil, days_in_month, parse_tz, server_tz_name, SessionTz};

fn literal(value: ScalarValue, t: &ChType, name: &str) -> Expr {
    let field = result_field(name, t);
    let metadata = datafusion::common::metadata::FieldMetadata::from(field.metadata().clone());
    Expr::Literal(value, if metadata.is_empty() { None } else { Some(metadata) })
}

// ---------------------------------------------------------------- now / today

fn now_secs(start: Option<chrono::DateTime<chrono::Utc>>) -> chrono::DateTime<chrono::Utc> {
    start.unwrap_or_else(chrono::Utc::now)
}

fn now_fn() -> ScalarUDF {
    ScalarDef::new(
        "now",
        Arity::range(0, 1),
        |ctx| {
            let tz = optional_tz(ctx, 0)?;
            Ok(ChType::DateTime(tz))
        },
        |ctx| {
            let tz = match ctx.args.first() {
                Some(_) => Some(Arc::<str>::from(ctx.const_str(0, "time zone")?)),
                None => None,
            };
            let secs = chrono::Utc::now().timestamp();
            Ok(Arc::new(
                PrimitiveArray::<datafusion::arrow::datatypes::TimestampSecondType>::from(vec![secs; ctx.len])
                    .with_timezone_opt(tz),
            ))
        },
    )
    .stable()
    .simplify(|args, info| {
        let Some(start) = info.query_execution_start_time() else {
            return Ok(ExprSimplifyResult::Original(args));
        };
        let tz = match args.first() {
            Some(Expr::Literal(ScalarValue::Utf8(Some(tz)), _)) => Some(tz.clone()),
            Some(_) => return Ok(ExprSimplifyResult::Original(args)),
            None => None,
        };
        let t = ChType::DateTime(tz.clone());
        let value = ScalarValue::TimestampSecond(Some(now_secs(Some(start)).timestamp()), tz.map(Arc::from));
        Ok(ExprSimplifyResult::Simplified(literal(value, &t, "now")))
    })
    .build()
}

/// `UTCTimestamp()` (alias `UTC_timestamp`): `now()` as a `DateTime('UTC')`.
fn utc_timestamp_fn() -> ScalarUDF {
    ScalarDef::new(
        "UTCTimestamp",
        Arity::exact(0),
        |_| Ok(ChType::DateTime(Some("UTC".to_string()))),
        |ctx| {
            let secs = chrono::Utc::now().timestamp();
            Ok(Arc::new(
                PrimitiveArray::<datafusion::arrow::datatypes::TimestampSecondType>::from(vec![secs; ctx.len]).with_timezone("UTC"),
            ))
        },
    )
    .stable()
    .simplify(|args, info| {
        let Some(start) = info.query_execution_start_time() else {
            return Ok(ExprSimplifyResult::Original(args));
        };
        let t = ChType::DateTime(Some("UTC".to_string()));
        let value = ScalarValue::TimestampSecond(Some(start.timestamp()), Some(Arc::from("UTC")));
        Ok(ExprSimplifyResult::Simplified(literal(value, &t, "UTCTimestamp")))
    })
    .build()
}

pub(crate) fn now64_value(p: u8, start: chrono::DateTime<chrono::Utc>, tz: Option<Arc<str>>) -> ScalarValue {
    let nanos = start.timestamp_nanos_opt().unwrap_or(0);
    let keep = 10i64.pow(9 - p as u32);
    let nanos = nanos.div_euclid(keep) * keep;
    match time_unit_for_precision(p) {
        TimeUnit::Second => ScalarValue::TimestampSecond(Some(nanos.div_euclid(1_000_000_000)), tz),
        TimeUnit::Millisecond => ScalarValue::TimestampMillisecond(Some(nanos.div_euclid(1_000_000)), tz),
        TimeUnit::Microsecond => ScalarValue::TimestampMicrosecond(Some(nanos.div_euclid(1_000)), tz),
        TimeUnit::Nanosecond => ScalarValue::TimestampNanosecond(Some(nanos), tz),
    }
}

fn now64_fn() -> ScalarUDF {
    ScalarDef::new(
        "now64",
        Arity::range(0, 2),
        |ctx| {
            let p = if ctx.arg_count() > 0 { precision_arg(ctx, 0)? } else { 3 };
            let tz = optional_tz(ctx, 1)?;
            Ok(ChType::DateTime64(p, tz))
        },
        |ctx| {
            let t = ctx.ret_ch();
            let (p, tz) = match t.strip_nullable() {
                ChType::DateTime64(p, tz) => (*p, tz.clone()),
                _ => (3, None),
            };
            let v = now64_value(p, chrono::Utc::now(), tz.map(Arc::from));
            v.to_array_of_size(ctx.len)
        },
    )
    .stable()
    .simplify(|args, info| {
        let Some(start) = info.query_execution_start_time() else {
            return Ok(ExprSimplifyResult::Original(args));
        };
        let p = match args.first() {
            None => 3,
            Some(Expr::Literal(v, _)) => match crate::args::scalar_i128(v) {
                Some(p) if (0..=9).contains(&p) => p as u8,
                _ => return Ok(ExprSimplifyResult::Original(args)),
            },
            Some(_) => return Ok(ExprSimplifyResult::Original(args)),
        };
        let tz = match args.get(1) {
            Some(Expr::Literal(ScalarValue::Utf8(Some(tz)), _)) => Some(tz.clone()),
            Some(_) => return Ok(ExprSimplifyResult::Original(args)),
            None => None,
        };
        let t = ChType::DateTime64(p, tz.clone());
        Ok(ExprSimplifyResult::Simplified(literal(now64_value(p, start, tz.map(Arc::from)), &t, "now64")))
    })
    .build()
}

fn today_days(start: chrono::DateTime<chrono::Utc>, zone: &SessionTz) -> i32 {
    zone.to_local(start.timestamp()).div_euclid(86_400) as i32
}

fn day_fn(name: &'static str, back: i32) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(0),
        |_| Ok(ChType::Date),
        move |ctx| {
            let zone = ctx.session_tz()?;
            let d = today_days(chrono::Utc::now(), &zone) - back;
            Ok(Arc::new(PrimitiveArray::<Date32Type>::from(vec![d; ctx.len])))
        },
    )
    .stable()
    .simplify(move |args, info| {
        let Some(start) = info.query_execution_start_time() else {
            return Ok(ExprSimplifyResult::Original(args));
        };
        let zone = SessionTz::from_config(info.config_options())?;
        let d = today_days(start, &zone) - back;
        Ok(ExprSimplifyResult::Simplified(literal(ScalarValue::Date32(Some(d)), &ChType::Date, name)))
    })
    .build()
}

/// `timezone()`, and `serverTimezone()`, which is the same zone here: Granary has no
/// `session_timezone` setting that could make them differ.
fn timezone_fn(name: &'static str) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(0),
        |_| Ok(ChType::String),
        |ctx| Ok(Arc::new(StringArray::from(vec![server_tz_name(ctx.config); ctx.len]))),
    )
    .stable()
    .simplify(|_, info| {
        let name = server_tz_name(info.config_options());
        Ok(ExprSimplifyResult::Simplified(literal(ScalarValue::Utf8(Some(name)), &ChType::String, "timezone")))
    })
    .build()
}

/// `timezoneOf(t)`: the time zone of a DateTime or DateTime64 value's type (the
/// server's when the type names none).
fn timezone_of_fn() -> ScalarUDF {
    ScalarDef::new(
        "timezoneOf",
        Arity::exact(1),
        |ctx| {
            if !is_time(ctx.dt(0)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 1st argument 'datetime' to function 'timezoneOf'. Expected: DateTime or DateTime64, got: {}", ctx.ch(0)),
                ));
            }
            Ok(ChType::String)
        },
        |ctx| {
            let zone = match ctx.dt(0) {
                DataType::Timestamp(_, Some(zone)) => zone.to_string(),
                _ => server_tz_name(ctx.config),
            };
            Ok(Arc::new(StringArray::from(vec![zone; ctx.len])))
        },
    )
    .build()
}

/// `timezoneOffset(t[, tz])`: the zone's offset from UTC in seconds at the instant `t`.
fn timezone_offset_fn() -> ScalarUDF {
    ScalarDef::new(
        "timezoneOffset",
        Arity::range(1, 2),
        |ctx| {
            if !is_time(ctx.dt(0)) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal argument of type {} for function {}", ctx.ch(0), ctx.name)));
            }
            optional_tz(ctx, 1)?;
            Ok(ChType::Int32)
        },
        |ctx| {
            let zone = zone_for(ctx, 0, Some(1))?;
            let (raw, per) = timestamp_ticks(&ctx.array(0)?)?;
            Ok(Arc::new(raw.unary::<_, datafusion::arrow::datatypes::Int32Type>(move |v| {
                let secs = v.div_euclid(per);
                (zone.to_local(secs) - secs) as i32
            })))
        },
    )
    .build()
}

/// `toUTCTimestamp(t, tz)` / `fromUTCTimestamp(t, tz)` (Spark's `to_utc_timestamp` and
/// `from_utc_timestamp`): `t`'s wall clock read as time in `tz` (as UTC) and written back
/// as UTC (as time in `tz`), in a value of `t`'s own type, which has no zone.
fn utc_timestamp_shift(name: &'static str, to_utc: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            if !is_time(ctx.dt(0)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 1st argument 'datetime' to function '{}'. Expected: DateTime or DateTime64, got: {}", ctx.name, ctx.ch(0)),
                ));
            }
            if matches!(ctx.dt(0), DataType::Timestamp(_, Some(_))) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Function {}'s 1st argument should not have explicit time zone", ctx.name)));
            }
            optional_tz(ctx, 1)?;
            Ok(ctx.ch(0).base().clone())
        },
        move |ctx| {
            let server = ctx.session_tz()?;
            let zone = parse_tz(ctx.const_str(1, "time zone")?)?;
            let (from, to) = if to_utc { (zone, parse_tz("UTC")?) } else { (parse_tz("UTC")?, zone) };
            let (raw, per) = timestamp_ticks(&ctx.array(0)?)?;
            let out: PrimitiveArray<Int64Type> = raw.unary(move |v| {
                let (secs, sub) = (v.div_euclid(per), v.rem_euclid(per));
                let instant = from.to_utc(server.to_local(secs));
                server.to_utc(to.to_local(instant)) * per + sub
            });
            retype(out, ctx.ret_ch().base())
        },
    )
    .build()
}

/// `toTimezone(t, 'zone')` (alias `toTimeZone`): the same instant, shown in `zone`
/// (`DateTime('zone')`, `DateTime64(p, 'zone')`).
fn to_timezone_fn() -> ScalarUDF {
    ScalarDef::new(
        "toTimezone",
        Arity::exact(2),
        |ctx| {
            if !is_time(ctx.dt(0)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type {} of argument of function {}. Should be DateTime or DateTime64", ctx.ch(0), ctx.name),
                ));
            }
            let tz = optional_tz(ctx, 1)?;
            Ok(match ctx.ch(0).base() {
                ChType::DateTime64(p, _) => ChType::DateTime64(*p, tz),
                _ => ChType::DateTime(tz),
            })
        },
        |ctx| {
            let data = ctx.array(0)?.to_data().into_builder().data_type(ctx.ret_type().clone()).build()?;
            Ok(datafusion::arrow::array::make_array(data))
        },
    )
    .build()
}

// ---------------------------------------------------------------- helpers

pub(crate) fn optional_tz(ctx: &RetCtx, index: usize) -> DfResult<Option<String>> {
    if ctx.arg_count() <= index {
        return Ok(None);
    }
    if !is_string(ctx.dt(index)) {
        return Err(illegal_type(ctx.name, index, ctx.field(index)));
    }
    let tz = ctx.const_str(index, "time zone")?;
    parse_tz(tz)?;
    Ok(Some(tz.to_string()))
}

pub(crate) fn precision_arg(ctx: &RetCtx, index: usize) -> DfResult<u8> {
    let p = ctx.const_int(index, "scale")?;
    if !(0..=9).contains(&p) {
        return Err(ch_error(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            format!("Scale {p} is too large for DateTime64. Maximum is up to nanoseconds (9)"),
        ));
    }
    Ok(p as u8)
}

pub(crate) fn is_date(dt: &DataType) -> bool {
    matches!(dt, DataType::Date32)
}

pub(crate) fn is_time(dt: &DataType) -> bool {
    matches!(dt, DataType::Timestamp(..))
}

pub(crate) fn check_date_arg(ctx: &RetCtx, i: usize, allow_date: bool) -> DfResult<()> {
    let dt = ctx.dt(i);
    if is_time(dt) || (allow_date && is_date(dt)) {
        return Ok(());
    }
    if is_date(dt) {
        return Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Illegal argument of type {} for function {}", ctx.ch(i), ctx.name),
        ));
    }
    Err(ch_error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!("Illegal type {} of argument of function {}. Should be Date, Date32, DateTime or DateTime64", ctx.ch(i), ctx.name),
    ))
}

/// The zone to decompose argument `i` in: explicit argument `tz_index`, else the
/// type's, else the server's.
pub(crate) fn zone_for(ctx: &ExecCtx, i: usize, tz_index: Option<usize>) -> DfResult<SessionTz> {
    if let Some(ti) = tz_index {
        if ctx.args.len() > ti {
            return parse_tz(ctx.const_str(ti, "time zone")?);
        }
    }
    SessionTz::for_type(ctx.dt(i), ctx.config)
}

/// Local wall-clock seconds of a Date/Date32/DateTime/DateTime64 column, and the
/// sub-second ticks (with ticks per second) for DateTime64.
pub(crate) fn local_seconds(array: &ArrayRef, zone: &SessionTz) -> DfResult<PrimitiveArray<Int64Type>> {
    match array.data_type() {
        DataType::Date32 => Ok(array.as_primitive::<Date32Type>().unary(|d| d as i64 * 86_400)),
        DataType::Timestamp(..) => {
            let (raw, per) = timestamp_ticks(array)?;
            let zone = *zone;
            Ok(raw.unary(move |v| zone.to_local(v.div_euclid(per))))
        }
        other => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{other} is not a date or time"))),
    }
}

// ---------------------------------------------------------------- components

fn component<T: ArrowPrimitiveType>(
    name: &'static str,
    ret: ChType,
    allow_date: bool,
    f: fn(i64) -> T::Native,
) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 2),
        move |ctx| {
            check_date_arg(ctx, 0, allow_date)?;
            optional_tz(ctx, 1)?;
            Ok(ret.clone())
        },
        move |ctx| {
            let zone = zone_for(ctx, 0, Some(1))?;
            let local = local_seconds(&ctx.array(0)?, &zone)?;
            Ok(Arc::new(local.unary::<_, T>(f)))
        },
    )
    .build()
}

pub(crate) fn ymd(local: i64) -> (i64, u32, u32) {
    civil_from_days(local.div_euclid(86_400))
}

// ---------------------------------------------------------------- toStartOf*

#[derive(Clone, Copy, PartialEq, Eq)]
enum Period {
    Minute,
    FiveMinutes,
    TenMinutes,
    FifteenMinutes,
    Hour,
    Day,
    Month,
    Quarter,
    Year,
}

fn start_of(name: &'static str, period: Period) -> ScalarUDF {
    let to_date = matches!(period, Period::Month | Period::Quarter | Period::Year);
    ScalarDef::new(
        name,
        Arity::range(1, 2),
        move |ctx| {
            check_date_arg(ctx, 0, matches!(period, Period::Day | Period::Month | Period::Quarter | Period::Year))?;
            let tz = optional_tz(ctx, 1)?;
            if to_date {
                return Ok(ChType::Date);
            }
            let zone = tz.or_else(|| match ctx.dt(0) {
                DataType::Timestamp(_, Some(z)) => Some(z.to_string()),
                _ => None,
            });
            Ok(ChType::DateTime(zone))
        },
        move |ctx| {
            let zone = zone_for(ctx, 0, Some(1))?;
            let local = local_seconds(&ctx.array(0)?, &zone)?;
            if to_date {
                let out: PrimitiveArray<Date32Type> = local.unary(|s| {
                    let (y, m, _) = ymd(s);
                    let d = match period {
                        Period::Month => days_from_civil(y, m, 1),
                        Period::Quarter => days_from_civil(y, (m - 1) / 3 * 3 + 1, 1),
                        _ => days_from_civil(y, 1, 1),
                    };
                    d.clamp(0, crate::tz::DATE_MAX_DAYS) as i32
                });
                return Ok(Arc::new(out));
            }
            let unit = match period {
                Period::Minute => 60,
                Period::FiveMinutes => 300,
                Period::TenMinutes => 600,
                Period::FifteenMinutes => 900,
                Period::Hour => 3600,
                _ => 86_400,
            };
            let tz = match ctx.ret_type() {
                DataType::Timestamp(_, tz) => tz.clone(),
                _ => None,
            };
            let out: PrimitiveArray<datafusion::arrow::datatypes::TimestampSecondType> =
                local.unary(move |s| zone.to_utc(s.div_euclid(unit) * unit).max(0));
            Ok(Arc::new(out.with_timezone_opt(tz)))
        },
    )
    .build()
}

/// Days from 0000-01-01 (proleptic Gregorian) to 1970-01-01.
const DAYS_FROM_YEAR_ZERO_TO_EPOCH: i64 = 719_528;

/// `toDaysSinceYearZero(t[, tz])` (alias `TO_DAYS`): days from 0000-01-01. ClickHouse
/// counts a DateTime's days in UTC whatever the zones say, and a DateTime64's in its
/// (or the given) zone.
fn to_days_since_year_zero() -> ScalarUDF {
    ScalarDef::new(
        "toDaysSinceYearZero",
        Arity::range(1, 2),
        |ctx| {
            check_date_arg(ctx, 0, true)?;
            optional_tz(ctx, 1)?;
            Ok(ChType::UInt32)
        },
        |ctx| {
            let zone = match ctx.ch(0).base() {
                ChType::DateTime(_) => parse_tz("UTC")?,
                _ => zone_for(ctx, 0, Some(1))?,
            };
            let local = local_seconds(&ctx.array(0)?, &zone)?;
            Ok(Arc::new(local.unary::<_, UInt32Type>(|s| (s.div_euclid(86_400) + DAYS_FROM_YEAR_ZERO_TO_EPOCH) as u32)))
        },
    )
    .build()
}

/// `fromDaysSinceYearZero(n)` (alias `FROM_DAYS`) and `fromDaysSinceYearZero32(n)`: the
/// day `n` days after 0000-01-01, as a Date or Date32. As in ClickHouse, the count is
/// moved to the epoch and cast to the type's width (a Date wraps around), and a
/// negative count is an error.
fn from_days_since_year_zero(name: &'static str, date32: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            if !is_integer(ctx.dt(0)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 1st argument 'days' to function '{}'. Expected: Integer, got: {}", ctx.name, ctx.ch(0)),
                ));
            }
            Ok(if date32 { ChType::Date32 } else { ChType::Date })
        },
        move |ctx| {
            let array = ctx.array(0)?;
            let unsigned = matches!(array.data_type(), DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64);
            // UInt64 counts above i64::MAX keep their low bits, which is all a cast keeps.
            let counts = if unsigned {
                let wide = datafusion::arrow::compute::cast(&array, &DataType::UInt64)?;
                Arc::new(wide.as_primitive::<datafusion::arrow::datatypes::UInt64Type>().unary::<_, Int64Type>(|v| v as i64)) as ArrayRef
            } else {
                datafusion::arrow::compute::cast(&array, &DataType::Int64)?
            };
            let counts = counts.as_primitive::<Int64Type>();
            if !unsigned {
                if let Some(negative) = counts.iter().flatten().find(|v| *v < 0) {
                    return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Expected a non-negative integer, got: {negative}")));
                }
            }
            let out: PrimitiveArray<Date32Type> = counts.unary(move |n| {
                let days = n.wrapping_sub(DAYS_FROM_YEAR_ZERO_TO_EPOCH);
                if date32 {
                    days as i32
                } else {
                    i32::from(days as u16)
                }
            });
            Ok(Arc::new(out))
        },
    )
    .build()
}

// ---------------------------------------------------------------- toUnixTimestamp64*

/// `toUnixTimestamp64Milli/Micro/Nano(dt64)`: the instant as an Int64 count of `unit`s.
fn to_unix_timestamp64(name: &'static str, unit: TimeUnit) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| match ctx.ch(0).strip_nullable() {
            ChType::DateTime64(..) | ChType::DateTime(_) => Ok(ChType::Int64),
            _ => Err(illegal_type(ctx.name, 0, ctx.field(0))),
        },
        move |ctx| {
            let array = ctx.array(0)?;
            let timestamps = datafusion::arrow::compute::cast(&array, &DataType::Timestamp(unit, None))?;
            Ok(datafusion::arrow::compute::cast(&timestamps, &DataType::Int64)?)
        },
    )
    .build()
}

/// `toMillisecond` / `toMicrosecond`: the fraction of the second of a DateTime64 in
/// `digits` decimal digits (0 for a DateTime, which has none). The fraction does not
/// depend on the time zone, and is counted up from the second below for times before
/// 1970, as ClickHouse does.
fn sub_second<T: ArrowPrimitiveType>(name: &'static str, ret: ChType, digits: u32) -> ScalarUDF
where
    T::Native: TryFrom<i64>,
{
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| match ctx.ch(0).strip_nullable() {
            ChType::DateTime64(..) | ChType::DateTime(_) => Ok(ret.clone()),
            _ => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal argument of type {} for function {}", ctx.ch(0), ctx.name))),
        },
        move |ctx| {
            let array = ctx.array(0)?;
            let per_second: i64 = match array.data_type() {
                DataType::Timestamp(TimeUnit::Second, _) => 1,
                DataType::Timestamp(TimeUnit::Millisecond, _) => 1_000,
                DataType::Timestamp(TimeUnit::Microsecond, _) => 1_000_000,
                DataType::Timestamp(TimeUnit::Nanosecond, _) => 1_000_000_000,
                other => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal argument of type {other} for function {}", ctx.name))),
            };
            let wanted = 10i64.pow(digits);
            let ticks = datafusion::arrow::compute::cast(&array, &DataType::Int64)?;
            let fraction = ticks.as_primitive::<datafusion::arrow::datatypes::Int64Type>().unary::<_, T>(|t| {
                let f = t.rem_euclid(per_second);
                let scaled = if per_second >= wanted { f / (per_second / wanted) } else { f * (wanted / per_second) };
                // Below 10^digits, which fits the result type.
                T::Native::try_from(scaled).unwrap_or_default()
            });
            Ok(Arc::new(fraction))
        },
    )
    .build()
}

/// `fromUnixTimestamp64Second/Milli/Micro/Nano(ticks[, tz])`: an integer count of
/// `unit`s since the epoch as `DateTime64(precision[, tz])`.
fn from_unix_timestamp64(name: &'static str, precision: u8) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 2),
        move |ctx| {
            if !is_integer(ctx.dt(0)) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The first argument for function {} must be integer", ctx.name)));
            }
            Ok(ChType::DateTime64(precision, optional_tz(ctx, 1)?))
        },
        |ctx| {
            let ticks = datafusion::arrow::compute::cast(&ctx.array(0)?, &DataType::Int64)?;
            Ok(datafusion::arrow::compute::cast(&ticks, ctx.ret_type())?)
        },
    )
    .build()
}

// ---------------------------------------------------------------- toUnixTimestamp

fn to_unix_timestamp() -> ScalarUDF {
    ScalarDef::new(
        "toUnixTimestamp",
        Arity::range(1, 2),
        |ctx| {
            let dt = ctx.dt(0);
            if !(is_time(dt) || is_date(dt) || is_string(dt)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            optional_tz(ctx, 1)?;
            Ok(ChType::UInt32)
        },
        |ctx| {
            let array = ctx.array(0)?;
            let secs: PrimitiveArray<Int64Type> = match array.data_type() {
                DataType::Timestamp(..) => {
                    let (raw, per) = timestamp_ticks(&array)?;
                    raw.unary(|v| v.div_euclid(per))
                }
                _ => {
                    // Strings and dates: read as DateTime in the given (or server) zone.
                    let zone = if ctx.args.len() > 1 { Some(ctx.const_str(1, "time zone")?.to_string()) } else { None };
                    let cv = Conv { func: "toUnixTimestamp", mode: Mode::Throw, config: ctx.config };
                    let as_dt = convert(&array, &ctx.fields[0], &ChType::DateTime(zone), &cv)?;
                    timestamp_ticks(&as_dt)?.0
                }
            };
            Ok(Arc::new(secs.unary::<_, UInt32Type>(|s| s as u32)))
        },
    )
    .build()
}

// ---------------------------------------------------------------- dateDiff

/// A calendar unit (`dateDiff`'s units and the `Interval*` types' kinds are the same list).
pub(crate) use granary_types::IntervalKind as Unit;

pub(crate) fn parse_unit(name: &str, text: &str) -> DfResult<Unit> {
    Unit::from_unit_name(text).ok_or_else(|| ch_error(ErrorCode::BAD_ARGUMENTS, format!("Function {name} does not support '{text}' unit")))
}

/// ClickHouse's `toRelative*Num` of local seconds for a unit.
fn relative(unit: Unit, local: i64) -> i64 {
    let days = local.div_euclid(86_400);
    match unit {
        Unit::Nanosecond | Unit::Microsecond | Unit::Millisecond | Unit::Second => local,
        Unit::Minute => local.div_euclid(60),
        Unit::Hour => local.div_euclid(3600),
        Unit::Day => days,
        // Weeks start on Monday; 1970-01-01 was a Thursday.
        Unit::Week => (days + 3).div_euclid(7),
        Unit::Month | Unit::Quarter | Unit::Year => {
            let (y, m, _) = civil_from_days(days);
            match unit {
                Unit::Month => y * 12 + m as i64 - 1,
                Unit::Quarter => y * 4 + (m as i64 - 1) / 3,
                _ => y,
            }
        }
    }
}

/// Checks `f('unit', date_or_time, date_or_time[, tz])` (dateDiff, age) and returns the unit.
pub(crate) fn check_unit_and_dates(ctx: &RetCtx) -> DfResult<Unit> {
    if !is_string(ctx.dt(0)) {
        return Err(illegal_type(ctx.name, 0, ctx.field(0)));
    }
    let unit = parse_unit(ctx.name, ctx.const_str(0, "unit")?)?;
    check_date_arg(ctx, 1, true)?;
    check_date_arg(ctx, 2, true)?;
    optional_tz(ctx, 3)?;
    Ok(unit)
}

fn date_diff() -> ScalarUDF {
    ScalarDef::new(
        "dateDiff",
        Arity::range(3, 4),
        |ctx| {
            check_unit_and_dates(ctx)?;
            Ok(ChType::Int64)
        },
        |ctx| {
            let unit = parse_unit(ctx.name, ctx.const_str(0, "unit")?)?;
            let explicit = if ctx.args.len() > 3 { Some(parse_tz(ctx.const_str(3, "time zone")?)?) } else { None };
            // Both values are read in one zone: the explicit one, else that of the
            // first DateTime argument, else the server's (as ClickHouse does).
            let zone = match explicit {
                Some(z) => z,
                None => {
                    let typed = [ctx.dt(1), ctx.dt(2)].into_iter().find(|t| matches!(t, DataType::Timestamp(_, Some(_))));
                    SessionTz::for_type(typed.unwrap_or(ctx.dt(1)), ctx.config)?
                }
            };
            let a = ctx.array(1)?;
            let b = ctx.array(2)?;
            let sub_unit = match unit {
                Unit::Nanosecond => Some(1_000_000_000i64),
                Unit::Microsecond => Some(1_000_000),
                Unit::Millisecond => Some(1_000),
                _ => None,
            };
            if let Some(per) = sub_unit {
                let ta = ticks_at(&a, per)?;
                let tb = ticks_at(&b, per)?;
                return Ok(Arc::new(datafusion::arrow::compute::kernels::numeric::sub_wrapping(&tb, &ta)?));
            }
            let la = local_seconds(&a, &zone)?;
            let lb = local_seconds(&b, &zone)?;
            let out: PrimitiveArray<Int64Type> = datafusion::arrow::compute::binary(&la, &lb, |x, y| {
                relative(unit, y) - relative(unit, x)
            })?;
            Ok(Arc::new(out))
        },
    )
    .build()
}

/// Values as ticks of `per` per second (for sub-second dateDiff units).
fn ticks_at(array: &ArrayRef, per: i64) -> DfResult<PrimitiveArray<Int64Type>> {
    match array.data_type() {
        DataType::Date32 => Ok(array.as_primitive::<Date32Type>().unary(move |d| d as i64 * 86_400 * per)),
        _ => {
            let (raw, from_per) = timestamp_ticks(array)?;
            Ok(raw.unary(move |v| if per >= from_per { v.saturating_mul(per / from_per) } else { v / (from_per / per) }))
        }
    }
}

// ---------------------------------------------------------------- add / subtract

pub(crate) fn add_months_days(days: i64, months: i64) -> i64 {
    let (y, m, d) = civil_from_days(days);
    let total = y * 12 + (m as i64 - 1) + months;
    let ny = total.div_euclid(12);
    let nm = (total.rem_euclid(12) + 1) as u32;
    let nd = d.min(days_in_month(ny, nm));
    days_from_civil(ny, nm, nd)
}

/// The name of the function that moves a date by `unit` (`addDays`): ClickHouse's
/// messages about intervals name it.
pub(crate) fn add_function_name(unit: Unit) -> String {
    format!("add{}s", unit.name())
}

/// The type of a date or time moved by a number of `unit`s, as ClickHouse types
/// `addDays(d, n)` and `d + INTERVAL n DAY`: dates stay dates for whole days, become
/// `DateTime` (`Date`) or `DateTime64(3)` (`Date32`) for hours, minutes and seconds;
/// sub-second units make a `DateTime64` of at least their precision.
pub(crate) fn shifted_type(t: &ChType, unit: Unit) -> DfResult<ChType> {
    let calendar = matches!(unit, Unit::Day | Unit::Week | Unit::Month | Unit::Quarter | Unit::Year);
    let not_for = |t: &ChType| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{} cannot be used with {t}", add_function_name(unit)));
    Ok(match (t, unit.sub_second_precision()) {
        (ChType::Date | ChType::Date32, Some(_)) => return Err(not_for(t)),
        (ChType::Date | ChType::Date32, None) if calendar => t.clone(),
        (ChType::Date, None) => ChType::DateTime(None),
        (ChType::Date32, None) => ChType::DateTime64(3, None),
        (ChType::DateTime(tz), Some(p)) => ChType::DateTime64(p, tz.clone()),
        (ChType::DateTime64(q, tz), Some(p)) => ChType::DateTime64(p.max(*q), tz.clone()),
        (ChType::DateTime(_) | ChType::DateTime64(..), _) => t.clone(),
        // A Time is a duration: only seconds, minutes and hours (and sub-seconds for
        // Time64) move it.
        (ChType::Time | ChType::Time64(_), None) if calendar => return Err(not_for(t)),
        (ChType::Time, None) => ChType::Time,
        (ChType::Time64(q), Some(p)) => ChType::Time64(p.max(*q)),
        (ChType::Time64(_), None) => t.clone(),
        _ => return Err(not_for(t)),
    })
}

/// Signed nanoseconds of each value of a `Time`/`Time64` column (whatever its unit).
pub(crate) fn time_nanos(array: &ArrayRef) -> DfResult<PrimitiveArray<Int64Type>> {
    use datafusion::arrow::datatypes::{Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType};
    Ok(match array.data_type() {
        DataType::Time32(TimeUnit::Second) => array.as_primitive::<Time32SecondType>().unary(|v| i64::from(v) * 1_000_000_000),
        DataType::Time32(_) => array.as_primitive::<Time32MillisecondType>().unary(|v| i64::from(v) * 1_000_000),
        DataType::Time64(TimeUnit::Microsecond) => array.as_primitive::<Time64MicrosecondType>().unary(|v| v.saturating_mul(1_000)),
        DataType::Time64(_) => array.as_primitive::<Time64NanosecondType>().unary(|v| v),
        other => return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{other} is not a time column"))),
    })
}

/// Signed nanoseconds as a column of `Time`/`Time64(p)` (`to`), cut to its precision;
/// out-of-range values are kept (ClickHouse prints them as the bound).
pub(crate) fn time_from_nanos(nanos: &PrimitiveArray<Int64Type>, to: &ChType) -> DfResult<ArrayRef> {
    use datafusion::arrow::datatypes::{Time32SecondType, Time64MicrosecondType, Time64NanosecondType};
    Ok(match to {
        ChType::Time => Arc::new(nanos.unary::<_, Time32SecondType>(|v| (v / 1_000_000_000).clamp(i32::MIN as i64, i32::MAX as i64) as i32)),
        ChType::Time64(p) => {
            let step = 10i64.pow(9 - u32::from((*p).min(9)));
            if *p <= 6 {
                Arc::new(nanos.unary::<_, Time64MicrosecondType>(|v| v / step * step / 1_000))
            } else {
                Arc::new(nanos.unary::<_, Time64NanosecondType>(|v| v / step * step))
            }
        }
        other => return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{other} is not a time type"))),
    })
}

/// Ticks per second of a time type's Arrow column: its storage unit, which is finer
/// than the precision for `DateTime64(1)`, `(2)`, `(4)`.. (milliseconds, microseconds).
fn ticks_per_second(t: &ChType) -> i64 {
    match t {
        ChType::DateTime64(p, _) => match time_unit_for_precision(*p) {
            TimeUnit::Second => 1,
            TimeUnit::Millisecond => 1_000,
            TimeUnit::Microsecond => 1_000_000,
            TimeUnit::Nanosecond => 1_000_000_000,
        },
        _ => 1,
    }
}

/// Moves each value of `array` (a date or time) by `n * sign`
/// `unit`s into a column of type `to` (see [`shifted_type`]). Calendar units move the
/// local date in `zone` and keep the time of day; months clamp the day to the month's
/// last. Results wrap as ClickHouse's do: `Date` in 16 bits, `DateTime` in 32.
pub(crate) fn shift(array: &ArrayRef, n: &PrimitiveArray<Int64Type>, unit: Unit, sign: i64, zone: &SessionTz, to: &ChType) -> DfResult<ArrayRef> {
    if matches!(array.data_type(), DataType::Time32(_) | DataType::Time64(_)) {
        let unit_nanos: i64 = match unit {
            Unit::Nanosecond => 1,
            Unit::Microsecond => 1_000,
            Unit::Millisecond => 1_000_000,
            Unit::Second => 1_000_000_000,
            Unit::Minute => 60_000_000_000,
            Unit::Hour => 3_600_000_000_000,
            _ => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{} cannot be used with {to}", add_function_name(unit)))),
        };
        let moved: PrimitiveArray<Int64Type> =
            datafusion::arrow::compute::binary(&time_nanos(array)?, n, |v, k| v.saturating_add(k.saturating_mul(sign).saturating_mul(unit_nanos)))?;
        return time_from_nanos(&moved, to);
    }
    let zone = *zone;
    let months_per = match unit {
        Unit::Month => 1,
        Unit::Quarter => 3,
        Unit::Year => 12,
        _ => 0,
    };
    let days_per = match unit {
        Unit::Day => 1,
        Unit::Week => 7,
        _ => 0,
    };
    let calendar = months_per > 0 || days_per > 0;
    let move_days = move |days: i64, k: i64| if months_per > 0 { add_months_days(days, k.wrapping_mul(months_per)) } else { days.wrapping_add(k.wrapping_mul(days_per)) };
    let to_per = ticks_per_second(to);
    // Ticks of the result's precision per unit, for units of a fixed length.
    let unit_ticks = match unit {
        Unit::Nanosecond => (to_per / 1_000_000_000).max(1),
        Unit::Microsecond => (to_per / 1_000_000).max(1),
        Unit::Millisecond => (to_per / 1_000).max(1),
        Unit::Second => to_per,
        Unit::Minute => 60 * to_per,
        Unit::Hour => 3600 * to_per,
        _ => 86_400 * to_per,
    };
    let wrap_datetime = matches!(to, ChType::DateTime(_));
    match (array.data_type(), to) {
        (DataType::Date32, ChType::Date | ChType::Date32) => {
            let wrap16 = matches!(to, ChType::Date);
            let a = array.as_primitive::<Date32Type>();
            let out: PrimitiveArray<Date32Type> = datafusion::arrow::compute::binary(a, n, |d, k| {
                let nd = move_days(d as i64, k.wrapping_mul(sign));
                if wrap16 {
                    (nd as u16) as i32
                } else {
                    nd as i32
                }
            })?;
            Ok(Arc::new(out))
        }
        (DataType::Date32, _) => {
            // A date plus hours: its midnight in the server zone, plus the interval.
            let a = array.as_primitive::<Date32Type>();
            let out: PrimitiveArray<Int64Type> = datafusion::arrow::compute::binary(a, n, |d, k| {
                let v = zone.to_utc(d as i64 * 86_400).wrapping_mul(to_per).wrapping_add(k.wrapping_mul(sign).wrapping_mul(unit_ticks));
                if wrap_datetime {
                    i64::from(v as u32)
                } else {
                    v
                }
            })?;
            retype(out, to)
        }
        (DataType::Timestamp(..), _) => {
            let (raw, from_per) = timestamp_ticks(array)?;
            // The input in the result's ticks (DateTime + milliseconds is a DateTime64(3)).
            let raw: PrimitiveArray<Int64Type> = if to_per > from_per { raw.unary(|v| v.wrapping_mul(to_per / from_per)) } else { raw };
            let out: PrimitiveArray<Int64Type> = datafusion::arrow::compute::binary(&raw, n, |v, k| {
                let k = k.wrapping_mul(sign);
                let moved = if calendar {
                    let (secs, sub) = (v.div_euclid(to_per), v.rem_euclid(to_per));
                    let local = zone.to_local(secs);
                    let days = move_days(local.div_euclid(86_400), k);
                    zone.to_utc(days * 86_400 + local.rem_euclid(86_400)).wrapping_mul(to_per).wrapping_add(sub)
                } else {
                    v.wrapping_add(k.wrapping_mul(unit_ticks))
                };
                if wrap_datetime {
                    i64::from(moved as u32)
                } else {
                    moved
                }
            })?;
            retype(out, to)
        }
        (other, _) => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{} cannot be used with {other}", add_function_name(unit)))),
    }
}

/// Int64 ticks as a column of the (time) type `to`.
pub(crate) fn retype(ticks: PrimitiveArray<Int64Type>, to: &ChType) -> DfResult<ArrayRef> {
    let data = ticks.into_data().into_builder().data_type(to.to_arrow()).build()?;
    Ok(datafusion::arrow::array::make_array(data))
}

/// `addDays(d, n)`, `subtractMonths(d, n)`, ...: `d` moved by `n` units (see [`shift`]).
fn interval_fn(name: &'static str, unit: Unit, sign: i64) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(2, 3),
        move |ctx| {
            check_date_arg(ctx, 0, true)?;
            if !(is_integer(ctx.dt(1)) || is_float(ctx.dt(1))) || matches!(ctx.ch(1).base(), ChType::Interval(_)) {
                return Err(illegal_type(ctx.name, 1, ctx.field(1)));
            }
            optional_tz(ctx, 2)?;
            shifted_type(ctx.ch(0).base(), unit)
        },
        move |ctx| {
            let zone = zone_for(ctx, 0, Some(2))?;
            let n = datafusion::arrow::compute::cast(&ctx.array(1)?, &DataType::Int64)?;
            shift(&ctx.array(0)?, n.as_primitive::<Int64Type>(), unit, sign, &zone, ctx.ret_ch().base())
        },
    )
    .build()
}

/// `addDate(d, interval)` / `subDate(d, interval)`: `d` moved by an `Interval*` value,
/// as `d + interval` and `d - interval`.
fn add_date_fn(name: &'static str, sign: i64) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            if !matches!(ctx.ch(0).base(), ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type {} of 1st argument of function {}. Should be a date or a date with time", ctx.ch(0), ctx.name),
                ));
            }
            let ChType::Interval(unit) = *ctx.ch(1).base() else {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type {} of 2nd argument of function {}. Should be an interval", ctx.ch(1), ctx.name),
                ));
            };
            shifted_type(ctx.ch(0).base(), unit)
        },
        move |ctx| {
            let ChType::Interval(unit) = *ctx.ch(1).base() else {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The 2nd argument of function {} must be an interval", ctx.name)));
            };
            let zone = zone_for(ctx, 0, None)?;
            let n = datafusion::arrow::compute::cast(&ctx.array(1)?, &DataType::Int64)?;
            shift(&ctx.array(0)?, n.as_primitive::<Int64Type>(), unit, sign, &zone, ctx.ret_ch().base())
        },
    )
    .build()
}

/// `toIntervalDay(n)`, ...: `n` (a number, or a string holding one) as an interval of
/// that unit; fractions are dropped, as ClickHouse converts the count to Int64.
fn to_interval_fn(unit: Unit) -> ScalarUDF {
    let name: &'static str = Box::leak(format!("toInterval{}", unit.name()).into_boxed_str());
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            let dt = ctx.dt(0);
            if !(is_integer(dt) || is_float(dt) || is_string(dt) || crate::args::is_decimal(dt)) || matches!(ctx.ch(0).base(), ChType::Interval(_)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            Ok(ChType::Interval(unit))
        },
        move |ctx| {
            let cv = Conv { func: name, mode: Mode::Throw, config: ctx.config };
            convert(&ctx.array(0)?, &ctx.fields[0], &ChType::Int64, &cv)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    let mut out = vec![
        now_fn(),
        now64_fn(),
        day_fn("today", 0),
        day_fn("yesterday", 1),
        timezone_fn("timezone"),
        timezone_fn("serverTimezone"),
        utc_timestamp_fn(),
        timezone_offset_fn(),
        timezone_of_fn(),
        to_timezone_fn(),
        utc_timestamp_shift("toUTCTimestamp", true),
        utc_timestamp_shift("fromUTCTimestamp", false),
        component::<UInt16Type>("toYear", ChType::UInt16, true, |s| ymd(s).0 as u16),
        component::<UInt8Type>("toMonth", ChType::UInt8, true, |s| ymd(s).1 as u8),
        component::<UInt8Type>("toDayOfMonth", ChType::UInt8, true, |s| ymd(s).2 as u8),
        component::<UInt8Type>("toDaysInMonth", ChType::UInt8, true, |s| {
            let (year, month, _) = ymd(s);
            crate::tz::days_in_month(year, month) as u8
        }),
        component::<UInt16Type>("toDayOfYear", ChType::UInt16, true, |s| {
            let days = s.div_euclid(86_400);
            let (y, _, _) = civil_from_days(days);
            (days - days_from_civil(y, 1, 1) + 1) as u16
        }),
        component::<UInt8Type>("toQuarter", ChType::UInt8, true, |s| ((ymd(s).1 - 1) / 3 + 1) as u8),
        component::<UInt8Type>("toHour", ChType::UInt8, false, |s| (s.rem_euclid(86_400) / 3600) as u8),
        component::<UInt8Type>("toMinute", ChType::UInt8, false, |s| (s.rem_euclid(3600) / 60) as u8),
        component::<UInt8Type>("toSecond", ChType::UInt8, false, |s| s.rem_euclid(60) as u8),
        component::<UInt32Type>("toYYYYMM", ChType::UInt32, true, |s| {
            let (y, m, _) = ymd(s);
            (y * 100 + m as i64) as u32
        }),
        component::<UInt32Type>("toYYYYMMDD", ChType::UInt32, true, |s| {
            let (y, m, d) = ymd(s);
            (y * 10_000 + m as i64 * 100 + d as i64) as u32
        }),
        component::<datafusion::arrow::datatypes::UInt64Type>("toYYYYMMDDhhmmss", ChType::UInt64, true, |s| {
            let (y, m, d) = ymd(s);
            let t = s.rem_euclid(86_400);
            (y * 10_000_000_000 + m as i64 * 100_000_000 + d as i64 * 1_000_000 + (t / 3600) * 10_000 + (t % 3600 / 60) * 100 + t % 60) as u64
        }),
        to_days_since_year_zero(),
        // Counts before 1970 are 0: ClickHouse saturates them.
        component::<UInt16Type>("toYearNumSinceEpoch", ChType::UInt16, true, |s| (ymd(s).0 - 1970).clamp(0, i64::from(u16::MAX)) as u16),
        component::<UInt32Type>("toMonthNumSinceEpoch", ChType::UInt32, true, |s| {
            let (y, m, _) = ymd(s);
            ((y - 1970) * 12 + i64::from(m) - 1).max(0) as u32
        }),
        from_days_since_year_zero("fromDaysSinceYearZero", false),
        from_days_since_year_zero("fromDaysSinceYearZero32", true),
        start_of("toStartOfMinute", Period::Minute),
        start_of("toStartOfFiveMinutes", Period::FiveMinutes),
        start_of("toStartOfTenMinutes", Period::TenMinutes),
        start_of("toStartOfFifteenMinutes", Period::FifteenMinutes),
        start_of("toStartOfHour", Period::Hour),
        start_of("toStartOfDay", Period::Day),
        start_of("toStartOfMonth", Period::Month),
        start_of("toStartOfQuarter", Period::Quarter),
        start_of("toStartOfYear", Period::Year),
        to_unix_timestamp(),
        to_unix_timestamp64("toUnixTimestamp64Milli", TimeUnit::Millisecond),
        to_unix_timestamp64("toUnixTimestamp64Second", TimeUnit::Second),
        from_unix_timestamp64("fromUnixTimestamp64Second", 0),
        sub_second::<UInt16Type>("toMillisecond", ChType::UInt16, 3),
        sub_second::<UInt32Type>("toMicrosecond", ChType::UInt32, 6),
        sub_second::<UInt32Type>("toNanosecond", ChType::UInt32, 9),
        from_unix_timestamp64("fromUnixTimestamp64Milli", 3),
        from_unix_timestamp64("fromUnixTimestamp64Micro", 6),
        from_unix_timestamp64("fromUnixTimestamp64Nano", 9),
        to_unix_timestamp64("toUnixTimestamp64Micro", TimeUnit::Microsecond),
        to_unix_timestamp64("toUnixTimestamp64Nano", TimeUnit::Nanosecond),
        date_diff(),
        add_date_fn("addDate", 1),
        add_date_fn("subDate", -1),
    ];
    for unit in Unit::ALL {
        out.push(interval_fn(Box::leak(add_function_name(unit).into_boxed_str()), unit, 1));
        out.push(interval_fn(Box::leak(format!("subtract{}s", unit.name()).into_boxed_str()), unit, -1));
        out.push(to_interval_fn(unit));
    }
    out
}
