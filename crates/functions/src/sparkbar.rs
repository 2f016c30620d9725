//! `sparkbar(buckets[, min_x, max_x])(x, y)` (alias `sparkBar`): a bar chart of `y` over
//! `x` in Unicode block characters, ClickHouse's `AggregateFunctionSparkbar`.
//!
//! The state keeps each `x` with the sum of its positive `y`s in ClickHouse's
//! `HashMap<X, Y>` (its order is the state's), and the smallest and largest `x` and `y`.
//! Rendering spreads the x range over `buckets` buckets, averages each bucket's sums,
//! and scales the averages to eight levels, in `Y`'s own arithmetic (integer division
//! for integers, a sum that overflows saturates; Float32 rounds every step).

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::hash_set_order::{Key, KeySet, INITIAL_DEGREE};
use crate::native_state::{NativeState, Num, NumType, Spec};
use crate::parametric::parametric_name;
use crate::states::{get_varuint, put_varuint};

const BARS: [&str; 9] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];

#[derive(Debug)]
struct SparkbarSpec {
    name: String,
    width: u64,
    range: Option<(u64, u64)>,
}

fn unsigned(v: &ScalarValue) -> Option<u64> {
    match v {
        ScalarValue::UInt64(Some(n)) => Some(*n),
        ScalarValue::Int64(Some(n)) if *n >= 0 => Some(*n as u64),
        _ => None,
    }
}

pub(crate) fn sparkbar(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    if params.len() != 1 && params.len() != 3 {
        return Err(ch_error(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!("The number of params does not match for aggregate function 'sparkbar', expected 1 or 3, got {}", params.len()),
        ));
    }
    let range = match params {
        [_, lo, hi] => {
            let (Some(lo), Some(hi)) = (unsigned(lo), unsigned(hi)) else {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "The second and third parameters are not the same type as the first arguments for aggregate function sparkbar"));
            };
            Some((lo, hi))
        }
        _ => None,
    };
    let width = unsigned(&params[0]).unwrap_or(0);
    if !(2..=1024).contains(&width) {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Parameter width must be in range [2, 1024]"));
    }
    if let Some((lo, hi)) = range {
        if lo >= hi {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Parameter `min_x` must be less than `max_x`"));
        }
    }
    Ok(Arc::new(SparkbarSpec { name: parametric_name("sparkbar", params), width, range }))
}

/// The family for [`crate::parametric::FAMILIES`].
pub(crate) fn sparkbar_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(sparkbar, params)
}

/// The width of an x type ClickHouse accepts (unsigned integers, Date, DateTime).
fn x_type(t: &ChType) -> Option<NumType> {
    match t {
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Date | ChType::DateTime(_) => NumType::of(t),
        _ => None,
    }
}

fn y_type(t: &ChType) -> Option<NumType> {
    match t {
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Float32 | ChType::Float64 => {
            NumType::of(t)
        }
        _ => None,
    }
}

impl Spec for SparkbarSpec {
    fn name(&self) -> &str {
        &self.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(2)
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        if y_type(&args[1]).is_none() {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "The second argument type must be numeric for aggregate function sparkbar"));
        }
        if x_type(&args[0]).is_none() {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "The first argument type must be UInt or Date or DateTime for aggregate function sparkbar"));
        }
        Ok(ChType::String)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        let x = x_type(&args[0]).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "sparkbar x"))?;
        let y = y_type(&args[1]).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "sparkbar y"))?;
        Ok(Box::new(Sparkbar::fresh(x, y, self.width as usize, self.range)))
    }
}

fn max_of(x: NumType) -> u64 {
    match x.width() {
        8 => u64::MAX,
        w => (1u64 << (8 * w)) - 1,
    }
}

/// `numeric_limits<Y>::max()` (`max` true) or `lowest()`.
fn y_limit(y: NumType, max: bool) -> Num {
    match y {
        NumType::Float32 => Num::Float(if max { f32::MAX as f64 } else { f32::MIN as f64 }),
        NumType::Float64 => Num::Float(if max { f64::MAX } else { f64::MIN }),
        NumType::Int { width, signed } => {
            let bits = 8 * width as u32;
            let top: i128 = if signed { (1i128 << (bits - 1)) - 1 } else { (1i128 << bits) - 1 };
            Num::Int(if max {
                top
            } else if signed {
                -top - 1
            } else {
                0
            })
        }
    }
}

fn positive(v: Num) -> bool {
    match v {
        Num::Int(i) => i > 0,
        Num::Float(f) => f > 0.0,
    }
}

fn less(a: Num, b: Num) -> bool {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x < y,
        _ => a.as_f64() < b.as_f64(),
    }
}

#[derive(Debug)]
struct Sparkbar {
    x: NumType,
    y: NumType,
    width: usize,
    range: bool,
    begin: u64,
    end: u64,
    /// The points' x in the order of ClickHouse's hash map.
    order: KeySet,
    points: HashMap<u64, Num>,
    min_x: u64,
    max_x: u64,
    min_y: Num,
    max_y: Num,
}

impl Sparkbar {
    fn fresh(x: NumType, y: NumType, width: usize, range: Option<(u64, u64)>) -> Self {
        let x_max = max_of(x);
        let (begin, end) = match range {
            Some((lo, hi)) => (lo.min(x_max), hi.min(x_max)),
            None => (0, x_max),
        };
        Sparkbar {
            x,
            y,
            width,
            range: range.is_some(),
            begin,
            end,
            order: KeySet::with_degree(INITIAL_DEGREE),
            points: HashMap::new(),
            min_x: x_max,
            max_x: 0,
            min_y: y_limit(y, true),
            max_y: y_limit(y, false),
        }
    }

    fn key(&self, x: u64) -> Key {
        (x != 0).then(|| (x.to_le_bytes()[..self.x.width()].to_vec(), crate::uniq::fmix64(x)))
    }

    /// `y` added in Y: integers saturate at Y's largest value.
    fn plus(&self, a: Num, b: Num) -> Num {
        match (a, b) {
            (Num::Int(x), Num::Int(y)) => {
                let Num::Int(max) = y_limit(self.y, true) else { return a };
                Num::Int(x.saturating_add(y).min(max))
            }
            _ => self.y.wrap(Num::Float(a.as_f64() + b.as_f64())),
        }
    }

    /// `AggregateFunctionSparkbarData::insert`: the point's new sum, or zero.
    fn insert(&mut self, x: u64, y: Num) -> Num {
        if !positive(y) {
            return self.y.zero();
        }
        let sum = match self.points.get(&x) {
            Some(old) => self.plus(*old, y),
            None => {
                self.order.insert(self.key(x));
                y
            }
        };
        self.points.insert(x, sum);
        sum
    }

    fn max_y_with(&mut self, v: Num) {
        if less(self.max_y, v) {
            self.max_y = v;
        }
    }

    fn points_in_order(&self) -> Vec<(u64, Num)> {
        self.order
            .iter()
            .into_iter()
            .map(|k| {
                let x = k.map_or(0, |(bytes, _)| {
                    let mut le = [0u8; 8];
                    le[..bytes.len()].copy_from_slice(&bytes);
                    u64::from_le_bytes(le)
                });
                (x, self.points.get(&x).copied().unwrap_or(Num::Int(0)))
            })
            .collect()
    }

    fn render(&self) -> String {
        if self.points.is_empty() {
            return String::new();
        }
        let (from, to) = if self.range { (self.begin, self.end) } else { (self.min_x, self.max_x) };
        if from >= to {
            return BARS[8].to_string();
        }
        let mut histogram = vec![self.y.zero(); self.width];
        let mut counts = vec![0u64; self.width];
        let x_max = max_of(self.x);
        for (x, y) in self.points_in_order() {
            if x < from || to < x {
                continue;
            }
            let mut delta = to - from;
            if delta < x_max {
                delta += 1;
            }
            let index = ((self.width as f64 / delta as f64 * (x - from) as f64) as usize).min(self.width - 1);
            let saturated = matches!((histogram[index], y, y_limit(self.y, true)), (Num::Int(a), Num::Int(b), Num::Int(max)) if a.checked_add(b).is_none_or(|s| s > max));
            if saturated {
                histogram[index] = y_limit(self.y, true);
            } else {
                histogram[index] = self.plus(histogram[index], y);
                counts[index] += 1;
            }
        }
        for (h, &c) in histogram.iter_mut().zip(&counts) {
            if c > 0 {
                *h = match *h {
                    Num::Int(v) => Num::Int(v / c as i128),
                    Num::Float(f) => self.y.wrap(Num::Float(f / self.y.wrap(Num::Float(c as f64)).as_f64())),
                };
            }
        }
        let mut y_max = self.y.zero();
        for &y in &histogram {
            if positive(y) && less(y_max, y) {
                y_max = y;
            }
        }
        if !positive(y_max) {
            return String::new();
        }
        let mut out = String::new();
        for y in histogram {
            let level = if !positive(y) {
                0.0
            } else {
                match (y, y_max) {
                    (Num::Int(v), Num::Int(m)) => {
                        let Num::Int(max) = y_limit(self.y, true) else { return out };
                        let scaled = v.checked_mul(7).filter(|s| *s <= max);
                        match scaled {
                            Some(s) => (s / m + 1) as f64,
                            None => (v / (m / 7) + 1) as f64,
                        }
                    }
                    _ => {
                        let step = self.y.wrap(Num::Float(y_max.as_f64() / 7.0)).as_f64();
                        self.y.wrap(Num::Float(self.y.wrap(Num::Float(y.as_f64() / step)).as_f64() + 1.0)).as_f64()
                    }
                }
            };
            let bar = if level.is_nan() || level < 1.0 || level > 8.0 { BARS[0] } else { BARS[level as usize] };
            out.push_str(bar);
        }
        out
    }
}

impl NativeState for Sparkbar {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let xs = self.x.values(&columns[0])?;
        let ys = self.y.values(&columns[1])?;
        for (x, y) in xs.into_iter().zip(ys) {
            let Num::Int(x) = x else { continue };
            let x = x as u64;
            if x < self.begin || self.end < x {
                continue;
            }
            let new_y = self.insert(x, y);
            self.min_x = self.min_x.min(x);
            self.max_x = self.max_x.max(x);
            if less(y, self.min_y) {
                self.min_y = y;
            }
            self.max_y_with(new_y);
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let read_x = |input: &mut &[u8]| -> DfResult<u64> {
            match self.x.read(input)? {
                Num::Int(v) => Ok(v as u64),
                Num::Float(_) => Err(ch_error(ErrorCode::LOGICAL_ERROR, "sparkbar x is an integer")),
            }
        };
        let (min_x, max_x) = (read_x(input)?, read_x(input)?);
        let (min_y, max_y) = (self.y.read(input)?, self.y.read(input)?);
        let n = get_varuint(input)?;
        // ClickHouse reads the points into a fresh map, then merges that map in its order.
        let mut rhs = Sparkbar::fresh(self.x, self.y, self.width, None);
        for _ in 0..n {
            let x = read_x(input)?;
            let y = self.y.read(input)?;
            rhs.insert(x, y);
        }
        if rhs.points.is_empty() {
            return Ok(());
        }
        for (x, y) in rhs.points_in_order() {
            let new_y = self.insert(x, y);
            self.max_y_with(new_y);
        }
        self.min_x = self.min_x.min(min_x);
        self.max_x = self.max_x.max(max_x);
        if less(min_y, self.min_y) {
            self.min_y = min_y;
        }
        self.max_y_with(max_y);
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.x.write(Num::Int(self.min_x as i128), out);
        self.x.write(Num::Int(self.max_x as i128), out);
        self.y.write(self.min_y, out);
        self.y.write(self.max_y, out);
        put_varuint(out, self.points.len() as u64);
        for (x, y) in self.points_in_order() {
            self.x.write(Num::Int(x as i128), out);
            self.y.write(y, out);
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        Ok(ScalarValue::Utf8(Some(self.render())))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.order.memory() + self.points.len() * 48
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(width: usize) -> Sparkbar {
        let u64_type = NumType::Int { width: 8, signed: false };
        let mut s = Sparkbar::fresh(u64_type, u64_type, width, None);
        let x: ArrayRef = Arc::new(datafusion::arrow::array::UInt64Array::from_iter_values(0..10));
        let y: ArrayRef = Arc::new(datafusion::arrow::array::UInt64Array::from_iter_values((0..10).map(|v| v * v)));
        s.add(&[x, y]).ok();
        s
    }

    #[test]
    fn bars_and_state_match_clickhouse() {
        // chdb: sparkbar(9)(number, number * number) over numbers(10) and its state.
        let s = squares(9);
        assert_eq!(s.render(), "▁▁▁▂▃▄▅▆█");
        assert_eq!(
            crate::native_state::state_hex(&s),
            "000000000000000009000000000000000000000000000000510000000000000009010000000000000001000000000000000600000000000000240000000000000004000000000000001000000000000000050000000000000019000000000000000800000000000000400000000000000003000000000000000900000000000000090000000000000051000000000000000700000000000000310000000000000002000000000000000400000000000000"
        );
    }
}
