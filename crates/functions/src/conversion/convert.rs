//! The conversion engine behind `toT`, `toTOrZero`, `toTOrNull` and `CAST`: converts
//! an Arrow array of any supported source type to a ClickHouse type, with ClickHouse's
//! semantics (wrapping integer narrowing, x86 float truncation, lenient dates, UInt32
//! `DateTime` range, truncating decimals).
//!
//! Every path is a vectorized loop over the source array (Arrow `unary`/`try_unary` or
//! a builder loop for strings); nulls in the source stay nulls and are never parsed.

use std::sync::Arc;

use datafusion::arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, BooleanArray, BooleanBuilder, Decimal128Array, Decimal256Array, FixedSizeBinaryBuilder,
    Float32Array, Float64Array, Int64Array, ListArray, PrimitiveArray, PrimitiveBuilder,
};
use datafusion::arrow::compute::{cast, kernels::cast::cast_with_options, CastOptions};
use datafusion::arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Decimal128Type, Decimal256Type, Field, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type, i256,
};
use datafusion::common::config::ConfigOptions;
use granary_common::ErrorCode;
use granary_types::wide::{f64_to_i256_wrapping, WideInt, WideParseError};
use granary_types::ChType;

use crate::args::{ch_error, is_float, is_signed_int, DfResult};
use crate::format::{format_array, FormatCtx};
use crate::parse::{self, DateTimeText, ParseFail};
use crate::tz::{SessionTz, DATE32_MAX_DAYS, DATE32_MIN_DAYS, DATETIME_MAX, DATE_MAX_DAYS};

/// What a conversion does with a value it cannot read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Mode {
    /// Raise the ClickHouse error (`toT`, `CAST`).
    Throw,
    /// Yield the type's zero (`toTOrZero`).
    OrZero,
    /// Yield NULL (`toTOrNull`).
    OrNull,
}

/// Everything a conversion needs besides the data.
pub(crate) struct Conv<'a> {
    /// The user-visible function name, for the "there are ...OrZero" note; empty for CAST.
    pub func: &'a str,
    pub mode: Mode,
    pub config: &'a ConfigOptions,
}

/// Converts `array` (of `from`) to the base (non-Nullable) ClickHouse type `to`.
/// The result has Arrow type `to.to_arrow()`; nulls of the source stay nulls, and
/// under [`Mode::OrNull`] unreadable values become nulls too.
pub(crate) fn convert(array: &ArrayRef, from: &Field, to: &ChType, cv: &Conv) -> DfResult<ArrayRef> {
    let from_dt = from.data_type();
    if from_dt == &DataType::Null {
        return Ok(new_null_array(&to.to_arrow(), array.len()));
    }
    let to = match to {
        ChType::Nullable(inner) | ChType::LowCardinality(inner) => inner.as_ref(),
        other => other,
    };
    // Same physical type and same ClickHouse type: nothing to do.
    if ChType::from_field(&from.clone().with_nullable(false)) == *to.base() && from_dt == &to.to_arrow() {
        return Ok(Arc::clone(array));
    }
    if let Some((seconds, seconds_field)) = time_as_seconds(array, from, to)? {
        return convert(&seconds, &seconds_field, to, cv);
    }
    match to {
        ChType::UInt8 => Ok(Arc::new(to_int::<UInt8Type>(array, from, cv)?)),
        ChType::UInt16 => Ok(Arc::new(to_int::<UInt16Type>(array, from, cv)?)),
        ChType::UInt32 => Ok(Arc::new(to_int::<UInt32Type>(array, from, cv)?)),
        ChType::UInt64 => Ok(Arc::new(to_int::<UInt64Type>(array, from, cv)?)),
        ChType::Int8 => Ok(Arc::new(to_int::<Int8Type>(array, from, cv)?)),
        ChType::Int16 => Ok(Arc::new(to_int::<Int16Type>(array, from, cv)?)),
        ChType::Int32 => Ok(Arc::new(to_int::<Int32Type>(array, from, cv)?)),
        ChType::Int64 => Ok(Arc::new(to_int::<Int64Type>(array, from, cv)?)),
        ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256 => match WideInt::of(to) {
            Some(kind) => to_wide(array, from, kind, cv),
            None => Err(unsupported(from, &to.to_string())),
        },
        ChType::Float64 => Ok(Arc::new(to_f64(array, from, cv, "Float64")?)),
        ChType::Float32 => {
            let wide = to_f64(array, from, cv, "Float32")?;
            let narrow: Float32Array = wide.unary(|v| v as f32);
            Ok(Arc::new(narrow))
        }
        ChType::Bool => Ok(Arc::new(to_bool(array, from, cv)?)),
        ChType::String => format_array(from, array, &FormatCtx::from_config(cv.config)?),
        ChType::FixedString(n) => to_fixed_string(array, from, *n, cv),
        ChType::Date => to_date(array, from, false, cv),
        ChType::Date32 => to_date(array, from, true, cv),
        ChType::DateTime(tz) => {
            let zone = target_zone(tz.as_deref(), cv.config)?;
            let secs = to_datetime_ticks(array, from, 0, &zone, cv, true)?;
            Ok(Arc::new(secs.reinterpret_cast::<TimestampSecondType>().with_timezone_opt(tz.clone())))
        }
        ChType::DateTime64(p, tz) => {
            let zone = target_zone(tz.as_deref(), cv.config)?;
            let ticks = to_datetime_ticks(array, from, *p, &zone, cv, false)?;
            let out: ArrayRef = match time_unit_for_precision(*p) {
                TimeUnit::Second => Arc::new(ticks.reinterpret_cast::<TimestampSecondType>().with_timezone_opt(tz.clone())),
                TimeUnit::Millisecond => {
                    Arc::new(ticks.reinterpret_cast::<TimestampMillisecondType>().with_timezone_opt(tz.clone()))
                }
                TimeUnit::Microsecond => {
                    Arc::new(ticks.reinterpret_cast::<TimestampMicrosecondType>().with_timezone_opt(tz.clone()))
                }
                TimeUnit::Nanosecond => {
                    Arc::new(ticks.reinterpret_cast::<TimestampNanosecondType>().with_timezone_opt(tz.clone()))
                }
            };
            Ok(out)
        }
        ChType::Time => to_time(array, from, None, cv),
        ChType::Time64(p) => to_time(array, from, Some(*p), cv),
        ChType::Decimal(p, s) if *p <= 38 => Ok(Arc::new(to_decimal(array, from, *p, *s, cv)?)),
        ChType::Decimal(p, s) => Ok(Arc::new(to_decimal256(array, from, *p, *s, cv)?)),
        ChType::Uuid => to_uuid(array, from, cv),
        ChType::Enum8(elements) | ChType::Enum16(elements) => to_enum(array, from, to, elements, cv),
        ChType::IPv4 => to_ipv4(array, from, cv),
        ChType::IPv6 => to_ipv6(array, from, cv),
        ChType::Variant(types) => to_variant(array, from, types, cv),
        // Arrays element by element with these rules (`CAST(['a'] AS Array(Enum8(...)))`).
        ChType::Array(inner) if matches!(from_dt, DataType::List(_)) => convert_list(array, from, inner, cv),
        // `CAST('[1, 2]' AS Array(UInt8))`, and query parameters of composite types: the
        // text is read as ClickHouse reads such values in the Values format.
        other @ (ChType::Array(_) | ChType::Map(..) | ChType::Tuple(_)) if matches!(from_dt, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) => {
            let text = cast(array, &DataType::Utf8)?;
            let text = text.as_string::<i32>();
            let mut builder = granary_types::text::ColumnBuilder::with_type(other, &granary_types::text::TextOptions::default())
                .map_err(|e| ch_error(e.code(), e.message().to_string()))?;
            for value in text.iter() {
                match value {
                    Some(value) => builder.parse_text(value.trim().as_bytes()),
                    None => builder.append_default(),
                }
                .map_err(|e| ch_error(e.code(), format!("Cannot parse {other} from the string: {}", e.message())))?;
            }
            builder.finish().map_err(|e| ch_error(e.code(), e.message().to_string()))
        }
        other => {
            // Composite and remaining types: Arrow's cast, with ClickHouse's error code.
            cast_with_options(array, &other.to_arrow(), &CastOptions { safe: false, ..Default::default() }).map_err(|e| {
                ch_error(
                    ErrorCode::CANNOT_CONVERT_TYPE,
                    format!("Conversion from {} to {other} is not supported: {e}", ChType::from_field(from)),
                )
            })
        }
    }
}

/// A `Time`/`Time64` source converted to a number or a date: its seconds, whole
/// (truncated toward zero, as ClickHouse) for integers and `DateTime`, with the fraction
/// for the other targets. None when the source is not a time or the target is one.
fn time_as_seconds(array: &ArrayRef, from: &Field, to: &ChType) -> DfResult<Option<(ArrayRef, Field)>> {
    let per_second = match from.data_type() {
        DataType::Time32(TimeUnit::Second) => 1,
        DataType::Time32(TimeUnit::Millisecond) => 1_000,
        DataType::Time64(TimeUnit::Microsecond) => 1_000_000,
        DataType::Time64(TimeUnit::Nanosecond) => 1_000_000_000,
        _ => return Ok(None),
    };
    if matches!(to, ChType::Time | ChType::Time64(_) | ChType::String | ChType::FixedString(_)) {
        return Ok(None);
    }
    let units: Int64Array = match from.data_type() {
        DataType::Time32(TimeUnit::Second) => array.as_primitive::<Time32SecondType>().unary(i64::from),
        DataType::Time32(_) => array.as_primitive::<Time32MillisecondType>().unary(i64::from),
        DataType::Time64(TimeUnit::Microsecond) => array.as_primitive::<Time64MicrosecondType>().unary(|v| v),
        _ => array.as_primitive::<Time64NanosecondType>().unary(|v| v),
    };
    let whole = matches!(to, ChType::DateTime(_) | ChType::Date | ChType::Date32 | ChType::Bool | ChType::Enum8(_) | ChType::Enum16(_) | ChType::IPv4)
        || matches!(to.to_arrow(), DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 | DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64)
        || WideInt::of(to).is_some();
    if whole || per_second == 1 {
        let seconds: Int64Array = units.unary(|v| v / per_second);
        return Ok(Some((Arc::new(seconds), Field::new(from.name(), DataType::Int64, from.is_nullable()))));
    }
    let seconds: Float64Array = units.unary(|v| v as f64 / per_second as f64);
    Ok(Some((Arc::new(seconds), Field::new(from.name(), DataType::Float64, from.is_nullable()))))
}

/// `toTime`/`toTime64`/`CAST(x AS Time[64](p))` (`precision` None for `Time`): text as
/// ClickHouse parses it, numbers as seconds (the fraction cut to the precision), a
/// `DateTime[64]` as its time of day in its zone, a `Date` as midnight; values beyond
/// ±999:59:59 are clamped. `Time64` to `Time` is not a conversion ClickHouse has.
fn to_time(array: &ArrayRef, from: &Field, precision: Option<u8>, cv: &Conv) -> DfResult<ArrayRef> {
    use granary_types::text::time::{max_nanos, parse_time, units_per_second};
    let digits = u32::from(precision.unwrap_or(0));
    let per_second = units_per_second(precision);
    let nanos_per_unit = 1_000_000_000 / per_second;
    let max_units = max_nanos(digits) / nanos_per_unit;
    let target = precision.map_or(ChType::Time, ChType::Time64);
    let clamp = move |units: i128| units.clamp(-(max_units as i128), max_units as i128) as i64;
    let dt = from.data_type();
    let units: Vec<Option<i64>> = if is_text(dt) {
        let mut out = Vec::with_capacity(array.len());
        for_each_text(array, |v| {
            out.push(match v {
                None => None,
                Some(text) => match parse_time(text.as_bytes(), precision, &target.to_string()) {
                    Ok(nanos) => Some(nanos / nanos_per_unit),
                    Err(e) => match cv.mode {
                        Mode::Throw => return Err(ch_error(e.code(), e.message().to_string())),
                        Mode::OrZero => Some(0),
                        Mode::OrNull => None,
                    },
                },
            });
            Ok(())
        })?;
        out
    } else {
        match dt {
            DataType::Time32(_) | DataType::Time64(_) => {
                let source_per_second = match dt {
                    DataType::Time32(TimeUnit::Second) => 1,
                    DataType::Time32(_) => 1_000,
                    DataType::Time64(TimeUnit::Microsecond) => 1_000_000,
                    _ => 1_000_000_000,
                };
                let source_precision = match ChType::from_field(from).base() {
                    ChType::Time64(p) => Some(*p),
                    _ => None,
                };
                if precision.is_none() && source_precision.is_some() {
                    return Err(ch_error(ErrorCode::CANNOT_CONVERT_TYPE, "Unsupported data type in conversion function".to_string()));
                }
                let step = 10i128.pow(9 - digits.min(9));
                let raw: Vec<Option<i128>> = match dt {
                    DataType::Time32(TimeUnit::Second) => array.as_primitive::<Time32SecondType>().iter().map(|v| v.map(i128::from)).collect(),
                    DataType::Time32(_) => array.as_primitive::<Time32MillisecondType>().iter().map(|v| v.map(i128::from)).collect(),
                    DataType::Time64(TimeUnit::Microsecond) => array.as_primitive::<Time64MicrosecondType>().iter().map(|v| v.map(i128::from)).collect(),
                    _ => array.as_primitive::<Time64NanosecondType>().iter().map(|v| v.map(i128::from)).collect(),
                };
                let source_nanos = 1_000_000_000 / source_per_second as i128;
                raw.into_iter().map(|v| v.map(|v| clamp(v * source_nanos / step * step / nanos_per_unit as i128))).collect()
            }
            DataType::Timestamp(unit, _) => {
                let zone = SessionTz::for_field(from, cv.config)?;
                let source_per_second: i64 = match unit {
                    TimeUnit::Second => 1,
                    TimeUnit::Millisecond => 1_000,
                    TimeUnit::Microsecond => 1_000_000,
                    TimeUnit::Nanosecond => 1_000_000_000,
                };
                let ticks = cast(array, &DataType::Int64)?;
                let step = 10i64.pow(9 - digits.min(9));
                ticks
                    .as_primitive::<Int64Type>()
                    .iter()
                    .map(|v| {
                        v.map(|v| {
                            let seconds = v.div_euclid(source_per_second);
                            let local = zone.to_local(seconds).rem_euclid(86_400);
                            let nanos = v.rem_euclid(source_per_second) * (1_000_000_000 / source_per_second) / step * step;
                            local * per_second + nanos / nanos_per_unit
                        })
                    })
                    .collect()
            }
            DataType::Date32 => (0..array.len()).map(|i| array.is_valid(i).then_some(0)).collect(),
            DataType::Boolean | DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 | DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
                let ints = if dt == &DataType::Boolean { cast(array, &DataType::UInt8)? } else { Arc::clone(array) };
                let wide = cast(&ints, &DataType::Decimal128(38, 0))?;
                wide.as_primitive::<Decimal128Type>().iter().map(|v| v.map(|v| clamp(v.saturating_mul(per_second as i128)))).collect()
            }
            DataType::Float32 | DataType::Float64 => {
                let floats = cast(array, &DataType::Float64)?;
                let scale = 10f64.powi(digits as i32);
                let step = per_second as f64 / scale;
                floats
                    .as_primitive::<Float64Type>()
                    .iter()
                    .map(|v| v.map(|v| if v.is_nan() { 0 } else { clamp(((v * scale).trunc() * step) as i128) }))
                    .collect()
            }
            _ => {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_COLUMN,
                    format!("Illegal column {} of first argument of function {}", ChType::from_field(from), if cv.func.is_empty() { "CAST" } else { cv.func }),
                ))
            }
        }
    };
    Ok(match precision {
        None => Arc::new(units.into_iter().map(|v| v.map(|v| v as i32)).collect::<PrimitiveArray<Time32SecondType>>()),
        Some(0..=6) => Arc::new(units.into_iter().collect::<PrimitiveArray<Time64MicrosecondType>>()),
        Some(_) => Arc::new(units.into_iter().collect::<PrimitiveArray<Time64NanosecondType>>()),
    })
}

/// `CAST(x AS Variant(...))`: a value of one of the types goes to that type; a string
/// is read as the Variant reads text (numbers, dates, ... before String); another value
/// becomes a String when the Variant has one.
fn to_variant(array: &ArrayRef, from: &Field, types: &[ChType], cv: &Conv) -> DfResult<ArrayRef> {
    let target = ChType::Variant(types.to_vec());
    let DataType::Struct(fields) = target.to_arrow() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{target} is not held as a struct")));
    };
    let source = ChType::from_field(from).strip_nullable().base().clone();
    let index = if is_text(from.data_type()) {
        None
    } else {
        match types.iter().position(|t| *t == source) {
            Some(i) => Some(i),
            None => Some(types.iter().position(|t| *t == ChType::String).ok_or_else(|| unsupported(from, &target.to_string()))?),
        }
    };
    let Some(index) = index else {
        let mut builder = granary_types::text::ColumnBuilder::with_type(&target, &granary_types::text::TextOptions::default())
            .map_err(|e| ch_error(e.code(), e.message().to_string()))?;
        for_each_text(array, |value| {
            match value {
                Some(value) => builder.parse_text(value.as_bytes()),
                None => builder.append_null(),
            }
            .map_err(|e| ch_error(e.code(), e.message().to_string()))
        })?;
        return builder.finish().map_err(|e| ch_error(e.code(), e.message().to_string()));
    };
    let value = convert(array, from, &types[index], cv)?;
    let nulls = value.logical_nulls();
    let children = fields
        .iter()
        .enumerate()
        .map(|(i, f)| if i == index { Arc::clone(&value) } else { new_null_array(f.data_type(), array.len()) })
        .collect();
    Ok(Arc::new(datafusion::arrow::array::StructArray::try_new(fields, children, nulls)?))
}

/// The Arrow unit of `DateTime64(precision)` (same rule as `granary_types`).
pub(crate) fn time_unit_for_precision(precision: u8) -> TimeUnit {
    match precision {
        0 => TimeUnit::Second,
        1..=3 => TimeUnit::Millisecond,
        4..=6 => TimeUnit::Microsecond,
        _ => TimeUnit::Nanosecond,
    }
}

fn target_zone(tz: Option<&str>, config: &ConfigOptions) -> DfResult<SessionTz> {
    match tz {
        Some(name) => crate::tz::parse_tz(name),
        None => SessionTz::from_config(config),
    }
}

/// Integer targets: the ClickHouse narrowing rules in one trait.
pub(crate) trait IntTarget: ArrowPrimitiveType {
    const NAME: &'static str;
    const MIN: i128;
    const MAX: i128;
    const UNSIGNED: bool;
    /// Two's-complement truncation (`toUInt8(300)` = 44).
    fn wrap(v: i128) -> Self::Native;
    /// Float to integer as ClickHouse's x86 build does it (`cvttsd2si` results for
    /// out-of-range values, e.g. `toInt32(1e20)` = -2147483648).
    fn from_f64(v: f64) -> Self::Native;
}

#[inline]
fn cvt32(v: f64) -> i32 {
    let t = v.trunc();
    if (-2_147_483_648.0..2_147_483_648.0).contains(&t) {
        t as i32
    } else {
        i32::MIN
    }
}

#[inline]
fn cvt64(v: f64) -> i64 {
    let t = v.trunc();
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&t) {
        t as i64
    } else {
        i64::MIN
    }
}

macro_rules! int_target {
    ($t:ty, $native:ty, $name:literal, $unsigned:literal, |$v:ident| $from_f64:expr) => {
        impl IntTarget for $t {
            const NAME: &'static str = $name;
            const MIN: i128 = <$native>::MIN as i128;
            const MAX: i128 = <$native>::MAX as i128;
            const UNSIGNED: bool = $unsigned;
            #[inline]
            fn wrap(v: i128) -> $native {
                v as $native
            }
            #[inline]
            fn from_f64($v: f64) -> $native {
                $from_f64
            }
        }
    };
}

int_target!(UInt8Type, u8, "UInt8", true, |v| cvt32(v) as u8);
int_target!(UInt16Type, u16, "UInt16", true, |v| cvt32(v) as u16);
int_target!(UInt32Type, u32, "UInt32", true, |v| cvt64(v) as u32);
int_target!(UInt64Type, u64, "UInt64", true, |v| {
    if v >= 18_446_744_073_709_551_616.0 {
        1u64 << 63
    } else if v >= 9_223_372_036_854_775_808.0 {
        v as u64
    } else {
        cvt64(v) as u64
    }
});
int_target!(Int8Type, i8, "Int8", false, |v| cvt32(v) as i8);
int_target!(Int16Type, i16, "Int16", false, |v| cvt32(v) as i16);
int_target!(Int32Type, i32, "Int32", false, |v| cvt32(v));
int_target!(Int64Type, i64, "Int64", false, |v| cvt64(v));

fn nan_to_int_error() -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::CANNOT_CONVERT_TYPE, "Unexpected inf or nan to integer conversion")
}

/// Signed integers, unsigned integers and floats of any width, widened losslessly.
enum Wide {
    Signed(PrimitiveArray<Int64Type>),
    Unsigned(PrimitiveArray<UInt64Type>),
    Float(PrimitiveArray<Float64Type>),
}

fn widen(array: &ArrayRef, dt: &DataType) -> DfResult<Option<Wide>> {
    Ok(Some(match dt {
        t if is_signed_int(t) => Wide::Signed(cast(array, &DataType::Int64)?.as_primitive::<Int64Type>().clone()),
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 | DataType::Boolean => {
            Wide::Unsigned(cast(array, &DataType::UInt64)?.as_primitive::<UInt64Type>().clone())
        }
        t if is_float(t) => Wide::Float(cast(array, &DataType::Float64)?.as_primitive::<Float64Type>().clone()),
        DataType::Date32 => Wide::Signed(cast(array, &DataType::Int64)?.as_primitive::<Int64Type>().clone()),
        _ => return Ok(None),
    }))
}

/// Seconds (truncated) of any timestamp array.
fn timestamp_seconds(array: &ArrayRef) -> DfResult<PrimitiveArray<Int64Type>> {
    let (raw, per) = timestamp_ticks(array)?;
    Ok(raw.unary(|v| if per == 1 { v } else { v.div_euclid(per) }))
}

/// Raw ticks of a timestamp array and ticks per second.
pub(crate) fn timestamp_ticks(array: &ArrayRef) -> DfResult<(PrimitiveArray<Int64Type>, i64)> {
    let per = match array.data_type() {
        DataType::Timestamp(TimeUnit::Second, _) => 1,
        DataType::Timestamp(TimeUnit::Millisecond, _) => 1_000,
        DataType::Timestamp(TimeUnit::Microsecond, _) => 1_000_000,
        DataType::Timestamp(TimeUnit::Nanosecond, _) => 1_000_000_000,
        other => return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{other} is not a timestamp"))),
    };
    let raw = array.to_data().into_builder().data_type(DataType::Int64).build()?;
    Ok((PrimitiveArray::<Int64Type>::from(raw), per))
}

fn string_values(array: &ArrayRef) -> DfResult<Option<Vec<Option<String>>>> {
    // Strings are read through an owned view only for the rare non-Utf8 layouts.
    Ok(match array.data_type() {
        DataType::LargeUtf8 | DataType::Utf8View => {
            let a = cast(array, &DataType::Utf8)?;
            Some(a.as_string::<i32>().iter().map(|v| v.map(str::to_string)).collect())
        }
        DataType::FixedSizeBinary(_) => Some(
            array
                .as_fixed_size_binary()
                .iter()
                .map(|v| v.map(|b| String::from_utf8_lossy(b).trim_end_matches('\0').to_string()))
                .collect(),
        ),
        _ => None,
    })
}

/// Runs `f` over the text values of a string-like array.
fn for_each_text(array: &ArrayRef, mut f: impl FnMut(Option<&str>) -> DfResult<()>) -> DfResult<bool> {
    match array.data_type() {
        DataType::Utf8 => {
            for v in array.as_string::<i32>().iter() {
                f(v)?;
            }
            Ok(true)
        }
        _ => match string_values(array)? {
            Some(values) => {
                for v in values.iter() {
                    f(v.as_deref())?;
                }
                Ok(true)
            }
            None => Ok(false),
        },
    }
}

pub(crate) fn is_text(dt: &DataType) -> bool {
    matches!(dt, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::FixedSizeBinary(_))
}

fn unsupported(from: &Field, to: &str) -> datafusion::common::DataFusionError {
    ch_error(
        ErrorCode::CANNOT_CONVERT_TYPE,
        format!("Conversion from {} to {to} is not supported", ChType::from_field(from)),
    )
}

fn to_int<T: IntTarget>(array: &ArrayRef, from: &Field, cv: &Conv) -> DfResult<PrimitiveArray<T>> {
    let dt = from.data_type();
    if is_text(dt) {
        let mut b = PrimitiveBuilder::<T>::with_capacity(array.len());
        for_each_text(array, |v| {
            match v {
                None => b.append_null(),
                Some(text) => match parse::parse_int(text, T::UNSIGNED, T::MIN, T::MAX) {
                    Ok((v, fits)) => match (cv.mode, fits) {
                        (Mode::Throw, _) | (_, true) => b.append_value(T::wrap(v)),
                        (Mode::OrZero, false) => b.append_value(T::wrap(0)),
                        (Mode::OrNull, false) => b.append_null(),
                    },
                    Err(e) => match cv.mode {
                        Mode::Throw => {
                            let func = if cv.func.is_empty() { format!("to{}", T::NAME) } else { cv.func.to_string() };
                            return Err(e.to_error(text, T::NAME, &func));
                        }
                        Mode::OrZero => b.append_value(T::wrap(0)),
                        Mode::OrNull => b.append_null(),
                    },
                },
            }
            Ok(())
        })?;
        return Ok(b.finish());
    }
    if let Some(converted) = integer_to_int::<T>(array) {
        return Ok(converted);
    }
    if let Some(wide) = widen(array, dt)? {
        return Ok(match wide {
            Wide::Signed(a) => a.unary(|v| T::wrap(v as i128)),
            Wide::Unsigned(a) => a.unary(|v| T::wrap(v as i128)),
            Wide::Float(a) => a.try_unary(|v| if v.is_finite() { Ok(T::from_f64(v)) } else { Err(nan_to_int_error()) })?,
        });
    }
    match dt {
        DataType::Decimal128(_, s) => {
            let pow = 10i128.pow((*s).max(0) as u32);
            Ok(array.as_primitive::<Decimal128Type>().unary(|v| T::wrap(v / pow)))
        }
        DataType::Decimal256(_, s) => {
            let pow = pow10_256((*s).max(0) as u32);
            Ok(array.as_primitive::<Decimal256Type>().unary(|v| T::wrap(v.wrapping_div(pow).as_i128())))
        }
        DataType::Timestamp(..) => Ok(timestamp_seconds(array)?.unary(|v| T::wrap(v as i128))),
        _ => Err(unsupported(from, T::NAME)),
    }
}

/// Integer to integer in one pass, truncating or extending as ClickHouse does
/// (`toUInt8(300)` = 44): no widened copy, and a loop the compiler vectorizes.
fn integer_to_int<T: IntTarget>(array: &ArrayRef) -> Option<PrimitiveArray<T>> {
    macro_rules! from {
        ($source:ty) => {
            array.as_primitive::<$source>().unary::<_, T>(|v| T::wrap(v as i128))
        };
    }
    Some(match array.data_type() {
        DataType::UInt8 => from!(UInt8Type),
        DataType::UInt16 => from!(UInt16Type),
        DataType::UInt32 => from!(UInt32Type),
        DataType::UInt64 => from!(UInt64Type),
        DataType::Int8 => from!(Int8Type),
        DataType::Int16 => from!(Int16Type),
        DataType::Int32 => from!(Int32Type),
        DataType::Int64 => from!(Int64Type),
        _ => return None,
    })
}

fn to_f64(array: &ArrayRef, from: &Field, cv: &Conv, name: &str) -> DfResult<Float64Array> {
    let dt = from.data_type();
    if let Some(kind) = wide_source(from) {
        return Ok(kind.widen(array.as_ref()).map_err(|e| ch_error(e.code(), e.message().to_string()))?.unary(|v| kind.to_f64(v)));
    }
    if is_text(dt) {
        let mut b = PrimitiveBuilder::<Float64Type>::with_capacity(array.len());
        for_each_text(array, |v| {
            match v {
                None => b.append_null(),
                Some(text) => match parse::parse_float(text) {
                    Ok(f) => b.append_value(f),
                    Err(e) => match cv.mode {
                        Mode::Throw => {
                            let e = if e == ParseFail::AtBegin { ParseFail::Trailing(0) } else { e };
                            return Err(match e {
                                ParseFail::Trailing(0) => ch_error(
                                    ErrorCode::CANNOT_PARSE_NUMBER,
                                    format!("Cannot read floating point value here: {text}: Cannot parse {name} from String"),
                                ),
                                other => other.to_error(text, name, cv.func),
                            });
                        }
                        Mode::OrZero => b.append_value(0.0),
                        Mode::OrNull => b.append_null(),
                    },
                },
            }
            Ok(())
        })?;
        return Ok(b.finish());
    }
    if let Some(wide) = widen(array, dt)? {
        return Ok(match wide {
            Wide::Signed(a) => a.unary(|v| v as f64),
            Wide::Unsigned(a) => a.unary(|v| v as f64),
            Wide::Float(a) => a,
        });
    }
    match dt {
        DataType::Decimal128(_, s) => {
            let pow = 10f64.powi(*s as i32);
            Ok(array.as_primitive::<Decimal128Type>().unary(|v| v as f64 / pow))
        }
        DataType::Decimal256(_, s) => {
            let pow = 10f64.powi(*s as i32);
            Ok(array.as_primitive::<Decimal256Type>().unary(|v| i256_to_f64(v) / pow))
        }
        DataType::Timestamp(..) => {
            let (raw, per) = timestamp_ticks(array)?;
            Ok(raw.unary(|v| v as f64 / per as f64))
        }
        _ => Err(unsupported(from, name)),
    }
}

fn to_bool(array: &ArrayRef, from: &Field, cv: &Conv) -> DfResult<BooleanArray> {
    let dt = from.data_type();
    if is_text(dt) {
        let mut b = BooleanBuilder::with_capacity(array.len());
        for_each_text(array, |v| {
            match v {
                None => b.append_null(),
                Some(text) => match parse::parse_bool(text) {
                    Some(x) => b.append_value(x),
                    None => match cv.mode {
                        Mode::Throw => {
                            return Err(ch_error(
                                ErrorCode::CANNOT_PARSE_TEXT,
                                format!("Cannot parse boolean value here: '{text}', should be 'true' or 'false' controlled by setting bool_true_representation and bool_false_representation or one of True/False/T/F/Y/N/Yes/No/On/Off/Enable/Disable/Enabled/Disabled/1/0"),
                            ))
                        }
                        Mode::OrZero => b.append_value(false),
                        Mode::OrNull => b.append_null(),
                    },
                },
            }
            Ok(())
        })?;
        return Ok(b.finish());
    }
    if dt == &DataType::Boolean {
        return Ok(array.as_boolean().clone());
    }
    let f = to_f64(array, from, cv, "Bool")?;
    Ok(f.iter().map(|v| v.map(|x| x != 0.0)).collect())
}

fn to_fixed_string(array: &ArrayRef, from: &Field, n: usize, cv: &Conv) -> DfResult<ArrayRef> {
    let dt = from.data_type();
    let strings: ArrayRef = if is_text(dt) && !matches!(dt, DataType::FixedSizeBinary(_)) {
        cast(array, &DataType::Utf8)?
    } else if let DataType::FixedSizeBinary(_) = dt {
        Arc::clone(array)
    } else {
        convert(array, from, &ChType::String, cv)?
    };
    let mut b = FixedSizeBinaryBuilder::with_capacity(array.len(), n as i32);
    let mut buf = vec![0u8; n];
    let mut push = |bytes: Option<&[u8]>, b: &mut FixedSizeBinaryBuilder| -> DfResult<()> {
        match bytes {
            None => b.append_null(),
            Some(bytes) => {
                let bytes = if matches!(dt, DataType::FixedSizeBinary(_)) {
                    let end = bytes.iter().rposition(|c| *c != 0).map_or(0, |p| p + 1);
                    &bytes[..end]
                } else {
                    bytes
                };
                if bytes.len() > n {
                    if cv.mode == Mode::OrNull {
                        b.append_null();
                        return Ok(());
                    }
                    return Err(ch_error(ErrorCode::TOO_LARGE_STRING_SIZE, format!("String too long for type FixedString({n})")));
                }
                buf.iter_mut().for_each(|c| *c = 0);
                buf[..bytes.len()].copy_from_slice(bytes);
                b.append_value(&buf)?;
            }
        }
        Ok(())
    };
    if let DataType::FixedSizeBinary(_) = strings.data_type() {
        for v in strings.as_fixed_size_binary().iter() {
            push(v, &mut b)?;
        }
    } else {
        for v in strings.as_string::<i32>().iter() {
            push(v.map(str::as_bytes), &mut b)?;
        }
    }
    Ok(Arc::new(b.finish()))
}

/// Clamps a day number into `Date` (wrapping like ClickHouse's UInt16 when asked) or
/// `Date32` range.
#[inline]
fn clamp_days(days: i64, date32: bool) -> i32 {
    if date32 {
        days.clamp(DATE32_MIN_DAYS, DATE32_MAX_DAYS) as i32
    } else {
        days.clamp(0, DATE_MAX_DAYS) as i32
    }
}

fn zero_days(date32: bool) -> i32 {
    if date32 {
        DATE32_MIN_DAYS as i32
    } else {
        0
    }
}

fn to_date(array: &ArrayRef, from: &Field, date32: bool, cv: &Conv) -> DfResult<ArrayRef> {
    let dt = from.data_type();
    let name = if date32 { "Date32" } else { "Date" };
    let out: PrimitiveArray<Date32Type> = if is_text(dt) {
        let mut b = PrimitiveBuilder::<Date32Type>::with_capacity(array.len());
        for_each_text(array, |v| {
            match v {
                None => b.append_null(),
                Some(text) => match parse::parse_date(text) {
                    Ok(Some(days)) => b.append_value(clamp_days(days, date32)),
                    Ok(None) => b.append_value(zero_days(date32)),
                    Err(e) => match cv.mode {
                        Mode::Throw => return Err(e.to_error(text, name, "")),
                        Mode::OrZero => b.append_value(zero_days(date32)),
                        Mode::OrNull => b.append_null(),
                    },
                },
            }
            Ok(())
        })?;
        b.finish()
    } else if dt == &DataType::Date32 {
        let source_is_date32 = matches!(ChType::from_field(from).base(), ChType::Date32);
        let a = array.as_primitive::<Date32Type>();
        if date32 || !source_is_date32 {
            a.clone()
        } else {
            // Date32 -> Date wraps into UInt16 days, as ClickHouse does.
            a.unary(|d| (d as u16) as i32)
        }
    } else if let DataType::Timestamp(..) = dt {
        let zone = SessionTz::for_field(from, cv.config)?;
        timestamp_seconds(array)?.unary(|s| clamp_days(zone.to_local(s).div_euclid(86_400), date32))
    } else if let Some(wide) = widen(array, dt)? {
        let zone = SessionTz::from_config(cv.config)?;
        let from_number = move |v: i128| -> i32 {
            let limit = if date32 { DATE32_MAX_DAYS as i128 } else { DATE_MAX_DAYS as i128 };
            if !date32 && v < 0 {
                0
            } else if v <= limit {
                v as i32
            } else {
                // Larger numbers are Unix timestamps.
                let secs = v.min(DATETIME_MAX as i128) as i64;
                clamp_days(zone.to_local(secs).div_euclid(86_400), date32)
            }
        };
        match wide {
            Wide::Signed(a) => a.unary(|v| from_number(v as i128)),
            Wide::Unsigned(a) => a.unary(|v| from_number(v as i128)),
            Wide::Float(a) => a.unary(|v| from_number(if v.is_finite() { v.trunc() as i128 } else { 0 })),
        }
    } else {
        return Err(unsupported(from, name));
    };
    Ok(Arc::new(out))
}

/// Converts to ticks of `10^-precision` seconds in the Arrow unit for `precision`.
/// `clamp32`: the UInt32 range of `DateTime`.
fn to_datetime_ticks(
    array: &ArrayRef,
    from: &Field,
    precision: u8,
    zone: &SessionTz,
    cv: &Conv,
    clamp32: bool,
) -> DfResult<PrimitiveArray<Int64Type>> {
    let dt = from.data_type();
    let unit = time_unit_for_precision(precision);
    let per_sec: i64 = match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    };
    let unit_digits = per_sec.ilog10();
    // Ticks of the unit per tick of the precision (e.g. 10 ms for DateTime64(2)).
    let step = 10i64.pow(unit_digits - (precision as u32).min(unit_digits));
    let fit_secs = move |s: i64| if clamp32 { s.clamp(0, DATETIME_MAX) } else { s };
    let name = if clamp32 { "DateTime".to_string() } else { format!("DateTime64({precision})") };
    if is_text(dt) {
        let mut b = PrimitiveBuilder::<Int64Type>::with_capacity(array.len());
        for_each_text(array, |v| {
            match v {
                None => b.append_null(),
                Some(text) => match parse::parse_datetime(text) {
                    Ok(DateTimeText::Unix(s)) => b.append_value(fit_secs(s).saturating_mul(per_sec)),
                    Ok(DateTimeText::Civil { days, secs, nanos, offset }) => {
                        let local = days.unwrap_or(0) * 86_400 + secs;
                        let utc = match offset {
                            Some(o) => local - o,
                            None => zone.to_utc(local),
                        };
                        let sub = (nanos as i64 / (1_000_000_000 / per_sec)) / step * step;
                        b.append_value(fit_secs(utc).saturating_mul(per_sec) + if clamp32 { 0 } else { sub });
                    }
                    Err(e) => match cv.mode {
                        Mode::Throw => {
                            let e = if e == ParseFail::NotDate { ParseFail::AtBegin } else { e };
                            return Err(match e {
                                ParseFail::AtBegin => ch_error(
                                    ErrorCode::CANNOT_PARSE_DATETIME,
                                    format!("Cannot parse datetime: Cannot parse {name} from String '{text}'"),
                                ),
                                other => other.to_error(text, &name, ""),
                            });
                        }
                        Mode::OrZero => b.append_value(0),
                        Mode::OrNull => b.append_null(),
                    },
                },
            }
            Ok(())
        })?;
        return Ok(b.finish());
    }
    match dt {
        DataType::Date32 => {
            Ok(array.as_primitive::<Date32Type>().unary(|d| fit_secs(zone.to_utc(d as i64 * 86_400)).saturating_mul(per_sec)))
        }
        DataType::Timestamp(..) => {
            let (raw, from_per) = timestamp_ticks(array)?;
            Ok(raw.unary(|v| {
                let secs = v.div_euclid(from_per);
                let sub = v.rem_euclid(from_per);
                let sub = if per_sec >= from_per { sub * (per_sec / from_per) } else { sub / (from_per / per_sec) };
                if clamp32 {
                    fit_secs(secs)
                } else {
                    secs.saturating_mul(per_sec) + sub / step * step
                }
            }))
        }
        DataType::Decimal128(_, s) => {
            let pow = 10i128.pow((*s).max(0) as u32);
            Ok(array.as_primitive::<Decimal128Type>().unary(|v| {
                let secs = (v / pow) as i64;
                fit_secs(secs).saturating_mul(per_sec)
            }))
        }
        _ => match widen(array, dt)? {
            Some(Wide::Signed(a)) => Ok(a.unary(|v| fit_secs(v).saturating_mul(per_sec))),
            Some(Wide::Unsigned(a)) => Ok(a.unary(|v| fit_secs(v.min(i64::MAX as u64) as i64).saturating_mul(per_sec))),
            Some(Wide::Float(a)) => Ok(a.unary(|v| {
                if clamp32 {
                    fit_secs(if v.is_finite() { v.trunc() as i64 } else { 0 })
                } else {
                    let p10 = 10f64.powi(precision as i32);
                    let ticks = (v * p10).trunc() as i64;
                    ticks.saturating_mul(step)
                }
            })),
            None => Err(unsupported(from, &name)),
        },
    }
}

fn decimal_overflow() -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, "Decimal convert overflow")
}

fn to_decimal(array: &ArrayRef, from: &Field, p: u8, s: u8, cv: &Conv) -> DfResult<Decimal128Array> {
    let dt = from.data_type();
    let limit: i128 = if p >= 38 { i128::MAX } else { 10i128.pow(p as u32) };
    let pow = 10i128.pow(s as u32);
    let fits = move |v: i128| v > -limit && v < limit;
    let out: Decimal128Array = if is_text(dt) {
        let mut b = PrimitiveBuilder::<Decimal128Type>::with_capacity(array.len());
        let type_name = format!("Decimal({p}, {s})");
        for_each_text(array, |v| {
            match v {
                None => b.append_null(),
                Some(text) => match parse::parse_decimal(text, s) {
                    Ok(v) if fits(v) => b.append_value(v),
                    other => match cv.mode {
                        Mode::Throw => {
                            return Err(match other {
                                Err(ParseFail::Overflow) | Ok(_) => decimal_overflow(),
                                Err(e) => e.to_error(text, &type_name, ""),
                            })
                        }
                        Mode::OrZero => b.append_value(0),
                        Mode::OrNull => b.append_null(),
                    },
                },
            }
            Ok(())
        })?;
        b.finish()
    } else {
        match dt {
            DataType::Decimal256(_, from_s) => {
                let from_s = (*from_s).max(0) as u8;
                let a = array.as_primitive::<Decimal256Type>();
                let (up, down) = if s >= from_s { (pow10_256(u32::from(s - from_s)), i256::ONE) } else { (i256::ONE, pow10_256(u32::from(from_s - s))) };
                a.try_unary(|v| {
                    v.checked_mul(up)
                        .and_then(|v| v.checked_div(down))
                        .and_then(|v| v.to_i128())
                        .filter(|v| fits(*v))
                        .ok_or_else(decimal_overflow)
                })?
            }
            DataType::Decimal128(_, from_s) => {
                let from_s = (*from_s).max(0) as u8;
                let a = array.as_primitive::<Decimal128Type>();
                if s >= from_s {
                    let m = 10i128.pow((s - from_s) as u32);
                    a.try_unary(|v| v.checked_mul(m).filter(|v| fits(*v)).ok_or_else(decimal_overflow))?
                } else {
                    let d = 10i128.pow((from_s - s) as u32);
                    a.try_unary(|v| Some(v / d).filter(|v| fits(*v)).ok_or_else(decimal_overflow))?
                }
            }
            _ => match widen(array, dt)? {
                Some(Wide::Signed(a)) => {
                    a.try_unary(|v| (v as i128).checked_mul(pow).filter(|v| fits(*v)).ok_or_else(decimal_overflow))?
                }
                Some(Wide::Unsigned(a)) => {
                    a.try_unary(|v| (v as i128).checked_mul(pow).filter(|v| fits(*v)).ok_or_else(decimal_overflow))?
                }
                Some(Wide::Float(a)) => a.try_unary(|v| {
                    if !v.is_finite() {
                        return Err(ch_error(ErrorCode::DECIMAL_OVERFLOW, "Decimal convert overflow. Cannot convert infinity or NaN to decimal"));
                    }
                    let scaled = (v * pow as f64).trunc();
                    if scaled.abs() >= limit as f64 {
                        return Err(ch_error(ErrorCode::DECIMAL_OVERFLOW, "Decimal convert overflow. Float is out of Decimal range"));
                    }
                    Ok(scaled as i128)
                })?,
                None => return Err(unsupported(from, &format!("Decimal({p}, {s})"))),
            },
        }
    };
    Ok(out.with_precision_and_scale(p, s as i8)?)
}

/// An array converted element by element, with the element type's rules (`[256]` as
/// Array(UInt8) wraps to `[0]`, as the scalar conversion does).
fn convert_list(array: &ArrayRef, from: &Field, inner: &ChType, cv: &Conv) -> DfResult<ArrayRef> {
    let DataType::List(from_element) = from.data_type() else { return Err(unsupported(from, "Array")) };
    let list = array.as_list::<i32>();
    let values = convert(list.values(), from_element, inner, cv)?;
    let element = Arc::new(inner.to_arrow_field("item"));
    if !element.is_nullable() && values.null_count() > 0 {
        return Err(ch_error(ErrorCode::CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN, "Cannot convert NULL value to non-Nullable type"));
    }
    let converted = ListArray::try_new(element, list.offsets().clone(), values, list.nulls().cloned())
        .map_err(|e| ch_error(ErrorCode::CANNOT_CONVERT_TYPE, format!("Conversion from {} to Array({inner}) is not supported: {e}", ChType::from_field(from))))?;
    Ok(Arc::new(converted))
}

/// `CAST(x AS Enum8(...))`: names from text (an enum source converts by its names, as
/// in ClickHouse), element values from numbers.
fn to_enum(array: &ArrayRef, from: &Field, to: &ChType, elements: &[(String, i16)], cv: &Conv) -> DfResult<ArrayRef> {
    let source = ChType::from_field(from);
    let by_name: std::collections::HashMap<&str, i16> = elements.iter().map(|(name, value)| (name.as_str(), *value)).collect();
    let mut values: Vec<Option<i16>> = Vec::with_capacity(array.len());
    let fail = |message: String, values: &mut Vec<Option<i16>>| match cv.mode {
        Mode::Throw => Err(ch_error(ErrorCode::UNKNOWN_ELEMENT_OF_ENUM, message)),
        Mode::OrZero => {
            values.push(Some(elements.first().map_or(0, |(_, v)| *v)));
            Ok(())
        }
        Mode::OrNull => {
            values.push(None);
            Ok(())
        }
    };
    if is_text(from.data_type()) || source.enum_elements().is_some() {
        let text = if is_text(from.data_type()) { Arc::clone(array) } else { format_array(from, array, &FormatCtx::from_config(cv.config)?)? };
        for_each_text(&text, |v| match v {
            None => {
                values.push(None);
                Ok(())
            }
            Some(name) => match by_name.get(name) {
                Some(value) => {
                    values.push(Some(*value));
                    Ok(())
                }
                None => fail(format!("Unknown element '{name}' for enum"), &mut values),
            },
        })?;
    } else {
        let numbers = to_int::<Int64Type>(array, from, cv)?;
        for number in numbers.iter() {
            match number {
                None => values.push(None),
                Some(n) if by_name.values().any(|v| i64::from(*v) == n) => values.push(Some(n as i16)),
                Some(n) => fail(format!("Unexpected value {n} in enum"), &mut values)?,
            }
        }
    }
    Ok(match to {
        ChType::Enum8(_) => Arc::new(values.into_iter().map(|v| v.map(|v| v as i8)).collect::<PrimitiveArray<Int8Type>>()),
        _ => Arc::new(values.into_iter().collect::<PrimitiveArray<Int16Type>>()),
    })
}

/// `CAST(x AS IPv4)`: from `a.b.c.d` text or from a number.
fn to_ipv4(array: &ArrayRef, from: &Field, cv: &Conv) -> DfResult<ArrayRef> {
    if !is_text(from.data_type()) {
        return Ok(Arc::new(to_int::<UInt32Type>(array, from, cv)?));
    }
    let mut b = PrimitiveBuilder::<UInt32Type>::with_capacity(array.len());
    for_each_text(array, |v| {
        match v {
            None => b.append_null(),
            Some(text) => match granary_types::ip::parse_ipv4(text) {
                Some(address) => b.append_value(address),
                None => match cv.mode {
                    Mode::Throw => return Err(ch_error(ErrorCode::CANNOT_PARSE_IPV4, format!("Cannot parse IPv4 {text}"))),
                    Mode::OrZero => b.append_value(0),
                    Mode::OrNull => b.append_null(),
                },
            },
        }
        Ok(())
    })?;
    Ok(Arc::new(b.finish()))
}

/// `CAST(x AS IPv6)`: from text (IPv4 text too), from an IPv4 (as `::ffff:a.b.c.d`), or
/// from 16 bytes.
fn to_ipv6(array: &ArrayRef, from: &Field, cv: &Conv) -> DfResult<ArrayRef> {
    let mut b = FixedSizeBinaryBuilder::with_capacity(array.len(), 16);
    if ChType::from_field(from).base() == &ChType::IPv4 {
        for address in array.as_primitive::<UInt32Type>().iter() {
            match address {
                Some(a) => b.append_value(granary_types::ip::ipv4_mapped(a))?,
                None => b.append_null(),
            }
        }
        return Ok(Arc::new(b.finish()));
    }
    if matches!(from.data_type(), DataType::FixedSizeBinary(16)) {
        return Ok(Arc::clone(array));
    }
    if !is_text(from.data_type()) {
        return Err(unsupported(from, "IPv6"));
    }
    for_each_text(array, |v| {
        match v {
            None => b.append_null(),
            Some(text) => match granary_types::ip::parse_ipv6(text) {
                Some(bytes) => b.append_value(bytes)?,
                None => match cv.mode {
                    Mode::Throw => return Err(ch_error(ErrorCode::CANNOT_PARSE_IPV6, format!("Cannot parse IPv6 {text}"))),
                    Mode::OrZero => b.append_value([0u8; 16])?,
                    Mode::OrNull => b.append_null(),
                },
            },
        }
        Ok(())
    })?;
    Ok(Arc::new(b.finish()))
}

/// The wide integer type of a source field, if it is one.
fn wide_source(from: &Field) -> Option<WideInt> {
    if !matches!(from.data_type(), DataType::Decimal128(..) | DataType::Decimal256(..)) {
        return None;
    }
    WideInt::of(ChType::from_field(from).base()).filter(|w| w.arrow_type() == *from.data_type())
}

/// `Int128`..`UInt256` from text (wrapping, as ClickHouse reads them, also in the
/// `OrZero`/`OrNull` variants), numbers (floats truncated and wrapped), decimals
/// (truncated; out of range is DECIMAL_OVERFLOW), dates and times, other wide integers
/// (wrapped).
fn to_wide(array: &ArrayRef, from: &Field, kind: WideInt, cv: &Conv) -> DfResult<ArrayRef> {
    let dt = from.data_type();
    let type_error = |e: granary_common::Error| ch_error(e.code(), e.message().to_string());
    let words: PrimitiveArray<Decimal256Type> = if is_text(dt) {
        let type_name = kind.ch_type().to_string();
        let mut b = PrimitiveBuilder::<Decimal256Type>::with_capacity(array.len());
        for_each_text(array, |v| {
            match v {
                None => b.append_null(),
                Some(text) => match kind.parse(text.as_bytes()) {
                    Ok((v, _)) => b.append_value(v),
                    Err(e) => match cv.mode {
                        Mode::Throw => {
                            let fail = match e {
                                WideParseError::Empty => ParseFail::Empty,
                                WideParseError::AtBegin => ParseFail::AtBegin,
                                WideParseError::Trailing(pos) => ParseFail::Trailing(pos),
                                WideParseError::Negative => ParseFail::Negative,
                            };
                            let func = if cv.func.is_empty() { format!("to{type_name}") } else { cv.func.to_string() };
                            return Err(fail.to_error(text, &type_name, &func));
                        }
                        Mode::OrZero => b.append_value(i256::ZERO),
                        Mode::OrNull => b.append_null(),
                    },
                },
            }
            Ok(())
        })?;
        b.finish()
    } else if let Some(source) = wide_source(from) {
        source.widen(array.as_ref()).map_err(type_error)?
    } else if let Some(wide) = widen(array, dt)? {
        match wide {
            Wide::Signed(a) => a.unary(|v| i256::from_i128(v as i128)),
            Wide::Unsigned(a) => a.unary(|v| i256::from_i128(v as i128)),
            Wide::Float(a) => a.try_unary(|v| f64_to_i256_wrapping(v).ok_or_else(nan_to_int_error))?,
        }
    } else {
        let overflow = || ch_error(ErrorCode::DECIMAL_OVERFLOW, "Convert overflow");
        let in_range = move |v: i256| {
            let fits = kind.wrap(v) == v || (kind == WideInt::UInt256 && !v.is_negative());
            if fits && (kind.is_signed() || !v.is_negative()) {
                Ok(v)
            } else {
                Err(overflow())
            }
        };
        match dt {
            DataType::Decimal128(_, s) => {
                let pow = 10i128.pow((*s).max(0) as u32);
                array.as_primitive::<Decimal128Type>().try_unary(|v| in_range(i256::from_i128(v / pow)))?
            }
            DataType::Decimal256(_, s) => {
                let pow = pow10_256((*s).max(0) as u32);
                array.as_primitive::<Decimal256Type>().try_unary(|v| in_range(v.wrapping_div(pow)))?
            }
            DataType::Timestamp(..) => timestamp_seconds(array)?.unary(|v| i256::from_i128(v as i128)),
            _ => return Err(unsupported(from, &kind.ch_type().to_string())),
        }
    };
    Ok(kind.narrow(&words))
}

fn pow10_256(exp: u32) -> i256 {
    i256::from_i128(10).wrapping_pow(exp)
}

fn i256_to_f64(v: i256) -> f64 {
    WideInt::Int256.to_f64(v)
}

/// `Decimal(P, S)` with P above 38, held as `Decimal256`: the same rules as [`to_decimal`]
/// on 256-bit values.
fn to_decimal256(array: &ArrayRef, from: &Field, p: u8, s: u8, cv: &Conv) -> DfResult<Decimal256Array> {
    let dt = from.data_type();
    let limit = pow10_256(u32::from(p));
    let pow = pow10_256(u32::from(s));
    let fits = move |v: i256| v > limit.wrapping_neg() && v < limit;
    let checked = move |v: Option<i256>| v.filter(|v| fits(*v)).ok_or_else(decimal_overflow);
    let out: Decimal256Array = if is_text(dt) {
        let mut b = PrimitiveBuilder::<Decimal256Type>::with_capacity(array.len());
        let type_name = format!("Decimal({p}, {s})");
        for_each_text(array, |v| {
            match v {
                None => b.append_null(),
                Some(text) => match parse::parse_decimal256(text, s) {
                    Ok(v) if fits(v) => b.append_value(v),
                    other => match cv.mode {
                        Mode::Throw => {
                            return Err(match other {
                                Err(ParseFail::Overflow) | Ok(_) => decimal_overflow(),
                                Err(e) => e.to_error(text, &type_name, ""),
                            })
                        }
                        Mode::OrZero => b.append_value(i256::ZERO),
                        Mode::OrNull => b.append_null(),
                    },
                },
            }
            Ok(())
        })?;
        b.finish()
    } else {
        let rescale = move |v: i256, from_s: u8| -> DfResult<i256> {
            if s >= from_s {
                checked(v.checked_mul(pow10_256(u32::from(s - from_s))))
            } else {
                checked(v.checked_div(pow10_256(u32::from(from_s - s))))
            }
        };
        match dt {
            DataType::Decimal128(_, from_s) => {
                let from_s = (*from_s).max(0) as u8;
                array.as_primitive::<Decimal128Type>().try_unary(|v| rescale(i256::from_i128(v), from_s))?
            }
            DataType::Decimal256(_, from_s) => {
                let from_s = (*from_s).max(0) as u8;
                array.as_primitive::<Decimal256Type>().try_unary(|v| rescale(v, from_s))?
            }
            _ => match widen(array, dt)? {
                Some(Wide::Signed(a)) => a.try_unary(|v| checked(i256::from_i128(v as i128).checked_mul(pow)))?,
                Some(Wide::Unsigned(a)) => a.try_unary(|v| checked(i256::from_i128(v as i128).checked_mul(pow)))?,
                Some(Wide::Float(a)) => a.try_unary(|v| {
                    if !v.is_finite() {
                        return Err(ch_error(ErrorCode::DECIMAL_OVERFLOW, "Decimal convert overflow. Cannot convert infinity or NaN to decimal"));
                    }
                    let scaled = (v * 10f64.powi(i32::from(s))).trunc();
                    i256::from_f64(scaled)
                        .filter(|v| fits(*v))
                        .ok_or_else(|| ch_error(ErrorCode::DECIMAL_OVERFLOW, "Decimal convert overflow. Float is out of Decimal range"))
                })?,
                None => return Err(unsupported(from, &format!("Decimal({p}, {s})"))),
            },
        }
    };
    Ok(out.with_precision_and_scale(p, s as i8)?)
}

fn to_uuid(array: &ArrayRef, from: &Field, cv: &Conv) -> DfResult<ArrayRef> {
    if !is_text(from.data_type()) {
        return Err(unsupported(from, "UUID"));
    }
    let mut b = FixedSizeBinaryBuilder::with_capacity(array.len(), 16);
    for_each_text(array, |v| {
        match v {
            None => b.append_null(),
            Some(text) => match uuid::Uuid::parse_str(text) {
                Ok(u) => b.append_value(u.as_bytes())?,
                Err(_) => match cv.mode {
                    Mode::Throw => {
                        return Err(ch_error(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse uuid {text}: Cannot parse UUID from String")))
                    }
                    Mode::OrZero => b.append_value([0u8; 16])?,
                    Mode::OrNull => b.append_null(),
                },
            },
        }
        Ok(())
    })?;
    Ok(Arc::new(b.finish()))
}
