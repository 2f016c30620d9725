//! Intervals as values: `addInterval`/`subtractInterval` (an interval or a tuple of
//! intervals plus one more interval), `addTupleOfIntervals`/`subtractTupleOfIntervals`
//! (a date moved by each interval of a tuple in turn), `toInterval(n, 'unit')`,
//! `timeDiff`, and `nowInBlock`/`nowInBlock64`, the current time read per block.
//!
//! A tuple of intervals grows as ClickHouse's does: an interval of the unit of the
//! tuple's last element adds to that element, any other is appended
//! (`(INTERVAL 1 YEAR, INTERVAL 1 DAY) + INTERVAL 2 DAY` is `(1, 3)`,
//! `(INTERVAL 1 DAY, INTERVAL 1 YEAR) + INTERVAL 2 DAY` is `(1, 1, 2)`). The `+`/`-`
//! operators on tuples of intervals share that rule ([`grown_interval_tuple`]).
//! Moving dates goes through the registered `plus`/`minus`, so units, result types and
//! time zones are theirs.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray, StructArray};
use datafusion::arrow::compute::kernels::numeric;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::logical_expr::{ColumnarValue, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_argument, is_string, scalar_str, Arity, DfResult};
use crate::datetime::{check_date_arg, optional_tz, precision_arg, Unit};
use crate::func::{call_return_field, call_scalar, ch_type_of_field, registered_scalar, RetCtx, ScalarDef};

/// The type of the tuple `items` after adding an interval of type `added`: the last
/// element grows when it has `added`'s unit, else `added` is appended.
pub(crate) fn grown_interval_tuple(items: &[(String, ChType)], added: &ChType) -> ChType {
    if items.last().is_some_and(|(_, last)| last == added) {
        return ChType::Tuple(items.to_vec());
    }
    let mut items = items.to_vec();
    items.push(((items.len() + 1).to_string(), added.clone()));
    ChType::Tuple(items)
}

/// The columns of a tuple of intervals (of type `items`) after adding `sign * added`,
/// as [`grown_interval_tuple`] typed it, assembled into a column of type `ret`.
pub(crate) fn grow_interval_tuple(mut columns: Vec<ArrayRef>, items: &[(String, ChType)], added_type: &ChType, added: &ArrayRef, sign: i64, ret: &ChType) -> DfResult<ArrayRef> {
    let added = datafusion::arrow::compute::cast(added, &DataType::Int64)?;
    match columns.last_mut() {
        Some(last) if items.last().is_some_and(|(_, t)| t == added_type) => {
            let last64 = datafusion::arrow::compute::cast(last, &DataType::Int64)?;
            *last = if sign < 0 { numeric::sub_wrapping(&last64, &added)? } else { numeric::add_wrapping(&last64, &added)? };
        }
        _ => columns.push(if sign < 0 { numeric::neg_wrapping(&added)? } else { added }),
    }
    let DataType::Struct(fields) = ret.to_arrow() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("a tuple of intervals typed as {ret}")));
    };
    // The counts keep the element fields' types (an Interval is an Int64 count).
    let columns = columns
        .into_iter()
        .zip(fields.iter())
        .map(|(c, f)| if c.data_type() == f.data_type() { Ok(c) } else { Ok(datafusion::arrow::compute::cast(&c, f.data_type())?) })
        .collect::<DfResult<Vec<_>>>()?;
    Ok(Arc::new(StructArray::try_new(fields, columns, None)?))
}

/// The elements of an interval or tuple of intervals, as a tuple's items.
fn interval_items(name: &str, t: &ChType) -> DfResult<Vec<(String, ChType)>> {
    match t {
        ChType::Interval(_) => Ok(vec![("1".into(), t.clone())]),
        ChType::Tuple(items) => {
            if let Some((_, bad)) = items.iter().find(|(_, t)| !matches!(t.base(), ChType::Interval(_))) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type {bad} of Tuple element of first argument of function {name}, must be Interval"),
                ));
            }
            Ok(items.clone())
        }
        other => Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Illegal type {other} of first argument of function {name}, must be Tuple or Interval"),
        )),
    }
}

/// `addInterval(i, j)` / `subtractInterval(i, j)`: the interval or tuple of intervals
/// `i` with `±j` added, always a tuple.
fn add_interval_fn(name: &'static str, sign: i64) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            let items = interval_items(ctx.name, ctx.ch(0).base())?;
            let added = ctx.ch(1);
            if !matches!(added.base(), ChType::Interval(_)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type {added} of second argument of function {}, must be Interval", ctx.name),
                ));
            }
            // ClickHouse leaves an empty tuple as it is.
            if items.is_empty() {
                return Ok(ChType::Tuple(Vec::new()));
            }
            Ok(grown_interval_tuple(&items, added.base()))
        },
        move |ctx| {
            let ret = ctx.ret_ch();
            let first = ctx.ch(0);
            let items = interval_items(ctx.name, first.base())?;
            let a = ctx.array(0)?;
            if items.is_empty() {
                return Ok(Arc::new(StructArray::new_empty_fields(ctx.len, None)));
            }
            let columns = match a.as_struct_opt() {
                Some(parts) => parts.columns().to_vec(),
                None => vec![a],
            };
            grow_interval_tuple(columns, &items, ctx.ch(1).base(), &ctx.array(1)?, sign, ret.base())
        },
    )
    .build()
}

/// The fields of a tuple argument's elements.
fn element_fields(field: &Field) -> Vec<FieldRef> {
    match field.data_type() {
        DataType::Struct(fields) => fields.iter().cloned().collect(),
        _ => Vec::new(),
    }
}

fn check_tuple_of_intervals_args(ctx: &RetCtx) -> DfResult<()> {
    if !matches!(ctx.ch(0).base(), ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..)) {
        return Err(illegal_argument(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, ctx.name, 0, "date_or_datetime", "Date, Date32, DateTime or DateTime64", &ctx.ch(0)));
    }
    if !matches!(ctx.ch(1).base(), ChType::Tuple(_)) {
        return Err(illegal_argument(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, ctx.name, 1, "intervals_tuple", "Tuple", &ctx.ch(1)));
    }
    Ok(())
}

/// `addTupleOfIntervals(d, (i1, i2, ..))`: `d + i1 + i2 + ..` (`minus` for the
/// subtracting form), each step typed and computed by the operator.
fn tuple_of_intervals_fn(name: &'static str, operator: &'static str) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            check_tuple_of_intervals_args(ctx)?;
            let op = registered_scalar(operator)?;
            let mut acc = Arc::clone(&ctx.fields[0]);
            for element in element_fields(ctx.field(1)) {
                acc = call_return_field(&op, &[acc, element], &[None, None])?;
            }
            Ok(ch_type_of_field(&acc))
        },
        move |ctx| {
            let op = registered_scalar(operator)?;
            let (mut value, mut field) = (ctx.array(0)?, Arc::clone(&ctx.fields[0]));
            let tuple = ctx.array(1)?;
            let parts = tuple.as_struct_opt();
            for (i, element) in element_fields(&ctx.fields[1]).into_iter().enumerate() {
                let Some(column) = parts.map(|p| Arc::clone(p.column(i))) else {
                    return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} got a tuple that is not a struct", ctx.name)));
                };
                (value, field) = call_scalar(&op, vec![ColumnarValue::Array(value), ColumnarValue::Array(column)], vec![field, element], ctx.len, ctx.config)?;
            }
            Ok(value)
        },
    )
    .build()
}

/// The unit named by `toInterval`'s second argument (a constant string, any case).
fn named_unit(name: &str, text: Option<&str>) -> DfResult<Unit> {
    let Some(text) = text else {
        return Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Second argument for function {name} must be constant string: unit of interval"),
        ));
    };
    if text.is_empty() {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Second argument (unit) for function {name} cannot be empty")));
    }
    Unit::ALL
        .into_iter()
        .find(|u| u.name().eq_ignore_ascii_case(text))
        .ok_or_else(|| ch_error(ErrorCode::BAD_ARGUMENTS, format!("{text} doesn't look like an interval unit in {name}")))
}

/// `toInterval(n, 'unit')`: `toInterval<Unit>(n)`.
fn to_interval_fn() -> ScalarUDF {
    ScalarDef::new(
        "toInterval",
        Arity::exact(2),
        |ctx| {
            let unit = named_unit(ctx.name, ctx.scalar(1).filter(|_| is_string(ctx.dt(1))).and_then(scalar_str))?;
            let target = registered_scalar(&format!("toInterval{}", unit.name()))?;
            let field = call_return_field(&target, &ctx.fields[..1], &[ctx.scalar(0)])?;
            Ok(ch_type_of_field(&field))
        },
        |ctx| {
            let unit = named_unit(ctx.name, ctx.scalar(1).and_then(scalar_str))?;
            let target = registered_scalar(&format!("toInterval{}", unit.name()))?;
            let (out, _) = call_scalar(&target, vec![ctx.args[0].clone()], vec![Arc::clone(&ctx.fields[0])], ctx.len, ctx.config)?;
            Ok(out)
        },
    )
    .build()
}

fn check_time_diff_arg(ctx: &RetCtx, i: usize, what: &str) -> DfResult<()> {
    check_date_arg(ctx, i, true)
        .map_err(|_| illegal_argument(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, ctx.name, i, what, "Date[32] or DateTime[64]", &ctx.ch(i)))
}

/// `timeDiff(a, b)`: whole seconds from `a` to `b` (`dateDiff('second', a, b)`).
fn time_diff_fn() -> ScalarUDF {
    ScalarDef::new(
        "timeDiff",
        Arity::exact(2),
        |ctx| {
            check_time_diff_arg(ctx, 0, "first_datetime")?;
            check_time_diff_arg(ctx, 1, "second_datetime")?;
            Ok(ChType::Int64)
        },
        |ctx| {
            let date_diff = registered_scalar("dateDiff")?;
            let unit = datafusion::common::ScalarValue::Utf8(Some("second".into()));
            let args = vec![ColumnarValue::Scalar(unit), ctx.args[0].clone(), ctx.args[1].clone()];
            let fields = vec![Arc::new(Field::new("unit", DataType::Utf8, false)), Arc::clone(&ctx.fields[0]), Arc::clone(&ctx.fields[1])];
            let (out, _) = call_scalar(&date_diff, args, fields, ctx.len, ctx.config)?;
            Ok(out)
        },
    )
    .build()
}

/// `nowInBlock([tz])`: the time when each block is computed, not folded into a
/// constant as `now()` is.
fn now_in_block_fn() -> ScalarUDF {
    ScalarDef::new(
        "nowInBlock",
        Arity::range(0, 1),
        |ctx| Ok(ChType::DateTime(optional_tz(ctx, 0)?)),
        |ctx| {
            let tz = if ctx.args.is_empty() { None } else { Some(Arc::<str>::from(ctx.const_str(0, "time zone")?)) };
            let secs = chrono::Utc::now().timestamp();
            Ok(Arc::new(PrimitiveArray::<datafusion::arrow::datatypes::TimestampSecondType>::from(vec![secs; ctx.len]).with_timezone_opt(tz)))
        },
    )
    .volatile()
    .build()
}

/// `nowInBlock64([scale[, tz]])`: `nowInBlock` with sub-second precision (3 by default).
fn now_in_block64_fn() -> ScalarUDF {
    ScalarDef::new(
        "nowInBlock64",
        Arity::range(0, 2),
        |ctx| {
            let p = if ctx.arg_count() > 0 { precision_arg(ctx, 0)? } else { 3 };
            Ok(ChType::DateTime64(p, optional_tz(ctx, 1)?))
        },
        |ctx| {
            let (p, tz) = match ctx.ret_ch().strip_nullable() {
                ChType::DateTime64(p, tz) => (*p, tz.clone()),
                _ => (3, None),
            };
            crate::datetime::now64_value(p, chrono::Utc::now(), tz.map(Arc::from)).to_array_of_size(ctx.len)
        },
    )
    .volatile()
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        add_interval_fn("addInterval", 1),
        add_interval_fn("subtractInterval", -1),
        tuple_of_intervals_fn("addTupleOfIntervals", "plus"),
        tuple_of_intervals_fn("subtractTupleOfIntervals", "minus"),
        to_interval_fn(),
        time_diff_fn(),
        now_in_block_fn(),
        now_in_block64_fn(),
    ]
}
