//! ClickHouse's cross-tab family over two columns of any type: `cramersV`,
//! `cramersVBiasCorrected`, `contingency` (all from φ², the χ² statistic over the count)
//! and `theilsU` (the uncertainty coefficient), with ClickHouse's formulas.
//!
//! Like ClickHouse, the state counts 64-bit hashes of the values, not the values: the
//! total, the count of each first and each second value and of each pair. ClickHouse's
//! hashes come from its own hash tables and `UniqVariadicHash`; Granary hashes each
//! value's row-format bytes with xxHash64 and keeps the counts in key order, so the
//! results agree (up to the order the floating-point sums are taken in, a few ulps)
//! while the `-State` bytes are Granary's own: the total, then each map as a varuint
//! length and its (key, count) pairs.

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{read_u64, NativeState, NullHandling, Spec};
use crate::states::{get_varuint, put_varuint};
use crate::value_stats::no_params;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Statistic {
    CramersV,
    CramersVBiasCorrected,
    Contingency,
    TheilsU,
}

#[derive(Debug)]
struct CrossTabSpec {
    name: &'static str,
    statistic: Statistic,
}

fn spec(name: &'static str, statistic: Statistic, params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params(name, params)?;
    Ok(Arc::new(CrossTabSpec { name, statistic }))
}

pub(crate) fn cramers_v(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("cramersV", Statistic::CramersV, params)
}
pub(crate) fn cramers_v_bias_corrected(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("cramersVBiasCorrected", Statistic::CramersVBiasCorrected, params)
}
pub(crate) fn contingency(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("contingency", Statistic::Contingency, params)
}
pub(crate) fn theils_u(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("theilsU", Statistic::TheilsU, params)
}

impl Spec for CrossTabSpec {
    fn name(&self) -> &str {
        self.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(2)
    }
    fn nulls(&self) -> NullHandling {
        NullHandling::NullableResult
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        if args.len() != 2 {
            return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {} requires two arguments", self.name)));
        }
        Ok(ChType::Float64)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        Ok(Box::new(CrossTab { statistic: self.statistic, count: 0, count_a: BTreeMap::new(), count_b: BTreeMap::new(), count_ab: BTreeMap::new() }))
    }
}

/// Each row's value as a 64-bit hash of its row-format bytes.
fn value_hashes(column: &ArrayRef) -> DfResult<Vec<u64>> {
    let converter = RowConverter::new(vec![SortField::new(column.data_type().clone())])?;
    let rows = converter.convert_columns(&[Arc::clone(column)])?;
    Ok(rows.iter().map(|row| xxhash_rust::xxh64::xxh64(row.as_ref(), 0)).collect())
}

#[derive(Debug, Clone)]
struct CrossTab {
    statistic: Statistic,
    count: u64,
    count_a: BTreeMap<u64, u64>,
    count_b: BTreeMap<u64, u64>,
    count_ab: BTreeMap<(u64, u64), u64>,
}

impl CrossTab {
    /// φ² = Σ n_ab² / (n_a n_b) - 1 over the observed pairs, within [0, min(|A|, |B|) - 1].
    fn phi_squared(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let mut sum = 0.0;
        for (&(a, b), &ab) in &self.count_ab {
            let value_a = self.count_a.get(&a).copied().unwrap_or(0) as f64;
            let value_b = self.count_b.get(&b).copied().unwrap_or(0) as f64;
            let ab = ab as f64;
            sum += (ab * ab) / (value_a * value_b);
        }
        let phi_squared = (sum - 1.0).max(0.0);
        let q = self.count_a.len().min(self.count_b.len());
        if q <= 1 {
            return 0.0;
        }
        phi_squared.min((q - 1) as f64)
    }

    fn theils_u(&self) -> f64 {
        let count = self.count as f64;
        let mut h_a = 0.0;
        for &value in self.count_a.values() {
            let prob_a = value as f64 / count;
            h_a += prob_a * prob_a.ln();
        }
        if h_a == 0.0 {
            return 0.0;
        }
        let mut dep = 0.0;
        for (&(_, b), &ab) in &self.count_ab {
            let value_b = self.count_b.get(&b).copied().unwrap_or(0) as f64;
            let ab = ab as f64;
            dep += ab / count * (ab / value_b).ln();
        }
        (h_a - dep) / h_a
    }

    fn result(&self) -> f64 {
        if self.count < 2 {
            return f64::NAN;
        }
        let (size_a, size_b) = (self.count_a.len() as f64, self.count_b.len() as f64);
        match self.statistic {
            Statistic::CramersV => {
                let q = self.count_a.len().min(self.count_b.len());
                (self.phi_squared() / (q as f64 - 1.0)).sqrt()
            }
            Statistic::CramersVBiasCorrected => {
                let phi = self.phi_squared();
                let (a_adjusted, b_adjusted, count_adjusted) = (size_a - 1.0, size_b - 1.0, self.count as f64 - 1.0);
                let res = (phi - a_adjusted * b_adjusted / count_adjusted).max(0.0);
                let correction_a = size_a - a_adjusted * a_adjusted / count_adjusted;
                let correction_b = size_b - b_adjusted * b_adjusted / count_adjusted;
                (res / (correction_a.min(correction_b) - 1.0)).sqrt()
            }
            Statistic::Contingency => {
                let phi = self.phi_squared();
                (phi / (phi + 1.0)).sqrt()
            }
            Statistic::TheilsU => self.theils_u(),
        }
    }
}

/// Reads a map's length, then hands the input to `entry` once per entry.
fn read_map(input: &mut &[u8], mut entry: impl FnMut(&mut &[u8]) -> DfResult<()>) -> DfResult<()> {
    let n = get_varuint(input)?;
    if n.saturating_mul(16) > input.len() as u64 {
        return Err(crate::native_state::truncated());
    }
    for _ in 0..n {
        entry(input)?;
    }
    Ok(())
}

impl NativeState for CrossTab {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let (a, b) = (value_hashes(&columns[0])?, value_hashes(&columns[1])?);
        for (a, b) in a.into_iter().zip(b) {
            self.count += 1;
            *self.count_a.entry(a).or_default() += 1;
            *self.count_b.entry(b).or_default() += 1;
            *self.count_ab.entry((a, b)).or_default() += 1;
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        self.count += read_u64(input)?;
        read_map(input, |input| {
            let key = read_u64(input)?;
            *self.count_a.entry(key).or_default() += read_u64(input)?;
            Ok(())
        })?;
        read_map(input, |input| {
            let key = read_u64(input)?;
            *self.count_b.entry(key).or_default() += read_u64(input)?;
            Ok(())
        })?;
        read_map(input, |input| {
            let key = (read_u64(input)?, read_u64(input)?);
            *self.count_ab.entry(key).or_default() += read_u64(input)?;
            Ok(())
        })
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.count.to_le_bytes());
        for map in [&self.count_a, &self.count_b] {
            put_varuint(out, map.len() as u64);
            for (key, value) in map {
                out.extend_from_slice(&key.to_le_bytes());
                out.extend_from_slice(&value.to_le_bytes());
            }
        }
        put_varuint(out, self.count_ab.len() as u64);
        for ((a, b), value) in &self.count_ab {
            for v in [a, b, value] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        Ok(ScalarValue::Float64(Some(self.result())))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + (self.count_a.len() + self.count_b.len()) * 32 + self.count_ab.len() * 40
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use datafusion::arrow::array::UInt64Array;

    fn state(statistic: Statistic, a: Vec<u64>, b: Vec<u64>) -> CrossTab {
        let mut tab = CrossTab { statistic, count: 0, count_a: BTreeMap::new(), count_b: BTreeMap::new(), count_ab: BTreeMap::new() };
        tab.add(&[Arc::new(UInt64Array::from(a)) as ArrayRef, Arc::new(UInt64Array::from(b)) as ArrayRef]).unwrap();
        tab
    }

    /// chdb: `cramersV(number % 3, number % 5)` over numbers(100) is 0.04905524551257884.
    #[test]
    fn cramers_v_of_a_small_table() {
        let tab = state(Statistic::CramersV, (0..100).map(|n| n % 3).collect(), (0..100).map(|n| n % 5).collect());
        // The sum of the pairs is taken in key order, ClickHouse takes it in hash-table order.
        assert!((tab.result() - 0.04905524551257884).abs() < 1e-13);
        let mut bytes = Vec::new();
        tab.write(&mut bytes);
        let mut merged = state(Statistic::CramersV, vec![], vec![]);
        merged.merge(&mut bytes.as_slice()).unwrap();
        assert_eq!(merged.result(), tab.result());
    }

    #[test]
    fn one_row_is_nan() {
        assert!(state(Statistic::TheilsU, vec![1], vec![2]).result().is_nan());
    }
}
