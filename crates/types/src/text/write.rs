//! [`ColumnWriter`]: the text of the values of one column, in one style.

use std::io::Write as _;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BinaryViewArray, FixedSizeBinaryArray, LargeBinaryArray, LargeStringArray, StringArray,
    StringViewArray,
};
use arrow::buffer::{BooleanBuffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{
    i256, DataType, Date32Type, Date64Type, Decimal128Type, Decimal256Type, Decimal32Type, Decimal64Type, Field, Float32Type,
    Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use granary_common::{Error, ErrorCode, Result};

use super::datetime::{write_date, write_fraction, write_local_datetime, Zone};
use super::escape::{csv_quote_tail, write_csv_quoted, write_json_string, write_quoted, write_tsv_escaped, write_xml_escaped};
use super::float::{write_f32, write_f64};
use super::{TextOptions, TextStyle};
use crate::ChType;

/// The string-like arrays, read as bytes.
enum Strings {
    Utf8(StringArray),
    LargeUtf8(LargeStringArray),
    Utf8View(StringViewArray),
    Binary(BinaryArray),
    LargeBinary(LargeBinaryArray),
    BinaryView(BinaryViewArray),
    Fixed(FixedSizeBinaryArray),
}

impl Strings {
    #[inline]
    fn value(&self, row: usize) -> &[u8] {
        match self {
            Strings::Utf8(a) => a.value(row).as_bytes(),
            Strings::LargeUtf8(a) => a.value(row).as_bytes(),
            Strings::Utf8View(a) => a.value(row).as_bytes(),
            Strings::Binary(a) => a.value(row),
            Strings::LargeBinary(a) => a.value(row),
            Strings::BinaryView(a) => a.value(row),
            Strings::Fixed(a) => a.value(row),
        }
    }
}

/// Element ranges of list-like arrays.
enum Offsets {
    I32(OffsetBuffer<i32>),
    I64(OffsetBuffer<i64>),
    Fixed(usize),
}

impl Offsets {
    #[inline]
    fn range(&self, row: usize) -> std::ops::Range<usize> {
        match self {
            Offsets::I32(o) => o[row] as usize..o[row + 1] as usize,
            Offsets::I64(o) => o[row] as usize..o[row + 1] as usize,
            Offsets::Fixed(n) => row * n..(row + 1) * n,
        }
    }
}

enum Decimals {
    D32(ScalarBuffer<i32>),
    D64(ScalarBuffer<i64>),
    D128(ScalarBuffer<i128>),
    D256(ScalarBuffer<i256>),
}

/// A column prepared for writing: the downcast values and what the type needs.
enum Kind {
    /// `Nothing`: every value is NULL.
    Nothing,
    I8(ScalarBuffer<i8>),
    I16(ScalarBuffer<i16>),
    I32(ScalarBuffer<i32>),
    I64(ScalarBuffer<i64>),
    U8(ScalarBuffer<u8>),
    U16(ScalarBuffer<u16>),
    U32(ScalarBuffer<u32>),
    U64(ScalarBuffer<u64>),
    F32(ScalarBuffer<f32>),
    F64(ScalarBuffer<f64>),
    Bool(BooleanBuffer),
    Str(Strings),
    Uuid(FixedSizeBinaryArray),
    /// Enum values (widened to i16) and the name of each value.
    Enum { values: Vec<i16>, names: std::collections::HashMap<i16, String> },
    IPv4(ScalarBuffer<u32>),
    IPv6(FixedSizeBinaryArray),
    /// Days since the epoch.
    Date(ScalarBuffer<i32>),
    /// Milliseconds since the epoch (Arrow `Date64`).
    Date64(ScalarBuffer<i64>),
    DateTime {
        values: ScalarBuffer<i64>,
        zone: Zone,
        /// Units of the Arrow value per second (1, 1e3, 1e6, 1e9).
        per_second: i64,
        /// Decimal digits of the Arrow unit (0, 3, 6, 9).
        unit_digits: u32,
        /// Fraction digits printed: the `DateTime64` precision.
        precision: u32,
    },
    /// A `Variant`: each row's value is written by the writer of its type (`which`:
    /// the index of the row's non-NULL child; NULL rows are the struct's nulls).
    Variant {
        children: Vec<ColumnWriter>,
        which: Vec<u8>,
    },
    /// `Time`/`Time64` values in Arrow units of `nanos_per_unit` nanoseconds.
    Time {
        values: ScalarBuffer<i64>,
        nanos_per_unit: i64,
        precision: u32,
    },
    Decimal {
        values: Decimals,
        scale: u32,
    },
    /// `Int128`..`UInt256`, widened to 256-bit words.
    Wide {
        kind: crate::wide::WideInt,
        values: ScalarBuffer<i256>,
    },
    List {
        offsets: Offsets,
        child: Box<ColumnWriter>,
    },
    Tuple {
        children: Vec<ColumnWriter>,
        /// JSON object keys (already escaped, quoted, with the colon) of a named tuple in
        /// JSON; `None` writes the tuple as `(..)` or a JSON array.
        json_keys: Option<Vec<Vec<u8>>>,
    },
    Map {
        offsets: OffsetBuffer<i32>,
        keys: Box<ColumnWriter>,
        values: Box<ColumnWriter>,
        /// In JSON, keys that are not strings are written raw inside quotes.
        json_quote_keys: bool,
    },
    /// Types without a ClickHouse text rule: Arrow's display, escaped as a string.
    Fallback(ArrayRef),
}

/// Writes the values of one column in one [`TextStyle`]. Built once per column (and
/// batch): everything that depends on the type only is resolved here.
pub struct ColumnWriter {
    kind: Kind,
    nulls: Option<NullBuffer>,
    style: TextStyle,
    null_text: &'static [u8],
    /// JSON: 64-bit integers in quotes.
    quote_64bit: bool,
    /// JSON: nan/inf as quoted strings instead of null.
    quote_denormals: bool,
    /// JSON: decimals in quotes.
    quote_decimals: bool,
    json_escape_slash: bool,
    decimal_trailing_zeros: bool,
    csv_delimiter: u8,
    len: usize,
}

fn logical_error(what: String) -> Error {
    Error::new(ErrorCode::LOGICAL_ERROR, what)
}

impl ColumnWriter {
    /// A writer for `array`, whose ClickHouse type is `field`'s (see [`ChType::from_field`]).
    pub fn new(field: &Field, array: &ArrayRef, style: TextStyle, opts: &TextOptions) -> Result<Self> {
        Self::with_type(&ChType::from_field(field), array, style, opts)
    }

    /// A writer for `array` holding values of the ClickHouse type `ch_type`.
    pub fn with_type(ch_type: &ChType, array: &ArrayRef, style: TextStyle, opts: &TextOptions) -> Result<Self> {
        let kind = make_kind(ch_type, array, style, opts)?;
        Ok(ColumnWriter {
            kind,
            nulls: array.logical_nulls(),
            style,
            null_text: style.null_text(),
            quote_64bit: style == TextStyle::Json && opts.json_quote_64bit_integers,
            quote_denormals: opts.json_quote_denormals,
            quote_decimals: style == TextStyle::Json && opts.json_quote_decimals,
            json_escape_slash: opts.json_escape_forward_slashes,
            decimal_trailing_zeros: opts.decimal_trailing_zeros,
            csv_delimiter: opts.csv_delimiter,
            len: array.len(),
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn style(&self) -> TextStyle {
        self.style
    }

    #[inline]
    pub fn is_null(&self, row: usize) -> bool {
        matches!(self.kind, Kind::Nothing) || self.nulls.as_ref().is_some_and(|n| n.is_null(row))
    }

    /// Appends the text of row `row`.
    pub fn write(&self, row: usize, out: &mut Vec<u8>) {
        if self.is_null(row) {
            out.extend_from_slice(self.null_text);
            return;
        }
        match &self.kind {
            Kind::Nothing => out.extend_from_slice(self.null_text),
            Kind::I8(v) => self.int(v[row], false, out),
            Kind::I16(v) => self.int(v[row], false, out),
            Kind::I32(v) => self.int(v[row], false, out),
            Kind::I64(v) => self.int(v[row], self.quote_64bit, out),
            Kind::U8(v) => self.int(v[row], false, out),
            Kind::U16(v) => self.int(v[row], false, out),
            Kind::U32(v) => self.int(v[row], false, out),
            Kind::U64(v) => self.int(v[row], self.quote_64bit, out),
            Kind::F32(v) => self.float(v[row] as f64, |o| write_f32(v[row], o), out),
            Kind::F64(v) => self.float(v[row], |o| write_f64(v[row], o), out),
            Kind::Bool(v) => out.extend_from_slice(if v.value(row) { b"true" } else { b"false" }),
            Kind::Str(s) => self.string(s.value(row), out),
            Kind::Uuid(a) => self.quoted_plain(out, |o| write_uuid(a.value(row), o)),
            Kind::Enum { values, names } => match names.get(&values[row]) {
                Some(name) => self.string(name.as_bytes(), out),
                // Not an element (only a corrupt value can be): its number.
                None => self.int(values[row], false, out),
            },
            Kind::IPv4(v) => self.quoted_plain(out, |o| o.extend_from_slice(crate::ip::format_ipv4(v[row]).as_bytes())),
            Kind::IPv6(a) => self.quoted_plain(out, |o| {
                let bytes: [u8; 16] = a.value(row).try_into().unwrap_or([0; 16]);
                o.extend_from_slice(crate::ip::format_ipv6(&bytes).as_bytes())
            }),
            Kind::Date(v) => self.quoted_plain(out, |o| write_date(v[row] as i64, o)),
            Kind::Date64(v) => self.quoted_plain(out, |o| write_date(v[row].div_euclid(86_400_000), o)),
            Kind::DateTime { values, zone, per_second, unit_digits, precision } => {
                let value = values[row];
                self.quoted_plain(out, |o| {
                    let seconds = value.div_euclid(*per_second);
                    write_local_datetime(zone.to_local(seconds), o);
                    if *precision > 0 {
                        let fraction = value.rem_euclid(*per_second) as u64;
                        let scaled = if *unit_digits >= *precision {
                            fraction / 10u64.pow(unit_digits - precision)
                        } else {
                            fraction * 10u64.pow(precision - unit_digits)
                        };
                        write_fraction(scaled, *precision, o);
                    }
                })
            }
            Kind::Variant { children, which } => match children.get(usize::from(which[row])) {
                Some(child) => child.write(row, out),
                None => out.extend_from_slice(self.null_text),
            },
            Kind::Time { values, nanos_per_unit, precision } => {
                let nanos = values[row].saturating_mul(*nanos_per_unit);
                self.quoted_plain(out, |o| super::time::write_time(nanos, *precision, o))
            }
            Kind::Wide { kind, values } => {
                if self.quote_64bit {
                    out.push(b'"');
                }
                kind.write(values[row], out);
                if self.quote_64bit {
                    out.push(b'"');
                }
            }
            Kind::Decimal { values, scale } => {
                let text;
                let mut buf = itoa::Buffer::new();
                let digits: &str = match values {
                    Decimals::D32(v) => buf.format(v[row]),
                    Decimals::D64(v) => buf.format(v[row]),
                    Decimals::D128(v) => buf.format(v[row]),
                    Decimals::D256(v) => {
                        text = v[row].to_string();
                        &text
                    }
                };
                if self.quote_decimals {
                    out.push(b'"');
                }
                write_decimal(digits.as_bytes(), *scale, self.decimal_trailing_zeros, out);
                if self.quote_decimals {
                    out.push(b'"');
                }
            }
            Kind::List { offsets, child } if self.style == TextStyle::Xml => {
                out.extend_from_slice(b"<array>");
                for i in offsets.range(row) {
                    out.extend_from_slice(b"<elem>");
                    child.write(i, out);
                    out.extend_from_slice(b"</elem>");
                }
                out.extend_from_slice(b"</array>");
            }
            Kind::List { offsets, child } => {
                let start = out.len();
                out.push(b'[');
                for (k, i) in offsets.range(row).enumerate() {
                    if k > 0 {
                        out.push(b',');
                    }
                    child.write(i, out);
                }
                out.push(b']');
                if self.style == TextStyle::Csv {
                    csv_quote_tail(out, start);
                }
            }
            Kind::Tuple { children, .. } if self.style == TextStyle::Xml => {
                out.extend_from_slice(b"<tuple>");
                for child in children {
                    out.extend_from_slice(b"<elem>");
                    child.write(row, out);
                    out.extend_from_slice(b"</elem>");
                }
                out.extend_from_slice(b"</tuple>");
            }
            Kind::Tuple { children, json_keys } => {
                if self.style == TextStyle::Csv {
                    // ClickHouse writes a tuple in CSV as separate fields
                    // (output_format_csv_serialize_tuple_into_separate_columns).
                    for (k, child) in children.iter().enumerate() {
                        if k > 0 {
                            out.push(self.csv_delimiter);
                        }
                        child.write(row, out);
                    }
                    return;
                }
                match json_keys {
                    Some(keys) => {
                        out.push(b'{');
                        for (k, (child, key)) in children.iter().zip(keys).enumerate() {
                            if k > 0 {
                                out.push(b',');
                            }
                            out.extend_from_slice(key);
                            child.write(row, out);
                        }
                        out.push(b'}');
                    }
                    None => {
                        let json = self.style == TextStyle::Json;
                        out.push(if json { b'[' } else { b'(' });
                        for (k, child) in children.iter().enumerate() {
                            if k > 0 {
                                out.push(b',');
                            }
                            child.write(row, out);
                        }
                        out.push(if json { b']' } else { b')' });
                    }
                }
            }
            Kind::Map { offsets, keys, values, .. } if self.style == TextStyle::Xml => {
                out.extend_from_slice(b"<map>");
                for i in offsets[row] as usize..offsets[row + 1] as usize {
                    out.extend_from_slice(b"<elem><key>");
                    keys.write(i, out);
                    out.extend_from_slice(b"</key><value>");
                    values.write(i, out);
                    out.extend_from_slice(b"</value></elem>");
                }
                out.extend_from_slice(b"</map>");
            }
            Kind::Map { offsets, keys, values, json_quote_keys } => {
                let start = out.len();
                out.push(b'{');
                for (k, i) in (offsets[row] as usize..offsets[row + 1] as usize).enumerate() {
                    if k > 0 {
                        out.push(b',');
                    }
                    if *json_quote_keys {
                        out.push(b'"');
                        keys.write(i, out);
                        out.push(b'"');
                    } else {
                        keys.write(i, out);
                    }
                    out.push(b':');
                    values.write(i, out);
                }
                out.push(b'}');
                if self.style == TextStyle::Csv {
                    csv_quote_tail(out, start);
                }
            }
            Kind::Fallback(array) => {
                let mut text = Vec::new();
                let options = arrow::util::display::FormatOptions::default();
                if let Ok(formatter) = arrow::util::display::ArrayFormatter::try_new(array.as_ref(), &options) {
                    let _ = write!(text, "{}", formatter.value(row));
                }
                self.string(&text, out);
            }
        }
    }

    /// Appends the text of row `row` the way ClickHouse's `JSON` format prints values of
    /// its row objects (`output_format_json_pretty_print`): tuples, maps and arrays of
    /// composites over several lines, indented with tabs one level deeper than `indent`;
    /// scalars and arrays of scalars as [`ColumnWriter::write`] does.
    pub fn write_json_pretty(&self, row: usize, indent: usize, out: &mut Vec<u8>) {
        self.write_json_pretty_with(row, indent, b"\t", out)
    }

    /// [`ColumnWriter::write_json_pretty`] with `unit` as one level of indentation
    /// (`PrettyJSONEachRow` indents with four spaces).
    pub fn write_json_pretty_with(&self, row: usize, indent: usize, unit: &[u8], out: &mut Vec<u8>) {
        if self.style != TextStyle::Json || self.is_null(row) {
            return self.write(row, out);
        }
        let tabs = |out: &mut Vec<u8>, n: usize| (0..n).for_each(|_| out.extend_from_slice(unit));
        match &self.kind {
            Kind::List { offsets, child } if child.is_composite() => {
                let range = offsets.range(row);
                if range.is_empty() {
                    out.extend_from_slice(b"[]");
                    return;
                }
                out.extend_from_slice(b"[\n");
                for (k, i) in range.enumerate() {
                    if k > 0 {
                        out.extend_from_slice(b",\n");
                    }
                    tabs(out, indent + 1);
                    child.write_json_pretty_with(i, indent + 1, unit, out);
                }
                out.push(b'\n');
                tabs(out, indent);
                out.push(b']');
            }
            Kind::Tuple { children, json_keys } => {
                let (open, close) = if json_keys.is_some() { (b'{', b'}') } else { (b'[', b']') };
                out.push(open);
                out.push(b'\n');
                for (k, child) in children.iter().enumerate() {
                    if k > 0 {
                        out.extend_from_slice(b",\n");
                    }
                    tabs(out, indent + 1);
                    if let Some(key) = json_keys.as_ref().and_then(|keys| keys.get(k)) {
                        // The key is stored with its colon; pretty printing adds a space.
                        out.extend_from_slice(key);
                        out.push(b' ');
                    }
                    child.write_json_pretty_with(row, indent + 1, unit, out);
                }
                out.push(b'\n');
                tabs(out, indent);
                out.push(close);
            }
            Kind::Map { offsets, keys, values, json_quote_keys } => {
                let range = offsets[row] as usize..offsets[row + 1] as usize;
                if range.is_empty() {
                    out.extend_from_slice(b"{}");
                    return;
                }
                out.extend_from_slice(b"{\n");
                for (k, i) in range.enumerate() {
                    if k > 0 {
                        out.extend_from_slice(b",\n");
                    }
                    tabs(out, indent + 1);
                    if *json_quote_keys {
                        out.push(b'"');
                        keys.write(i, out);
                        out.push(b'"');
                    } else {
                        keys.write(i, out);
                    }
                    out.extend_from_slice(b": ");
                    values.write_json_pretty_with(i, indent + 1, unit, out);
                }
                out.push(b'\n');
                tabs(out, indent);
                out.push(b'}');
            }
            _ => self.write(row, out),
        }
    }

    /// Arrays, tuples and maps.
    fn is_composite(&self) -> bool {
        matches!(self.kind, Kind::List { .. } | Kind::Tuple { .. } | Kind::Map { .. })
    }

    #[inline]
    fn int<T: itoa::Integer>(&self, value: T, quote: bool, out: &mut Vec<u8>) {
        let mut buf = itoa::Buffer::new();
        let text = buf.format(value).as_bytes();
        if quote {
            out.push(b'"');
            out.extend_from_slice(text);
            out.push(b'"');
        } else {
            out.extend_from_slice(text);
        }
    }

    #[inline]
    fn float(&self, value: f64, write: impl FnOnce(&mut Vec<u8>), out: &mut Vec<u8>) {
        if self.style == TextStyle::Json && !value.is_finite() {
            // JSON has no nan/inf: null, or a string with output_format_json_quote_denormals.
            if self.quote_denormals {
                out.push(b'"');
                write(out);
                out.push(b'"');
            } else {
                out.extend_from_slice(b"null");
            }
            return;
        }
        write(out);
    }

    #[inline]
    fn string(&self, bytes: &[u8], out: &mut Vec<u8>) {
        match self.style {
            TextStyle::Tsv => write_tsv_escaped(bytes, out),
            TextStyle::Csv => write_csv_quoted(bytes, out),
            TextStyle::Json => write_json_string(bytes, self.json_escape_slash, out),
            TextStyle::Quoted => write_quoted(bytes, out),
            TextStyle::Xml => write_xml_escaped(bytes, out),
            TextStyle::Raw | TextStyle::Pretty => out.extend_from_slice(bytes),
        }
    }

    /// Dates, times and UUIDs need no escaping, only quotes in some styles.
    #[inline]
    fn quoted_plain(&self, out: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) {
        let quote = match self.style {
            TextStyle::Csv | TextStyle::Json => Some(b'"'),
            TextStyle::Quoted => Some(b'\''),
            _ => None,
        };
        if let Some(q) = quote {
            out.push(q);
            write(out);
            out.push(q);
        } else {
            write(out);
        }
    }
}

/// `digits` is an integer's text (with a leading `-` if negative) of a decimal with
/// `scale` digits after the point.
fn write_decimal(digits: &[u8], scale: u32, trailing_zeros: bool, out: &mut Vec<u8>) {
    let (negative, digits) = match digits.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, digits),
    };
    let scale = scale as usize;
    if negative {
        out.push(b'-');
    }
    if scale == 0 {
        out.extend_from_slice(digits);
        return;
    }
    let (int_part, frac_part): (&[u8], &[u8]) =
        if digits.len() > scale { digits.split_at(digits.len() - scale) } else { (b"0", digits) };
    out.extend_from_slice(int_part);
    let leading_zeros = scale - frac_part.len();
    let kept = if trailing_zeros {
        frac_part.len()
    } else {
        frac_part.iter().rposition(|d| *d != b'0').map_or(0, |p| p + 1)
    };
    if kept == 0 {
        // A whole number: no point (`2`, not `2.`).
        return;
    }
    out.push(b'.');
    out.resize(out.len() + leading_zeros, b'0');
    out.extend_from_slice(&frac_part[..kept]);
}

const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";

/// `61f0c404-5cb3-11e7-907b-a6006ad3dba0`: the 16 bytes in order, as ClickHouse prints
/// UUIDs stored big-endian.
pub fn write_uuid(bytes: &[u8], out: &mut Vec<u8>) {
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push(b'-');
        }
        out.push(HEX_LOWER[(b >> 4) as usize]);
        out.push(HEX_LOWER[(b & 15) as usize]);
    }
}

/// The ClickHouse type of a nested column: the parent type's element type when it
/// matches the Arrow data, else what the Arrow field says.
fn child_type(declared: Option<&ChType>, field: &Field) -> ChType {
    match declared {
        Some(t) if t.to_arrow() == *field.data_type() => t.clone(),
        _ => ChType::from_field(field),
    }
}

fn make_kind(ch_type: &ChType, array: &ArrayRef, style: TextStyle, opts: &TextOptions) -> Result<Kind> {
    let t = ch_type.base();
    if let Some(elements) = t.enum_elements() {
        let values: Option<Vec<i16>> = match array.data_type() {
            DataType::Int8 => Some(array.as_primitive::<Int8Type>().values().iter().map(|&v| v as i16).collect()),
            DataType::Int16 => Some(array.as_primitive::<Int16Type>().values().to_vec()),
            _ => None,
        };
        if let Some(values) = values {
            let names = elements.iter().map(|(name, value)| (*value, name.clone())).collect();
            return Ok(Kind::Enum { values, names });
        }
    }
    if let Some(kind) = crate::wide::WideInt::of(t).filter(|w| w.arrow_type() == *array.data_type()) {
        return Ok(Kind::Wide { kind, values: kind.widen(array.as_ref())?.values().clone() });
    }
    if let (ChType::Variant(types), DataType::Struct(_)) = (t, array.data_type()) {
        let parts = array.as_struct();
        let mut children = Vec::with_capacity(types.len());
        let mut which = vec![u8::MAX; array.len()];
        for (i, (child_type, column)) in types.iter().zip(parts.columns()).enumerate() {
            children.push(ColumnWriter::with_type(child_type, column, style, opts)?);
            for (row, slot) in which.iter_mut().enumerate() {
                if column.is_valid(row) {
                    *slot = i as u8;
                }
            }
        }
        return Ok(Kind::Variant { children, which });
    }
    Ok(match array.data_type() {
        DataType::Null => Kind::Nothing,
        DataType::UInt32 if *t == ChType::IPv4 => Kind::IPv4(array.as_primitive::<UInt32Type>().values().clone()),
        DataType::FixedSizeBinary(16) if *t == ChType::IPv6 => Kind::IPv6(array.as_fixed_size_binary().clone()),
        DataType::Int8 => Kind::I8(array.as_primitive::<Int8Type>().values().clone()),
        DataType::Int16 => Kind::I16(array.as_primitive::<Int16Type>().values().clone()),
        DataType::Int32 => Kind::I32(array.as_primitive::<Int32Type>().values().clone()),
        DataType::Int64 => Kind::I64(array.as_primitive::<Int64Type>().values().clone()),
        DataType::UInt8 => Kind::U8(array.as_primitive::<UInt8Type>().values().clone()),
        DataType::UInt16 => Kind::U16(array.as_primitive::<UInt16Type>().values().clone()),
        DataType::UInt32 => Kind::U32(array.as_primitive::<UInt32Type>().values().clone()),
        DataType::UInt64 => Kind::U64(array.as_primitive::<UInt64Type>().values().clone()),
        DataType::Float16 => {
            let cast = arrow::compute::cast(array, &DataType::Float32)?;
            Kind::F32(cast.as_primitive::<Float32Type>().values().clone())
        }
        DataType::Float32 => Kind::F32(array.as_primitive::<Float32Type>().values().clone()),
        DataType::Float64 => Kind::F64(array.as_primitive::<Float64Type>().values().clone()),
        DataType::Boolean => Kind::Bool(array.as_boolean().values().clone()),
        DataType::Utf8 => Kind::Str(Strings::Utf8(array.as_string::<i32>().clone())),
        DataType::LargeUtf8 => Kind::Str(Strings::LargeUtf8(array.as_string::<i64>().clone())),
        DataType::Utf8View => Kind::Str(Strings::Utf8View(array.as_string_view().clone())),
        DataType::Binary => Kind::Str(Strings::Binary(array.as_binary::<i32>().clone())),
        DataType::LargeBinary => Kind::Str(Strings::LargeBinary(array.as_binary::<i64>().clone())),
        DataType::BinaryView => Kind::Str(Strings::BinaryView(array.as_binary_view().clone())),
        DataType::FixedSizeBinary(16) if *t == ChType::Uuid => Kind::Uuid(array.as_fixed_size_binary().clone()),
        DataType::FixedSizeBinary(_) => Kind::Str(Strings::Fixed(array.as_fixed_size_binary().clone())),
        DataType::Date32 => Kind::Date(array.as_primitive::<Date32Type>().values().clone()),
        DataType::Date64 => Kind::Date64(array.as_primitive::<Date64Type>().values().clone()),
        DataType::Timestamp(unit, arrow_tz) => {
            let type_tz = match t {
                ChType::DateTime(tz) | ChType::DateTime64(_, tz) => tz.as_deref(),
                _ => None,
            };
            let zone = Zone::for_column(type_tz.or(arrow_tz.as_deref()), opts.timezone)?;
            let (values, per_second, unit_digits) = match unit {
                TimeUnit::Second => (array.as_primitive::<TimestampSecondType>().values().clone(), 1, 0),
                TimeUnit::Millisecond => (array.as_primitive::<TimestampMillisecondType>().values().clone(), 1_000, 3),
                TimeUnit::Microsecond => (array.as_primitive::<TimestampMicrosecondType>().values().clone(), 1_000_000, 6),
                TimeUnit::Nanosecond => (array.as_primitive::<TimestampNanosecondType>().values().clone(), 1_000_000_000, 9),
            };
            let precision = match t {
                ChType::DateTime64(p, _) => (*p as u32).min(9),
                ChType::DateTime(_) => 0,
                _ => unit_digits,
            };
            Kind::DateTime { values, zone, per_second, unit_digits, precision }
        }
        DataType::Decimal32(_, s) => Kind::Decimal { values: Decimals::D32(array.as_primitive::<Decimal32Type>().values().clone()), scale: (*s).max(0) as u32 },
        DataType::Decimal64(_, s) => Kind::Decimal { values: Decimals::D64(array.as_primitive::<Decimal64Type>().values().clone()), scale: (*s).max(0) as u32 },
        DataType::Decimal128(_, s) => Kind::Decimal { values: Decimals::D128(array.as_primitive::<Decimal128Type>().values().clone()), scale: (*s).max(0) as u32 },
        DataType::Decimal256(_, s) => Kind::Decimal { values: Decimals::D256(array.as_primitive::<Decimal256Type>().values().clone()), scale: (*s).max(0) as u32 },
        DataType::List(item) | DataType::LargeList(item) | DataType::FixedSizeList(item, _) => {
            let declared = match t {
                ChType::Array(inner) => Some(inner.as_ref()),
                _ => None,
            };
            let item_type = child_type(declared, item);
            let (offsets, values) = match array.data_type() {
                DataType::List(_) => {
                    let a = array.as_list::<i32>();
                    (Offsets::I32(a.offsets().clone()), a.values().clone())
                }
                DataType::LargeList(_) => {
                    let a = array.as_list::<i64>();
                    (Offsets::I64(a.offsets().clone()), a.values().clone())
                }
                _ => {
                    let a = array.as_fixed_size_list();
                    // A sliced FixedSizeList keeps its values unsliced: start at the offset.
                    let size = a.value_length() as usize;
                    let values = a.values().slice(a.offset() * size, a.len() * size);
                    (Offsets::Fixed(size), values)
                }
            };
            let child = ColumnWriter::with_type(&item_type, &values, style.nested(), opts)?;
            Kind::List { offsets, child: Box::new(child) }
        }
        DataType::Struct(fields) => {
            let a = array.as_struct();
            let declared: Option<&Vec<(String, ChType)>> = match t {
                ChType::Tuple(items) if items.len() == fields.len() => Some(items),
                _ => None,
            };
            // In CSV a top-level tuple is written as separate fields, each in CSV style.
            let child_style = if style == TextStyle::Csv { TextStyle::Csv } else { style.nested() };
            let mut children = Vec::with_capacity(fields.len());
            for (i, (field, column)) in fields.iter().zip(a.columns()).enumerate() {
                let element = child_type(declared.map(|d| &d[i].1), field);
                children.push(ColumnWriter::with_type(&element, column, child_style, opts)?);
            }
            let named = fields.iter().enumerate().any(|(i, f)| *f.name() != (i + 1).to_string());
            let json_keys = (style == TextStyle::Json && named && opts.json_named_tuples_as_objects).then(|| {
                fields
                    .iter()
                    .map(|f| {
                        let mut key = Vec::with_capacity(f.name().len() + 3);
                        write_json_string(f.name().as_bytes(), opts.json_escape_forward_slashes, &mut key);
                        key.push(b':');
                        key
                    })
                    .collect()
            });
            Kind::Tuple { children, json_keys }
        }
        DataType::Map(_, _) => {
            let a = array.as_map();
            let (declared_key, declared_value) = match t {
                ChType::Map(k, v) => (Some(k.as_ref()), Some(v.as_ref())),
                _ => (None, None),
            };
            let entries = a.entries();
            let key_field = entries.fields().first().ok_or_else(|| logical_error("Map without a key column".into()))?;
            let value_field = entries.fields().get(1).ok_or_else(|| logical_error("Map without a value column".into()))?;
            let key_type = child_type(declared_key, key_field);
            let value_type = child_type(declared_value, value_field);
            let json = style == TextStyle::Json;
            let key_is_string = matches!(key_type.base(), ChType::String | ChType::FixedString(_));
            // JSON object keys are strings: string keys as JSON strings, others as their
            // plain text inside quotes (`{"1":2}`).
            let key_style = if json && !key_is_string { TextStyle::Raw } else { style.nested() };
            let keys = ColumnWriter::with_type(&key_type, a.keys(), key_style, opts)?;
            let values = ColumnWriter::with_type(&value_type, a.values(), style.nested(), opts)?;
            Kind::Map { offsets: a.offsets().clone(), keys: Box::new(keys), values: Box::new(values), json_quote_keys: json && !key_is_string }
        }
        DataType::Dictionary(_, value_type) => {
            // LowCardinality: written as its values (the dictionary is a storage matter).
            let plain = arrow::compute::cast(array, value_type)?;
            return make_kind(ch_type, &plain, style, opts);
        }
        DataType::RunEndEncoded(_, values) => {
            let plain = arrow::compute::cast(array, values.data_type())?;
            return make_kind(ch_type, &plain, style, opts);
        }
        DataType::Time32(unit) | DataType::Time64(unit) => {
            let values: ScalarBuffer<i64> = match unit {
                TimeUnit::Second => array.as_primitive::<Time32SecondType>().values().iter().map(|&v| i64::from(v)).collect(),
                TimeUnit::Millisecond => array.as_primitive::<Time32MillisecondType>().values().iter().map(|&v| i64::from(v)).collect(),
                TimeUnit::Microsecond => array.as_primitive::<Time64MicrosecondType>().values().clone(),
                TimeUnit::Nanosecond => array.as_primitive::<Time64NanosecondType>().values().clone(),
            };
            let nanos_per_unit = match unit {
                TimeUnit::Second => 1_000_000_000,
                TimeUnit::Millisecond => 1_000_000,
                TimeUnit::Microsecond => 1_000,
                TimeUnit::Nanosecond => 1,
            };
            let precision = match t {
                ChType::Time64(p) => u32::from(*p).min(9),
                _ => 0,
            };
            Kind::Time { values, nanos_per_unit, precision }
        }
        DataType::Duration(_) => {
            // ChType shows these as Int64; their integer value is what is printed.
            match arrow::compute::cast(array, &DataType::Int64) {
                Ok(cast) => Kind::I64(cast.as_primitive::<Int64Type>().values().clone()),
                Err(_) => Kind::Fallback(array.clone()),
            }
        }
        _ => Kind::Fallback(array.clone()),
    })
}

/// `toString` of every value of a column: the raw text (composites in quoted style),
/// NULL stays NULL. Invalid UTF-8 (from `FixedString` bytes) is replaced so the
/// result is a valid Arrow string array.
pub fn array_to_strings(field: &Field, array: &ArrayRef, opts: &TextOptions) -> Result<StringArray> {
    let writer = ColumnWriter::new(field, array, TextStyle::Raw, opts)?;
    let mut data = Vec::with_capacity(array.len() * 8);
    let mut offsets: Vec<i32> = Vec::with_capacity(array.len() + 1);
    offsets.push(0);
    for row in 0..array.len() {
        if !writer.is_null(row) {
            writer.write(row, &mut data);
        }
        let end = i32::try_from(data.len())
            .map_err(|_| Error::new(ErrorCode::TOO_LARGE_STRING_SIZE, "The text of a column is larger than 2 GiB"))?;
        offsets.push(end);
    }
    let nulls = writer.nulls.clone().filter(|n| n.null_count() > 0).or_else(|| {
        matches!(writer.kind, Kind::Nothing).then(|| NullBuffer::new_null(array.len()))
    });
    if std::str::from_utf8(&data).is_err() {
        // Rare: rebuild with each invalid value replaced.
        let mut fixed = Vec::with_capacity(data.len());
        let mut fixed_offsets = Vec::with_capacity(offsets.len());
        fixed_offsets.push(0i32);
        for w in offsets.windows(2) {
            let value = &data[w[0] as usize..w[1] as usize];
            fixed.extend_from_slice(String::from_utf8_lossy(value).as_bytes());
            fixed_offsets.push(i32::try_from(fixed.len()).map_err(|_| Error::new(ErrorCode::TOO_LARGE_STRING_SIZE, "The text of a column is larger than 2 GiB"))?);
        }
        data = fixed;
        offsets = fixed_offsets;
    }
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    StringArray::try_new(offsets, data.into(), nulls).map_err(Error::from)
}

/// A shared helper for callers that have a [`ChType`] but no field.
pub fn array_to_strings_typed(ch_type: &ChType, array: &ArrayRef, opts: &TextOptions) -> Result<StringArray> {
    let field = Arc::new(ch_type.to_arrow_field("v"));
    if *field.data_type() == *array.data_type() {
        array_to_strings(&field, array, opts)
    } else {
        array_to_strings(&Field::new("v", array.data_type().clone(), true), array, opts)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use arrow::array::*;
    use arrow::datatypes::Fields;

    fn write_all(t: &str, array: ArrayRef, style: TextStyle) -> Vec<String> {
        write_opts(t, array, style, &TextOptions::default())
    }

    fn write_opts(t: &str, array: ArrayRef, style: TextStyle, opts: &TextOptions) -> Vec<String> {
        let ch = ChType::parse(t).unwrap();
        let w = ColumnWriter::with_type(&ch, &array, style, opts).unwrap();
        (0..array.len())
            .map(|i| {
                let mut out = Vec::new();
                w.write(i, &mut out);
                String::from_utf8_lossy(&out).into_owned()
            })
            .collect()
    }

    const ALL: [TextStyle; 6] = [TextStyle::Tsv, TextStyle::Csv, TextStyle::Json, TextStyle::Quoted, TextStyle::Raw, TextStyle::Pretty];

    #[test]
    fn integers_every_style() {
        let a: ArrayRef = Arc::new(Int64Array::from(vec![Some(-5), None, Some(i64::MAX)]));
        for style in ALL {
            let got = write_all("Nullable(Int64)", a.clone(), style);
            let null = String::from_utf8(style.null_text().to_vec()).unwrap();
            assert_eq!(got, vec!["-5".to_string(), null, "9223372036854775807".to_string()], "{style:?}");
        }
        let opts = TextOptions { json_quote_64bit_integers: true, ..Default::default() };
        assert_eq!(write_opts("Nullable(Int64)", a.clone(), TextStyle::Json, &opts)[0], "\"-5\"");
        // Only JSON quotes, and only 64-bit integers.
        assert_eq!(write_opts("Nullable(Int64)", a, TextStyle::Tsv, &opts)[0], "-5");
        let small: ArrayRef = Arc::new(Int32Array::from(vec![3]));
        assert_eq!(write_opts("Int32", small, TextStyle::Json, &opts)[0], "3");
    }

    #[test]
    fn floats_every_style() {
        let a: ArrayRef = Arc::new(Float64Array::from(vec![1.5, f64::NAN, f64::NEG_INFINITY, 1e21]));
        assert_eq!(write_all("Float64", a.clone(), TextStyle::Tsv), vec!["1.5", "nan", "-inf", "1e21"]);
        assert_eq!(write_all("Float64", a.clone(), TextStyle::Csv), vec!["1.5", "nan", "-inf", "1e21"]);
        assert_eq!(write_all("Float64", a.clone(), TextStyle::Quoted), vec!["1.5", "nan", "-inf", "1e21"]);
        assert_eq!(write_all("Float64", a.clone(), TextStyle::Json), vec!["1.5", "null", "null", "1e21"]);
        let opts = TextOptions { json_quote_denormals: true, ..Default::default() };
        assert_eq!(write_opts("Float64", a, TextStyle::Json, &opts), vec!["1.5", "\"nan\"", "\"-inf\"", "1e21"]);
        let f32s: ArrayRef = Arc::new(Float32Array::from(vec![0.1f32, 1.0 / 3.0]));
        assert_eq!(write_all("Float32", f32s, TextStyle::Tsv), vec!["0.1", "0.33333334"]);
    }

    #[test]
    fn strings_every_style() {
        let a: ArrayRef = Arc::new(StringArray::from(vec!["a\tb'c\"d\\/"]));
        let got: Vec<String> = ALL.iter().map(|s| write_all("String", a.clone(), *s).remove(0)).collect();
        assert_eq!(
            got,
            vec![
                "a\\tb\\'c\"d\\\\/",
                "\"a\tb'c\"\"d\\/\"",
                "\"a\\tb'c\\\"d\\\\\\/\"",
                "'a\\tb\\'c\"d\\\\/'",
                "a\tb'c\"d\\/",
                "a\tb'c\"d\\/",
            ]
        );
    }

    #[test]
    fn fixed_strings_keep_zero_bytes() {
        let a: ArrayRef = Arc::new(FixedSizeBinaryArray::try_from_iter(vec![b"ab\0\0".to_vec()].into_iter()).unwrap());
        assert_eq!(write_all("FixedString(4)", a.clone(), TextStyle::Tsv), vec!["ab\\0\\0"]);
        assert_eq!(write_all("FixedString(4)", a.clone(), TextStyle::Json), vec!["\"ab\\u0000\\u0000\""]);
        assert_eq!(write_all("FixedString(4)", a.clone(), TextStyle::Raw), vec!["ab\0\0"]);
        assert_eq!(write_all("FixedString(4)", a, TextStyle::Quoted), vec!["'ab\\0\\0'"]);
    }

    #[test]
    fn bools_uuids_dates() {
        let b: ArrayRef = Arc::new(BooleanArray::from(vec![true, false]));
        for style in ALL {
            assert_eq!(write_all("Bool", b.clone(), style), vec!["true", "false"]);
        }
        let u: ArrayRef = Arc::new(
            FixedSizeBinaryArray::try_from_iter(
                vec![vec![0x61, 0xf0, 0xc4, 0x04, 0x5c, 0xb3, 0x11, 0xe7, 0x90, 0x7b, 0xa6, 0x00, 0x6a, 0xd3, 0xdb, 0xa0]].into_iter(),
            )
            .unwrap(),
        );
        assert_eq!(write_all("UUID", u.clone(), TextStyle::Tsv), vec!["61f0c404-5cb3-11e7-907b-a6006ad3dba0"]);
        assert_eq!(write_all("UUID", u, TextStyle::Quoted), vec!["'61f0c404-5cb3-11e7-907b-a6006ad3dba0'"]);
        let d: ArrayRef = Arc::new(Date32Array::from(vec![19_724, -25_567]));
        assert_eq!(write_all("Date32", d.clone(), TextStyle::Tsv), vec!["2024-01-02", "1900-01-01"]);
        assert_eq!(write_all("Date32", d.clone(), TextStyle::Csv), vec!["\"2024-01-02\"", "\"1900-01-01\""]);
        assert_eq!(write_all("Date32", d, TextStyle::Json), vec!["\"2024-01-02\"", "\"1900-01-01\""]);
    }

    #[test]
    fn datetimes_use_the_type_zone_then_the_session_zone() {
        let a: ArrayRef = Arc::new(TimestampSecondArray::from(vec![1_704_164_645]));
        assert_eq!(write_all("DateTime", a.clone(), TextStyle::Tsv), vec!["2024-01-02 03:04:05"]);
        let opts = TextOptions { timezone: chrono_tz::Asia::Tokyo, ..Default::default() };
        assert_eq!(write_opts("DateTime", a.clone(), TextStyle::Tsv, &opts), vec!["2024-01-02 12:04:05"]);
        let utc: ArrayRef = Arc::new(TimestampSecondArray::from(vec![1_704_164_645]).with_timezone("UTC"));
        assert_eq!(write_opts("DateTime('UTC')", utc, TextStyle::Tsv, &opts), vec!["2024-01-02 03:04:05"]);
        // DateTime64(1) is stored in milliseconds; one digit is printed.
        let ms: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![1_704_164_645_123, -100]));
        assert_eq!(write_all("DateTime64(1)", ms.clone(), TextStyle::Tsv), vec!["2024-01-02 03:04:05.1", "1969-12-31 23:59:59.9"]);
        assert_eq!(write_all("DateTime64(3)", ms, TextStyle::Json), vec!["\"2024-01-02 03:04:05.123\"", "\"1969-12-31 23:59:59.900\""]);
    }

    #[test]
    fn decimals() {
        let a: ArrayRef = Arc::new(Decimal128Array::from(vec![1500, -5, 200, 0, -1234567]).with_precision_and_scale(9, 3).unwrap());
        assert_eq!(write_all("Decimal(9, 3)", a.clone(), TextStyle::Tsv), vec!["1.5", "-0.005", "0.2", "0", "-1234.567"]);
        let opts = TextOptions { decimal_trailing_zeros: true, ..Default::default() };
        assert_eq!(write_opts("Decimal(9, 3)", a, TextStyle::Tsv, &opts), vec!["1.500", "-0.005", "0.200", "0.000", "-1234.567"]);
        let d256: ArrayRef = Arc::new(Decimal256Array::from(vec![i256::from_i128(-12345)]).with_precision_and_scale(50, 2).unwrap());
        assert_eq!(write_all("Decimal(50, 2)", d256, TextStyle::Json), vec!["-123.45"]);
    }

    fn list_of_strings() -> ArrayRef {
        let mut b = ListBuilder::new(StringBuilder::new());
        b.values().append_value("a");
        b.values().append_value("b'c\"");
        b.values().append_null();
        b.append(true);
        b.append(true);
        Arc::new(b.finish())
    }

    #[test]
    fn arrays() {
        let a = list_of_strings();
        assert_eq!(write_all("Array(Nullable(String))", a.clone(), TextStyle::Tsv), vec!["['a','b\\'c\"',NULL]", "[]"]);
        assert_eq!(write_all("Array(Nullable(String))", a.clone(), TextStyle::Csv), vec!["\"['a','b\\'c\"\"',NULL]\"", "\"[]\""]);
        assert_eq!(write_all("Array(Nullable(String))", a.clone(), TextStyle::Json), vec!["[\"a\",\"b'c\\\"\",null]", "[]"]);
        assert_eq!(write_all("Array(Nullable(String))", a, TextStyle::Pretty), vec!["['a','b\\'c\"',NULL]", "[]"]);
    }

    fn tuple(named: bool) -> ArrayRef {
        let names = if named { ["a", "b"] } else { ["1", "2"] };
        let fields = Fields::from(vec![Field::new(names[0], DataType::UInt8, false), Field::new(names[1], DataType::Utf8, false)]);
        Arc::new(StructArray::new(
            fields,
            vec![Arc::new(UInt8Array::from(vec![1])), Arc::new(StringArray::from(vec!["x"]))],
            None,
        ))
    }

    #[test]
    fn tuples() {
        assert_eq!(write_all("Tuple(UInt8, String)", tuple(false), TextStyle::Tsv), vec!["(1,'x')"]);
        assert_eq!(write_all("Tuple(UInt8, String)", tuple(false), TextStyle::Csv), vec!["1,\"x\""]);
        assert_eq!(write_all("Tuple(UInt8, String)", tuple(false), TextStyle::Json), vec!["[1,\"x\"]"]);
        assert_eq!(write_all("Tuple(a UInt8, b String)", tuple(true), TextStyle::Json), vec!["{\"a\":1,\"b\":\"x\"}"]);
        assert_eq!(write_all("Tuple(a UInt8, b String)", tuple(true), TextStyle::Quoted), vec!["(1,'x')"]);
    }

    #[test]
    fn maps() {
        let mut b = MapBuilder::new(None, UInt64Builder::new(), StringBuilder::new());
        b.keys().append_value(1);
        b.values().append_value("x\"");
        b.append(true).unwrap();
        let a: ArrayRef = Arc::new(b.finish());
        assert_eq!(write_all("Map(UInt64, String)", a.clone(), TextStyle::Tsv), vec!["{1:'x\"'}"]);
        assert_eq!(write_all("Map(UInt64, String)", a.clone(), TextStyle::Csv), vec!["\"{1:'x\"\"'}\""]);
        assert_eq!(write_all("Map(UInt64, String)", a.clone(), TextStyle::Json), vec!["{\"1\":\"x\\\"\"}"]);
        let opts = TextOptions { json_quote_64bit_integers: true, ..Default::default() };
        assert_eq!(write_opts("Map(UInt64, String)", a, TextStyle::Json, &opts), vec!["{\"1\":\"x\\\"\"}"]);
    }

    #[test]
    fn to_string_rules() {
        let field = Field::new("a", DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))), false);
        let strings = array_to_strings(&field, &list_of_strings(), &TextOptions::default()).unwrap();
        assert_eq!(strings.value(0), "['a','b\\'c\"',NULL]");
        let n: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None]));
        let strings = array_to_strings(&Field::new("n", DataType::Int32, true), &n, &TextOptions::default()).unwrap();
        assert!(strings.is_null(1));
        assert_eq!(strings.value(0), "1");
        let bad: ArrayRef = Arc::new(FixedSizeBinaryArray::try_from_iter(vec![vec![0xffu8, b'a']].into_iter()).unwrap());
        let strings = array_to_strings(&Field::new("f", DataType::FixedSizeBinary(2), false), &bad, &TextOptions::default()).unwrap();
        assert_eq!(strings.value(0), "\u{FFFD}a");
    }

    #[test]
    fn xml() {
        let a = list_of_strings();
        assert_eq!(write_all("Array(Nullable(String))", a, TextStyle::Xml), vec!["<array><elem>a</elem><elem>b'c\"</elem><elem>\\N</elem></array>", "<array></array>"]);
        assert_eq!(write_all("Tuple(a UInt8, b String)", tuple(true), TextStyle::Xml), vec!["<tuple><elem>1</elem><elem>x</elem></tuple>"]);
        let s: ArrayRef = Arc::new(StringArray::from(vec!["a<b>&c"]));
        assert_eq!(write_all("String", s, TextStyle::Xml), vec!["a&lt;b>&amp;c"]);
        let f: ArrayRef = Arc::new(Float64Array::from(vec![f64::NAN]));
        assert_eq!(write_all("Float64", f, TextStyle::Xml), vec!["nan"]);
    }

    #[test]
    fn sliced_arrays() {
        let a: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
        let sliced = a.slice(1, 2);
        assert_eq!(write_all("Int32", sliced, TextStyle::Tsv), vec!["2", "3"]);
        let l = list_of_strings().slice(1, 1);
        assert_eq!(write_all("Array(Nullable(String))", l, TextStyle::Tsv), vec!["[]"]);
    }
}
