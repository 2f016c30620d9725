//! `jumpConsistentHash(key, buckets)` (Lamping and Veach's jump hash, `Int32`) and
//! `kostikConsistentHash(key, buckets)` (Yandex's consistent hashing of ClickHouse's
//! contrib library, `UInt16`, at most 32768 buckets): the bucket of a 64-bit key (an integer
//! of up to 64 bits, signed ones sign-extended), with ClickHouse's argument checks; the
//! number of buckets must be a constant.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int32Array, UInt16Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, UInt64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, scalar_i128, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![consistent_hash_function(Kind::Jump), consistent_hash_function(Kind::Kostik)]
}

#[derive(Clone, Copy)]
enum Kind {
    Jump,
    Kostik,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Jump => "jumpConsistentHash",
            Kind::Kostik => "kostikConsistentHash",
        }
    }

    fn max_buckets(self) -> i128 {
        match self {
            Kind::Jump => i128::from(i32::MAX),
            Kind::Kostik => 32768,
        }
    }
}

fn is_native_integer(t: &ChType) -> bool {
    matches!(t, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64)
}

fn check_types(kind: Kind, ctx: &RetCtx) -> DfResult<ChType> {
    let name = kind.name();
    let key = ctx.ch(0);
    let key = key.base();
    if matches!(key, ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256) {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Function {name} accepts 64-bit integers at most, got {key}")));
    }
    if !is_native_integer(key) {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {key} of the first argument of function {name}")));
    }
    let buckets = ctx.ch(1);
    if !is_native_integer(buckets.base()) {
        return Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("The second argument of function {name} (number of buckets) must be a native integer (up to 64-bit), got {buckets}"),
        ));
    }
    if let Some(value) = ctx.scalar(1).and_then(scalar_i128) {
        bucket_count(kind, value)?;
    }
    Ok(match kind {
        Kind::Jump => ChType::Int32,
        Kind::Kostik => ChType::UInt16,
    })
}

fn bucket_count(kind: Kind, value: i128) -> DfResult<u32> {
    let name = kind.name();
    if value <= 0 {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("The second argument of function {name} (number of buckets) must be positive number")));
    }
    if value > kind.max_buckets() {
        return Err(ch_error(
            ErrorCode::BAD_ARGUMENTS,
            format!("The value of the second argument of function {name} (number of buckets) must not be greater than {}", kind.max_buckets()),
        ));
    }
    Ok(value as u32)
}

fn consistent_hash_function(kind: Kind) -> ScalarUDF {
    ScalarDef::new(kind.name(), Arity::exact(2), move |ctx| check_types(kind, ctx), move |ctx| execute(kind, ctx)).build()
}

fn execute(kind: Kind, ctx: &ExecCtx) -> DfResult<ArrayRef> {
    let buckets = match ctx.scalar(1) {
        // A NULL count: the rows are NULL anyway (ClickHouse's default NULL handling).
        Some(value) if value.is_null() => 1,
        Some(value) => bucket_count(kind, scalar_i128(value).unwrap_or_default())?,
        None => {
            return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Argument at index 1 for function {} must be constant", kind.name())));
        }
    };
    let keys = ctx.array(0)?;
    let nulls = keys.nulls().cloned();
    // Signed keys are sign-extended to 64 bits, as `static_cast<UInt64>` does.
    let keys: Vec<u64> = match keys.data_type() {
        DataType::UInt64 => keys.as_primitive::<UInt64Type>().values().to_vec(),
        _ => cast(&keys, &DataType::Int64)?.as_primitive::<Int64Type>().values().iter().map(|k| *k as u64).collect(),
    };
    Ok(match kind {
        Kind::Jump => Arc::new(Int32Array::new(keys.into_iter().map(|k| jump_consistent_hash(k, buckets as i32)).collect(), nulls)) as ArrayRef,
        Kind::Kostik => Arc::new(UInt16Array::new(keys.into_iter().map(|k| kostik_consistent_hash(k, buckets) as u16).collect(), nulls)),
    })
}

/// Lamping and Veach, "A Fast, Minimal Memory, Consistent Hash Algorithm".
fn jump_consistent_hash(mut key: u64, buckets: i32) -> i32 {
    let (mut b, mut j) = (-1i64, 0i64);
    while j < i64::from(buckets) {
        b = j;
        key = key.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
        j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
    }
    b as i32
}

/// Bits needed to write `value` (0 for 0).
fn bit_count(value: u64) -> u32 {
    64 - value.leading_zeros()
}

/// The library's exact result for `2^k` buckets (`k2` = 2^k), from the low `k` bits of `c`.
fn for_power_of_two(a: u16, b: u16, c: u16, k2: u32) -> u32 {
    let c_block = u32::from(c) & (k2 - 1);
    if c_block < 2 {
        return c_block;
    }
    let y2 = 1u32 << (bit_count(u64::from(c_block)) - 1);
    let ab = if c_block.count_ones() % 2 == 0 { a } else { b };
    y2 + (u32::from(ab) & (y2 - 1))
}

/// `ConsistentHashing(x, n)` of ClickHouse's contrib consistent-hashing library, on the
/// four 16-bit blocks of the key (n is at most 32768 here, so `2^k` fits its 16 bits).
fn kostik_consistent_hash(key: u64, n: u32) -> u32 {
    let (a, b, c, d) = (key as u16, (key >> 16) as u16, (key >> 32) as u16, (key >> 48) as u16);
    if n == 1 {
        return 0;
    }
    let k = bit_count(u64::from(n - 1));
    let k2 = 1u32 << k;
    let large = for_power_of_two(a, b, c, k2);
    if large < n {
        return large;
    }
    let k21 = 1u32 << (k - 1);
    // The bits of the blocks the power-of-two schemes did not look at, in one word.
    let mut shift = 16 - k;
    let mut asterisk = (u64::from(d) << shift) | (u64::from(c) >> k);
    shift += 1;
    asterisk = (asterisk << shift) | (u64::from(b) >> (k - 1));
    asterisk = (asterisk << shift) | (u64::from(a) >> (k - 1));
    let s = asterisk % (u64::from(large) * u64::from(large + 1));
    let smooth = (s / u64::from(k2)) as u32 + k21;
    if smooth < n {
        return smooth;
    }
    for_power_of_two(a, b, c, k21)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values printed by ClickHouse 26.9 (chdb).
    #[test]
    fn match_clickhouse() {
        assert_eq!(jump_consistent_hash(u64::MAX, 3), 2);
        assert_eq!(jump_consistent_hash(12_345_678_901_234, 1000), 649);
        assert_eq!(jump_consistent_hash(1, i32::MAX), 262_355_607);
        assert_eq!(kostik_consistent_hash(u64::MAX, 3), 2);
        assert_eq!(kostik_consistent_hash(123_456_789, 1000), 0);
        assert_eq!(kostik_consistent_hash(u64::MAX, 32768), 32767);
        assert_eq!(kostik_consistent_hash(1, 1), 0);
    }
}
