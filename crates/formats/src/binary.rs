//! ClickHouse's binary value encoding, shared by `Native` and `RowBinary*`.
//!
//! Values pass through [`Col`], a column in ClickHouse's physical layout: fixed-width
//! little-endian bytes exactly as ClickHouse writes them (a `Date` is two bytes, a
//! `DateTime` four, a `Decimal(12, 2)` eight, a UUID two reversed halves), strings,
//! null maps, array end offsets and tuple elements. The Arrow side is converted to and
//! from this layout once per column ([`Col::from_arrow`], [`Col::into_arrow`]); the
//! formats then only move bytes: `RowBinary` a row at a time ([`Col::write_row`],
//! [`Col::read_row`]), `Native` a column at a time ([`write_native`], [`read_native`]),
//! where `LowCardinality` has its dictionary serialization.
//!
//! Reading goes through [`Reader`], whose "not enough bytes yet" error
//! (CANNOT_READ_ALL_DATA, see [`is_incomplete`]) lets the streaming parsers roll back
//! and wait for more data. Nothing is allocated from a length read from the input:
//! buffers grow only with bytes actually present.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, FixedSizeBinaryArray, ListArray, MapArray, NullArray, PrimitiveArray, StringArray, StructArray,
};
use arrow::buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{
    i256, ArrowPrimitiveType, DataType, Date32Type, Decimal128Type, Decimal256Type, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type, Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
    UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

/// ClickHouse's limit on a string read from binary input (1 GiB).
const MAX_STRING_SIZE: u64 = 1 << 30;
/// ClickHouse's limit on an array (`max_binary_array_size`-like sanity bound).
const MAX_ARRAY_SIZE: u64 = 1 << 30;

/// `LowCardinality` serialization (SerializationLowCardinality.cpp).
const LC_KEYS_VERSION: u64 = 1;
const LC_NEED_GLOBAL_DICTIONARY: u64 = 1 << 8;
const LC_HAS_ADDITIONAL_KEYS: u64 = 1 << 9;
const LC_NEED_UPDATE_DICTIONARY: u64 = 1 << 10;

pub(crate) fn write_varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

pub(crate) fn write_string(bytes: &[u8], out: &mut Vec<u8>) {
    write_varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

/// Whether `error` only means that the input ended too early (more data may fix it).
pub(crate) fn is_incomplete(error: &Error) -> bool {
    error.code() == ErrorCode::CANNOT_READ_ALL_DATA
}

fn incorrect(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::INCORRECT_DATA, message)
}

/// A cursor over buffered input.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pub pos: usize,
    /// After an incomplete read: how many bytes of `data` at least would have let it go on.
    pub needed: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0, needed: 0 }
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            self.needed = self.pos.saturating_add(n);
            return Err(Error::new(
                ErrorCode::CANNOT_READ_ALL_DATA,
                format!("Cannot read all data. Bytes read: {}. Bytes expected: {}.", self.remaining(), n),
            ));
        }
        let slice = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(slice)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.bytes(1)?[0])
    }

    pub fn u64(&mut self) -> Result<u64> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    pub fn varint(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for i in 0..10 {
            let byte = self.u8()?;
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(incorrect("Malformed variable-length integer"))
    }

    /// A varint-length-prefixed string.
    pub fn string(&mut self) -> Result<&'a [u8]> {
        let len = self.varint()?;
        if len > MAX_STRING_SIZE {
            return Err(Error::new(ErrorCode::TOO_LARGE_STRING_SIZE, format!("Too large string size: {len}")));
        }
        self.bytes(len as usize)
    }

    /// A name or type name from a header.
    pub fn utf8(&mut self) -> Result<String> {
        let bytes = self.string()?;
        String::from_utf8(bytes.to_vec()).map_err(|_| incorrect("Invalid UTF-8 in a column name or type"))
    }
}

/// Parses a type name read from binary input: unknown ones are UNKNOWN_TYPE.
pub(crate) fn parse_type(name: &str) -> Result<ChType> {
    let t = ChType::parse(name).map_err(|e| Error::new(ErrorCode::UNKNOWN_TYPE, format!("Unknown data type {name}: {}", e.message())))?;
    Col::new(&t)?; // types the binary formats cannot hold fail here, before any data
    Ok(t)
}

/// A column in ClickHouse's binary layout.
#[derive(Debug)]
pub(crate) enum Col {
    /// Values of `width` bytes each, as ClickHouse writes them.
    Fixed { width: usize, data: Vec<u8> },
    /// Strings: end offsets into `data`.
    Strings { ends: Vec<usize>, data: Vec<u8> },
    /// `nulls[i]`: row `i` is NULL (its `inner` value is the default).
    Nullable { nulls: Vec<bool>, inner: Box<Col> },
    /// Arrays: end offsets into `inner`.
    Array { ends: Vec<usize>, inner: Box<Col> },
    Tuple(Vec<Col>),
    Map { ends: Vec<usize>, keys: Box<Col>, values: Box<Col> },
    /// `AggregateFunction(function, args...)` states: end offsets into `data`. In the
    /// formats they have no length prefix; the function library splits them
    /// ([`granary_types::aggregate_state::split_states`]).
    States { function: String, args: Vec<ChType>, ends: Vec<usize>, data: Vec<u8> },
}

/// The type whose binary layout a domain type shares: an enum is its integer, IPv4 a
/// `UInt32`, IPv6 its 16 bytes in network order.
fn binary_layout(t: &ChType) -> Option<ChType> {
    match t {
        ChType::Enum8(_) => Some(ChType::Int8),
        ChType::Enum16(_) => Some(ChType::Int16),
        ChType::IPv4 => Some(ChType::UInt32),
        ChType::IPv6 => Some(ChType::FixedString(16)),
        _ => None,
    }
}

/// The width of a fixed-size ClickHouse type in binary formats.
fn fixed_width(t: &ChType) -> Result<usize> {
    if let Some(layout) = binary_layout(t) {
        return fixed_width(&layout);
    }
    Ok(match t {
        ChType::UInt8 | ChType::Int8 | ChType::Bool | ChType::Nothing => 1,
        ChType::UInt16 | ChType::Int16 | ChType::Date => 2,
        ChType::UInt32 | ChType::Int32 | ChType::Float32 | ChType::Date32 | ChType::DateTime(_) | ChType::Time => 4,
        ChType::UInt64 | ChType::Int64 | ChType::Float64 | ChType::DateTime64(..) | ChType::Time64(_) | ChType::Interval(_) => 8,
        ChType::Decimal(p, _) => decimal_width(*p),
        ChType::Int128 | ChType::UInt128 => 16,
        ChType::Int256 | ChType::UInt256 => 32,
        ChType::Uuid => 16,
        ChType::FixedString(n) if *n > 0 => *n,
        other => return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Type {other} is not supported in binary formats"))),
    })
}

/// Decimal32/64/128/256 by precision, as ClickHouse chooses.
fn decimal_width(precision: u8) -> usize {
    match precision {
        0..=9 => 4,
        10..=18 => 8,
        19..=38 => 16,
        _ => 32,
    }
}

fn last(ends: &[usize]) -> usize {
    ends.last().copied().unwrap_or(0)
}

/// Reads `n` array end offsets (u64, cumulative from `base`) of a Native column.
fn read_offsets(r: &mut Reader, n: usize, ends: &mut Vec<usize>) -> Result<usize> {
    let size = n.checked_mul(8).ok_or_else(|| incorrect("Too many rows"))?;
    let bytes = r.bytes(size)?;
    let base = last(ends);
    let mut previous = 0u64;
    for chunk in bytes.chunks_exact(8) {
        let mut a = [0u8; 8];
        a.copy_from_slice(chunk);
        let end = u64::from_le_bytes(a);
        if end < previous || end - previous > MAX_ARRAY_SIZE {
            return Err(incorrect(format!("Invalid array offsets: {end} after {previous}")));
        }
        previous = end;
        ends.push(base + end as usize);
    }
    Ok(previous as usize)
}

impl Col {
    /// An empty column of type `t`.
    pub fn new(t: &ChType) -> Result<Col> {
        if let Some(layout) = binary_layout(t) {
            return Col::new(&layout);
        }
        Ok(match t {
            ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner) => Col::new(inner)?,
            ChType::Nullable(inner) => Col::Nullable { nulls: Vec::new(), inner: Box::new(Col::new(inner)?) },
            ChType::Array(inner) => Col::Array { ends: Vec::new(), inner: Box::new(Col::new(inner)?) },
            ChType::Tuple(items) => Col::Tuple(items.iter().map(|(_, t)| Col::new(t)).collect::<Result<_>>()?),
            ChType::Map(k, v) => Col::Map { ends: Vec::new(), keys: Box::new(Col::new(k)?), values: Box::new(Col::new(v)?) },
            ChType::String => Col::Strings { ends: Vec::new(), data: Vec::new() },
            ChType::AggregateFunction(function, args) => Col::States { function: function.clone(), args: args.clone(), ends: Vec::new(), data: Vec::new() },
            leaf => Col::Fixed { width: fixed_width(leaf)?, data: Vec::new() },
        })
    }

    pub fn len(&self) -> usize {
        match self {
            Col::Fixed { width, data } => data.len() / width,
            Col::Strings { ends, .. } | Col::States { ends, .. } | Col::Array { ends, .. } | Col::Map { ends, .. } => ends.len(),
            Col::Nullable { nulls, .. } => nulls.len(),
            Col::Tuple(items) => items.first().map_or(0, Col::len),
        }
    }

    /// Appends the type's default (NULL for Nullable).
    pub fn push_default(&mut self) {
        match self {
            Col::Fixed { width, data } => data.resize(data.len() + *width, 0),
            Col::Strings { ends, data } | Col::States { ends, data, .. } => ends.push(data.len()),
            Col::Nullable { nulls, inner } => {
                nulls.push(true);
                inner.push_default();
            }
            Col::Array { ends, .. } | Col::Map { ends, .. } => ends.push(last(ends)),
            Col::Tuple(items) => items.iter_mut().for_each(Col::push_default),
        }
    }

    /// Drops rows from `len` on (a row read only in part).
    pub fn truncate(&mut self, len: usize) {
        match self {
            Col::Fixed { width, data } => data.truncate(len * *width),
            Col::Strings { ends, data } | Col::States { ends, data, .. } => {
                ends.truncate(len);
                data.truncate(last(ends));
            }
            Col::Nullable { nulls, inner } => {
                nulls.truncate(len);
                inner.truncate(len);
            }
            Col::Array { ends, inner } => {
                ends.truncate(len);
                inner.truncate(last(ends));
            }
            Col::Map { ends, keys, values } => {
                ends.truncate(len);
                keys.truncate(last(ends));
                values.truncate(last(ends));
            }
            Col::Tuple(items) => items.iter_mut().for_each(|c| c.truncate(len)),
        }
    }

    /// The bytes of leaf value `row` (without a length prefix), for dictionaries.
    fn leaf_value(&self, row: usize) -> Option<&[u8]> {
        match self {
            Col::Fixed { width, data } => data.get(row * width..(row + 1) * width),
            Col::Strings { ends, data } => {
                let start = if row == 0 { 0 } else { *ends.get(row - 1)? };
                data.get(start..*ends.get(row)?)
            }
            _ => None,
        }
    }

    /// Appends a leaf value given as [`Col::leaf_value`] bytes.
    fn push_leaf(&mut self, value: &[u8]) {
        match self {
            Col::Fixed { data, .. } => data.extend_from_slice(value),
            Col::Strings { ends, data } => {
                data.extend_from_slice(value);
                ends.push(data.len());
            }
            _ => {}
        }
    }

    // ---- RowBinary ----

    /// Reads one RowBinary value.
    pub fn read_row(&mut self, r: &mut Reader) -> Result<()> {
        match self {
            Col::Fixed { width, data } => data.extend_from_slice(r.bytes(*width)?),
            Col::Strings { ends, data } => {
                data.extend_from_slice(r.string()?);
                ends.push(data.len());
            }
            Col::States { function, args, ends, data } => read_states(function, args, r, 1, ends, data)?,
            Col::Nullable { nulls, inner } => {
                if r.u8()? != 0 {
                    nulls.push(true);
                    inner.push_default();
                } else {
                    nulls.push(false);
                    inner.read_row(r)?;
                }
            }
            Col::Array { ends, inner } => {
                let n = array_size(r)?;
                for _ in 0..n {
                    inner.read_row(r)?;
                }
                ends.push(inner.len());
            }
            Col::Tuple(items) => {
                for item in items {
                    item.read_row(r)?;
                }
            }
            Col::Map { ends, keys, values } => {
                let n = array_size(r)?;
                for _ in 0..n {
                    keys.read_row(r)?;
                    values.read_row(r)?;
                }
                ends.push(keys.len());
            }
        }
        Ok(())
    }

    /// Writes row `row` as ClickHouse's `getDataAt` sees it (the `RawBLOB` format): the
    /// bytes of a fixed-width value or of a string, nothing for NULL, the elements of an
    /// array of fixed-width values back to back. False for what has no such bytes
    /// (tuples, maps, arrays of strings or composites).
    pub fn write_raw(&self, row: usize, out: &mut Vec<u8>) -> bool {
        match self {
            Col::Fixed { .. } | Col::Strings { .. } => out.extend_from_slice(self.leaf_value(row).unwrap_or_default()),
            Col::Nullable { nulls, inner } => {
                if !nulls[row] {
                    return inner.write_raw(row, out);
                }
            }
            Col::Array { ends, inner } => {
                let Col::Fixed { width, data } = inner.as_ref() else { return false };
                let (start, end) = range(ends, row);
                out.extend_from_slice(&data[start * width..end * width]);
            }
            Col::States { .. } | Col::Tuple(_) | Col::Map { .. } => return false,
        }
        true
    }

    /// Writes row `row` as RowBinary.
    pub fn write_row(&self, row: usize, out: &mut Vec<u8>) {
        match self {
            Col::Fixed { width, data } => out.extend_from_slice(&data[row * width..(row + 1) * width]),
            Col::Strings { .. } => write_string(self.leaf_value(row).unwrap_or_default(), out),
            Col::States { ends, data, .. } => {
                let (start, end) = range(ends, row);
                out.extend_from_slice(&data[start..end]);
            }
            Col::Nullable { nulls, inner } => {
                if nulls[row] {
                    out.push(1);
                } else {
                    out.push(0);
                    inner.write_row(row, out);
                }
            }
            Col::Array { ends, inner } => {
                let (start, end) = range(ends, row);
                write_varint((end - start) as u64, out);
                (start..end).for_each(|i| inner.write_row(i, out));
            }
            Col::Tuple(items) => items.iter().for_each(|c| c.write_row(row, out)),
            Col::Map { ends, keys, values } => {
                let (start, end) = range(ends, row);
                write_varint((end - start) as u64, out);
                for i in start..end {
                    keys.write_row(i, out);
                    values.write_row(i, out);
                }
            }
        }
    }
}

/// Reads `n` aggregate states (no length prefixes) into `ends` / `data`.
fn read_states(function: &str, args: &[ChType], r: &mut Reader, n: usize, ends: &mut Vec<usize>, data: &mut Vec<u8>) -> Result<()> {
    let rest = &r.data[r.pos..];
    let split = granary_types::aggregate_state::split_states(function, args, rest, n).map_err(|e| {
        if e.code() == ErrorCode::CORRUPTED_DATA {
            // A state cut by the end of the buffer: the caller may read more and retry.
            r.needed = r.data.len() + 1;
            Error::new(ErrorCode::CANNOT_READ_ALL_DATA, format!("Cannot read all data of AggregateFunction({function}) states: {}", e.message()))
        } else {
            e
        }
    })?;
    let base = data.len();
    let used = split.last().copied().unwrap_or(0);
    data.extend_from_slice(r.bytes(used)?);
    ends.extend(split.into_iter().map(|end| base + end));
    Ok(())
}

fn array_size(r: &mut Reader) -> Result<u64> {
    let n = r.varint()?;
    if n > MAX_ARRAY_SIZE {
        return Err(incorrect(format!("Too large array size: {n}")));
    }
    Ok(n)
}

fn range(ends: &[usize], row: usize) -> (usize, usize) {
    let start = if row == 0 { 0 } else { ends[row - 1] };
    (start, ends[row])
}

// ---- Native ----

/// Writes the state prefixes of a Native column (the `LowCardinality` keys version),
/// which come before any data of the column, nested ones included.
pub(crate) fn write_native_prefix(t: &ChType, out: &mut Vec<u8>) {
    match t {
        ChType::LowCardinality(_) => out.extend_from_slice(&LC_KEYS_VERSION.to_le_bytes()),
        ChType::Nullable(inner) | ChType::Array(inner) | ChType::SimpleAggregateFunction(_, inner) => write_native_prefix(inner, out),
        ChType::Tuple(items) => items.iter().for_each(|(_, t)| write_native_prefix(t, out)),
        ChType::Map(k, v) => {
            write_native_prefix(k, out);
            write_native_prefix(v, out);
        }
        _ => {}
    }
}

pub(crate) fn read_native_prefix(t: &ChType, r: &mut Reader) -> Result<()> {
    match t {
        ChType::LowCardinality(_) => {
            let version = r.u64()?;
            if version != LC_KEYS_VERSION {
                return Err(incorrect(format!("Invalid version for SerializationLowCardinality key column: {version}")));
            }
        }
        ChType::Nullable(inner) | ChType::Array(inner) | ChType::SimpleAggregateFunction(_, inner) => read_native_prefix(inner, r)?,
        ChType::Tuple(items) => items.iter().try_for_each(|(_, t)| read_native_prefix(t, r))?,
        ChType::Map(k, v) => {
            read_native_prefix(k, r)?;
            read_native_prefix(v, r)?;
        }
        _ => {}
    }
    Ok(())
}

fn shape_error(t: &ChType) -> Error {
    Error::new(ErrorCode::LOGICAL_ERROR, format!("Column layout does not match type {t}"))
}

/// Writes the data of a whole Native column (after [`write_native_prefix`]).
pub(crate) fn write_native(t: &ChType, col: &Col, out: &mut Vec<u8>) -> Result<()> {
    match (t, col) {
        (ChType::LowCardinality(inner), _) => write_low_cardinality(inner, col, out),
        (ChType::SimpleAggregateFunction(_, inner), _) => write_native(inner, col, out),
        (ChType::Nullable(inner), Col::Nullable { nulls, inner: c }) => {
            out.extend(nulls.iter().map(|&n| u8::from(n)));
            write_native(inner, c, out)
        }
        (ChType::Array(inner), Col::Array { ends, inner: c }) => {
            ends.iter().for_each(|&e| out.extend_from_slice(&(e as u64).to_le_bytes()));
            write_native(inner, c, out)
        }
        (ChType::Tuple(items), Col::Tuple(cols)) if items.len() == cols.len() => {
            items.iter().zip(cols).try_for_each(|((_, t), c)| write_native(t, c, out))
        }
        (ChType::Map(k, v), Col::Map { ends, keys, values }) => {
            ends.iter().for_each(|&e| out.extend_from_slice(&(e as u64).to_le_bytes()));
            write_native(k, keys, out)?;
            write_native(v, values, out)
        }
        (_, Col::Fixed { data, .. }) => {
            out.extend_from_slice(data);
            Ok(())
        }
        (_, Col::Strings { .. }) => {
            (0..col.len()).for_each(|row| write_string(col.leaf_value(row).unwrap_or_default(), out));
            Ok(())
        }
        (_, Col::States { data, .. }) => {
            out.extend_from_slice(data);
            Ok(())
        }
        _ => Err(shape_error(t)),
    }
}

/// `LowCardinality` data as ClickHouse's Native writer produces it: one granule with
/// its own dictionary ("additional keys"), the default value (and NULL first, for
/// `Nullable`) at the start of the dictionary, then values in order of appearance.
fn write_low_cardinality(inner: &ChType, col: &Col, out: &mut Vec<u8>) -> Result<()> {
    let rows = col.len();
    if rows == 0 {
        return Ok(());
    }
    let (nulls, leaf) = match col {
        Col::Nullable { nulls, inner } => (Some(nulls), inner.as_ref()),
        other => (None, other),
    };
    let default: Vec<u8> = match leaf {
        Col::Fixed { width, .. } => vec![0; *width],
        Col::Strings { .. } => Vec::new(),
        _ => return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("LowCardinality({inner}) is not supported in Native format"))),
    };
    let mut dictionary: Vec<&[u8]> = Vec::new();
    if nulls.is_some() {
        dictionary.push(&default);
    }
    let mut positions: HashMap<&[u8], u64> = HashMap::new();
    positions.insert(&default, dictionary.len() as u64);
    dictionary.push(&default);
    let mut indexes = Vec::with_capacity(rows);
    for row in 0..rows {
        if nulls.is_some_and(|n| n[row]) {
            indexes.push(0);
            continue;
        }
        let value = leaf.leaf_value(row).ok_or_else(|| shape_error(inner))?;
        let next = dictionary.len() as u64;
        let index = *positions.entry(value).or_insert(next);
        if index == next {
            dictionary.push(value);
        }
        indexes.push(index);
    }
    let size = dictionary.len() as u64;
    let index_type: u64 = if size <= u64::from(u8::MAX) {
        0
    } else if size <= u64::from(u16::MAX) {
        1
    } else if size <= u64::from(u32::MAX) {
        2
    } else {
        3
    };
    out.extend_from_slice(&(LC_HAS_ADDITIONAL_KEYS | LC_NEED_UPDATE_DICTIONARY | index_type).to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    let strings = matches!(leaf, Col::Strings { .. });
    for value in &dictionary {
        if strings {
            write_string(value, out);
        } else {
            out.extend_from_slice(value);
        }
    }
    out.extend_from_slice(&(rows as u64).to_le_bytes());
    let width = 1usize << index_type;
    for index in indexes {
        out.extend_from_slice(&index.to_le_bytes()[..width]);
    }
    Ok(())
}

/// Reads `n` rows of a Native column (after [`read_native_prefix`]) into `col`.
pub(crate) fn read_native(t: &ChType, r: &mut Reader, col: &mut Col, n: usize) -> Result<()> {
    match (t, col) {
        (ChType::LowCardinality(inner), col) => read_low_cardinality(inner, r, col, n),
        (ChType::SimpleAggregateFunction(_, inner), col) => read_native(inner, r, col, n),
        (ChType::Nullable(inner), Col::Nullable { nulls, inner: c }) => {
            nulls.extend(r.bytes(n)?.iter().map(|&b| b != 0));
            read_native(inner, r, c, n)
        }
        (ChType::Array(inner), Col::Array { ends, inner: c }) => {
            let total = read_offsets(r, n, ends)?;
            read_native(inner, r, c, total)
        }
        (ChType::Tuple(items), Col::Tuple(cols)) if items.len() == cols.len() => {
            items.iter().zip(cols).try_for_each(|((_, t), c)| read_native(t, r, c, n))
        }
        (ChType::Map(k, v), Col::Map { ends, keys, values }) => {
            let total = read_offsets(r, n, ends)?;
            read_native(k, r, keys, total)?;
            read_native(v, r, values, total)
        }
        (_, Col::Fixed { width, data }) => {
            let size = n.checked_mul(*width).ok_or_else(|| incorrect("Too many rows"))?;
            data.extend_from_slice(r.bytes(size)?);
            Ok(())
        }
        (_, Col::Strings { ends, data }) => {
            for _ in 0..n {
                data.extend_from_slice(r.string()?);
                ends.push(data.len());
            }
            Ok(())
        }
        (_, Col::States { function, args, ends, data }) => read_states(function, args, r, n, ends, data),
        (t, _) => Err(shape_error(t)),
    }
}

/// Reads `LowCardinality` granules until `n` rows are read, expanding the dictionary.
fn read_low_cardinality(inner: &ChType, r: &mut Reader, col: &mut Col, n: usize) -> Result<()> {
    let value_type = inner.strip_nullable();
    let mut dictionary: Option<Col> = None;
    let mut done = 0;
    while done < n {
        let flags = r.u64()?;
        let index_type = flags & 0xff;
        if index_type > 3 || flags & LC_NEED_GLOBAL_DICTIONARY != 0 {
            return Err(incorrect(format!("Unsupported LowCardinality index serialization flags {flags:#x}")));
        }
        if flags & LC_HAS_ADDITIONAL_KEYS != 0 {
            let size = r.u64()?;
            let size = usize::try_from(size).map_err(|_| incorrect("Too large LowCardinality dictionary"))?;
            let mut keys = Col::new(value_type)?;
            read_native(value_type, r, &mut keys, size)?;
            dictionary = Some(keys);
        }
        let dict = dictionary.as_ref().ok_or_else(|| incorrect("LowCardinality granule without a dictionary"))?;
        let count = r.u64()?;
        if count == 0 || count > (n - done) as u64 {
            return Err(incorrect(format!("Invalid LowCardinality granule of {count} rows ({} expected)", n - done)));
        }
        let count = count as usize;
        let width = 1usize << index_type;
        let indexes = r.bytes(count * width)?;
        let (mut nulls, leaf) = match &mut *col {
            Col::Nullable { nulls, inner } => (Some(nulls), inner.as_mut()),
            other => (None, other),
        };
        for chunk in indexes.chunks_exact(width) {
            let mut a = [0u8; 8];
            a[..width].copy_from_slice(chunk);
            let index = u64::from_le_bytes(a) as usize;
            if let Some(nulls) = nulls.as_mut() {
                nulls.push(index == 0);
            }
            let value = dict.leaf_value(index).ok_or_else(|| incorrect(format!("LowCardinality index {index} is out of the dictionary")))?;
            leaf.push_leaf(value);
        }
        done += count;
    }
    Ok(())
}

// ---- Arrow conversion ----

/// The Arrow unit of `DateTime64(precision)` (see [`ChType::to_arrow`]).
pub(crate) fn time_unit(precision: u8) -> TimeUnit {
    match ChType::DateTime64(precision, None).to_arrow() {
        DataType::Timestamp(unit, _) => unit,
        _ => TimeUnit::Nanosecond,
    }
}

fn unit_digits(unit: TimeUnit) -> u32 {
    match unit {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 3,
        TimeUnit::Microsecond => 6,
        TimeUnit::Nanosecond => 9,
    }
}

/// `DateTime64(p)` ticks per Arrow unit step: Arrow holds `p` digits in the next unit up.
fn datetime64_factor(precision: u8) -> i64 {
    let unit = time_unit(precision);
    10i64.pow(unit_digits(unit).saturating_sub(u32::from(precision)))
}

/// `Time64(p)` ticks per Arrow unit step (microseconds up to 6 digits, else nanoseconds).
fn time64_factor(precision: u8) -> i64 {
    let unit_digits = if precision <= 6 { 6 } else { 9 };
    10i64.pow(unit_digits - u32::from(precision.min(9)))
}

/// Variant's binary layout (discriminators, then each type's values) is not written or
/// read yet: a clear error rather than a wrong byte stream.
fn variant_not_supported(t: &ChType) -> Error {
    Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Type {t} is not supported in binary formats (Native, RowBinary) yet"))
}

fn swap_uuid(bytes: &[u8], out: &mut Vec<u8>) {
    out.extend(bytes[..8].iter().rev());
    out.extend(bytes[8..16].iter().rev());
}

fn type_error(t: &ChType, array: &dyn Array) -> Error {
    Error::new(ErrorCode::LOGICAL_ERROR, format!("A column of Arrow type {} was given as {t}", array.data_type()))
}

/// Little-endian bytes of every value of a primitive array, `convert`ed, NULL slots as 0.
fn fixed_from<T: ArrowPrimitiveType, const W: usize>(
    t: &ChType,
    array: &dyn Array,
    convert: impl Fn(T::Native) -> [u8; W],
) -> Result<Col> {
    let values = array.as_primitive_opt::<T>().ok_or_else(|| type_error(t, array))?;
    let mut data = Vec::with_capacity(values.len() * W);
    for (i, &v) in values.values().iter().enumerate() {
        if values.is_null(i) {
            data.extend_from_slice(&[0; W]);
        } else {
            data.extend_from_slice(&convert(v));
        }
    }
    Ok(Col::Fixed { width: W, data })
}

impl Col {
    /// The binary layout of an Arrow column holding ClickHouse type `t`.
    pub fn from_arrow(t: &ChType, array: &dyn Array) -> Result<Col> {
        Ok(match t {
            ChType::Enum8(_) | ChType::Enum16(_) | ChType::IPv4 | ChType::IPv6 => {
                let layout = binary_layout(t).ok_or_else(|| type_error(t, array))?;
                Col::from_arrow(&layout, array)?
            }
            ChType::Variant(_) => return Err(variant_not_supported(t)),
            ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner) => Col::from_arrow(inner, array)?,
            ChType::Nullable(inner) => {
                let nulls = (0..array.len()).map(|i| array.is_null(i)).collect();
                Col::Nullable { nulls, inner: Box::new(Col::from_arrow(inner, array)?) }
            }
            ChType::Array(inner) => {
                let list = array.as_list_opt::<i32>().ok_or_else(|| type_error(t, array))?;
                let offsets = list.value_offsets();
                let first = offsets.first().copied().unwrap_or(0) as usize;
                let ends: Vec<usize> = offsets.iter().skip(1).map(|&o| o as usize - first).collect();
                let values = list.values().slice(first, last(&ends));
                Col::Array { ends, inner: Box::new(Col::from_arrow(inner, &values)?) }
            }
            ChType::Tuple(items) => {
                let s = array.as_struct_opt().ok_or_else(|| type_error(t, array))?;
                if s.num_columns() != items.len() {
                    return Err(type_error(t, array));
                }
                Col::Tuple(items.iter().zip(s.columns()).map(|((_, t), c)| Col::from_arrow(t, c)).collect::<Result<_>>()?)
            }
            ChType::Map(k, v) => {
                let map = array.as_map_opt().ok_or_else(|| type_error(t, array))?;
                let offsets = map.value_offsets();
                let first = offsets.first().copied().unwrap_or(0) as usize;
                let ends: Vec<usize> = offsets.iter().skip(1).map(|&o| o as usize - first).collect();
                let n = last(&ends);
                Col::Map {
                    keys: Box::new(Col::from_arrow(k, &map.keys().slice(first, n))?),
                    values: Box::new(Col::from_arrow(v, &map.values().slice(first, n))?),
                    ends,
                }
            }
            ChType::String => {
                let mut ends = Vec::with_capacity(array.len());
                let mut data = Vec::new();
                let mut push = |value: Option<&[u8]>| {
                    data.extend_from_slice(value.unwrap_or_default());
                    ends.push(data.len());
                };
                if let Some(s) = array.as_string_opt::<i32>() {
                    s.iter().for_each(|v| push(v.map(str::as_bytes)));
                } else if let Some(b) = array.as_binary_opt::<i32>() {
                    b.iter().for_each(push);
                } else {
                    let cast = arrow::compute::cast(array, &DataType::Binary)?;
                    cast.as_binary::<i32>().iter().for_each(push);
                }
                Col::Strings { ends, data }
            }
            ChType::AggregateFunction(function, args) => {
                let binary = array.as_binary_opt::<i32>().ok_or_else(|| type_error(t, array))?;
                let offsets = binary.value_offsets();
                let first = offsets.first().copied().unwrap_or(0) as usize;
                let ends = offsets.iter().skip(1).map(|&o| o as usize - first).collect();
                let data = binary.value_data()[first..offsets.last().copied().unwrap_or(0) as usize].to_vec();
                Col::States { function: function.clone(), args: args.clone(), ends, data }
            }
            ChType::FixedString(_) | ChType::Uuid => {
                let width = fixed_width(t)?;
                let fixed = array.as_fixed_size_binary_opt().filter(|f| f.value_length() as usize == width).ok_or_else(|| type_error(t, array))?;
                let mut data = Vec::with_capacity(fixed.len() * width);
                for i in 0..fixed.len() {
                    if fixed.is_null(i) {
                        data.resize(data.len() + width, 0);
                    } else if matches!(t, ChType::Uuid) {
                        swap_uuid(fixed.value(i), &mut data);
                    } else {
                        data.extend_from_slice(fixed.value(i));
                    }
                }
                Col::Fixed { width, data }
            }
            ChType::Nothing => Col::Fixed { width: 1, data: vec![b'0'; array.len()] },
            ChType::Bool => {
                let b = array.as_boolean_opt().ok_or_else(|| type_error(t, array))?;
                Col::Fixed { width: 1, data: (0..b.len()).map(|i| u8::from(b.is_valid(i) && b.value(i))).collect() }
            }
            ChType::UInt8 => fixed_from::<UInt8Type, 1>(t, array, |v| v.to_le_bytes())?,
            ChType::UInt16 => fixed_from::<UInt16Type, 2>(t, array, |v| v.to_le_bytes())?,
            ChType::UInt32 => fixed_from::<UInt32Type, 4>(t, array, |v| v.to_le_bytes())?,
            ChType::UInt64 => fixed_from::<UInt64Type, 8>(t, array, |v| v.to_le_bytes())?,
            ChType::Int8 => fixed_from::<Int8Type, 1>(t, array, |v| v.to_le_bytes())?,
            ChType::Int16 => fixed_from::<Int16Type, 2>(t, array, |v| v.to_le_bytes())?,
            ChType::Int32 => fixed_from::<Int32Type, 4>(t, array, |v| v.to_le_bytes())?,
            ChType::Int64 | ChType::Interval(_) => fixed_from::<Int64Type, 8>(t, array, |v| v.to_le_bytes())?,
            ChType::Float32 => fixed_from::<Float32Type, 4>(t, array, |v| v.to_le_bytes())?,
            ChType::Float64 => fixed_from::<Float64Type, 8>(t, array, |v| v.to_le_bytes())?,
            // Date is UInt16 days: out-of-range values wrap as in ClickHouse's cast.
            ChType::Date => fixed_from::<Date32Type, 2>(t, array, |v| (v as u16).to_le_bytes())?,
            ChType::Date32 => fixed_from::<Date32Type, 4>(t, array, |v| v.to_le_bytes())?,
            ChType::DateTime(_) => fixed_from::<TimestampSecondType, 4>(t, array, |v| (v as u32).to_le_bytes())?,
            ChType::DateTime64(p, _) => {
                let factor = datetime64_factor(*p);
                let ticks = move |v: i64| v.div_euclid(factor).to_le_bytes();
                match time_unit(*p) {
                    TimeUnit::Second => fixed_from::<TimestampSecondType, 8>(t, array, ticks)?,
                    TimeUnit::Millisecond => fixed_from::<TimestampMillisecondType, 8>(t, array, ticks)?,
                    TimeUnit::Microsecond => fixed_from::<TimestampMicrosecondType, 8>(t, array, ticks)?,
                    TimeUnit::Nanosecond => fixed_from::<TimestampNanosecondType, 8>(t, array, ticks)?,
                }
            }
            ChType::Time => fixed_from::<Time32SecondType, 4>(t, array, |v| v.to_le_bytes())?,
            // Time64(p) is a Decimal64 of p digits in ClickHouse.
            ChType::Time64(p) => {
                let factor = time64_factor(*p);
                let ticks = move |v: i64| v.div_euclid(factor).to_le_bytes();
                if *p <= 6 {
                    fixed_from::<Time64MicrosecondType, 8>(t, array, ticks)?
                } else {
                    fixed_from::<Time64NanosecondType, 8>(t, array, ticks)?
                }
            }
            ChType::Decimal(p, _) => match decimal_width(*p) {
                4 => fixed_from::<Decimal128Type, 4>(t, array, |v| (v as i32).to_le_bytes())?,
                8 => fixed_from::<Decimal128Type, 8>(t, array, |v| (v as i64).to_le_bytes())?,
                16 => fixed_from::<Decimal128Type, 16>(t, array, |v| v.to_le_bytes())?,
                _ => fixed_from::<Decimal256Type, 32>(t, array, |v| v.to_le_bytes())?,
            },
            // Little-endian two's complement, as ClickHouse writes them.
            ChType::Int128 => fixed_from::<Decimal128Type, 16>(t, array, |v| v.to_le_bytes())?,
            ChType::UInt128 => fixed_from::<Decimal256Type, 16>(t, array, |v| v.to_parts().0.to_le_bytes())?,
            ChType::Int256 | ChType::UInt256 => fixed_from::<Decimal256Type, 32>(t, array, |v| v.to_le_bytes())?,
        })
    }

    /// The Arrow column (of type `t.to_arrow()`) holding these values.
    pub fn into_arrow(self, t: &ChType) -> Result<ArrayRef> {
        self.into_arrow_with(t, None)
    }

    fn into_arrow_with(self, t: &ChType, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
        if let Some(layout) = binary_layout(t) {
            return self.into_arrow_with(&layout, nulls);
        }
        let len = self.len();
        let data_type = t.to_arrow();
        Ok(match (t, self) {
            (ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner), col) => col.into_arrow_with(inner, nulls)?,
            (ChType::Nullable(inner), Col::Nullable { nulls, inner: c }) => {
                let valid = NullBuffer::from(nulls.iter().map(|&n| !n).collect::<Vec<_>>());
                c.into_arrow_with(inner, Some(valid))?
            }
            (ChType::Array(inner), Col::Array { ends, inner: c }) => {
                let DataType::List(field) = data_type else { return Err(shape_error(t)) };
                let values = c.into_arrow(inner)?;
                Arc::new(ListArray::try_new(field, offsets_i32(&ends)?, values, nulls)?)
            }
            (ChType::Tuple(items), Col::Tuple(cols)) => {
                let DataType::Struct(fields) = data_type else { return Err(shape_error(t)) };
                let columns = items.iter().zip(cols).map(|((_, t), c)| c.into_arrow(t)).collect::<Result<Vec<_>>>()?;
                if columns.is_empty() {
                    Arc::new(StructArray::new_empty_fields(len, nulls))
                } else {
                    Arc::new(StructArray::try_new(fields, columns, nulls)?)
                }
            }
            (ChType::Map(k, v), Col::Map { ends, keys, values }) => {
                let DataType::Map(entries, sorted) = data_type else { return Err(shape_error(t)) };
                let DataType::Struct(kv) = entries.data_type() else { return Err(shape_error(t)) };
                let entries_array = StructArray::try_new(kv.clone(), vec![keys.into_arrow(k)?, values.into_arrow(v)?], None)?;
                Arc::new(MapArray::try_new(entries, offsets_i32(&ends)?, entries_array, nulls, sorted)?)
            }
            (ChType::String, Col::Strings { ends, data }) => {
                let offsets = offsets_i32(&ends)?;
                if std::str::from_utf8(&data).is_ok() {
                    Arc::new(StringArray::try_new(offsets, Buffer::from_vec(data), nulls)?)
                } else {
                    // Arrow strings are UTF-8: invalid sequences are replaced.
                    let mut start = 0;
                    let values = ends.iter().map(|&end| {
                        let s = String::from_utf8_lossy(&data[start..end]).into_owned();
                        start = end;
                        s
                    });
                    let array = StringArray::from_iter_values(values);
                    Arc::new(StringArray::try_new(array.offsets().clone(), array.values().clone(), nulls)?)
                }
            }
            (ChType::AggregateFunction(..), Col::States { ends, data, .. }) => {
                Arc::new(arrow::array::BinaryArray::try_new(offsets_i32(&ends)?, Buffer::from_vec(data), nulls)?)
            }
            (ChType::Nothing, _) => Arc::new(NullArray::new(len)),
            (leaf, Col::Fixed { data, width }) => fixed_to_arrow(leaf, &data, width, nulls, data_type)?,
            (t, _) => return Err(shape_error(t)),
        })
    }
}

fn offsets_i32(ends: &[usize]) -> Result<OffsetBuffer<i32>> {
    let mut offsets = Vec::with_capacity(ends.len() + 1);
    offsets.push(0i32);
    for &end in ends {
        offsets.push(i32::try_from(end).map_err(|_| Error::new(ErrorCode::TOO_LARGE_STRING_SIZE, "A column is too large for one block"))?);
    }
    Ok(OffsetBuffer::new(ScalarBuffer::from(offsets)))
}

fn primitive<T: ArrowPrimitiveType, const W: usize>(
    data: &[u8],
    nulls: Option<NullBuffer>,
    data_type: DataType,
    convert: impl Fn([u8; W]) -> T::Native,
) -> Result<ArrayRef> {
    let values: Vec<T::Native> = data
        .chunks_exact(W)
        .map(|c| {
            let mut a = [0u8; W];
            a.copy_from_slice(c);
            convert(a)
        })
        .collect();
    Ok(Arc::new(PrimitiveArray::<T>::try_new(ScalarBuffer::from(values), nulls)?.with_data_type(data_type)))
}

fn fixed_to_arrow(t: &ChType, data: &[u8], width: usize, nulls: Option<NullBuffer>, data_type: DataType) -> Result<ArrayRef> {
    Ok(match t {
        ChType::UInt8 => primitive::<UInt8Type, 1>(data, nulls, data_type, u8::from_le_bytes)?,
        ChType::UInt16 => primitive::<UInt16Type, 2>(data, nulls, data_type, u16::from_le_bytes)?,
        ChType::UInt32 => primitive::<UInt32Type, 4>(data, nulls, data_type, u32::from_le_bytes)?,
        ChType::UInt64 => primitive::<UInt64Type, 8>(data, nulls, data_type, u64::from_le_bytes)?,
        ChType::Int8 => primitive::<Int8Type, 1>(data, nulls, data_type, i8::from_le_bytes)?,
        ChType::Int16 => primitive::<Int16Type, 2>(data, nulls, data_type, i16::from_le_bytes)?,
        ChType::Int32 => primitive::<Int32Type, 4>(data, nulls, data_type, i32::from_le_bytes)?,
        ChType::Int64 | ChType::Interval(_) => primitive::<Int64Type, 8>(data, nulls, data_type, i64::from_le_bytes)?,
        ChType::Float32 => primitive::<Float32Type, 4>(data, nulls, data_type, f32::from_le_bytes)?,
        ChType::Float64 => primitive::<Float64Type, 8>(data, nulls, data_type, f64::from_le_bytes)?,
        ChType::Bool => Arc::new(BooleanArray::new(data.iter().map(|&b| b != 0).collect(), nulls)),
        ChType::Date => primitive::<Date32Type, 2>(data, nulls, data_type, |b| i32::from(u16::from_le_bytes(b)))?,
        ChType::Date32 => primitive::<Date32Type, 4>(data, nulls, data_type, i32::from_le_bytes)?,
        ChType::DateTime(_) => primitive::<TimestampSecondType, 4>(data, nulls, data_type, |b| i64::from(u32::from_le_bytes(b)))?,
        ChType::DateTime64(p, _) => {
            let factor = datetime64_factor(*p);
            let value = move |b| i64::from_le_bytes(b).saturating_mul(factor);
            match time_unit(*p) {
                TimeUnit::Second => primitive::<TimestampSecondType, 8>(data, nulls, data_type, value)?,
                TimeUnit::Millisecond => primitive::<TimestampMillisecondType, 8>(data, nulls, data_type, value)?,
                TimeUnit::Microsecond => primitive::<TimestampMicrosecondType, 8>(data, nulls, data_type, value)?,
                TimeUnit::Nanosecond => primitive::<TimestampNanosecondType, 8>(data, nulls, data_type, value)?,
            }
        }
        ChType::Time => primitive::<Time32SecondType, 4>(data, nulls, data_type, i32::from_le_bytes)?,
        ChType::Time64(p) => {
            let factor = time64_factor(*p);
            let value = move |b| i64::from_le_bytes(b).saturating_mul(factor);
            if *p <= 6 {
                primitive::<Time64MicrosecondType, 8>(data, nulls, data_type, value)?
            } else {
                primitive::<Time64NanosecondType, 8>(data, nulls, data_type, value)?
            }
        }
        ChType::Decimal(p, _) => match decimal_width(*p) {
            4 => primitive::<Decimal128Type, 4>(data, nulls, data_type, |b| i128::from(i32::from_le_bytes(b)))?,
            8 => primitive::<Decimal128Type, 8>(data, nulls, data_type, |b| i128::from(i64::from_le_bytes(b)))?,
            16 => primitive::<Decimal128Type, 16>(data, nulls, data_type, i128::from_le_bytes)?,
            _ => primitive::<Decimal256Type, 32>(data, nulls, data_type, i256::from_le_bytes)?,
        },
        ChType::Int128 => primitive::<Decimal128Type, 16>(data, nulls, data_type, i128::from_le_bytes)?,
        ChType::UInt128 => primitive::<Decimal256Type, 16>(data, nulls, data_type, |b| i256::from_parts(u128::from_le_bytes(b), 0))?,
        ChType::Int256 | ChType::UInt256 => primitive::<Decimal256Type, 32>(data, nulls, data_type, i256::from_le_bytes)?,
        ChType::Uuid => {
            let mut swapped = Vec::with_capacity(data.len());
            data.chunks_exact(16).for_each(|c| swap_uuid(c, &mut swapped));
            Arc::new(FixedSizeBinaryArray::try_new(16, Buffer::from_vec(swapped), nulls)?)
        }
        ChType::FixedString(_) => Arc::new(FixedSizeBinaryArray::try_new(width as i32, Buffer::from(data), nulls)?),
        other => return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Type {other} is not supported in binary formats"))),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        for v in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            write_varint(v, &mut out);
            assert_eq!(Reader::new(&out).varint().unwrap(), v);
            let truncated = &out[..out.len() - 1];
            assert!(is_incomplete(&Reader::new(truncated).varint().unwrap_err()));
        }
        assert_eq!(Reader::new(&[0xff; 11]).varint().unwrap_err().code(), ErrorCode::INCORRECT_DATA);
    }

    #[test]
    fn absurd_lengths_are_errors_not_allocations() {
        let mut out = Vec::new();
        write_varint(u64::MAX >> 1, &mut out);
        assert_eq!(Reader::new(&out).string().unwrap_err().code(), ErrorCode::TOO_LARGE_STRING_SIZE);
        let mut col = Col::new(&ChType::parse("Array(UInt8)").unwrap()).unwrap();
        assert_eq!(col.read_row(&mut Reader::new(&out)).unwrap_err().code(), ErrorCode::INCORRECT_DATA);
    }
}
