//! `JSONExtract(json, [path...,] 'Type')` and `JSONExtractKeysAndValues`: JSON values
//! converted into a ClickHouse type given as a constant string.
//!
//! A [`TypedColumn`] is built from the type once and appends one value per call. A value
//! that does not convert (a string that is no number, an integer out of range, an
//! object for an Array) is refused: the caller then appends the type's default, or, for
//! `JSONExtractKeysAndValues`, leaves that member out, as ClickHouse does. `Nullable(T)`
//! takes JSON nulls as NULL (a refused value is NULL as its default); an Array or Tuple
//! none of whose elements converts is refused as a whole.
//!
//! Dates, times, decimals, enums, FixedString, UUID, IP addresses and 128/256-bit
//! integers are read by the shared text parser ([`ColumnBuilder`]) from the value's
//! text, as ClickHouse reads them from JSON: dates, UUIDs and addresses only from
//! strings, `DateTime(64)` also from numbers (seconds since the epoch, truncated for
//! `DateTime`), decimals and wide integers from numbers and strings, `FixedString`
//! from any value's JSON text; a value that does not parse is refused.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray, MapArray, StructArray, UInt64Array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use granary_common::ErrorCode;
use granary_types::text::{ColumnBuilder, DateTimeInputFormat, TextOptions};
use granary_types::ChType;

use super::{double_of, integer_in, write_string_value, Kind, Value};
use crate::args::{ch_error, DfResult};
use crate::text::ByteStrings;

/// One result column under construction, shaped like its ClickHouse type.
pub(crate) enum TypedColumn {
    Signed { values: Vec<i64>, min: i64, max: i64, arrow: DataType },
    Unsigned { values: Vec<u64>, max: u64, arrow: DataType },
    Float { values: Vec<f64>, arrow: DataType },
    Bool(Vec<bool>),
    Text(ByteStrings),
    Nullable { inner: Box<TypedColumn>, valid: Vec<bool> },
    Array { item: Box<TypedColumn>, offsets: Vec<i32>, arrow: DataType },
    Tuple { names: Option<Vec<Vec<u8>>>, items: Vec<TypedColumn>, arrow: DataType },
    Map { keys: ByteStrings, values: Box<TypedColumn>, offsets: Vec<i32>, arrow: DataType },
    /// A type read from the value's text by the shared parser.
    Parsed { builder: Box<ColumnBuilder>, source: TextSource },
}

/// Which JSON values a [`TypedColumn::Parsed`] type reads, and as what text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextSource {
    /// Strings only (Date, Date32, UUID, IPv4, IPv6).
    Strings,
    /// Strings, and numbers as whole seconds (DateTime).
    StringsOrSeconds,
    /// Strings and numbers as written (DateTime64, Decimal, Enum).
    StringsOrNumbers,
    /// Strings, numbers (doubles truncated) and booleans (Int128..UInt256).
    Integers,
    /// Strings, and any other value as its JSON text (FixedString).
    AnyText,
}

impl TextSource {
    fn of(t: &ChType) -> Option<TextSource> {
        Some(match t {
            ChType::Date | ChType::Date32 | ChType::Uuid | ChType::IPv4 | ChType::IPv6 => TextSource::Strings,
            ChType::DateTime(_) => TextSource::StringsOrSeconds,
            ChType::DateTime64(..) | ChType::Decimal(..) | ChType::Enum8(_) | ChType::Enum16(_) => TextSource::StringsOrNumbers,
            ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256 => TextSource::Integers,
            ChType::FixedString(_) => TextSource::AnyText,
            _ => return None,
        })
    }

    /// The text the parser reads for `value` (in `scratch`), or `false` to refuse it.
    fn text_of(self, value: Value<'_>, scratch: &mut Vec<u8>) -> bool {
        scratch.clear();
        match (value.kind(), self) {
            (Kind::String, _) => value.raw_str().decode_into(scratch),
            (Kind::Null, _) | (_, TextSource::Strings) => return false,
            (Kind::Int64 | Kind::UInt64, _) => scratch.extend_from_slice(value.text()),
            (Kind::Double, TextSource::StringsOrSeconds) => {
                let seconds = value.double_value().trunc();
                if !seconds.is_finite() {
                    return false;
                }
                scratch.extend_from_slice(format!("{}", seconds as i64).as_bytes());
            }
            (Kind::Double, TextSource::Integers) => {
                // Integers past 64 bits are written as they are; other doubles truncate.
                let text = value.text();
                if text.iter().all(|c| c.is_ascii_digit() || *c == b'-') {
                    scratch.extend_from_slice(text);
                } else {
                    let whole = value.double_value().trunc();
                    if !whole.is_finite() {
                        return false;
                    }
                    scratch.extend_from_slice(format!("{whole:.0}").as_bytes());
                }
            }
            (Kind::Double, TextSource::StringsOrNumbers | TextSource::AnyText) => scratch.extend_from_slice(value.text()),
            (Kind::Bool, TextSource::Integers) => scratch.push(if value.bool_value() { b'1' } else { b'0' }),
            (_, TextSource::AnyText) => scratch.extend_from_slice(value.text()),
            _ => return false,
        }
        true
    }
}

fn unsupported(t: &ChType) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("JSONExtract doesn't support the return type schema: {t}"))
}

/// Whether a tuple's elements have names of their own (not `1`, `2`, ...).
fn is_named(elements: &[(String, ChType)]) -> bool {
    elements.iter().enumerate().any(|(i, (name, _))| *name != (i + 1).to_string())
}

impl TypedColumn {
    /// A column for `t`, or ILLEGAL_TYPE_OF_ARGUMENT for a type JSONExtract cannot make.
    pub fn new(t: &ChType) -> DfResult<TypedColumn> {
        let arrow = t.to_arrow();
        Ok(match t {
            ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 => {
                let bits = 8 * crate::args::byte_width(&arrow) as u32;
                let max = (1i128 << (bits - 1)) - 1;
                TypedColumn::Signed { values: Vec::new(), min: (-max - 1) as i64, max: max as i64, arrow }
            }
            ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 => {
                let bits = 8 * crate::args::byte_width(&arrow) as u32;
                TypedColumn::Unsigned { values: Vec::new(), max: ((1u128 << bits) - 1) as u64, arrow }
            }
            ChType::Float32 | ChType::Float64 => TypedColumn::Float { values: Vec::new(), arrow },
            ChType::Bool => TypedColumn::Bool(Vec::new()),
            ChType::String => TypedColumn::Text(ByteStrings::with_capacity(0, 0)),
            ChType::LowCardinality(inner) if matches!(inner.as_ref(), ChType::String | ChType::Nullable(_)) => TypedColumn::new(inner)?,
            ChType::Nullable(inner) => TypedColumn::Nullable { inner: Box::new(TypedColumn::new(inner)?), valid: Vec::new() },
            ChType::Array(item) => TypedColumn::Array { item: Box::new(TypedColumn::new(item)?), offsets: vec![0], arrow },
            ChType::Tuple(elements) => TypedColumn::Tuple {
                names: is_named(elements).then(|| elements.iter().map(|(n, _)| n.as_bytes().to_vec()).collect()),
                items: elements.iter().map(|(_, t)| TypedColumn::new(t)).collect::<DfResult<_>>()?,
                arrow,
            },
            ChType::Map(key, value) if matches!(key.base(), ChType::String) => TypedColumn::Map {
                keys: ByteStrings::with_capacity(0, 0),
                values: Box::new(TypedColumn::new(value)?),
                offsets: vec![0],
                arrow,
            },
            other => match TextSource::of(other) {
                Some(source) => {
                    let options = TextOptions { date_time_input_format: DateTimeInputFormat::BestEffort, ..TextOptions::default() };
                    let builder = ColumnBuilder::with_type(other, &options).map_err(|_| unsupported(other))?;
                    TypedColumn::Parsed { builder: Box::new(builder), source }
                }
                None => return Err(unsupported(other)),
            },
        })
    }

    /// Appends the type's default value (NULL for Nullable).
    pub fn push_default(&mut self) -> DfResult<()> {
        match self {
            TypedColumn::Signed { values, .. } => values.push(0),
            TypedColumn::Unsigned { values, .. } => values.push(0),
            TypedColumn::Float { values, .. } => values.push(0.0),
            TypedColumn::Bool(values) => values.push(false),
            TypedColumn::Text(values) => values.push_value(b"")?,
            TypedColumn::Nullable { inner, valid } => {
                inner.push_default()?;
                valid.push(false);
            }
            TypedColumn::Array { item, offsets, .. } => offsets.push(item.len() as i32),
            TypedColumn::Tuple { items, .. } => {
                for item in items {
                    item.push_default()?;
                }
            }
            TypedColumn::Map { keys, offsets, .. } => offsets.push(keys.len() as i32),
            TypedColumn::Parsed { builder, .. } => builder.append_default()?,
        }
        Ok(())
    }

    /// Drops the values appended after the first `rows`.
    fn truncate(&mut self, rows: usize) {
        match self {
            TypedColumn::Signed { values, .. } => values.truncate(rows),
            TypedColumn::Unsigned { values, .. } => values.truncate(rows),
            TypedColumn::Float { values, .. } => values.truncate(rows),
            TypedColumn::Bool(values) => values.truncate(rows),
            TypedColumn::Text(values) => values.truncate_values(rows),
            TypedColumn::Nullable { inner, valid } => {
                inner.truncate(rows);
                valid.truncate(rows);
            }
            TypedColumn::Array { item, offsets, .. } => {
                offsets.truncate(rows + 1);
                item.truncate(offsets.last().map_or(0, |o| *o as usize));
            }
            TypedColumn::Tuple { items, .. } => items.iter_mut().for_each(|item| item.truncate(rows)),
            TypedColumn::Map { keys, values, offsets, .. } => {
                offsets.truncate(rows + 1);
                let entries = offsets.last().map_or(0, |o| *o as usize);
                keys.truncate_values(entries);
                values.truncate(entries);
            }
            TypedColumn::Parsed { builder, .. } => builder.truncate(rows),
        }
    }

    fn len(&self) -> usize {
        match self {
            TypedColumn::Signed { values, .. } => values.len(),
            TypedColumn::Unsigned { values, .. } => values.len(),
            TypedColumn::Float { values, .. } => values.len(),
            TypedColumn::Bool(values) => values.len(),
            TypedColumn::Text(values) => values.len(),
            TypedColumn::Nullable { valid, .. } => valid.len(),
            TypedColumn::Array { offsets, .. } | TypedColumn::Map { offsets, .. } => offsets.len() - 1,
            TypedColumn::Tuple { items, .. } => items.first().map_or(0, |i| i.len()),
            TypedColumn::Parsed { builder, .. } => builder.len(),
        }
    }

    /// Appends `value` converted, or the default when there is no value or it does not
    /// convert.
    pub fn push_or_default(&mut self, value: Option<Value<'_>>, scratch: &mut Vec<u8>, case_insensitive: bool) -> DfResult<()> {
        let pushed = match value {
            Some(v) => self.try_push(v, scratch, case_insensitive)?,
            None => false,
        };
        if !pushed {
            self.push_default()?;
        }
        Ok(())
    }

    /// Appends `value` converted; `false` (nothing appended) when it does not convert.
    pub fn try_push(&mut self, value: Value<'_>, scratch: &mut Vec<u8>, case_insensitive: bool) -> DfResult<bool> {
        let kind = value.kind();
        match self {
            TypedColumn::Signed { values, min, max, .. } => {
                let converted = match kind {
                    Kind::Bool => Some(value.bool_value() as i128),
                    _ => integer_in(value, *min as i128, *max as i128, scratch),
                };
                Ok(converted.map(|v| values.push(v as i64)).is_some())
            }
            TypedColumn::Unsigned { values, max, .. } => {
                let converted = match kind {
                    Kind::Bool => Some(value.bool_value() as i128),
                    _ => integer_in(value, 0, *max as i128, scratch),
                };
                Ok(converted.map(|v| values.push(v as u64)).is_some())
            }
            TypedColumn::Float { values, .. } => {
                let converted = match kind {
                    Kind::Bool => Some(value.bool_value() as u8 as f64),
                    _ => double_of(value, scratch),
                };
                Ok(converted.map(|v| values.push(v)).is_some())
            }
            TypedColumn::Bool(values) => {
                // Numbers convert as to UInt8 (in range, truncated), then non-zero is true.
                let converted = match kind {
                    Kind::Bool => Some(value.bool_value()),
                    Kind::Int64 | Kind::UInt64 | Kind::Double => integer_in(value, 0, u8::MAX as i128, scratch).map(|v| v != 0),
                    _ => None,
                };
                Ok(converted.map(|v| values.push(v)).is_some())
            }
            TypedColumn::Text(_) if kind == Kind::Null => Ok(false),
            TypedColumn::Text(values) => {
                let mut text = std::mem::take(scratch);
                text.clear();
                let mut inner_scratch = Vec::new();
                write_string_value(value, &mut text, &mut inner_scratch);
                values.push_value(&text)?;
                *scratch = text;
                Ok(true)
            }
            // A value that does not convert is refused (the caller's default is NULL).
            TypedColumn::Nullable { inner, valid } => {
                if kind == Kind::Null {
                    inner.push_default()?;
                    valid.push(false);
                    return Ok(true);
                }
                let pushed = inner.try_push(value, scratch, case_insensitive)?;
                if pushed {
                    valid.push(true);
                }
                Ok(pushed)
            }
            TypedColumn::Array { item, offsets, .. } => {
                if kind != Kind::Array {
                    return Ok(false);
                }
                // An array none of whose elements converts is refused as a whole.
                let start = item.len();
                let mut any_converted = false;
                for element in value.elements() {
                    if item.try_push(element, scratch, case_insensitive)? {
                        any_converted = true;
                    } else {
                        item.push_default()?;
                    }
                }
                if !any_converted {
                    item.truncate(start);
                    return Ok(false);
                }
                offsets.push(item.len() as i32);
                Ok(true)
            }
            TypedColumn::Tuple { names, items, .. } => {
                // Elements take the first value that converts (by name from an object
                // of a named tuple, else by position); missing ones get defaults, and a
                // tuple none of whose elements converts is refused.
                let start = items.first().map_or(0, |i| i.len());
                let mut any_converted = false;
                match (kind, names) {
                    (Kind::Object, Some(names)) => {
                        for (key, member) in value.members() {
                            // Element names match exactly, also in the CaseInsensitive forms.
                            let Some(index) = names.iter().position(|name| key.equals(name, scratch, false)) else { continue };
                            if items[index].len() == start && items[index].try_push(member, scratch, case_insensitive)? {
                                any_converted = true;
                            }
                        }
                    }
                    (Kind::Object, None) => {
                        for (item, (_, member)) in items.iter_mut().zip(value.members()) {
                            any_converted |= item.try_push(member, scratch, case_insensitive)?;
                        }
                    }
                    (Kind::Array, _) => {
                        for (item, element) in items.iter_mut().zip(value.elements()) {
                            any_converted |= item.try_push(element, scratch, case_insensitive)?;
                        }
                    }
                    _ => return Ok(false),
                }
                for item in items.iter_mut() {
                    if !any_converted {
                        item.truncate(start);
                    } else if item.len() == start {
                        item.push_default()?;
                    }
                }
                Ok(any_converted)
            }
            TypedColumn::Map { keys, values, offsets, .. } => {
                if kind != Kind::Object {
                    return Ok(false);
                }
                for (key, member) in value.members() {
                    scratch.clear();
                    key.decode_into(scratch);
                    keys.push_value(scratch)?;
                    values.push_or_default(Some(member), scratch, case_insensitive)?;
                }
                offsets.push(keys.len() as i32);
                Ok(true)
            }
            TypedColumn::Parsed { builder, source } => {
                if !source.text_of(value, scratch) {
                    return Ok(false);
                }
                // FixedString takes only values that fit; longer ones are refused.
                if let ChType::FixedString(width) = builder.ch_type() {
                    if scratch.len() > *width {
                        return Ok(false);
                    }
                }
                let rows = builder.len();
                if builder.parse_text(scratch).is_err() {
                    builder.truncate(rows);
                    return Ok(false);
                }
                Ok(true)
            }
        }
    }

    /// The Arrow column of the values appended.
    pub fn finish(self) -> DfResult<ArrayRef> {
        Ok(match self {
            TypedColumn::Signed { values, arrow, .. } => cast(&(Arc::new(Int64Array::from(values)) as ArrayRef), &arrow)?,
            TypedColumn::Unsigned { values, arrow, .. } => cast(&(Arc::new(UInt64Array::from(values)) as ArrayRef), &arrow)?,
            TypedColumn::Float { values, arrow } => cast(&(Arc::new(Float64Array::from(values)) as ArrayRef), &arrow)?,
            TypedColumn::Bool(values) => Arc::new(BooleanArray::from(values)),
            TypedColumn::Text(values) => values.finish(None)?,
            TypedColumn::Nullable { inner, valid } => {
                let inner = inner.finish()?;
                let data = inner.to_data().into_builder().nulls(Some(NullBuffer::from(valid))).build()?;
                datafusion::arrow::array::make_array(data)
            }
            TypedColumn::Array { item, offsets, arrow } => {
                let DataType::List(field) = arrow else { return Err(internal("Array")) };
                Arc::new(ListArray::try_new(field, OffsetBuffer::new(offsets.into()), item.finish()?, None)?)
            }
            TypedColumn::Tuple { items, arrow, .. } => {
                let DataType::Struct(fields) = arrow else { return Err(internal("Tuple")) };
                let len = items.first().map_or(0, |i| i.len());
                let columns = items.into_iter().map(|i| i.finish()).collect::<DfResult<Vec<_>>>()?;
                if fields.is_empty() {
                    Arc::new(StructArray::new_empty_fields(len, None))
                } else {
                    Arc::new(StructArray::try_new(fields, columns, None)?)
                }
            }
            TypedColumn::Map { keys, values, offsets, arrow } => {
                let DataType::Map(entries_field, ordered) = arrow.clone() else { return Err(internal("Map")) };
                let DataType::Struct(entry_fields) = entries_field.data_type().clone() else { return Err(internal("Map")) };
                let entries = StructArray::try_new(entry_fields, vec![keys.finish(None)?, values.finish()?], None)?;
                Arc::new(MapArray::try_new(entries_field, OffsetBuffer::new(offsets.into()), entries, None, ordered)?)
            }
            TypedColumn::Parsed { mut builder, .. } => builder.finish()?,
        })
    }
}

fn internal(what: &str) -> datafusion::common::DataFusionError {
    datafusion::common::DataFusionError::Internal(format!("JSONExtract: Arrow type of {what} does not match"))
}

/// `Array(Tuple(String, T))` rows of `JSONExtractKeysAndValues`: the members of an
/// object whose values convert to `T`.
pub(crate) struct KeysAndValues {
    keys: ByteStrings,
    values: TypedColumn,
    offsets: Vec<i32>,
    arrow: DataType,
}

impl KeysAndValues {
    pub fn new(result: &ChType, value_type: &ChType) -> DfResult<KeysAndValues> {
        Ok(KeysAndValues { keys: ByteStrings::with_capacity(0, 0), values: TypedColumn::new(value_type)?, offsets: vec![0], arrow: result.to_arrow() })
    }

    pub fn push(&mut self, value: Option<Value<'_>>, scratch: &mut Vec<u8>, key_text: &mut Vec<u8>, case_insensitive: bool) -> DfResult<()> {
        if let Some(object) = value.filter(|v| v.kind() == Kind::Object) {
            for (key, member) in object.members() {
                if self.values.try_push(member, scratch, case_insensitive)? {
                    key_text.clear();
                    key.decode_into(key_text);
                    self.keys.push_value(key_text)?;
                }
            }
        }
        self.offsets.push(self.keys.len() as i32);
        Ok(())
    }

    pub fn finish(self) -> DfResult<ArrayRef> {
        let DataType::List(item) = self.arrow else { return Err(internal("Array")) };
        let DataType::Struct(fields) = item.data_type().clone() else { return Err(internal("Tuple")) };
        let entries = StructArray::try_new(fields, vec![self.keys.finish(None)?, self.values.finish()?], None)?;
        Ok(Arc::new(ListArray::try_new(item, OffsetBuffer::new(self.offsets.into()), Arc::new(entries), None)?))
    }
}
