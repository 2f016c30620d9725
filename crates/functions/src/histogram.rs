//! `histogram(bins)`: ClickHouse's adaptive histogram (Ben-Haim and Tom-Tov's streaming
//! algorithm) with its results and state bytes.
//!
//! Values go into a buffer of up to `2 * bins` (mean, weight) points; when it fills, the
//! closest neighbours are fused until `bins` remain. Which pair is fused first decides the
//! result, so the fusing repeats ClickHouse's: a min-queue of (distance, left index)
//! over a linked list of live points, stale entries skipped when popped. The state is the
//! seen bounds and the points as they lie in the buffer.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float64Array, StructArray};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::group_arrays::list_of;
use crate::native_state::{illegal_argument, read_f64, NativeState, NullHandling, Spec};
use crate::parametric::parametric_name;
use crate::sample_stats::is_number;
use crate::states::{get_varuint, put_varuint};
use crate::value_stats::floats;

/// ClickHouse's `bins_count_limit`.
const MAX_BINS: u64 = 250;

#[derive(Debug)]
struct HistogramSpec {
    name: String,
    bins: u32,
}

pub(crate) fn histogram(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let [param] = params else {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Function histogram requires single parameter: bins count"));
    };
    let ScalarValue::UInt64(Some(bins)) = param else {
        return Err(ch_error(ErrorCode::UNSUPPORTED_PARAMETER, "Invalid type for bins count"));
    };
    if *bins > MAX_BINS {
        return Err(ch_error(ErrorCode::PARAMETER_OUT_OF_BOUND, format!("Unsupported bins count. Should not be greater than {MAX_BINS}")));
    }
    if *bins == 0 {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Bin count should be positive"));
    }
    Ok(Arc::new(HistogramSpec { name: parametric_name("histogram", params), bins: *bins as u32 }))
}

pub(crate) fn histogram_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(histogram, params)
}

fn bin_type() -> ChType {
    ChType::Tuple(["1", "2", "3"].iter().map(|n| (n.to_string(), ChType::Float64)).collect())
}

impl Spec for HistogramSpec {
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
        let arg = &args[0];
        // ClickHouse picks its template by the number type: Decimal has none here.
        let numeric = is_number(arg) && !matches!(arg, ChType::Decimal(..));
        if !numeric {
            return Err(illegal_argument("histogram", arg));
        }
        Ok(ChType::Array(Box::new(bin_type())))
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        Ok(Box::new(Histogram::new(self.bins)))
    }
}

/// ClickHouse's `AggregateFunctionHistogramData`.
#[derive(Debug, Clone)]
struct Histogram {
    bins: u32,
    /// (mean, weight) of each point, in buffer order.
    points: Vec<(f64, f64)>,
    lower: f64,
    upper: f64,
    /// How many points at the start are known to be sorted.
    sorted_prefix: usize,
    last_inserted: f64,
}

/// ClickHouse's `WeightedValue::operator+`: the weighted mean and the summed weight.
fn fuse(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 + b.1 * (b.0 - a.0) / (b.1 + a.1), b.1 + a.1)
}

impl Histogram {
    fn new(bins: u32) -> Self {
        Histogram { bins, points: Vec::new(), lower: f64::MAX, upper: f64::MIN, sorted_prefix: 0, last_inserted: f64::MIN }
    }

    fn add(&mut self, value: f64, weight: f64) -> DfResult<()> {
        if !value.is_finite() {
            return Err(ch_error(ErrorCode::INCORRECT_DATA, "Invalid value (inf or nan) for aggregation by 'histogram' function"));
        }
        self.points.push((value, weight));
        if self.sorted_prefix == self.points.len() - 1 && self.last_inserted <= value {
            self.sorted_prefix += 1;
        }
        self.last_inserted = value;
        self.lower = self.lower.min(value);
        self.upper = self.upper.max(value);
        if self.points.len() >= self.bins as usize * 2 {
            self.compress();
        }
        Ok(())
    }

    /// Sorts the points and fuses the closest neighbours until `bins` are left.
    fn compress(&mut self) {
        // A stable sort keeps equal means in the order ClickHouse's sort-then-merge of
        // the unsorted tail leaves them.
        self.points.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        let size = self.points.len();
        self.sorted_prefix = size;
        self.last_inserted = self.points.last().map_or(f64::MIN, |p| p.0);
        let bins = self.bins as usize;
        if size <= bins {
            return;
        }
        // A doubly linked ring over the points, with `size` as the (inactive) sentinel.
        let mut previous: Vec<usize> = (0..=size).map(|i| i.wrapping_sub(1)).collect();
        let mut next: Vec<usize> = (1..=size + 1).collect();
        let mut active = vec![true; size + 1];
        active[size] = false;
        next[size] = 0;
        previous[0] = size;
        let points = &mut self.points;
        let quality = |points: &[(f64, f64)], next: &[usize], i: usize| points[next[i]].0 - points[i].0;
        // Distances are never negative (sorted means), so their bits order as they do;
        // `+ 0.0` turns a -0 into 0.
        let key = |q: f64| (q + 0.0).to_bits();
        let mut queue: BinaryHeap<Reverse<(u64, usize)>> = (0..size - 1).map(|i| Reverse((key(quality(points, &next, i)), i))).collect();
        let mut new_size = size;
        while new_size > bins {
            let Some(Reverse((distance, left))) = queue.pop() else { break };
            let right = next[left];
            if !active[left] || !active[right] || key(quality(points, &next, left)) > distance {
                continue;
            }
            points[left] = fuse(points[left], points[right]);
            previous[next[right]] = previous[right];
            next[previous[right]] = next[right];
            active[right] = false;
            if active[next[left]] {
                queue.push(Reverse((key(quality(points, &next, left)), left)));
            }
            if active[previous[left]] {
                let before = previous[left];
                queue.push(Reverse((key(quality(points, &next, before)), before)));
            }
            new_size -= 1;
        }
        let mut kept = 0;
        for i in 0..size {
            if active[i] {
                points[kept] = points[i];
                kept += 1;
            }
        }
        points.truncate(new_size);
        self.sorted_prefix = new_size;
        self.last_inserted = self.points.last().map_or(f64::MIN, |p| p.0);
    }

    /// Fuses sorted neighbours whose means differ only in the last digits.
    fn unique(&mut self) {
        if self.points.is_empty() {
            return;
        }
        let mut left = 0;
        for right in 1..self.points.len() {
            let min_diff = 10.0 * (self.points[left].0 + self.points[right].0) * f64::EPSILON;
            if self.points[left].0 + min_diff.abs() >= self.points[right].0 {
                self.points[left] = fuse(self.points[left], self.points[right]);
            } else {
                left += 1;
                self.points[left] = self.points[right];
            }
        }
        self.points.truncate(left + 1);
    }
}

impl NativeState for Histogram {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        for value in floats(&columns[0])? {
            Histogram::add(self, value, 1.0)?;
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let lower = read_f64(input)?;
        let upper = read_f64(input)?;
        let size = get_varuint(input)?;
        if size > 2 * self.bins as u64 {
            return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, "Too many bins"));
        }
        self.lower = self.lower.min(lower);
        self.upper = self.upper.max(upper);
        for _ in 0..size {
            let mean = read_f64(input)?;
            let weight = read_f64(input)?;
            Histogram::add(self, mean, weight)?;
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.lower.to_le_bytes());
        out.extend_from_slice(&self.upper.to_le_bytes());
        put_varuint(out, self.points.len() as u64);
        for (mean, weight) in &self.points {
            out.extend_from_slice(&mean.to_le_bytes());
            out.extend_from_slice(&weight.to_le_bytes());
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let mut h = self.clone();
        h.compress();
        h.unique();
        let p = &h.points;
        let n = p.len();
        let mut lows = Vec::with_capacity(n);
        let mut highs = Vec::with_capacity(n);
        let mut weights = Vec::with_capacity(n);
        for i in 0..n {
            lows.push(if i == 0 { h.lower } else { (p[i].0 + p[i - 1].0) / 2.0 });
            highs.push(if i + 1 == n { h.upper } else { (p[i].0 + p[i + 1].0) / 2.0 });
            // Linear density approximation, as ClickHouse.
            let lower_weight = if i == 0 { p[i].1 } else { (p[i - 1].1 + p[i].1 * 3.0) / 4.0 };
            let upper_weight = if i + 1 == n { p[i].1 } else { (p[i + 1].1 + p[i].1 * 3.0) / 4.0 };
            weights.push((lower_weight + upper_weight) / 2.0);
        }
        let fields: Fields = ["1", "2", "3"].iter().map(|name| Arc::new(Field::new(*name, DataType::Float64, false))).collect::<Vec<_>>().into();
        let columns: Vec<ArrayRef> = vec![Arc::new(Float64Array::from(lows)), Arc::new(Float64Array::from(highs)), Arc::new(Float64Array::from(weights))];
        let bins = StructArray::try_new(fields, columns, None)?;
        list_of(Arc::new(bins), &bin_type())
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.points.capacity() * 16
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use datafusion::arrow::array::UInt64Array;

    use crate::native_state::state_hex as hex;

    /// chdb: `histogramState(3)(number)` over `numbers(10)`, and its result
    /// [(0,3,3.75),(3,6,2.5),(6,9,3.75)].
    #[test]
    fn fuses_closest_points_as_clickhouse() {
        let spec = histogram(&[ScalarValue::UInt64(Some(3))]).unwrap();
        let mut state = spec.new_state(&[ChType::UInt64]).unwrap();
        state.add(&[Arc::new(UInt64Array::from_iter_values(0..10)) as ArrayRef]).unwrap();
        assert_eq!(
            hex(state.as_ref()),
            "0000000000000000000000000000224004000000000000F83F0000000000001040000000000000124000000000000000400000000000001C4000000000000008400000000000002240000000000000F03F"
        );
        let mut empty = Vec::new();
        spec.new_state(&[ChType::UInt64]).unwrap().write(&mut empty);
        assert_eq!(empty.len(), 17);
    }
}
