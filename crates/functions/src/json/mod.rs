//! ClickHouse's JSON string functions over String columns: `JSONHas`, `JSONLength`,
//! `JSONType`, `JSONExtractString/Int/UInt/Float/Bool/Raw/ArrayRaw/Keys` (and their
//! `CaseInsensitive` forms, which match keys ignoring ASCII case), `isValidJSON`;
//! `JSONExtract` with a type and `JSONExtractKeysAndValues[Raw]` in [`typed`],
//! `JSON_EXISTS/VALUE/QUERY` in [`path`], the non-validating `simpleJSON*` in [`simple`];
//! `toJSONString`, which writes any value as JSON text.
//!
//! Every function takes the document and then a path: keys (strings) and 1-based
//! positions (integers, negative from the end) into objects and arrays, constants or
//! columns. Each row's document is validated and walked by [`scan`] without a DOM; an
//! invalid document, a missing path or a value of another kind gives the function's
//! default (0, '', []), as in ClickHouse.

mod path;
mod scan;
mod simple;
mod typed;

use std::io::Write as _;
use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, ListArray, StructArray, Int64Array, Int8Array, StringArray, StringViewArray, UInt64Array, UInt8Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_types::text::escape::write_json_string;
use granary_types::text::float::write_f64;
use granary_types::ChType;

use crate::args::{illegal_type, is_integer, is_string, scalar_i128, scalar_str, Arity, DfResult};
use crate::conversion::convert::is_text;
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::text::{utf8_array, ByteStrings};

pub(crate) use scan::{parse_document, Kind, RawStr, Step, Value};
use typed::{KeysAndValues, TypedColumn};

/// The rows of a text column as bytes: Parquet's string views are read in place.
pub(crate) enum TextRows {
    Plain(StringArray),
    Views(StringViewArray),
}

impl TextRows {
    pub fn of(array: ArrayRef) -> DfResult<TextRows> {
        Ok(match array.data_type() {
            DataType::Utf8View => TextRows::Views(array.as_string_view().clone()),
            _ => TextRows::Plain(utf8_array(array)?.as_string::<i32>().clone()),
        })
    }

    /// The bytes of `row` (those of a NULL row are never looked at in the result).
    pub fn get(&self, row: usize) -> &[u8] {
        match self {
            TextRows::Plain(a) => a.value(row).as_bytes(),
            TextRows::Views(a) => a.value(row).as_bytes(),
        }
    }
}

/// One path argument: a constant step or a column of keys or positions.
enum PathArg {
    Key(Vec<u8>),
    Index(i64),
    Keys(TextRows),
    Indices(Int64Array),
}

impl PathArg {
    fn step(&self, row: usize) -> Step<'_> {
        match self {
            PathArg::Key(key) => Step::Key(key),
            PathArg::Index(i) => Step::Index(*i),
            PathArg::Keys(keys) => Step::Key(keys.get(row)),
            PathArg::Indices(indices) => Step::Index(indices.value(row)),
        }
    }
}

fn clamp_index(v: i128) -> i64 {
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

fn path_args(ctx: &ExecCtx, range: Range<usize>) -> DfResult<Vec<PathArg>> {
    range
        .map(|i| {
            if let Some(scalar) = ctx.scalar(i) {
                if let Some(key) = scalar_str(scalar) {
                    return Ok(PathArg::Key(key.as_bytes().to_vec()));
                }
                if let Some(index) = scalar_i128(scalar) {
                    return Ok(PathArg::Index(clamp_index(index)));
                }
            }
            let array = ctx.array(i)?;
            if is_integer(array.data_type()) {
                Ok(PathArg::Indices(cast(&array, &DataType::Int64)?.as_primitive::<Int64Type>().clone()))
            } else if is_text(array.data_type()) {
                Ok(PathArg::Keys(TextRows::of(array)?))
            } else {
                Err(illegal_type(ctx.name, i, &ctx.fields[i]))
            }
        })
        .collect()
}

/// The type rule shared by every function: a text document, then keys or positions.
pub(crate) fn check_path_types(ctx: &RetCtx, path: Range<usize>) -> DfResult<()> {
    if !is_string(ctx.dt(0)) {
        return Err(illegal_type(ctx.name, 0, ctx.field(0)));
    }
    for i in path {
        if !(is_text(ctx.dt(i)) || is_integer(ctx.dt(i))) {
            return Err(illegal_type(ctx.name, i, ctx.field(i)));
        }
    }
    Ok(())
}

/// Calls `f` for each row with the value the path leads to in that row's document
/// (`None`: invalid document or no such value).
pub(crate) fn for_each_value(
    ctx: &ExecCtx,
    path_end: usize,
    case_insensitive: bool,
    mut f: impl FnMut(Option<Value<'_>>) -> DfResult<()>,
) -> DfResult<()> {
    let docs = TextRows::of(ctx.array(0)?)?;
    let path = path_args(ctx, 1..path_end)?;
    let mut scratch = Vec::new();
    for row in 0..ctx.len {
        let mut target = parse_document(docs.get(row));
        for arg in &path {
            target = target.and_then(|v| v.child(arg.step(row), &mut scratch, case_insensitive));
        }
        f(target)?;
    }
    Ok(())
}

/// Appends a value the way ClickHouse prints JSON it parsed: no spaces, strings
/// re-escaped, numbers in ClickHouse's number text (`1.50` is `1.5`, `1e3` is `1000`).
pub(crate) fn write_raw(value: Value<'_>, out: &mut Vec<u8>, scratch: &mut Vec<u8>) {
    match value.kind() {
        Kind::Object => {
            out.push(b'{');
            for (n, (key, v)) in value.members().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                write_string(key, out, scratch);
                out.push(b':');
                write_raw(v, out, scratch);
            }
            out.push(b'}');
        }
        Kind::Array => {
            out.push(b'[');
            for (n, v) in value.elements().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                write_raw(v, out, scratch);
            }
            out.push(b']');
        }
        Kind::String => write_string(value.raw_str(), out, scratch),
        // `-0` is the integer 0.
        Kind::Int64 => {
            let _ = write!(out, "{}", value.int_value().unwrap_or(0));
        }
        Kind::Double => write_f64(value.double_value(), out),
        Kind::UInt64 | Kind::Bool | Kind::Null => out.extend_from_slice(value.text()),
    }
}

fn write_string(s: RawStr<'_>, out: &mut Vec<u8>, scratch: &mut Vec<u8>) {
    scratch.clear();
    s.decode_into(scratch);
    write_json_string(scratch, false, out);
}

/// A number (or a string holding one) as an integer in `min..=max`: doubles are
/// truncated, values out of range are `None`, as ClickHouse's JSONExtract*Int.
pub(crate) fn integer_in(value: Value<'_>, min: i128, max: i128, scratch: &mut Vec<u8>) -> Option<i128> {
    // Unsigned types refuse negative doubles before truncating (-0.5 is no UInt).
    let from_double = |d: f64| {
        let t = d.trunc();
        (t >= min as f64 && t < max as f64 + 1.0 && !(min == 0 && d < 0.0)).then_some(t as i128)
    };
    match value.kind() {
        Kind::Int64 => value.int_value().map(i128::from).filter(|v| (min..=max).contains(v)),
        Kind::UInt64 => value.uint_value().map(i128::from).filter(|v| (min..=max).contains(v)),
        Kind::Double => from_double(value.double_value()),
        Kind::String => {
            scratch.clear();
            value.raw_str().decode_into(scratch);
            let text = std::str::from_utf8(scratch).ok()?;
            // Text out of range is read again as a double, as ClickHouse does:
            // "-9223372036854775809" rounds to Int64's minimum.
            match text.parse::<i128>() {
                Ok(v) if (min..=max).contains(&v) => Some(v),
                _ => from_double(text.parse::<f64>().ok()?),
            }
        }
        _ => None,
    }
}

/// A number (or a string holding one) as a double.
pub(crate) fn double_of(value: Value<'_>, scratch: &mut Vec<u8>) -> Option<f64> {
    match value.kind() {
        // `-0` is the integer 0, not the double -0.
        Kind::Int64 => value.int_value().map(|v| v as f64),
        Kind::UInt64 => value.uint_value().map(|v| v as f64),
        Kind::Double => Some(value.double_value()),
        Kind::String => {
            scratch.clear();
            value.raw_str().decode_into(scratch);
            std::str::from_utf8(scratch).ok()?.parse::<f64>().ok()
        }
        _ => None,
    }
}

/// `true`/`false`, or an integer (non-zero is true); other values are not booleans.
pub(crate) fn bool_of(value: Value<'_>) -> Option<bool> {
    match value.kind() {
        Kind::Bool => Some(value.bool_value()),
        Kind::Int64 | Kind::UInt64 => Some(value.text() != b"0" && value.text() != b"-0"),
        _ => None,
    }
}

/// JSONExtractString's text: a string decoded, null empty, other values as raw JSON.
pub(crate) fn write_string_value(value: Value<'_>, out: &mut Vec<u8>, scratch: &mut Vec<u8>) {
    match value.kind() {
        Kind::String => value.raw_str().decode_into(out),
        Kind::Null => {}
        _ => write_raw(value, out, scratch),
    }
}

#[derive(Clone, Copy)]
enum Simple {
    Has,
    Length,
    Type,
    String,
    Int,
    UInt,
    Float,
    Bool,
    Raw,
    ArrayRaw,
    Keys,
}

impl Simple {
    fn result_type(self) -> ChType {
        match self {
            Simple::Has | Simple::Bool => ChType::UInt8,
            Simple::Length | Simple::UInt => ChType::UInt64,
            Simple::Type => ChType::Enum8(Kind::NAMES.iter().map(|(n, v)| (n.to_string(), *v)).collect()),
            Simple::String | Simple::Raw => ChType::String,
            Simple::Int => ChType::Int64,
            Simple::Float => ChType::Float64,
            Simple::ArrayRaw | Simple::Keys => ChType::Array(Box::new(ChType::String)),
        }
    }
}

/// One value per row from the value the path (all arguments after the document) leads to.
fn values_of<T>(ctx: &ExecCtx, case_insensitive: bool, mut f: impl FnMut(Option<Value<'_>>) -> T) -> DfResult<Vec<T>> {
    let mut out = Vec::with_capacity(ctx.len);
    for_each_value(ctx, ctx.args.len(), case_insensitive, |v| {
        out.push(f(v));
        Ok(())
    })?;
    Ok(out)
}

fn run_simple(ctx: &ExecCtx, what: Simple, case_insensitive: bool) -> DfResult<ArrayRef> {
    let path_end = ctx.args.len();
    let mut scratch = Vec::new();
    Ok(match what {
        Simple::Has => Arc::new(UInt8Array::from(values_of(ctx, case_insensitive, |v| v.is_some() as u8)?)),
        Simple::Bool => Arc::new(UInt8Array::from(values_of(ctx, case_insensitive, |v| v.and_then(bool_of).unwrap_or(false) as u8)?)),
        Simple::Length => Arc::new(UInt64Array::from(values_of(ctx, case_insensitive, |v| v.map_or(0, |v| v.len() as u64))?)),
        Simple::UInt => Arc::new(UInt64Array::from(values_of(ctx, case_insensitive, |v| {
            v.and_then(|v| integer_in(v, 0, u64::MAX as i128, &mut scratch)).unwrap_or(0) as u64
        })?)),
        Simple::Type => Arc::new(Int8Array::from(values_of(ctx, case_insensitive, |v| v.map_or(Kind::Null, |v| v.kind()) as i16 as i8)?)),
        Simple::Int => Arc::new(Int64Array::from(values_of(ctx, case_insensitive, |v| {
            v.and_then(|v| integer_in(v, i64::MIN as i128, i64::MAX as i128, &mut scratch)).unwrap_or(0) as i64
        })?)),
        Simple::Float => Arc::new(Float64Array::from(values_of(ctx, case_insensitive, |v| v.and_then(|v| double_of(v, &mut scratch)).unwrap_or(0.0))?)),
        Simple::String | Simple::Raw => {
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            let mut buf = Vec::new();
            for_each_value(ctx, path_end, case_insensitive, |v| {
                buf.clear();
                if let Some(v) = v {
                    match what {
                        Simple::String => write_string_value(v, &mut buf, &mut scratch),
                        _ => write_raw(v, &mut buf, &mut scratch),
                    }
                }
                out.push_value(&buf)
            })?;
            out.finish(None)?
        }
        Simple::ArrayRaw | Simple::Keys => {
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            let mut list_offsets = Vec::with_capacity(ctx.len + 1);
            list_offsets.push(0i32);
            let mut buf = Vec::new();
            for_each_value(ctx, path_end, case_insensitive, |v| {
                match (what, v) {
                    (Simple::ArrayRaw, Some(v)) if v.kind() == Kind::Array => {
                        for element in v.elements() {
                            buf.clear();
                            write_raw(element, &mut buf, &mut scratch);
                            out.push_value(&buf)?;
                        }
                    }
                    (Simple::Keys, Some(v)) if v.kind() == Kind::Object => {
                        for (key, _) in v.members() {
                            buf.clear();
                            key.decode_into(&mut buf);
                            out.push_value(&buf)?;
                        }
                    }
                    _ => {}
                }
                list_offsets.push(out.len() as i32);
                Ok(())
            })?;
            out.finish_list(list_offsets)?
        }
    })
}

fn simple(name: &'static str, what: Simple, case_insensitive: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::at_least(1),
        move |ctx| {
            check_path_types(ctx, 1..ctx.arg_count())?;
            Ok(what.result_type())
        },
        move |ctx| run_simple(ctx, what, case_insensitive),
    )
    .takes_string_views()
    .build()
}

fn is_valid_json() -> ScalarUDF {
    ScalarDef::new(
        "isValidJSON",
        Arity::exact(1),
        |ctx| {
            check_path_types(ctx, 1..1)?;
            Ok(ChType::UInt8)
        },
        |ctx| {
            let docs = TextRows::of(ctx.array(0)?)?;
            let valid: Vec<u8> = (0..ctx.len).map(|row| parse_document(docs.get(row)).is_some() as u8).collect();
            Ok(Arc::new(UInt8Array::from(valid)))
        },
    )
    .takes_string_views()
    .build()
}

/// The type named by the last argument, which must be a constant string naming a type
/// JSONExtract can make; the arguments before it are the document and the path.
fn checked_type_argument(ctx: &RetCtx) -> DfResult<ChType> {
    let last = ctx.arg_count() - 1;
    check_path_types(ctx, 1..last)?;
    let t = ChType::parse(ctx.const_str(last, "return type")?).map_err(|e| e.into_datafusion())?;
    TypedColumn::new(&t)?;
    Ok(t)
}

/// The type rule of functions whose arguments are all Strings (a document and a
/// constant JSONPath or field name).
pub(crate) fn require_strings(ctx: &RetCtx) -> DfResult<()> {
    for i in 0..ctx.arg_count() {
        if !is_string(ctx.dt(i)) {
            return Err(illegal_type(ctx.name, i, ctx.field(i)));
        }
    }
    Ok(())
}

/// The type argument at execution (the result type may have become Nullable because
/// the document is).
fn requested_type(ctx: &ExecCtx) -> DfResult<ChType> {
    let name = ctx.const_str(ctx.args.len() - 1, "return type")?;
    ChType::parse(name).map_err(|e| e.into_datafusion())
}

/// `JSONExtract(json, [path...,] 'Type')`.
fn extract_typed(name: &'static str, case_insensitive: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::at_least(2),
        checked_type_argument,
        move |ctx| {
            let mut column = TypedColumn::new(&requested_type(ctx)?)?;
            let mut scratch = Vec::new();
            for_each_value(ctx, ctx.args.len() - 1, case_insensitive, |v| column.push_or_default(v, &mut scratch, case_insensitive))?;
            column.finish()
        },
    )
    .takes_string_views()
    .build()
}

/// `JSONExtractKeysAndValues(json, [path...,] 'Type')`: `Array(Tuple(String, Type))`
/// of the members whose values convert.
fn keys_and_values(name: &'static str, case_insensitive: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::at_least(2),
        |ctx| Ok(key_value_array(checked_type_argument(ctx)?)),
        move |ctx| {
            let mut column = KeysAndValues::new(&ctx.ret_ch(), &requested_type(ctx)?)?;
            let (mut scratch, mut key_text) = (Vec::new(), Vec::new());
            for_each_value(ctx, ctx.args.len() - 1, case_insensitive, |v| column.push(v, &mut scratch, &mut key_text, case_insensitive))?;
            column.finish()
        },
    )
    .takes_string_views()
    .build()
}

fn key_value_array(value: ChType) -> ChType {
    ChType::Array(Box::new(ChType::Tuple(vec![("1".to_string(), ChType::String), ("2".to_string(), value)])))
}

/// `JSONExtractKeysAndValuesRaw(json, [path...])`: `Array(Tuple(String, String))`.
fn keys_and_values_raw(name: &'static str, case_insensitive: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::at_least(1),
        |ctx| {
            check_path_types(ctx, 1..ctx.arg_count())?;
            Ok(key_value_array(ChType::String))
        },
        move |ctx| {
            let (mut keys, mut values) = (ByteStrings::with_capacity(ctx.len, 0), ByteStrings::with_capacity(ctx.len, 0));
            let mut offsets = Vec::with_capacity(ctx.len + 1);
            offsets.push(0i32);
            let (mut buf, mut scratch) = (Vec::new(), Vec::new());
            for_each_value(ctx, ctx.args.len(), case_insensitive, |v| {
                if let Some(object) = v.filter(|v| v.kind() == Kind::Object) {
                    for (key, member) in object.members() {
                        buf.clear();
                        key.decode_into(&mut buf);
                        keys.push_value(&buf)?;
                        buf.clear();
                        write_raw(member, &mut buf, &mut scratch);
                        values.push_value(&buf)?;
                    }
                }
                offsets.push(keys.len() as i32);
                Ok(())
            })?;
            let DataType::List(item) = ctx.ret_type().clone() else { return Err(typed_internal()) };
            let DataType::Struct(fields) = item.data_type().clone() else { return Err(typed_internal()) };
            let entries = StructArray::try_new(fields, vec![keys.finish(None)?, values.finish(None)?], None)?;
            Ok(Arc::new(ListArray::try_new(item, OffsetBuffer::new(offsets.into()), Arc::new(entries), None)?))
        },
    )
    .takes_string_views()
    .build()
}

fn typed_internal() -> datafusion::common::DataFusionError {
    datafusion::common::DataFusionError::Internal("JSONExtractKeysAndValuesRaw: unexpected result type".to_string())
}

/// `toJSONString(x)`: a value of any type as the JSON text the JSON output formats write
/// for it (named tuples as objects, maps as objects, dates as strings).
fn to_json_string() -> ScalarUDF {
    use granary_types::text::{ColumnWriter, TextOptions, TextStyle};
    ScalarDef::new(
        "toJSONString",
        Arity::exact(1),
        |_| Ok(ChType::String),
        |ctx| {
            let array = ctx.array(0)?;
            let zone = crate::tz::server_tz_name(ctx.config);
            let timezone = zone.parse::<chrono_tz::Tz>().unwrap_or(chrono_tz::Tz::UTC);
            let options = TextOptions { timezone, ..TextOptions::default() };
            let writer = ColumnWriter::with_type(&ctx.ch(0), &array, TextStyle::Json, &options)?;
            let mut out = ByteStrings::with_capacity(ctx.len, ctx.len * 8);
            let mut text = Vec::new();
            for row in 0..ctx.len {
                text.clear();
                writer.write(row, &mut text);
                out.push_value(&text)?;
            }
            out.finish(None)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    let mut out = vec![
        simple("JSONHas", Simple::Has, false),
        simple("JSONLength", Simple::Length, false),
        simple("JSONType", Simple::Type, false),
        simple("JSONExtractString", Simple::String, false),
        simple("JSONExtractInt", Simple::Int, false),
        simple("JSONExtractUInt", Simple::UInt, false),
        simple("JSONExtractFloat", Simple::Float, false),
        simple("JSONExtractBool", Simple::Bool, false),
        simple("JSONExtractRaw", Simple::Raw, false),
        simple("JSONExtractArrayRaw", Simple::ArrayRaw, false),
        simple("JSONExtractKeys", Simple::Keys, false),
        simple("JSONExtractStringCaseInsensitive", Simple::String, true),
        simple("JSONExtractIntCaseInsensitive", Simple::Int, true),
        simple("JSONExtractUIntCaseInsensitive", Simple::UInt, true),
        simple("JSONExtractFloatCaseInsensitive", Simple::Float, true),
        simple("JSONExtractBoolCaseInsensitive", Simple::Bool, true),
        simple("JSONExtractRawCaseInsensitive", Simple::Raw, true),
        simple("JSONExtractArrayRawCaseInsensitive", Simple::ArrayRaw, true),
        simple("JSONExtractKeysCaseInsensitive", Simple::Keys, true),
        extract_typed("JSONExtract", false),
        extract_typed("JSONExtractCaseInsensitive", true),
        keys_and_values("JSONExtractKeysAndValues", false),
        keys_and_values("JSONExtractKeysAndValuesCaseInsensitive", true),
        keys_and_values_raw("JSONExtractKeysAndValuesRaw", false),
        keys_and_values_raw("JSONExtractKeysAndValuesRawCaseInsensitive", true),
        is_valid_json(),
        to_json_string(),
    ];
    out.extend(path::functions());
    out.extend(simple::functions());
    out
}
