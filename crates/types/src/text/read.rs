//! [`ColumnBuilder`]: typed Arrow columns built from text, with ClickHouse's rules.
//!
//! A builder is made once per target column and accepts values in three syntaxes:
//!
//! * [`ColumnBuilder::parse_text`]: a whole field whose escaping the format already
//!   removed (a TSV field after unescaping, a CSV field after unquoting). Arrays, tuples
//!   and maps inside such a field use the quoted syntax: `['a','b']`, `(1,'x')`, `{'k':1}`.
//! * [`ColumnBuilder::parse_quoted`]: one value of the `Values` syntax (`NULL`, `'str'`,
//!   `-1.5`, `[..]`, `(..)`, `{..}`) at a position of a larger input.
//! * [`ColumnBuilder::parse_json`]: one JSON value at a position of a larger input.
//!
//! Errors carry the ClickHouse code of the failure (CANNOT_PARSE_TEXT, CANNOT_PARSE_NUMBER,
//! CANNOT_PARSE_DATE, CANNOT_PARSE_DATETIME, ...) and describe the value; the format adds
//! the row number and the column name. Values are appended in place (no per-value
//! allocation except for `Decimal256` arithmetic), and [`ColumnBuilder::truncate`] drops
//! the values of a row that failed half-way (for `input_format_allow_errors_*`).
//!
//! Differences from ClickHouse, on purpose: integers that overflow their type are an
//! error (ClickHouse wraps `300` into a `UInt8` as `44`), and invalid dates such as
//! `2020-13-01` are an error (ClickHouse stores `1970-01-01`).

use std::sync::Arc;

use arrow::array::{
    new_null_array, Array, ArrayRef, BooleanArray, Date32Array, Decimal128Array, Decimal256Array, FixedSizeBinaryArray, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, ListArray, MapArray, PrimitiveArray, StringArray, StructArray,
    Time32SecondArray, Time64MicrosecondArray, Time64NanosecondArray, UInt16Array, UInt32Array, UInt64Array, UInt8Array,
};
use arrow::array::BooleanBufferBuilder;
use arrow::buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{
    i256, ArrowTimestampType, DataType, Field, FieldRef, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use granary_common::{Error, ErrorCode, Result};

use super::datetime::{parse_date, parse_datetime, Zone, DATE32_MAX_DAY, DATE32_MIN_DAY, DATE_MAX_DAY, DATE_MIN_DAY};
use super::escape::{read_json_string, read_quoted_string, shorten};
use super::TextOptions;
use crate::wide::{WideInt, WideParseError};
use crate::ChType;

/// `date_time_input_format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DateTimeInputFormat {
    /// `YYYY-MM-DD hh:mm:ss` and unix timestamps.
    #[default]
    Basic,
    /// Also ISO 8601 with `T`, `Z` and UTC offsets.
    BestEffort,
}

impl DateTimeInputFormat {
    /// The value of the setting: `basic`, `best_effort` (`best_effort_us` is read as
    /// `best_effort`).
    pub fn from_setting(value: &str) -> DateTimeInputFormat {
        if value.starts_with("best_effort") {
            DateTimeInputFormat::BestEffort
        } else {
            DateTimeInputFormat::Basic
        }
    }
}

/// The typed storage of a builder.
enum Data {
    Nothing,
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Bool(BooleanBufferBuilder),
    Str { offsets: Vec<i32>, data: Vec<u8> },
    Fixed { width: usize, data: Vec<u8> },
    Uuid(Vec<u8>),
    /// Enum values by element name; `wide` for Enum16.
    Enum { values: Vec<i16>, by_name: std::collections::HashMap<String, i16>, wide: bool },
    IPv4(Vec<u32>),
    IPv6(Vec<u8>),
    Date { days: Vec<i32>, min: i64, max: i64 },
    DateTime { values: Vec<i64>, zone: Zone, unit: TimeUnit, precision: u32, wide: bool },
    /// `Time` (`precision` None) or `Time64(p)`, in the Arrow unit of the type.
    Time { values: Vec<i64>, precision: Option<u8> },
    Decimal128 { values: Vec<i128>, precision: u8, scale: u8 },
    Decimal256 { values: Vec<i256>, precision: u8, scale: u8 },
    /// `Int128`..`UInt256` as 256-bit words, narrowed to the type's Arrow type at the end.
    Wide { kind: WideInt, values: Vec<i256> },
    List { offsets: Vec<i32>, child: Box<ColumnBuilder> },
    Tuple { children: Vec<ColumnBuilder> },
    Map { offsets: Vec<i32>, keys: Box<ColumnBuilder>, values: Box<ColumnBuilder> },
    /// A `Variant`: one nullable builder per type; `order` is the order in which the
    /// types try to read a text (see [`variant_text_order`]).
    Variant { children: Vec<ColumnBuilder>, order: Vec<usize> },
}

/// Builds one column of a ClickHouse type from text. See the module documentation.
pub struct ColumnBuilder {
    /// What `finish` must return (the built array is cast to it when Arrow types differ).
    target: FieldRef,
    /// The Arrow type built directly (`ch_type.to_arrow()`).
    built_type: DataType,
    ch_type: ChType,
    /// Whether NULL is a value of the type (`Nullable(T)`, `LowCardinality(Nullable(T))`).
    nullable: bool,
    /// Whether NULL for a non-Nullable type becomes the type's default.
    null_as_default: bool,
    /// Whether integers out of the type's range wrap around instead of failing.
    integers_wrap: bool,
    best_effort: bool,
    /// Validity, materialized at the first NULL.
    validity: Option<BooleanBufferBuilder>,
    len: usize,
    data: Data,
}

/// Whether NULL is a value of `t`.
fn accepts_null(t: &ChType) -> bool {
    match t {
        ChType::Nullable(_) | ChType::Nothing | ChType::Variant(_) => true,
        ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner) => accepts_null(inner),
        _ => false,
    }
}

fn type_error(text: &[u8], t: &ChType, code: ErrorCode, detail: &str) -> Error {
    Error::new(code, format!("Cannot parse string '{}' as {t}: {detail}", shorten(text)))
}

impl ColumnBuilder {
    /// A builder producing arrays of `field`'s Arrow type, with `field`'s ClickHouse type.
    pub fn new(field: &Field, opts: &TextOptions) -> Result<Self> {
        let ch_type = ChType::from_field(field);
        Self::build(ch_type, Arc::new(field.clone()), opts)
    }

    /// A builder for a ClickHouse type (arrays of `ch_type.to_arrow()`).
    pub fn with_type(ch_type: &ChType, opts: &TextOptions) -> Result<Self> {
        let field = Arc::new(ch_type.to_arrow_field(""));
        Self::build(ch_type.clone(), field, opts)
    }

    fn build(ch_type: ChType, target: FieldRef, opts: &TextOptions) -> Result<Self> {
        let base = ch_type.base().clone();
        let data = match &base {
            ChType::AggregateFunction(..) => {
                return Err(Error::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!("Reading values of type {base} from text is not supported; insert them with INSERT ... SELECT ...State()"),
                ))
            }
            ChType::Nothing => Data::Nothing,
            ChType::Int8 => Data::I8(Vec::new()),
            ChType::Int16 => Data::I16(Vec::new()),
            ChType::Int32 => Data::I32(Vec::new()),
            // An interval is read as its count of units.
            ChType::Int64 | ChType::Interval(_) => Data::I64(Vec::new()),
            ChType::UInt8 => Data::U8(Vec::new()),
            ChType::UInt16 => Data::U16(Vec::new()),
            ChType::UInt32 => Data::U32(Vec::new()),
            ChType::UInt64 => Data::U64(Vec::new()),
            ChType::Float32 => Data::F32(Vec::new()),
            ChType::Float64 => Data::F64(Vec::new()),
            ChType::Bool => Data::Bool(BooleanBufferBuilder::new(0)),
            ChType::String => Data::Str { offsets: vec![0], data: Vec::new() },
            ChType::FixedString(n) => Data::Fixed { width: *n, data: Vec::new() },
            ChType::Uuid => Data::Uuid(Vec::new()),
            ChType::Enum8(elements) | ChType::Enum16(elements) => Data::Enum {
                values: Vec::new(),
                by_name: elements.iter().map(|(name, value)| (name.clone(), *value)).collect(),
                wide: matches!(base, ChType::Enum16(_)),
            },
            ChType::IPv4 => Data::IPv4(Vec::new()),
            ChType::IPv6 => Data::IPv6(Vec::new()),
            ChType::Date => Data::Date { days: Vec::new(), min: DATE_MIN_DAY, max: DATE_MAX_DAY },
            ChType::Date32 => Data::Date { days: Vec::new(), min: DATE32_MIN_DAY, max: DATE32_MAX_DAY },
            ChType::DateTime(tz) => Data::DateTime {
                values: Vec::new(),
                zone: Zone::for_column(tz.as_deref(), opts.timezone)?,
                unit: TimeUnit::Second,
                precision: 0,
                wide: false,
            },
            ChType::DateTime64(p, tz) => Data::DateTime {
                values: Vec::new(),
                zone: Zone::for_column(tz.as_deref(), opts.timezone)?,
                unit: crate::chtype::time_unit_for_precision(*p),
                precision: (*p as u32).min(9),
                wide: true,
            },
            ChType::Time => Data::Time { values: Vec::new(), precision: None },
            ChType::Time64(p) => Data::Time { values: Vec::new(), precision: Some(*p) },
            ChType::Decimal(p, s) if *p <= 38 => Data::Decimal128 { values: Vec::new(), precision: *p, scale: *s },
            ChType::Decimal(p, s) => Data::Decimal256 { values: Vec::new(), precision: *p, scale: *s },
            ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256 => {
                Data::Wide { kind: WideInt::of(&base).ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "not a wide integer"))?, values: Vec::new() }
            }
            ChType::Array(inner) => Data::List { offsets: vec![0], child: Box::new(ColumnBuilder::with_type(inner, opts)?) },
            ChType::Tuple(items) => {
                Data::Tuple { children: items.iter().map(|(_, t)| ColumnBuilder::with_type(t, opts)).collect::<Result<_>>()? }
            }
            ChType::Map(k, v) => Data::Map {
                offsets: vec![0],
                keys: Box::new(ColumnBuilder::with_type(k, opts)?),
                values: Box::new(ColumnBuilder::with_type(v, opts)?),
            },
            ChType::Variant(types) => {
                let mut children = Vec::with_capacity(types.len());
                for t in types {
                    let field = Arc::new(t.to_arrow_field(&t.to_string()).with_nullable(true));
                    let mut child = ColumnBuilder::build(t.clone(), field, opts)?;
                    // A type that does not read a text exactly leaves it to the next one.
                    child.nullable = true;
                    child.null_as_default = false;
                    child.integers_wrap = false;
                    children.push(child);
                }
                Data::Variant { children, order: variant_text_order(types) }
            }
            ChType::Nullable(_) | ChType::LowCardinality(_) | ChType::SimpleAggregateFunction(..) => {
                return Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("Unexpected nested wrapper in {ch_type}")))
            }
        };
        Ok(ColumnBuilder {
            built_type: ch_type.to_arrow(),
            nullable: accepts_null(&ch_type),
            null_as_default: opts.null_as_default,
            integers_wrap: opts.integers_wrap,
            best_effort: opts.date_time_input_format == DateTimeInputFormat::BestEffort,
            target,
            ch_type,
            validity: None,
            len: 0,
            data,
        })
    }

    /// The ClickHouse type of the column.
    pub fn ch_type(&self) -> &ChType {
        &self.ch_type
    }

    /// Values appended since the last `finish`.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether NULL is a value of the column's type.
    pub fn is_nullable(&self) -> bool {
        self.nullable
    }

    /// Whether the column is a plain `String` (formats hand such fields over as they are).
    pub fn is_string(&self) -> bool {
        matches!(self.data, Data::Str { .. })
    }

    fn mark_valid(&mut self) {
        if let Some(v) = self.validity.as_mut() {
            v.append(true);
        }
        self.len += 1;
    }

    /// Appends NULL: a NULL of a Nullable type, the type's default for other types when
    /// `input_format_null_as_default` is on, else an error.
    pub fn append_null(&mut self) -> Result<()> {
        if !self.nullable {
            if self.null_as_default {
                return self.append_default();
            }
            return Err(Error::new(
                ErrorCode::CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN,
                format!("Cannot insert NULL value into a column of type '{}'", self.ch_type),
            ));
        }
        self.push_default_value();
        let len = self.len;
        let validity = self.validity.get_or_insert_with(|| {
            let mut v = BooleanBufferBuilder::new(len + 1);
            v.append_n(len, true);
            v
        });
        validity.append(false);
        self.len += 1;
        Ok(())
    }

    /// Appends the type's default: NULL for Nullable, else 0, '', 1970-01-01, [], ...
    pub fn append_default(&mut self) -> Result<()> {
        if self.nullable {
            return self.append_null();
        }
        self.push_default_value();
        self.mark_valid();
        Ok(())
    }

    /// Makes room for `rows` more values and, for strings, `string_bytes` more bytes, so
    /// that a column filled row by row is not copied each time its buffers double.
    pub fn reserve(&mut self, rows: usize, string_bytes: usize) {
        if let Data::Str { offsets, data } = &mut self.data {
            offsets.reserve(rows);
            data.reserve(string_bytes);
        }
    }

    /// Pushes the default value into the storage (without validity bookkeeping).
    fn push_default_value(&mut self) {
        match &mut self.data {
            Data::Nothing => {}
            Data::I8(v) => v.push(0),
            Data::I16(v) => v.push(0),
            Data::I32(v) => v.push(0),
            Data::I64(v) => v.push(0),
            Data::U8(v) => v.push(0),
            Data::U16(v) => v.push(0),
            Data::U32(v) => v.push(0),
            Data::U64(v) => v.push(0),
            Data::F32(v) => v.push(0.0),
            Data::F64(v) => v.push(0.0),
            Data::Bool(v) => v.append(false),
            Data::Str { offsets, data } => offsets.push(data.len() as i32),
            Data::Fixed { width, data } => data.resize(data.len() + *width, 0),
            Data::Uuid(v) => v.resize(v.len() + 16, 0),
            // The smallest element, as ClickHouse fills a missing enum value.
            Data::Enum { values, by_name, .. } => values.push(by_name.values().copied().min().unwrap_or(0)),
            Data::IPv4(v) => v.push(0),
            Data::IPv6(v) => v.resize(v.len() + 16, 0),
            Data::Date { days, .. } => days.push(0),
            Data::DateTime { values, .. } | Data::Time { values, .. } => values.push(0),
            Data::Decimal128 { values, .. } => values.push(0),
            Data::Decimal256 { values, .. } | Data::Wide { values, .. } => values.push(i256::ZERO),
            Data::List { offsets, child } => offsets.push(child.len() as i32),
            Data::Tuple { children } => {
                for c in children.iter_mut() {
                    // Elements of a default tuple are their types' defaults (NULL for
                    // Nullable elements), never an error.
                    let _ = c.append_default();
                }
            }
            Data::Map { offsets, keys, .. } => offsets.push(keys.len() as i32),
            Data::Variant { children, .. } => {
                for c in children.iter_mut() {
                    // Children hold NULLs, so this cannot fail.
                    let _ = c.append_null();
                }
            }
        }
    }

    /// Drops the values after the first `len` (undoes a row that failed half-way).
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        match &mut self.data {
            Data::Nothing => {}
            Data::I8(v) => v.truncate(len),
            Data::I16(v) => v.truncate(len),
            Data::I32(v) => v.truncate(len),
            Data::I64(v) => v.truncate(len),
            Data::U8(v) => v.truncate(len),
            Data::U16(v) => v.truncate(len),
            Data::U32(v) => v.truncate(len),
            Data::U64(v) => v.truncate(len),
            Data::F32(v) => v.truncate(len),
            Data::F64(v) => v.truncate(len),
            Data::Bool(v) => v.truncate(len),
            Data::Str { offsets, data } => {
                offsets.truncate(len + 1);
                data.truncate(offsets[len] as usize);
            }
            Data::Fixed { width, data } => data.truncate(len * *width),
            Data::Uuid(v) => v.truncate(len * 16),
            Data::Enum { values, .. } => values.truncate(len),
            Data::IPv4(v) => v.truncate(len),
            Data::IPv6(v) => v.truncate(len * 16),
            Data::Date { days, .. } => days.truncate(len),
            Data::DateTime { values, .. } | Data::Time { values, .. } => values.truncate(len),
            Data::Decimal128 { values, .. } => values.truncate(len),
            Data::Decimal256 { values, .. } | Data::Wide { values, .. } => values.truncate(len),
            Data::List { offsets, child } => {
                offsets.truncate(len + 1);
                child.truncate(offsets[len] as usize);
            }
            Data::Tuple { children } => children.iter_mut().for_each(|c| c.truncate(len)),
            Data::Map { offsets, keys, values } => {
                offsets.truncate(len + 1);
                keys.truncate(offsets[len] as usize);
                values.truncate(offsets[len] as usize);
            }
            Data::Variant { children, .. } => children.iter_mut().for_each(|c| c.truncate(len)),
        }
        if let Some(v) = self.validity.as_mut() {
            v.truncate(len);
        }
        self.len = len;
    }

    /// Appends the value of a whole field (escaping already removed by the format).
    /// An empty field is the type's default (ClickHouse's `input_format_*_empty_as_default`
    /// for numbers, dates and the like); strings take the bytes as they are.
    pub fn parse_text(&mut self, text: &[u8]) -> Result<()> {
        match &mut self.data {
            Data::Variant { children, order } => {
                variant_from_text(children, order, text, &self.ch_type)?;
                self.mark_valid();
                Ok(())
            }
            Data::Str { offsets, data } => {
                data.extend_from_slice(text);
                offsets.push(data.len() as i32);
                self.mark_valid();
                Ok(())
            }
            Data::List { .. } | Data::Tuple { .. } | Data::Map { .. } => {
                let start = self.len;
                let mut pos = 0;
                let mut scratch = Vec::new();
                let result = self.parse_quoted(text, &mut pos, &mut scratch).and_then(|_| {
                    skip_ws(text, &mut pos);
                    if pos < text.len() {
                        Err(Error::new(
                            ErrorCode::CANNOT_PARSE_TEXT,
                            format!("Cannot parse {} from '{}': unexpected text after the value", self.ch_type, shorten(text)),
                        ))
                    } else {
                        Ok(())
                    }
                });
                result.map_err(|e| {
                    self.truncate(start);
                    // Inside a TSV or CSV field an expression is just bad data.
                    if e.code() == ErrorCode::SYNTAX_ERROR {
                        Error::new(ErrorCode::CANNOT_PARSE_TEXT, e.message().to_string())
                    } else {
                        e
                    }
                })
            }
            _ if text.is_empty() => self.append_default(),
            _ => self.parse_scalar(text),
        }
    }

    /// Appends values as `parse_text` (a text) and `append_null` (None) do one by one,
    /// with the column's type looked at once per run of texts for the common types
    /// (String, integers, floats, Date, DateTime). On an error, values before the failing one may stay
    /// appended: the caller truncates to where it started.
    pub fn append_texts(&mut self, values: &[Option<&[u8]>]) -> Result<()> {
        let mut i = 0;
        while i < values.len() {
            let run_end = values[i..].iter().position(Option::is_none).map_or(values.len(), |p| i + p);
            self.append_text_run(&values[i..run_end])?;
            if run_end < values.len() {
                self.append_null()?;
            }
            i = run_end + 1;
        }
        Ok(())
    }

    /// `append_texts` of values that are all texts.
    fn append_text_run(&mut self, values: &[Option<&[u8]>]) -> Result<()> {
        let wraps = self.integers_wrap;
        let best_effort = self.best_effort;
        let t = &self.ch_type;
        // Empty texts are the type's default, except for strings: value by value.
        let plain = matches!(self.data, Data::Str { .. }) || values.iter().flatten().all(|v| !v.is_empty());
        let done = plain
            && match &mut self.data {
                Data::Str { offsets, data } => {
                    offsets.reserve(values.len());
                    for text in values.iter().flatten() {
                        data.extend_from_slice(text);
                        offsets.push(data.len() as i32);
                    }
                    true
                }
                Data::I8(v) => push_parsed(v, values, |x| parse_signed(x, t, wraps))?,
                Data::I16(v) => push_parsed(v, values, |x| parse_signed(x, t, wraps))?,
                Data::I32(v) => push_parsed(v, values, |x| parse_signed(x, t, wraps))?,
                Data::I64(v) => push_parsed(v, values, |x| parse_signed(x, t, wraps))?,
                Data::U8(v) => push_parsed(v, values, |x| parse_unsigned(x, t, wraps))?,
                Data::U16(v) => push_parsed(v, values, |x| parse_unsigned(x, t, wraps))?,
                Data::U32(v) => push_parsed(v, values, |x| parse_unsigned(x, t, wraps))?,
                Data::U64(v) => push_parsed(v, values, |x| parse_unsigned(x, t, wraps))?,
                Data::F32(v) => push_parsed(v, values, parse_float::<f32>)?,
                Data::F64(v) => push_parsed(v, values, parse_float::<f64>)?,
                Data::Date { days, min, max } => push_parsed(days, values, |x| Ok(parse_date(x)?.clamp(*min, *max) as i32))?,
                Data::DateTime { values: seconds, zone, wide: false, .. } => push_parsed(seconds, values, |x| {
                    let (utc, _) = parse_datetime(x, best_effort)?.to_utc(zone);
                    // DateTime is a UInt32 of seconds in ClickHouse: saturate like it does.
                    Ok(utc.clamp(0, u32::MAX as i64))
                })?,
                _ => false,
            };
        if !done {
            for text in values.iter().flatten() {
                self.parse_text(text)?;
            }
            return Ok(());
        }
        if let Some(validity) = self.validity.as_mut() {
            validity.append_n(values.len(), true);
        }
        self.len += values.len();
        Ok(())
    }

    /// Appends a scalar (non-composite) value from its unescaped text.
    fn parse_scalar(&mut self, text: &[u8]) -> Result<()> {
        let t = &self.ch_type;
        let wraps = self.integers_wrap;
        match &mut self.data {
            Data::Nothing => return Err(type_error(text, t, ErrorCode::CANNOT_PARSE_TEXT, "only NULL is a value of this type")),
            Data::I8(v) => v.push(parse_signed(text, t, wraps)?),
            Data::I16(v) => v.push(parse_signed(text, t, wraps)?),
            Data::I32(v) => v.push(parse_signed(text, t, wraps)?),
            Data::I64(v) => v.push(parse_signed(text, t, wraps)?),
            Data::U8(v) => v.push(parse_unsigned(text, t, wraps)?),
            Data::U16(v) => v.push(parse_unsigned(text, t, wraps)?),
            Data::U32(v) => v.push(parse_unsigned(text, t, wraps)?),
            Data::U64(v) => v.push(parse_unsigned(text, t, wraps)?),
            Data::F32(v) => v.push(parse_float::<f32>(text)?),
            Data::F64(v) => v.push(parse_float::<f64>(text)?),
            Data::Bool(v) => v.append(parse_bool(text)?),
            Data::Str { offsets, data } => {
                data.extend_from_slice(text);
                offsets.push(data.len() as i32);
            }
            Data::Fixed { width, data } => {
                if text.len() > *width {
                    return Err(Error::new(
                        ErrorCode::TOO_LARGE_STRING_SIZE,
                        format!("Too large value for FixedString({width}): '{}'", shorten(text)),
                    ));
                }
                data.extend_from_slice(text);
                data.resize(data.len() + *width - text.len(), 0);
            }
            Data::Uuid(v) => v.extend_from_slice(&parse_uuid(text)?),
            Data::Enum { values, by_name, .. } => values.push(parse_enum(text, by_name)?),
            Data::IPv4(v) => v.push(parse_ipv4_text(text)?),
            Data::IPv6(v) => v.extend_from_slice(&parse_ipv6_text(text)?),
            Data::Date { days, min, max } => days.push(parse_date(text)?.clamp(*min, *max) as i32),
            Data::DateTime { values, zone, unit, precision, wide } => {
                let parsed = parse_datetime(text, self.best_effort)?;
                let (seconds, nanos) = parsed.to_utc(zone);
                if *wide {
                    // Keep `precision` digits of the fraction, in the Arrow unit.
                    let keep = 10u32.pow(9 - *precision);
                    let nanos = (nanos / keep * keep) as i64;
                    let value = match unit {
                        TimeUnit::Second => Some(seconds),
                        TimeUnit::Millisecond => seconds.checked_mul(1_000).map(|s| s + nanos / 1_000_000),
                        TimeUnit::Microsecond => seconds.checked_mul(1_000_000).map(|s| s + nanos / 1_000),
                        TimeUnit::Nanosecond => seconds.checked_mul(1_000_000_000).map(|s| s + nanos),
                    };
                    values.push(value.ok_or_else(|| {
                        Error::new(ErrorCode::CANNOT_PARSE_DATETIME, format!("DateTime64 value '{}' is out of range", shorten(text)))
                    })?);
                } else {
                    // DateTime is a UInt32 of seconds in ClickHouse: saturate like it does.
                    values.push(seconds.clamp(0, u32::MAX as i64));
                }
            }
            Data::Time { values, precision } => values.push(parse_time_value(text, *precision, t)?),
            Data::Decimal128 { values, precision, scale } => values.push(parse_decimal128(text, *precision, *scale, t)?),
            Data::Decimal256 { values, precision, scale } => values.push(parse_decimal256(text, *precision, *scale, t)?),
            Data::Wide { kind, values } => values.push(parse_wide(*kind, text, t, wraps)?),
            Data::List { .. } | Data::Tuple { .. } | Data::Map { .. } | Data::Variant { .. } => {
                return self.parse_text(text);
            }
        }
        self.mark_valid();
        Ok(())
    }

    /// Appends one value in the quoted syntax of `Values` and of nested values, starting at
    /// `*pos` (leading whitespace skipped) and moving `*pos` past it. A token that is not a
    /// literal (a function call, an operator, an identifier) is a SYNTAX_ERROR, which tells
    /// the `Values` reader to fall back to evaluating expressions.
    pub fn parse_quoted(&mut self, input: &[u8], pos: &mut usize, scratch: &mut Vec<u8>) -> Result<()> {
        skip_ws(input, pos);
        let Some(&first) = input.get(*pos) else {
            return Err(Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse {}: unexpected end of input", self.ch_type)));
        };
        if is_keyword(input, *pos, b"null") {
            *pos += 4;
            return self.append_null();
        }
        match &mut self.data {
            Data::List { offsets, child } => {
                expect(input, pos, b'[', &self.ch_type)?;
                let start_len = child.len();
                let result = read_sequence(input, pos, b']', |input, pos| child.parse_quoted(input, pos, scratch));
                if let Err(e) = result {
                    child.truncate(start_len);
                    return Err(e);
                }
                offsets.push(child.len() as i32);
            }
            Data::Tuple { children } => {
                expect(input, pos, b'(', &self.ch_type)?;
                let start = self.len;
                let count = children.len();
                let mut index = 0;
                let result = read_sequence(input, pos, b')', |input, pos| {
                    let child = children.get_mut(index).ok_or_else(|| {
                        Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Too many elements in a tuple of {count}"))
                    })?;
                    index += 1;
                    child.parse_quoted(input, pos, scratch)
                })
                .and_then(|_| {
                    if index == count {
                        Ok(())
                    } else {
                        Err(Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Expected {count} elements in a tuple, got {index}")))
                    }
                });
                if let Err(e) = result {
                    children.iter_mut().for_each(|c| c.truncate(start));
                    return Err(e);
                }
            }
            Data::Map { offsets, keys, values } => {
                expect(input, pos, b'{', &self.ch_type)?;
                let start = keys.len();
                let result = read_sequence(input, pos, b'}', |input, pos| {
                    keys.parse_quoted(input, pos, scratch)?;
                    skip_ws(input, pos);
                    if input.get(*pos) != Some(&b':') {
                        return Err(Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse map: expected ':' before: '{}'", shorten(&input[*pos..]))));
                    }
                    *pos += 1;
                    values.parse_quoted(input, pos, scratch)
                });
                if let Err(e) = result {
                    keys.truncate(start);
                    values.truncate(start);
                    return Err(e);
                }
                offsets.push(keys.len() as i32);
            }
            Data::Variant { children, order } => {
                let start = *pos;
                let result = if first == b'\'' {
                    // A string literal is a String when the Variant has one.
                    scratch.clear();
                    read_quoted_string(input, pos, scratch)?;
                    let text = std::mem::take(scratch);
                    let string = children.iter().position(ColumnBuilder::is_string);
                    let result = match string {
                        Some(i) => {
                            let mut result = Ok(());
                            for (j, c) in children.iter_mut().enumerate() {
                                result = result.and_then(|_| if j == i { c.parse_text(&text) } else { c.append_null() });
                            }
                            result
                        }
                        None => variant_from_text(children, order, &text, &self.ch_type),
                    };
                    *scratch = text;
                    result
                } else if matches!(first, b'[' | b'(' | b'{') {
                    variant_from_composite(children, |child, pos| child.parse_quoted(input, pos, scratch), pos, &self.ch_type)
                } else {
                    let end = bare_token_end(input, start);
                    let result = variant_from_text(children, order, &input[start..end], &self.ch_type);
                    if result.is_ok() {
                        *pos = end;
                    }
                    result
                };
                if result.is_err() {
                    *pos = start;
                }
                result?;
            }
            _ if first == b'\'' => {
                if let Data::Str { offsets, data } = &mut self.data {
                    // Strings decode straight into the column's bytes.
                    read_quoted_string(input, pos, data)?;
                    offsets.push(data.len() as i32);
                } else {
                    scratch.clear();
                    read_quoted_string(input, pos, scratch)?;
                    let text = std::mem::take(scratch);
                    let result = if text.is_empty() { self.append_default() } else { self.parse_scalar(&text) };
                    *scratch = text;
                    return result;
                }
            }
            _ => {
                let start = *pos;
                let end = bare_token_end(input, start);
                let token = &input[start..end];
                let mut after = end;
                skip_ws(input, &mut after);
                let followed_by_delimiter = matches!(input.get(after), None | Some(b',' | b')' | b']' | b'}' | b':' | b';'));
                let is_literal = !token.is_empty() && followed_by_delimiter && looks_like_literal(token);
                let quoted_type = matches!(
                    self.data,
                    Data::Str { .. } | Data::Fixed { .. } | Data::Uuid(_) | Data::IPv4(_) | Data::IPv6(_) | Data::Date { .. } | Data::DateTime { .. } | Data::Time { .. }
                );
                if !is_literal || quoted_type {
                    return Err(Error::new(
                        ErrorCode::SYNTAX_ERROR,
                        format!("Cannot parse expression of type {} here: {}", self.ch_type, shorten(&input[start..])),
                    ));
                }
                self.parse_scalar(token)?;
                *pos = end;
                return Ok(());
            }
        }
        self.mark_valid();
        Ok(())
    }

    /// Appends one JSON value starting at `*pos` (leading whitespace skipped), moving
    /// `*pos` past it. Numbers may be quoted; strings take numbers, bools, and the raw
    /// text of objects and arrays (ClickHouse's `input_format_json_read_*_as_strings`).
    pub fn parse_json(&mut self, input: &[u8], pos: &mut usize, scratch: &mut Vec<u8>) -> Result<()> {
        skip_ws(input, pos);
        let Some(&first) = input.get(*pos) else {
            return Err(Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse {} from JSON: unexpected end of input", self.ch_type)));
        };
        match first {
            b'n' => {
                if !input[*pos..].starts_with(b"null") {
                    return Err(json_error(input, *pos, "expected null"));
                }
                *pos += 4;
                return self.append_null();
            }
            b'"' => {
                if let Data::Str { offsets, data } = &mut self.data {
                    read_json_string(input, pos, data)?;
                    offsets.push(data.len() as i32);
                    self.mark_valid();
                    return Ok(());
                }
                scratch.clear();
                read_json_string(input, pos, scratch)?;
                let text = std::mem::take(scratch);
                let result = self.parse_text(&text);
                *scratch = text;
                return result;
            }
            b't' | b'f' => {
                let (word, value): (&[u8], bool) = if first == b't' { (b"true", true) } else { (b"false", false) };
                if !input[*pos..].starts_with(word) {
                    return Err(json_error(input, *pos, "expected true or false"));
                }
                *pos += word.len();
                return match &mut self.data {
                    Data::Bool(v) => {
                        v.append(value);
                        self.mark_valid();
                        Ok(())
                    }
                    // input_format_json_read_bools_as_numbers / _as_strings.
                    Data::Str { .. } => self.parse_scalar(word),
                    Data::I8(_) | Data::I16(_) | Data::I32(_) | Data::I64(_) | Data::U8(_) | Data::U16(_) | Data::U32(_) | Data::U64(_)
                    | Data::F32(_) | Data::F64(_) | Data::Decimal128 { .. } | Data::Decimal256 { .. } | Data::Wide { .. } => {
                        self.parse_scalar(if value { b"1" } else { b"0" })
                    }
                    _ => Err(Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse {} from JSON bool {}", self.ch_type, shorten(word)))),
                };
            }
            _ => {}
        }
        match &mut self.data {
            Data::Variant { children, .. } if first == b'[' || first == b'{' => {
                variant_from_composite(children, |child, pos| child.parse_json(input, pos, scratch), pos, &self.ch_type)?;
            }
            Data::Str { offsets, data } if first == b'[' || first == b'{' => {
                let start = *pos;
                skip_json_value(input, pos)?;
                data.extend_from_slice(&input[start..*pos]);
                offsets.push(data.len() as i32);
            }
            Data::List { offsets, child } if first == b'[' => {
                *pos += 1;
                let start_len = child.len();
                let result = read_sequence(input, pos, b']', |input, pos| child.parse_json(input, pos, scratch));
                if let Err(e) = result {
                    child.truncate(start_len);
                    return Err(e);
                }
                offsets.push(child.len() as i32);
            }
            Data::Tuple { children } if first == b'[' => {
                *pos += 1;
                let start = self.len;
                let count = children.len();
                let mut index = 0;
                let result = read_sequence(input, pos, b']', |input, pos| {
                    let child = children.get_mut(index).ok_or_else(|| {
                        Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Too many elements in a tuple of {count}"))
                    })?;
                    index += 1;
                    child.parse_json(input, pos, scratch)
                })
                .and_then(|_| {
                    if index == count {
                        Ok(())
                    } else {
                        Err(Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Expected {count} elements in a tuple, got {index}")))
                    }
                });
                if let Err(e) = result {
                    children.iter_mut().for_each(|c| c.truncate(start));
                    return Err(e);
                }
            }
            Data::Tuple { children } if first == b'{' => {
                // A named tuple as an object: elements by name, missing ones default.
                let names: Vec<String> = match &self.ch_type.base() {
                    ChType::Tuple(items) => items.iter().map(|(n, _)| n.clone()).collect(),
                    _ => Vec::new(),
                };
                *pos += 1;
                let start = self.len;
                let mut seen = vec![false; children.len()];
                let result = read_object(input, pos, scratch, |key, input, pos, scratch| {
                    match names.iter().position(|n| n.as_bytes() == key) {
                        Some(i) if !seen[i] => {
                            seen[i] = true;
                            children[i].parse_json(input, pos, scratch)
                        }
                        _ => skip_json_value(input, pos),
                    }
                })
                .and_then(|_| {
                    for (child, seen) in children.iter_mut().zip(&seen) {
                        if !seen {
                            child.append_default()?;
                        }
                    }
                    Ok(())
                });
                if let Err(e) = result {
                    children.iter_mut().for_each(|c| c.truncate(start));
                    return Err(e);
                }
            }
            Data::Map { offsets, keys, values } if first == b'{' => {
                *pos += 1;
                let start = keys.len();
                let result = read_object(input, pos, scratch, |key, input, pos, scratch| {
                    keys.parse_text(key)?;
                    values.parse_json(input, pos, scratch)
                });
                if let Err(e) = result {
                    keys.truncate(start);
                    values.truncate(start);
                    return Err(e);
                }
                offsets.push(keys.len() as i32);
            }
            _ if first == b'-' || first.is_ascii_digit() => {
                let start = *pos;
                *pos += 1;
                while input.get(*pos).is_some_and(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-')) {
                    *pos += 1;
                }
                // A JSON number for a Date is a day number, as in ClickHouse.
                if let Data::Date { days, min, max } = &mut self.data {
                    if let Some(day) = std::str::from_utf8(&input[start..*pos]).ok().and_then(|s| s.parse::<i64>().ok()) {
                        days.push(day.clamp(*min, *max) as i32);
                        self.mark_valid();
                        return Ok(());
                    }
                }
                return self.parse_scalar(&input[start..*pos]);
            }
            _ => {
                return Err(json_error(input, *pos, &format!("cannot read a value of type {} from JSON", self.ch_type)));
            }
        }
        self.mark_valid();
        Ok(())
    }

    /// The values appended so far as an array of the target field's type; the builder
    /// is empty afterwards and can be reused.
    pub fn finish(&mut self) -> Result<ArrayRef> {
        let len = std::mem::take(&mut self.len);
        let nulls = self.validity.take().map(|mut v| NullBuffer::new(v.finish())).filter(|n| n.null_count() > 0);
        let built: ArrayRef = match &mut self.data {
            Data::Nothing => new_null_array(&DataType::Null, len),
            Data::I8(v) => Arc::new(Int8Array::new(take_vec(v), nulls)),
            Data::I16(v) => Arc::new(Int16Array::new(take_vec(v), nulls)),
            Data::I32(v) => Arc::new(Int32Array::new(take_vec(v), nulls)),
            Data::I64(v) => Arc::new(Int64Array::new(take_vec(v), nulls)),
            Data::U8(v) => Arc::new(UInt8Array::new(take_vec(v), nulls)),
            Data::U16(v) => Arc::new(UInt16Array::new(take_vec(v), nulls)),
            Data::U32(v) => Arc::new(UInt32Array::new(take_vec(v), nulls)),
            Data::U64(v) => Arc::new(UInt64Array::new(take_vec(v), nulls)),
            Data::F32(v) => Arc::new(Float32Array::new(take_vec(v), nulls)),
            Data::F64(v) => Arc::new(Float64Array::new(take_vec(v), nulls)),
            Data::Bool(v) => Arc::new(BooleanArray::new(v.finish(), nulls)),
            Data::Str { offsets, data } => {
                let mut offsets = std::mem::replace(offsets, vec![0]);
                let mut data = std::mem::take(data);
                if std::str::from_utf8(&data).is_err() {
                    // Arrow strings must be UTF-8; ClickHouse strings are bytes. Invalid
                    // sequences are replaced (rare, so the common path is one validation).
                    let (fixed_offsets, fixed) = replace_invalid_utf8(&offsets, &data);
                    offsets = fixed_offsets;
                    data = fixed;
                }
                if data.len() > i32::MAX as usize {
                    return Err(Error::new(ErrorCode::TOO_LARGE_STRING_SIZE, "The strings of one block are larger than 2 GiB"));
                }
                Arc::new(StringArray::new(OffsetBuffer::new(ScalarBuffer::from(offsets)), Buffer::from_vec(data), nulls))
            }
            Data::Fixed { width, data } => {
                let data = std::mem::take(data);
                Arc::new(FixedSizeBinaryArray::try_new(*width as i32, Buffer::from_vec(data), nulls)?)
            }
            Data::Uuid(v) | Data::IPv6(v) => Arc::new(FixedSizeBinaryArray::try_new(16, Buffer::from_vec(std::mem::take(v)), nulls)?),
            Data::Enum { values, wide: false, .. } => Arc::new(Int8Array::new(values.drain(..).map(|v| v as i8).collect(), nulls)),
            Data::Enum { values, wide: true, .. } => Arc::new(Int16Array::new(take_vec(values), nulls)),
            Data::IPv4(v) => Arc::new(UInt32Array::new(take_vec(v), nulls)),
            Data::Date { days, .. } => Arc::new(Date32Array::new(take_vec(days), nulls)),
            Data::DateTime { values, zone: _, unit, .. } => {
                let tz = match &self.built_type {
                    DataType::Timestamp(_, tz) => tz.clone(),
                    _ => None,
                };
                let values = take_vec(values);
                match unit {
                    TimeUnit::Second => Arc::new(timestamp::<TimestampSecondType>(values, nulls, tz)),
                    TimeUnit::Millisecond => Arc::new(timestamp::<TimestampMillisecondType>(values, nulls, tz)),
                    TimeUnit::Microsecond => Arc::new(timestamp::<TimestampMicrosecondType>(values, nulls, tz)),
                    TimeUnit::Nanosecond => Arc::new(timestamp::<TimestampNanosecondType>(values, nulls, tz)),
                }
            }
            Data::Time { values, precision: None } => Arc::new(Time32SecondArray::new(values.drain(..).map(|v| v as i32).collect(), nulls)),
            Data::Time { values, precision: Some(0..=6) } => Arc::new(Time64MicrosecondArray::new(take_vec(values), nulls)),
            Data::Time { values, precision: Some(_) } => Arc::new(Time64NanosecondArray::new(take_vec(values), nulls)),
            Data::Decimal128 { values, precision, scale } => {
                Arc::new(Decimal128Array::new(take_vec(values), nulls).with_precision_and_scale(*precision, *scale as i8)?)
            }
            Data::Decimal256 { values, precision, scale } => {
                Arc::new(Decimal256Array::new(take_vec(values), nulls).with_precision_and_scale(*precision, *scale as i8)?)
            }
            Data::Wide { kind, values } => kind.narrow(&Decimal256Array::new(take_vec(values), nulls)),
            Data::List { offsets, child } => {
                let item = match &self.built_type {
                    DataType::List(item) => item.clone(),
                    other => return Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("Array built as {other}"))),
                };
                let offsets = std::mem::replace(offsets, vec![0]);
                let values = child.finish()?;
                Arc::new(ListArray::try_new(item, OffsetBuffer::new(ScalarBuffer::from(offsets)), values, nulls)?)
            }
            Data::Tuple { children } => {
                let fields = match &self.built_type {
                    DataType::Struct(fields) => fields.clone(),
                    other => return Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("Tuple built as {other}"))),
                };
                let columns = children.iter_mut().map(|c| c.finish()).collect::<Result<Vec<_>>>()?;
                if fields.is_empty() {
                    Arc::new(StructArray::new_empty_fields(len, nulls))
                } else {
                    Arc::new(StructArray::try_new(fields, columns, nulls)?)
                }
            }
            Data::Variant { children, .. } => {
                let fields = match &self.built_type {
                    DataType::Struct(fields) => fields.clone(),
                    other => return Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("Variant built as {other}"))),
                };
                let columns = children.iter_mut().map(|c| c.finish()).collect::<Result<Vec<_>>>()?;
                Arc::new(StructArray::try_new(fields, columns, nulls)?)
            }
            Data::Map { offsets, keys, values } => {
                let (entries_field, sorted) = match &self.built_type {
                    DataType::Map(entries, sorted) => (entries.clone(), *sorted),
                    other => return Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("Map built as {other}"))),
                };
                let entry_fields = match entries_field.data_type() {
                    DataType::Struct(fields) => fields.clone(),
                    other => return Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("Map entries built as {other}"))),
                };
                let offsets = std::mem::replace(offsets, vec![0]);
                let entries = StructArray::try_new(entry_fields, vec![keys.finish()?, values.finish()?], None)?;
                Arc::new(MapArray::try_new(entries_field, OffsetBuffer::new(ScalarBuffer::from(offsets)), entries, nulls, sorted)?)
            }
        };
        if built.data_type() == self.target.data_type() {
            Ok(built)
        } else {
            Ok(arrow::compute::cast(&built, self.target.data_type())?)
        }
    }
}

/// The order in which the types of a Variant try to read a text: numbers (unsigned,
/// signed, floats, decimals), then booleans, dates and times, other scalars, arrays,
/// tuples and maps, and strings last, since a String reads anything.
fn variant_text_order(types: &[ChType]) -> Vec<usize> {
    let rank = |t: &ChType| match t.base() {
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::UInt128 | ChType::UInt256 => 0,
        ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Int128 | ChType::Int256 => 1,
        ChType::Float32 | ChType::Float64 => 2,
        ChType::Decimal(..) => 3,
        ChType::Bool => 4,
        ChType::Date | ChType::Date32 => 5,
        ChType::DateTime(_) | ChType::DateTime64(..) => 6,
        ChType::Time | ChType::Time64(_) => 7,
        ChType::Array(_) | ChType::Tuple(_) | ChType::Map(..) => 9,
        ChType::String | ChType::FixedString(_) => 10,
        _ => 8,
    };
    let mut order: Vec<usize> = (0..types.len()).collect();
    order.sort_by_key(|&i| rank(&types[i]));
    order
}

/// Appends `text` to the first Variant child (in `order`) that reads it and NULL to the
/// others. Only strings take an empty text.
fn variant_from_text(children: &mut [ColumnBuilder], order: &[usize], text: &[u8], t: &ChType) -> Result<()> {
    let len = children.first().map_or(0, ColumnBuilder::len);
    for &i in order {
        if text.is_empty() && !children[i].is_string() {
            continue;
        }
        if children[i].parse_text(text).is_ok() {
            for (j, other) in children.iter_mut().enumerate() {
                if j != i {
                    other.append_null()?;
                }
            }
            return Ok(());
        }
        children[i].truncate(len);
    }
    Err(Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse {t} from '{}': none of its types reads it", shorten(text))))
}

/// Reads a composite value (an array, tuple or map) into the first Variant child whose
/// `read` succeeds from `*pos`, NULL into the others.
fn variant_from_composite(
    children: &mut [ColumnBuilder],
    mut read: impl FnMut(&mut ColumnBuilder, &mut usize) -> Result<()>,
    pos: &mut usize,
    t: &ChType,
) -> Result<()> {
    let len = children.first().map_or(0, ColumnBuilder::len);
    let composite = |c: &ColumnBuilder| matches!(c.data, Data::List { .. } | Data::Tuple { .. } | Data::Map { .. } | Data::Str { .. });
    let start = *pos;
    // Arrays, tuples and maps first; a String takes the raw text last.
    let mut candidates: Vec<usize> = (0..children.len()).filter(|&i| composite(&children[i]) && !children[i].is_string()).collect();
    candidates.extend((0..children.len()).filter(|&i| children[i].is_string()));
    for i in candidates {
        *pos = start;
        if read(&mut children[i], pos).is_ok() {
            for (j, other) in children.iter_mut().enumerate() {
                if j != i {
                    other.append_null()?;
                }
            }
            return Ok(());
        }
        children[i].truncate(len);
    }
    *pos = start;
    Err(Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse {t}: none of its types reads the value")))
}

/// A `Time`/`Time64` text in the Arrow unit of its type.
fn parse_time_value(text: &[u8], precision: Option<u8>, t: &ChType) -> Result<i64> {
    let nanos = super::time::parse_time(text, precision, &t.base().to_string())?;
    Ok(nanos / (1_000_000_000 / super::time::units_per_second(precision)))
}

fn take_vec<T: arrow::datatypes::ArrowNativeType>(v: &mut Vec<T>) -> ScalarBuffer<T> {
    ScalarBuffer::from(std::mem::take(v))
}

fn timestamp<T: ArrowTimestampType>(values: ScalarBuffer<i64>, nulls: Option<NullBuffer>, tz: Option<Arc<str>>) -> PrimitiveArray<T> {
    PrimitiveArray::<T>::new(values, nulls).with_timezone_opt(tz)
}

fn replace_invalid_utf8(offsets: &[i32], data: &[u8]) -> (Vec<i32>, Vec<u8>) {
    let mut fixed = Vec::with_capacity(data.len() + 16);
    let mut fixed_offsets = Vec::with_capacity(offsets.len());
    fixed_offsets.push(0);
    for w in offsets.windows(2) {
        fixed.extend_from_slice(String::from_utf8_lossy(&data[w[0] as usize..w[1] as usize]).as_bytes());
        fixed_offsets.push(fixed.len() as i32);
    }
    (fixed_offsets, fixed)
}

/// Skips spaces, tabs, CR and LF.
#[inline]
pub fn skip_ws(input: &[u8], pos: &mut usize) {
    while input.get(*pos).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')) {
        *pos += 1;
    }
}

fn expect(input: &[u8], pos: &mut usize, byte: u8, t: &ChType) -> Result<()> {
    if input.get(*pos) == Some(&byte) {
        *pos += 1;
        Ok(())
    } else {
        Err(Error::new(
            ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
            format!("Cannot parse input: expected '{}' before: '{}' (reading {t})", byte as char, shorten(&input[(*pos).min(input.len())..])),
        ))
    }
}

/// `elem, elem, ... close` after the opening bracket: calls `element` for each.
pub fn read_sequence(input: &[u8], pos: &mut usize, close: u8, mut element: impl FnMut(&[u8], &mut usize) -> Result<()>) -> Result<()> {
    skip_ws(input, pos);
    if input.get(*pos) == Some(&close) {
        *pos += 1;
        return Ok(());
    }
    loop {
        element(input, pos)?;
        skip_ws(input, pos);
        match input.get(*pos) {
            Some(b',') => *pos += 1,
            Some(c) if *c == close => {
                *pos += 1;
                return Ok(());
            }
            Some(_) => {
                return Err(Error::new(
                    ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                    format!("Cannot parse input: expected ',' or '{}' before: '{}'", close as char, shorten(&input[*pos..])),
                ))
            }
            None => {
                return Err(Error::new(
                    ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                    format!("Cannot parse input: expected '{}' at end of stream", close as char),
                ))
            }
        }
    }
}

/// The members of a JSON object after its `{`: `member(key, input, pos, scratch)` reads
/// (or skips) each value; `*pos` ends after the `}`.
pub fn read_object(
    input: &[u8],
    pos: &mut usize,
    scratch: &mut Vec<u8>,
    mut member: impl FnMut(&[u8], &[u8], &mut usize, &mut Vec<u8>) -> Result<()>,
) -> Result<()> {
    let mut key = Vec::new();
    skip_ws(input, pos);
    if input.get(*pos) == Some(&b'}') {
        *pos += 1;
        return Ok(());
    }
    loop {
        skip_ws(input, pos);
        if input.get(*pos) != Some(&b'"') {
            return Err(json_error(input, *pos, "expected '\"' (a key)"));
        }
        key.clear();
        read_json_string(input, pos, &mut key)?;
        skip_ws(input, pos);
        if input.get(*pos) != Some(&b':') {
            return Err(json_error(input, *pos, "expected ':'"));
        }
        *pos += 1;
        member(&key, input, pos, scratch)?;
        skip_ws(input, pos);
        match input.get(*pos) {
            Some(b',') => *pos += 1,
            Some(b'}') => {
                *pos += 1;
                return Ok(());
            }
            _ => return Err(json_error(input, *pos, "expected ',' or '}'")),
        }
    }
}

/// Moves `*pos` past one JSON value (for unknown keys and strings holding raw JSON).
pub fn skip_json_value(input: &[u8], pos: &mut usize) -> Result<()> {
    skip_ws(input, pos);
    let mut depth = 0usize;
    loop {
        let Some(&b) = input.get(*pos) else {
            return Err(json_error(input, *pos, "unexpected end of input"));
        };
        match b {
            b'"' => {
                // Strings are skipped by their escapes only; no decoding is needed.
                let mut i = *pos + 1;
                loop {
                    // A backslash as the last byte leaves `i` past the end.
                    match memchr::memchr2(b'"', b'\\', input.get(i..).unwrap_or_default()) {
                        Some(o) if input[i + o] == b'\\' => i += o + 2,
                        Some(o) => {
                            i += o + 1;
                            break;
                        }
                        None => return Err(json_error(input, *pos, "expected closing quote")),
                    }
                }
                *pos = i;
            }
            b'{' | b'[' => {
                depth += 1;
                *pos += 1;
                skip_ws(input, pos);
                continue;
            }
            b'}' | b']' => {
                if depth == 0 {
                    return Err(json_error(input, *pos, "unexpected closing bracket"));
                }
                depth -= 1;
                *pos += 1;
            }
            b',' | b':' if depth > 0 => {
                *pos += 1;
                skip_ws(input, pos);
                continue;
            }
            _ => {
                let start = *pos;
                while input.get(*pos).is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-')) {
                    *pos += 1;
                }
                if *pos == start {
                    return Err(json_error(input, start, "unexpected character"));
                }
            }
        }
        skip_ws(input, pos);
        if depth == 0 {
            return Ok(());
        }
    }
}

fn json_error(input: &[u8], pos: usize, what: &str) -> Error {
    Error::new(
        ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
        format!("Cannot parse JSON: {what} before: '{}'", shorten(&input[pos.min(input.len())..])),
    )
}

/// Whether `input[pos..]` starts with `word` (case-insensitive) not followed by an
/// identifier character.
fn is_keyword(input: &[u8], pos: usize, word: &[u8]) -> bool {
    input.len() >= pos + word.len()
        && input[pos..pos + word.len()].eq_ignore_ascii_case(word)
        && !input.get(pos + word.len()).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// The end of an unquoted token: numbers, `true`, `nan`, `-inf`, or the start of an
/// expression (which the caller recognises).
fn bare_token_end(input: &[u8], start: usize) -> usize {
    let mut end = start;
    while let Some(&b) = input.get(end) {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_') || ((b == b'+' || b == b'-') && (end == start || matches!(input[end - 1], b'e' | b'E'))) {
            end += 1;
        } else {
            break;
        }
    }
    end
}

/// Numbers, booleans, nan and inf: the literals that may appear unquoted.
fn looks_like_literal(token: &[u8]) -> bool {
    let body = token.strip_prefix(b"-").or_else(|| token.strip_prefix(b"+")).unwrap_or(token);
    match body.first() {
        Some(b) if b.is_ascii_digit() || *b == b'.' => true,
        _ => ["inf", "infinity", "nan", "true", "false"].iter().any(|w| body.eq_ignore_ascii_case(w.as_bytes())),
    }
}

/// Integers: an optional sign and digits; overflow of the column type is an error.
/// Integer types read by the text parsers, with the two's-complement truncation that
/// wrapping overflow needs.
trait Integer: TryFrom<i64> + TryFrom<u64> {
    fn truncated(bits: u64) -> Self;
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Integer for $t {
            fn truncated(bits: u64) -> Self {
                bits as $t
            }
        }
    )*};
}
integer!(i8, i16, i32, i64, u8, u16, u32, u64);

/// A signed integer; out of range it wraps when `wraps` (ClickHouse's input formats read
/// `1000` into Int8 as -24), else it is an error.
/// Pushes `parse` of each text (all present) onto `column`, all or none: true when done.
fn push_parsed<T>(column: &mut Vec<T>, texts: &[Option<&[u8]>], parse: impl Fn(&[u8]) -> Result<T>) -> Result<bool> {
    let before = column.len();
    column.reserve(texts.len());
    for text in texts.iter().flatten() {
        match parse(text) {
            Ok(value) => column.push(value),
            Err(e) => {
                column.truncate(before);
                return Err(e);
            }
        }
    }
    Ok(true)
}

fn parse_signed<T: Integer>(text: &[u8], t: &ChType, wraps: bool) -> Result<T> {
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = parse_digits(digits, text, t, wraps)?;
    if wraps {
        return Ok(T::truncated(if negative { magnitude.wrapping_neg() } else { magnitude }));
    }
    let value = if negative {
        if magnitude == i64::MAX as u64 + 1 {
            Some(i64::MIN)
        } else {
            i64::try_from(magnitude).ok().map(|v| -v)
        }
    } else {
        i64::try_from(magnitude).ok()
    };
    value.and_then(|v| T::try_from(v).ok()).ok_or_else(|| type_error(text, t, ErrorCode::CANNOT_PARSE_NUMBER, "the value is out of range of the type"))
}

/// An unsigned integer; a minus sign is always an error (as in ClickHouse), overflow
/// wraps when `wraps`.
fn parse_unsigned<T: Integer>(text: &[u8], t: &ChType, wraps: bool) -> Result<T> {
    let digits = match text.first() {
        Some(b'+') => &text[1..],
        Some(b'-') if text.len() > 1 && text[1..].iter().all(|d| *d == b'0') => &text[1..],
        Some(b'-') => return Err(type_error(text, t, ErrorCode::CANNOT_PARSE_NUMBER, "a negative number is out of range of the type")),
        _ => text,
    };
    let value = parse_digits(digits, text, t, wraps)?;
    if wraps {
        return Ok(T::truncated(value));
    }
    T::try_from(value).map_err(|_| type_error(text, t, ErrorCode::CANNOT_PARSE_NUMBER, "the value is out of range of the type"))
}

#[inline]
fn parse_digits(digits: &[u8], text: &[u8], t: &ChType, wraps: bool) -> Result<u64> {
    // One to 19 digits cannot overflow a u64: no check per digit but that it is one.
    if !digits.is_empty() && digits.len() <= 19 {
        let mut value = 0u64;
        for &d in digits {
            let v = d.wrapping_sub(b'0');
            if v > 9 {
                return parse_digits_checked(digits, text, t, wraps);
            }
            value = value * 10 + u64::from(v);
        }
        return Ok(value);
    }
    parse_digits_checked(digits, text, t, wraps)
}

/// `parse_digits` with every error and overflow check.
#[cold]
#[inline(never)]
fn parse_digits_checked(digits: &[u8], text: &[u8], t: &ChType, wraps: bool) -> Result<u64> {
    if digits.is_empty() {
        return Err(type_error(text, t, ErrorCode::CANNOT_PARSE_TEXT, "syntax error at begin of string"));
    }
    let mut value: u64 = 0;
    for (i, &d) in digits.iter().enumerate() {
        if !d.is_ascii_digit() {
            let position = text.len() - digits.len() + i;
            let detail = if position == 0 {
                "syntax error at begin of string".to_string()
            } else {
                format!("syntax error at position {position} (parsed just '{}')", shorten(&text[..position]))
            };
            return Err(type_error(text, t, ErrorCode::CANNOT_PARSE_TEXT, &detail));
        }
        value = if wraps {
            value.wrapping_mul(10).wrapping_add((d - b'0') as u64)
        } else {
            value
                .checked_mul(10)
                .and_then(|v| v.checked_add((d - b'0') as u64))
                .ok_or_else(|| type_error(text, t, ErrorCode::CANNOT_PARSE_NUMBER, "the value is out of range of the type"))?
        };
    }
    Ok(value)
}

/// A wide integer; out of range it wraps when `wraps`, else it is an error.
fn parse_wide(kind: WideInt, text: &[u8], t: &ChType, wraps: bool) -> Result<i256> {
    match kind.parse(text) {
        Ok((value, fits)) if fits || wraps => Ok(value),
        Ok(_) => Err(type_error(text, t, ErrorCode::CANNOT_PARSE_NUMBER, "the value is out of range of the type")),
        Err(WideParseError::Negative) => Err(type_error(text, t, ErrorCode::CANNOT_PARSE_NUMBER, "a negative number is out of range of the type")),
        Err(WideParseError::Trailing(position)) => Err(type_error(
            text,
            t,
            ErrorCode::CANNOT_PARSE_TEXT,
            &format!("syntax error at position {position} (parsed just '{}')", shorten(&text[..position])),
        )),
        Err(WideParseError::Empty | WideParseError::AtBegin) => Err(type_error(text, t, ErrorCode::CANNOT_PARSE_TEXT, "syntax error at begin of string")),
    }
}

fn parse_float<T: std::str::FromStr>(text: &[u8]) -> Result<T> {
    // Rust's float parser takes what ClickHouse does: `1e5`, `.5`, `+1`, `inf`, `-inf`,
    // `nan`, `infinity` (any case), with correct rounding for each width.
    std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse::<T>().ok())
        .ok_or_else(|| Error::new(ErrorCode::CANNOT_PARSE_NUMBER, format!("Cannot read floating point value here: '{}'", shorten(text))))
}

/// ClickHouse's Bool words, case-insensitive.
fn parse_bool(text: &[u8]) -> Result<bool> {
    const TRUE: [&str; 8] = ["true", "t", "yes", "y", "on", "enable", "enabled", "1"];
    const FALSE: [&str; 8] = ["false", "f", "no", "n", "off", "disable", "disabled", "0"];
    if TRUE.iter().any(|w| text.eq_ignore_ascii_case(w.as_bytes())) {
        Ok(true)
    } else if FALSE.iter().any(|w| text.eq_ignore_ascii_case(w.as_bytes())) {
        Ok(false)
    } else {
        Err(Error::new(
            ErrorCode::CANNOT_PARSE_TEXT,
            format!(
                "Cannot parse boolean value here: '{}', should be 'true' or 'false' or one of True/False/T/F/Y/N/Yes/No/On/Off/Enable/Disable/Enabled/Disabled/1/0",
                shorten(text)
            ),
        ))
    }
}

/// `61f0c404-5cb3-11e7-907b-a6006ad3dba0` or the 32 hex digits without dashes.
/// An enum value from an element's name, or from its number (ClickHouse accepts both).
pub fn parse_enum(text: &[u8], by_name: &std::collections::HashMap<String, i16>) -> Result<i16> {
    let name = String::from_utf8_lossy(text);
    if let Some(value) = by_name.get(name.as_ref()) {
        return Ok(*value);
    }
    match name.trim().parse::<i64>() {
        Ok(number) if by_name.values().any(|v| *v as i64 == number) => Ok(number as i16),
        Ok(number) => Err(Error::new(ErrorCode::UNKNOWN_ELEMENT_OF_ENUM, format!("Unexpected value {number} in enum"))),
        Err(_) => Err(Error::new(ErrorCode::UNKNOWN_ELEMENT_OF_ENUM, format!("Unknown element '{name}' for enum"))),
    }
}

/// `a.b.c.d`.
pub fn parse_ipv4_text(text: &[u8]) -> Result<u32> {
    std::str::from_utf8(text)
        .ok()
        .and_then(crate::ip::parse_ipv4)
        .ok_or_else(|| Error::new(ErrorCode::CANNOT_PARSE_IPV4, format!("Cannot parse IPv4 {}", shorten(text))))
}

/// An IPv6 address, or an IPv4 one (as `::ffff:a.b.c.d`).
pub fn parse_ipv6_text(text: &[u8]) -> Result<[u8; 16]> {
    std::str::from_utf8(text)
        .ok()
        .and_then(crate::ip::parse_ipv6)
        .ok_or_else(|| Error::new(ErrorCode::CANNOT_PARSE_IPV6, format!("Cannot parse IPv6 {}", shorten(text))))
}

fn parse_uuid(text: &[u8]) -> Result<[u8; 16]> {
    let bad = || Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse uuid {}", shorten(text)));
    let hex: Vec<u8> = match text.len() {
        36 if [8, 13, 18, 23].iter().all(|i| text[*i] == b'-') => text.iter().copied().filter(|b| *b != b'-').collect(),
        32 => text.to_vec(),
        _ => return Err(bad()),
    };
    let mut out = [0u8; 16];
    for (i, pair) in hex.chunks(2).enumerate() {
        let h = (pair[0] as char).to_digit(16).ok_or_else(bad)?;
        let l = (pair[1] as char).to_digit(16).ok_or_else(bad)?;
        out[i] = (h * 16 + l) as u8;
    }
    Ok(out)
}

/// The digits of a decimal literal, the position of its point, and its sign:
/// `-12.5e1` is (`125`, point after 3 digits, negative).
struct DecimalText<'a> {
    negative: bool,
    int_digits: &'a [u8],
    frac_digits: &'a [u8],
    exponent: i64,
}

fn split_decimal<'a>(text: &'a [u8], t: &ChType) -> Result<DecimalText<'a>> {
    let bad = |detail: &str| type_error(text, t, ErrorCode::CANNOT_PARSE_NUMBER, detail);
    let (negative, rest) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let int_len = rest.iter().position(|b| !b.is_ascii_digit()).unwrap_or(rest.len());
    let int_digits = &rest[..int_len];
    let mut rest = &rest[int_len..];
    let mut frac_digits: &[u8] = &[];
    if let Some(after) = rest.strip_prefix(b".") {
        let frac_len = after.iter().position(|b| !b.is_ascii_digit()).unwrap_or(after.len());
        frac_digits = &after[..frac_len];
        rest = &after[frac_len..];
    }
    if int_digits.is_empty() && frac_digits.is_empty() {
        return Err(bad("syntax error at begin of string"));
    }
    let mut exponent = 0i64;
    if let Some(after) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let text = std::str::from_utf8(after).map_err(|_| bad("bad exponent"))?;
        exponent = text.parse::<i64>().map_err(|_| bad("bad exponent"))?;
        if exponent.abs() > 100 {
            return Err(bad("the exponent is out of range"));
        }
        rest = &[];
    }
    if !rest.is_empty() {
        return Err(bad("unexpected text after the number"));
    }
    Ok(DecimalText { negative, int_digits, frac_digits, exponent })
}

/// Digits of the scaled integer of a decimal: `scale` digits after the point kept (more
/// are cut, as ClickHouse does), with the precision checked.
fn scaled_digits(d: &DecimalText<'_>, precision: u8, scale: u8, text: &[u8], t: &ChType) -> Result<Vec<u8>> {
    // Every digit, and how many of them are before the point.
    let all: Vec<u8> = d.int_digits.iter().chain(d.frac_digits).copied().collect();
    let point = d.int_digits.len() as i64 + d.exponent;
    let end = point + scale as i64;
    let mut digits = Vec::with_capacity(end.max(0) as usize);
    for i in 0..end.max(0) {
        digits.push(if i >= 0 && (i as usize) < all.len() { all[i as usize] } else { b'0' });
    }
    let significant = digits.iter().position(|d| *d != b'0').map_or(0, |p| digits.len() - p);
    if significant > precision as usize {
        let int_significant = significant.saturating_sub(scale as usize);
        return Err(Error::new(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            format!(
                "Too many digits ({} > {}) in decimal value '{}' of type {t}",
                int_significant,
                precision - scale,
                shorten(text)
            ),
        ));
    }
    Ok(digits)
}

fn parse_decimal128(text: &[u8], precision: u8, scale: u8, t: &ChType) -> Result<i128> {
    let d = split_decimal(text, t)?;
    let digits = scaled_digits(&d, precision, scale, text, t)?;
    let magnitude = digits.iter().fold(0i128, |acc, d| acc * 10 + (d - b'0') as i128);
    Ok(if d.negative { -magnitude } else { magnitude })
}

fn parse_decimal256(text: &[u8], precision: u8, scale: u8, t: &ChType) -> Result<i256> {
    let d = split_decimal(text, t)?;
    let digits = scaled_digits(&d, precision, scale, text, t)?;
    let ten = i256::from_i128(10);
    let magnitude = digits.iter().fold(i256::ZERO, |acc, d| acc.wrapping_mul(ten).wrapping_add(i256::from_i128((d - b'0') as i128)));
    Ok(if d.negative { magnitude.wrapping_neg() } else { magnitude })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::text::{ColumnWriter, TextStyle};

    fn opts() -> TextOptions {
        TextOptions::default()
    }

    /// Parses each text with `parse_text` and prints the column back in TSV style.
    fn round(t: &str, inputs: &[&str]) -> Vec<String> {
        let ch = ChType::parse(t).unwrap();
        let mut b = ColumnBuilder::with_type(&ch, &opts()).unwrap();
        for input in inputs {
            b.parse_text(input.as_bytes()).unwrap_or_else(|e| panic!("{t} {input}: {e}"));
        }
        print(&ch, b.finish().unwrap())
    }

    fn print(ch: &ChType, array: ArrayRef) -> Vec<String> {
        let w = ColumnWriter::with_type(ch, &array, TextStyle::Tsv, &opts()).unwrap();
        (0..array.len())
            .map(|i| {
                let mut out = Vec::new();
                w.write(i, &mut out);
                String::from_utf8(out).unwrap()
            })
            .collect()
    }

    fn fails(t: &str, input: &str) -> Error {
        let ch = ChType::parse(t).unwrap();
        let mut b = ColumnBuilder::with_type(&ch, &opts()).unwrap();
        match b.parse_text(input.as_bytes()) {
            Ok(()) => panic!("{t}: '{input}' should not parse"),
            Err(e) => e,
        }
    }

    #[test]
    fn integers() {
        assert_eq!(round("UInt8", &["0", "255", "+5", ""]), vec!["0", "255", "5", "0"]);
        assert_eq!(round("Int8", &["-128", "127", "-0"]), vec!["-128", "127", "0"]);
        assert_eq!(round("Int64", &["-9223372036854775808"]), vec!["-9223372036854775808"]);
        assert_eq!(round("UInt64", &["18446744073709551615"]), vec!["18446744073709551615"]);
        assert_eq!(fails("UInt8", "300").code(), ErrorCode::CANNOT_PARSE_NUMBER);
        assert_eq!(fails("UInt8", "-1").code(), ErrorCode::CANNOT_PARSE_NUMBER);
        assert_eq!(fails("UInt64", "18446744073709551616").code(), ErrorCode::CANNOT_PARSE_NUMBER);
        let e = fails("UInt64", "abc");
        assert_eq!(e.code(), ErrorCode::CANNOT_PARSE_TEXT);
        assert_eq!(e.message(), "Cannot parse string 'abc' as UInt64: syntax error at begin of string");
        assert_eq!(fails("UInt64", "2b").message(), "Cannot parse string '2b' as UInt64: syntax error at position 1 (parsed just '2')");
        assert!(fails("Int32", "1.5").message().contains("position 1"));
    }

    #[test]
    fn floats_and_bools() {
        assert_eq!(
            round("Float64", &["inf", "-inf", "nan", "Inf", "1e3", ".5", "+1", "infinity", "0.1"]),
            vec!["inf", "-inf", "nan", "inf", "1000", "0.5", "1", "inf", "0.1"]
        );
        assert_eq!(round("Float32", &["0.1"]), vec!["0.1"]);
        assert_eq!(fails("Float64", "x1").code(), ErrorCode::CANNOT_PARSE_NUMBER);
        assert_eq!(round("Bool", &["true", "false", "1", "0", "yes", "OFF", "T"]), vec!["true", "false", "true", "false", "true", "false", "true"]);
        assert_eq!(fails("Bool", "maybe").code(), ErrorCode::CANNOT_PARSE_TEXT);
    }

    #[test]
    fn strings_and_fixed_strings() {
        assert_eq!(round("String", &["", "a\tb"]), vec!["", "a\\tb"]);
        assert_eq!(round("FixedString(4)", &["ab", "abcd"]), vec!["ab\\0\\0", "abcd"]);
        assert_eq!(fails("FixedString(2)", "abc").code(), ErrorCode::TOO_LARGE_STRING_SIZE);
        // Invalid UTF-8 is replaced, not rejected.
        let mut b = ColumnBuilder::with_type(&ChType::String, &opts()).unwrap();
        b.parse_text(&[0xff, b'a']).unwrap();
        assert_eq!(print(&ChType::String, b.finish().unwrap()), vec!["\u{FFFD}a"]);
        assert_eq!(round("UUID", &["61f0c404-5cb3-11e7-907b-a6006ad3dba0", "61f0c4045cb311e7907ba6006ad3dba0"]), vec![
            "61f0c404-5cb3-11e7-907b-a6006ad3dba0",
            "61f0c404-5cb3-11e7-907b-a6006ad3dba0"
        ]);
        assert!(fails("UUID", "xyz").message().contains("Cannot parse uuid"));
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(round("Date", &["2024-01-02", "20240102", "1960-01-01", "2200-01-01"]), vec!["2024-01-02", "2024-01-02", "1970-01-01", "2149-06-06"]);
        assert_eq!(round("Date32", &["1960-01-01"]), vec!["1960-01-01"]);
        assert_eq!(fails("Date", "2020-13-01").code(), ErrorCode::CANNOT_PARSE_DATE);
        assert_eq!(
            round("DateTime('UTC')", &["1700000000", "20200101", "2020-01-02", "2020-01-02T10:11:12", "2020-01-02 10:11:12.123", "2020-01-02 10:11:12Z"]),
            vec!["2023-11-14 22:13:20", "2020-01-01 00:00:00", "2020-01-02 00:00:00", "2020-01-02 10:11:12", "2020-01-02 10:11:12", "2020-01-02 10:11:12"]
        );
        assert_eq!(round("DateTime('Asia/Tokyo')", &["2020-01-02 10:11:12"]), vec!["2020-01-02 10:11:12"]);
        assert_eq!(
            round("DateTime64(3, 'UTC')", &["1700000000", "1700000000.5", "2020-01-02 10:11:12.123456", "2020-01-02 10:11:12.1"]),
            vec!["2023-11-14 22:13:20.000", "2023-11-14 22:13:20.500", "2020-01-02 10:11:12.123", "2020-01-02 10:11:12.100"]
        );
        assert_eq!(round("DateTime64(1, 'UTC')", &["2020-01-02 10:11:12.987"]), vec!["2020-01-02 10:11:12.9"]);
        assert_eq!(fails("DateTime", "abc").code(), ErrorCode::CANNOT_PARSE_DATETIME);
        // A wall-clock time is read in the column's zone: stored as UTC seconds.
        let ch = ChType::parse("DateTime('Asia/Tokyo')").unwrap();
        let mut b = ColumnBuilder::with_type(&ch, &opts()).unwrap();
        b.parse_text(b"1970-01-01 09:00:00").unwrap();
        let a = b.finish().unwrap();
        assert_eq!(a.as_any().downcast_ref::<arrow::array::TimestampSecondArray>().unwrap().value(0), 0);
    }

    #[test]
    fn decimals() {
        assert_eq!(round("Decimal(9, 2)", &["1.239", "-0.5", "1e2", "12", "-.25", "0"]), vec!["1.23", "-0.5", "100", "12", "-0.25", "0"]);
        assert_eq!(round("Decimal(50, 3)", &["-12345678901234567890123456789012345678901.5"]), vec!["-12345678901234567890123456789012345678901.5"]);
        assert_eq!(fails("Decimal(9, 2)", "12345678901").code(), ErrorCode::ARGUMENT_OUT_OF_BOUND);
        assert_eq!(fails("Decimal(9, 2)", "1.2.3").code(), ErrorCode::CANNOT_PARSE_NUMBER);
    }

    #[test]
    fn composites_in_fields() {
        assert_eq!(round("Array(String)", &["['a','b\\'c']", "[]", " [ 'x' , 'y' ] "]), vec!["['a','b\\'c']", "[]", "['x','y']"]);
        assert_eq!(round("Array(UInt8)", &["[1,2]", "[ 1 , 2 ]"]), vec!["[1,2]", "[1,2]"]);
        assert_eq!(round("Array(Nullable(UInt8))", &["[NULL,1]"]), vec!["[NULL,1]"]);
        assert_eq!(round("Array(Array(Int8))", &["[[1],[],[-2,3]]"]), vec!["[[1],[],[-2,3]]"]);
        assert_eq!(round("Tuple(UInt8, String)", &["(1,'x')"]), vec!["(1,'x')"]);
        assert_eq!(round("Map(String, UInt64)", &["{'a':1,'b':2}", "{}"]), vec!["{'a':1,'b':2}", "{}"]);
        assert_eq!(round("Array(Date)", &["['2020-01-01']"]), vec!["['2020-01-01']"]);
        assert_eq!(fails("Array(UInt8)", "[1,2").code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
        assert_eq!(fails("Array(UInt8)", "[1,x]").code(), ErrorCode::CANNOT_PARSE_TEXT);
        assert_eq!(fails("Tuple(UInt8, String)", "(1)").code(), ErrorCode::CANNOT_PARSE_TEXT);
        assert_eq!(fails("Array(UInt8)", "[1] x").code(), ErrorCode::CANNOT_PARSE_TEXT);
    }

    #[test]
    fn nulls_and_defaults() {
        let ch = ChType::parse("Nullable(UInt8)").unwrap();
        let mut b = ColumnBuilder::with_type(&ch, &opts()).unwrap();
        b.parse_text(b"1").unwrap();
        b.append_null().unwrap();
        b.append_default().unwrap();
        assert_eq!(print(&ch, b.finish().unwrap()), vec!["1", "\\N", "\\N"]);
        let mut b = ColumnBuilder::with_type(&ChType::UInt8, &opts()).unwrap();
        b.append_null().unwrap();
        assert_eq!(print(&ChType::UInt8, b.finish().unwrap()), vec!["0"]);
        let strict = TextOptions { null_as_default: false, ..opts() };
        let mut b = ColumnBuilder::with_type(&ChType::UInt8, &strict).unwrap();
        assert_eq!(b.append_null().unwrap_err().code(), ErrorCode::CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN);
        let tuple = ChType::parse("Tuple(Nullable(UInt8), String, Array(UInt8))").unwrap();
        let mut b = ColumnBuilder::with_type(&tuple, &opts()).unwrap();
        b.append_default().unwrap();
        assert_eq!(print(&tuple, b.finish().unwrap()), vec!["(NULL,'',[])"]);
    }

    #[test]
    fn truncate_undoes_partial_rows() {
        let ch = ChType::parse("Array(Nullable(String))").unwrap();
        let mut b = ColumnBuilder::with_type(&ch, &opts()).unwrap();
        b.parse_text(b"['a',NULL]").unwrap();
        b.parse_text(b"['b']").unwrap();
        b.truncate(1);
        b.parse_text(b"['c']").unwrap();
        assert_eq!(print(&ch, b.finish().unwrap()), vec!["['a',NULL]", "['c']"]);
        // A failed composite leaves nothing behind.
        let mut b = ColumnBuilder::with_type(&ch, &opts()).unwrap();
        assert!(b.parse_text(b"['a',").is_err());
        b.parse_text(b"['z']").unwrap();
        assert_eq!(print(&ch, b.finish().unwrap()), vec!["['z']"]);
    }

    #[test]
    fn quoted_values_and_expressions() {
        let mut scratch = Vec::new();
        let mut b = ColumnBuilder::with_type(&ChType::Int32, &opts()).unwrap();
        let input = b"(-5, now())";
        let mut pos = 1;
        b.parse_quoted(input, &mut pos, &mut scratch).unwrap();
        assert_eq!(pos, 3);
        pos += 1;
        assert_eq!(b.parse_quoted(input, &mut pos, &mut scratch).unwrap_err().code(), ErrorCode::SYNTAX_ERROR);
        let mut pos = 0;
        assert_eq!(b.parse_quoted(b"1+2", &mut pos, &mut scratch).unwrap_err().code(), ErrorCode::SYNTAX_ERROR);
        let mut s = ColumnBuilder::with_type(&ChType::String, &opts()).unwrap();
        let mut pos = 0;
        assert_eq!(s.parse_quoted(b"abc", &mut pos, &mut scratch).unwrap_err().code(), ErrorCode::SYNTAX_ERROR);
        let mut pos = 0;
        s.parse_quoted(b"'it''s'", &mut pos, &mut scratch).unwrap();
        // Quoted numbers are read into number columns.
        let mut pos = 0;
        b.parse_quoted(b"'7'", &mut pos, &mut scratch).unwrap();
        assert_eq!(print(&ChType::Int32, b.finish().unwrap()), vec!["-5", "7"]);
        assert_eq!(print(&ChType::String, s.finish().unwrap()), vec!["it\\'s"]);
    }

    #[test]
    fn json_values() {
        let cases: &[(&str, &str, &str)] = &[
            ("UInt64", "123", "123"),
            ("UInt64", "\"123\"", "123"),
            ("Float64", "1.5e3", "1500"),
            ("Bool", "true", "true"),
            ("UInt8", "true", "1"),
            ("String", "\"a\\nb\"", "a\\nb"),
            ("String", "12", "12"),
            ("String", "{\"a\": [1, 2]}", "{\"a\": [1, 2]}"),
            ("Nullable(String)", "null", "\\N"),
            ("Array(UInt8)", "[1, 2, 3]", "[1,2,3]"),
            ("Array(Nullable(String))", "[\"a\", null]", "['a',NULL]"),
            ("Tuple(UInt8, String)", "[1, \"x\"]", "(1,'x')"),
            ("Tuple(a UInt8, b String)", "{\"b\": \"y\", \"c\": 5}", "(0,'y')"),
            ("Map(String, UInt8)", "{\"k\": 1, \"l\": 2}", "{'k':1,'l':2}"),
            ("Map(UInt8, UInt8)", "{\"1\": 2}", "{1:2}"),
            ("Date", "\"2020-01-02\"", "2020-01-02"),
            ("DateTime('UTC')", "1700000000", "2023-11-14 22:13:20"),
            ("Decimal(9, 2)", "1.25", "1.25"),
        ];
        for (t, json, expected) in cases {
            let ch = ChType::parse(t).unwrap();
            let mut b = ColumnBuilder::with_type(&ch, &opts()).unwrap();
            let mut pos = 0;
            b.parse_json(json.as_bytes(), &mut pos, &mut Vec::new()).unwrap_or_else(|e| panic!("{t} {json}: {e}"));
            assert_eq!(pos, json.len(), "{t} {json}");
            assert_eq!(print(&ch, b.finish().unwrap()), vec![expected.to_string()], "{t} {json}");
        }
        let mut b = ColumnBuilder::with_type(&ChType::UInt8, &opts()).unwrap();
        assert!(b.parse_json(b"\"a\"", &mut 0, &mut Vec::new()).is_err());
        assert!(b.parse_json(b"[1", &mut 0, &mut Vec::new()).is_err());
    }

    #[test]
    fn skips_json_values() {
        for (json, end) in [("{\"a\": [1, {\"b\": \"]\"}]} x", 23), ("\"a\\\"b\" x", 7), ("-1.5e3, x", 6), ("[] ,", 3)] {
            let mut pos = 0;
            skip_json_value(json.as_bytes(), &mut pos).unwrap();
            assert_eq!(pos, end, "{json}");
        }
        assert!(skip_json_value(b"{\"a\": 1", &mut 0).is_err());
    }

    #[test]
    fn finishes_into_the_target_field_type() {
        // A target with a different physical type (LargeUtf8) is cast at the end.
        let field = Field::new("s", DataType::LargeUtf8, false);
        let mut b = ColumnBuilder::new(&field, &opts()).unwrap();
        b.parse_text(b"x").unwrap();
        assert_eq!(b.finish().unwrap().data_type(), &DataType::LargeUtf8);
        let field = ChType::parse("Array(Nullable(DateTime64(3, 'UTC')))").unwrap().to_arrow_field("a");
        let mut b = ColumnBuilder::new(&field, &opts()).unwrap();
        b.parse_text(b"['2020-01-01 00:00:00.5',NULL]").unwrap();
        let a = b.finish().unwrap();
        assert_eq!(a.data_type(), field.data_type());
        assert!(b.is_empty());
    }
}
