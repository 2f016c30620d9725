//! Type conversion functions: `toUInt8..toInt64`, `toFloat32/64`, `toDate`,
//! `toDate32`, `toDateTime`, `toDateTime64`, `toTime`, `toTime64`, `toDecimal32/64/128/256`, `toFixedString`,
//! `toBool`, `toString`, their `OrZero`/`OrNull` variants, `CAST`/`_CAST`,
//! `accurateCast`/`accurateCastOrNull`/`accurateCastOrDefault` (in [`accurate`]),
//! `toTypeName`, `materialize`, `ignore`, `identity`.
//!
//! All of them go through [`convert::convert`], so `CAST(x AS UInt8)` and
//! `toUInt8(x)` cannot disagree.

mod accurate;
pub(crate) mod convert;

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, StringArray, UInt8Array};
use datafusion::arrow::datatypes::DataType;
use datafusion::logical_expr::{lit, Expr, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, is_numeric, is_string, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use datafusion::arrow::compute::kernels::zip::zip;
use datafusion::arrow::compute::is_null;
use crate::tz::parse_tz;
use convert::{convert, is_text, Conv, Mode};

fn mode_suffix(mode: Mode) -> &'static str {
    match mode {
        Mode::Throw => "",
        Mode::OrZero => "OrZero",
        Mode::OrNull => "OrNull",
    }
}

fn leak(s: String) -> &'static str {
    // Function names are created once per process when the registry is built.
    Box::leak(s.into_boxed_str())
}

/// Checks the first argument of a conversion: any scalar type for `toT`, strings only
/// for `toTOrZero`/`toTOrNull` (ClickHouse's rule).
fn check_source(ctx: &RetCtx, mode: Mode) -> DfResult<()> {
    let dt = ctx.dt(0);
    let ok = match mode {
        Mode::Throw => is_numeric(dt) || is_text(dt) || matches!(dt, DataType::Date32 | DataType::Timestamp(..) | DataType::Time32(_) | DataType::Time64(_)),
        _ => is_text(dt),
    };
    if ok {
        return Ok(());
    }
    if mode != Mode::Throw {
        return Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "Illegal type {} of first argument of function {}. Conversion functions with postfix 'OrZero' or 'OrNull' should take String argument",
                ctx.ch(0),
                ctx.name
            ),
        ));
    }
    Err(illegal_type(ctx.name, 0, ctx.field(0)))
}

fn with_mode(t: ChType, mode: Mode) -> ChType {
    if mode == Mode::OrNull {
        t.into_nullable()
    } else {
        t
    }
}

fn run_convert(ctx: &ExecCtx, target: &ChType, mode: Mode, base_name: &str) -> DfResult<ArrayRef> {
    let cv = Conv { func: base_name, mode, config: ctx.config };
    convert(&ctx.array(0)?, &ctx.fields[0], target, &cv)
}

/// `toUInt8`.. `toFloat64`, `toBool`, `toDate`, `toDate32` and their modes: the target
/// type is fixed by the name.
fn simple_conversion(base: &'static str, target: ChType, mode: Mode) -> ScalarUDF {
    named_conversion(leak(format!("{base}{}", mode_suffix(mode))), base, target, mode)
}

/// A conversion called `name` (`base` names it in errors).
fn named_conversion(name: &'static str, base: &'static str, target: ChType, mode: Mode) -> ScalarUDF {
    let ret_target = target.clone();
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            check_source(ctx, mode)?;
            Ok(with_mode(ret_target.clone(), mode))
        },
        move |ctx| run_convert(ctx, &target, mode, base),
    )
    .build()
}

/// `toTOrDefault(x[, default])`: `toT(x)`, or `default` (of type `T` exactly; else the
/// type's zero) where `x` is NULL or cannot be converted. Never Nullable.
fn or_default_conversion(target: ChType) -> ScalarUDF {
    let base = leak(format!("to{target}"));
    let name = leak(format!("{base}OrDefault"));
    let ret_target = target.clone();
    ScalarDef::new(
        name,
        Arity::range(1, 2),
        move |ctx| {
            check_source(ctx, Mode::Throw)?;
            if ctx.arg_count() == 2 && ctx.ch(1) != ret_target {
                return Err(ch_error(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Default value type should be same as cast type. Expected {ret_target}. Actual {}", ctx.ch(1)),
                ));
            }
            Ok(ret_target.clone())
        },
        move |ctx| {
            let converted = run_convert(ctx, &target, Mode::OrNull, base)?;
            let default = match ctx.args.len() {
                2 => {
                    let cv = Conv { func: base, mode: Mode::Throw, config: ctx.config };
                    convert(&ctx.array(1)?, &ctx.fields[1], &target, &cv)?
                }
                // ClickHouse's default Date32 is its first day, 1900-01-01.
                _ if target == ChType::Date32 => Arc::new(datafusion::arrow::array::Date32Array::from(vec![crate::tz::DATE32_MIN_DAYS as i32; ctx.len])),
                _ => datafusion::arrow::array::new_null_array(&target.to_arrow(), ctx.len),
            };
            let default = crate::func::defaults_at_nulls(&default)?;
            Ok(zip(&is_null(&converted)?, &default, &converted)?)
        },
    )
    .custom_nulls()
    .build()
}

/// The time zone argument at `index`, if present; checked so a bad name fails at
/// planning with ClickHouse's BAD_ARGUMENTS.
fn tz_arg(ctx: &RetCtx, index: usize) -> DfResult<Option<String>> {
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

/// The zone a DateTime result keeps: the explicit argument, else the source's own.
fn result_zone(ctx: &RetCtx, explicit: Option<String>) -> Option<String> {
    explicit.or_else(|| match ctx.dt(0) {
        DataType::Timestamp(_, Some(tz)) => Some(tz.to_string()),
        _ => None,
    })
}

fn to_datetime(mode: Mode) -> ScalarUDF {
    let name = leak(format!("toDateTime{}", mode_suffix(mode)));
    ScalarDef::new(
        name,
        Arity::range(1, 2),
        move |ctx| {
            check_source(ctx, mode)?;
            let tz = tz_arg(ctx, 1)?;
            Ok(with_mode(ChType::DateTime(result_zone(ctx, tz)), mode))
        },
        move |ctx| {
            let target = ctx.ret_ch().strip_nullable().clone();
            run_convert(ctx, &target, mode, "toDateTime")
        },
    )
    .build()
}

/// The constant precision argument of `toDateTime64`/`toTime64` (`family`), 0..=9.
fn sub_second_precision(ctx: &RetCtx, index: usize, family: &str) -> DfResult<u8> {
    let p = ctx.const_int(index, "scale")?;
    if !(0..=9).contains(&p) {
        return Err(ch_error(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            format!("Scale {p} is too large for {family}. Maximum is up to nanoseconds (9)"),
        ));
    }
    Ok(p as u8)
}

fn to_datetime64(mode: Mode) -> ScalarUDF {
    let name = leak(format!("toDateTime64{}", mode_suffix(mode)));
    ScalarDef::new(
        name,
        Arity::range(2, 3),
        move |ctx| {
            check_source(ctx, mode)?;
            let p = sub_second_precision(ctx, 1, "DateTime64")?;
            let tz = tz_arg(ctx, 2)?;
            Ok(with_mode(ChType::DateTime64(p, result_zone(ctx, tz)), mode))
        },
        move |ctx| {
            let target = ctx.ret_ch().strip_nullable().clone();
            run_convert(ctx, &target, mode, "toDateTime64")
        },
    )
    .build()
}

/// `toTime64(x, precision)`: `x` as a `Time64` of `precision` fraction digits.
fn to_time64(mode: Mode) -> ScalarUDF {
    let name = leak(format!("toTime64{}", mode_suffix(mode)));
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            check_source(ctx, mode)?;
            Ok(with_mode(ChType::Time64(sub_second_precision(ctx, 1, "Time64")?), mode))
        },
        move |ctx| {
            let target = ctx.ret_ch().strip_nullable().clone();
            run_convert(ctx, &target, mode, "toTime64")
        },
    )
    .build()
}

fn to_decimal(bits: u32, mode: Mode) -> ScalarUDF {
    let (precision, max_scale) = match bits {
        32 => (9u8, 9u8),
        64 => (18, 18),
        128 => (38, 38),
        _ => (76, 76),
    };
    let base = leak(format!("toDecimal{bits}"));
    let name = leak(format!("{base}{}", mode_suffix(mode)));
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            check_source(ctx, mode)?;
            let s = ctx.const_int(1, "scale")?;
            if !(0..=max_scale as i128).contains(&s) {
                return Err(ch_error(
                    ErrorCode::ARGUMENT_OUT_OF_BOUND,
                    format!("Scale {s} is out of bounds (max scale: {max_scale})"),
                ));
            }
            Ok(with_mode(ChType::Decimal(precision, s as u8), mode))
        },
        move |ctx| {
            let target = ctx.ret_ch().strip_nullable().clone();
            run_convert(ctx, &target, mode, base)
        },
    )
    .build()
}

fn to_fixed_string() -> ScalarUDF {
    ScalarDef::new(
        "toFixedString",
        Arity::exact(2),
        |ctx| {
            if !is_text(ctx.dt(0)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            let n = ctx.const_int(1, "length")?;
            if n <= 0 || n > (1 << 30) {
                return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("FixedString size {n} is out of bounds")));
            }
            Ok(ChType::FixedString(n as usize))
        },
        |ctx| {
            let target = ctx.ret_ch().strip_nullable().clone();
            run_convert(ctx, &target, Mode::Throw, "toFixedString")
        },
    )
    .build()
}

fn to_string() -> ScalarUDF {
    ScalarDef::new(
        "toString",
        Arity::range(1, 2),
        |ctx| {
            if ctx.arg_count() == 2 {
                if !matches!(ctx.dt(0), DataType::Timestamp(..)) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        "Function toString with two arguments expects a DateTime or DateTime64 as first argument",
                    ));
                }
                tz_arg(ctx, 1)?;
            }
            Ok(ChType::String)
        },
        |ctx| {
            let mut array = ctx.array(0)?;
            let mut field = ctx.fields[0].as_ref().clone();
            if ctx.args.len() == 2 {
                // Show the instant in the requested zone: re-tag the timestamps.
                let tz = ctx.const_str(1, "time zone")?;
                if let DataType::Timestamp(unit, _) = ctx.dt(0) {
                    let dt = DataType::Timestamp(*unit, Some(Arc::from(tz)));
                    array = datafusion::arrow::compute::cast(&array, &dt)?;
                    field = field.with_data_type(dt);
                }
            }
            let fctx = crate::format::FormatCtx::from_config(ctx.config)?;
            crate::format::format_array(&field, &array, &fctx)
        },
    )
    .build()
}

/// `CAST(x, 'T')` under the name `CAST` (and `_CAST`, ClickHouse's internal spelling
/// that the SQL front end can target without clashing with user functions).
fn cast_fn(name: &'static str) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            if !is_string(ctx.dt(1)) {
                return Err(illegal_type(ctx.name, 1, ctx.field(1)));
            }
            let text = ctx.const_str(1, "type name")?;
            let target = ChType::parse(text).map_err(|e| e.into_datafusion())?;
            // A Variant holds NULLs without being Nullable.
            if ctx.dt(0) == &DataType::Null && !target.is_nullable() && target.variant_types().is_none() {
                return Err(ch_error(ErrorCode::CANNOT_CONVERT_TYPE, "Cannot convert NULL to a non-nullable type"));
            }
            Ok(target)
        },
        |ctx| {
            let target = ctx.ret_ch();
            let array = ctx.array(0)?;
            if !target.is_nullable() && target.variant_types().is_none() && datafusion::arrow::array::Array::null_count(array.as_ref()) > 0 {
                return Err(ch_error(ErrorCode::CANNOT_CONVERT_TYPE, "Cannot convert NULL value to non-Nullable type"));
            }
            let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
            convert(&array, &ctx.fields[0], &target, &cv)
        },
    )
    .custom_nulls()
    .build()
}

/// Converts `array` (of `from`'s type) to the ClickHouse type `to` as `CAST` does: for
/// INSERT's conversions that Arrow's cast cannot do (names into enums, text into
/// addresses). The result has Arrow type `to.to_arrow()`.
pub fn convert_array(array: &ArrayRef, from: &datafusion::arrow::datatypes::Field, to: &ChType) -> DfResult<ArrayRef> {
    let config = datafusion::common::config::ConfigOptions::default();
    convert(array, from, to, &Conv { func: "", mode: Mode::Throw, config: &config })
}

/// An expression that casts `expr` to the ClickHouse type `to` with ClickHouse's
/// conversion rules (`_CAST(expr, 'T')`). For the SQL front end's `CAST(x AS T)`.
pub fn cast_to_chtype(expr: Expr, to: &ChType) -> Expr {
    Expr::ScalarFunction(datafusion::logical_expr::expr::ScalarFunction::new_udf(
        Arc::new(cast_fn("_CAST")),
        vec![expr, lit(to.to_string())],
    ))
}

fn to_type_name() -> ScalarUDF {
    ScalarDef::new(
        "toTypeName",
        Arity::exact(1),
        |_| Ok(ChType::String),
        |ctx| {
            let name = crate::func::ch_type_of_field(&ctx.fields[0]).pretty_name();
            Ok(Arc::new(StringArray::from_iter_values(std::iter::repeat_n(name, ctx.len))))
        },
    )
    .custom_nulls()
    .build()
}

/// `toColumnTypeName(x)`: the name of ClickHouse's in-memory column class for `x`'s
/// type (`Date` is a `UInt16` column, a constant is `Const(..)`).
fn to_column_type_name() -> ScalarUDF {
    ScalarDef::new(
        "toColumnTypeName",
        Arity::exact(1),
        |_| Ok(ChType::String),
        |ctx| {
            let column = column_type_name(&crate::func::ch_type_of_field(&ctx.fields[0]));
            let name = if ctx.scalar(0).is_some() { format!("Const({column})") } else { column };
            Ok(Arc::new(StringArray::from_iter_values(std::iter::repeat_n(name, ctx.len))))
        },
    )
    .custom_nulls()
    .build()
}

/// The column class ClickHouse stores values of `t` in.
fn column_type_name(t: &ChType) -> String {
    match t {
        ChType::Bool => "UInt8".to_string(),
        ChType::Date => "UInt16".to_string(),
        ChType::Date32 => "Int32".to_string(),
        ChType::DateTime(_) => "UInt32".to_string(),
        ChType::DateTime64(..) => "DateTime64".to_string(),
        ChType::Enum8(_) => "Int8".to_string(),
        ChType::Enum16(_) => "Int16".to_string(),
        ChType::Decimal(precision, _) => match precision {
            0..=9 => "Decimal32",
            10..=18 => "Decimal64",
            19..=38 => "Decimal128",
            _ => "Decimal256",
        }
        .to_string(),
        ChType::Interval(_) => "Int64".to_string(),
        ChType::Nullable(inner) => format!("Nullable({})", column_type_name(inner)),
        ChType::LowCardinality(inner) => format!("LowCardinality({})", column_type_name(inner)),
        ChType::Array(inner) => format!("Array({})", column_type_name(inner)),
        ChType::Map(key, value) => format!("Map({}, {})", column_type_name(key), column_type_name(value)),
        ChType::Tuple(elements) => format!("Tuple({})", elements.iter().map(|(_, t)| column_type_name(t)).collect::<Vec<_>>().join(", ")),
        ChType::SimpleAggregateFunction(_, inner) => column_type_name(inner),
        ChType::AggregateFunction(..) => "AggregateFunction".to_string(),
        other => other.to_string(),
    }
}

/// `materialize(x)`: `x` as a full column. Volatile, so that DataFusion does not fold
/// it back into a constant: functions that require constant arguments must see a column.
fn materialize() -> ScalarUDF {
    ScalarDef::new("materialize", Arity::exact(1), |ctx| Ok(ctx.ch(0)), |ctx| ctx.array(0)).custom_nulls().volatile().build()
}

/// `identity(x)`: the argument itself.
fn passthrough(name: &'static str) -> ScalarUDF {
    ScalarDef::new(name, Arity::exact(1), |ctx| Ok(ctx.ch(0)), |ctx| ctx.array(0)).custom_nulls().build()
}

/// `toLowCardinality(x)`: the same values as `LowCardinality(T)` (a dictionary array).
fn to_low_cardinality() -> ScalarUDF {
    ScalarDef::new(
        "toLowCardinality",
        Arity::exact(1),
        |ctx| {
            Ok(match ctx.ch(0) {
                already @ ChType::LowCardinality(_) => already,
                other => ChType::LowCardinality(Box::new(other)),
            })
        },
        |ctx| Ok(datafusion::arrow::compute::cast(&ctx.array(0)?, ctx.ret_type())?),
    )
    .custom_nulls()
    .build()
}

fn ignore() -> ScalarUDF {
    ScalarDef::new(
        "ignore",
        Arity::at_least(0),
        |_| Ok(ChType::UInt8),
        |ctx| Ok(Arc::new(UInt8Array::from(vec![0u8; ctx.len]))),
    )
    .custom_nulls()
    .build()
}

/// Every conversion function.
pub(crate) fn functions() -> Vec<ScalarUDF> {
    let mut out = Vec::new();
    let numeric: [(&'static str, ChType); 14] = [
        ("toUInt8", ChType::UInt8),
        ("toUInt16", ChType::UInt16),
        ("toUInt32", ChType::UInt32),
        ("toUInt64", ChType::UInt64),
        ("toInt8", ChType::Int8),
        ("toInt16", ChType::Int16),
        ("toInt32", ChType::Int32),
        ("toInt64", ChType::Int64),
        ("toInt128", ChType::Int128),
        ("toUInt128", ChType::UInt128),
        ("toInt256", ChType::Int256),
        ("toUInt256", ChType::UInt256),
        ("toFloat32", ChType::Float32),
        ("toFloat64", ChType::Float64),
    ];
    for mode in [Mode::Throw, Mode::OrZero, Mode::OrNull] {
        for (name, t) in numeric.iter() {
            out.push(simple_conversion(name, t.clone(), mode));
        }
        out.push(simple_conversion("toDate", ChType::Date, mode));
        out.push(simple_conversion("toDate32", ChType::Date32, mode));
        out.push(to_datetime(mode));
        out.push(to_datetime64(mode));
        out.push(simple_conversion("toTime", ChType::Time, mode));
        out.push(to_time64(mode));
        for bits in [32, 64, 128, 256] {
            out.push(to_decimal(bits, mode));
        }
        out.push(simple_conversion("toBool", ChType::Bool, mode));
        out.push(simple_conversion("toUUID", ChType::Uuid, mode));
        out.push(simple_conversion("toIPv4", ChType::IPv4, mode));
        out.push(simple_conversion("toIPv6", ChType::IPv6, mode));
    }
    // ClickHouse's `OrDefault` of the address types is the zero address.
    out.push(named_conversion("toIPv4OrDefault", "toIPv4", ChType::IPv4, Mode::OrZero));
    out.push(named_conversion("toIPv6OrDefault", "toIPv6", ChType::IPv6, Mode::OrZero));
    for t in [
        ChType::Int8,
        ChType::Int16,
        ChType::Int32,
        ChType::Int64,
        ChType::Int128,
        ChType::Int256,
        ChType::UInt8,
        ChType::UInt16,
        ChType::UInt32,
        ChType::UInt64,
        ChType::UInt128,
        ChType::UInt256,
        ChType::Float32,
        ChType::Float64,
        ChType::Date,
        ChType::Date32,
        ChType::DateTime(None),
        ChType::Uuid,
    ] {
        out.push(or_default_conversion(t));
    }
    out.push(to_fixed_string());
    out.push(to_string());
    out.extend(accurate::functions());
    out.push(cast_fn("CAST"));
    out.push(cast_fn("_CAST"));
    out.push(to_type_name());
    out.push(to_column_type_name());
    out.push(materialize());
    out.push(passthrough("identity"));
    out.push(to_low_cardinality());
    out.push(ignore());
    out
}
