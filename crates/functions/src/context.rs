//! Functions about the query's context and about values as columns: `bar`, `e`,
//! `blockSize`, `rowNumberInBlock`, `byteSize`, `errorCodeToName`, `isConstant`,
//! `tcpPort`, `FQDN`, `serverUUID`, `shardNum`/`shardCount`, `dumpColumnStructure`,
//! `defaultValueOfArgumentType`/`defaultValueOfTypeName`, `getSizeOfEnumType`,
//! `toStringCutToZero`, `visibleWidth`.
//!
//! Several of them describe ClickHouse's in-memory columns (`byteSize`,
//! `dumpColumnStructure`): they answer with the sizes and column names ClickHouse's
//! `IColumn`s would have, derived from the ClickHouse type, not Arrow's layout.
//!
//! `currentUser`, `getSetting*`, `getServerSetting`, `queryID` and `hasColumnInTable`
//! need the query layer's state and are replaced by literals there (granary-query
//! `get_setting.rs`); they are listed in [`QUERY_LAYER_FUNCTIONS`].

use std::sync::{Arc, OnceLock};

use datafusion::arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, FixedSizeBinaryBuilder, Float64Array, StringArray, UInt16Array, UInt32Array, UInt64Array,
    UInt8Array,
};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_numeric, Arity, DfResult};
use crate::format::{write_value, FormatCtx};
use crate::func::ScalarDef;

/// Functions the query layer replaces by literals before planning, with the name each
/// is an alias of (empty for canonical names), for `system.functions`.
pub const QUERY_LAYER_FUNCTIONS: &[(&str, &str)] = &[
    ("currentUser", ""),
    ("user", "currentUser"),
    ("current_user", "currentUser"),
    ("session_user", "currentUser"),
    ("getSetting", ""),
    ("getSettingOrDefault", ""),
    ("getServerSetting", ""),
    ("queryID", ""),
    ("query_id", "queryID"),
    ("currentQueryID", ""),
    ("current_query_id", "currentQueryID"),
    ("initialQueryID", ""),
    ("initial_query_id", "initialQueryID"),
    ("hasColumnInTable", ""),
];

/// ClickHouse's default `tcp_port`: Granary speaks only HTTP, but clients and scripts
/// that build a native-protocol address from `tcpPort()` expect ClickHouse's number.
const TCP_PORT: u16 = 9000;

static SERVER_UUID: OnceLock<uuid::Uuid> = OnceLock::new();

/// Sets the UUID `serverUUID()` reports (the server keeps it in its data directory);
/// the first call wins. Without one, a random UUID is made for the process.
pub fn set_server_uuid(id: uuid::Uuid) {
    let _ = SERVER_UUID.set(id);
}

fn server_uuid() -> uuid::Uuid {
    *SERVER_UUID.get_or_init(uuid::Uuid::new_v4)
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        bar(),
        e(),
        block_size(),
        row_number_in_block(),
        byte_size(),
        error_code_to_name(),
        is_constant(),
        constant_u16("tcpPort", TCP_PORT),
        fqdn(),
        server_uuid_fn(),
        constant_u32("shardNum", 0),
        constant_u32("shardCount", 0),
        dump_column_structure(),
        default_value_of_argument_type(),
        default_value_of_type_name(),
        get_size_of_enum_type(),
        to_string_cut_to_zero(),
        visible_width(),
    ]
}

fn float_column(ctx: &crate::func::ExecCtx, i: usize) -> DfResult<Float64Array> {
    let cast = datafusion::arrow::compute::cast(&ctx.array(i)?, &DataType::Float64)?;
    Ok(cast.as_primitive::<datafusion::arrow::datatypes::Float64Type>().clone())
}

/// The eighths of a block character, from one eighth to seven.
const BAR_EIGHTHS: [&str; 7] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/// ClickHouse's `UnicodeBar::getWidth`.
fn bar_width(x: f64, min: f64, max: f64, max_width: f64) -> f64 {
    if x.is_nan() || x <= min {
        0.0
    } else if x >= max {
        max_width
    } else {
        (x - min) / (max - min) * max_width
    }
}

/// ClickHouse's `UnicodeBar::render`: whole blocks, then the eighths left over.
fn render_bar(width: f64, out: &mut String) {
    let whole = width as usize;
    for _ in 0..whole {
        out.push('█');
    }
    let eighths = ((width - whole as f64) * 8.0) as usize;
    if eighths > 0 {
        out.push_str(BAR_EIGHTHS[eighths.min(7) - 1]);
    }
}

fn bar() -> ScalarUDF {
    ScalarDef::new(
        "bar",
        Arity::range(3, 4),
        |ctx| {
            if (0..ctx.arg_count()).any(|i| !is_numeric(ctx.dt(i)) || ctx.dt(i) == &DataType::Boolean) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "All arguments for function bar must be numeric"));
            }
            Ok(ChType::String)
        },
        |ctx| {
            let x = float_column(ctx, 0)?;
            let min = float_column(ctx, 1)?;
            let max = float_column(ctx, 2)?;
            let max_width = if ctx.args.len() > 3 { Some(float_column(ctx, 3)?) } else { None };
            let mut out = Vec::with_capacity(ctx.len);
            let mut text = String::new();
            for row in 0..ctx.len {
                if x.is_null(row) || min.is_null(row) || max.is_null(row) || max_width.as_ref().is_some_and(|w| w.is_null(row)) {
                    out.push(None);
                    continue;
                }
                let width_limit = max_width.as_ref().map_or(80.0, |w| w.value(row));
                if width_limit < 1.0 {
                    return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, "Argument 'max_width' must be >= 1"));
                }
                if width_limit > 1000.0 {
                    return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, "Argument 'max_width' must be <= 1000"));
                }
                let width = bar_width(x.value(row), min.value(row), max.value(row), width_limit);
                if !width.is_finite() {
                    return Err(ch_error(ErrorCode::PARAMETER_OUT_OF_BOUND, "Value of width must not be NaN and Inf"));
                }
                text.clear();
                render_bar(width, &mut text);
                out.push(Some(text.clone()));
            }
            Ok(Arc::new(StringArray::from(out)) as ArrayRef)
        },
    )
    .build()
}

fn e() -> ScalarUDF {
    ScalarDef::new("e", Arity::exact(0), |_| Ok(ChType::Float64), |ctx| Ok(Arc::new(Float64Array::from(vec![std::f64::consts::E; ctx.len])) as ArrayRef)).build()
}

/// The rows of the block (DataFusion batch) being computed. Volatile, so that the
/// kernel sees the batch's row count rather than being folded to one row.
fn block_size() -> ScalarUDF {
    ScalarDef::new("blockSize", Arity::exact(0), |_| Ok(ChType::UInt64), |ctx| Ok(Arc::new(UInt64Array::from(vec![ctx.len as u64; ctx.len])) as ArrayRef))
        .volatile()
        .build()
}

fn row_number_in_block() -> ScalarUDF {
    ScalarDef::new(
        "rowNumberInBlock",
        Arity::exact(0),
        |_| Ok(ChType::UInt64),
        |ctx| Ok(Arc::new(UInt64Array::from_iter_values(0..ctx.len as u64)) as ArrayRef),
    )
    .volatile()
    .build()
}

/// The size of one row of a ClickHouse column of type `ch`, as `IColumn::byteSizeAt`.
fn byte_size_at(array: &dyn Array, ch: &ChType, row: usize) -> u64 {
    let offset_size = 8;
    match ch {
        ChType::Nullable(inner) => 1 + byte_size_at(array, inner, row),
        ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner) => byte_size_at(array, inner, row),
        ChType::String => {
            let len = match array.data_type() {
                DataType::Utf8 => array.as_string::<i32>().value(row).len(),
                DataType::LargeUtf8 => array.as_string::<i64>().value(row).len(),
                DataType::Utf8View => array.as_string_view().value(row).len(),
                DataType::Binary => array.as_binary::<i32>().value(row).len(),
                _ => 0,
            };
            len as u64 + offset_size
        }
        ChType::AggregateFunction(..) => match array.data_type() {
            DataType::Binary => array.as_binary::<i32>().value(row).len() as u64,
            _ => 0,
        },
        ChType::Array(inner) => match array.data_type() {
            DataType::List(_) => {
                let list = array.as_list::<i32>();
                let offsets = list.value_offsets();
                let values = list.values();
                let elements: u64 = (offsets[row] as usize..offsets[row + 1] as usize).map(|i| byte_size_at(values.as_ref(), inner, i)).sum();
                offset_size + elements
            }
            _ => offset_size,
        },
        ChType::Map(key, value) => match array.data_type() {
            DataType::Map(..) => {
                let map = array.as_map();
                let offsets = map.value_offsets();
                let (keys, values) = (map.keys(), map.values());
                let entries: u64 = (offsets[row] as usize..offsets[row + 1] as usize)
                    .map(|i| byte_size_at(keys.as_ref(), key, i) + byte_size_at(values.as_ref(), value, i))
                    .sum();
                offset_size + entries
            }
            _ => offset_size,
        },
        ChType::Tuple(elements) => match array.data_type() {
            DataType::Struct(_) => {
                let columns = array.as_struct().columns();
                elements.iter().zip(columns).map(|((_, t), column)| byte_size_at(column.as_ref(), t, row)).sum()
            }
            _ => 0,
        },
        other => fixed_value_size(other),
    }
}

/// The bytes of one value of a fixed-size type.
fn fixed_value_size(ch: &ChType) -> u64 {
    match ch {
        ChType::UInt8 | ChType::Int8 | ChType::Bool | ChType::Enum8(_) => 1,
        ChType::UInt16 | ChType::Int16 | ChType::Date | ChType::Enum16(_) => 2,
        ChType::UInt32 | ChType::Int32 | ChType::Float32 | ChType::Date32 | ChType::DateTime(_) | ChType::IPv4 => 4,
        ChType::Decimal(p, _) if *p <= 9 => 4,
        ChType::Decimal(p, _) if *p <= 18 => 8,
        ChType::Decimal(p, _) if *p <= 38 => 16,
        ChType::Decimal(..) | ChType::Int256 | ChType::UInt256 => 32,
        ChType::Int128 | ChType::UInt128 | ChType::Uuid | ChType::IPv6 => 16,
        ChType::FixedString(n) => *n as u64,
        ChType::Nothing => 0,
        _ => 8,
    }
}

fn byte_size() -> ScalarUDF {
    ScalarDef::new(
        "byteSize",
        Arity::at_least(0),
        |_| Ok(ChType::UInt64),
        |ctx| {
            let columns: Vec<(ArrayRef, ChType)> = (0..ctx.args.len()).map(|i| Ok((ctx.array(i)?, ctx.ch(i)))).collect::<DfResult<_>>()?;
            let sizes = (0..ctx.len).map(|row| columns.iter().map(|(array, ch)| byte_size_at(array.as_ref(), ch, row)).sum::<u64>());
            Ok(Arc::new(UInt64Array::from_iter_values(sizes)) as ArrayRef)
        },
    )
    .custom_nulls()
    .build()
}

fn error_code_to_name() -> ScalarUDF {
    ScalarDef::new(
        "errorCodeToName",
        Arity::exact(1),
        |ctx| {
            let t = ctx.dt(0);
            if !(t.is_integer() || matches!(t, DataType::Null)) {
                return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "The argument of function errorCodeToName must have simple numeric type, possibly Nullable"));
            }
            Ok(ChType::LowCardinality(Box::new(ChType::String)))
        },
        |ctx| {
            let input = ctx.array(0)?;
            let codes = datafusion::arrow::compute::cast(&input, &DataType::Int64)?;
            let codes = codes.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
            let names = (0..ctx.len).map(|row| {
                if codes.is_null(row) {
                    return "";
                }
                match codes.value(row) {
                    0 => "OK",
                    n => i32::try_from(n).ok().and_then(ErrorCode::from_number).map_or("", |code| code.name()),
                }
            });
            Ok(Arc::new(StringArray::from_iter_values(names)) as ArrayRef)
        },
    )
    .custom_nulls()
    .build()
}

/// 1 when the argument is a constant: DataFusion folds constant expressions into
/// literals, which reach the kernel as scalars.
fn is_constant() -> ScalarUDF {
    ScalarDef::new(
        "isConstant",
        Arity::exact(1),
        |_| Ok(ChType::UInt8),
        |ctx| {
            let constant = u8::from(ctx.scalar(0).is_some());
            Ok(Arc::new(UInt8Array::from(vec![constant; ctx.len])) as ArrayRef)
        },
    )
    .custom_nulls()
    .build()
}

fn constant_u16(name: &'static str, value: u16) -> ScalarUDF {
    ScalarDef::new(name, Arity::exact(0), |_| Ok(ChType::UInt16), move |ctx| Ok(Arc::new(UInt16Array::from(vec![value; ctx.len])) as ArrayRef)).build()
}

fn constant_u32(name: &'static str, value: u32) -> ScalarUDF {
    ScalarDef::new(name, Arity::exact(0), |_| Ok(ChType::UInt32), move |ctx| Ok(Arc::new(UInt32Array::from(vec![value; ctx.len])) as ArrayRef)).build()
}

fn fqdn() -> ScalarUDF {
    ScalarDef::new(
        "FQDN",
        Arity::exact(0),
        |_| Ok(ChType::String),
        |ctx| Ok(Arc::new(StringArray::from(vec![crate::system::host_name(); ctx.len])) as ArrayRef),
    )
    .stable()
    .build()
}

fn server_uuid_fn() -> ScalarUDF {
    ScalarDef::new(
        "serverUUID",
        Arity::exact(0),
        |_| Ok(ChType::Uuid),
        |ctx| {
            let id = server_uuid();
            let mut b = FixedSizeBinaryBuilder::with_capacity(ctx.len, 16);
            for _ in 0..ctx.len {
                b.append_value(id.as_bytes())?;
            }
            Ok(Arc::new(b.finish()) as ArrayRef)
        },
    )
    .build()
}

/// The name ClickHouse's column of type `ch` reports (`IColumn::getName`).
fn column_name(ch: &ChType) -> String {
    match ch {
        ChType::Bool => "UInt8".into(),
        ChType::Date => "UInt16".into(),
        ChType::Date32 => "Int32".into(),
        ChType::DateTime(_) => "UInt32".into(),
        ChType::DateTime64(..) => "DateTime64".into(),
        ChType::Enum8(_) => "Int8".into(),
        ChType::Enum16(_) => "Int16".into(),
        ChType::Decimal(p, _) => format!("Decimal{}", decimal_bits(*p)),
        ChType::FixedString(_) => "FixedString".into(),
        ChType::Interval(_) => "Int64".into(),
        other => other.to_string(),
    }
}

fn decimal_bits(precision: u8) -> u32 {
    match precision {
        0..=9 => 32,
        10..=18 => 64,
        19..=38 => 128,
        _ => 256,
    }
}

/// ClickHouse's `IColumn::dumpStructure` of `rows` rows of `array` (from row 0).
fn dump_structure(array: &dyn Array, ch: &ChType, rows: usize) -> String {
    match ch {
        ChType::Nullable(inner) => format!("Nullable(size = {rows}, {}, UInt8(size = {rows}))", dump_structure(array, inner, rows)),
        ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner) => dump_structure(array, inner, rows),
        ChType::Array(inner) => {
            let (values, elements) = match array.data_type() {
                DataType::List(_) => {
                    let list = array.as_list::<i32>();
                    (Some(list.values().clone()), (list.value_offsets()[rows] - list.value_offsets()[0]) as usize)
                }
                _ => (None, 0),
            };
            let nested = values.map_or_else(|| format!("{}(size = 0)", column_name(inner)), |v| dump_structure(v.as_ref(), inner, elements));
            format!("Array(size = {rows}, UInt64(size = {rows}), {nested})")
        }
        ChType::Map(key, value) => {
            let (entries, nested) = match array.data_type() {
                DataType::Map(..) => {
                    let map = array.as_map();
                    let count = (map.value_offsets()[rows] - map.value_offsets()[0]) as usize;
                    (count, format!("{}, {}", dump_structure(map.keys().as_ref(), key, count), dump_structure(map.values().as_ref(), value, count)))
                }
                _ => (0, String::new()),
            };
            format!("Map(size = {rows}, Array(size = {rows}, UInt64(size = {rows}), Tuple(size = {entries}, {nested})))")
        }
        ChType::Tuple(elements) => {
            let columns: Vec<String> = match array.data_type() {
                DataType::Struct(_) => elements.iter().zip(array.as_struct().columns()).map(|((_, t), c)| dump_structure(c.as_ref(), t, rows)).collect(),
                _ => Vec::new(),
            };
            if columns.is_empty() {
                format!("Tuple(size = {rows})")
            } else {
                format!("Tuple(size = {rows}, {})", columns.join(", "))
            }
        }
        other => format!("{}(size = {rows})", column_name(other)),
    }
}

fn dump_column_structure() -> ScalarUDF {
    ScalarDef::new(
        "dumpColumnStructure",
        Arity::exact(1),
        |_| Ok(ChType::String),
        |ctx| {
            let ch = ctx.ch(0);
            let array = ctx.array(0)?;
            let column = if ctx.scalar(0).is_some() {
                format!("Const(size = {}, {})", ctx.len, dump_structure(array.as_ref(), &ch, 1.min(array.len())))
            } else {
                dump_structure(array.as_ref(), &ch, ctx.len)
            };
            let text = format!("{ch}, {column}");
            Ok(Arc::new(StringArray::from(vec![text; ctx.len])) as ArrayRef)
        },
    )
    .custom_nulls()
    .build()
}

/// `rows` default values of `ch`: NULL for Nullable, the smallest element of an Enum,
/// zeros and empty values otherwise.
fn default_values(ch: &ChType, rows: usize) -> DfResult<ArrayRef> {
    let data_type = ch.to_arrow();
    if ch.is_nullable() || data_type == DataType::Null {
        return Ok(new_null_array(&data_type, rows));
    }
    let base = ch.base();
    if let Some((_, first)) = base.enum_elements().and_then(|elements| elements.first()) {
        let value = match data_type {
            DataType::Int8 => ScalarValue::Int8(Some(*first as i8)),
            _ => ScalarValue::Int16(Some(*first)),
        };
        return value.to_array_of_size(rows);
    }
    if let DataType::Map(entries, sorted) = &data_type {
        // DataFusion's default Map scalar is not a valid MapArray: build `rows` empty maps.
        let entries_array = datafusion::arrow::array::new_empty_array(entries.data_type()).as_struct().clone();
        let offsets = datafusion::arrow::buffer::OffsetBuffer::new(vec![0i32; rows + 1].into());
        return Ok(Arc::new(datafusion::arrow::array::MapArray::try_new(Arc::clone(entries), offsets, entries_array, None, *sorted)?));
    }
    Ok(ScalarValue::new_default(&data_type)?.to_array_of_size(rows)?)
}

fn default_value_of_argument_type() -> ScalarUDF {
    ScalarDef::new("defaultValueOfArgumentType", Arity::exact(1), |ctx| Ok(ctx.ch(0)), |ctx| default_values(&ctx.ret_ch(), ctx.len))
        .custom_nulls()
        .build()
}

fn default_value_of_type_name() -> ScalarUDF {
    ScalarDef::new(
        "defaultValueOfTypeName",
        Arity::exact(1),
        |ctx| {
            let name = ctx.scalar(0).and_then(crate::args::scalar_str).ok_or_else(|| {
                ch_error(ErrorCode::ILLEGAL_COLUMN, "The argument of function defaultValueOfTypeName must be a constant string describing type")
            })?;
            ChType::parse(name).map_err(|e| e.into_datafusion())
        },
        |ctx| default_values(&ctx.ret_ch(), ctx.len),
    )
    .custom_nulls()
    .build()
}

fn get_size_of_enum_type() -> ScalarUDF {
    ScalarDef::new(
        "getSizeOfEnumType",
        Arity::exact(1),
        |ctx| match ctx.ch(0).base() {
            ChType::Enum8(_) => Ok(ChType::UInt8),
            ChType::Enum16(_) => Ok(ChType::UInt16),
            _ => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "The argument for function getSizeOfEnumType must be Enum")),
        },
        |ctx| {
            let count = ctx.ch(0).base().enum_elements().map_or(0, |e| e.len());
            Ok(match ctx.ret_type() {
                DataType::UInt8 => Arc::new(UInt8Array::from(vec![count as u8; ctx.len])) as ArrayRef,
                _ => Arc::new(UInt16Array::from(vec![count as u16; ctx.len])) as ArrayRef,
            })
        },
    )
    .build()
}

fn to_string_cut_to_zero() -> ScalarUDF {
    ScalarDef::new(
        "toStringCutToZero",
        Arity::exact(1),
        |ctx| match ctx.dt(0) {
            DataType::Utf8 | DataType::FixedSizeBinary(_) => Ok(ChType::String),
            _ => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument of function toStringCutToZero", ctx.ch(0)))),
        },
        |ctx| {
            let input = ctx.array(0)?;
            let cut = |bytes: &[u8]| -> String {
                let end = memchr::memchr(0, bytes).unwrap_or(bytes.len());
                String::from_utf8_lossy(&bytes[..end]).into_owned()
            };
            let out: StringArray = match input.data_type() {
                DataType::FixedSizeBinary(_) => input.as_fixed_size_binary().iter().map(|v| v.map(cut)).collect(),
                _ => input.as_string::<i32>().iter().map(|v| v.map(|s| cut(s.as_bytes()))).collect(),
            };
            Ok(Arc::new(out) as ArrayRef)
        },
    )
    .build()
}

/// ClickHouse's `UTF8::computeWidth`: tabs advance to the next multiple of 8, control
/// characters take no room, wide (East Asian) characters two columns.
fn visible_text_width(text: &str) -> u64 {
    let mut width = 0u64;
    for c in text.chars() {
        width += match c {
            '\t' => 8 - width % 8,
            c if (c as u32) < 0x20 || c == '\u{7f}' => 0,
            c if c.is_ascii() => 1,
            c => unicode_width::UnicodeWidthChar::width(c).unwrap_or(0) as u64,
        };
    }
    width
}

fn visible_width() -> ScalarUDF {
    ScalarDef::new(
        "visibleWidth",
        Arity::exact(1),
        |_| Ok(ChType::UInt64),
        |ctx| {
            let array = ctx.array(0)?;
            let ch = ctx.ch(0);
            let format = FormatCtx::from_config(ctx.config)?;
            let mut text = String::new();
            let mut widths = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                text.clear();
                write_value(array.as_ref(), &ch, row, false, &format, &mut text)?;
                widths.push(visible_text_width(&text));
            }
            Ok(Arc::new(UInt64Array::from(widths)) as ArrayRef)
        },
    )
    .custom_nulls()
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar_text(x: f64, min: f64, max: f64, width: f64) -> String {
        let mut s = String::new();
        render_bar(bar_width(x, min, max, width), &mut s);
        s
    }

    #[test]
    fn bars_use_eighth_blocks_as_clickhouse() {
        assert_eq!(bar_text(2.5, 0.0, 10.0, 7.0), "█▊");
        assert_eq!(bar_text(0.3, 0.0, 10.0, 10.0), "▎");
        assert_eq!(bar_text(0.0625, 0.0, 1.0, 1.0), "");
        assert_eq!(bar_text(1.0, 10.0, 0.0, 5.0), "");
        assert_eq!(bar_text(f64::NAN, 0.0, 10.0, 5.0), "");
        assert_eq!(bar_text(15.0, 0.0, 10.0, 1.5), "█▌");
    }

    #[test]
    fn visible_width_expands_tabs_and_counts_wide_characters() {
        assert_eq!(visible_text_width("abcdefgh\tb"), 17);
        assert_eq!(visible_text_width("a\tb"), 9);
        assert_eq!(visible_text_width("a\nb"), 2);
        assert_eq!(visible_text_width("中文"), 4);
        assert_eq!(visible_text_width("é"), 1);
    }
}
