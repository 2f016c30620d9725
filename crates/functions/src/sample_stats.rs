//! Aggregates over points and samples, with ClickHouse's results and state bytes:
//! `exponentialMovingAverage(half_decay)` (ClickHouse's `ExponentiallySmoothedAverage`:
//! the smoothed sum and the time it is at), `maxIntersections` /
//! `maxIntersectionsPosition` (every interval end as a (point, +1/-1) pair, swept in
//! order at the end) and `rankCorr` (Spearman's coefficient from both samples kept
//! whole, ClickHouse's `StatisticalSample`).

use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{read_f64, take, NativeState, Num, NumType, Spec};
use crate::parametric::parametric_name;
use crate::states::{get_varuint, put_varuint};
use crate::value_stats::{floats, no_params};

/// Whether ClickHouse's `isNumber` holds: integers of every width, floats, Decimal.
pub(crate) fn is_number(t: &ChType) -> bool {
    matches!(
        t,
        ChType::UInt8
            | ChType::UInt16
            | ChType::UInt32
            | ChType::UInt64
            | ChType::UInt128
            | ChType::UInt256
            | ChType::Int8
            | ChType::Int16
            | ChType::Int32
            | ChType::Int64
            | ChType::Int128
            | ChType::Int256
            | ChType::Float32
            | ChType::Float64
            | ChType::Bool
            | ChType::Decimal(..)
    )
}

// ------------------------------------------------------------------ exponentialMovingAverage

#[derive(Debug)]
struct MovingAverageSpec {
    name: String,
    half_decay: f64,
}

pub(crate) fn exponential_moving_average(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let [param] = params else {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Aggregate function exponentialMovingAverage requires exactly one parameter: half decay time."));
    };
    let half_decay = match param {
        ScalarValue::UInt64(Some(n)) => *n as f64,
        ScalarValue::Int64(Some(n)) => *n as f64,
        ScalarValue::Float64(Some(f)) => *f,
        ScalarValue::Utf8(_) => return Err(ch_error(ErrorCode::CANNOT_CONVERT_TYPE, "Cannot convert String to double.")),
        other => return Err(ch_error(ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot convert {other} to double."))),
    };
    Ok(Arc::new(MovingAverageSpec { name: parametric_name("exponentialMovingAverage", params), half_decay }))
}

pub(crate) fn exponential_moving_average_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(exponential_moving_average, params)
}

impl Spec for MovingAverageSpec {
    fn name(&self) -> &str {
        &self.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(2)
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        if let Some(bad) = args.iter().find(|a| !is_number(a)) {
            return Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Both arguments for aggregate function exponentialMovingAverage must have numeric type, got {bad}."),
            ));
        }
        Ok(ChType::Float64)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        Ok(Box::new(SmoothedAverage { half_decay: self.half_decay, value: 0.0, time: 0.0 }))
    }
}

/// ClickHouse's `ExponentiallySmoothedAverage`: the sum of the values, each scaled by
/// 2^(-age / half_decay), at the latest time seen.
#[derive(Debug, Clone)]
struct SmoothedAverage {
    half_decay: f64,
    value: f64,
    time: f64,
}

impl SmoothedAverage {
    fn scale(&self, time_passed: f64) -> f64 {
        (-time_passed / self.half_decay).exp2()
    }

    /// ClickHouse's `merge` of two averages: the older one is scaled to the newer's time.
    fn absorb(&mut self, value: f64, time: f64) {
        if self.time > time {
            self.value += value * self.scale(self.time - time);
        } else if self.time < time {
            self.value = value + self.value * self.scale(time - self.time);
            self.time = time;
        } else {
            self.value += value;
        }
    }
}

impl NativeState for SmoothedAverage {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let values = floats(&columns[0])?;
        let times = floats(&columns[1])?;
        for (value, time) in values.into_iter().zip(times) {
            self.absorb(value, time);
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let value = read_f64(input)?;
        let time = read_f64(input)?;
        self.absorb(value, time);
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.value.to_le_bytes());
        out.extend_from_slice(&self.time.to_le_bytes());
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        // ClickHouse's `get`: the sum over the sum of the weights of a unit-spaced series.
        let sum_weights = 1.0 / (1.0 - self.scale(1.0));
        Ok(ScalarValue::Float64(Some(self.value / sum_weights)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

// ------------------------------------------------------------------ maxIntersections

/// ClickHouse's `AGGREGATE_FUNCTION_MAX_INTERSECTIONS_MAX_ARRAY_SIZE`.
const MAX_INTERSECTIONS_SIZE: u64 = 0xFF_FFFF;

#[derive(Debug)]
struct IntersectionsSpec {
    name: &'static str,
    /// `maxIntersectionsPosition`: the point where the maximum is first reached.
    position: bool,
}

pub(crate) fn max_intersections(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params("maxIntersections", params)?;
    Ok(Arc::new(IntersectionsSpec { name: "maxIntersections", position: false }))
}

pub(crate) fn max_intersections_position(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params("maxIntersectionsPosition", params)?;
    Ok(Arc::new(IntersectionsSpec { name: "maxIntersectionsPosition", position: true }))
}

impl Spec for IntersectionsSpec {
    fn name(&self) -> &str {
        self.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(2)
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        self.checked(args, false)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        let result = self.checked(args, true)?;
        let point = NumType::of(&args[0]).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "maxIntersections points are numbers"))?;
        Ok(Box::new(Intersections { point, result, position: self.position, events: Vec::new() }))
    }
}

impl IntersectionsSpec {
    /// The result type, checking the arguments. Until the plan's integer literals are
    /// narrowed (`number + 1` is Int64 at first, UInt64 to ClickHouse), Int64 stands
    /// for any integer type; the final types are checked when the state is made.
    fn checked(&self, args: &[ChType], final_types: bool) -> DfResult<ChType> {
        let [left, right] = args else { return Err(ch_error(ErrorCode::LOGICAL_ERROR, "maxIntersections takes two arguments")) };
        // ClickHouse first picks its template by the first type's number type (Enum and
        // wide integers included), then wants plain numbers of one type.
        let dispatchable = NumType::of(left).is_some() && !matches!(left, ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..))
            || matches!(left, ChType::Enum8(_) | ChType::Enum16(_) | ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256);
        if !dispatchable {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal types {left} and {right} of argument for aggregate function {}", self.name)));
        }
        let native = |t: &ChType| NumType::of(t).is_some() && !matches!(t, ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..));
        for (t, which) in [(left, "first"), (right, "second")] {
            if !native(t) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{}: {which} argument must be represented by integer", self.name)));
            }
        }
        let maybe_narrowed = !final_types && (left == &ChType::Int64 || right == &ChType::Int64);
        if left != right && !maybe_narrowed {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{}: arguments must have the same type", self.name)));
        }
        Ok(if self.position { left.clone() } else { ChType::UInt64 })
    }
}

/// Every interval's ends as (point, +1) and (point, -1), in the order they came.
#[derive(Debug, Clone)]
struct Intersections {
    point: NumType,
    result: ChType,
    position: bool,
    events: Vec<(Num, i64)>,
}

impl NativeState for Intersections {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let lefts = self.point.values(&columns[0])?;
        let rights = self.point.values(&columns[1])?;
        let is_nan = |v: &Num| matches!(v, Num::Float(f) if f.is_nan());
        for (left, right) in lefts.into_iter().zip(rights) {
            let (left, right) = (self.point.wrap(left), self.point.wrap(right));
            if !is_nan(&left) {
                self.events.push((left, 1));
            }
            if !is_nan(&right) {
                self.events.push((right, -1));
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let n = get_varuint(input)?;
        if n > MAX_INTERSECTIONS_SIZE {
            return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, "Too large array size"));
        }
        // Each pair is laid out as in memory: the point padded to 8 bytes, the weight.
        let width = self.point.width();
        if (n as usize).saturating_mul(16) > input.len() {
            return Err(crate::native_state::truncated());
        }
        for _ in 0..n {
            let point = self.point.read(input)?;
            take(input, 8 - width)?;
            let weight = i64::from_le_bytes(take(input, 8)?.try_into().map_err(|_| crate::native_state::truncated())?);
            self.events.push((point, weight));
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        put_varuint(out, self.events.len() as u64);
        let padding = 8 - self.point.width();
        for (point, weight) in &self.events {
            self.point.write(*point, out);
            out.extend(std::iter::repeat_n(0, padding));
            out.extend_from_slice(&weight.to_le_bytes());
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let mut events = self.events.clone();
        // By point, then by weight (ends before starts at one point), as `std::pair`'s `<`.
        events.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        let mut current = 0i64;
        let mut max = 0i64;
        let mut position = self.point.zero();
        for (point, weight) in events {
            current += weight;
            if current > max {
                max = current;
                position = point;
            }
        }
        if self.position {
            self.point.scalar(position, &self.result.to_arrow())
        } else {
            Ok(ScalarValue::UInt64(Some(max as u64)))
        }
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.events.capacity() * std::mem::size_of::<(Num, i64)>()
    }
}

// ------------------------------------------------------------------ rankCorr

#[derive(Debug)]
struct RankCorrSpec;

pub(crate) fn rank_corr(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params("rankCorr", params)?;
    Ok(Arc::new(RankCorrSpec))
}

impl Spec for RankCorrSpec {
    fn name(&self) -> &str {
        "rankCorr"
    }
    fn arity(&self) -> Arity {
        Arity::exact(2)
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        if !args.iter().all(is_number) {
            return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "Aggregate function rankCorr only supports numerical types"));
        }
        Ok(ChType::Float64)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        Ok(Box::new(Sample::default()))
    }
}

/// ClickHouse's `StatisticalSample<Float64, Float64>`: both samples in the order they came.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sample {
    pub(crate) x: Vec<f64>,
    pub(crate) y: Vec<f64>,
}

impl Sample {
    /// Adds the rows; a NaN is left out of its own sample only, as ClickHouse does.
    pub(crate) fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        self.x.extend(floats(&columns[0])?.into_iter().filter(|v| !v.is_nan()));
        self.y.extend(floats(&columns[1])?.into_iter().filter(|v| !v.is_nan()));
        Ok(())
    }

    pub(crate) fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let size_x = get_varuint(input)? as usize;
        let size_y = get_varuint(input)? as usize;
        if size_x.saturating_add(size_y).saturating_mul(8) > input.len() {
            return Err(crate::native_state::truncated());
        }
        for _ in 0..size_x {
            self.x.push(read_f64(input)?);
        }
        for _ in 0..size_y {
            self.y.push(read_f64(input)?);
        }
        Ok(())
    }

    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        put_varuint(out, self.x.len() as u64);
        put_varuint(out, self.y.len() as u64);
        for v in self.x.iter().chain(&self.y) {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

/// The rank of each value (ties share their mean rank, counting from 1), and the tie
/// correction 1 - sum(t^3 - t) / (n^3 - n), as ClickHouse's `computeRanksAndTieCorrection`.
pub(crate) fn ranks_and_tie_correction(values: &[f64]) -> (Vec<f64>, f64) {
    let size = values.len();
    let mut indexes: Vec<usize> = (0..size).collect();
    indexes.sort_by(|a, b| values[*a].partial_cmp(&values[*b]).unwrap_or(std::cmp::Ordering::Equal));
    let mut ranks = vec![0.0; size];
    let mut tie_numerator = 0.0;
    let mut left = 0;
    while left < size {
        let mut right = left;
        while right < size && values[indexes[left]] == values[indexes[right]] {
            right += 1;
        }
        // A NaN read from a state equals nothing, not even itself: it is a run of one.
        right = right.max(left + 1);
        let adjusted = (left + right + 1) as f64 / 2.0;
        let count = (right - left) as f64;
        tie_numerator += count.powi(3) - count;
        for index in &indexes[left..right] {
            ranks[*index] = adjusted;
        }
        left = right;
    }
    let n = size as f64;
    (ranks, 1.0 - tie_numerator / (n.powi(3) - n))
}

impl NativeState for Sample {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        Sample::add(self, columns)
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        Sample::merge(self, input)
    }
    fn write(&self, out: &mut Vec<u8>) {
        Sample::write(self, out)
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let (ranks_x, _) = ranks_and_tie_correction(&self.x);
        let (ranks_y, _) = ranks_and_tie_correction(&self.y);
        let size = self.x.len().min(self.y.len());
        let mut answer = 0.0;
        for j in 0..size {
            let d = ranks_x[j] - ranks_y[j];
            answer += d * d;
        }
        let n = size as f64;
        answer *= 6.0;
        answer /= n * (n * n - 1.0);
        Ok(ScalarValue::Float64(Some(1.0 - answer)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + (self.x.capacity() + self.y.capacity()) * 8
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Float64Array, UInt64Array, UInt8Array};

    use crate::native_state::state_hex as hex;

    /// chdb: `exponentialMovingAverage(5)(number, number)` over `numbers(10)`.
    #[test]
    fn moving_average_state_and_result() {
        let spec = exponential_moving_average(&[ScalarValue::UInt64(Some(5))]).unwrap();
        let mut state = spec.new_state(&[ChType::UInt64, ChType::UInt64]).unwrap();
        let column: ArrayRef = Arc::new(UInt64Array::from_iter_values(0..10));
        state.add(&[Arc::clone(&column), column]).unwrap();
        assert_eq!(hex(state.as_ref()), "B065FA97223F40400000000000002240");
        assert_eq!(state.finish().unwrap(), ScalarValue::Float64(Some(4.206232030845569)));
    }

    /// chdb: `maxIntersectionsState(a, b)` over UInt8 (1, 5), (2, 6): points padded to 8 bytes.
    #[test]
    fn intersections_state_pads_points() {
        let spec = max_intersections(&[]).unwrap();
        let mut state = spec.new_state(&[ChType::UInt8, ChType::UInt8]).unwrap();
        state.add(&[Arc::new(UInt8Array::from(vec![1, 2])) as ArrayRef, Arc::new(UInt8Array::from(vec![5, 6])) as ArrayRef]).unwrap();
        assert_eq!(
            hex(state.as_ref()),
            "04010000000000000001000000000000000500000000000000FFFFFFFFFFFFFFFF020000000000000001000000000000000600000000000000FFFFFFFFFFFFFFFF"
        );
        assert_eq!(state.finish().unwrap(), ScalarValue::UInt64(Some(2)));
    }

    /// chdb: `rankCorr(a, b)` over (1, 2), (2, 3), (3, 1), (4, 4) is 0.4; ties share ranks.
    #[test]
    fn rank_correlation_with_ties() {
        let mut sample = Sample::default();
        sample.add(&[Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0, 4.0])) as ArrayRef, Arc::new(Float64Array::from(vec![2.0, 3.0, 1.0, 4.0])) as ArrayRef]).unwrap();
        assert_eq!(NativeState::finish(&sample).unwrap(), ScalarValue::Float64(Some(0.4)));
        assert_eq!(ranks_and_tie_correction(&[1.0, 1.0, 3.0]).0, vec![1.5, 1.5, 3.0]);
    }
}
