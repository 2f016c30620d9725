//! `quantileTiming` / `quantileTimingWeighted` (and their `quantiles*` and `median*`
//! forms): ClickHouse's `QuantileTiming`, for times in milliseconds, with its results
//! and state bytes.
//!
//! Values are whole numbers (floats truncated; negatives, NaN and values past Int64 are
//! left out) capped at 30000. The state grows through three shapes, as ClickHouse's:
//! up to 31 values kept in a small array ("tiny"), then every value kept ("medium")
//! until there are as many as the histogram's bytes would hold, then a histogram
//! ("large": one bucket per millisecond below 1024, one per 16 ms up to 30000, whose
//! value is the bucket's start shifted by a hash of its index). Tiny and medium answers
//! are exact (the element at `level * n` of the sorted values); large ones are the
//! first bucket whose running count reaches `ceil(level * n)`. Results are Float32.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Int64Type, UInt64Type};
use datafusion::common::ScalarValue;
use granary_types::ChType;

use crate::args::{Arity, DfResult};
use crate::native_state::{read_u64, take, NativeState, Spec};
use crate::quantile::LevelsCall;

const TINY_MAX: usize = 31;
const BIG_THRESHOLD: u64 = 30000;
const SMALL_THRESHOLD: usize = 1024;
const BIG_PRECISION: usize = 16;
const BIG_SIZE: usize = (BIG_THRESHOLD as usize - SMALL_THRESHOLD) / BIG_PRECISION;
/// The values a medium state holds before it becomes a histogram: half as many `UInt16`s
/// as the histogram's bytes (ClickHouse's `mediumIsWorthToConvertToLarge`).
const MEDIUM_MAX: usize = (8 + (SMALL_THRESHOLD + BIG_SIZE) * 8) / 2 / 2;

#[derive(Debug)]
struct TimingSpec(LevelsCall);

fn spec(family: &'static str, weighted: bool, many: bool, params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    Ok(Arc::new(TimingSpec(LevelsCall::new(family, weighted, many, params)?)))
}

pub(crate) fn quantile_timing(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("quantileTiming", false, false, params)
}
pub(crate) fn quantiles_timing(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("quantilesTiming", false, true, params)
}
pub(crate) fn quantile_timing_weighted(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("quantileTimingWeighted", true, false, params)
}
pub(crate) fn quantiles_timing_weighted(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("quantilesTimingWeighted", true, true, params)
}

pub(crate) fn quantile_timing_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(quantile_timing, params)
}
pub(crate) fn quantiles_timing_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(quantiles_timing, params)
}
pub(crate) fn quantile_timing_weighted_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(quantile_timing_weighted, params)
}
pub(crate) fn quantiles_timing_weighted_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(quantiles_timing_weighted, params)
}

impl Spec for TimingSpec {
    fn name(&self) -> &str {
        &self.0.name
    }
    fn arity(&self) -> Arity {
        self.0.arity()
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        self.0.result(args, ChType::Float32)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        Ok(Box::new(TimingState { weighted: self.0.weighted, many: self.0.many, levels: self.0.levels.clone(), data: Timing::Tiny(Vec::new()) }))
    }
}

/// The value a histogram bucket past 1024 ms stands for.
fn big_bucket_value(i: usize) -> u16 {
    let jitter = (crate::uniq_combined::int_hash32(i as u64) % BIG_PRECISION as u32) as usize;
    (i * BIG_PRECISION + SMALL_THRESHOLD + jitter).wrapping_sub(BIG_PRECISION / 2) as u16
}

#[derive(Debug, Clone)]
struct Large {
    count: u64,
    /// Buckets below 1024 ms, then the 16 ms ones.
    buckets: Vec<u64>,
}

impl Large {
    fn new() -> Large {
        Large { count: 0, buckets: vec![0; SMALL_THRESHOLD + BIG_SIZE] }
    }

    fn insert(&mut self, x: u64, weight: u64) {
        self.count = self.count.wrapping_add(weight);
        let x = x as usize;
        if x < SMALL_THRESHOLD {
            self.buckets[x] = self.buckets[x].wrapping_add(weight);
        } else if (x as u64) < BIG_THRESHOLD {
            let at = SMALL_THRESHOLD + (x - SMALL_THRESHOLD) / BIG_PRECISION;
            self.buckets[at] = self.buckets[at].wrapping_add(weight);
        }
    }

    fn key(i: usize) -> u16 {
        if i < SMALL_THRESHOLD {
            i as u16
        } else {
            big_bucket_value(i - SMALL_THRESHOLD)
        }
    }

    fn get(&self, level: f64) -> f32 {
        let position = (self.count as f64 * level).ceil();
        let mut accumulated = 0.0;
        for (i, n) in self.buckets.iter().enumerate().filter(|(_, n)| **n != 0) {
            accumulated += *n as f64;
            if accumulated >= position {
                return f32::from(Large::key(i));
            }
        }
        BIG_THRESHOLD as f32
    }
}

#[derive(Debug, Clone)]
enum Timing {
    Tiny(Vec<u16>),
    Medium(Vec<u16>),
    Large(Box<Large>),
}

#[derive(Debug)]
struct TimingState {
    weighted: bool,
    many: bool,
    levels: Vec<f64>,
    data: Timing,
}

fn large_of(values: &[u16]) -> Box<Large> {
    let mut large = Box::new(Large::new());
    for v in values {
        large.insert(u64::from(*v), 1);
    }
    large
}

impl Timing {
    fn add(&mut self, x: u64) {
        let capped = x.min(BIG_THRESHOLD) as u16;
        match self {
            Timing::Tiny(values) if values.len() < TINY_MAX => values.push(capped),
            Timing::Tiny(values) => {
                let mut medium = std::mem::take(values);
                if medium.len() >= MEDIUM_MAX {
                    let mut large = large_of(&medium);
                    large.insert(x, 1);
                    *self = Timing::Large(large);
                } else {
                    medium.push(capped);
                    *self = Timing::Medium(medium);
                }
            }
            Timing::Medium(values) if values.len() >= MEDIUM_MAX => {
                let mut large = large_of(values);
                large.insert(x, 1);
                *self = Timing::Large(large);
            }
            Timing::Medium(values) => values.push(capped),
            Timing::Large(large) => large.insert(x, 1),
        }
    }

    fn add_weighted(&mut self, x: u64, weight: u64) {
        if let Timing::Tiny(values) = self {
            if (weight as usize) < TINY_MAX && values.len() + weight as usize <= TINY_MAX {
                values.extend(std::iter::repeat_n(x.min(BIG_THRESHOLD) as u16, weight as usize));
                return;
            }
            // The weighted form goes from tiny straight to the histogram.
            *self = Timing::Large(large_of(values));
        }
        match self {
            Timing::Large(large) => large.insert(x, weight),
            Timing::Medium(values) => {
                let mut large = large_of(values);
                large.insert(x, weight);
                *self = Timing::Large(large);
            }
            Timing::Tiny(_) => {}
        }
    }

    /// ClickHouse's `merge`: the smaller shape is brought to the larger one, and a
    /// medium that got too big becomes a histogram whatever the merge order.
    fn merge(&mut self, other: Timing) {
        let this = std::mem::replace(self, Timing::Tiny(Vec::new()));
        *self = match (this, other) {
            (Timing::Tiny(mut a), Timing::Tiny(b)) if a.len() + b.len() <= TINY_MAX => {
                a.extend(b);
                Timing::Tiny(a)
            }
            (Timing::Tiny(mut a) | Timing::Medium(mut a), Timing::Tiny(b) | Timing::Medium(b)) => {
                a.extend(b);
                Timing::Medium(a)
            }
            (Timing::Tiny(a) | Timing::Medium(a), Timing::Large(mut b)) => {
                let mut large = large_of(&a);
                large.count = large.count.wrapping_add(b.count);
                for (x, y) in large.buckets.iter_mut().zip(b.buckets.iter_mut()) {
                    *x = x.wrapping_add(*y);
                }
                Timing::Large(large)
            }
            (Timing::Large(mut a), Timing::Tiny(b) | Timing::Medium(b)) => {
                for v in b {
                    a.insert(u64::from(v), 1);
                }
                Timing::Large(a)
            }
            (Timing::Large(mut a), Timing::Large(b)) => {
                a.count = a.count.wrapping_add(b.count);
                for (x, y) in a.buckets.iter_mut().zip(&b.buckets) {
                    *x = x.wrapping_add(*y);
                }
                Timing::Large(a)
            }
        };
        if let Timing::Medium(values) = self {
            if values.len() >= MEDIUM_MAX {
                *self = Timing::Large(large_of(values));
            }
        }
    }

    fn get(&self, level: f64) -> f32 {
        match self {
            Timing::Tiny(values) | Timing::Medium(values) => {
                if values.is_empty() {
                    return f32::NAN;
                }
                let mut sorted = values.clone();
                sorted.sort_unstable();
                let n = if level < 1.0 { (level * sorted.len() as f64) as usize } else { sorted.len() - 1 };
                f32::from(sorted[n.min(sorted.len() - 1)])
            }
            Timing::Large(large) if large.count == 0 => f32::NAN,
            Timing::Large(large) => large.get(level),
        }
    }
}

impl NativeState for TimingState {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let values = timings(&columns[0])?;
        if self.weighted {
            let weights = cast(&columns[1], &DataType::UInt64)?;
            let weights = weights.as_primitive::<UInt64Type>();
            for (row, v) in values.into_iter().enumerate() {
                if let Some(v) = v {
                    self.data.add_weighted(v, weights.value(row));
                }
            }
        } else {
            for v in values.into_iter().flatten() {
                self.data.add(v);
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let other = match take(input, 1)?[0] {
            1 => {
                let count = u16::from_le_bytes([take(input, 1)?[0], take(input, 1)?[0]]) as usize;
                Timing::Tiny(read_u16s(input, count)?)
            }
            2 => {
                let count = read_u64(input)? as usize;
                Timing::Medium(read_u16s(input, count)?)
            }
            _ => {
                let mut large = Box::new(Large::new());
                large.count = read_u64(input)?;
                if large.count * 2 > (SMALL_THRESHOLD + BIG_SIZE) as u64 {
                    for bucket in large.buckets.iter_mut() {
                        *bucket = read_u64(input)?;
                    }
                } else {
                    loop {
                        let bytes = take(input, 2)?;
                        let index = u16::from_le_bytes([bytes[0], bytes[1]]) as usize;
                        if index as u64 == BIG_THRESHOLD {
                            break;
                        }
                        let n = read_u64(input)?;
                        if let Some(bucket) = large.buckets.get_mut(index) {
                            *bucket = n;
                        }
                    }
                }
                Timing::Large(large)
            }
        };
        self.data.merge(other);
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        match &self.data {
            Timing::Tiny(values) => {
                out.push(1);
                out.extend_from_slice(&(values.len() as u16).to_le_bytes());
                values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
            }
            Timing::Medium(values) => {
                out.push(2);
                out.extend_from_slice(&(values.len() as u64).to_le_bytes());
                values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
            }
            Timing::Large(large) => {
                out.push(3);
                out.extend_from_slice(&large.count.to_le_bytes());
                if large.count * 2 > (SMALL_THRESHOLD + BIG_SIZE) as u64 {
                    large.buckets.iter().for_each(|n| out.extend_from_slice(&n.to_le_bytes()));
                } else {
                    for (i, n) in large.buckets.iter().enumerate().filter(|(_, n)| **n != 0) {
                        out.extend_from_slice(&(i as u16).to_le_bytes());
                        out.extend_from_slice(&n.to_le_bytes());
                    }
                    out.extend_from_slice(&(BIG_THRESHOLD as u16).to_le_bytes());
                }
            }
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let values: Vec<f32> = self.levels.iter().map(|l| self.data.get(*l)).collect();
        if !self.many {
            return Ok(ScalarValue::Float32(values.first().copied()));
        }
        let n = values.len();
        let list = ListArray::try_new(
            Arc::new(Field::new_list_field(DataType::Float32, false)),
            OffsetBuffer::from_lengths([n]),
            Arc::new(datafusion::arrow::array::Float32Array::from(values)),
            None,
        )?;
        Ok(ScalarValue::List(Arc::new(list)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + match &self.data {
                Timing::Tiny(v) | Timing::Medium(v) => v.capacity() * 2,
                Timing::Large(l) => l.buckets.capacity() * 8,
            }
    }
}

fn read_u16s(input: &mut &[u8], count: usize) -> DfResult<Vec<u16>> {
    let bytes = take(input, count.checked_mul(2).ok_or_else(crate::native_state::truncated)?)?;
    Ok(bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect())
}

/// Each row's time as ClickHouse takes it: floats truncated; negatives, NaN and values
/// past Int64's range are no time.
fn timings(column: &ArrayRef) -> DfResult<Vec<Option<u64>>> {
    let dt = column.data_type();
    Ok(if crate::args::is_float(dt) {
        cast(column, &DataType::Float64)?
            .as_primitive::<Float64Type>()
            .values()
            .iter()
            .map(|f| (*f >= 0.0 && *f <= i64::MAX as f64).then(|| *f as u64))
            .collect()
    } else if crate::args::is_signed_int(dt) {
        cast(column, &DataType::Int64)?.as_primitive::<Int64Type>().values().iter().map(|v| u64::try_from(*v).ok()).collect()
    } else {
        let values = cast(column, &DataType::UInt64)?;
        let values = values.as_primitive::<UInt64Type>();
        (0..values.len()).map(|i| Some(values.value(i)).filter(|v| *v <= i64::MAX as u64)).collect()
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// chdb: the state of 0, 1, 2 is tiny: 01 0300 0000 0100 0200.
    #[test]
    fn tiny_state_bytes() {
        let mut s = quantile_timing(&[]).unwrap().new_state(&[ChType::UInt64]).unwrap();
        s.add(&[Arc::new(datafusion::arrow::array::UInt64Array::from(vec![0, 1, 2])) as ArrayRef]).unwrap();
        let mut out = Vec::new();
        s.write(&mut out);
        assert_eq!(out, vec![1, 3, 0, 0, 0, 1, 0, 2, 0]);
        assert_eq!(s.finish().unwrap(), ScalarValue::Float32(Some(1.0)));
    }
}
