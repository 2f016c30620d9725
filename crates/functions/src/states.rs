//! Serialized aggregate states: the bytes of an `AggregateFunction(f, T...)` value.
//!
//! Where ClickHouse's layout is known, states are written in it, so `Native` and
//! `RowBinary` carry them between Granary and ClickHouse unchanged (formats find where a
//! state ends through [`split_states`], registered with `granary-types`):
//!
//! | function | layout |
//! |---|---|
//! | `count` | VarUInt |
//! | `sum` | the sum: UInt64 / Int64 / Float64, Decimal as 16 bytes |
//! | `avg` | the sum (as for `sum`; for integers an integer), then a VarUInt count |
//! | `min`, `max`, `any`, `anyLast` over numbers | a has-value byte, then the value at the argument's width |
//! | the same over `String` | Int32 length + 1, the bytes and a 0 byte; -1 when empty |
//! | `uniq` | UInt8 skip degree, VarUInt count, the UInt32 hashes (see [`crate::uniq`]) |
//! | `uniqCombined`, `uniqCombined64`, `uniqHLL12` | container byte, then the keys or the HyperLogLog's memory image (see `crate::uniq_combined`) |
//! | `varPop`, `covarSamp`, `corr`, `...Stable`, ... | raw power sums, or VarUInt count and Welford moments (see [`crate::moments`]) |
//! | `topK`, `topKWeighted` | VarUInt size, each counter's key, VarUInt count and error (best first), VarUInt alpha-map size and values |
//! | `groupUniqArray` | VarUInt size, the values in the set's order |
//!
//! `topK` and `groupUniqArray` write numbers at their width and strings, FixedString and
//! Decimal with a VarUInt length ([`ItemCodec`]), and have no NULL flag.
//!
//! Over a `Nullable` argument, `sum`, `avg`, `min`, `max`, `any` and `anyLast` states
//! (over any `Nullable` argument, `uniq` and the moments states) start with a byte saying whether a non-NULL value was seen (0: nothing follows).
//! Other functions and argument types use Granary's own layout: each field of the
//! DataFusion accumulator's state as a NULL-flag byte and the value ([`put_nullable`]).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, BinaryArray, PrimitiveArray};
use datafusion::arrow::datatypes::ArrowPrimitiveType;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use granary_common::{Error, ErrorCode};
use granary_types::wide::WideInt;
use granary_types::ChType;

use crate::args::{ch_error, DfResult};
use crate::combinators::{base_aggregate, base_fields, state_types};
use crate::uniq::UniquesHashSet;


/// ClickHouse's VarUInt (LEB128), as its states write counts and sizes.
pub(crate) fn put_varuint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

pub(crate) fn get_varuint(input: &mut &[u8]) -> DfResult<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = input.split_first().ok_or_else(truncated)?;
        *input = rest;
        v |= ((byte & 0x7f) as u64) << shift;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(truncated())
}

fn truncated() -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::CORRUPTED_DATA, "Cannot read aggregate function state: unexpected end of data")
}

fn take<'a>(input: &mut &'a [u8], n: usize) -> DfResult<&'a [u8]> {
    if input.len() < n {
        return Err(truncated());
    }
    let (head, rest) = input.split_at(n);
    *input = rest;
    Ok(head)
}

/// A value without its NULL flag: fixed-size little-endian, strings with a VarUInt length.
pub(crate) fn put_value(out: &mut Vec<u8>, v: &ScalarValue) -> DfResult<()> {
    match v {
        ScalarValue::Boolean(Some(b)) => out.push(*b as u8),
        ScalarValue::Int8(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Int16(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Int32(Some(x)) | ScalarValue::Date32(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Int64(Some(x))
        | ScalarValue::TimestampSecond(Some(x), _)
        | ScalarValue::TimestampMillisecond(Some(x), _)
        | ScalarValue::TimestampMicrosecond(Some(x), _)
        | ScalarValue::TimestampNanosecond(Some(x), _) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::UInt8(Some(x)) => out.push(*x),
        ScalarValue::UInt16(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::UInt32(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::UInt64(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Float32(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Float64(Some(x)) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Decimal128(Some(x), _, _) => out.extend_from_slice(&x.to_le_bytes()),
        // Decimal256 and Int256/UInt256 are 32 bytes in ClickHouse too; UInt128 (held as
        // Decimal256) goes through `put_arg_value`.
        ScalarValue::Decimal256(Some(x), _, _) => out.extend_from_slice(&x.to_le_bytes()),
        ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)) | ScalarValue::Utf8View(Some(s)) => {
            put_varuint(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
        ScalarValue::Binary(Some(b)) | ScalarValue::LargeBinary(Some(b)) | ScalarValue::FixedSizeBinary(_, Some(b)) => {
            put_varuint(out, b.len() as u64);
            out.extend_from_slice(b);
        }
        ScalarValue::List(list) => {
            let values = list.value(0);
            put_varuint(out, values.len() as u64);
            for i in 0..values.len() {
                put_nullable(out, &ScalarValue::try_from_array(&values, i)?)?;
            }
        }
        other => {
            return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, format!("Cannot serialize aggregate state of type {}", other.data_type())));
        }
    }
    Ok(())
}

/// A value of an argument of type `arg`: a UInt128 (held as Decimal256) takes its 16
/// bytes, as in ClickHouse's states.
fn put_arg_value(out: &mut Vec<u8>, v: &ScalarValue, arg: Option<&ChType>) -> DfResult<()> {
    match v {
        ScalarValue::Decimal256(Some(x), _, _) if arg.is_some_and(|t| t.base() == &ChType::UInt128) => {
            out.extend_from_slice(&x.to_le_bytes()[..16]);
            Ok(())
        }
        _ => put_value(out, v),
    }
}

/// Reads what [`put_arg_value`] writes.
fn get_arg_value(input: &mut &[u8], dt: &DataType, arg: Option<&ChType>) -> DfResult<ScalarValue> {
    match dt {
        DataType::Decimal256(p, s) if arg.is_some_and(|t| t.base() == &ChType::UInt128) => {
            let mut le = [0u8; 32];
            le[..16].copy_from_slice(take(input, 16)?);
            Ok(ScalarValue::Decimal256(Some(datafusion::arrow::datatypes::i256::from_le_bytes(le)), *p, *s))
        }
        _ => get_value(input, dt),
    }
}

/// The argument whose values a `Generic` state's element `i` holds, where known
/// (`argMin`/`argMax` keep the value and the key, in argument order).
fn generic_state_arg<'a>(function: &str, args: &'a [ChType], i: usize) -> Option<&'a ChType> {
    matches!(crate::combinators::without_params(function), "argMin" | "argMax" | "argAndMin" | "argAndMax").then(|| args.get(i)).flatten()
}

fn put_nullable(out: &mut Vec<u8>, v: &ScalarValue) -> DfResult<()> {
    if v.is_null() {
        out.push(0);
        Ok(())
    } else {
        out.push(1);
        put_value(out, v)
    }
}

pub(crate) fn get_value(input: &mut &[u8], dt: &DataType) -> DfResult<ScalarValue> {
    macro_rules! le {
        ($t:ty, $variant:ident) => {{
            let bytes = take(input, std::mem::size_of::<$t>())?;
            ScalarValue::$variant(Some(<$t>::from_le_bytes(bytes.try_into().map_err(|_| truncated())?)))
        }};
    }
    Ok(match dt {
        DataType::Boolean => ScalarValue::Boolean(Some(take(input, 1)?[0] != 0)),
        DataType::Int8 => le!(i8, Int8),
        DataType::Int16 => le!(i16, Int16),
        DataType::Int32 => le!(i32, Int32),
        DataType::Int64 => le!(i64, Int64),
        DataType::UInt8 => le!(u8, UInt8),
        DataType::UInt16 => le!(u16, UInt16),
        DataType::UInt32 => le!(u32, UInt32),
        DataType::UInt64 => le!(u64, UInt64),
        DataType::Float32 => le!(f32, Float32),
        DataType::Float64 => le!(f64, Float64),
        DataType::Date32 => le!(i32, Date32),
        DataType::Decimal256(p, s) => {
            let v = datafusion::arrow::datatypes::i256::from_le_bytes(take(input, 32)?.try_into().map_err(|_| truncated())?);
            ScalarValue::Decimal256(Some(v), *p, *s)
        }
        DataType::Timestamp(_, _) | DataType::Decimal128(..) | DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let raw = match dt {
                DataType::Timestamp(..) => ScalarValue::Int64(Some(i64::from_le_bytes(take(input, 8)?.try_into().map_err(|_| truncated())?))),
                DataType::Decimal128(p, s) => {
                    let v = i128::from_le_bytes(take(input, 16)?.try_into().map_err(|_| truncated())?);
                    return Ok(ScalarValue::Decimal128(Some(v), *p, *s));
                }
                _ => {
                    let n = get_varuint(input)? as usize;
                    let s = String::from_utf8_lossy(take(input, n)?).into_owned();
                    ScalarValue::Utf8(Some(s))
                }
            };
            raw.cast_to(dt)?
        }
        DataType::Binary | DataType::LargeBinary | DataType::FixedSizeBinary(_) => {
            let n = get_varuint(input)? as usize;
            ScalarValue::Binary(Some(take(input, n)?.to_vec())).cast_to(dt)?
        }
        DataType::List(item) => {
            let n = get_varuint(input)? as usize;
            let mut values = Vec::with_capacity(n.min(1 << 16));
            for _ in 0..n {
                values.push(get_nullable(input, item.data_type())?);
            }
            ScalarValue::List(ScalarValue::new_list_nullable(&values, item.data_type()))
        }
        other => return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, format!("Cannot read aggregate state of type {other}"))),
    })
}

fn get_nullable(input: &mut &[u8], dt: &DataType) -> DfResult<ScalarValue> {
    if take(input, 1)?[0] == 0 {
        Ok(ScalarValue::try_from(dt)?)
    } else {
        get_value(input, dt)
    }
}

/// How ClickHouse writes one value of a `topK` or `groupUniqArray` state: numbers
/// little-endian at their width, strings, FixedString and Decimal (keyed by their
/// memory bytes there) with a VarUInt length first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ItemCodec {
    Number { width: usize, signed: bool },
    Float32,
    Float64,
    Bytes,
    Decimal(usize),
}

/// The codec of items of type `ty`, or `None` where Granary keeps its own layout.
pub(crate) fn item_codec(ty: &ChType) -> Option<ItemCodec> {
    let number = |width, signed| Some(ItemCodec::Number { width, signed });
    match ty {
        ChType::UInt8 | ChType::Bool => number(1, false),
        ChType::Int8 | ChType::Enum8(_) => number(1, true),
        ChType::UInt16 | ChType::Date => number(2, false),
        ChType::Int16 | ChType::Enum16(_) => number(2, true),
        ChType::UInt32 | ChType::DateTime(_) | ChType::IPv4 => number(4, false),
        ChType::Int32 | ChType::Date32 => number(4, true),
        ChType::UInt64 => number(8, false),
        ChType::Int64 => number(8, true),
        ChType::Float32 => Some(ItemCodec::Float32),
        ChType::Float64 => Some(ItemCodec::Float64),
        ChType::String | ChType::FixedString(_) => Some(ItemCodec::Bytes),
        ChType::Decimal(p, _) if *p <= 38 => Some(ItemCodec::Decimal(match p {
            0..=9 => 4,
            10..=18 => 8,
            _ => 16,
        })),
        _ => None,
    }
}

/// Writes each value of `values` (of the codec's type; no NULLs) as ClickHouse does.
pub(crate) fn put_items(out: &mut Vec<u8>, values: &datafusion::arrow::array::ArrayRef, codec: ItemCodec) -> DfResult<()> {
    use datafusion::arrow::array::{Array, AsArray};
    use datafusion::arrow::compute::cast;
    use datafusion::arrow::datatypes::{Decimal128Type, Float32Type, Float64Type, Int64Type};
    match codec {
        ItemCodec::Number { width, .. } => {
            // Timestamps and dates widen to Int64 with their raw counts.
            let raw = match values.data_type() {
                DataType::Boolean => cast(values, &DataType::UInt8)?,
                DataType::Date32 => cast(values, &DataType::Int32)?,
                DataType::Timestamp(_, _) => cast(values, &DataType::Int64)?,
                _ => std::sync::Arc::clone(values),
            };
            let raw = match raw.data_type() {
                DataType::UInt64 => cast(&raw, &DataType::UInt64)?.as_primitive::<datafusion::arrow::datatypes::UInt64Type>().values().iter().map(|v| *v as i128).collect::<Vec<_>>(),
                _ => cast(&raw, &DataType::Int64)?.as_primitive::<Int64Type>().values().iter().map(|v| *v as i128).collect(),
            };
            for v in raw {
                out.extend_from_slice(&v.to_le_bytes()[..width]);
            }
        }
        ItemCodec::Float32 => {
            for v in cast(values, &DataType::Float32)?.as_primitive::<Float32Type>().values() {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        ItemCodec::Float64 => {
            for v in cast(values, &DataType::Float64)?.as_primitive::<Float64Type>().values() {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        ItemCodec::Bytes => {
            let binary = cast(values, &DataType::Binary)?;
            for v in binary.as_binary::<i32>().iter() {
                let v = v.unwrap_or_default();
                put_varuint(out, v.len() as u64);
                out.extend_from_slice(v);
            }
        }
        ItemCodec::Decimal(width) => {
            let DataType::Decimal128(..) = values.data_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("Decimal state item of type {}", values.data_type())));
            };
            for v in values.as_primitive::<Decimal128Type>().values() {
                put_varuint(out, width as u64);
                out.extend_from_slice(&v.to_le_bytes()[..width]);
            }
        }
    }
    Ok(())
}

/// Reads `n` values written by [`put_items`] as an array of `ty`.
pub(crate) fn get_items(input: &mut &[u8], n: usize, ty: &ChType, codec: ItemCodec) -> DfResult<datafusion::arrow::array::ArrayRef> {
    use datafusion::arrow::array::{ArrayRef, BinaryArray, Decimal128Array, Float32Array, Float64Array, Int64Array, UInt64Array};
    use datafusion::arrow::compute::cast;
    let target = ty.to_arrow();
    // Never trust a count from the bytes for an allocation.
    let cap = n.min(input.len());
    let built: ArrayRef = match codec {
        ItemCodec::Number { width, signed } => {
            let mut raw = Vec::with_capacity(cap);
            for _ in 0..n {
                let mut bytes = [0u8; 8];
                bytes[..width].copy_from_slice(take(input, width)?);
                let v = u64::from_le_bytes(bytes);
                let shift = 64 - 8 * width as u32;
                raw.push(if signed && width < 8 { (((v << shift) as i64) >> shift) as u64 } else { v });
            }
            let ints: ArrayRef = if signed || !matches!(target, DataType::UInt64) {
                std::sync::Arc::new(Int64Array::from_iter_values(raw.into_iter().map(|v| v as i64)))
            } else {
                std::sync::Arc::new(UInt64Array::from(raw))
            };
            match &target {
                DataType::Date32 => cast(&cast(&ints, &DataType::Int32)?, &target)?,
                DataType::Boolean => cast(&cast(&ints, &DataType::UInt8)?, &target)?,
                _ => ints,
            }
        }
        ItemCodec::Float32 => {
            let mut v = Vec::with_capacity(cap);
            for _ in 0..n {
                v.push(f32::from_le_bytes(array(take(input, 4)?)?));
            }
            std::sync::Arc::new(Float32Array::from(v))
        }
        ItemCodec::Float64 => {
            let mut v = Vec::with_capacity(cap);
            for _ in 0..n {
                v.push(f64::from_le_bytes(array(take(input, 8)?)?));
            }
            std::sync::Arc::new(Float64Array::from(v))
        }
        ItemCodec::Bytes => {
            let mut v: Vec<&[u8]> = Vec::with_capacity(cap);
            for _ in 0..n {
                let len = get_varuint(input)? as usize;
                v.push(take(input, len)?);
            }
            let binary: ArrayRef = std::sync::Arc::new(BinaryArray::from(v));
            match &target {
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                    let texts: Vec<String> = binary.as_any().downcast_ref::<BinaryArray>().map(|b| b.iter().map(|x| String::from_utf8_lossy(x.unwrap_or_default()).into_owned()).collect()).unwrap_or_default();
                    std::sync::Arc::new(datafusion::arrow::array::StringArray::from(texts))
                }
                _ => binary,
            }
        }
        ItemCodec::Decimal(width) => {
            let DataType::Decimal128(p, s) = target else { return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("Decimal state item of type {target}"))) };
            let mut v = Vec::with_capacity(cap);
            for _ in 0..n {
                let len = get_varuint(input)? as usize;
                let bytes = take(input, len)?;
                if len != width {
                    return Err(ch_error(ErrorCode::CORRUPTED_DATA, format!("Decimal of {len} bytes in an aggregate state, expected {width}")));
                }
                let mut full = [if bytes[width - 1] & 0x80 != 0 { 0xFF } else { 0 }; 16];
                full[..width].copy_from_slice(bytes);
                v.push(i128::from_le_bytes(full));
            }
            std::sync::Arc::new(Decimal128Array::from(v).with_precision_and_scale(p, s)?)
        }
    };
    Ok(if built.data_type() == &target { built } else { cast(&built, &target)? })
}

/// How a function's state is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Count,
    Sum,
    Avg(Numerator),
    /// `min`, `max` (state: the value) and `any`, `anyLast` (the value, then is-set).
    Single { string: bool, with_is_set: bool },
    /// `uniq`: ClickHouse's UniquesHashSet bytes, which the accumulator keeps as they are.
    UniquesHashSet,
    /// `uniqCombined`, `uniqHLL12`, ...: ClickHouse's bytes, kept by the accumulator.
    Cardinality,
    /// `varPop`, `corr`, ...: ClickHouse's bytes, kept by the accumulator (see [`crate::moments`]).
    Moments,
    /// `sumKahan`, `deltaSum`, `entropy`, ...: ClickHouse's bytes after the accumulator's
    /// `-Null` flag byte (see [`crate::native_state`]).
    Native,
    /// `quantile`, `quantileTDigest`, ...: ClickHouse's bytes, kept by the accumulator (see [`crate::quantile`]).
    Quantile,
    /// `topK`, `topKWeighted`: ClickHouse's SpaceSaving bytes (see [`crate::topk`]).
    TopK(ItemCodec),
    /// `groupUniqArray`: VarUInt size, then the values in the set's order.
    UniqArray(ItemCodec),
    /// `any_respect_nulls`, `anyLast_respect_nulls` (the value, then is-set): a status
    /// byte (1 nothing, 2 NULL, 3 a value), then the value as its type serializes it
    /// (a `Nullable` one after its not-NULL byte).
    RespectNulls,
    Generic,
}

/// The integer type ClickHouse sums an `avg`'s arguments in (DataFusion uses Float64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Numerator {
    Signed,
    Unsigned,
    Float,
    Decimal,
}

fn layout(function: &str, args: &[ChType], types: &[DataType]) -> Layout {
    let arg = args.first().map(|a| a.strip_nullable().base());
    let numeric = |t: &ChType| {
        matches!(
            t,
            ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Float32 | ChType::Float64 | ChType::Bool
        ) || WideInt::of(t).is_some()
    };
    let wide_arg = arg.is_some_and(|t| WideInt::of(t).is_some());
    match (function, types) {
        ("count", [DataType::Int64]) => Layout::Count,
        ("uniq", [DataType::Binary]) => Layout::UniquesHashSet,
        (f, [DataType::Binary]) if crate::native_state::is_native(f) => Layout::Native,
        (f, [DataType::Binary]) if crate::moments::is_moments(f) => Layout::Moments,
        (f, [DataType::Binary]) if crate::quantile::is_quantile(f) => Layout::Quantile,
        (f, [DataType::Binary]) if crate::uniq_combined::is_cardinality(f) => Layout::Cardinality,
        (f, [DataType::List(_), DataType::List(_), DataType::List(_), DataType::List(_)]) if crate::topk::is_top_k(f) => {
            match arg.and_then(|a| item_codec(a.strip_nullable())) {
                Some(codec) => Layout::TopK(codec),
                None => Layout::Generic,
            }
        }
        (f, [DataType::List(_)]) if crate::combinators::without_params(f) == "groupUniqArray" => match arg.and_then(|a| item_codec(a.strip_nullable())) {
            Some(codec) => Layout::UniqArray(codec),
            None => Layout::Generic,
        },
        ("sum", [t]) if t.is_primitive() && (wide_arg || !matches!(t, DataType::Decimal256(..))) => Layout::Sum,
        // ClickHouse's state of these is the plain value too.
        ("groupBitAnd" | "groupBitOr" | "groupBitXor", [t]) if t.is_primitive() && !wide_arg => Layout::Sum,
        ("avg", [DataType::UInt64, DataType::Float64 | DataType::Decimal128(..)]) => match arg {
            Some(ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64) => Layout::Avg(Numerator::Signed),
            Some(ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Bool) => Layout::Avg(Numerator::Unsigned),
            Some(ChType::Float32 | ChType::Float64) => Layout::Avg(Numerator::Float),
            Some(ChType::Decimal(..)) if matches!(types[1], DataType::Decimal128(..)) => Layout::Avg(Numerator::Decimal),
            _ => Layout::Generic,
        },
        ("any_respect_nulls" | "anyLast_respect_nulls", [_, DataType::Boolean]) if arg.is_some_and(|t| t.strip_nullable() == &ChType::String || numeric(t.strip_nullable())) => {
            Layout::RespectNulls
        }
        ("min" | "max", [_]) | ("any" | "anyLast", [_, DataType::Boolean]) => match arg {
            Some(ChType::String) => Layout::Single { string: true, with_is_set: types.len() == 2 },
            Some(t) if numeric(t) => Layout::Single { string: false, with_is_set: types.len() == 2 },
            _ => Layout::Generic,
        },
        _ => Layout::Generic,
    }
}

/// The item type of a `topK` or `groupUniqArray` state (its first argument's, without
/// `Nullable` or `LowCardinality`).
fn item_of(args: &[ChType]) -> &ChType {
    args.first().map_or(&ChType::Nothing, |a| a.strip_nullable().base().strip_nullable())
}

/// Whether the state starts with ClickHouse's "a non-NULL value was seen" byte.
fn has_null_flag(function: &str, layout: Layout, args: &[ChType]) -> bool {
    match layout {
        // ClickHouse's -Null combinator of two arguments writes its flag set even when
        // only NULLs (or no rows) came: `topKWeighted` over a Nullable argument.
        Layout::TopK(_) if crate::topk::is_weighted(function) => args.iter().any(ChType::is_nullable),
        Layout::Sum | Layout::Avg(_) | Layout::Single { .. } => args.len() == 1 && args[0].is_nullable(),
        // ClickHouse's -Null combinator over uniq flags the state when any argument is Nullable.
        Layout::UniquesHashSet | Layout::Moments | Layout::Quantile | Layout::Cardinality => args.iter().any(ChType::is_nullable),
        Layout::Native => crate::native_state::has_null_flag(function, args),
        Layout::Count | Layout::TopK(_) | Layout::UniqArray(_) | Layout::RespectNulls | Layout::Generic => false,
    }
}

/// Serializes the state (`state`, as the accumulator gives it) of base aggregate
/// `function` over arguments `args` (see the module docs).
pub(crate) fn encode_state(function: &str, args: &[ChType], state: &[ScalarValue]) -> DfResult<Vec<u8>> {
    let types: Vec<DataType> = state.iter().map(ScalarValue::data_type).collect();
    let layout = layout(function, args, &types);
    let mut out = Vec::new();
    let seen = match layout {
        Layout::Sum => !state[0].is_null(),
        Layout::Avg(_) => matches!(state[0], ScalarValue::UInt64(Some(n)) if n > 0),
        Layout::Single { with_is_set, .. } => !state[0].is_null() && (!with_is_set || matches!(state[1], ScalarValue::Boolean(Some(true)))),
        // Only NULLs reached the set: ClickHouse writes the "nothing seen" flag alone.
        Layout::UniquesHashSet => match &state[0] {
            ScalarValue::Binary(Some(b)) => !UniquesHashSet::read(&mut b.as_slice())?.is_empty(),
            _ => false,
        },
        Layout::Moments => match &state[0] {
            ScalarValue::Binary(Some(b)) => crate::moments::state_rows(function, args, b) > 0,
            _ => false,
        },
        Layout::Quantile => match &state[0] {
            ScalarValue::Binary(Some(b)) => crate::quantile::state_has_values(function, args, b),
            _ => false,
        },
        Layout::Cardinality => match &state[0] {
            ScalarValue::Binary(Some(b)) => !crate::uniq_combined::state_is_empty(function, args, b),
            _ => false,
        },
        Layout::Native => match &state[0] {
            ScalarValue::Binary(Some(b)) => crate::native_state::flag_when(function, b.first() == Some(&1)),
            _ => crate::native_state::flag_when(function, false),
        },
        Layout::Count | Layout::TopK(_) | Layout::UniqArray(_) | Layout::RespectNulls | Layout::Generic => true,
    };
    if has_null_flag(function, layout, args) {
        out.push(u8::from(seen));
        if !seen {
            return Ok(out);
        }
    }
    match layout {
        Layout::Count => put_varuint(&mut out, match state[0] {
            ScalarValue::Int64(n) => n.unwrap_or(0).max(0) as u64,
            _ => 0,
        }),
        Layout::Sum if state[0].is_null() => {
            let empty = match function {
                "groupBitAnd" => crate::aggregate::all_bits_set(&types[0]).map_or_else(|| ScalarValue::new_zero(&types[0]), Ok)?,
                _ => ScalarValue::new_zero(&types[0])?,
            };
            put_arg_value(&mut out, &empty, args.first())?
        }
        Layout::Sum => put_arg_value(&mut out, &state[0], args.first())?,
        Layout::Avg(numerator) => {
            let count = match state[0] {
                ScalarValue::UInt64(n) => n.unwrap_or(0),
                _ => 0,
            };
            match (numerator, &state[1]) {
                // DataFusion sums integers as Float64: exact below 2^53.
                (Numerator::Signed, ScalarValue::Float64(sum)) => out.extend_from_slice(&(sum.unwrap_or(0.0) as i64).to_le_bytes()),
                (Numerator::Unsigned, ScalarValue::Float64(sum)) => out.extend_from_slice(&(sum.unwrap_or(0.0) as u64).to_le_bytes()),
                (Numerator::Float, ScalarValue::Float64(sum)) => out.extend_from_slice(&sum.unwrap_or(0.0).to_le_bytes()),
                (Numerator::Decimal, ScalarValue::Decimal128(sum, _, _)) => out.extend_from_slice(&sum.unwrap_or(0).to_le_bytes()),
                (_, other) => return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("Unexpected avg state {other:?}"))),
            }
            put_varuint(&mut out, count);
        }
        Layout::Single { string: true, .. } => match &state[0] {
            ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)) | ScalarValue::Utf8View(Some(s)) if seen => {
                out.extend_from_slice(&((s.len() + 1) as i32).to_le_bytes());
                out.extend_from_slice(s.as_bytes());
                out.push(0);
            }
            _ => out.extend_from_slice(&(-1i32).to_le_bytes()),
        },
        Layout::Single { string: false, .. } if seen => {
            out.push(1);
            put_arg_value(&mut out, &state[0], args.first())?;
        }
        Layout::Single { string: false, .. } => out.push(0),
        Layout::UniquesHashSet => match &state[0] {
            ScalarValue::Binary(Some(bytes)) => out.extend_from_slice(bytes),
            _ => UniquesHashSet::default().write(&mut out),
        },
        Layout::Moments => match &state[0] {
            ScalarValue::Binary(Some(bytes)) => out.extend_from_slice(bytes),
            _ => out.extend(crate::moments::empty_state(function, args)),
        },
        Layout::Native => match &state[0] {
            ScalarValue::Binary(Some(bytes)) if bytes.len() > 1 => out.extend(crate::native_state::to_clickhouse(function, args, &bytes[1..])?),
            _ => out.extend(crate::native_state::to_clickhouse(function, args, &crate::native_state::empty_state(function, args)?)?),
        },
        Layout::Quantile => match &state[0] {
            ScalarValue::Binary(Some(bytes)) => out.extend_from_slice(bytes),
            _ => out.extend(crate::quantile::empty_state(function, args)),
        },
        Layout::Cardinality => match &state[0] {
            ScalarValue::Binary(Some(bytes)) => out.extend_from_slice(bytes),
            _ => out.extend(crate::uniq_combined::empty_state(function, args)),
        },
        Layout::TopK(codec) => crate::topk::write_state(&mut out, function, item_of(args), codec, state)?,
        Layout::UniqArray(codec) => match &state[0] {
            ScalarValue::List(list) if !datafusion::arrow::array::Array::is_null(list.as_ref(), 0) => {
                let values = list.value(0);
                put_varuint(&mut out, values.len() as u64);
                put_items(&mut out, &values, codec)?;
            }
            _ => put_varuint(&mut out, 0),
        },
        Layout::RespectNulls => match (&state[0], &state[1]) {
            (_, ScalarValue::Boolean(Some(true))) if state[0].is_null() => out.push(2),
            (v, ScalarValue::Boolean(Some(true))) => {
                out.push(3);
                if args.first().is_some_and(ChType::is_nullable) {
                    out.push(0);
                }
                put_arg_value(&mut out, v, args.first())?;
            }
            _ => out.push(1),
        },
        Layout::Generic => {
            for (i, v) in state.iter().enumerate() {
                if v.is_null() {
                    out.push(0);
                } else {
                    out.push(1);
                    put_arg_value(&mut out, v, generic_state_arg(function, args, i))?;
                }
            }
        }
    }
    Ok(out)
}

/// Reads a state written by [`encode_state`] back into the accumulator's state values
/// (`types`); the whole of `bytes` must be that one state.
pub(crate) fn decode_state(function: &str, args: &[ChType], bytes: &[u8], types: &[DataType]) -> DfResult<Vec<ScalarValue>> {
    let mut input = bytes;
    let state = decode_prefix(function, args, &mut input, types)?;
    if !input.is_empty() {
        return Err(ch_error(ErrorCode::CORRUPTED_DATA, format!("Aggregate function {function} state has {} extra bytes", input.len())));
    }
    Ok(state)
}

/// The states of `rows` of `binary` decoded straight into the state columns, without a
/// `ScalarValue` per value, for layouts over a non-Nullable argument: `sum` (the number),
/// `count` (a VarUInt), `avg` of a number (the sum, then a VarUInt count),
/// `min`/`max`/`any`/`anyLast` of a number (a set flag, then the number), and `uniq` (the
/// set's bytes). None for other layouts, or when a state does not parse (the general path
/// then reports it).
pub(crate) fn decode_states_by_column(function: &str, args: &[ChType], binary: &BinaryArray, rows: &[usize], types: &[DataType]) -> Option<Vec<ArrayRef>> {
    use datafusion::arrow::datatypes::*;
    let layout = layout(function, args, types);
    if has_null_flag(function, layout, args) {
        return None;
    }
    macro_rules! by_number_type {
        ($dt:expr, $decode:ident, $($arg:expr),*) => {
            match $dt {
                DataType::Int8 => $decode::<Int8Type>($($arg),*),
                DataType::Int16 => $decode::<Int16Type>($($arg),*),
                DataType::Int32 => $decode::<Int32Type>($($arg),*),
                DataType::Int64 => $decode::<Int64Type>($($arg),*),
                DataType::UInt8 => $decode::<UInt8Type>($($arg),*),
                DataType::UInt16 => $decode::<UInt16Type>($($arg),*),
                DataType::UInt32 => $decode::<UInt32Type>($($arg),*),
                DataType::UInt64 => $decode::<UInt64Type>($($arg),*),
                DataType::Float32 => $decode::<Float32Type>($($arg),*),
                DataType::Float64 => $decode::<Float64Type>($($arg),*),
                _ => None,
            }
        };
    }
    match (layout, types) {
        (Layout::Sum, [number]) => Some(vec![by_number_type!(number, plain_numbers, binary, rows)?]),
        (Layout::Count, [DataType::Int64]) => {
            let mut counts = Vec::with_capacity(rows.len());
            for &row in rows {
                let mut bytes = binary.value(row);
                counts.push(get_varuint(&mut bytes).ok().filter(|_| bytes.is_empty())? as i64);
            }
            Some(vec![Arc::new(PrimitiveArray::<Int64Type>::from_iter_values(counts)) as ArrayRef])
        }
        (Layout::Avg(numerator @ (Numerator::Signed | Numerator::Unsigned | Numerator::Float)), [DataType::UInt64, DataType::Float64]) => {
            // The sum in 8 bytes, then the count as a VarUInt.
            let (mut counts, mut sums) = (Vec::with_capacity(rows.len()), Vec::with_capacity(rows.len()));
            for &row in rows {
                let (sum, mut count) = binary.value(row).split_first_chunk::<8>()?;
                counts.push(get_varuint(&mut count).ok().filter(|_| count.is_empty())?);
                sums.push(match numerator {
                    Numerator::Signed => i64::from_le_bytes(*sum) as f64,
                    Numerator::Unsigned => u64::from_le_bytes(*sum) as f64,
                    _ => f64::from_le_bytes(*sum),
                });
            }
            Some(vec![
                Arc::new(PrimitiveArray::<UInt64Type>::from_iter_values(counts)) as ArrayRef,
                Arc::new(PrimitiveArray::<Float64Type>::from_iter_values(sums)) as ArrayRef,
            ])
        }
        // The uniq accumulator reads (and checks) the set's bytes as they are stored.
        (Layout::UniquesHashSet, [DataType::Binary]) if rows.len() == binary.len() => Some(vec![Arc::new(binary.clone()) as ArrayRef]),
        (Layout::UniquesHashSet, [DataType::Binary]) => {
            let indices = PrimitiveArray::<UInt32Type>::from_iter_values(rows.iter().map(|&r| r as u32));
            Some(vec![datafusion::arrow::compute::take(binary, &indices, None).ok()?])
        }
        (Layout::Single { string: false, with_is_set }, [number, ..]) => {
            let values = by_number_type!(number, flagged_numbers, binary, rows)?;
            let mut columns = vec![values.clone()];
            if with_is_set {
                columns.push(Arc::new(datafusion::arrow::array::BooleanArray::from_iter((0..values.len()).map(|i| Some(values.is_valid(i))))) as ArrayRef);
            }
            Some(columns)
        }
        _ => None,
    }
}

/// Numbers from their little-endian bytes (None: NULL, zero bytes in the values), each
/// exactly the type's width; None when one is not.
fn numbers_from_bytes<'a, T: ArrowPrimitiveType>(numbers: impl ExactSizeIterator<Item = Option<&'a [u8]>>) -> Option<PrimitiveArray<T>> {
    let width = std::mem::size_of::<T::Native>();
    // MutableBuffer is aligned for any native type, so the bytes are the values as they are.
    let mut bytes = datafusion::arrow::buffer::MutableBuffer::with_capacity(numbers.len() * width);
    let mut valid = datafusion::arrow::array::BooleanBufferBuilder::new(numbers.len());
    for number in numbers {
        match number {
            Some(le) if le.len() == width => bytes.extend_from_slice(le),
            Some(_) => return None,
            None => bytes.extend_zeros(width),
        }
        valid.append(number.is_some());
    }
    let values = datafusion::arrow::buffer::ScalarBuffer::<T::Native>::from(datafusion::arrow::buffer::Buffer::from(bytes));
    let nulls = datafusion::arrow::buffer::NullBuffer::new(valid.finish());
    PrimitiveArray::<T>::try_new(values, (nulls.null_count() > 0).then_some(nulls)).ok()
}

/// Each state is the number alone.
fn plain_numbers<T: ArrowPrimitiveType>(binary: &BinaryArray, rows: &[usize]) -> Option<ArrayRef> {
    Some(Arc::new(numbers_from_bytes::<T>(rows.iter().map(|&row| Some(binary.value(row))))?))
}

/// Each state is a set flag, then the number when it is set (NULL when not).
fn flagged_numbers<T: ArrowPrimitiveType>(binary: &BinaryArray, rows: &[usize]) -> Option<ArrayRef> {
    let mut malformed = false;
    let numbers = rows.iter().map(|&row| match binary.value(row).split_first() {
        Some((0, [])) => None,
        Some((flag, number)) if *flag != 0 => Some(number),
        _ => {
            malformed = true;
            None
        }
    });
    let array = numbers_from_bytes::<T>(numbers)?;
    (!malformed).then(|| Arc::new(array) as ArrayRef)
}

/// Reads one state from the start of `input`, leaving the rest there.
fn decode_prefix(function: &str, args: &[ChType], input: &mut &[u8], types: &[DataType]) -> DfResult<Vec<ScalarValue>> {
    let layout = layout(function, args, types);
    let nulls = || types.iter().map(ScalarValue::try_from).collect::<DfResult<Vec<_>>>();
    if has_null_flag(function, layout, args) && take(input, 1)?[0] == 0 {
        let mut state = nulls()?;
        match layout {
            Layout::Avg(_) => state[0] = ScalarValue::UInt64(Some(0)),
            Layout::Single { with_is_set: true, .. } => state[1] = ScalarValue::Boolean(Some(false)),
            _ => {}
        }
        return Ok(state);
    }
    Ok(match layout {
        Layout::Count => vec![ScalarValue::Int64(Some(get_varuint(input)? as i64))],
        Layout::Sum => vec![get_arg_value(input, &types[0], args.first())?],
        Layout::Avg(numerator) => {
            let sum = match numerator {
                Numerator::Signed => ScalarValue::Float64(Some(i64::from_le_bytes(array(take(input, 8)?)?) as f64)),
                Numerator::Unsigned => ScalarValue::Float64(Some(u64::from_le_bytes(array(take(input, 8)?)?) as f64)),
                Numerator::Float => ScalarValue::Float64(Some(f64::from_le_bytes(array(take(input, 8)?)?))),
                Numerator::Decimal => get_value(input, &types[1])?,
            };
            vec![ScalarValue::UInt64(Some(get_varuint(input)?)), sum]
        }
        Layout::Single { string, with_is_set } => {
            let value = if string {
                let size = i32::from_le_bytes(array(take(input, 4)?)?);
                if size <= 0 {
                    None
                } else {
                    let bytes = take(input, size as usize)?;
                    let text = bytes.strip_suffix(&[0]).unwrap_or(bytes);
                    Some(ScalarValue::Utf8(Some(String::from_utf8_lossy(text).into_owned())).cast_to(&types[0])?)
                }
            } else if take(input, 1)?[0] != 0 {
                Some(get_arg_value(input, &types[0], args.first())?)
            } else {
                None
            };
            let seen = value.is_some();
            let mut state = vec![match value {
                Some(v) => v,
                None => ScalarValue::try_from(&types[0])?,
            }];
            if with_is_set {
                state.push(ScalarValue::Boolean(Some(seen)));
            }
            state
        }
        Layout::UniquesHashSet => {
            let start = *input;
            UniquesHashSet::read(input)?;
            vec![ScalarValue::Binary(Some(start[..start.len() - input.len()].to_vec()))]
        }
        Layout::Moments => {
            let n = crate::moments::state_len(function, args, input)?;
            vec![ScalarValue::Binary(Some(take(input, n)?.to_vec()))]
        }
        Layout::Native => {
            // The accumulator's own flag first: what follows counts as seen.
            let mut state = vec![1];
            state.extend(crate::native_state::from_clickhouse(function, args, input)?);
            vec![ScalarValue::Binary(Some(state))]
        }
        Layout::Quantile => {
            let n = crate::quantile::state_len(function, args, input)?;
            vec![ScalarValue::Binary(Some(take(input, n)?.to_vec()))]
        }
        Layout::Cardinality => {
            let n = crate::uniq_combined::state_len(function, args, input)?;
            vec![ScalarValue::Binary(Some(take(input, n)?.to_vec()))]
        }
        Layout::TopK(codec) => crate::topk::read_state(input, function, item_of(args), codec)?,
        Layout::UniqArray(codec) => {
            let n = get_varuint(input)? as usize;
            let values = get_items(input, n, item_of(args), codec)?;
            let offsets = datafusion::arrow::buffer::OffsetBuffer::from_lengths([values.len()]);
            let field = std::sync::Arc::new(datafusion::arrow::datatypes::Field::new("item", values.data_type().clone(), true));
            vec![ScalarValue::List(std::sync::Arc::new(datafusion::arrow::array::ListArray::try_new(field, offsets, values, None)?))]
        }
        Layout::RespectNulls => match take(input, 1)?[0] {
            1 => vec![ScalarValue::try_from(&types[0])?, ScalarValue::Boolean(Some(false))],
            2 => vec![ScalarValue::try_from(&types[0])?, ScalarValue::Boolean(Some(true))],
            3 => {
                if args.first().is_some_and(ChType::is_nullable) && take(input, 1)?[0] != 0 {
                    vec![ScalarValue::try_from(&types[0])?, ScalarValue::Boolean(Some(true))]
                } else {
                    vec![get_arg_value(input, &types[0], args.first())?, ScalarValue::Boolean(Some(true))]
                }
            }
            other => return Err(ch_error(ErrorCode::INCORRECT_DATA, format!("Incorrect status {other} in the state of {function}"))),
        },
        Layout::Generic => types
            .iter()
            .enumerate()
            .map(|(i, t)| if take(input, 1)?[0] == 0 { Ok(ScalarValue::try_from(t)?) } else { get_arg_value(input, t, generic_state_arg(function, args, i)) })
            .collect::<DfResult<_>>()?,
    })
}

fn array<const N: usize>(bytes: &[u8]) -> DfResult<[u8; N]> {
    bytes.try_into().map_err(|_| truncated())
}

/// Where each of `rows` states at the start of `bytes` ends (offsets into `bytes`):
/// how `Native` and `RowBinary` read `AggregateFunction` columns, whose states have no
/// length prefix. Registered with [`granary_types::aggregate_state`].
pub fn split_states(function: &str, args: &[ChType], bytes: &[u8], rows: usize) -> granary_common::Result<Vec<usize>> {
    let run = || -> DfResult<Vec<usize>> {
        let mut input = bytes;
        let mut ends = Vec::with_capacity(rows);
        if function == "count" {
            // Its state does not depend on arguments, which its type may not name.
            for _ in 0..rows {
                get_varuint(&mut input)?;
                ends.push(bytes.len() - input.len());
            }
            return Ok(ends);
        }
        let base = base_aggregate(function)?;
        let types: Vec<DataType> = state_types(&base, &base_fields(&base, args))?.iter().map(|f| f.data_type().clone()).collect();
        for _ in 0..rows {
            decode_prefix(base.name(), args, &mut input, &types)?;
            ends.push(bytes.len() - input.len());
        }
        Ok(ends)
    };
    run().map_err(|e| match Error::from(e) {
        e if e.code() == ErrorCode::CORRUPTED_DATA => e,
        e => Error::new(e.code(), format!("Cannot read states of AggregateFunction({function}): {}", e.message())),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02X}")).collect()
    }

    /// Bytes as ClickHouse (chdb 4.4, ClickHouse 26.9) writes them, see the module docs.
    #[test]
    fn clickhouse_layouts() {
        let int32 = [ChType::Int32];
        assert_eq!(hex(&encode_state("count", &[], &[ScalarValue::Int64(Some(300))]).unwrap()), "AC02");
        assert_eq!(hex(&encode_state("sum", &[ChType::UInt8], &[ScalarValue::UInt64(Some(5))]).unwrap()), "0500000000000000");
        assert_eq!(hex(&encode_state("sum", &[ChType::UInt8], &[ScalarValue::UInt64(None)]).unwrap()), "0000000000000000");
        let avg = [ScalarValue::UInt64(Some(5)), ScalarValue::Float64(Some(10.0))];
        assert_eq!(hex(&encode_state("avg", &int32, &avg).unwrap()), "0A0000000000000005");
        assert_eq!(hex(&encode_state("max", &int32, &[ScalarValue::Int32(Some(4))]).unwrap()), "0104000000");
        assert_eq!(hex(&encode_state("max", &int32, &[ScalarValue::Int32(None)]).unwrap()), "00");
        let string = [ChType::String];
        assert_eq!(hex(&encode_state("min", &string, &[ScalarValue::Utf8(Some("0".into()))]).unwrap()), "020000003000");
        assert_eq!(hex(&encode_state("min", &string, &[ScalarValue::Utf8(None)]).unwrap()), "FFFFFFFF");
        let any = [ScalarValue::Int32(Some(7)), ScalarValue::Boolean(Some(true))];
        assert_eq!(hex(&encode_state("any", &int32, &any).unwrap()), "0107000000");
        let nullable = [ChType::Nullable(Box::new(ChType::Int32))];
        assert_eq!(hex(&encode_state("sum", &nullable, &[ScalarValue::Int64(None)]).unwrap()), "00");
        assert_eq!(hex(&encode_state("sum", &nullable, &[ScalarValue::Int64(Some(3))]).unwrap()), "010300000000000000");
    }

    #[test]
    fn states_round_trip_and_split() {
        let cases: Vec<(&str, Vec<ChType>, Vec<ScalarValue>)> = vec![
            ("avg", vec![ChType::UInt64], vec![ScalarValue::UInt64(Some(3)), ScalarValue::Float64(Some(12.0))]),
            ("max", vec![ChType::String], vec![ScalarValue::Utf8(Some("abc".into()))]),
            ("anyLast", vec![ChType::String], vec![ScalarValue::Utf8(None), ScalarValue::Boolean(Some(false))]),
            ("sum", vec![ChType::Nullable(Box::new(ChType::Float64))], vec![ScalarValue::Float64(None)]),
            ("argMax", vec![ChType::String, ChType::Int32], vec![ScalarValue::Utf8(Some("ab".into())), ScalarValue::Int32(None)]),
        ];
        for (function, args, state) in cases {
            let types: Vec<DataType> = state.iter().map(ScalarValue::data_type).collect();
            let bytes = encode_state(function, &args, &state).unwrap();
            assert_eq!(decode_state(function, &args, &bytes, &types).unwrap(), state, "{function}");
        }
        assert!(decode_state("count", &[], &[0x80], &[DataType::Int64]).is_err());
        // Three states back to back, as in a Native column.
        let mut column = Vec::new();
        for v in [Some("x"), None, Some("yz")] {
            column.extend(encode_state("max", &[ChType::String], &[ScalarValue::Utf8(v.map(String::from))]).unwrap());
        }
        assert_eq!(split_states("max", &[ChType::String], &column, 3).unwrap(), vec![6, 10, 17]);
        assert_eq!(split_states("count", &[], &[0x03, 0xAC, 0x02], 2).unwrap(), vec![1, 3]);
        assert_eq!(split_states("max", &[ChType::String], &column[..8], 2).unwrap_err().code(), ErrorCode::CORRUPTED_DATA);
    }
}
