//! `reinterpret(x, 'T')` and `reinterpretAs<T>(x)`: the bytes of a value as ClickHouse
//! keeps it in memory (little-endian numbers, `Date` as UInt16 days, `DateTime` as UInt32
//! seconds, `DateTime64` as Int64 ticks, decimals at their storage width, a UUID as two
//! little-endian UInt64 halves) read back as another type.
//!
//! Each row's source bytes go through one buffer of the target's width: shorter sources
//! are zero-padded, longer ones cut (a String's first bytes; a number's low bytes). A
//! `String` result drops trailing zero bytes, as ClickHouse does; `reinterpret(s,
//! 'Array(T)')` cuts a String into values of a fixed-size `T`.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, BooleanArray, Date32Array, Decimal128Array, Decimal256Array, FixedSizeBinaryArray,
};
use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::datatypes::{i256, DataType, TimeUnit};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::text::ByteStrings;

/// Digits of the Arrow time unit that holds a `DateTime64(p)`.
pub(crate) fn unit_digits(unit: &TimeUnit) -> u32 {
    match unit {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 3,
        TimeUnit::Microsecond => 6,
        TimeUnit::Nanosecond => 9,
    }
}

fn decimal_width(precision: u8) -> usize {
    match precision {
        0..=9 => 4,
        10..=18 => 8,
        19..=38 => 16,
        _ => 32,
    }
}

/// ClickHouse's in-memory width of a fixed-size value; `None` for String and for types
/// without one.
fn fixed_width(t: &ChType) -> Option<usize> {
    Some(match t {
        ChType::UInt8 | ChType::Int8 | ChType::Bool | ChType::Enum8(_) => 1,
        ChType::UInt16 | ChType::Int16 | ChType::Date | ChType::Enum16(_) => 2,
        ChType::UInt32 | ChType::Int32 | ChType::Float32 | ChType::Date32 | ChType::DateTime(_) | ChType::IPv4 => 4,
        ChType::UInt64 | ChType::Int64 | ChType::Float64 | ChType::DateTime64(..) => 8,
        ChType::Decimal(p, _) => decimal_width(*p),
        ChType::Uuid | ChType::IPv6 | ChType::Int128 | ChType::UInt128 => 16,
        ChType::Int256 | ChType::UInt256 => 32,
        ChType::FixedString(n) => *n,
        _ => return None,
    })
}

/// Types ClickHouse reads and writes as numbers here (`canBeReinterpretedAsNumeric`):
/// integers (Bool is a UInt8), floats, Date, DateTime, DateTime64, UUID, decimals.
fn is_numeric_like(t: &ChType) -> bool {
    matches!(
        t,
        ChType::UInt8
            | ChType::UInt16
            | ChType::UInt32
            | ChType::UInt64
            | ChType::Int8
            | ChType::Int16
            | ChType::Int32
            | ChType::Int64
            | ChType::Int128
            | ChType::UInt128
            | ChType::Int256
            | ChType::UInt256
            | ChType::Bool
            | ChType::Float32
            | ChType::Float64
            | ChType::Date
            | ChType::DateTime(_)
            | ChType::DateTime64(..)
            | ChType::Uuid
            | ChType::Decimal(..)
    )
}

fn cannot(from: &ChType, to: &ChType, why: &str) -> datafusion::error::DataFusionError {
    ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Cannot reinterpret {from} as {to} because {why}"))
}

/// The result type of reinterpreting `from` as `to`, with ClickHouse's checks.
fn result_type(from: &ChType, to: &ChType) -> DfResult<ChType> {
    let base = match from {
        ChType::LowCardinality(inner) => inner.as_ref(),
        t => t,
    };
    match to {
        ChType::FixedString(_) => {
            if fixed_width(base).is_none() {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Cannot reinterpret {from} as FixedString because it is not fixed size and contiguous in memory"),
                ));
            }
        }
        ChType::String => {
            if fixed_width(base).is_none() && !matches!(base, ChType::String) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Cannot reinterpret {from} as String because it is not contiguous in memory"),
                ));
            }
        }
        t if is_numeric_like(t) => {
            if !is_numeric_like(base) && !matches!(base, ChType::String | ChType::FixedString(_)) {
                return Err(cannot(from, to, "only Numeric, String or FixedString can be reinterpreted in Numeric"));
            }
        }
        ChType::Array(item) => {
            if !matches!(base, ChType::String | ChType::FixedString(_)) {
                return Err(cannot(from, to, "only String or FixedString can be reinterpreted as array"));
            }
            if !is_numeric_like(item) {
                return Err(cannot(from, to, "the array element type is not fixed length"));
            }
            // An array result is never Nullable or LowCardinality.
            return Ok(to.clone());
        }
        _ => return Err(cannot(from, to, "only reinterpretation in String, FixedString and Numeric types is supported")),
    }
    Ok(match from {
        ChType::LowCardinality(_) => ChType::LowCardinality(Box::new(to.clone())),
        _ => to.clone(),
    })
}

/// Calls `f` with each row's bytes as ClickHouse holds the value.
fn for_each_value(array: &ArrayRef, t: &ChType, mut f: impl FnMut(&[u8]) -> DfResult<()>) -> DfResult<()> {
    let t = match t {
        ChType::LowCardinality(inner) => inner.as_ref(),
        t => t,
    };
    match array.data_type() {
        DataType::Utf8 => {
            for v in array.as_string::<i32>().iter() {
                f(v.unwrap_or("").as_bytes())?;
            }
        }
        DataType::LargeUtf8 => {
            for v in array.as_string::<i64>().iter() {
                f(v.unwrap_or("").as_bytes())?;
            }
        }
        DataType::Utf8View => {
            for v in array.as_string_view().iter() {
                f(v.unwrap_or("").as_bytes())?;
            }
        }
        DataType::Binary => {
            for v in array.as_binary::<i32>().iter() {
                f(v.unwrap_or(b""))?;
            }
        }
        DataType::Boolean => {
            let b = array.as_boolean();
            for row in 0..b.len() {
                f(&[u8::from(b.value(row))])?;
            }
        }
        DataType::FixedSizeBinary(_) => {
            let b = array.as_fixed_size_binary();
            let mut uuid = [0u8; 16];
            for row in 0..b.len() {
                let v = b.value(row);
                if matches!(t, ChType::Uuid) && v.len() == 16 {
                    // Text order to ClickHouse's two little-endian halves.
                    for i in 0..8 {
                        uuid[i] = v[7 - i];
                        uuid[8 + i] = v[15 - i];
                    }
                    f(&uuid)?;
                } else {
                    f(v)?;
                }
            }
        }
        DataType::Timestamp(unit, _) if matches!(t, ChType::DateTime64(..)) => {
            let ChType::DateTime64(p, _) = t else { unreachable!("matched above") };
            let divisor = 10i64.pow(unit_digits(unit).saturating_sub(u32::from(*p)));
            let ticks = array.to_data();
            let values: &[i64] = ticks.buffers()[0].typed_data::<i64>();
            for v in &values[ticks.offset()..ticks.offset() + ticks.len()] {
                f(&(v / divisor).to_le_bytes())?;
            }
        }
        dt => {
            let width = dt.primitive_width().ok_or_else(|| {
                ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Cannot reinterpret a column of Arrow type {dt}"))
            })?;
            let data = array.to_data();
            let bytes = &data.buffers()[0].as_slice()[data.offset() * width..];
            // Arrow's Date32/Timestamp/Decimal128 are wider than ClickHouse's Date, DateTime
            // and small decimals; little-endian low bytes are the narrower value.
            let keep = fixed_width(t).unwrap_or(width).min(width);
            for row in 0..data.len() {
                f(&bytes[row * width..row * width + keep])?;
            }
        }
    }
    Ok(())
}

/// `width` bytes of `src`, zero-padded.
fn fill(buf: &mut [u8], src: &[u8]) {
    let n = buf.len().min(src.len());
    buf[..n].copy_from_slice(&src[..n]);
    buf[n..].fill(0);
}

fn reinterpret_array(ctx: &ExecCtx, from: &ChType) -> DfResult<ArrayRef> {
    let source = ctx.array(0)?;
    let to = match ctx.ret_ch() {
        ChType::LowCardinality(inner) => *inner,
        ChType::Nullable(inner) => match *inner {
            ChType::LowCardinality(t) => *t,
            t => t,
        },
        t => t,
    };
    let rows = source.len();
    match &to {
        ChType::String => {
            let mut out = ByteStrings::with_capacity(rows, rows * 8);
            let same = matches!(from.base(), ChType::String);
            for_each_value(&source, from, |v| {
                let end = if same { v.len() } else { v.iter().rposition(|b| *b != 0).map_or(0, |p| p + 1) };
                out.push_value(&v[..end])
            })?;
            out.finish(None)
        }
        ChType::FixedString(n) => {
            let mut bytes = Vec::with_capacity(rows * n);
            let mut buf = vec![0u8; *n];
            for_each_value(&source, from, |v| {
                fill(&mut buf, v);
                bytes.extend_from_slice(&buf);
                Ok(())
            })?;
            Ok(Arc::new(FixedSizeBinaryArray::try_new(i32::try_from(*n).unwrap_or(i32::MAX), Buffer::from_vec(bytes), None)?))
        }
        ChType::Array(item) => {
            let width = fixed_width(item).unwrap_or(1).max(1);
            let mut bytes = Vec::new();
            let mut offsets: Vec<i32> = Vec::with_capacity(rows + 1);
            offsets.push(0);
            for_each_value(&source, from, |v| {
                if v.len() % width != 0 {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Incorrect length argument for method ColumnArray::insertData"));
                }
                bytes.extend_from_slice(v);
                offsets.push(crate::regexp::list_offset(bytes.len() / width)?);
                Ok(())
            })?;
            let elements = bytes.len() / width;
            let values = build_fixed(item, width, bytes, elements)?;
            let list = datafusion::arrow::array::ListArray::try_new(
                Arc::new(item.to_arrow_field("item")),
                datafusion::arrow::buffer::OffsetBuffer::new(offsets.into()),
                values,
                None,
            )?;
            Ok(Arc::new(list))
        }
        to => {
            let width = fixed_width(to).ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Cannot reinterpret as {to}")))?;
            let mut bytes = Vec::with_capacity(rows * width);
            let mut buf = vec![0u8; width];
            for_each_value(&source, from, |v| {
                fill(&mut buf, v);
                bytes.extend_from_slice(&buf);
                Ok(())
            })?;
            build_fixed(to, width, bytes, rows)
        }
    }
}

fn le<const N: usize>(chunk: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(chunk);
    a
}

/// The Arrow array of ClickHouse values of type `to` laid out in `bytes`.
fn build_fixed(to: &ChType, width: usize, bytes: Vec<u8>, rows: usize) -> DfResult<ArrayRef> {
    let chunks = bytes.chunks_exact(width);
    Ok(match to {
        ChType::Bool => Arc::new(chunks.map(|c| Some(c[0] != 0)).collect::<BooleanArray>()),
        ChType::Date => Arc::new(Date32Array::from(chunks.map(|c| i32::from(u16::from_le_bytes(le(c)))).collect::<Vec<i32>>())),
        ChType::DateTime(_) => {
            let values: Vec<i64> = chunks.map(|c| i64::from(u32::from_le_bytes(le(c)))).collect();
            primitive(to, Buffer::from_vec(values), rows)?
        }
        ChType::DateTime64(p, _) => {
            let DataType::Timestamp(unit, _) = to.to_arrow() else { unreachable!("DateTime64 is an Arrow timestamp") };
            let scale = 10i64.pow(unit_digits(&unit).saturating_sub(u32::from(*p)));
            let values: Vec<i64> = chunks.map(|c| i64::from_le_bytes(le(c)).wrapping_mul(scale)).collect();
            primitive(to, Buffer::from_vec(values), rows)?
        }
        ChType::Decimal(p, s) if *p <= 38 => {
            let values: Vec<i128> = chunks
                .map(|c| match width {
                    4 => i128::from(i32::from_le_bytes(le(c))),
                    8 => i128::from(i64::from_le_bytes(le(c))),
                    _ => i128::from_le_bytes(le(c)),
                })
                .collect();
            Arc::new(Decimal128Array::from(values).with_precision_and_scale(*p, *s as i8)?)
        }
        ChType::Decimal(p, s) => {
            let values: Vec<i256> = chunks.map(|c| i256::from_le_bytes(le(c))).collect();
            Arc::new(Decimal256Array::from(values).with_precision_and_scale(*p, *s as i8)?)
        }
        ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256 => {
            let kind = granary_types::wide::WideInt::of(to).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "not a wide integer"))?;
            let words: Vec<i256> = chunks
                .map(|c| {
                    let mut word = [0u8; 32];
                    word[..width].copy_from_slice(c);
                    i256::from_le_bytes(word)
                })
                .collect();
            // Int128's 16 bytes are sign-extended by `narrow`, which keeps the low 128 bits.
            kind.narrow(&Decimal256Array::from(words))
        }
        ChType::Uuid => {
            let mut text: Vec<u8> = Vec::with_capacity(rows * 16);
            for c in chunks {
                text.extend(c[..8].iter().rev());
                text.extend(c[8..].iter().rev());
            }
            Arc::new(FixedSizeBinaryArray::try_new(16, Buffer::from_vec(text), None)?)
        }
        // Integers and floats: ClickHouse's bytes are Arrow's.
        _ => primitive(to, Buffer::from_slice_ref(&bytes), rows)?,
    })
}

fn primitive(to: &ChType, values: Buffer, rows: usize) -> DfResult<ArrayRef> {
    let data = ArrayData::builder(to.to_arrow()).len(rows).add_buffer(values).build()?;
    Ok(datafusion::arrow::array::make_array(data))
}

fn reinterpret_fn(name: &'static str, target: Option<&'static str>) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(if target.is_some() { 1 } else { 2 }),
        move |ctx: &RetCtx| {
            let from = ctx.ch(0);
            let to = match target {
                Some("FixedString") => match fixed_width(from.base()) {
                    Some(n) => ChType::FixedString(n),
                    None => {
                        return Err(ch_error(
                            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                            format!("Cannot reinterpret {from} as FixedString because it is not fixed size and contiguous in memory"),
                        ))
                    }
                },
                Some(t) => ChType::parse(t).map_err(|e| e.into_datafusion())?,
                None => {
                    let text = ctx.scalar(1).and_then(crate::args::scalar_str).ok_or_else(|| {
                        ch_error(
                            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                            format!(
                                "Second argument to {} must be a constant string describing type. Instead there is non-constant column of type {}",
                                ctx.name,
                                ctx.ch(1)
                            ),
                        )
                    })?;
                    ChType::parse(text).map_err(|e| e.into_datafusion())?
                }
            };
            result_type(&from, &to)
        },
        move |ctx| {
            let from = ctx.ch(0);
            reinterpret_array(ctx, &from)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    let mut out = vec![reinterpret_fn("reinterpret", None)];
    for (name, target) in [
        ("reinterpretAsUInt8", "UInt8"),
        ("reinterpretAsUInt16", "UInt16"),
        ("reinterpretAsUInt32", "UInt32"),
        ("reinterpretAsUInt64", "UInt64"),
        ("reinterpretAsInt8", "Int8"),
        ("reinterpretAsInt16", "Int16"),
        ("reinterpretAsInt32", "Int32"),
        ("reinterpretAsInt64", "Int64"),
        ("reinterpretAsInt128", "Int128"),
        ("reinterpretAsUInt128", "UInt128"),
        ("reinterpretAsInt256", "Int256"),
        ("reinterpretAsUInt256", "UInt256"),
        ("reinterpretAsFloat32", "Float32"),
        ("reinterpretAsFloat64", "Float64"),
        ("reinterpretAsDate", "Date"),
        ("reinterpretAsDateTime", "DateTime"),
        ("reinterpretAsString", "String"),
        ("reinterpretAsFixedString", "FixedString"),
        ("reinterpretAsUUID", "UUID"),
    ] {
        out.push(reinterpret_fn(name, Some(target)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_follow_clickhouse_memory() {
        assert_eq!(fixed_width(&ChType::Date), Some(2));
        assert_eq!(fixed_width(&ChType::Decimal(9, 2)), Some(4));
        assert_eq!(fixed_width(&ChType::Decimal(40, 2)), Some(32));
        assert_eq!(fixed_width(&ChType::String), None);
    }

    #[test]
    fn checks_follow_clickhouse() {
        assert!(result_type(&ChType::String, &ChType::UInt32).is_ok());
        assert!(result_type(&ChType::Date32, &ChType::Int8).is_err());
        assert!(result_type(&ChType::UInt8, &ChType::Date32).is_err());
        assert!(result_type(&ChType::Array(Box::new(ChType::UInt8)), &ChType::UInt8).is_err());
        assert_eq!(
            result_type(&ChType::LowCardinality(Box::new(ChType::String)), &ChType::UInt8).ok(),
            Some(ChType::LowCardinality(Box::new(ChType::UInt8)))
        );
    }
}
