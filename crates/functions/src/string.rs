//! String functions with ClickHouse's byte semantics: `length` (also of arrays),
//! `empty`, `notEmpty`, `lower`, `upper` (ASCII only; the UTF8 variants are in
//! [`crate::utf8`]), `concat`, `substring` (1-based, negative offsets from the end, float
//! offsets truncated), `startsWith`, `endsWith`, `replaceOne`/`replaceAll` (literal
//! search), `trimLeft`/`trimRight`/`trimBoth` (spaces, or the bytes a constant second
//! argument lists), `reverse` (the bytes of a string, as ClickHouse, or an array's
//! elements), `splitByChar`/`splitByString` (an empty separator splits into bytes;
//! `max_substrings`), `toValidUTF8`, `hex`.
//!
//! Results are built as bytes ([`crate::text::ByteStrings`]); a value that is not valid
//! UTF-8 (`reverse('ü')`) is stored with U+FFFD for each invalid sequence, since Granary's
//! String is Arrow's UTF-8 `Utf8`. Functions that ClickHouse restricts to String refuse
//! FixedString with ClickHouse's code (43, or 44 where it names the column).

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, FixedSizeBinaryArray, GenericListArray, StringArray, StringBuilder,
    UInt64Array, UInt8Array,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{
    DataType, Date32Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type,
    UInt32Type, UInt64Type, UInt8Type,
};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::logical_expr::{ColumnarValue, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, is_integer, Arity, DfResult};
use crate::conversion::convert::{convert, is_text, Conv, Mode};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::text::{utf8_array, ByteStrings};

/// The string column of argument `i` as `Utf8` (FixedString bytes as-is).
pub(crate) fn utf8(ctx: &ExecCtx, i: usize) -> DfResult<ArrayRef> {
    utf8_array(ctx.array(i)?)
}

pub(crate) fn require_text(ctx: &RetCtx, i: usize) -> DfResult<()> {
    if is_text(ctx.dt(i)) {
        Ok(())
    } else {
        Err(illegal_type(ctx.name, i, ctx.field(i)))
    }
}

/// Byte-level map of one string column into another.
fn map_strings(array: &ArrayRef, mut f: impl FnMut(&str, &mut String)) -> ArrayRef {
    let s = array.as_string::<i32>();
    let mut b = StringBuilder::with_capacity(s.len(), s.value_data().len());
    let mut buf = String::new();
    for v in s.iter() {
        match v {
            None => b.append_null(),
            Some(v) => {
                buf.clear();
                f(v, &mut buf);
                b.append_value(&buf);
            }
        }
    }
    Arc::new(b.finish())
}

fn length() -> ScalarUDF {
    ScalarDef::new(
        "length",
        Arity::exact(1),
        |ctx| {
            let dt = ctx.dt(0);
            if is_text(dt) || matches!(dt, DataType::List(_) | DataType::LargeList(_) | DataType::Map(..)) {
                Ok(ChType::UInt64)
            } else {
                Err(illegal_type(ctx.name, 0, ctx.field(0)))
            }
        },
        |ctx| {
            let a = ctx.array(0)?;
            let out: UInt64Array = match a.data_type() {
                DataType::FixedSizeBinary(n) => UInt64Array::from(vec![*n as u64; a.len()]),
                DataType::List(_) => list_lengths(a.as_list::<i32>()),
                DataType::LargeList(_) => list_lengths(a.as_list::<i64>()),
                DataType::Map(..) => {
                    let m = a.as_map();
                    m.value_offsets().windows(2).map(|w| (w[1] - w[0]) as u64).collect::<Vec<_>>().into()
                }
                _ => string_lengths(&a)?.into(),
            };
            Ok(Arc::new(out))
        },
    )
    .takes_string_views()
    .build()
}

/// Byte lengths of a text column (0 for NULL rows). String views (Parquet's strings)
/// hold their lengths: no copy of the bytes into a `Utf8` column first.
fn string_lengths(a: &ArrayRef) -> DfResult<Vec<u64>> {
    if let DataType::Utf8View = a.data_type() {
        let views = a.as_string_view();
        let mut lengths: Vec<u64> = views.views().iter().map(|view| *view as u32 as u64).collect();
        if let Some(nulls) = views.nulls() {
            for row in nulls.iter().enumerate().filter(|(_, valid)| !valid).map(|(row, _)| row) {
                lengths[row] = 0;
            }
        }
        return Ok(lengths);
    }
    let s = cast(a, &DataType::Utf8)?;
    Ok(s.as_string::<i32>().value_offsets().windows(2).map(|w| (w[1] - w[0]) as u64).collect())
}

/// `lengthUTF8(s)` (`char_length`): code points, counted as ClickHouse does by the bytes
/// that do not continue a UTF-8 sequence (so invalid text still gets a length).
fn length_utf8() -> ScalarUDF {
    ScalarDef::new(
        "lengthUTF8",
        Arity::exact(1),
        |ctx| if is_text(ctx.dt(0)) { Ok(ChType::UInt64) } else { Err(illegal_type(ctx.name, 0, ctx.field(0))) },
        |ctx| {
            let a = ctx.array(0)?;
            let bytes = cast(&a, &DataType::Binary)?;
            let bytes = bytes.as_binary::<i32>();
            let out: UInt64Array = (0..bytes.len()).map(|i| bytes.value(i).iter().filter(|b| (**b & 0xC0) != 0x80).count() as u64).collect::<Vec<_>>().into();
            Ok(Arc::new(out))
        },
    )
    .build()
}

/// `like`, `notLike`, `ilike`, `notILike`: LIKE as a function returning UInt8 (what
/// ClickHouse prints for `s LIKE p` in a result column). `%` and `_` are wildcards,
/// `\\` escapes them.
fn like_fn(name: &'static str, negated: bool, case_insensitive: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            for i in 0..2 {
                if !is_text(ctx.dt(i)) {
                    return Err(illegal_type(ctx.name, i, ctx.field(i)));
                }
            }
            Ok(ChType::UInt8)
        },
        move |ctx| {
            use datafusion::arrow::compute::kernels::comparison;
            let text = cast(&ctx.array(0)?, &DataType::Utf8)?;
            let pattern = cast(&ctx.array(1)?, &DataType::Utf8)?;
            let (text, pattern) = (text.as_string::<i32>(), pattern.as_string::<i32>());
            let matched = match (case_insensitive, negated) {
                (false, false) => comparison::like(text, pattern)?,
                (false, true) => comparison::nlike(text, pattern)?,
                (true, false) => comparison::ilike(text, pattern)?,
                (true, true) => comparison::nilike(text, pattern)?,
            };
            Ok(cast(&(Arc::new(matched) as ArrayRef), &DataType::UInt8)?)
        },
    )
    .build()
}

pub(crate) fn list_lengths<O: datafusion::arrow::array::OffsetSizeTrait>(l: &GenericListArray<O>) -> UInt64Array {
    l.value_offsets().windows(2).map(|w| (w[1] - w[0]).as_usize() as u64).collect::<Vec<_>>().into()
}

fn emptiness(name: &'static str, want_empty: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            let dt = ctx.dt(0);
            if is_text(dt) || matches!(dt, DataType::List(_) | DataType::LargeList(_) | DataType::Map(..)) {
                Ok(ChType::UInt8)
            } else {
                Err(illegal_type(ctx.name, 0, ctx.field(0)))
            }
        },
        move |ctx| {
            let a = ctx.array(0)?;
            let lengths: Vec<u64> = match a.data_type() {
                DataType::FixedSizeBinary(_) => {
                    // A FixedString is empty when all its bytes are zero.
                    a.as_fixed_size_binary().iter().map(|v| v.map_or(0, |b| b.iter().any(|c| *c != 0) as u64)).collect()
                }
                DataType::List(_) => list_lengths(a.as_list::<i32>()).values().to_vec(),
                DataType::LargeList(_) => list_lengths(a.as_list::<i64>()).values().to_vec(),
                DataType::Map(..) => a.as_map().value_offsets().windows(2).map(|w| (w[1] - w[0]) as u64).collect(),
                _ => string_lengths(&a)?,
            };
            Ok(Arc::new(UInt8Array::from_iter_values(lengths.iter().map(|l| ((*l == 0) == want_empty) as u8))))
        },
    )
    .takes_string_views()
    .build()
}

fn case_fn(name: &'static str, upper: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            require_text(ctx, 0)?;
            Ok(ctx.ch(0))
        },
        move |ctx| {
            let a = ctx.array(0)?;
            if let DataType::FixedSizeBinary(n) = a.data_type() {
                let b = a.as_fixed_size_binary();
                let out = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    b.iter().map(|v| {
                        v.map(|bytes| {
                            bytes.iter().map(|c| if upper { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() }).collect::<Vec<u8>>()
                        })
                    }),
                    *n,
                )?;
                return Ok(Arc::new(out));
            }
            let s = utf8(ctx, 0)?;
            Ok(map_strings(&s, |v, out| {
                if upper {
                    out.push_str(&v.to_ascii_uppercase())
                } else {
                    out.push_str(&v.to_ascii_lowercase())
                }
            }))
        },
    )
    .build()
}

fn concat() -> ScalarUDF {
    ScalarDef::new(
        "concat",
        Arity::at_least(0),
        |_| Ok(ChType::String),
        |ctx| {
            let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
            // Constant arguments (the usual `concat('prefix-', col)`) are converted once,
            // not expanded to a column; the result is written straight into one buffer.
            let mut pieces = Vec::with_capacity(ctx.args.len());
            for i in 0..ctx.args.len() {
                let constant = matches!(ctx.args[i], ColumnarValue::Scalar(_));
                let a = ctx.args[i].to_array(if constant { 1 } else { ctx.len })?;
                let text = match a.data_type() {
                    DataType::Utf8 => a,
                    DataType::FixedSizeBinary(_) | DataType::LargeUtf8 | DataType::Utf8View => utf8_array(a)?,
                    _ => convert(&a, &ctx.fields[i], &ChType::String, &cv)?,
                };
                let text = text.as_string::<i32>().clone();
                pieces.push(match constant {
                    true => {
                        // Padded so that short copies of it can move 16 bytes at once.
                        let text = if text.is_valid(0) { text.value(0).as_bytes() } else { &[] };
                        let mut padded = Vec::with_capacity(text.len() + SHORT_COPY);
                        padded.extend_from_slice(text);
                        let len = padded.len();
                        padded.resize(len + SHORT_COPY, 0);
                        ConcatPiece::Constant(padded, len)
                    }
                    false => ConcatPiece::Column(text),
                });
            }
            let total: usize = pieces
                .iter()
                .map(|p| match p {
                    ConcatPiece::Constant(_, len) => len * ctx.len,
                    ConcatPiece::Column(s) => (s.value_offsets()[s.len()] - s.value_offsets()[0]) as usize,
                })
                .sum();
            if total > i32::MAX as usize {
                return Err(ch_error(ErrorCode::TOO_LARGE_STRING_SIZE, format!("concat: the result of {total} bytes does not fit in one block")));
            }
            // Zeroed with room for one short copy's overrun (see `put_short`).
            let mut values: Vec<u8> = vec![0; total + SHORT_COPY];
            let mut offsets: Vec<i32> = Vec::with_capacity(ctx.len + 1);
            offsets.push(0);
            let mut end = 0;
            for row in 0..ctx.len {
                for piece in &pieces {
                    match piece {
                        ConcatPiece::Constant(padded, len) => end = put_short(&mut values, end, padded, 0, *len),
                        ConcatPiece::Column(s) if s.is_valid(row) => {
                            let offsets = s.value_offsets();
                            let (start, stop) = (offsets[row] as usize, offsets[row + 1] as usize);
                            end = put_short(&mut values, end, s.value_data(), start, stop - start);
                        }
                        ConcatPiece::Column(_) => {}
                    }
                }
                // Cannot overflow: `values` never grows past `total`, checked above.
                offsets.push(end as i32);
            }
            values.truncate(end);
            Ok(Arc::new(StringArray::try_new(OffsetBuffer::new(offsets.into()), values.into(), None)?))
        },
    )
    .build()
}

/// Bytes a short copy moves at once.
const SHORT_COPY: usize = 16;

/// Copies `from[start..start + len]` to `out[at..]` and returns where it ends. Most
/// pieces are a few bytes (`concat('id-', toString(n))`): a copy of a fixed 16 bytes is
/// a pair of register moves where a copy of `len` bytes is a `memmove` call per piece.
/// It may write up to 16 bytes past the end, which the next piece overwrites (`out`
/// has that much room after the last piece).
#[inline(always)]
fn put_short(out: &mut [u8], at: usize, from: &[u8], start: usize, len: usize) -> usize {
    // Array references, not slices: a slice copy of 16 bytes still compiles to a call.
    let chunk: Option<&[u8; SHORT_COPY]> = from.get(start..start + SHORT_COPY).and_then(|c| c.try_into().ok());
    let to: Option<&mut [u8; SHORT_COPY]> = out.get_mut(at..at + SHORT_COPY).and_then(|c| c.try_into().ok());
    match (chunk, to) {
        (Some(chunk), Some(to)) if len <= SHORT_COPY => *to = *chunk,
        _ => out[at..at + len].copy_from_slice(&from[start..start + len]),
    }
    at + len
}

/// One argument of `concat`, as text.
enum ConcatPiece {
    /// The text's bytes followed by `SHORT_COPY` zeros, and the text's length.
    Constant(Vec<u8>, usize),
    Column(StringArray),
}

/// ClickHouse's byte range of `substring(s, offset[, length])`.
pub(crate) fn substring_range(len: i64, offset: i64, length: Option<i64>) -> (usize, usize) {
    let start: i64 = if offset > 0 {
        offset - 1
    } else if offset < 0 {
        len + offset
    } else {
        return (0, 0);
    };
    let mut begin = start;
    let mut end = match length {
        None => len,
        Some(l) if l >= 0 => start.saturating_add(l),
        Some(l) => len + l,
    };
    if begin < 0 {
        begin = 0;
    }
    if end > len {
        end = len;
    }
    if begin >= end || begin >= len {
        return (0, 0);
    }
    (begin as usize, end as usize)
}

fn substring() -> ScalarUDF {
    ScalarDef::new(
        "substring",
        Arity::range(2, 3),
        |ctx| {
            require_text(ctx, 0)?;
            for i in 1..ctx.arg_count() {
                crate::utf8::require_offset(ctx, i)?;
            }
            Ok(ChType::String)
        },
        |ctx| {
            let s = utf8(ctx, 0)?;
            let s = s.as_string::<i32>();
            let offsets = cast(&ctx.array(1)?, &DataType::Int64)?;
            let offsets = offsets.as_primitive::<Int64Type>();
            let lengths = if ctx.args.len() > 2 { Some(cast(&ctx.array(2)?, &DataType::Int64)?) } else { None };
            let lengths = lengths.as_ref().map(|l| l.as_primitive::<Int64Type>());
            // Byte slices may split a UTF-8 sequence, as in ClickHouse; the result is
            // built from bytes and stored as a (possibly non-UTF-8) String value.
            let mut values: Vec<u8> = Vec::with_capacity(s.value_data().len());
            let mut offs: Vec<i32> = Vec::with_capacity(s.len() + 1);
            offs.push(0);
            for row in 0..s.len() {
                if s.is_valid(row) {
                    let bytes = s.value(row).as_bytes();
                    let len = lengths.map(|l| l.value(row));
                    let (b, e) = substring_range(bytes.len() as i64, offsets.value(row), len);
                    values.extend_from_slice(&bytes[b..e]);
                }
                offs.push(values.len() as i32);
            }
            // `build` validates UTF-8; a cut inside a character falls back to a
            // lossy rebuild below (Arrow strings must be valid UTF-8).
            let data = datafusion::arrow::array::ArrayData::builder(DataType::Utf8)
                .len(s.len())
                .add_buffer(datafusion::arrow::buffer::Buffer::from_vec(offs))
                .add_buffer(datafusion::arrow::buffer::Buffer::from_vec(values))
                .nulls(s.nulls().cloned())
                .build();
            match data {
                Ok(d) => Ok(datafusion::arrow::array::make_array(d)),
                Err(_) => {
                    let mut b = StringBuilder::new();
                    for row in 0..s.len() {
                        if s.is_null(row) {
                            b.append_null();
                            continue;
                        }
                        let bytes = s.value(row).as_bytes();
                        let len = lengths.map(|l| l.value(row));
                        let (start, end) = substring_range(bytes.len() as i64, offsets.value(row), len);
                        b.append_value(String::from_utf8_lossy(&bytes[start..end]));
                    }
                    Ok(Arc::new(b.finish()))
                }
            }
        },
    )
    .build()
}

/// How `startsWith`/`endsWith` and their variants compare the affix.
#[derive(Clone, Copy)]
enum AffixCase {
    /// Bytes as they are (also the UTF8 forms: Granary's strings are valid UTF-8, so a
    /// byte match always ends on a character boundary).
    Exact,
    /// ASCII letters in either case.
    AsciiInsensitive,
    /// Code points compared by their lowercase forms.
    Utf8Insensitive,
}

fn utf8_starts_with_caseless(text: &str, affix: &str) -> bool {
    let mut text_chars = text.chars().flat_map(char::to_lowercase);
    affix.chars().flat_map(char::to_lowercase).all(|c| text_chars.next() == Some(c))
}

fn utf8_ends_with_caseless(text: &str, affix: &str) -> bool {
    let mut text_chars = text.chars().rev().flat_map(char::to_lowercase);
    affix.chars().rev().flat_map(char::to_lowercase).all(|c| text_chars.next() == Some(c))
}

fn affix_matches(text: &[u8], affix: &[u8], starts: bool, case: AffixCase) -> bool {
    match case {
        AffixCase::Exact => {
            if starts {
                text.starts_with(affix)
            } else {
                text.ends_with(affix)
            }
        }
        AffixCase::AsciiInsensitive => {
            text.len() >= affix.len() && {
                let part = if starts { &text[..affix.len()] } else { &text[text.len() - affix.len()..] };
                part.eq_ignore_ascii_case(affix)
            }
        }
        AffixCase::Utf8Insensitive => {
            let (text, affix) = (String::from_utf8_lossy(text), String::from_utf8_lossy(affix));
            if starts {
                utf8_starts_with_caseless(&text, &affix)
            } else {
                utf8_ends_with_caseless(&text, &affix)
            }
        }
    }
}

fn affix(name: &'static str, starts: bool, case: AffixCase) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            require_text(ctx, 0)?;
            require_text(ctx, 1)?;
            Ok(ChType::UInt8)
        },
        move |ctx| {
            let matches = |text: &[u8], affix: &[u8]| affix_matches(text, affix, starts, case);
            // A constant affix (the usual `startsWith(url, 'https://')`) is not expanded
            // into a column, and string views (Parquet) are read in place.
            if let Some(affix) = ctx.scalar(1).and_then(crate::args::scalar_str) {
                let text = ctx.array(0)?;
                let out: Vec<u8> = match text.data_type() {
                    DataType::Utf8View => {
                        let views = text.as_string_view();
                        (0..views.len()).map(|row| matches(views.value(row).as_bytes(), affix.as_bytes()) as u8).collect()
                    }
                    _ => {
                        let text = utf8_array(text)?;
                        let text = text.as_string::<i32>();
                        (0..text.len()).map(|row| matches(text.value(row).as_bytes(), affix.as_bytes()) as u8).collect()
                    }
                };
                return Ok(Arc::new(UInt8Array::from(out)));
            }
            let s = utf8(ctx, 0)?;
            let p = utf8(ctx, 1)?;
            let (s, p) = (s.as_string::<i32>(), p.as_string::<i32>());
            let out: UInt8Array = (0..s.len()).map(|row| matches(s.value(row).as_bytes(), p.value(row).as_bytes()) as u8).collect::<Vec<_>>().into();
            Ok(Arc::new(out))
        },
    )
    .takes_string_views()
    .build()
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

fn push_hex(bytes: &[u8], out: &mut String) {
    for b in bytes {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
}

fn push_bin(bytes: &[u8], out: &mut String) {
    for b in bytes {
        for bit in (0..8).rev() {
            out.push(if (b >> bit) & 1 == 1 { '1' } else { '0' });
        }
    }
}

/// Big-endian bytes without leading zero bytes (at least one), as ClickHouse prints
/// integers in `hex` and `bin`.
fn push_int_digits(be: &[u8], out: &mut String, push: fn(&[u8], &mut String)) {
    let first = be.iter().position(|b| *b != 0).unwrap_or(be.len() - 1);
    push(&be[first..], out);
}

/// `hex` and `bin`: the digits of each byte of a string, an integer (big-endian, no
/// leading zero bytes) or a float (its little-endian IEEE bytes).
fn byte_digits(name: &'static str, push: fn(&[u8], &mut String)) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            let dt = ctx.dt(0);
            // Binary holds AggregateFunction states: their serialized bytes, as in ClickHouse.
            let wide = matches!(ctx.ch(0).strip_nullable(), ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256);
            if wide || is_text(dt) || is_integer(dt) || matches!(dt, DataType::Float32 | DataType::Float64 | DataType::Date32 | DataType::Timestamp(..) | DataType::Binary) {
                Ok(ChType::String)
            } else {
                Err(illegal_type(ctx.name, 0, ctx.field(0)))
            }
        },
        move |ctx| {
            let a = ctx.array(0)?;
            let mut b = StringBuilder::with_capacity(a.len(), a.len() * 8);
            let mut buf = String::new();
            macro_rules! ints {
                ($t:ty) => {{
                    let p = a.as_primitive::<$t>();
                    for v in p.iter() {
                        match v {
                            None => b.append_null(),
                            Some(v) => {
                                buf.clear();
                                push_int_digits(&v.to_be_bytes(), &mut buf, push);
                                b.append_value(&buf);
                            }
                        }
                    }
                }};
            }
            match a.data_type() {
                DataType::Int8 => ints!(Int8Type),
                DataType::Int16 => ints!(Int16Type),
                DataType::Int32 => ints!(Int32Type),
                DataType::Int64 => ints!(Int64Type),
                DataType::UInt8 => ints!(UInt8Type),
                DataType::UInt16 => ints!(UInt16Type),
                DataType::UInt32 => ints!(UInt32Type),
                DataType::UInt64 => ints!(UInt64Type),
                // Wide integers (their two's-complement bits in a decimal of scale 0).
                DataType::Decimal128(..) => ints!(datafusion::arrow::datatypes::Decimal128Type),
                DataType::Decimal256(..) => ints!(datafusion::arrow::datatypes::Decimal256Type),
                // Date is UInt16 days in ClickHouse.
                DataType::Date32 => {
                    let p = a.as_primitive::<Date32Type>();
                    for v in p.iter() {
                        match v {
                            None => b.append_null(),
                            Some(v) => {
                                buf.clear();
                                push_int_digits(&v.to_be_bytes(), &mut buf, push);
                                b.append_value(&buf);
                            }
                        }
                    }
                }
                DataType::Timestamp(..) => {
                    let (raw, _) = crate::conversion::convert::timestamp_ticks(&a)?;
                    for v in raw.iter() {
                        match v {
                            None => b.append_null(),
                            Some(v) => {
                                buf.clear();
                                push_int_digits(&v.to_be_bytes(), &mut buf, push);
                                b.append_value(&buf);
                            }
                        }
                    }
                }
                // Floats: the little-endian bytes of the IEEE value.
                DataType::Float32 => {
                    for v in a.as_primitive::<Float32Type>().iter() {
                        match v {
                            None => b.append_null(),
                            Some(v) => {
                                buf.clear();
                                push(&v.to_le_bytes(), &mut buf);
                                b.append_value(&buf);
                            }
                        }
                    }
                }
                DataType::Float64 => {
                    for v in a.as_primitive::<Float64Type>().iter() {
                        match v {
                            None => b.append_null(),
                            Some(v) => {
                                buf.clear();
                                push(&v.to_le_bytes(), &mut buf);
                                b.append_value(&buf);
                            }
                        }
                    }
                }
                DataType::Binary => {
                    for v in a.as_binary::<i32>().iter() {
                        match v {
                            None => b.append_null(),
                            Some(v) => {
                                buf.clear();
                                push(v, &mut buf);
                                b.append_value(&buf);
                            }
                        }
                    }
                }
                DataType::FixedSizeBinary(_) => {
                    for v in a.as_fixed_size_binary().iter() {
                        match v {
                            None => b.append_null(),
                            Some(v) => {
                                buf.clear();
                                push(v, &mut buf);
                                b.append_value(&buf);
                            }
                        }
                    }
                }
                _ => {
                    let s = utf8(ctx, 0)?;
                    for v in s.as_string::<i32>().iter() {
                        match v {
                            None => b.append_null(),
                            Some(v) => {
                                buf.clear();
                                push(v.as_bytes(), &mut buf);
                                b.append_value(&buf);
                            }
                        }
                    }
                }
            }
            Ok(Arc::new(b.finish()))
        },
    )
    .build()
}


/// A String argument (LowCardinality(String) too); ClickHouse's newer string functions
/// refuse FixedString.
pub(crate) fn is_plain_string(t: &ChType) -> bool {
    match t.strip_nullable() {
        ChType::String => true,
        ChType::LowCardinality(inner) => matches!(inner.strip_nullable(), ChType::String),
        _ => false,
    }
}

/// Argument `i` must be a String: `code` 43 for other types, 44 for a FixedString where
/// ClickHouse names the column rather than the type.
pub(crate) fn require_string(ctx: &RetCtx, i: usize, fixed_string_code: ErrorCode) -> DfResult<()> {
    let t = ctx.ch(i);
    if is_plain_string(&t) {
        return Ok(());
    }
    if matches!(t.base(), ChType::FixedString(_)) && fixed_string_code == ErrorCode::ILLEGAL_COLUMN {
        return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Illegal column {t} of argument #{} of function {}", i + 1, ctx.name)));
    }
    Err(illegal_type(ctx.name, i, ctx.field(i)))
}

/// An argument that must be a constant String (`separator`, `trim_character`, ...): 43
/// for another type here; its value when it is a literal. Whether it is a constant is
/// checked when the function runs (44), after constant folding, so constant expressions
/// (`concat('a', 'b')`) count as constants, as in ClickHouse.
pub(crate) fn require_const_string<'a>(ctx: &'a RetCtx, i: usize) -> DfResult<Option<&'a str>> {
    if !is_plain_string(&ctx.ch(i)) {
        return Err(illegal_type(ctx.name, i, ctx.field(i)));
    }
    Ok(ctx.scalar(i).and_then(crate::args::scalar_str))
}

/// Whether argument `i` is an unsigned integer. A literal arrives typed `Int64` while
/// the query is planned and gets its ClickHouse type (`UInt8` for `2`) afterwards, so a
/// non-negative integer literal counts too.
pub(crate) fn is_unsigned_arg(ctx: &RetCtx, i: usize) -> bool {
    match ctx.dt(i) {
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => true,
        DataType::Int64 => ctx.scalar(i).and_then(crate::args::scalar_i128).is_some_and(|v| v >= 0),
        _ => false,
    }
}

/// `replaceOne(haystack, pattern, replacement)` and `replaceAll`: literal search, an
/// empty pattern replaces nothing.
fn replace_literal(name: &'static str, all: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(3),
        |ctx| {
            require_string(ctx, 0, ErrorCode::ILLEGAL_COLUMN)?;
            require_string(ctx, 1, ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT)?;
            require_string(ctx, 2, ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT)?;
            Ok(ChType::String)
        },
        move |ctx| {
            let s = utf8(ctx, 0)?;
            let from = utf8(ctx, 1)?;
            let to = utf8(ctx, 2)?;
            let (s, from, to) = (s.as_string::<i32>(), from.as_string::<i32>(), to.as_string::<i32>());
            let mut out = ByteStrings::with_capacity(s.len(), s.value_data().len());
            for row in 0..s.len() {
                let hay = s.value(row).as_bytes();
                let pattern = from.value(row).as_bytes();
                let replacement = to.value(row).as_bytes();
                let mut pos = 0;
                if !pattern.is_empty() {
                    let finder = memchr::memmem::Finder::new(pattern);
                    while let Some(found) = finder.find(&hay[pos..]) {
                        out.extend(&hay[pos..pos + found]);
                        out.extend(replacement);
                        pos += found + pattern.len();
                        if !all {
                            break;
                        }
                    }
                }
                out.extend(&hay[pos..]);
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// `trimLeft`, `trimRight`, `trimBoth` (`ltrim`, `rtrim`, `trim`): spaces, or with a
/// second argument the bytes it lists.
fn trim(name: &'static str, left: bool, right: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 2),
        |ctx| {
            require_text(ctx, 0)?;
            if ctx.arg_count() == 2 {
                require_const_string(ctx, 1)?;
            }
            Ok(ChType::String)
        },
        move |ctx| {
            let mut set = [false; 256];
            match ctx.args.len() {
                2 => ctx.const_str(1, "trim_character")?.bytes().for_each(|b| set[usize::from(b)] = true),
                _ => set[usize::from(b' ')] = true,
            }
            let strings = text_bytes(&ctx.array(0)?);
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for row in 0..ctx.len {
                let mut bytes = strings.value(row);
                if left {
                    let skip = bytes.iter().position(|b| !set[usize::from(*b)]).unwrap_or(bytes.len());
                    bytes = &bytes[skip..];
                }
                if right {
                    let keep = bytes.iter().rposition(|b| !set[usize::from(*b)]).map_or(0, |p| p + 1);
                    bytes = &bytes[..keep];
                }
                out.push_value(bytes)?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// The bytes of a String or FixedString column, row by row.
pub(crate) enum TextBytes {
    Strings(StringArray),
    Fixed(FixedSizeBinaryArray),
}

impl TextBytes {
    pub fn value(&self, row: usize) -> &[u8] {
        match self {
            TextBytes::Strings(s) => s.value(row).as_bytes(),
            TextBytes::Fixed(f) => f.value(row),
        }
    }
}

pub(crate) fn text_bytes(array: &ArrayRef) -> TextBytes {
    match array.data_type() {
        DataType::FixedSizeBinary(_) => TextBytes::Fixed(array.as_fixed_size_binary().clone()),
        DataType::Utf8 => TextBytes::Strings(array.as_string::<i32>().clone()),
        _ => match cast(array, &DataType::Utf8) {
            Ok(a) => TextBytes::Strings(a.as_string::<i32>().clone()),
            Err(_) => TextBytes::Strings(StringArray::new_null(array.len())),
        },
    }
}

/// `reverse`: the bytes of a String (as ClickHouse, which may leave invalid UTF-8) or
/// FixedString, or the elements of an array.
fn reverse() -> ScalarUDF {
    ScalarDef::new(
        "reverse",
        Arity::exact(1),
        |ctx| match ctx.ch(0) {
            t @ (ChType::String | ChType::FixedString(_) | ChType::Array(_)) => Ok(t),
            ChType::LowCardinality(inner) if matches!(*inner, ChType::String) => Ok(ChType::String),
            _ => Err(illegal_type(ctx.name, 0, ctx.field(0))),
        },
        |ctx| {
            let a = ctx.array(0)?;
            match a.data_type() {
                DataType::List(_) => crate::array_access::reverse_lists(&a),
                DataType::FixedSizeBinary(n) => {
                    let fixed = a.as_fixed_size_binary();
                    let mut values: Vec<u8> = Vec::with_capacity(fixed.value_data().len());
                    for row in 0..fixed.len() {
                        values.extend(fixed.value(row).iter().rev());
                    }
                    Ok(Arc::new(FixedSizeBinaryArray::try_new(*n, values.into(), fixed.nulls().cloned())?))
                }
                _ => {
                    let s = utf8_array(a)?;
                    let s = s.as_string::<i32>();
                    let mut out = ByteStrings::with_capacity(s.len(), s.value_data().len());
                    for row in 0..s.len() {
                        s.value(row).as_bytes().iter().rev().for_each(|b| out.push_byte(*b));
                        out.finish_value()?;
                    }
                    out.finish(s.nulls().cloned())
                }
            }
        },
    )
    .build()
}

/// How `splitByChar` / `splitByString` cut.
#[derive(Clone, Copy)]
enum Splitter {
    Char,
    Str,
}

fn check_separator(name: &str, splitter: Splitter, sep: &str) -> DfResult<()> {
    if matches!(splitter, Splitter::Char) && sep.len() != 1 {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Illegal separator for function {name}. Must be exactly one byte")));
    }
    Ok(())
}

/// `splitByChar(separator, s[, max_substrings])` (a one-byte separator) and
/// `splitByString(separator, s[, max_substrings])` (an empty separator splits into
/// bytes). A positive `max_substrings` keeps that many pieces.
fn split_by(name: &'static str, splitter: Splitter) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(2, 3),
        move |ctx| {
            if let Some(sep) = require_const_string(ctx, 0)? {
                check_separator(ctx.name, splitter, sep)?;
            }
            if !is_plain_string(&ctx.ch(1)) {
                return Err(illegal_type(ctx.name, 1, ctx.field(1)));
            }
            if ctx.arg_count() == 3 && !is_integer(ctx.dt(2)) {
                return Err(illegal_type(ctx.name, 2, ctx.field(2)));
            }
            Ok(ChType::Array(Box::new(ChType::String)))
        },
        move |ctx| {
            let sep = ctx.const_str(0, "separator")?;
            check_separator(ctx.name, splitter, sep)?;
            let sep = sep.as_bytes().to_vec();
            let max = if ctx.args.len() == 3 { ctx.const_int(2, "max_substrings")? } else { 0 };
            let max = if max > 0 { usize::try_from(max).unwrap_or(usize::MAX) } else { usize::MAX };
            let s = utf8(ctx, 1)?;
            let s = s.as_string::<i32>();
            let mut values = ByteStrings::with_capacity(s.len(), s.value_data().len());
            let mut list_offsets: Vec<i32> = Vec::with_capacity(s.len() + 1);
            list_offsets.push(0);
            let finder = memchr::memmem::Finder::new(&sep);
            for row in 0..s.len() {
                let bytes = s.value(row).as_bytes();
                if sep.is_empty() {
                    for b in bytes.iter().take(max) {
                        values.push_value(std::slice::from_ref(b))?;
                    }
                } else {
                    let mut pos = 0;
                    let mut pieces = 0;
                    while pieces < max {
                        pieces += 1;
                        match finder.find(&bytes[pos..]) {
                            Some(found) => {
                                values.push_value(&bytes[pos..pos + found])?;
                                pos += found + sep.len();
                            }
                            None => {
                                values.push_value(&bytes[pos..])?;
                                break;
                            }
                        }
                    }
                }
                list_offsets.push(crate::regexp::list_offset(values.len())?);
            }
            values.finish_list(list_offsets)
        },
    )
    .build()
}

/// `splitByWhitespace(s[, max])` / `splitByNonAlpha(s[, max])`: the runs of bytes between
/// ASCII whitespace (and, for `NonAlpha`, ASCII punctuation); empty pieces are dropped and
/// bytes of multi-byte characters belong to the pieces, as in ClickHouse.
fn split_by_class(name: &'static str, punctuation: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 2),
        |ctx| {
            if !is_plain_string(&ctx.ch(0)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 1st argument 's' to function '{}'. Expected: String, got: {}", ctx.name, ctx.ch(0)),
                ));
            }
            if ctx.arg_count() == 2 && !is_integer(ctx.dt(1)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 2nd argument 'max_substrings' to function '{}'. Expected: const Number, got: {}", ctx.name, ctx.ch(1)),
                ));
            }
            Ok(ChType::Array(Box::new(ChType::String)))
        },
        move |ctx| {
            let max = if ctx.args.len() == 2 { ctx.const_int(1, "max_substrings")? } else { 0 };
            let max = if max > 0 { usize::try_from(max).unwrap_or(usize::MAX) } else { usize::MAX };
            let is_separator = |b: u8| b.is_ascii_whitespace() || b == 0x0b || (punctuation && b.is_ascii_punctuation());
            let s = utf8(ctx, 0)?;
            let s = s.as_string::<i32>();
            let mut values = ByteStrings::with_capacity(s.len(), s.value_data().len());
            let mut list_offsets: Vec<i32> = Vec::with_capacity(s.len() + 1);
            list_offsets.push(0);
            for row in 0..s.len() {
                let pieces = s.value(row).as_bytes().split(|b| is_separator(*b)).filter(|p| !p.is_empty()).take(max);
                for piece in pieces {
                    values.push_value(piece)?;
                }
                list_offsets.push(crate::regexp::list_offset(values.len())?);
            }
            values.finish_list(list_offsets)
        },
    )
    .build()
}

/// `toValidUTF8(s)`: Granary's strings are valid UTF-8 already (invalid bytes became
/// U+FFFD where they entered), so the value is returned as it is.
fn to_valid_utf8() -> ScalarUDF {
    ScalarDef::new(
        "toValidUTF8",
        Arity::exact(1),
        |ctx| {
            require_string(ctx, 0, ErrorCode::ILLEGAL_COLUMN)?;
            Ok(ChType::String)
        },
        |ctx| utf8(ctx, 0),
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        length(),
        length_utf8(),
        like_fn("like", false, false),
        like_fn("notLike", true, false),
        like_fn("ilike", false, true),
        like_fn("notILike", true, true),
        emptiness("empty", true),
        emptiness("notEmpty", false),
        case_fn("lower", false),
        case_fn("upper", true),
        concat(),
        substring(),
        affix("startsWith", true, AffixCase::Exact),
        affix("endsWith", false, AffixCase::Exact),
        affix("startsWithUTF8", true, AffixCase::Exact),
        affix("endsWithUTF8", false, AffixCase::Exact),
        affix("startsWithCaseInsensitive", true, AffixCase::AsciiInsensitive),
        affix("endsWithCaseInsensitive", false, AffixCase::AsciiInsensitive),
        affix("startsWithCaseInsensitiveUTF8", true, AffixCase::Utf8Insensitive),
        affix("endsWithCaseInsensitiveUTF8", false, AffixCase::Utf8Insensitive),
        replace_literal("replaceOne", false),
        replace_literal("replaceAll", true),
        trim("trimLeft", true, false),
        trim("trimRight", false, true),
        trim("trimBoth", true, true),
        reverse(),
        split_by("splitByChar", Splitter::Char),
        split_by("splitByString", Splitter::Str),
        split_by_class("splitByWhitespace", false),
        split_by_class("splitByNonAlpha", true),
        to_valid_utf8(),
        byte_digits("hex", push_hex),
        byte_digits("bin", push_bin),
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::substring_range;

    #[test]
    fn substring_matches_clickhouse() {
        let s = |text: &str, off: i64, len: Option<i64>| {
            let (b, e) = substring_range(text.len() as i64, off, len);
            text[b..e].to_string()
        };
        assert_eq!(s("abcdef", 2, None), "bcdef");
        assert_eq!(s("abcdef", 2, Some(3)), "bcd");
        assert_eq!(s("abcdef", 0, None), "");
        assert_eq!(s("abcdef", -2, None), "ef");
        assert_eq!(s("abcdef", -5, Some(3)), "bcd");
        assert_eq!(s("abc", -5, Some(3)), "a");
        assert_eq!(s("abcdef", 2, Some(-1)), "bcde");
        assert_eq!(s("abcdef", 10, None), "");
        assert_eq!(s("abcdef", 1, Some(0)), "");
        assert_eq!(s("abc", -5, None), "abc");
        assert_eq!(s("abcdef", -2, Some(-1)), "e");
        assert_eq!(s("abcdef", 5, Some(10)), "ef");
    }
}
