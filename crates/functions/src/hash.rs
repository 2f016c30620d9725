//! `cityHash64(x, ...)`: ClickHouse's hash for sharding, sampling and ordering, with its
//! exact results. Strings are CityHash64 (v1.0.2) of their bytes; numbers, dates and
//! booleans go through `intHash64` of their bits (zero-extended from their ClickHouse
//! width, not sign-extended); decimals and DateTime64 are hashed as their bytes; several
//! arguments are combined left to right with `Hash128to64`.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float32Type, Float64Type, Int64Type, UInt64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::hash::{city_hash64, hash128_to_64, int_hash64};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ExecCtx, ScalarDef};

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![city_hash64_function()]
}

fn city_hash64_function() -> ScalarUDF {
    ScalarDef::new(
        "cityHash64",
        Arity::at_least(1),
        |ctx| {
            for i in 0..ctx.arg_count() {
                hash_kind(&ctx.ch(i)).map_err(|what| ch_error(ErrorCode::NOT_IMPLEMENTED, format!("cityHash64 of {what} is not supported yet")))?;
            }
            Ok(ChType::UInt64)
        },
        |ctx| {
            let mut hashes: Option<Vec<u64>> = None;
            for i in 0..ctx.args.len() {
                let column = column_hashes(ctx, i)?;
                hashes = Some(match hashes {
                    None => column,
                    Some(previous) => previous.into_iter().zip(column).map(|(a, b)| hash128_to_64(a, b)).collect(),
                });
            }
            Ok(Arc::new(UInt64Array::from(hashes.unwrap_or_default())))
        },
    )
    .build()
}

/// How values of a type are hashed.
enum HashKind {
    Bytes,
    /// `intHash64` of the bits, zero-extended from this many bytes.
    Int(u32),
    Float32,
    Float64,
    /// CityHash64 of the little-endian value in this many bytes.
    RawBytes(usize),
}

fn hash_kind(ch: &ChType) -> Result<HashKind, String> {
    Ok(match ch {
        ChType::Nullable(inner) | ChType::LowCardinality(inner) => return hash_kind(inner),
        ChType::String | ChType::FixedString(_) => HashKind::Bytes,
        ChType::UInt8 | ChType::Int8 | ChType::Bool => HashKind::Int(1),
        ChType::UInt16 | ChType::Int16 | ChType::Date => HashKind::Int(2),
        ChType::UInt32 | ChType::Int32 | ChType::Date32 | ChType::DateTime(_) => HashKind::Int(4),
        ChType::UInt64 | ChType::Int64 => HashKind::Int(8),
        ChType::Float32 => HashKind::Float32,
        ChType::Float64 => HashKind::Float64,
        ChType::DateTime64(..) => HashKind::RawBytes(8),
        ChType::Decimal(precision, _) => HashKind::RawBytes(match precision {
            0..=9 => 4,
            10..=18 => 8,
            _ => 16,
        }),
        ChType::Nothing => HashKind::Int(1),
        other => return Err(other.to_string()),
    })
}

fn column_hashes(ctx: &ExecCtx, index: usize) -> DfResult<Vec<u64>> {
    let array = ctx.array(index)?;
    let kind = hash_kind(&ctx.ch(index)).map_err(|what| ch_error(ErrorCode::NOT_IMPLEMENTED, format!("cityHash64 of {what} is not supported yet")))?;
    let rows = array.len();
    Ok(match kind {
        HashKind::Bytes => match array.data_type() {
            DataType::FixedSizeBinary(_) => {
                let fixed = array.as_fixed_size_binary();
                (0..rows).map(|i| city_hash64(fixed.value(i))).collect()
            }
            _ => {
                let binary = cast(&array, &DataType::Binary)?;
                let binary = binary.as_binary::<i32>();
                (0..rows).map(|i| city_hash64(binary.value(i))).collect()
            }
        },
        HashKind::Int(width) => {
            let mask = if width == 8 { u64::MAX } else { (1u64 << (8 * width)) - 1 };
            if array.data_type() == &DataType::UInt64 {
                array.as_primitive::<UInt64Type>().values().iter().map(|v| int_hash64(*v)).collect()
            } else {
                let values = integers(&array)?;
                values.as_primitive::<Int64Type>().values().iter().map(|v| int_hash64(*v as u64 & mask)).collect()
            }
        }
        HashKind::Float32 => {
            let values = cast(&array, &DataType::Float32)?;
            values.as_primitive::<Float32Type>().values().iter().map(|v| int_hash64(u64::from(v.to_bits()))).collect()
        }
        HashKind::Float64 => {
            let values = cast(&array, &DataType::Float64)?;
            values.as_primitive::<Float64Type>().values().iter().map(|v| int_hash64(v.to_bits())).collect()
        }
        HashKind::RawBytes(width) => match array.data_type() {
            DataType::Decimal128(..) => {
                let decimals = array.as_primitive::<datafusion::arrow::datatypes::Decimal128Type>();
                decimals.values().iter().map(|v| city_hash64(&v.to_le_bytes()[..width])).collect()
            }
            _ => {
                let values = integers(&array)?;
                values.as_primitive::<Int64Type>().values().iter().map(|v| city_hash64(&v.to_le_bytes()[..width.min(8)])).collect()
            }
        },
    })
}

/// The values as Int64 (timestamps as their ticks, dates as days, booleans as 0/1).
fn integers(array: &ArrayRef) -> DfResult<ArrayRef> {
    Ok(cast(array, &DataType::Int64)?)
}
