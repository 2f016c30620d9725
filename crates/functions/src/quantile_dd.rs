//! `quantileDD(relative_accuracy, level)(x)` / `quantilesDD(relative_accuracy, level, ...)(x)`
//! (and `medianDD`): ClickHouse's DDSketch (`DDSketchDenseLogarithmic`), so values equal
//! ClickHouse's.
//!
//! A value goes to bin `trunc(ln(x) / ln(gamma))`, gamma = (1 + a) / (1 - a), of the
//! positive or the negative store (by its sign), or to the zero count when it is
//! within the smallest normal float (a NaN too, as there). A level's rank is
//! `level * (count - 1)`; the answer is the first bin whose running count passes it,
//! as `gamma^key * (1 + a)`. The state is ClickHouse's encoding: the mapping (gamma,
//! offset), each store in the smaller of the dense and sparse bin encodings, then the
//! zero count.

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, Float64Array, ListArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Float64Type};
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{illegal_argument, read_f64, take, NativeState, Spec};
use crate::quantile::LevelsCall;
use crate::states::{get_varuint, put_varuint};

const FLAG_MAPPING: u8 = 0b10;
const FLAG_POSITIVE: u8 = 0b01;
const FLAG_NEGATIVE: u8 = 0b11;
const FLAG_ZERO_COUNT: u8 = 1 << 2;
const SPARSE: u8 = 1 << 2;
const DENSE: u8 = 3 << 2;

#[derive(Debug)]
struct DdSpec {
    call: LevelsCall,
    relative_accuracy: f64,
}

fn spec(family: &'static str, many: bool, params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let base = if many { "quantilesDD" } else { "quantileDD" };
    let Some(first) = params.first() else {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {base} requires at least one param.")));
    };
    let ScalarValue::Float64(Some(relative_accuracy)) = first else {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function {base} requires relative accuracy parameter with Float64 type.")));
    };
    if *relative_accuracy <= 0.0 || *relative_accuracy >= 1.0 {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Relative accuracy must be between 0 and 1 but is {relative_accuracy}")));
    }
    let mut call = LevelsCall::new(family, false, many, &params[1..])?;
    call.name = crate::parametric::parametric_name(family, params);
    Ok(Arc::new(DdSpec { call, relative_accuracy: *relative_accuracy }))
}

pub(crate) fn quantile_dd(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("quantileDD", false, params)
}
pub(crate) fn quantiles_dd(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("quantilesDD", true, params)
}
pub(crate) fn quantile_dd_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(quantile_dd, params)
}
pub(crate) fn quantiles_dd_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(quantiles_dd, params)
}

impl Spec for DdSpec {
    fn name(&self) -> &str {
        &self.call.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(1)
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        let numeric = matches!(
            args[0],
            ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Float32 | ChType::Float64
        );
        if !numeric {
            return Err(illegal_argument(self.call.family, &args[0]));
        }
        Ok(if self.call.many { ChType::Array(Box::new(ChType::Float64)) } else { ChType::Float64 })
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        Ok(Box::new(DdState { levels: self.call.levels.clone(), many: self.call.many, sketch: Sketch::new(self.relative_accuracy) }))
    }
}

/// `DDSketchLogarithmicMapping` (offset 0).
#[derive(Debug, Clone, Copy)]
struct Mapping {
    relative_accuracy: f64,
    gamma: f64,
    multiplier: f64,
    min_possible: f64,
    max_possible: f64,
}

impl Mapping {
    fn new(relative_accuracy: f64) -> Self {
        let gamma = (1.0 + relative_accuracy) / (1.0 - relative_accuracy);
        Mapping { relative_accuracy, gamma, multiplier: 1.0 / gamma.ln(), min_possible: f64::MIN_POSITIVE * gamma, max_possible: f64::MAX / gamma }
    }

    fn key(&self, value: f64) -> DfResult<i32> {
        if value < self.min_possible || value > self.max_possible {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Value {value} is out of range [{}, {}]", self.min_possible, self.max_possible)));
        }
        Ok((value.ln() * self.multiplier) as i32)
    }

    fn value(&self, key: i32) -> f64 {
        (f64::from(key) / self.multiplier).exp() * (1.0 + self.relative_accuracy)
    }
}

/// `DDSketchDenseStore`: bins by key, and the key range ever touched.
#[derive(Debug, Clone)]
struct Store {
    count: f64,
    min_key: i32,
    max_key: i32,
    bins: BTreeMap<i32, f64>,
}

impl Store {
    fn new() -> Self {
        Store { count: 0.0, min_key: i32::MAX, max_key: i32::MIN, bins: BTreeMap::new() }
    }

    fn add(&mut self, key: i32, weight: f64) {
        self.min_key = self.min_key.min(key);
        self.max_key = self.max_key.max(key);
        *self.bins.entry(key).or_insert(0.0) += weight;
        self.count += weight;
    }

    fn key_at_rank(&self, rank: f64, lower: bool) -> i32 {
        let mut running = 0.0;
        for (key, c) in &self.bins {
            running += c;
            if (lower && running > rank) || (!lower && running >= rank + 1.0) {
                return *key;
            }
        }
        self.max_key
    }

    fn merge(&mut self, other: &Store) {
        if other.count == 0.0 {
            return;
        }
        if self.count == 0.0 {
            *self = other.clone();
            return;
        }
        self.min_key = self.min_key.min(other.min_key);
        self.max_key = self.max_key.max(other.max_key);
        for (key, c) in &other.bins {
            *self.bins.entry(*key).or_insert(0.0) += c;
        }
        self.count += other.count;
    }

    fn write(&self, out: &mut Vec<u8>) {
        let num_bins = if self.count != 0.0 { (i64::from(self.max_key) - i64::from(self.min_key) + 1) as u64 } else { 0 };
        let non_empty: Vec<(i32, f64)> = self.bins.iter().filter(|(k, c)| **c != 0.0 && (self.min_key..=self.max_key).contains(k)).map(|(k, c)| (*k, *c)).collect();
        let sparse_overhead = 2 * non_empty.len() as u64;
        let dense_overhead = num_bins.saturating_sub(non_empty.len() as u64) * 8;
        if dense_overhead <= sparse_overhead {
            out.push(DENSE);
            put_varuint(out, num_bins);
            put_varint(out, i64::from(self.min_key));
            put_varint(out, 1);
            if num_bins > 0 {
                for key in self.min_key..=self.max_key {
                    out.extend_from_slice(&self.bins.get(&key).copied().unwrap_or(0.0).to_le_bytes());
                }
            }
        } else {
            out.push(SPARSE);
            put_varuint(out, non_empty.len() as u64);
            let mut previous = 0i64;
            for (key, c) in non_empty {
                put_varint(out, i64::from(key) - previous);
                out.extend_from_slice(&c.to_le_bytes());
                previous = i64::from(key);
            }
        }
    }

    fn read(input: &mut &[u8]) -> DfResult<Store> {
        let mut store = Store::new();
        let mode = take(input, 1)?[0];
        let n = get_varuint(input)?;
        if n.saturating_mul(8) > input.len() as u64 {
            return Err(crate::native_state::truncated());
        }
        match mode {
            DENSE => {
                let mut key = get_varint(input)? as i32;
                let delta = get_varint(input)? as i32;
                for _ in 0..n {
                    store.add(key, read_f64(input)?);
                    key = key.wrapping_add(delta);
                }
            }
            SPARSE => {
                let mut key = 0i32;
                for _ in 0..n {
                    key = key.wrapping_add(get_varint(input)? as i32);
                    store.add(key, read_f64(input)?);
                }
            }
            _ => return Err(ch_error(ErrorCode::INCORRECT_DATA, "Invalid flag for encoding mode")),
        }
        Ok(store)
    }
}

/// ClickHouse's `writeVarInt`: zigzag, then VarUInt.
fn put_varint(out: &mut Vec<u8>, v: i64) {
    put_varuint(out, ((v << 1) ^ (v >> 63)) as u64);
}

fn get_varint(input: &mut &[u8]) -> DfResult<i64> {
    let u = get_varuint(input)?;
    Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
}

#[derive(Debug, Clone)]
struct Sketch {
    mapping: Mapping,
    positive: Store,
    negative: Store,
    zero_count: f64,
    count: f64,
}

impl Sketch {
    fn new(relative_accuracy: f64) -> Self {
        Sketch { mapping: Mapping::new(relative_accuracy), positive: Store::new(), negative: Store::new(), zero_count: 0.0, count: 0.0 }
    }

    fn add(&mut self, v: f64) -> DfResult<()> {
        if v > self.mapping.min_possible {
            self.positive.add(self.mapping.key(v)?, 1.0);
        } else if v < -self.mapping.min_possible {
            self.negative.add(self.mapping.key(-v)?, 1.0);
        } else {
            self.zero_count += 1.0;
        }
        self.count += 1.0;
        Ok(())
    }

    fn get(&self, level: f64) -> f64 {
        if !(0.0..=1.0).contains(&level) || self.count == 0.0 {
            return f64::NAN;
        }
        let rank = level * (self.count - 1.0);
        if rank < self.negative.count {
            let reversed = self.negative.count - rank - 1.0;
            -self.mapping.value(self.negative.key_at_rank(reversed, false))
        } else if rank < self.zero_count + self.negative.count {
            0.0
        } else {
            self.mapping.value(self.positive.key_at_rank(rank - self.zero_count - self.negative.count, true))
        }
    }

    fn merge(&mut self, other: &Sketch) {
        if other.count == 0.0 {
            return;
        }
        if self.count == 0.0 {
            (self.positive, self.negative, self.zero_count, self.count) = (other.positive.clone(), other.negative.clone(), other.zero_count, other.count);
            return;
        }
        self.count += other.count;
        self.zero_count += other.zero_count;
        self.positive.merge(&other.positive);
        self.negative.merge(&other.negative);
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.push(FLAG_MAPPING);
        out.extend_from_slice(&self.mapping.gamma.to_le_bytes());
        out.extend_from_slice(&0f64.to_le_bytes());
        out.push(FLAG_POSITIVE);
        self.positive.write(out);
        out.push(FLAG_NEGATIVE);
        self.negative.write(out);
        out.push(FLAG_ZERO_COUNT);
        out.extend_from_slice(&self.zero_count.to_le_bytes());
    }

    /// Reads a state into a sketch with this one's mapping (states of one function type
    /// share their accuracy).
    fn read(&self, input: &mut &[u8]) -> DfResult<Sketch> {
        let flag = |input: &mut &[u8], expected: u8, what: &str| -> DfResult<()> {
            if take(input, 1)?[0] != expected {
                return Err(ch_error(ErrorCode::INCORRECT_DATA, format!("Invalid flag for {what}")));
            }
            Ok(())
        };
        flag(input, FLAG_MAPPING, "mapping")?;
        let gamma = read_f64(input)?;
        let _offset = read_f64(input)?;
        if gamma <= 1.0 {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Invalid gamma value after deserialization: {gamma}")));
        }
        flag(input, FLAG_POSITIVE, "positive store")?;
        let positive = Store::read(input)?;
        flag(input, FLAG_NEGATIVE, "negative store")?;
        let negative = Store::read(input)?;
        flag(input, FLAG_ZERO_COUNT, "zero count")?;
        let zero_count = read_f64(input)?;
        if !zero_count.is_finite() || zero_count < 0.0 {
            return Err(ch_error(ErrorCode::INCORRECT_DATA, format!("Invalid zero_count in DDSketch: {zero_count}")));
        }
        let count = negative.count + zero_count + positive.count;
        Ok(Sketch { mapping: self.mapping, positive, negative, zero_count, count })
    }
}

#[derive(Debug)]
struct DdState {
    levels: Vec<f64>,
    many: bool,
    sketch: Sketch,
}

impl NativeState for DdState {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let values = cast(&columns[0], &DataType::Float64)?;
        for v in values.as_primitive::<Float64Type>().values() {
            self.sketch.add(*v)?;
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let other = self.sketch.read(input)?;
        self.sketch.merge(&other);
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.sketch.write(out);
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let values: Vec<f64> = self.levels.iter().map(|l| self.sketch.get(*l)).collect();
        if !self.many {
            return Ok(ScalarValue::Float64(values.first().copied()));
        }
        let n = values.len();
        let list = ListArray::try_new(Arc::new(Field::new_list_field(DataType::Float64, false)), OffsetBuffer::from_lengths([n]), Arc::new(Float64Array::from(values)), None)?;
        Ok(ScalarValue::List(Arc::new(list)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + (self.sketch.positive.bins.len() + self.sketch.negative.bins.len()) * 40
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sketch_of(values: impl Iterator<Item = f64>) -> Sketch {
        let mut s = Sketch::new(0.01);
        for v in values {
            s.add(v).ok();
        }
        s
    }

    #[test]
    fn quantiles_match_clickhouse() {
        // chdb: quantilesDD(0.01, 0.1, 0.5, 0.9)(number) FROM numbers(1000).
        let s = sketch_of((0..1000).map(f64::from));
        assert_eq!(s.get(0.5), 497.7794014558156);
        assert_eq!(s.get(0.1), 98.50457626879141);
        assert_eq!(s.get(0.9), 907.0313473738103);
    }

    #[test]
    fn state_matches_clickhouse() {
        // chdb: hex(quantileDDState(0.01, 0.5)(toInt64(number) - 2)) FROM numbers(5).
        let s = sketch_of((0..5).map(|v| f64::from(v) - 2.0));
        let mut out = Vec::new();
        s.write(&mut out);
        let hex: String = out.iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(hex, "02FD4A815ABF52F03F000000000000000001040200000000000000F03F44000000000000F03F03040200000000000000F03F44000000000000F03F04000000000000F03F");
    }
}
