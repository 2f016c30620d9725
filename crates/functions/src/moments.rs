//! Second-moment statistics with ClickHouse's algorithms, results and state bytes:
//! `varPop`, `varSamp`, `stddevPop`, `stddevSamp`, `covarPop`, `covarSamp`, `corr`
//! and their `...Stable` variants; `skewPop`, `skewSamp`, `kurtPop`, `kurtSamp` (third
//! and fourth central moments over the variance, from Σx³ and Σx⁴ as well).
//!
//! * The plain functions keep running power sums (ClickHouse's `VarMoments`,
//!   `CovarMoments`, `CorrMoments`): count, Σx, Σx² (var); count, Σx, Σy, Σxy (covar);
//!   count, Σx, Σy, Σxy, Σx², Σy² (corr), added row by row in input order, so the
//!   rounding is ClickHouse's. They compute in Float32 (and return Float32) when every
//!   argument is Float32, as ClickHouse does; otherwise in Float64. The state is the
//!   sums as raw floats (count included, as a float). Too few rows give nan.
//! * The `Stable` ones use Welford's update and Chan's merge (ClickHouse's
//!   `AggregateFunctionStatistics.cpp`), always Float64; the state is a VarUInt count,
//!   then the means and co-moments as Float64. Too few rows give inf (ClickHouse's choice).
//!
//! Rows with a NULL argument are skipped; over a `Nullable` argument the result is
//! `Nullable` and NULL when no row was left (ClickHouse's -Null combinator). The
//! accumulator's state is one `Binary` value holding ClickHouse's bytes, which
//! [`crate::states`] writes as they are.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float64Type};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, is_decimal, is_float, is_integer, Arity, DfResult};
use crate::func::{ch_type_of_field, is_nullable_field, result_field};

/// Which statistic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Stat {
    VarPop,
    VarSamp,
    StddevPop,
    StddevSamp,
    CovarPop,
    CovarSamp,
    Corr,
    SkewPop,
    SkewSamp,
    KurtPop,
    KurtSamp,
}

impl Stat {
    fn binary(self) -> bool {
        matches!(self, Stat::CovarPop | Stat::CovarSamp | Stat::Corr)
    }

    /// The plain functions' running sums after the count: Σx, Σx², Σx³ (skew), Σx⁴ (kurt)
    /// for one argument, ClickHouse's `VarMoments<T, level>`.
    fn power_sums(self) -> usize {
        match self {
            Stat::Corr => 5,
            Stat::CovarPop | Stat::CovarSamp => 3,
            Stat::SkewPop | Stat::SkewSamp => 3,
            Stat::KurtPop | Stat::KurtSamp => 4,
            _ => 2,
        }
    }
}

/// Every function of this module: (name, statistic, stable).
const FUNCTIONS: &[(&str, Stat, bool)] = &[
    ("varPop", Stat::VarPop, false),
    ("varSamp", Stat::VarSamp, false),
    ("stddevPop", Stat::StddevPop, false),
    ("stddevSamp", Stat::StddevSamp, false),
    ("covarPop", Stat::CovarPop, false),
    ("covarSamp", Stat::CovarSamp, false),
    ("corr", Stat::Corr, false),
    ("varPopStable", Stat::VarPop, true),
    ("varSampStable", Stat::VarSamp, true),
    ("stddevPopStable", Stat::StddevPop, true),
    ("stddevSampStable", Stat::StddevSamp, true),
    ("covarPopStable", Stat::CovarPop, true),
    ("covarSampStable", Stat::CovarSamp, true),
    ("corrStable", Stat::Corr, true),
    ("skewPop", Stat::SkewPop, false),
    ("skewSamp", Stat::SkewSamp, false),
    ("kurtPop", Stat::KurtPop, false),
    ("kurtSamp", Stat::KurtSamp, false),
];

fn lookup(function: &str) -> Option<(Stat, bool)> {
    FUNCTIONS.iter().find(|(n, _, _)| *n == function).map(|(_, s, st)| (*s, *st))
}

/// Whether `function` is one of this module's (its state is raw ClickHouse bytes).
pub(crate) fn is_moments(function: &str) -> bool {
    lookup(function).is_some()
}

/// Whether the plain (non-Stable) function computes in Float32: every argument Float32.
fn in_f32(stable: bool, args: &[ChType]) -> bool {
    !stable && !args.is_empty() && args.iter().all(|a| matches!(a.strip_nullable(), ChType::Float32))
}

/// The state's layout, as (floats, width of each, VarUInt count first).
fn shape(function: &str, args: &[ChType]) -> Option<(usize, usize, bool)> {
    let (stat, stable) = lookup(function)?;
    let sums = match (stat, stable) {
        (Stat::Corr, false) => 6,
        (Stat::Corr, true) => 5,
        (s, false) if s.binary() => 4,
        (s, true) if s.binary() => 3,
        (s, false) => 1 + s.power_sums(),
        (_, true) => 2,
    };
    Some((sums, if in_f32(stable, args) { 4 } else { 8 }, stable))
}

/// How many bytes the state at the start of `input` takes.
pub(crate) fn state_len(function: &str, args: &[ChType], input: &[u8]) -> DfResult<usize> {
    let (floats, width, varuint) = shape(function, args).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, format!("{function} has no moments state")))?;
    let mut head = 0;
    if varuint {
        head = input.iter().position(|b| b & 0x80 == 0).map(|p| p + 1).filter(|p| *p <= 10).ok_or_else(truncated)?;
    }
    let len = head + floats * width;
    if input.len() < len {
        return Err(truncated());
    }
    Ok(len)
}

/// How many rows the state `bytes` counted (0 for a malformed one).
pub(crate) fn state_rows(function: &str, args: &[ChType], bytes: &[u8]) -> u64 {
    match shape(function, args) {
        Some((_, _, true)) => read_varuint(&mut &bytes[..]).unwrap_or(0),
        Some((_, 4, false)) => bytes.get(..4).and_then(|b| b.try_into().ok()).map_or(0, |b| f32::from_le_bytes(b) as u64),
        Some(_) => bytes.get(..8).and_then(|b| b.try_into().ok()).map_or(0, |b| f64::from_le_bytes(b) as u64),
        None => 0,
    }
}

/// The state of no rows.
pub(crate) fn empty_state(function: &str, args: &[ChType]) -> Vec<u8> {
    match shape(function, args) {
        Some((floats, width, varuint)) => vec![0; usize::from(varuint) + floats * width],
        None => Vec::new(),
    }
}

fn truncated() -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::CORRUPTED_DATA, "Cannot read aggregate function state: unexpected end of data")
}

fn read_varuint(input: &mut &[u8]) -> DfResult<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = input.split_first().ok_or_else(truncated)?;
        *input = rest;
        v |= ((byte & 0x7f) as u64) << shift;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(truncated())
}

fn read_f64(input: &mut &[u8]) -> DfResult<f64> {
    let (head, rest) = input.split_first_chunk::<8>().ok_or_else(truncated)?;
    *input = rest;
    Ok(f64::from_le_bytes(*head))
}

fn read_f32(input: &mut &[u8]) -> DfResult<f64> {
    let (head, rest) = input.split_first_chunk::<4>().ok_or_else(truncated)?;
    *input = rest;
    Ok(f32::from_le_bytes(*head) as f64)
}

// ------------------------------------------------------------------ the UDAF

#[derive(Debug, PartialEq, Eq, Hash)]
pub(crate) struct Moments {
    name: &'static str,
    stat: Stat,
    stable: bool,
    signature: Signature,
}

/// Every function of this module.
pub(crate) fn aggregates() -> Vec<Moments> {
    FUNCTIONS
        .iter()
        .map(|(name, stat, stable)| Moments { name: *name, stat: *stat, stable: *stable, signature: Signature::user_defined(Volatility::Immutable) })
        .collect()
}

impl Moments {
    fn arity(&self) -> usize {
        if self.stat.binary() {
            2
        } else {
            1
        }
    }

    fn result(&self, args: &[FieldRef]) -> DfResult<ChType> {
        Arity::exact(self.arity()).check(self.name, args.len())?;
        if args.iter().any(|f| f.data_type() == &DataType::Null) {
            return Ok(ChType::Nullable(Box::new(ChType::Nothing)));
        }
        for (i, f) in args.iter().enumerate() {
            let t = f.data_type();
            if !(is_integer(t) || is_float(t) || is_decimal(t) || t == &DataType::Boolean) {
                return Err(illegal_type(self.name, i, f));
            }
        }
        let types: Vec<ChType> = args.iter().map(|f| ch_type_of_field(f)).collect();
        let t = if in_f32(self.stable, &types) { ChType::Float32 } else { ChType::Float64 };
        Ok(if args.iter().any(|f| is_nullable_field(f)) { t.into_nullable() } else { t })
    }
}

impl AggregateUDFImpl for Moments {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> DfResult<Vec<DataType>> {
        Ok(granary_types::plain_arguments(arg_types))
    }
    fn return_type(&self, arg_types: &[DataType]) -> DfResult<DataType> {
        let fields: Vec<FieldRef> = arg_types.iter().map(|t| Arc::new(Field::new("", t.clone(), true))).collect();
        Ok(self.return_field(&fields)?.data_type().clone())
    }
    fn return_field(&self, arg_fields: &[FieldRef]) -> DfResult<FieldRef> {
        Ok(Arc::new(result_field(self.name, &self.result(arg_fields)?)))
    }
    fn is_nullable(&self) -> bool {
        true
    }
    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        if args.is_distinct {
            return Ok(crate::distinct::distinct_state_fields(&args));
        }
        Ok(vec![Arc::new(Field::new(format_state_name(args.name, "moments"), DataType::Binary, true))])
    }
    fn accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        let ret = self.result(args.expr_fields)?;
        let types: Vec<ChType> = args.expr_fields.iter().map(|f| ch_type_of_field(f)).collect();
        let fresh = MomentsAccumulator {
            stat: self.stat,
            stable: self.stable,
            f32: in_f32(self.stable, &types),
            null_when_empty: ret.is_nullable(),
            nothing: matches!(ret.strip_nullable(), ChType::Nothing),
            sums: [0.0; 6],
            welford: Welford::default(),
        };
        if args.is_distinct {
            let types = args.expr_fields.iter().map(|f| f.data_type().clone()).collect();
            return Ok(Box::new(crate::distinct::DistinctAccumulator::new(types, Box::new(move || Ok(Box::new(fresh.clone()) as Box<dyn Accumulator>)))));
        }
        Ok(Box::new(fresh))
    }
}

/// ClickHouse's `CovarianceData<true>` (and `AggregateFunctionVarianceData`, which is
/// its left half): Welford's running means and co-moments.
#[derive(Debug, Default, Clone, Copy)]
struct Welford {
    count: u64,
    left_mean: f64,
    right_mean: f64,
    co_moment: f64,
    left_m2: f64,
    right_m2: f64,
}

/// ClickHouse's `areComparable`: both counts large and within 0.1% of each other.
fn are_comparable(a: u64, b: u64) -> bool {
    if a == 0 || b == 0 {
        return false;
    }
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (1.0 - lo as f64 / hi as f64) < 0.001 && lo > 10000
}

impl Welford {
    fn add_one(&mut self, x: f64) {
        let delta = x - self.left_mean;
        self.count += 1;
        self.left_mean += delta / self.count as f64;
        self.left_m2 += delta * (x - self.left_mean);
    }

    fn add_two(&mut self, x: f64, y: f64) {
        let left_delta = x - self.left_mean;
        let right_delta = y - self.right_mean;
        let old_right_mean = self.right_mean;
        self.count += 1;
        self.left_mean += left_delta / self.count as f64;
        self.right_mean += right_delta / self.count as f64;
        self.co_moment += (x - self.left_mean) * (y - old_right_mean);
        self.left_m2 += left_delta * (x - self.left_mean);
        self.right_m2 += right_delta * (y - self.right_mean);
    }

    fn merge(&mut self, other: &Welford, binary: bool) {
        let total = self.count + other.count;
        if total == 0 {
            return;
        }
        let factor = self.count.wrapping_mul(other.count) as f64 / total as f64;
        let left_delta = self.left_mean - other.left_mean;
        let right_delta = self.right_mean - other.right_mean;
        if are_comparable(self.count, other.count) {
            self.left_mean = (other.count as f64 * other.left_mean + self.count as f64 * self.left_mean) / total as f64;
            self.right_mean = (other.count as f64 * other.right_mean + self.count as f64 * self.right_mean) / total as f64;
        } else {
            self.left_mean = other.left_mean + left_delta * (self.count as f64 / total as f64);
            self.right_mean = other.right_mean + right_delta * (self.count as f64 / total as f64);
        }
        if binary {
            self.co_moment += other.co_moment + left_delta * right_delta * factor;
            self.left_m2 += other.left_m2 + left_delta * left_delta * factor;
            self.right_m2 += other.right_m2 + right_delta * right_delta * factor;
        } else {
            // AggregateFunctionVarianceData::mergeWith.
            self.left_m2 += other.left_m2 + left_delta * left_delta * factor;
        }
        self.count = total;
    }
}

#[derive(Debug, Clone)]
struct MomentsAccumulator {
    stat: Stat,
    stable: bool,
    /// Every sum is rounded to Float32 after each operation (ClickHouse's `Moments<Float32>`).
    f32: bool,
    null_when_empty: bool,
    /// An argument is the NULL literal: the result is always NULL.
    nothing: bool,
    /// The plain functions' sums, in ClickHouse's field order.
    sums: [f64; 6],
    welford: Welford,
}

impl MomentsAccumulator {
    fn r(&self, x: f64) -> f64 {
        if self.f32 {
            x as f32 as f64
        } else {
            x
        }
    }

    fn add(&mut self, x: f64, y: f64) {
        if self.stable {
            if self.stat.binary() {
                self.welford.add_two(x, y);
            } else {
                self.welford.add_one(x);
            }
            return;
        }
        let (x, y) = (self.r(x), self.r(y));
        let f32 = self.f32;
        let r = move |v: f64| if f32 { v as f32 as f64 } else { v };
        let s = &mut self.sums;
        s[0] = r(s[0] + 1.0);
        match self.stat {
            Stat::Corr => {
                s[1] = r(s[1] + x);
                s[2] = r(s[2] + y);
                s[3] = r(s[3] + r(x * y));
                s[4] = r(s[4] + r(x * x));
                s[5] = r(s[5] + r(y * y));
            }
            Stat::CovarPop | Stat::CovarSamp => {
                s[1] = r(s[1] + x);
                s[2] = r(s[2] + y);
                s[3] = r(s[3] + r(x * y));
            }
            stat => {
                let square = r(x * x);
                s[1] = r(s[1] + x);
                s[2] = r(s[2] + square);
                if stat.power_sums() >= 3 {
                    s[3] = r(s[3] + r(square * x));
                }
                if stat.power_sums() >= 4 {
                    s[4] = r(s[4] + r(r(square * x) * x));
                }
            }
        }
    }

    /// ClickHouse's `getMoment3` (`fourth` false) and `getMoment4`: the third or fourth
    /// central moment from the power sums, rounded as ClickHouse's expression is.
    fn central_moment(&self, fourth: bool) -> f64 {
        let r = |v: f64| self.r(v);
        let m = &self.sums;
        if m[0] == 0.0 {
            return f64::NAN;
        }
        if m[0] == 1.0 {
            return 0.0;
        }
        if !fourth {
            let inner = r(r(3.0 * m[2]) - r(r(r(2.0 * m[1]) * m[1]) / m[0]));
            return r(r(m[3] - r(r(inner * m[1]) / m[0])) / m[0]);
        }
        let innermost = r(r(6.0 * m[2]) - r(r(r(3.0 * m[1]) * m[1]) / m[0]));
        let inner = r(r(4.0 * m[3]) - r(r(innermost * m[1]) / m[0]));
        r(r(m[4] - r(r(inner * m[1]) / m[0])) / m[0])
    }

    fn rows(&self) -> u64 {
        if self.stable {
            self.welford.count
        } else {
            self.sums[0] as u64
        }
    }

    fn write(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(49);
        if self.stable {
            let mut v = self.welford.count;
            loop {
                let byte = (v & 0x7f) as u8;
                v >>= 7;
                if v == 0 {
                    out.push(byte);
                    break;
                }
                out.push(byte | 0x80);
            }
            let w = &self.welford;
            let fields: Vec<f64> = match self.stat {
                Stat::Corr => vec![w.left_mean, w.right_mean, w.co_moment, w.left_m2, w.right_m2],
                s if s.binary() => vec![w.left_mean, w.right_mean, w.co_moment],
                _ => vec![w.left_mean, w.left_m2],
            };
            for f in fields {
                out.extend_from_slice(&f.to_le_bytes());
            }
            return out;
        }
        let n = 1 + self.stat.power_sums();
        for &v in &self.sums[..n] {
            if self.f32 {
                out.extend_from_slice(&(v as f32).to_le_bytes());
            } else {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    fn merge_bytes(&mut self, bytes: &[u8]) -> DfResult<()> {
        let mut input = bytes;
        if self.stable {
            let count = read_varuint(&mut input)?;
            let mut other = Welford { count, ..Welford::default() };
            match self.stat {
                Stat::Corr => {
                    other.left_mean = read_f64(&mut input)?;
                    other.right_mean = read_f64(&mut input)?;
                    other.co_moment = read_f64(&mut input)?;
                    other.left_m2 = read_f64(&mut input)?;
                    other.right_m2 = read_f64(&mut input)?;
                }
                s if s.binary() => {
                    other.left_mean = read_f64(&mut input)?;
                    other.right_mean = read_f64(&mut input)?;
                    other.co_moment = read_f64(&mut input)?;
                }
                _ => {
                    other.left_mean = read_f64(&mut input)?;
                    other.left_m2 = read_f64(&mut input)?;
                }
            }
            // covarStable without marginal moments merges them as zeros; harmless.
            self.welford.merge(&other, self.stat.binary());
            return Ok(());
        }
        let n = 1 + self.stat.power_sums();
        for i in 0..n {
            let v = if self.f32 { read_f32(&mut input)? } else { read_f64(&mut input)? };
            self.sums[i] = self.r(self.sums[i] + v);
        }
        Ok(())
    }

    fn value(&self) -> f64 {
        if self.stable {
            let w = &self.welford;
            let n = w.count;
            let m2 = if self.stat.binary() { w.co_moment } else { w.left_m2 };
            let var_samp = || if n < 2 { f64::INFINITY } else { m2 / (n - 1) as f64 };
            let var_pop = || match n {
                0 => f64::INFINITY,
                1 => 0.0,
                _ => m2 / n as f64,
            };
            return match self.stat {
                Stat::VarSamp | Stat::CovarSamp => var_samp(),
                Stat::StddevSamp => var_samp().sqrt(),
                Stat::VarPop | Stat::CovarPop => var_pop(),
                Stat::StddevPop => var_pop().sqrt(),
                Stat::Corr if n < 2 => f64::INFINITY,
                Stat::Corr => w.co_moment / (w.left_m2 * w.right_m2).sqrt(),
                Stat::SkewPop | Stat::SkewSamp | Stat::KurtPop | Stat::KurtSamp => f64::NAN,
            };
        }
        let r = |v: f64| self.r(v);
        let m = &self.sums;
        let var_pop = || if m[0] == 0.0 { f64::NAN } else { r(r(m[2] - r(r(m[1] * m[1]) / m[0])) / m[0]).max(0.0) };
        let var_samp = || if m[0] <= 1.0 { f64::NAN } else { r(r(m[2] - r(r(m[1] * m[1]) / m[0])) / r(m[0] - 1.0)).max(0.0) };
        match self.stat {
            Stat::VarPop => var_pop(),
            Stat::VarSamp => var_samp(),
            Stat::StddevPop => r(var_pop().sqrt()),
            Stat::StddevSamp => r(var_samp().sqrt()),
            Stat::CovarPop => r(r(m[3] - r(r(m[1] * m[2]) / m[0])) / m[0]),
            Stat::CovarSamp if m[0] == 0.0 => f64::NAN,
            Stat::CovarSamp => r(r(m[3] - r(r(m[1] * m[2]) / m[0])) / r(m[0] - 1.0)),
            Stat::SkewPop | Stat::SkewSamp | Stat::KurtPop | Stat::KurtSamp => {
                let variance = if matches!(self.stat, Stat::SkewPop | Stat::KurtPop) { var_pop() } else { var_samp() };
                if !(variance > 0.0) {
                    return f64::NAN;
                }
                if matches!(self.stat, Stat::SkewPop | Stat::SkewSamp) {
                    // `pow` of a Float32 variance is a double in ClickHouse, so the division is too.
                    r(self.central_moment(false) / variance.powf(1.5))
                } else {
                    r(self.central_moment(true) / r(variance * variance))
                }
            }
            Stat::Corr => {
                // (m0 * xy - x1 * y1) / sqrt((m0 * x2 - x1 * x1) * (m0 * y2 - y1 * y1))
                let num = r(r(m[0] * m[3]) - r(m[1] * m[2]));
                let dx = r(r(m[0] * m[4]) - r(m[1] * m[1]));
                let dy = r(r(m[0] * m[5]) - r(m[2] * m[2]));
                r(num / r(r(dx * dy).sqrt()))
            }
        }
    }
}

impl Accumulator for MomentsAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        if self.nothing {
            return Ok(());
        }
        let floats: Vec<ArrayRef> = values.iter().map(|v| cast(v, &DataType::Float64)).collect::<Result<_, _>>()?;
        let x = floats[0].as_primitive::<Float64Type>();
        let y = floats.get(1).map(|a| a.as_primitive::<Float64Type>());
        let valid = |i: usize| !(x.is_null(i) || y.is_some_and(|y| y.is_null(i)));
        if self.stable {
            for i in (0..x.len()).filter(|i| valid(*i)) {
                self.add(x.value(i), y.map_or(0.0, |y| y.value(i)));
            }
            return Ok(());
        }
        // ClickHouse's `addMany`: 128 bytes of partial sums (16 Float64 or 32 Float32 lanes),
        // row `i` of each complete run going to lane `i % lanes` (rows with a NULL argument
        // keep their position and add nothing); the lanes are then added up in order, then
        // the remaining rows one by one, and the total is added to the state.
        let lanes = if self.f32 { 32 } else { 16 };
        let terms = self.stat.power_sums();
        let f32 = self.f32;
        let r = move |v: f64| if f32 { v as f32 as f64 } else { v };
        let stat = self.stat;
        let row_terms = |i: usize, out: &mut [f64; 5]| {
            let xv = r(x.value(i));
            let yv = r(y.map_or(0.0, |y| y.value(i)));
            match stat {
                Stat::Corr => *out = [xv, yv, r(xv * yv), r(xv * xv), r(yv * yv)],
                s if s.binary() => *out = [xv, yv, r(xv * yv), 0.0, 0.0],
                _ => {
                    let square = r(xv * xv);
                    *out = [xv, square, r(square * xv), r(r(square * xv) * xv), 0.0]
                }
            }
        };
        let mut partials = vec![[0.0f64; 5]; lanes];
        let mut rows = 0u64;
        let mut t = [0.0f64; 5];
        let unrolled = x.len() / lanes * lanes;
        for i in (0..unrolled).filter(|i| valid(*i)) {
            rows += 1;
            row_terms(i, &mut t);
            let lane = &mut partials[i % lanes];
            for j in 0..terms {
                lane[j] = r(lane[j] + t[j]);
            }
        }
        let mut total = [0.0f64; 5];
        for lane in &partials {
            for j in 0..terms {
                total[j] = r(total[j] + lane[j]);
            }
        }
        for i in (unrolled..x.len()).filter(|i| valid(*i)) {
            rows += 1;
            row_terms(i, &mut t);
            for j in 0..terms {
                total[j] = r(total[j] + t[j]);
            }
        }
        self.sums[0] = r(self.sums[0] + rows as f64);
        for j in 0..terms {
            self.sums[j + 1] = r(self.sums[j + 1] + total[j]);
        }
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let Some(states) = states.first() else { return Ok(()) };
        let binary = states.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "moments state must be Binary"))?;
        for row in 0..binary.len() {
            if !binary.is_null(row) {
                self.merge_bytes(binary.value(row))?;
            }
        }
        Ok(())
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(Some(self.write()))])
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        let empty = self.rows() == 0;
        if self.nothing {
            return Ok(ScalarValue::Null);
        }
        let v = (!(empty && self.null_when_empty)).then(|| self.value());
        Ok(if self.f32 { ScalarValue::Float32(v.map(|v| v as f32)) } else { ScalarValue::Float64(v) })
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn acc(name: &str, args: &[ChType]) -> MomentsAccumulator {
        let (stat, stable) = lookup(name).unwrap();
        MomentsAccumulator { stat, stable, f32: in_f32(stable, args), null_when_empty: false, nothing: false, sums: [0.0; 6], welford: Welford::default() }
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02X}")).collect()
    }

    /// States and results as chdb gives them for 0, 1, 2 (`numbers(3)`).
    #[test]
    fn clickhouse_states() {
        let u64s = [ChType::UInt64, ChType::UInt64];
        let mut var = acc("varPop", &u64s[..1]);
        let mut corr = acc("corrStable", &u64s);
        for x in 0..3 {
            var.add(x as f64, 0.0);
            corr.add(x as f64, x as f64);
        }
        assert_eq!(hex(&var.write()), "000000000000084000000000000008400000000000001440");
        assert_eq!(hex(&corr.write()), "03000000000000F03F000000000000F03F000000000000004000000000000000400000000000000040");
        assert_eq!(state_len("corrStable", &u64s, &corr.write()).unwrap(), 41);
        assert!((var.value() - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(acc("varSampStable", &u64s[..1]).value(), f64::INFINITY);
        assert!(acc("varSamp", &u64s[..1]).value().is_nan());
    }

    /// 16 lanes of partial sums, as chdb's `hex(varPopState(number / 7 + 1e6))` over
    /// `numbers(1000)` (a plain running sum differs in the last bit of both sums).
    #[test]
    fn lanes_as_clickhouse() {
        let mut var = acc("varPop", &[ChType::Float64]);
        let xs: ArrayRef = Arc::new(datafusion::arrow::array::Float64Array::from_iter_values((0..1000).map(|n| n as f64 / 7.0 + 1e6)));
        var.update_batch(&[xs]).unwrap();
        assert_eq!(hex(&var.write()), "0000000000408F402549925EF0CDCD41D49EEAFCFE6C0C43");
        assert_eq!(var.value(), 1700.67825);
    }
}
