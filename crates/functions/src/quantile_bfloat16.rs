//! `quantileBFloat16` / `quantileBFloat16Weighted` (and their `quantiles*` and `median*`
//! forms): ClickHouse's histogram of values cut to bfloat16, the upper 16 bits of their
//! Float32, each with its total weight. A level's result is the first value, in float
//! order, whose running weight reaches `ceil(level * total)`, as Float64.
//!
//! The state is ClickHouse's layout (VarUInt count, then UInt16 value and UInt64 weight
//! pairs), written in value order where ClickHouse writes its hash table's order:
//! readable both ways.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, ListArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Float32Type, UInt64Type};
use datafusion::common::ScalarValue;
use granary_types::ChType;

use crate::args::{Arity, DfResult};
use crate::native_state::{read_u64, take, NativeState, Spec};
use crate::quantile::LevelsCall;
use crate::states::{get_varuint, put_varuint};

#[derive(Debug)]
struct BFloat16Spec(LevelsCall);

fn spec(family: &'static str, weighted: bool, many: bool, params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    Ok(Arc::new(BFloat16Spec(LevelsCall::new(family, weighted, many, params)?)))
}

pub(crate) fn quantile_bfloat16(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("quantileBFloat16", false, false, params)
}
pub(crate) fn quantiles_bfloat16(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("quantilesBFloat16", false, true, params)
}
pub(crate) fn quantile_bfloat16_weighted(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("quantileBFloat16Weighted", true, false, params)
}
pub(crate) fn quantiles_bfloat16_weighted(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("quantilesBFloat16Weighted", true, true, params)
}

pub(crate) fn quantile_bfloat16_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(quantile_bfloat16, params)
}
pub(crate) fn quantiles_bfloat16_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(quantiles_bfloat16, params)
}
pub(crate) fn quantile_bfloat16_weighted_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(quantile_bfloat16_weighted, params)
}
pub(crate) fn quantiles_bfloat16_weighted_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(quantiles_bfloat16_weighted, params)
}

impl Spec for BFloat16Spec {
    fn name(&self) -> &str {
        &self.0.name
    }
    fn arity(&self) -> Arity {
        self.0.arity()
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        self.0.result(args, ChType::Float64)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        Ok(Box::new(Histogram { weighted: self.0.weighted, many: self.0.many, levels: self.0.levels.clone(), weights: HashMap::new() }))
    }
}

#[derive(Debug)]
struct Histogram {
    weighted: bool,
    many: bool,
    levels: Vec<f64>,
    /// bfloat16 bits -> total weight.
    weights: HashMap<u16, u64>,
}

fn bfloat16_bits(v: f32) -> u16 {
    (v.to_bits() >> 16) as u16
}

fn bfloat16_value(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

impl Histogram {
    /// The entries sorted by value.
    fn sorted(&self) -> Vec<(f32, u64)> {
        let mut pairs: Vec<(f32, u64)> = self.weights.iter().map(|(bits, w)| (bfloat16_value(*bits), *w)).collect();
        pairs.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        pairs
    }

    fn quantile(pairs: &[(f32, u64)], total: f64, level: f64) -> f64 {
        let Some(last) = pairs.last() else { return f64::NAN };
        let threshold = (total * level).ceil();
        let mut accumulated = 0.0;
        for (value, weight) in pairs {
            accumulated += *weight as f64;
            if accumulated >= threshold {
                return f64::from(*value);
            }
        }
        f64::from(last.0)
    }
}

impl NativeState for Histogram {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let values = cast(&columns[0], &DataType::Float32)?;
        let values = values.as_primitive::<Float32Type>();
        let weights = if self.weighted { Some(cast(&columns[1], &DataType::UInt64)?) } else { None };
        let weights = weights.as_ref().map(|w| w.as_primitive::<UInt64Type>());
        for (row, v) in values.values().iter().enumerate() {
            if v.is_nan() {
                continue;
            }
            let w = weights.map_or(1, |w| w.value(row));
            let entry = self.weights.entry(bfloat16_bits(*v)).or_insert(0);
            *entry = entry.wrapping_add(w);
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let n = get_varuint(input)?;
        if n.saturating_mul(10) > input.len() as u64 {
            return Err(crate::native_state::truncated());
        }
        for _ in 0..n {
            let bytes = take(input, 2)?;
            let bits = u16::from_le_bytes([bytes[0], bytes[1]]);
            let w = read_u64(input)?;
            let entry = self.weights.entry(bits).or_insert(0);
            *entry = entry.wrapping_add(w);
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        let mut keys: Vec<u16> = self.weights.keys().copied().collect();
        keys.sort_by(|a, b| bfloat16_value(*a).partial_cmp(&bfloat16_value(*b)).unwrap_or(std::cmp::Ordering::Equal));
        put_varuint(out, keys.len() as u64);
        for bits in keys {
            out.extend_from_slice(&bits.to_le_bytes());
            out.extend_from_slice(&self.weights[&bits].to_le_bytes());
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let pairs = self.sorted();
        let total: f64 = pairs.iter().map(|(_, w)| *w as f64).sum();
        let values: Vec<f64> = self.levels.iter().map(|l| Histogram::quantile(&pairs, total, *l)).collect();
        if !self.many {
            return Ok(ScalarValue::Float64(values.first().copied()));
        }
        let n = values.len();
        let list = ListArray::try_new(
            Arc::new(Field::new_list_field(DataType::Float64, false)),
            OffsetBuffer::from_lengths([n]),
            Arc::new(datafusion::arrow::array::Float64Array::from(values)),
            None,
        )?;
        Ok(ScalarValue::List(Arc::new(list)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.weights.capacity() * 10
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// chdb: quantileBFloat16(0.5) of 0..999 is 498, and the 0.99 quantile 988.
    #[test]
    fn median_of_a_thousand() {
        let mut h = quantiles_bfloat16(&[ScalarValue::Float64(Some(0.5)), ScalarValue::Float64(Some(0.99))]).unwrap().new_state(&[ChType::UInt64]).unwrap();
        h.add(&[Arc::new(datafusion::arrow::array::UInt64Array::from_iter_values(0..1000)) as ArrayRef]).unwrap();
        let ScalarValue::List(list) = h.finish().unwrap() else { panic!("not a list") };
        let values = list.value(0);
        assert_eq!(values.as_primitive::<datafusion::arrow::datatypes::Float64Type>().values().to_vec(), vec![498.0, 988.0]);
    }
}
