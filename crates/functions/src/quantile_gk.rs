//! `quantileGK(accuracy, level)(x)` / `quantilesGK(accuracy, level, ...)(x)` (and
//! `medianGK`): ClickHouse's Greenwald-Khanna summary (`GKSampler`), step by step, so
//! the values equal ClickHouse's.
//!
//! Values go to a head buffer of 50000; a full buffer is sorted and merged into the
//! samples (each new sample `(value, g = 1, delta = floor(2 eps n))`, no delta for the
//! first and the last), and the samples are compressed once there are 10000. A query
//! or a state compresses first: the head is merged in, then neighbouring samples are
//! folded while `g + g' + delta' < 2 eps n`. Levels are answered in ascending order,
//! each search starting where the previous one stopped. The state is ClickHouse's:
//! compress threshold, relative error (1 / accuracy), count, then the samples (value at
//! the argument's width, g, delta).

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, ListArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::Field;
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{illegal_argument, read_f64, read_u64, NativeState, Num, NumType, Spec};
use crate::quantile::LevelsCall;

const COMPRESS_THRESHOLD: u64 = 10_000;
const HEAD_SIZE: usize = 50_000;

#[derive(Debug)]
struct GkSpec {
    call: LevelsCall,
    accuracy: u64,
}

fn spec(family: &'static str, many: bool, params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let base = if many { "quantilesGK" } else { "quantileGK" };
    let Some(first) = params.first() else {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {base} requires at least one param.")));
    };
    let accuracy = match first {
        ScalarValue::UInt64(Some(n)) => *n as i128,
        ScalarValue::Int64(Some(n)) => *n as i128,
        _ => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function {base} requires accuracy parameter with integer type."))),
    };
    if accuracy <= 0 {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Aggregate function {base} requires accuracy parameter with positive value but is {accuracy}.")));
    }
    let mut call = LevelsCall::new(family, false, many, &params[1..])?;
    call.name = crate::parametric::parametric_name(family, params);
    Ok(Arc::new(GkSpec { call, accuracy: accuracy as u64 }))
}

pub(crate) fn quantile_gk(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("quantileGK", false, params)
}
pub(crate) fn quantiles_gk(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("quantilesGK", true, params)
}
pub(crate) fn quantile_gk_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(quantile_gk, params)
}
pub(crate) fn quantiles_gk_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(quantiles_gk, params)
}

impl Spec for GkSpec {
    fn name(&self) -> &str {
        &self.call.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(1)
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        if NumType::of(&args[0]).is_none() || matches!(args[0], ChType::Bool) {
            return Err(illegal_argument(self.call.family, &args[0]));
        }
        Ok(if self.call.many { ChType::Array(Box::new(args[0].clone())) } else { args[0].clone() })
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        let ty = NumType::of(&args[0]).ok_or_else(|| illegal_argument(self.call.family, &args[0]))?;
        Ok(Box::new(GkState {
            ty,
            item: args[0].clone(),
            levels: self.call.levels.clone(),
            many: self.call.many,
            sampler: Sampler::new(1.0 / self.accuracy as f64),
        }))
    }
}

#[derive(Debug, Clone, Copy)]
struct Stats {
    value: Num,
    g: i64,
    delta: i64,
}

fn lt(a: Num, b: Num) -> bool {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x < y,
        _ => a.as_f64() < b.as_f64(),
    }
}

/// ClickHouse's `GKSampler`.
#[derive(Debug, Clone)]
struct Sampler {
    relative_error: f64,
    compress_threshold: u64,
    count: u64,
    compressed: bool,
    sampled: Vec<Stats>,
    head: Vec<Num>,
}

impl Sampler {
    fn new(relative_error: f64) -> Self {
        Sampler { relative_error, compress_threshold: COMPRESS_THRESHOLD, count: 0, compressed: false, sampled: Vec::new(), head: Vec::new() }
    }

    fn insert(&mut self, x: Num) {
        self.head.push(x);
        self.compressed = false;
        if self.head.len() >= HEAD_SIZE {
            self.with_head_inserted();
            if self.sampled.len() as u64 >= self.compress_threshold {
                self.compress();
            }
        }
    }

    fn with_head_inserted(&mut self) {
        if self.head.is_empty() {
            return;
        }
        let mut head = std::mem::take(&mut self.head);
        head.sort_by(|a, b| if lt(*a, *b) { std::cmp::Ordering::Less } else if lt(*b, *a) { std::cmp::Ordering::Greater } else { std::cmp::Ordering::Equal });
        let mut merged = Vec::with_capacity(self.sampled.len() + head.len());
        let mut sample_idx = 0;
        let mut current_count = self.count;
        for (ops_idx, &current) in head.iter().enumerate() {
            while sample_idx < self.sampled.len() && !lt(current, self.sampled[sample_idx].value) {
                merged.push(self.sampled[sample_idx]);
                sample_idx += 1;
            }
            current_count += 1;
            let delta = if merged.is_empty() || (sample_idx == self.sampled.len() && ops_idx == head.len() - 1) {
                0
            } else {
                (2.0 * self.relative_error * current_count as f64).floor() as i64
            };
            merged.push(Stats { value: current, g: 1, delta });
        }
        merged.extend_from_slice(&self.sampled[sample_idx..]);
        self.sampled = merged;
        self.count = current_count;
    }

    fn compress(&mut self) {
        if self.compressed {
            return;
        }
        self.with_head_inserted();
        self.do_compress(2.0 * self.relative_error * self.count as f64);
        self.compressed = true;
    }

    fn do_compress(&mut self, merge_threshold: f64) {
        let Some(&last) = self.sampled.last() else { return };
        let mut out = Vec::with_capacity(self.sampled.len());
        let mut head = last;
        let mut i = self.sampled.len() as isize - 2;
        while i >= 1 {
            let sample = self.sampled[i as usize];
            if ((sample.g + head.g + head.delta) as f64) < merge_threshold {
                head.g += sample.g;
            } else {
                out.push(head);
                head = sample;
            }
            i -= 1;
        }
        out.push(head);
        let first = self.sampled[0];
        if !lt(head.value, first.value) && self.sampled.len() > 1 {
            out.push(first);
        }
        out.reverse();
        self.sampled = out;
    }

    fn merge(&mut self, other: &Sampler) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            self.compress_threshold = other.compress_threshold;
            self.relative_error = other.relative_error;
            self.count = other.count;
            self.compressed = other.compressed;
            self.sampled = other.sampled.clone();
            return;
        }
        self.compress();
        let mut merged = Vec::with_capacity(self.sampled.len() + other.sampled.len());
        let merged_error = self.relative_error.max(other.relative_error);
        let merged_count = self.count + other.count;
        let additional_self = (2.0 * other.relative_error * other.count as f64).floor() as i64;
        let additional_other = (2.0 * self.relative_error * self.count as f64).floor() as i64;
        let (mut s, mut o) = (0, 0);
        while s < self.sampled.len() && o < other.sampled.len() {
            let (mut next, extra) = if lt(self.sampled[s].value, other.sampled[o].value) {
                s += 1;
                (self.sampled[s - 1], if o > 0 { additional_self } else { 0 })
            } else {
                o += 1;
                (other.sampled[o - 1], if s > 0 { additional_other } else { 0 })
            };
            next.delta += extra;
            merged.push(next);
        }
        merged.extend_from_slice(&self.sampled[s..]);
        merged.extend_from_slice(&other.sampled[o..]);
        self.sampled = merged;
        self.relative_error = merged_error;
        self.count = merged_count;
        self.compress_threshold = other.compress_threshold;
        self.do_compress(2.0 * merged_error * merged_count as f64);
        self.compressed = true;
    }

    /// The values of `levels` (compressed summary), searched in ascending level order.
    fn query(&self, levels: &[f64], zero: Num) -> Vec<Num> {
        let mut result = vec![zero; levels.len()];
        if self.sampled.is_empty() {
            return result;
        }
        let current_max = self.sampled.iter().map(|s| s.delta + s.g).max().unwrap_or(i64::MIN);
        let target_error = (current_max / 2) as f64;
        let mut order: Vec<usize> = (0..levels.len()).collect();
        order.sort_by(|a, b| levels[*a].partial_cmp(&levels[*b]).unwrap_or(std::cmp::Ordering::Equal));
        let (mut index, mut min_rank) = (0usize, self.sampled[0].g);
        for i in order {
            let level = levels[i];
            result[i] = if level <= self.relative_error {
                self.sampled[0].value
            } else if level >= 1.0 - self.relative_error {
                self.sampled[self.sampled.len() - 1].value
            } else {
                let (at, rank, value) = self.find(index, min_rank, target_error, level);
                (index, min_rank) = (at, rank);
                value
            };
        }
        result
    }

    /// `findApproxQuantile`.
    fn find(&self, index: usize, min_rank_at_index: i64, target_error: f64, level: f64) -> (usize, i64, Num) {
        let mut current = self.sampled[index];
        let rank = (level * self.count as f64).ceil() as i64;
        let mut i = index;
        let mut min_rank = min_rank_at_index;
        while i + 1 < self.sampled.len() {
            let max_rank = min_rank + current.delta;
            if (max_rank as f64) - target_error <= rank as f64 && rank as f64 <= min_rank as f64 + target_error {
                return (i, min_rank, current.value);
            }
            i += 1;
            current = self.sampled[i];
            min_rank += current.g;
        }
        (self.sampled.len() - 1, 0, self.sampled[self.sampled.len() - 1].value)
    }

    fn write(&self, ty: NumType, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.compress_threshold.to_le_bytes());
        out.extend_from_slice(&self.relative_error.to_le_bytes());
        out.extend_from_slice(&self.count.to_le_bytes());
        out.extend_from_slice(&(self.sampled.len() as u64).to_le_bytes());
        for s in &self.sampled {
            ty.write(s.value, out);
            out.extend_from_slice(&s.g.to_le_bytes());
            out.extend_from_slice(&s.delta.to_le_bytes());
        }
    }

    fn read(ty: NumType, input: &mut &[u8]) -> DfResult<Sampler> {
        let compress_threshold = read_u64(input)?;
        let relative_error = read_f64(input)?;
        let count = read_u64(input)?;
        let n = read_u64(input)?;
        if n.saturating_mul(16 + ty.width() as u64) > input.len() as u64 {
            return Err(crate::native_state::truncated());
        }
        let mut sampled = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let value = ty.read(input)?;
            let g = read_u64(input)? as i64;
            let delta = read_u64(input)? as i64;
            sampled.push(Stats { value, g, delta });
        }
        Ok(Sampler { relative_error, compress_threshold, count, compressed: true, sampled, head: Vec::new() })
    }
}

#[derive(Debug)]
struct GkState {
    ty: NumType,
    item: ChType,
    levels: Vec<f64>,
    many: bool,
    sampler: Sampler,
}

impl GkState {
    fn compressed(&self) -> Sampler {
        let mut s = self.sampler.clone();
        s.compress();
        s
    }
}

impl NativeState for GkState {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        for v in self.ty.values(&columns[0])? {
            self.sampler.insert(v);
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let other = Sampler::read(self.ty, input)?;
        self.sampler.compress();
        self.sampler.merge(&other);
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.compressed().write(self.ty, out);
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let dt = self.item.to_arrow();
        let values = self.compressed().query(&self.levels, self.ty.zero());
        let scalars = values.into_iter().map(|v| self.ty.scalar(v, &dt)).collect::<DfResult<Vec<_>>>()?;
        if !self.many {
            return scalars.into_iter().next().ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "quantileGK has a level"));
        }
        let array = ScalarValue::iter_to_array(scalars)?;
        let list = ListArray::try_new(Arc::new(Field::new_list_field(dt, false)), OffsetBuffer::from_lengths([array.len()]), array, None)?;
        Ok(ScalarValue::List(Arc::new(list)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + (self.sampler.sampled.capacity() + self.sampler.head.capacity()) * 32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sampler_of(n: u64, accuracy: f64) -> Sampler {
        let mut s = Sampler::new(1.0 / accuracy);
        for v in 0..n {
            s.insert(Num::Int(v as i128));
        }
        s.compress();
        s
    }

    #[test]
    fn quantiles_match_clickhouse() {
        // chdb: quantilesGK(100, 0.1, 0.5, 0.9)(number) FROM numbers(1000) = [92,497,890].
        let s = sampler_of(1000, 100.0);
        assert_eq!(s.query(&[0.1, 0.5, 0.9], Num::Int(0)), vec![Num::Int(92), Num::Int(497), Num::Int(890)]);
        // chdb: quantilesGK(10, 0.9, 0.1, 0.5)(number) FROM numbers(1000) = [999,0,412].
        let s = sampler_of(1000, 10.0);
        assert_eq!(s.query(&[0.9, 0.1, 0.5], Num::Int(0)), vec![Num::Int(999), Num::Int(0), Num::Int(412)]);
    }

    #[test]
    fn state_matches_clickhouse() {
        // chdb: hex(quantileGKState(100, 0.5)(number)) FROM numbers(5).
        let s = sampler_of(5, 100.0);
        let mut out = Vec::new();
        s.write(NumType::Int { width: 8, signed: false }, &mut out);
        let hex: String = out.iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(
            hex,
            "10270000000000007B14AE47E17A843F05000000000000000500000000000000000000000000000001000000000000000000000000000000010000000000000001000000000000000000000000000000020000000000000001000000000000000000000000000000030000000000000001000000000000000000000000000000040000000000000001000000000000000000000000000000"
        );
    }
}
