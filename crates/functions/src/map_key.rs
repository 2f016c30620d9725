//! Map keys ordered as ClickHouse orders them: one ordering for the `sumMap` family of
//! aggregates (`crate::map_aggregates`) and for the MergeTree engines that combine
//! `SimpleAggregateFunction(sumMap|minMap|maxMap)` columns and SummingMergeTree's nested
//! maps, so a key sorts the same wherever it is combined.

use datafusion::arrow::array::{Array, ArrayRef};
use datafusion::common::ScalarValue;
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

/// A map key (or a minMap/maxMap value), ordered as ClickHouse's `Field`s compare: NULL
/// first, integers by value (UInt256 and UUID as unsigned words), floats with -0 equal to
/// 0 and every NaN equal and last, bytes as bytes, arrays, tuples and maps element by
/// element. Values of one column are always of one variant, apart from NULL.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum MapKeyPart {
    Null,
    Int(i128),
    Wide(datafusion::arrow::datatypes::i256),
    Float(FloatKey),
    Bytes(Vec<u8>),
    Seq(Vec<MapKeyPart>),
}

/// A float as a map key: ClickHouse merges -0 with 0 and NaN with every NaN, and puts
/// NaN after +inf.
#[derive(Debug, Clone, Copy)]
pub struct FloatKey(f64);

impl FloatKey {
    fn rank(self) -> (bool, f64) {
        // Adding 0 turns -0 into 0.
        (self.0.is_nan(), if self.0.is_nan() { 0.0 } else { self.0 + 0.0 })
    }
}

impl Ord for FloatKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let (a_nan, a) = self.rank();
        let (b_nan, b) = other.rank();
        a_nan.cmp(&b_nan).then(a.total_cmp(&b))
    }
}

impl PartialOrd for FloatKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for FloatKey {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for FloatKey {}

impl MapKeyPart {
    /// The key of `value`, a value of type `t`.
    pub fn of(value: &ScalarValue, t: &ChType) -> Result<MapKeyPart> {
        use ScalarValue as S;
        let unexpected = || Error::new(ErrorCode::LOGICAL_ERROR, format!("unexpected key {value:?} of type {t} in a map"));
        if value.is_null() {
            return Ok(MapKeyPart::Null);
        }
        let t = match t {
            ChType::Nullable(inner) | ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner) => return MapKeyPart::of(value, inner),
            t => t,
        };
        let elements = |array: &ArrayRef, t: &ChType| -> Result<MapKeyPart> {
            (0..array.len()).map(|i| MapKeyPart::of(&ScalarValue::try_from_array(array, i)?, t)).collect::<Result<Vec<_>>>().map(MapKeyPart::Seq)
        };
        let int = |v: &Option<i128>| v.map(MapKeyPart::Int).ok_or_else(unexpected);
        Ok(match (value, t) {
            (S::List(list), ChType::Array(inner)) if list.len() == 1 => elements(&list.value(0), inner)?,
            (S::Struct(tuple), ChType::Tuple(types)) if tuple.len() == 1 => MapKeyPart::Seq(
                tuple.columns().iter().zip(types).map(|(column, (_, t))| MapKeyPart::of(&ScalarValue::try_from_array(column, 0)?, t)).collect::<Result<_>>()?,
            ),
            (S::Map(map), ChType::Map(key, value)) if map.len() == 1 => {
                let entries = map.value(0);
                let pairs = (0..entries.len())
                    .map(|i| Ok(MapKeyPart::Seq(vec![MapKeyPart::of(&ScalarValue::try_from_array(entries.column(0), i)?, key)?, MapKeyPart::of(&ScalarValue::try_from_array(entries.column(1), i)?, value)?])))
                    .collect::<Result<_>>()?;
                MapKeyPart::Seq(pairs)
            }
            (S::Float32(Some(v)), _) => MapKeyPart::Float(FloatKey(f64::from(*v))),
            (S::Float64(Some(v)), _) => MapKeyPart::Float(FloatKey(*v)),
            (S::Boolean(v), _) => int(&v.map(i128::from))?,
            (S::Int8(v), _) => int(&v.map(i128::from))?,
            (S::Int16(v), _) => int(&v.map(i128::from))?,
            (S::Int32(v), _) => int(&v.map(i128::from))?,
            (S::Int64(v), _) => int(&v.map(i128::from))?,
            (S::UInt8(v), _) => int(&v.map(i128::from))?,
            (S::UInt16(v), _) => int(&v.map(i128::from))?,
            (S::UInt32(v), _) => int(&v.map(i128::from))?,
            (S::UInt64(v), _) => int(&v.map(i128::from))?,
            (S::Date32(v), _) => int(&v.map(i128::from))?,
            (S::Date64(v) | S::TimestampSecond(v, _) | S::TimestampMillisecond(v, _) | S::TimestampMicrosecond(v, _) | S::TimestampNanosecond(v, _), _) => int(&v.map(i128::from))?,
            // Int128 and decimals by their raw value (one column has one scale); UInt128 and
            // Int256 are 256-bit words of the same order.
            (S::Decimal128(v, ..), _) => int(v)?,
            (S::Decimal256(Some(v), ..), ChType::UInt256) => MapKeyPart::Wide(granary_types::wide::unsigned_order_key(*v)),
            (S::Decimal256(Some(v), ..), _) => MapKeyPart::Wide(*v),
            (S::FixedSizeBinary(16, Some(uuid)), ChType::Uuid) => MapKeyPart::Bytes([&uuid[8..], &uuid[..8]].concat()),
            (S::Utf8(Some(s)) | S::LargeUtf8(Some(s)) | S::Utf8View(Some(s)), _) => MapKeyPart::Bytes(s.as_bytes().to_vec()),
            (S::Binary(Some(b)) | S::LargeBinary(Some(b)) | S::FixedSizeBinary(_, Some(b)) | S::BinaryView(Some(b)), _) => MapKeyPart::Bytes(b.clone()),
            _ => return Err(unexpected()),
        })
    }
}

/// Whether minMap (`wanted` Less) or maxMap (Greater) replaces `old` by `new`, values
/// of type `t` compared as ClickHouse compares them (as map keys compare). A NaN is
/// never the minimum or maximum while another value is there, as in ClickHouse.
pub fn replaces(new: &ScalarValue, old: &ScalarValue, t: &ChType, wanted: std::cmp::Ordering) -> bool {
    let is_nan = |v: &ScalarValue| match v {
        ScalarValue::Float32(Some(v)) => v.is_nan(),
        ScalarValue::Float64(Some(v)) => v.is_nan(),
        _ => false,
    };
    if is_nan(new) || is_nan(old) {
        return !is_nan(new);
    }
    let order = match (MapKeyPart::of(new, t), MapKeyPart::of(old, t)) {
        (Ok(a), Ok(b)) => Some(a.cmp(&b)),
        _ => new.partial_cmp(old),
    };
    order == Some(wanted)
}
