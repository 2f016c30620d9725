//! The quantile family with ClickHouse's algorithms, results and state bytes:
//! `quantile` / `quantiles` / `median` (reservoir sampling), `quantileExact`,
//! `quantileTDigest`, `quantileExactWeighted` and their `quantiles*` / `median*` forms.
//!
//! * `quantile`: ClickHouse's `ReservoirSampler`: 8192 samples, replacements drawn from
//!   a `pcg32_fast` seeded with 123456, so results are ClickHouse's when rows arrive in
//!   the same order (exact below 8192 rows, whatever the order); interpolated in Float64.
//! * `quantileExact`: every value kept; the element at `floor(level * n)` of the sorted
//!   values (the last one for level 1), in the argument's type.
//! * `quantileTDigest`: ClickHouse's t-digest (`QuantileTDigest.h`): Float32 centroids,
//!   epsilon 0.01, compressed every 2048 additions, results in Float32.
//! * `quantileExactWeighted(level)(x, weight)`: each value's total weight; the first
//!   value whose running weight reaches `ceil(level * total)`.
//!
//! Levels are parameters in [0, 1] (0.5 when left out); `quantiles*` take several and
//! return an array. NaN values are skipped. Date, DateTime and Decimal arguments give
//! results of their own type (truncated from the interpolation); other numbers give
//! Float64 (`quantile`), Float32 (`quantileTDigest`) or their own type (`quantileExact`).
//! Over a `Nullable` argument NULLs are skipped and the result is `Nullable`, NULL for
//! no rows (an array result stays an array).
//!
//! The accumulator's state is one `Binary` value in ClickHouse's layout (sample count,
//! row count, the generator's text and the samples; VarUInt count and values; VarUInt
//! count and (mean, count) Float32 pairs); [`crate::states`] writes it as it is.
//! `quantileExactWeighted` writes its (value, UInt64 weight) pairs sorted by value
//! where ClickHouse writes its hash table's order: readable both ways.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{i256, DataType, Decimal128Type, Decimal256Type, Field, FieldRef, Float64Type, Int64Type, TimeUnit, UInt64Type};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDF, AggregateUDFImpl, Signature, Volatility};
use granary_common::ErrorCode;
use granary_types::wide::{compare_words, f64_to_i256_wrapping, WideInt};
use granary_types::ChType;

use crate::states::put_varuint;
use crate::args::{ch_error, DfResult};
use crate::func::{ch_type_of_field, is_nullable_field, result_field};
use crate::parametric::parametric_name;

/// The algorithm of a family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Reservoir,
    /// `quantileDeterministic`: samples kept by a hash of the determinator.
    Deterministic,
    Exact(ExactPick),
    TDigest,
    /// `quantileTDigestWeighted`: each value enters the t-digest as a centroid of its weight.
    TDigestWeighted,
    ExactWeighted,
    /// `quantileInterpolatedWeighted`: `quantileExactWeighted`'s state, the result
    /// interpolated on the weights' cumulative distribution.
    InterpolatedWeighted,
}

/// Which element `quantileExact` variants take at level 0.5 (the median) of an even
/// number of values: ClickHouse's `quantileExactLow` the lower middle one; at other
/// levels all take the element at `floor(level * n)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ExactPick {
    Plain,
    Low,
    High,
    /// `quantileExactInclusive`: interpolated at `level * (n - 1) + 1` (Excel's
    /// PERCENTILE.INC), in Float64.
    Inclusive,
    /// `quantileExactExclusive`: interpolated at `level * (n + 1)` (PERCENTILE.EXC).
    Exclusive,
}

/// The families of this module: name, algorithm, several levels.
const FAMILIES: &[(&str, Kind, bool)] = &[
    ("quantile", Kind::Reservoir, false),
    ("quantiles", Kind::Reservoir, true),
    ("quantileExact", Kind::Exact(ExactPick::Plain), false),
    ("quantilesExact", Kind::Exact(ExactPick::Plain), true),
    ("quantileExactLow", Kind::Exact(ExactPick::Low), false),
    ("quantilesExactLow", Kind::Exact(ExactPick::Low), true),
    ("quantileExactHigh", Kind::Exact(ExactPick::High), false),
    ("quantilesExactHigh", Kind::Exact(ExactPick::High), true),
    ("quantileTDigest", Kind::TDigest, false),
    ("quantilesTDigest", Kind::TDigest, true),
    ("quantileTDigestWeighted", Kind::TDigestWeighted, false),
    ("quantilesTDigestWeighted", Kind::TDigestWeighted, true),
    ("quantileDeterministic", Kind::Deterministic, false),
    ("quantilesDeterministic", Kind::Deterministic, true),
    ("quantileExactWeighted", Kind::ExactWeighted, false),
    ("quantilesExactWeighted", Kind::ExactWeighted, true),
    ("quantileExactInclusive", Kind::Exact(ExactPick::Inclusive), false),
    ("quantilesExactInclusive", Kind::Exact(ExactPick::Inclusive), true),
    ("quantileExactExclusive", Kind::Exact(ExactPick::Exclusive), false),
    ("quantilesExactExclusive", Kind::Exact(ExactPick::Exclusive), true),
    ("quantileInterpolatedWeighted", Kind::InterpolatedWeighted, false),
    ("quantilesInterpolatedWeighted", Kind::InterpolatedWeighted, true),
];

fn kind_of(function: &str) -> Option<Kind> {
    let family = crate::combinators::without_params(function);
    FAMILIES.iter().find(|(n, _, _)| *n == family).map(|(_, k, _)| *k)
}

/// Whether states of `a` and `b` are the same (`quantiles` reads `quantile`'s states,
/// as in ClickHouse, whose families share their state whatever the levels).
pub(crate) fn same_state(a: &str, b: &str) -> bool {
    kind_of(a).is_some_and(|k| Some(k) == kind_of(b))
}

/// Whether a state of `function` (parameters allowed) is one of this module's.
pub(crate) fn is_quantile(function: &str) -> bool {
    kind_of(function).is_some()
}

pub(crate) fn quantile(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantile", params)
}
pub(crate) fn quantiles(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantiles", params)
}
pub(crate) fn quantile_exact(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantileExact", params)
}
pub(crate) fn quantiles_exact(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantilesExact", params)
}
pub(crate) fn quantile_exact_low(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantileExactLow", params)
}
pub(crate) fn quantiles_exact_low(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantilesExactLow", params)
}
pub(crate) fn quantile_exact_high(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantileExactHigh", params)
}
pub(crate) fn quantiles_exact_high(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantilesExactHigh", params)
}
pub(crate) fn quantile_tdigest(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantileTDigest", params)
}
pub(crate) fn quantiles_tdigest(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantilesTDigest", params)
}
pub(crate) fn quantile_deterministic(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantileDeterministic", params)
}
pub(crate) fn quantiles_deterministic(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantilesDeterministic", params)
}
pub(crate) fn quantile_exact_inclusive(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantileExactInclusive", params)
}
pub(crate) fn quantiles_exact_inclusive(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantilesExactInclusive", params)
}
pub(crate) fn quantile_exact_exclusive(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantileExactExclusive", params)
}
pub(crate) fn quantiles_exact_exclusive(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantilesExactExclusive", params)
}
pub(crate) fn quantile_interpolated_weighted(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantileInterpolatedWeighted", params)
}
pub(crate) fn quantiles_interpolated_weighted(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantilesInterpolatedWeighted", params)
}
pub(crate) fn quantile_tdigest_weighted(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantileTDigestWeighted", params)
}
pub(crate) fn quantiles_tdigest_weighted(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantilesTDigestWeighted", params)
}
pub(crate) fn quantile_exact_weighted(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantileExactWeighted", params)
}
pub(crate) fn quantiles_exact_weighted(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    build("quantilesExactWeighted", params)
}

fn build(family: &'static str, params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    let (kind, many) = FAMILIES.iter().find(|(n, _, _)| *n == family).map(|(_, k, m)| (*k, *m)).ok_or_else(|| {
        ch_error(ErrorCode::LOGICAL_ERROR, format!("{family} is no quantile function"))
    })?;
    let levels = levels(family, many, params)?;
    Ok(AggregateUDF::new_from_impl(Quantile {
        name: parametric_name(family, params),
        family,
        kind,
        many,
        levels: levels.iter().map(|l| l.to_bits()).collect(),
        signature: Signature::user_defined(Volatility::Immutable),
    }))
}

/// A call of a quantile family kept in a native state (`quantileTiming`,
/// `quantileBFloat16`, ...): its levels, whether it takes a weight and returns several
/// levels, and the argument checks those families share.
#[derive(Debug)]
pub(crate) struct LevelsCall {
    pub(crate) name: String,
    pub(crate) family: &'static str,
    pub(crate) weighted: bool,
    pub(crate) many: bool,
    pub(crate) levels: Vec<f64>,
}

impl LevelsCall {
    pub(crate) fn new(family: &'static str, weighted: bool, many: bool, params: &[ScalarValue]) -> DfResult<LevelsCall> {
        let levels = levels(family, many, params)?;
        Ok(LevelsCall { name: parametric_name(family, params), family, weighted, many, levels })
    }

    pub(crate) fn arity(&self) -> crate::args::Arity {
        crate::args::Arity::exact(if self.weighted { 2 } else { 1 })
    }

    /// The result type, each level's value being an `element`: checks that the value is
    /// a number and the weight an integer.
    pub(crate) fn result(&self, args: &[ChType], element: ChType) -> DfResult<ChType> {
        if !crate::sample_stats::is_number(&args[0]) || matches!(args[0], ChType::Bool) {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument for aggregate function {}.", args[0], self.family)));
        }
        if self.weighted && !crate::args::is_integer(&args[1].to_arrow()) {
            return Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Second argument (weight) for function {} must be unsigned integer, but it has type {}", self.family, args[1]),
            ));
        }
        Ok(if self.many { ChType::Array(Box::new(element)) } else { element })
    }
}

/// The levels given by the parameters, checked as ClickHouse checks them.
fn levels(family: &str, many: bool, params: &[ScalarValue]) -> DfResult<Vec<f64>> {
    if many && params.is_empty() {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Aggregate function for calculation of multiple quantiles require at least one parameter."));
    }
    if !many && params.len() > 1 {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {family} requires one level parameter or less.")));
    }
    if params.is_empty() {
        return Ok(vec![0.5]);
    }
    params
        .iter()
        .map(|p| {
            let level = match p {
                ScalarValue::Float64(Some(f)) => *f,
                ScalarValue::UInt64(Some(u)) => *u as f64,
                ScalarValue::Int64(Some(i)) => *i as f64,
                ScalarValue::Utf8(Some(_)) => return Err(ch_error(ErrorCode::CANNOT_CONVERT_TYPE, "Cannot convert String to double.")),
                other => return Err(ch_error(ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot convert {} to double.", other.data_type()))),
            };
            if !(0.0..=1.0).contains(&level) {
                return Err(ch_error(ErrorCode::PARAMETER_OUT_OF_BOUND, "Quantile level is out of range [0..1]."));
            }
            Ok(level)
        })
        .collect()
}

// ------------------------------------------------------------------ values

/// How an argument's values are stored in a state: integers (Date, DateTime and
/// Decimal by their raw values) at their width, or floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Elem {
    Int { width: usize, signed: bool },
    Float { width: usize },
}

fn elem_of(t: &ChType) -> Option<Elem> {
    Some(match t.strip_nullable().base() {
        ChType::UInt8 | ChType::Bool => Elem::Int { width: 1, signed: false },
        ChType::UInt16 | ChType::Date => Elem::Int { width: 2, signed: false },
        ChType::UInt32 | ChType::DateTime(_) => Elem::Int { width: 4, signed: false },
        ChType::UInt64 => Elem::Int { width: 8, signed: false },
        ChType::Int8 => Elem::Int { width: 1, signed: true },
        ChType::Int16 => Elem::Int { width: 2, signed: true },
        ChType::Int32 | ChType::Date32 => Elem::Int { width: 4, signed: true },
        ChType::Int64 | ChType::DateTime64(..) => Elem::Int { width: 8, signed: true },
        ChType::Int128 => Elem::Int { width: 16, signed: true },
        ChType::UInt128 => Elem::Int { width: 16, signed: false },
        ChType::Int256 => Elem::Int { width: 32, signed: true },
        ChType::UInt256 => Elem::Int { width: 32, signed: false },
        ChType::Decimal(p, _) if *p <= 9 => Elem::Int { width: 4, signed: true },
        ChType::Decimal(p, _) if *p <= 18 => Elem::Int { width: 8, signed: true },
        ChType::Decimal(p, _) if *p <= 38 => Elem::Int { width: 16, signed: true },
        ChType::Float32 => Elem::Float { width: 4 },
        ChType::Float64 => Elem::Float { width: 8 },
        _ => return None,
    })
}

impl Elem {
    fn width(self) -> usize {
        match self {
            Elem::Int { width, .. } | Elem::Float { width } => width,
        }
    }

    /// Values an `i128` cannot hold (UInt128, Int256, UInt256): kept as [`WideValue`]s.
    fn is_wide(self) -> bool {
        matches!(self, Elem::Int { width: 32, .. } | Elem::Int { width: 16, signed: false })
    }
}

/// A stored value: `i128` for integers (raw values of dates and decimals), `f64` for floats.
trait Num: Copy + PartialOrd + Debug + Send + Sync + 'static {
    fn to_f64(self) -> f64;
    fn is_nan(self) -> bool;
    /// A key equal for equal values (`quantileExactWeighted`'s map).
    type Key: std::hash::Hash + Eq + Copy + Debug + Send + Sync;
    fn key(self) -> Self::Key;
    fn read(input: &mut &[u8], elem: Elem) -> DfResult<Self>;
    fn write(self, out: &mut Vec<u8>, elem: Elem);
    /// The values of an argument column (NULL: `None`).
    fn column(array: &ArrayRef, elem: Elem) -> DfResult<Vec<Option<Self>>>;
    /// The value as a result of integer type (truncated, as ClickHouse converts).
    fn raw(self) -> i128;
    /// The value as a result of type `dt` when `raw` cannot hold it.
    fn exact_scalar(self, _dt: &DataType) -> Option<ScalarValue> {
        None
    }
    fn from_f32(v: f32) -> Self;
}

fn read_bytes<'a>(input: &mut &'a [u8], n: usize) -> DfResult<&'a [u8]> {
    if input.len() < n {
        return Err(truncated());
    }
    let (head, rest) = input.split_at(n);
    *input = rest;
    Ok(head)
}

fn truncated() -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::CORRUPTED_DATA, "Cannot read aggregate function state: unexpected end of data")
}

impl Num for i128 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn is_nan(self) -> bool {
        false
    }
    type Key = u128;
    fn key(self) -> u128 {
        self as u128
    }
    fn read(input: &mut &[u8], elem: Elem) -> DfResult<i128> {
        let Elem::Int { width, signed } = elem else { return Err(ch_error(ErrorCode::LOGICAL_ERROR, "integer state of a float")) };
        let bytes = read_bytes(input, width)?;
        let mut buf = [0u8; 16];
        buf[..width].copy_from_slice(bytes);
        if signed && bytes[width - 1] & 0x80 != 0 {
            buf[width..].fill(0xff);
        }
        Ok(i128::from_le_bytes(buf))
    }
    fn write(self, out: &mut Vec<u8>, elem: Elem) {
        out.extend_from_slice(&self.to_le_bytes()[..elem.width()]);
    }
    fn column(array: &ArrayRef, _: Elem) -> DfResult<Vec<Option<i128>>> {
        Ok(match array.data_type() {
            DataType::Decimal128(..) => array.as_primitive::<Decimal128Type>().iter().collect(),
            DataType::UInt64 => array.as_primitive::<UInt64Type>().iter().map(|v| v.map(i128::from)).collect(),
            _ => {
                let ints = cast(array, &DataType::Int64)?;
                ints.as_primitive::<Int64Type>().iter().map(|v| v.map(i128::from)).collect()
            }
        })
    }
    fn raw(self) -> i128 {
        self
    }
    fn from_f32(v: f32) -> i128 {
        v as i128
    }
}

impl Num for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    type Key = u64;
    fn key(self) -> u64 {
        self.to_bits()
    }
    fn read(input: &mut &[u8], elem: Elem) -> DfResult<f64> {
        Ok(match elem {
            Elem::Float { width: 4 } => f32::from_le_bytes(read_bytes(input, 4)?.try_into().map_err(|_| truncated())?) as f64,
            _ => f64::from_le_bytes(read_bytes(input, 8)?.try_into().map_err(|_| truncated())?),
        })
    }
    fn write(self, out: &mut Vec<u8>, elem: Elem) {
        match elem {
            Elem::Float { width: 4 } => out.extend_from_slice(&(self as f32).to_le_bytes()),
            _ => out.extend_from_slice(&self.to_le_bytes()),
        }
    }
    fn column(array: &ArrayRef, _: Elem) -> DfResult<Vec<Option<f64>>> {
        let floats = cast(array, &DataType::Float64)?;
        Ok(floats.as_primitive::<Float64Type>().iter().collect())
    }
    fn raw(self) -> i128 {
        self as i128
    }
    fn from_f32(v: f32) -> f64 {
        v as f64
    }
}

/// A UInt128, Int256 or UInt256 value: 256 bits, which for a UInt256 are its raw bits
/// (ordered as unsigned, see `granary_types::wide`).
#[derive(Debug, Clone, Copy)]
struct WideValue {
    word: i256,
    is_uint256: bool,
}

impl PartialEq for WideValue {
    fn eq(&self, other: &Self) -> bool {
        self.partial_cmp(other) == Some(Ordering::Equal)
    }
}

impl PartialOrd for WideValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(compare_words(self.word, self.is_uint256, other.word, other.is_uint256))
    }
}

impl Num for WideValue {
    fn to_f64(self) -> f64 {
        if self.is_uint256 { WideInt::UInt256 } else { WideInt::Int256 }.to_f64(self.word)
    }
    fn is_nan(self) -> bool {
        false
    }
    type Key = i256;
    fn key(self) -> i256 {
        self.word
    }
    fn read(input: &mut &[u8], elem: Elem) -> DfResult<WideValue> {
        let Elem::Int { width, signed } = elem else { return Err(ch_error(ErrorCode::LOGICAL_ERROR, "integer state of a float")) };
        let bytes = read_bytes(input, width)?;
        let mut buf = [0u8; 32];
        buf[..width].copy_from_slice(bytes);
        if signed && bytes[width - 1] & 0x80 != 0 {
            buf[width..].fill(0xff);
        }
        Ok(WideValue { word: i256::from_le_bytes(buf), is_uint256: width == 32 && !signed })
    }
    fn write(self, out: &mut Vec<u8>, elem: Elem) {
        out.extend_from_slice(&self.word.to_le_bytes()[..elem.width()]);
    }
    fn column(array: &ArrayRef, elem: Elem) -> DfResult<Vec<Option<WideValue>>> {
        let is_uint256 = matches!(elem, Elem::Int { width: 32, signed: false });
        let words = match array.data_type() {
            DataType::Decimal256(..) => array.as_primitive::<Decimal256Type>().clone(),
            DataType::Decimal128(..) => array.as_primitive::<Decimal128Type>().unary(i256::from_i128),
            other => return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("wide quantile over {other}"))),
        };
        Ok(words.iter().map(|w| w.map(|word| WideValue { word, is_uint256 })).collect())
    }
    fn raw(self) -> i128 {
        self.word.as_i128()
    }
    fn exact_scalar(self, dt: &DataType) -> Option<ScalarValue> {
        match dt {
            DataType::Decimal256(p, s) => Some(ScalarValue::Decimal256(Some(self.word), *p, *s)),
            _ => None,
        }
    }
    fn from_f32(v: f32) -> WideValue {
        WideValue { word: f64_to_i256_wrapping(f64::from(v)).unwrap_or(i256::ZERO), is_uint256: false }
    }
}

fn get_varuint(input: &mut &[u8]) -> DfResult<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = read_bytes(input, 1)?[0];
        v |= ((byte & 0x7f) as u64) << shift;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(truncated())
}

fn read_u64(input: &mut &[u8]) -> DfResult<u64> {
    Ok(u64::from_le_bytes(read_bytes(input, 8)?.try_into().map_err(|_| truncated())?))
}

// ------------------------------------------------------------------ reservoir sampler

const SAMPLE_COUNT: u64 = 8192;
const PCG_MULTIPLIER: u64 = 6364136223846793005;

/// `pcg32_fast` (an MCG with the XSH-RS output), as ClickHouse's sampler uses it.
#[derive(Debug, Clone)]
struct Pcg32Fast {
    state: u64,
}

impl Pcg32Fast {
    fn seeded() -> Pcg32Fast {
        // An MCG's state must be odd: pcg sets the two low bits of the seed.
        Pcg32Fast { state: 123456 | 3 }
    }

    fn next(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(PCG_MULTIPLIER);
        let shift = (old >> 61) & 7;
        let mixed = old ^ (old >> 22);
        (mixed >> (22 + shift)) as u32
    }

    fn below(&mut self, limit: u64) -> u64 {
        if limit <= u64::from(u32::MAX) {
            u64::from(self.next()) % limit
        } else {
            let high = u64::from(self.next());
            let low = u64::from(self.next());
            high.wrapping_mul(1 << 32).wrapping_add(low) % limit
        }
    }
}

#[derive(Debug, Clone)]
struct Sampler<T> {
    sample_count: u64,
    total: u64,
    samples: Vec<T>,
    rng: Pcg32Fast,
}

impl<T: Num> Sampler<T> {
    fn new() -> Sampler<T> {
        Sampler { sample_count: SAMPLE_COUNT, total: 0, samples: Vec::new(), rng: Pcg32Fast::seeded() }
    }

    fn insert(&mut self, v: T) {
        if v.is_nan() {
            return;
        }
        self.total = self.total.saturating_add(1);
        if (self.samples.len() as u64) < self.sample_count {
            self.samples.push(v);
        } else {
            let rnd = self.rng.below(self.total);
            if rnd < self.sample_count {
                self.samples[rnd as usize] = v;
            }
        }
    }

    fn merge(&mut self, b: &Sampler<T>) -> DfResult<()> {
        if self.sample_count != b.sample_count {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Cannot merge ReservoirSampler's with different sample_count"));
        }
        if b.total <= self.sample_count {
            for v in &b.samples {
                self.insert(*v);
            }
        } else if self.total <= self.sample_count {
            let from = std::mem::replace(&mut self.samples, b.samples.clone());
            self.total = b.total;
            for v in from {
                self.insert(v);
            }
        } else {
            self.total = self.total.saturating_add(b.total);
            let frequency = self.total as f64 / b.total as f64;
            if frequency * 2.0 >= self.sample_count as f64 {
                let rnd = self.rng.below(frequency as u64);
                if rnd < self.sample_count {
                    self.samples[rnd as usize] = b.samples[rnd as usize];
                }
            } else {
                let mut i = 0.0;
                while i < self.sample_count as f64 {
                    let idx = i as usize;
                    self.samples[idx] = b.samples[idx];
                    i += frequency;
                }
            }
        }
        Ok(())
    }

    fn write(&self, out: &mut Vec<u8>, elem: Elem) {
        out.extend_from_slice(&self.sample_count.to_le_bytes());
        out.extend_from_slice(&self.total.to_le_bytes());
        let rng = format!("{PCG_MULTIPLIER} 0 {}", self.rng.state);
        put_varuint(out, rng.len() as u64);
        out.extend_from_slice(rng.as_bytes());
        for v in self.samples.iter().take(self.sample_count.min(self.total) as usize) {
            v.write(out, elem);
        }
    }

    fn read(input: &mut &[u8], elem: Elem) -> DfResult<Sampler<T>> {
        let sample_count = read_u64(input)?;
        let total = read_u64(input)?;
        let size = sample_count.min(total);
        if size > (1 << 30) {
            return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, "Too large array size (maximum: 1073741824)"));
        }
        let len = get_varuint(input)? as usize;
        let text = String::from_utf8_lossy(read_bytes(input, len)?).into_owned();
        let state = text
            .split_whitespace()
            .nth(2)
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or_else(|| ch_error(ErrorCode::CORRUPTED_DATA, format!("Cannot read the random generator of a reservoir sampler: {text}")))?;
        let samples = (0..size).map(|_| T::read(input, elem)).collect::<DfResult<Vec<T>>>()?;
        Ok(Sampler { sample_count, total, samples, rng: Pcg32Fast { state } })
    }

    /// ClickHouse's `quantileInterpolated` over the sorted samples.
    fn interpolated(sorted: &[T], level: f64) -> Option<f64> {
        let n = sorted.len();
        if n == 0 {
            return None;
        }
        let index = (level * (n - 1) as f64).clamp(0.0, (n - 1) as f64);
        let left = index as usize;
        let right = left + 1;
        if right == n {
            return Some(sorted[left].to_f64());
        }
        let left_coef = right as f64 - index;
        let right_coef = index - left as f64;
        Some(sorted[left].to_f64() * left_coef + sorted[right].to_f64() * right_coef)
    }
}

// ------------------------------------------------------------------ deterministic sampler

/// ClickHouse's `intHash64` (the finalizer of MurmurHash3).
fn int_hash64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    x
}

const MAX_SKIP_DEGREE: u8 = 32;

/// ClickHouse's `ReservoirSamplerDeterministic`: a value is kept when the low
/// `skip_degree` bits of its determinator's hash are zero; the degree grows (thinning the
/// samples) whenever 8192 are kept. The samples depend only on the rows, not on their
/// order or on how they were split between states.
#[derive(Debug, Clone)]
struct DeterministicSampler<T> {
    total: u64,
    samples: Vec<(T, u32)>,
    skip_degree: u8,
}

impl<T: Num> DeterministicSampler<T> {
    fn new() -> DeterministicSampler<T> {
        DeterministicSampler { total: 0, samples: Vec::new(), skip_degree: 0 }
    }

    fn skip_mask(&self) -> u32 {
        if self.skip_degree >= MAX_SKIP_DEGREE {
            u32::MAX
        } else {
            (1u32 << self.skip_degree) - 1
        }
    }

    fn good(&self, hash: u32) -> bool {
        hash & self.skip_mask() == 0
    }

    fn set_skip_degree(&mut self, degree: u8) -> DfResult<()> {
        if degree == self.skip_degree {
            return Ok(());
        }
        if degree > MAX_SKIP_DEGREE {
            return Err(ch_error(ErrorCode::MEMORY_LIMIT_EXCEEDED, "skip_degree exceeds maximum value"));
        }
        self.skip_degree = degree;
        let mask = self.skip_mask();
        self.samples.retain(|(_, hash)| hash & mask == 0);
        Ok(())
    }

    fn insert_hashed(&mut self, v: T, hash: u32) -> DfResult<()> {
        if !self.good(hash) {
            return Ok(());
        }
        while self.samples.len() as u64 >= SAMPLE_COUNT {
            self.set_skip_degree(self.skip_degree + 1)?;
            if !self.good(hash) {
                return Ok(());
            }
        }
        self.samples.push((v, hash));
        Ok(())
    }

    fn insert(&mut self, v: T, determinator: u64) -> DfResult<()> {
        if v.is_nan() {
            return Ok(());
        }
        self.insert_hashed(v, int_hash64(determinator) as u32)?;
        self.total += 1;
        Ok(())
    }

    fn merge(&mut self, b: &DeterministicSampler<T>) -> DfResult<()> {
        if self.skip_degree < b.skip_degree {
            self.set_skip_degree(b.skip_degree)?;
        }
        for (v, hash) in &b.samples {
            self.insert_hashed(*v, *hash)?;
        }
        self.total += b.total;
        Ok(())
    }

    /// A sample is written as C++ writes `std::pair<T, UInt32>`: the value, zero padding
    /// to the hash's alignment, the hash, zero padding to the pair's alignment.
    fn pair_layout(elem: Elem) -> (usize, usize) {
        match elem.width() {
            w if w <= 4 => (4, 8),
            8 => (8, 16),
            _ => (16, 32),
        }
    }

    fn write(&self, out: &mut Vec<u8>, elem: Elem) {
        out.extend_from_slice(&(self.samples.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.total.to_le_bytes());
        let (hash_at, size) = Self::pair_layout(elem);
        for (v, hash) in &self.samples {
            let start = out.len();
            v.write(out, elem);
            out.resize(start + hash_at, 0);
            out.extend_from_slice(&hash.to_le_bytes());
            out.resize(start + size, 0);
        }
        out.push(self.skip_degree);
    }

    fn read(input: &mut &[u8], elem: Elem) -> DfResult<DeterministicSampler<T>> {
        let size = read_u64(input)?;
        let total = read_u64(input)?;
        let size = size.min(total);
        let (hash_at, pair) = Self::pair_layout(elem);
        if size.saturating_mul(pair as u64) > input.len() as u64 {
            return Err(truncated());
        }
        let mut samples = Vec::with_capacity(size as usize);
        for _ in 0..size {
            let bytes = read_bytes(input, pair)?;
            let v = T::read(&mut &bytes[..elem.width()], elem)?;
            let hash = u32::from_le_bytes(bytes[hash_at..hash_at + 4].try_into().map_err(|_| truncated())?);
            samples.push((v, hash));
        }
        let skip_degree = read_bytes(input, 1)?[0];
        Ok(DeterministicSampler { total, samples, skip_degree })
    }

    /// The samples' values ordered by (value, hash), as ClickHouse sorts them.
    fn sorted_values(&self) -> Vec<T> {
        let mut pairs = self.samples.clone();
        pairs.sort_unstable_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal).then(a.1.cmp(&b.1)));
        pairs.into_iter().map(|(v, _)| v).collect()
    }
}

/// ClickHouse's `quantileInterpolatedDecimal`: the interpolation of raw decimal values
/// with the Float64 fraction taken as the exact binary rational it is, truncated toward
/// zero (Float64 arithmetic would round 1699.99.. up to 1700).
fn interpolated_decimal<T: Num>(sorted: &[T], level: f64) -> Option<i128> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let index = (level * (n - 1) as f64).clamp(0.0, (n - 1) as f64);
    let left = index as usize;
    if left + 1 == n {
        return Some(sorted[left].raw());
    }
    let coef = index - left as f64;
    let (l, r) = (sorted[left].raw(), sorted[left + 1].raw());
    if coef == 0.0 {
        return Some(l);
    }
    let bits = coef.to_bits();
    let exponent = (bits >> 52) & 0x7ff;
    let mantissa = i128::from(bits & ((1u64 << 52) - 1));
    let (numerator, shift) = if exponent == 0 { (mantissa, 1074u64) } else { (mantissa | (1 << 52), 1075 - exponent) };
    let Some(product) = (r - l).checked_mul(numerator) else {
        // Beyond i128 (Decimal128 extremes): Float64, as older ClickHouse did.
        return Some((l as f64 * (1.0 - coef) + r as f64 * coef) as i128);
    };
    // product >= 0 (sorted values): floor division by 2^shift, then truncation toward zero.
    let (quotient, exact) = if shift >= 127 { (0, product == 0) } else { (product >> shift, product & ((1i128 << shift) - 1) == 0) };
    let floor = l + quotient;
    Some(if floor < 0 && !exact { floor + 1 } else { floor })
}

/// `quantileExactInclusive`/`Exclusive` of sorted `values`: interpolated between the
/// elements around position `h` (1-based), clamped to the smallest and largest.
fn interpolated_exact<T: Num>(sorted: &[T], level: f64, pick: ExactPick) -> Option<f64> {
    let (first, last) = (sorted.first()?, sorted.last()?);
    let len = sorted.len();
    let h = match pick {
        ExactPick::Exclusive => level * (len + 1) as f64,
        _ => level * (len - 1) as f64 + 1.0,
    };
    let n = h as usize;
    Some(if n >= len {
        last.to_f64()
    } else if n < 1 {
        first.to_f64()
    } else {
        let below = sorted[n - 1].to_f64();
        below + (h - n as f64) * (sorted[n].to_f64() - below)
    })
}

/// `quantileInterpolatedWeighted` of (value, weight) pairs sorted by value: each value
/// sits at the middle of its weight on the cumulative distribution, and the level is
/// interpolated linearly between the two values around it (ClickHouse's search and
/// clamping, in Float64).
fn interpolated_weighted<T: Num>(pairs: &[(T, u64)], sum_weight: f64, level: f64) -> Option<f64> {
    let size = pairs.len();
    if size == 0 {
        return None;
    }
    let mut positions = Vec::with_capacity(size);
    let mut accumulated = 0.0;
    for (_, w) in pairs {
        accumulated += *w as f64;
        positions.push(if sum_weight != 0.0 { (accumulated - 0.5 * *w as f64) / sum_weight } else { *w as f64 });
    }
    let mut idx = 0;
    if size >= 2 {
        if level >= positions[size - 2] {
            idx = size - 2;
        } else {
            let (mut start, mut end) = (0usize, size - 1);
            while start <= end {
                let mid = start + (end - start) / 2;
                if level > positions[mid + 1] {
                    start = mid + 1;
                } else {
                    idx = mid;
                    match mid.checked_sub(1) {
                        Some(e) => end = e,
                        None => break,
                    }
                }
            }
        }
    }
    let upper = if idx + 1 < size { idx + 1 } else { idx };
    let (xl, xr) = (positions[idx], positions[upper]);
    let (mut yl, mut yr) = (pairs[idx].0.to_f64(), pairs[upper].0.to_f64());
    if level < xl {
        yr = yl;
    }
    if level > xr {
        yl = yr;
    }
    let dx = if xr - xl == 0.0 { 1.0 } else { xr - xl };
    Some(yl + ((yr - yl) / dx) * (level - xl))
}

fn sort_values<T: Num>(values: &mut [T]) {
    values.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
}

// ------------------------------------------------------------------ t-digest

#[derive(Debug, Clone, Copy)]
struct Centroid {
    mean: f32,
    count: f32,
}

const TDIGEST_EPSILON: f32 = 0.01;
const TDIGEST_MAX_CENTROIDS: usize = 2048;
const TDIGEST_MAX_UNMERGED: usize = 2048;
const TDIGEST_MAX_CENTROIDS_DESERIALIZE: u64 = 65536;

#[derive(Debug, Clone, Default)]
struct TDigest {
    centroids: Vec<Centroid>,
    count: f64,
    unmerged: usize,
}

/// The key ClickHouse's radix sort orders Float32 by (negatives reversed below positives).
fn float_key(v: f32) -> u32 {
    let bits = v.to_bits();
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

impl TDigest {
    fn add_centroid(&mut self, c: Centroid) {
        self.centroids.push(c);
        self.count += f64::from(c.count);
        self.unmerged += 1;
        if self.unmerged > TDIGEST_MAX_UNMERGED {
            self.compress();
        }
    }

    fn add(&mut self, x: f32) {
        self.add_weighted(x, 1);
    }

    /// A weight of 0 and NaN are no sample (ClickHouse: they break compression and sorting).
    fn add_weighted(&mut self, x: f32, weight: u64) {
        if x.is_nan() || weight == 0 {
            return;
        }
        self.add_centroid(Centroid { mean: x, count: weight as f32 });
    }

    fn can_be_merged(l_mean: f64, r_mean: f32) -> bool {
        l_mean == f64::from(r_mean) || (!l_mean.is_infinite() && !r_mean.is_infinite())
    }

    fn compress(&mut self) {
        if self.unmerged > 0 || self.centroids.len() > TDIGEST_MAX_CENTROIDS {
            // ClickHouse's LSD radix sort: stable.
            self.centroids.sort_by_key(|c| float_key(c.mean));
            let c = &mut self.centroids;
            let mut l = 0usize;
            let count_epsilon_4 = self.count * f64::from(TDIGEST_EPSILON) * 4.0;
            let mut sum = 0.0f64;
            let mut l_mean = f64::from(c[l].mean);
            let mut l_count = f64::from(c[l].count);
            for r in 1..c.len() {
                let rc = c[r];
                let ql = (sum + l_count * 0.5) / self.count;
                let mut err = ql * (1.0 - ql);
                let qr = (sum + l_count + f64::from(rc.count) * 0.5) / self.count;
                let err2 = qr * (1.0 - qr);
                if err > err2 {
                    err = err2;
                }
                let k = count_epsilon_4 * err;
                if l_count + f64::from(rc.count) <= k && Self::can_be_merged(l_mean, rc.mean) {
                    l_count += f64::from(rc.count);
                    if f64::from(rc.mean) != l_mean {
                        l_mean += f64::from(rc.count) * (f64::from(rc.mean) - l_mean) / l_count;
                    }
                    c[l].mean = l_mean as f32;
                    c[l].count = l_count as f32;
                } else {
                    sum += f64::from(c[l].count);
                    l += 1;
                    if l != r {
                        c[l] = rc;
                    }
                    l_mean = f64::from(c[l].mean);
                    l_count = f64::from(c[l].count);
                }
            }
            self.count = sum + l_count;
            c.truncate(l + 1);
            self.unmerged = 0;
        }
        self.compress_brute();
    }

    fn compress_brute(&mut self) {
        if self.centroids.len() <= TDIGEST_MAX_CENTROIDS {
            return;
        }
        let batch_size = self.centroids.len().div_ceil(TDIGEST_MAX_CENTROIDS);
        let c = &mut self.centroids;
        let mut l = 0usize;
        let mut sum = 0.0f64;
        let mut l_mean = f64::from(c[l].mean);
        let mut l_count = f64::from(c[l].count);
        let mut batch_pos = 0usize;
        for r in 1..c.len() {
            let rc = c[r];
            if batch_pos < batch_size - 1 {
                l_count += f64::from(rc.count);
                if f64::from(rc.mean) != l_mean {
                    l_mean += f64::from(rc.count) * (f64::from(rc.mean) - l_mean) / l_count;
                }
                c[l].mean = l_mean as f32;
                c[l].count = l_count as f32;
                batch_pos += 1;
            } else {
                if !c[l].mean.is_nan() {
                    sum += f64::from(c[l].count);
                    l += 1;
                }
                c[l] = rc;
                l_mean = f64::from(c[l].mean);
                l_count = f64::from(c[l].count);
                batch_pos = 0;
            }
        }
        if !c[l].mean.is_nan() {
            self.count = sum + l_count;
            c.truncate(l + 1);
        } else {
            self.count = sum;
            c.truncate(l);
        }
    }

    fn merge(&mut self, other: &TDigest) {
        if self.centroids.is_empty() && self.unmerged == 0 {
            // Taking a (compressed) digest whole gives what ClickHouse's single
            // aggregation would: adding its centroids one by one compresses them again.
            self.centroids = other.centroids.clone();
            self.count = other.count;
            self.unmerged = other.unmerged;
            return;
        }
        for c in &other.centroids {
            self.add_centroid(*c);
        }
    }

    fn write(&mut self, out: &mut Vec<u8>) {
        self.compress();
        put_varuint(out, self.centroids.len() as u64);
        for c in &self.centroids {
            out.extend_from_slice(&c.mean.to_le_bytes());
            out.extend_from_slice(&c.count.to_le_bytes());
        }
    }

    fn read(input: &mut &[u8]) -> DfResult<TDigest> {
        let size = get_varuint(input)?;
        if size > TDIGEST_MAX_CENTROIDS_DESERIALIZE {
            return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, "Too large t-digest centroids size"));
        }
        let mut digest = TDigest::default();
        for _ in 0..size {
            let mean = f32::from_le_bytes(read_bytes(input, 4)?.try_into().map_err(|_| truncated())?);
            let count = f32::from_le_bytes(read_bytes(input, 4)?.try_into().map_err(|_| truncated())?);
            if count <= 0.0 || count.is_nan() {
                return Err(ch_error(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Invalid centroid {count}:{mean}")));
            }
            if !mean.is_nan() {
                digest.count += f64::from(count);
                digest.centroids.push(Centroid { mean, count });
            }
        }
        digest.compress();
        Ok(digest)
    }

    fn interpolate(x: f32, x1: f32, y1: f32, x2: f32, y2: f32) -> f32 {
        let k = f64::from((x - x1) / (x2 - x1));
        ((1.0 - k) * f64::from(y1) + k * f64::from(y2)) as f32
    }

    /// ClickHouse's `getImpl`: `None` for an empty digest.
    fn get(&mut self, level: f64) -> Option<f32> {
        if self.centroids.is_empty() {
            return None;
        }
        self.compress();
        if self.centroids.len() == 1 {
            return Some(self.centroids[0].mean);
        }
        let x = level * self.count;
        let mut prev_x = 0.0f64;
        let mut sum = 0.0f32;
        let mut prev_mean = self.centroids[0].mean;
        let mut prev_count = self.centroids[0].count;
        for c in &self.centroids {
            let current_x = f64::from(sum) + f64::from(c.count) * 0.5;
            if current_x >= x {
                let left = prev_x + if prev_count == 1.0 { 0.5 } else { 0.0 };
                let right = current_x - if c.count == 1.0 { 0.5 } else { 0.0 };
                return Some(if x <= left {
                    prev_mean
                } else if x >= right {
                    c.mean
                } else {
                    Self::interpolate(x as f32, left as f32, prev_mean, right as f32, c.mean)
                });
            }
            sum += c.count;
            prev_mean = c.mean;
            prev_count = c.count;
            prev_x = current_x;
        }
        self.centroids.last().map(|c| c.mean)
    }
}

// ------------------------------------------------------------------ the data of one group

#[derive(Debug, Clone)]
enum Data<T: Num> {
    Reservoir(Sampler<T>),
    Deterministic(DeterministicSampler<T>),
    Exact(Vec<T>),
    TDigest(TDigest),
    /// Value -> (value, total weight).
    Weighted(HashMap<T::Key, (T, u64)>),
}

impl<T: Num> Data<T> {
    fn new(kind: Kind) -> Data<T> {
        match kind {
            Kind::Reservoir => Data::Reservoir(Sampler::new()),
            Kind::Deterministic => Data::Deterministic(DeterministicSampler::new()),
            Kind::Exact(_) => Data::Exact(Vec::new()),
            Kind::TDigest | Kind::TDigestWeighted => Data::TDigest(TDigest::default()),
            Kind::ExactWeighted | Kind::InterpolatedWeighted => Data::Weighted(HashMap::new()),
        }
    }

    fn write(&mut self, out: &mut Vec<u8>, elem: Elem) {
        match self {
            Data::Reservoir(s) => s.write(out, elem),
            Data::Deterministic(s) => s.write(out, elem),
            Data::Exact(values) => {
                put_varuint(out, values.len() as u64);
                for v in values.iter() {
                    v.write(out, elem);
                }
            }
            Data::TDigest(d) => d.write(out),
            Data::Weighted(map) => {
                let mut pairs: Vec<(T, u64)> = map.values().copied().collect();
                pairs.sort_unstable_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal));
                put_varuint(out, pairs.len() as u64);
                for (v, w) in pairs {
                    v.write(out, elem);
                    out.extend_from_slice(&w.to_le_bytes());
                }
            }
        }
    }

    fn read(kind: Kind, input: &mut &[u8], elem: Elem) -> DfResult<Data<T>> {
        Ok(match kind {
            Kind::Reservoir => Data::Reservoir(Sampler::read(input, elem)?),
            Kind::Deterministic => Data::Deterministic(DeterministicSampler::read(input, elem)?),
            Kind::Exact(_) => {
                let n = get_varuint(input)?;
                if n.saturating_mul(elem.width() as u64) > input.len() as u64 {
                    return Err(truncated());
                }
                Data::Exact((0..n).map(|_| T::read(input, elem)).collect::<DfResult<_>>()?)
            }
            Kind::TDigest | Kind::TDigestWeighted => Data::TDigest(TDigest::read(input)?),
            Kind::ExactWeighted | Kind::InterpolatedWeighted => {
                let n = get_varuint(input)?;
                if n.saturating_mul(elem.width() as u64 + 8) > input.len() as u64 {
                    return Err(truncated());
                }
                let mut map = HashMap::with_capacity(n as usize);
                for _ in 0..n {
                    let v = T::read(input, elem)?;
                    let w = read_u64(input)?;
                    let entry = map.entry(v.key()).or_insert((v, 0u64));
                    entry.1 = entry.1.wrapping_add(w);
                }
                Data::Weighted(map)
            }
        })
    }

    fn merge(&mut self, other: &Data<T>) -> DfResult<()> {
        match (self, other) {
            (Data::Reservoir(a), Data::Reservoir(b)) => a.merge(b)?,
            (Data::Deterministic(a), Data::Deterministic(b)) => a.merge(b)?,
            (Data::Exact(a), Data::Exact(b)) => a.extend_from_slice(b),
            (Data::TDigest(a), Data::TDigest(b)) => a.merge(b),
            (Data::Weighted(a), Data::Weighted(b)) => {
                for (key, (v, w)) in b {
                    let entry = a.entry(*key).or_insert((*v, 0));
                    entry.1 = entry.1.wrapping_add(*w);
                }
            }
            _ => return Err(ch_error(ErrorCode::LOGICAL_ERROR, "merging quantile states of different kinds")),
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        match self {
            Data::Reservoir(s) => s.samples.is_empty(),
            Data::Deterministic(s) => s.samples.is_empty(),
            Data::Exact(v) => v.is_empty(),
            Data::TDigest(d) => d.centroids.is_empty(),
            Data::Weighted(m) => m.is_empty(),
        }
    }
}

/// One quantile's result before it takes the result type.
#[derive(Debug, Clone, Copy)]
enum Answer<T> {
    /// Interpolated in Float64 (`quantile`).
    F64(f64),
    /// A Float32 (`quantileTDigest`).
    F32(f32),
    /// One of the values (`quantileExact`, `quantileExactWeighted`).
    Value(T),
    /// A raw decimal interpolated exactly (`quantile` over Decimal).
    Raw(i128),
    /// No values.
    Empty,
}

// ------------------------------------------------------------------ the UDAF

#[derive(Debug, PartialEq, Eq, Hash)]
struct Quantile {
    name: String,
    family: &'static str,
    kind: Kind,
    many: bool,
    /// The levels' bits (f64 is neither Eq nor Hash).
    levels: Vec<u64>,
    signature: Signature,
}

impl Quantile {
    fn levels(&self) -> Vec<f64> {
        self.levels.iter().map(|b| f64::from_bits(*b)).collect()
    }

    /// The type of one quantile over an argument of type `arg` (non-Nullable).
    fn element_result(&self, arg: &ChType) -> ChType {
        let own = matches!(arg, ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..) | ChType::Decimal(..));
        match self.kind {
            Kind::Exact(ExactPick::Inclusive | ExactPick::Exclusive) => ChType::Float64,
            _ if own => arg.clone(),
            Kind::Reservoir | Kind::Deterministic => ChType::Float64,
            Kind::TDigest | Kind::TDigestWeighted => ChType::Float32,
            Kind::Exact(_) | Kind::ExactWeighted | Kind::InterpolatedWeighted => arg.clone(),
        }
    }

    fn result(&self, args: &[FieldRef]) -> DfResult<ChType> {
        let arity = if matches!(self.kind, Kind::ExactWeighted | Kind::InterpolatedWeighted | Kind::TDigestWeighted | Kind::Deterministic) { 2 } else { 1 };
        if args.len() != arity {
            let what = if arity == 1 { "single argument" } else { "two arguments" };
            return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {} requires {what}.", self.family)));
        }
        let arg = ch_type_of_field(&args[0]);
        let base = arg.strip_nullable().base().clone();
        let allowed = elem_of(&base).is_some()
            && !(matches!(self.kind, Kind::TDigest | Kind::TDigestWeighted | Kind::Deterministic) && matches!(base, ChType::Decimal(..)))
            && !(matches!(self.kind, Kind::TDigest | Kind::TDigestWeighted) && WideInt::of(&base).is_some());
        let illegal = |t: ChType| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {t} of argument for aggregate function {}.", self.family));
        if !allowed || matches!(base, ChType::Bool) {
            return Err(illegal(arg));
        }
        if let Some(weight) = args.get(1) {
            let t = weight.data_type();
            // ClickHouse wants an unsigned integer; signed ones pass because Granary types
            // an integer literal (`quantileExactWeighted(x, 1)`) as Int64 where ClickHouse says UInt8.
            if !t.is_integer() {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Second argument (weight) for function {} must be unsigned integer, but it has type {}", self.family, ch_type_of_field(weight)),
                ));
            }
        }
        let element = self.element_result(&base);
        Ok(if self.many {
            ChType::Array(Box::new(element))
        } else if is_nullable_field(&args[0]) {
            element.into_nullable()
        } else {
            element
        })
    }
}

impl AggregateUDFImpl for Quantile {
    fn name(&self) -> &str {
        &self.name
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
        Ok(Arc::new(result_field(&self.name, &self.result(arg_fields)?)))
    }
    fn is_nullable(&self) -> bool {
        !self.many
    }
    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        if args.is_distinct {
            return Ok(crate::distinct::distinct_state_fields(&args));
        }
        Ok(vec![Arc::new(Field::new(format_state_name(args.name, "quantile"), DataType::Binary, true))])
    }
    fn accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        let ret = self.result(args.expr_fields)?;
        let arg = ch_type_of_field(&args.expr_fields[0]);
        let elem = elem_of(&arg).ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {arg} of argument for aggregate function {}.", self.family)))?;
        let target = args.return_field.data_type().clone();
        let element_type = match &target {
            DataType::List(item) => item.data_type().clone(),
            other => other.clone(),
        };
        let shared = Shared { kind: self.kind, levels: self.levels(), many: self.many, elem, null_when_empty: ret.is_nullable(), target, element_type };
        if args.is_distinct {
            let types = args.expr_fields.iter().map(|f| f.data_type().clone()).collect();
            return Ok(Box::new(crate::distinct::DistinctAccumulator::new(types, Box::new(move || Ok(new_accumulator(shared.clone()))))));
        }
        Ok(new_accumulator(shared))
    }
}

fn new_accumulator(shared: Shared) -> Box<dyn Accumulator> {
    match shared.elem {
        elem if elem.is_wide() => Box::new(QuantileAccumulator::<WideValue> { data: Data::new(shared.kind), shared }),
        Elem::Int { .. } => Box::new(QuantileAccumulator::<i128> { data: Data::new(shared.kind), shared }),
        Elem::Float { .. } => Box::new(QuantileAccumulator::<f64> { data: Data::new(shared.kind), shared }),
    }
}

#[derive(Debug, Clone)]
struct Shared {
    kind: Kind,
    levels: Vec<f64>,
    many: bool,
    elem: Elem,
    null_when_empty: bool,
    target: DataType,
    element_type: DataType,
}

#[derive(Debug)]
struct QuantileAccumulator<T: Num> {
    data: Data<T>,
    shared: Shared,
}

impl<T: Num> QuantileAccumulator<T> {
    fn answers(&mut self) -> Vec<Answer<T>> {
        let levels = &self.shared.levels;
        match &mut self.data {
            Data::Reservoir(s) => {
                sort_values(&mut s.samples);
                if matches!(self.shared.element_type, DataType::Decimal128(..)) {
                    return levels.iter().map(|l| interpolated_decimal(&s.samples, *l).map_or(Answer::Empty, Answer::Raw)).collect();
                }
                levels.iter().map(|l| Sampler::interpolated(&s.samples, *l).map_or(Answer::Empty, Answer::F64)).collect()
            }
            Data::Deterministic(s) => {
                let sorted = s.sorted_values();
                levels.iter().map(|l| Sampler::interpolated(&sorted, *l).map_or(Answer::Empty, Answer::F64)).collect()
            }
            Data::Exact(values) => {
                sort_values(values);
                let pick = match self.shared.kind {
                    Kind::Exact(pick) => pick,
                    _ => ExactPick::Plain,
                };
                if matches!(pick, ExactPick::Inclusive | ExactPick::Exclusive) {
                    return levels.iter().map(|l| interpolated_exact(values, *l, pick).map_or(Answer::Empty, Answer::F64)).collect();
                }
                levels
                    .iter()
                    .map(|l| {
                        if values.is_empty() {
                            return Answer::Empty;
                        }
                        let len = values.len();
                        let n = match pick {
                            ExactPick::Low if *l == 0.5 && len % 2 == 0 => len / 2 - 1,
                            _ if *l < 1.0 => (*l * len as f64) as usize,
                            _ => len - 1,
                        };
                        Answer::Value(values[n.min(values.len() - 1)])
                    })
                    .collect()
            }
            Data::TDigest(d) => levels.iter().map(|l| d.get(*l).map_or(Answer::Empty, Answer::F32)).collect(),
            Data::Weighted(map) => {
                let mut pairs: Vec<(T, u64)> = map.values().copied().collect();
                let sum_weight: f64 = pairs.iter().map(|(_, w)| *w as f64).sum();
                pairs.sort_unstable_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal));
                if self.shared.kind == Kind::InterpolatedWeighted {
                    return levels.iter().map(|l| interpolated_weighted(&pairs, sum_weight, *l).map_or(Answer::Empty, Answer::F64)).collect();
                }
                levels
                    .iter()
                    .map(|l| {
                        let Some(last) = pairs.last() else { return Answer::Empty };
                        let threshold = (sum_weight * l).ceil();
                        let mut accumulated = 0.0;
                        for (v, w) in &pairs {
                            accumulated += *w as f64;
                            if accumulated >= threshold {
                                return Answer::Value(*v);
                            }
                        }
                        Answer::Value(last.0)
                    })
                    .collect()
            }
        }
    }

    /// An answer as a value of the element result type.
    fn scalar(&self, answer: Answer<T>) -> DfResult<ScalarValue> {
        let dt = &self.shared.element_type;
        let raw = |r: i128| -> DfResult<ScalarValue> {
            match dt {
                DataType::Decimal128(p, s) => Ok(ScalarValue::Decimal128(Some(r), *p, *s)),
                DataType::UInt64 => Ok(ScalarValue::UInt64(Some(r as u64))),
                DataType::Float32 => Ok(ScalarValue::Float32(Some(r as f32))),
                DataType::Float64 => Ok(ScalarValue::Float64(Some(r as f64))),
                DataType::Date32 => Ok(ScalarValue::Date32(Some(r as i32))),
                DataType::Timestamp(unit, tz) => Ok(match unit {
                    TimeUnit::Second => ScalarValue::TimestampSecond(Some(r as i64), tz.clone()),
                    TimeUnit::Millisecond => ScalarValue::TimestampMillisecond(Some(r as i64), tz.clone()),
                    TimeUnit::Microsecond => ScalarValue::TimestampMicrosecond(Some(r as i64), tz.clone()),
                    TimeUnit::Nanosecond => ScalarValue::TimestampNanosecond(Some(r as i64), tz.clone()),
                }),
                other => ScalarValue::Int64(Some(r as i64)).cast_to(other),
            }
        };
        match (answer, dt) {
            (Answer::Empty, DataType::Float64) => Ok(ScalarValue::Float64(Some(f64::NAN))),
            (Answer::Empty, DataType::Float32) => Ok(ScalarValue::Float32(Some(f32::NAN))),
            (Answer::Empty, _) => raw(0),
            (Answer::F64(f), DataType::Float64) => Ok(ScalarValue::Float64(Some(f))),
            (Answer::F64(f), DataType::Float32) => Ok(ScalarValue::Float32(Some(f as f32))),
            (Answer::F64(f), _) => raw(f as i128),
            (Answer::Raw(r), _) => raw(r),
            (Answer::F32(f), DataType::Float32) => Ok(ScalarValue::Float32(Some(f))),
            (Answer::F32(f), _) => raw(T::from_f32(f).raw()),
            (Answer::Value(v), DataType::Float64) => Ok(ScalarValue::Float64(Some(v.to_f64()))),
            (Answer::Value(v), DataType::Float32) => Ok(ScalarValue::Float32(Some(v.to_f64() as f32))),
            (Answer::Value(v), _) => v.exact_scalar(dt).map_or_else(|| raw(v.raw()), Ok),
        }
    }
}

impl<T: Num> Accumulator for QuantileAccumulator<T> {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        let column = T::column(&values[0], self.shared.elem)?;
        match &mut self.data {
            Data::Reservoir(s) => column.into_iter().flatten().for_each(|v| s.insert(v)),
            Data::Deterministic(s) => {
                let determinators = cast(&values[1], &DataType::UInt64)?;
                let determinators = determinators.as_primitive::<UInt64Type>();
                for (i, v) in column.into_iter().enumerate() {
                    if let (Some(v), false) = (v, determinators.is_null(i)) {
                        s.insert(v, determinators.value(i))?;
                    }
                }
            }
            Data::Exact(all) => all.extend(column.into_iter().flatten().filter(|v| !v.is_nan())),
            Data::TDigest(d) if self.shared.kind == Kind::TDigestWeighted => {
                let weights = cast(&values[1], &DataType::UInt64)?;
                let weights = weights.as_primitive::<UInt64Type>();
                for (i, v) in column.into_iter().enumerate() {
                    if let (Some(v), false) = (v, weights.is_null(i)) {
                        d.add_weighted(v.to_f64() as f32, weights.value(i));
                    }
                }
            }
            Data::TDigest(d) => column.into_iter().flatten().for_each(|v| d.add(v.to_f64() as f32)),
            Data::Weighted(map) => {
                let weights = cast(&values[1], &DataType::UInt64)?;
                let weights = weights.as_primitive::<UInt64Type>();
                for (i, v) in column.into_iter().enumerate() {
                    let (Some(v), false) = (v, weights.is_null(i)) else { continue };
                    if v.is_nan() {
                        continue;
                    }
                    let entry = map.entry(v.key()).or_insert((v, 0));
                    entry.1 = entry.1.wrapping_add(weights.value(i));
                }
            }
        }
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let Some(states) = states.first() else { return Ok(()) };
        let binary = states.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "quantile state must be Binary"))?;
        for row in 0..binary.len() {
            if binary.is_null(row) {
                continue;
            }
            let mut input = binary.value(row);
            let other = Data::<T>::read(self.shared.kind, &mut input, self.shared.elem)?;
            self.data.merge(&other)?;
        }
        Ok(())
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        let mut out = Vec::new();
        self.data.write(&mut out, self.shared.elem);
        Ok(vec![ScalarValue::Binary(Some(out))])
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        if self.shared.null_when_empty && self.data.is_empty() {
            return Ok(ScalarValue::try_from(&self.shared.target)?);
        }
        if self.shared.kind == Kind::Exact(ExactPick::Exclusive) && self.shared.levels.iter().any(|l| *l == 0.0 || *l == 1.0) {
            return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "QuantileExactExclusive cannot interpolate for the percentiles 1 and 0"));
        }
        let answers = self.answers();
        let values = answers.into_iter().map(|a| self.scalar(a)).collect::<DfResult<Vec<_>>>()?;
        if self.shared.many {
            // Built on the result's own item field: it carries the element's ClickHouse type.
            let DataType::List(item) = &self.shared.target else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, "quantiles must return an array"));
            };
            let n = values.len();
            let elements = ScalarValue::iter_to_array(values)?;
            let elements = if elements.data_type() == item.data_type() { elements } else { cast(&elements, item.data_type())? };
            let list = ListArray::try_new(Arc::clone(item), OffsetBuffer::from_lengths([n]), elements, None)?;
            return Ok(ScalarValue::List(Arc::new(list)));
        }
        values.into_iter().next().ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "quantile without a level"))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + match &self.data {
                Data::Reservoir(s) => s.samples.capacity() * std::mem::size_of::<T>(),
                Data::Deterministic(s) => s.samples.capacity() * std::mem::size_of::<(T, u32)>(),
                Data::Exact(v) => v.capacity() * std::mem::size_of::<T>(),
                Data::TDigest(d) => d.centroids.capacity() * std::mem::size_of::<Centroid>(),
                Data::Weighted(m) => m.capacity() * (std::mem::size_of::<T>() + 24),
            }
    }
}

// ------------------------------------------------------------------ states for crate::states

/// The element layout of a state of `function` over `args`.
fn state_elem(args: &[ChType]) -> DfResult<Elem> {
    args.first().and_then(elem_of).ok_or_else(|| ch_error(ErrorCode::BAD_ARGUMENTS, "quantile state without a numeric argument type"))
}

/// How many bytes at the start of `input` one state of `function` takes.
pub(crate) fn state_len(function: &str, args: &[ChType], input: &[u8]) -> DfResult<usize> {
    let kind = kind_of(function).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, format!("{function} is no quantile function")))?;
    let elem = state_elem(args)?;
    let mut rest = input;
    match elem {
        elem if elem.is_wide() => drop(Data::<WideValue>::read(kind, &mut rest, elem)?),
        Elem::Int { .. } => drop(Data::<i128>::read(kind, &mut rest, elem)?),
        Elem::Float { .. } => drop(Data::<f64>::read(kind, &mut rest, elem)?),
    }
    Ok(input.len() - rest.len())
}

/// Whether a state holds any value (the `Nullable` flag byte says so in ClickHouse).
pub(crate) fn state_has_values(function: &str, args: &[ChType], bytes: &[u8]) -> bool {
    let mut input = bytes;
    match kind_of(function) {
        Some(Kind::Reservoir | Kind::Deterministic) => {
            let _ = read_u64(&mut input);
            read_u64(&mut input).is_ok_and(|total| total > 0)
        }
        Some(_) => get_varuint(&mut input).is_ok_and(|n| n > 0),
        None => !args.is_empty(),
    }
}

/// The state of no rows.
pub(crate) fn empty_state(function: &str, args: &[ChType]) -> Vec<u8> {
    let mut out = Vec::new();
    if let (Some(kind), Ok(elem)) = (kind_of(function), state_elem(args)) {
        Data::<f64>::new(kind).write(&mut out, elem);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02X}")).collect()
    }

    /// Bytes and results as chdb (ClickHouse 25.x) gives them.
    #[test]
    fn clickhouse_states() {
        let mut s = Sampler::<i128>::new();
        for v in 0..3 {
            s.insert(v);
        }
        let mut out = Vec::new();
        s.write(&mut out, Elem::Int { width: 8, signed: false });
        assert_eq!(
            hex(&out),
            "002000000000000003000000000000001C36333634313336323233383436373933303035203020313233343539000000000000000001000000000000000200000000000000"
        );
        let mut det = DeterministicSampler::<i128>::new();
        for v in 0..3 {
            det.insert(v, v as u64).unwrap();
        }
        let mut out = Vec::new();
        det.write(&mut out, Elem::Int { width: 8, signed: false });
        assert_eq!(hex(&out), "030000000000000003000000000000000000000000000000000000000000000001000000000000002CCBC234000000000200000000000000E78306650000000000");
        let mut det = DeterministicSampler::<f64>::new();
        for v in 0..2 {
            det.insert(v as f64, v as u64).unwrap();
        }
        let mut out = Vec::new();
        det.write(&mut out, Elem::Float { width: 4 });
        assert_eq!(hex(&out), "0200000000000000020000000000000000000000000000000000803F2CCBC23400");
        let mut d = TDigest::default();
        for v in 0..3 {
            d.add(v as f32);
        }
        let mut out = Vec::new();
        d.write(&mut out);
        assert_eq!(hex(&out), "03000000000000803F0000803F0000803F000000400000803F");
    }

    #[test]
    fn decimals_interpolate_exactly() {
        // chdb: quantile(0.2) over these 44 Decimal64(3) values is 1.699, not 1.7.
        let values: Vec<i128> = (0..66).filter(|n| n % 3 != 0).map(|n| n * 1000 / 8).collect();
        assert_eq!(interpolated_decimal(&values, 0.2), Some(1699));
        assert_eq!(interpolated_decimal(&[-250i128, -100], 0.5), Some(-175));
        assert_eq!(interpolated_decimal(&[-3i128, 0], 0.5), Some(-1));
    }

    #[test]
    fn levels_are_checked() {
        assert_eq!(levels("quantile", false, &[]).unwrap(), vec![0.5]);
        let err = |r: DfResult<Vec<f64>>| granary_common::Error::from(r.unwrap_err()).code();
        assert_eq!(err(levels("quantile", false, &[ScalarValue::Float64(Some(1.5))])), ErrorCode::PARAMETER_OUT_OF_BOUND);
        assert_eq!(err(levels("quantiles", true, &[])), ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH);
        assert_eq!(err(levels("quantile", false, &[ScalarValue::Utf8(Some("a".into()))])), ErrorCode::CANNOT_CONVERT_TYPE);
    }

    #[test]
    fn exact_states_round_trip() {
        let elem = Elem::Int { width: 2, signed: true };
        let mut data = Data::<i128>::Exact(vec![-3, 7, 1]);
        let mut out = Vec::new();
        data.write(&mut out, elem);
        assert_eq!(hex(&out), "03FDFF07000100");
        let back = Data::<i128>::read(Kind::Exact(ExactPick::Plain), &mut out.as_slice(), elem).unwrap();
        assert!(matches!(back, Data::Exact(v) if v == vec![-3, 7, 1]));
    }
}
