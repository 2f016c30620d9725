//! `groupArraySample(N[, seed])(x)`: a uniform sample of N values by ClickHouse's
//! reservoir sampling, with its random generator (`pcg32_fast`, seeded with `seed`), so
//! a seeded sample equals ClickHouse's value for value.
//!
//! The state is ClickHouse's: the sample (as array elements), the number of values seen
//! (UInt64) and the generator as the text `pcg32_fast` prints ("multiplier increment
//! state"). Without a seed ClickHouse draws one per state; so does Granary.
//!
//! Merging follows `mergeWithRNGSampler`, with one difference: merging into a state that
//! has seen nothing takes the other state whole, generator included. ClickHouse adds a
//! single-threaded query's rows to its final state directly, while Granary always merges
//! a partial state into a fresh one; taking the generator along keeps `-State` bytes and
//! later merges equal to ClickHouse's there.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef};
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{illegal_argument, read_u64, take, NativeState, NullHandling, Spec};
use crate::parametric::parametric_name;
use crate::states::{get_items, get_varuint, item_codec, put_items, put_varuint, ItemCodec};

/// `AGGREGATE_FUNCTION_GROUP_ARRAY_MAX_ARRAY_SIZE`.
const MAX_ARRAY_SIZE: u64 = 0xFF_FFFF;
const PCG_MULTIPLIER: u64 = 6_364_136_223_846_793_005;

/// PCG's `pcg32_fast` (`mcg_xsh_rs_64_32`): a multiplicative generator whose output is
/// taken from the state before each step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pcg32Fast {
    state: u64,
}

impl Pcg32Fast {
    pub(crate) fn new(seed: u64) -> Self {
        Pcg32Fast { state: seed | 3 }
    }

    pub(crate) fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(PCG_MULTIPLIER);
        // xsh_rs for 64 -> 32 bits: three op bits choose the shift.
        let rshift = (old >> 61) as u32;
        let x = old ^ (old >> 22);
        (x >> (22 + rshift)) as u32
    }

    /// ClickHouse's `GroupArraySamplerData::genRandom`.
    fn below(&mut self, lim: u64) -> u64 {
        if lim <= u32::MAX as u64 {
            return self.next_u32() as u64 % lim;
        }
        let hi = self.next_u32() as u64;
        let lo = self.next_u32() as u64;
        (hi.wrapping_mul(1 << 32).wrapping_add(lo)) % lim
    }

    fn text(&self) -> String {
        format!("{PCG_MULTIPLIER} 0 {}", self.state)
    }

    fn parse(text: &str) -> DfResult<Self> {
        let bad = || ch_error(ErrorCode::CORRUPTED_DATA, format!("Cannot read the random generator of a groupArraySample state: {text:?}"));
        let parts: Vec<&str> = text.split_ascii_whitespace().collect();
        match parts.as_slice() {
            [multiplier, increment, state] if multiplier.parse() == Ok(PCG_MULTIPLIER) && *increment == "0" => Ok(Pcg32Fast { state: state.parse().map_err(|_| bad())? }),
            _ => Err(bad()),
        }
    }
}

#[derive(Debug)]
struct SampleSpec {
    name: String,
    max_elems: u64,
    seed: Option<u64>,
}

fn positive(v: &ScalarValue) -> Option<u64> {
    match v {
        ScalarValue::UInt64(Some(n)) if *n > 0 => Some(*n),
        ScalarValue::Int64(Some(n)) if *n > 0 => Some(*n as u64),
        _ => None,
    }
}

pub(crate) fn group_array_sample(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let bad = || ch_error(ErrorCode::BAD_ARGUMENTS, "Parameter for aggregate function groupArraySample should be positive number");
    let (max_elems, seed) = match params {
        [n] => (positive(n).ok_or_else(bad)?, None),
        [n, seed] => (positive(n).ok_or_else(bad)?, Some(positive(seed).ok_or_else(bad)?)),
        _ => return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Incorrect number of parameters for aggregate function groupArraySample, should be 1 or 2")),
    };
    if max_elems > MAX_ARRAY_SIZE {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Too large parameter for aggregate function groupArraySample. Maximum: {MAX_ARRAY_SIZE}")));
    }
    Ok(Arc::new(SampleSpec { name: parametric_name("groupArraySample", params), max_elems, seed }))
}

/// The family for [`crate::parametric::FAMILIES`].
pub(crate) fn group_array_sample_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(group_array_sample, params)
}

impl Spec for SampleSpec {
    fn name(&self) -> &str {
        &self.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(1)
    }
    fn nulls(&self) -> NullHandling {
        NullHandling::Skip
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        item_codec(&args[0]).ok_or_else(|| illegal_argument("groupArraySample", &args[0]))?;
        Ok(ChType::Array(Box::new(args[0].clone())))
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        let item = args[0].clone();
        let codec = item_codec(&item).ok_or_else(|| illegal_argument("groupArraySample", &item))?;
        let seed = self.seed.unwrap_or_else(|| crate::system::SplitMix::seeded().next());
        Ok(Box::new(Sample { item, codec, max_elems: self.max_elems, values: Vec::new(), total: 0, rng: Pcg32Fast::new(seed) }))
    }
}

#[derive(Debug)]
struct Sample {
    item: ChType,
    codec: ItemCodec,
    max_elems: u64,
    values: Vec<ScalarValue>,
    total: u64,
    rng: Pcg32Fast,
}

impl Sample {
    /// `insertWithSampler`: the reservoir step for the `total`-th value.
    fn offer(&mut self, value: impl FnOnce() -> DfResult<ScalarValue>) -> DfResult<()> {
        self.total += 1;
        if (self.values.len() as u64) < self.max_elems {
            self.values.push(value()?);
        } else {
            let r = self.rng.below(self.total);
            if r < self.max_elems {
                self.values[r as usize] = value()?;
            }
        }
        Ok(())
    }

    fn shuffle(&mut self) {
        for i in 1..self.values.len() {
            let j = self.rng.below(i as u64 + 1) as usize;
            self.values.swap(i, j);
        }
    }

    fn array(&self) -> DfResult<ArrayRef> {
        let target = self.item.to_arrow();
        if self.values.is_empty() {
            return Ok(datafusion::arrow::array::new_empty_array(&target));
        }
        let array = ScalarValue::iter_to_array(self.values.iter().cloned())?;
        Ok(if array.data_type() == &target { array } else { datafusion::arrow::compute::cast(&array, &target)? })
    }
}

impl NativeState for Sample {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let column = &columns[0];
        for row in 0..column.len() {
            self.offer(|| ScalarValue::try_from_array(column, row))?;
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let n = get_varuint(input)?;
        if n > self.max_elems {
            return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, format!("Too large array size {n} (maximum: {})", self.max_elems)));
        }
        let values = get_items(input, n as usize, &self.item, self.codec)?;
        let total = read_u64(input)?;
        let len = get_varuint(input)? as usize;
        let rng = Pcg32Fast::parse(&String::from_utf8_lossy(take(input, len)?))?;
        let values = (0..values.len()).map(|i| ScalarValue::try_from_array(&values, i)).collect::<DfResult<Vec<_>>>()?;
        if values.is_empty() {
            return Ok(());
        }
        if self.total == 0 {
            // See the module docs: a fresh state takes the other whole.
            (self.values, self.total, self.rng) = (values, total, rng);
            return Ok(());
        }
        if total <= self.max_elems {
            for v in values {
                self.offer(|| Ok(v))?;
            }
        } else if self.total <= self.max_elems {
            let from = std::mem::replace(&mut self.values, values);
            self.total = total;
            for v in from {
                self.offer(|| Ok(v))?;
            }
        } else {
            self.shuffle();
            self.total += total;
            for (i, v) in values.into_iter().enumerate().take(self.max_elems as usize) {
                if self.rng.below(self.total) < total {
                    if let Some(slot) = self.values.get_mut(i) {
                        *slot = v;
                    }
                }
            }
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        put_varuint(out, self.values.len() as u64);
        // Values of the argument's type always encode.
        if let Ok(array) = self.array() {
            let _ = put_items(out, &array, self.codec);
        }
        out.extend_from_slice(&self.total.to_le_bytes());
        let rng = self.rng.text();
        put_varuint(out, rng.len() as u64);
        out.extend_from_slice(rng.as_bytes());
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        crate::group_arrays::list_of(self.array()?, &self.item)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.values.iter().map(ScalarValue::size).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_sample_and_state_match_clickhouse() {
        // chdb: hex(groupArraySampleState(3, 1)(number)) FROM numbers(10).
        let mut s = Sample { item: ChType::UInt64, codec: ItemCodec::Number { width: 8, signed: false }, max_elems: 3, values: Vec::new(), total: 0, rng: Pcg32Fast::new(1) };
        let column: ArrayRef = Arc::new(datafusion::arrow::array::UInt64Array::from_iter_values(0..10));
        s.add(&[column]).ok();
        assert_eq!(
            crate::native_state::state_hex(&s),
            "030900000000000000070000000000000002000000000000000A00000000000000293633363431333632323338343637393330303520302037383330313832323837323830333531393531"
        );
    }
}
