//! ClickHouse's text rules for single values, per escaping style.
//!
//! A [`ValueWriter`] is built once per column and batch (types resolved, arrays
//! downcast), then writes row after row without further dispatch on the type.

use std::sync::Arc;

use arrow::array::*;
use arrow::datatypes::{DataType, Field, TimeUnit};
use chrono::{DateTime, NaiveDate, TimeZone};
use chrono_tz::Tz;
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

/// How values are escaped and quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// TabSeparated: backslash escapes, strings unquoted.
    Tsv,
    /// TabSeparatedRaw: no escaping.
    Raw,
    /// CSV: strings, dates and arrays in double quotes.
    Csv,
    /// JSON: JSON strings, numbers bare.
    Json,
    /// Values and nested values in TSV/CSV: strings in single quotes.
    Quoted,
    /// Pretty formats: like Raw, NULL shown as ᴺᵁᴸᴸ.
    Pretty,
}

#[derive(Debug, Clone)]
pub struct TextOptions {
    pub timezone: Tz,
    pub json_quote_64bit_integers: bool,
    pub json_quote_denormals: bool,
    pub json_escape_forward_slashes: bool,
    pub csv_delimiter: u8,
}

type WriteFn = Box<dyn Fn(usize, &mut Vec<u8>) + Send + Sync>;

/// Writes the values of one column.
pub struct ValueWriter {
    write: WriteFn,
    nulls: Option<arrow::buffer::NullBuffer>,
    null_text: &'static [u8],
}

impl ValueWriter {
    pub fn new(field: &Field, array: &ArrayRef, style: Style, options: &TextOptions) -> Result<Self> {
        let ch_type = ChType::from_field(field);
        let null_text: &'static [u8] = match style {
            Style::Tsv | Style::Csv | Style::Raw => b"\\N",
            Style::Json => b"null",
            Style::Quoted => b"NULL",
            Style::Pretty => "ᴺᵁᴸᴸ".as_bytes(),
        };
        let write = make_writer(ch_type.strip_nullable(), array, style, options)?;
        Ok(ValueWriter { write, nulls: array.logical_nulls(), null_text })
    }

    pub fn write(&self, row: usize, out: &mut Vec<u8>) {
        if self.nulls.as_ref().is_some_and(|n| n.is_null(row)) {
            out.extend_from_slice(self.null_text);
        } else {
            (self.write)(row, out);
        }
    }

    /// Whether ClickHouse right-aligns this column in Pretty formats (numbers).
    pub fn is_numeric(field: &Field) -> bool {
        matches!(
            ChType::from_field(field).base(),
            ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64
                | ChType::Float32 | ChType::Float64 | ChType::Decimal(..)
        )
    }
}

fn downcast<T: 'static + Clone>(array: &ArrayRef) -> Result<T> {
    array
        .as_any()
        .downcast_ref::<T>()
        .cloned()
        .ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, format!("Unexpected array type {} for output", array.data_type())))
}

/// Arrays nested in TSV/CSV/Values are written in quoted style; in JSON they stay JSON.
fn nested_style(style: Style) -> Style {
    match style {
        Style::Json => Style::Json,
        _ => Style::Quoted,
    }
}

fn make_writer(t: &ChType, array: &ArrayRef, style: Style, options: &TextOptions) -> Result<WriteFn> {
    macro_rules! ints {
        ($arr:ty, $quote64:expr) => {{
            let a: $arr = downcast(array)?;
            let quote = style == Style::Json && $quote64 && options.json_quote_64bit_integers;
            Box::new(move |row, out: &mut Vec<u8>| {
                let mut buf = itoa_buf(a.value(row));
                if quote {
                    out.push(b'"');
                    out.append(&mut buf);
                    out.push(b'"');
                } else {
                    out.append(&mut buf);
                }
            })
        }};
    }
    let json = style == Style::Json;
    Ok(match (t, array.data_type()) {
        (_, DataType::Null) => Box::new(move |_, out: &mut Vec<u8>| out.extend_from_slice(if json { b"null" } else { b"\\N" })),
        (_, DataType::UInt8) => ints!(UInt8Array, false),
        (_, DataType::UInt16) => ints!(UInt16Array, false),
        (_, DataType::UInt32) => ints!(UInt32Array, false),
        (_, DataType::UInt64) => ints!(UInt64Array, true),
        (_, DataType::Int8) => ints!(Int8Array, false),
        (_, DataType::Int16) => ints!(Int16Array, false),
        (_, DataType::Int32) => ints!(Int32Array, false),
        (_, DataType::Int64) => ints!(Int64Array, true),
        (_, DataType::Float32) => {
            let a: Float32Array = downcast(array)?;
            let denormals = options.json_quote_denormals;
            Box::new(move |row, out: &mut Vec<u8>| write_float(a.value(row) as f64, Some(a.value(row)), json, denormals, out))
        }
        (_, DataType::Float64) => {
            let a: Float64Array = downcast(array)?;
            let denormals = options.json_quote_denormals;
            Box::new(move |row, out: &mut Vec<u8>| write_float(a.value(row), None, json, denormals, out))
        }
        (_, DataType::Boolean) => {
            let a: BooleanArray = downcast(array)?;
            Box::new(move |row, out: &mut Vec<u8>| out.extend_from_slice(if a.value(row) { b"true" } else { b"false" }))
        }
        (_, DataType::Utf8) => {
            let a: StringArray = downcast(array)?;
            Box::new(move |row, out: &mut Vec<u8>| write_string(a.value(row).as_bytes(), style, out))
        }
        (_, DataType::LargeUtf8) => {
            let a: LargeStringArray = downcast(array)?;
            Box::new(move |row, out: &mut Vec<u8>| write_string(a.value(row).as_bytes(), style, out))
        }
        (_, DataType::Utf8View) => {
            let a: StringViewArray = downcast(array)?;
            Box::new(move |row, out: &mut Vec<u8>| write_string(a.value(row).as_bytes(), style, out))
        }
        (_, DataType::Binary) => {
            let a: BinaryArray = downcast(array)?;
            Box::new(move |row, out: &mut Vec<u8>| write_string(a.value(row), style, out))
        }
        (ChType::Uuid, DataType::FixedSizeBinary(16)) => {
            let a: FixedSizeBinaryArray = downcast(array)?;
            Box::new(move |row, out: &mut Vec<u8>| {
                let text = format_uuid(a.value(row));
                write_plain_quoted(text.as_bytes(), style, out);
            })
        }
        (_, DataType::FixedSizeBinary(_)) => {
            let a: FixedSizeBinaryArray = downcast(array)?;
            Box::new(move |row, out: &mut Vec<u8>| write_string(a.value(row), style, out))
        }
        (_, DataType::Date32) => {
            let a: Date32Array = downcast(array)?;
            Box::new(move |row, out: &mut Vec<u8>| {
                let text = format_date(a.value(row));
                write_plain_quoted(text.as_bytes(), style, out);
            })
        }
        (_, DataType::Timestamp(unit, tz)) => {
            let tz: Tz = match tz {
                Some(name) => name.parse().unwrap_or(options.timezone),
                None => options.timezone,
            };
            let precision = match t {
                ChType::DateTime64(p, _) => *p as u32,
                ChType::DateTime(_) => 0,
                _ => match unit {
                    TimeUnit::Second => 0,
                    TimeUnit::Millisecond => 3,
                    TimeUnit::Microsecond => 6,
                    TimeUnit::Nanosecond => 9,
                },
            };
            let per_second: i64 = match unit {
                TimeUnit::Second => 1,
                TimeUnit::Millisecond => 1_000,
                TimeUnit::Microsecond => 1_000_000,
                TimeUnit::Nanosecond => 1_000_000_000,
            };
            let values = array.to_data().buffers()[0].typed_data::<i64>().to_vec();
            let offset = array.offset();
            Box::new(move |row, out: &mut Vec<u8>| {
                let text = format_datetime(values[offset + row], per_second, precision, &tz);
                write_plain_quoted(text.as_bytes(), style, out);
            })
        }
        (_, DataType::Decimal128(_, scale)) => {
            let a: Decimal128Array = downcast(array)?;
            let scale = *scale;
            Box::new(move |row, out: &mut Vec<u8>| out.extend_from_slice(format_decimal(a.value(row), scale).as_bytes()))
        }
        (_, DataType::Decimal256(_, scale)) => {
            let a: Decimal256Array = downcast(array)?;
            let scale = *scale;
            Box::new(move |row, out: &mut Vec<u8>| {
                let text = a.value(row).to_string();
                out.extend_from_slice(insert_decimal_point(&text, scale).as_bytes())
            })
        }
        (_, DataType::List(_)) => {
            let a: ListArray = downcast(array)?;
            let inner_type = match t {
                ChType::Array(inner) => (**inner).clone(),
                _ => ChType::from_arrow(&a.value_type(), true),
            };
            let values = a.values().clone();
            let item_field = Field::new("item", values.data_type().clone(), true);
            let item_field = match &inner_type {
                ChType::Nullable(_) => item_field,
                other => other.to_arrow_field("item").with_nullable(true),
            };
            let inner = ValueWriter::new(&item_field, &values, nested_style(style), options)?;
            let offsets = a.offsets().clone();
            Box::new(move |row, out: &mut Vec<u8>| {
                let mut text = Vec::new();
                text.push(b'[');
                let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
                for (k, i) in (start..end).enumerate() {
                    if k > 0 {
                        text.push(b',');
                    }
                    inner.write(i, &mut text);
                }
                text.push(b']');
                write_composite(&text, style, out);
            })
        }
        (_, DataType::Struct(fields)) => {
            let a: StructArray = downcast(array)?;
            let writers = fields
                .iter()
                .zip(a.columns())
                .map(|(f, c)| ValueWriter::new(f, c, nested_style(style), options))
                .collect::<Result<Vec<_>>>()?;
            Box::new(move |row, out: &mut Vec<u8>| {
                let mut text = Vec::new();
                text.push(if json { b'[' } else { b'(' });
                for (k, w) in writers.iter().enumerate() {
                    if k > 0 {
                        text.push(b',');
                    }
                    w.write(row, &mut text);
                }
                text.push(if json { b']' } else { b')' });
                write_composite(&text, style, out);
            })
        }
        (_, DataType::Map(_, _)) => {
            let a: MapArray = downcast(array)?;
            let keys = ValueWriter::new(&Field::new("k", a.keys().data_type().clone(), true), a.keys(), Style::Quoted, options)?;
            let vals = ValueWriter::new(&Field::new("v", a.values().data_type().clone(), true), a.values(), nested_style(style), options)?;
            let offsets = a.offsets().clone();
            Box::new(move |row, out: &mut Vec<u8>| {
                let mut text = Vec::new();
                text.push(b'{');
                for (k, i) in (offsets[row] as usize..offsets[row + 1] as usize).enumerate() {
                    if k > 0 {
                        text.push(b',');
                    }
                    if json {
                        let mut key = Vec::new();
                        keys.write(i, &mut key);
                        let inner = key.strip_prefix(b"'").and_then(|k| k.strip_suffix(b"'")).unwrap_or(&key);
                        write_string(inner, Style::Json, &mut text);
                    } else {
                        keys.write(i, &mut text);
                    }
                    text.push(b':');
                    vals.write(i, &mut text);
                }
                text.push(b'}');
                write_composite(&text, style, out);
            })
        }
        (_, DataType::Dictionary(_, _)) => {
            let plain = arrow::compute::cast(array, &t.to_arrow())?;
            let inner = ValueWriter::new(&t.to_arrow_field("v"), &plain, style, options)?;
            Box::new(move |row, out: &mut Vec<u8>| inner.write(row, out))
        }
        (_, other) => {
            // Types without a ClickHouse text rule of their own are shown through Arrow's
            // display, which at least never loses the value.
            let formatter_array = array.clone();
            let _ = other;
            Box::new(move |row, out: &mut Vec<u8>| {
                let options = arrow::util::display::FormatOptions::default();
                if let Ok(f) = arrow::util::display::ArrayFormatter::try_new(formatter_array.as_ref(), &options) {
                    write_string(f.value(row).to_string().as_bytes(), style, out);
                }
            })
        }
    })
}

fn itoa_buf<T: std::fmt::Display>(v: T) -> Vec<u8> {
    v.to_string().into_bytes()
}

/// Dates, times and UUIDs: bare in TSV and Pretty, quoted in CSV, JSON and Values.
fn write_plain_quoted(text: &[u8], style: Style, out: &mut Vec<u8>) {
    match style {
        Style::Csv | Style::Json => {
            out.push(b'"');
            out.extend_from_slice(text);
            out.push(b'"');
        }
        Style::Quoted => {
            out.push(b'\'');
            out.extend_from_slice(text);
            out.push(b'\'');
        }
        _ => out.extend_from_slice(text),
    }
}

/// Arrays, tuples and maps: their text (elements already escaped in quoted style), quoted
/// as a whole only in CSV.
fn write_composite(text: &[u8], style: Style, out: &mut Vec<u8>) {
    match style {
        Style::Csv => write_string(text, Style::Csv, out),
        _ => out.extend_from_slice(text),
    }
}

pub fn write_string(bytes: &[u8], style: Style, out: &mut Vec<u8>) {
    match style {
        Style::Tsv => escape_tsv(bytes, out),
        Style::Raw | Style::Pretty => out.extend_from_slice(bytes),
        Style::Csv => {
            out.push(b'"');
            for &b in bytes {
                if b == b'"' {
                    out.push(b'"');
                }
                out.push(b);
            }
            out.push(b'"');
        }
        Style::Quoted => {
            out.push(b'\'');
            for &b in bytes {
                match b {
                    b'\'' => out.extend_from_slice(b"\\'"),
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    b'\t' => out.extend_from_slice(b"\\t"),
                    b'\n' => out.extend_from_slice(b"\\n"),
                    b'\r' => out.extend_from_slice(b"\\r"),
                    b'\0' => out.extend_from_slice(b"\\0"),
                    0x08 => out.extend_from_slice(b"\\b"),
                    0x0c => out.extend_from_slice(b"\\f"),
                    other => out.push(other),
                }
            }
            out.push(b'\'');
        }
        Style::Json => write_json_string(bytes, true, out),
    }
}

pub fn write_json_string(bytes: &[u8], escape_slashes: bool, out: &mut Vec<u8>) {
    out.push(b'"');
    let text = String::from_utf8_lossy(bytes);
    for c in text.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '/' if escape_slashes => out.extend_from_slice(b"\\/"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            c if (c as u32) < 0x20 => out.extend_from_slice(format!("\\u{:04X}", c as u32).as_bytes()),
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

pub fn escape_tsv(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        match b {
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\0' => out.extend_from_slice(b"\\0"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            other => out.push(other),
        }
    }
}

/// ClickHouse prints floats in the shortest form that reads back exactly, positionally
/// for decimal exponents from -6 to 20 and as `1e21` / `1.5e-7` outside that range.
pub fn format_float(value: f64, as_f32: Option<f32>) -> String {
    if value.is_nan() {
        return "nan".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let scientific = match as_f32 {
        Some(v) => format!("{v:e}"),
        None => format!("{value:e}"),
    };
    let exponent: i32 = scientific.rsplit_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    if value == 0.0 {
        return if value.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    if (-6..21).contains(&exponent) {
        match as_f32 {
            Some(v) => format!("{v}"),
            None => format!("{value}"),
        }
    } else {
        scientific
    }
}

fn write_float(value: f64, as_f32: Option<f32>, json: bool, quote_denormals: bool, out: &mut Vec<u8>) {
    if json && !value.is_finite() {
        if quote_denormals {
            out.push(b'"');
            out.extend_from_slice(format_float(value, as_f32).as_bytes());
            out.push(b'"');
        } else {
            out.extend_from_slice(b"null");
        }
        return;
    }
    out.extend_from_slice(format_float(value, as_f32).as_bytes());
}

pub fn format_date(days: i32) -> String {
    match NaiveDate::from_ymd_opt(1970, 1, 1).and_then(|d| d.checked_add_signed(chrono::Duration::days(days as i64))) {
        Some(d) => d.format("%Y-%m-%d").to_string(),
        None => "1970-01-01".into(),
    }
}

pub fn format_datetime(value: i64, per_second: i64, precision: u32, tz: &Tz) -> String {
    let secs = value.div_euclid(per_second);
    let fraction = value.rem_euclid(per_second);
    let base = match DateTime::from_timestamp(secs, 0) {
        Some(utc) => tz.from_utc_datetime(&utc.naive_utc()).format("%Y-%m-%d %H:%M:%S").to_string(),
        None => "1970-01-01 00:00:00".into(),
    };
    if precision == 0 {
        return base;
    }
    // The stored unit may be finer than the precision (DateTime64(1) in milliseconds).
    let unit_digits = (per_second as f64).log10().round() as u32;
    let digits = if unit_digits >= precision {
        fraction / 10i64.pow(unit_digits - precision)
    } else {
        fraction * 10i64.pow(precision - unit_digits)
    };
    format!("{base}.{digits:0width$}", width = precision as usize)
}

/// Decimals without trailing zeros (ClickHouse's output_format_decimal_trailing_zeros = 0).
pub fn format_decimal(value: i128, scale: i8) -> String {
    insert_decimal_point(&value.to_string(), scale)
}

fn insert_decimal_point(digits: &str, scale: i8) -> String {
    if scale <= 0 {
        return digits.to_string();
    }
    let (negative, digits) = match digits.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, digits),
    };
    let scale = scale as usize;
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    let frac = frac.trim_end_matches('0');
    let sign = if negative { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

pub fn format_uuid(bytes: &[u8]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if hex.len() != 32 {
        return hex;
    }
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

/// Used by tests and the Pretty writer: a column's values as display strings.
pub fn display_width(text: &str) -> usize {
    text.chars().count()
}

pub fn arc_field(field: &Field) -> Arc<Field> {
    Arc::new(field.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_like_clickhouse() {
        assert_eq!(format_float(1e21, None), "1e21");
        assert_eq!(format_float(1e20, None), "100000000000000000000");
        assert_eq!(format_float(1.5e-7, None), "1.5e-7");
        assert_eq!(format_float(0.000001, None), "0.000001");
        assert_eq!(format_float(123456789.125, None), "123456789.125");
        assert_eq!(format_float(0.1f32 as f64, Some(0.1f32)), "0.1");
        assert_eq!(format_float(-0.0, None), "-0");
        assert_eq!(format_float(f64::NAN, None), "nan");
        assert_eq!(format_float(f64::NEG_INFINITY, None), "-inf");
        assert_eq!(format_float(1.0 / 3.0, None), "0.3333333333333333");
        assert_eq!(format_float(2.5e25, None), "2.5e25");
        assert_eq!(format_float(100.0, None), "100");
    }

    #[test]
    fn decimals_and_dates() {
        assert_eq!(format_decimal(1500, 3), "1.5");
        assert_eq!(format_decimal(-5, 2), "-0.05");
        assert_eq!(format_decimal(100, 2), "1");
        assert_eq!(format_date(0), "1970-01-01");
        assert_eq!(format_date(19724), "2024-01-02");
        let tz: Tz = "UTC".parse().unwrap();
        assert_eq!(format_datetime(1704164645123, 1000, 3, &tz), "2024-01-02 03:04:05.123");
        assert_eq!(format_datetime(1704164645100, 1000, 1, &tz), "2024-01-02 03:04:05.1");
    }

    #[test]
    fn escaping() {
        let mut out = Vec::new();
        escape_tsv(b"a\tb\nc\\d'e", &mut out);
        assert_eq!(out, b"a\\tb\\nc\\\\d\\'e");
        let mut out = Vec::new();
        write_string(b"a\"b", Style::Csv, &mut out);
        assert_eq!(out, b"\"a\"\"b\"");
        let mut out = Vec::new();
        write_string(b"a/b\0", Style::Json, &mut out);
        assert_eq!(out, b"\"a\\/b\\u0000\"");
    }
}
