//! `SAMPLE k [OFFSET m]`: which values of the sampling key (`SAMPLE BY`) a query reads.
//!
//! The sampling key is an unsigned integer expression of the primary key, usually a hash
//! (`intHash32(UserID)`), so a range of its values is a pseudo-random share of the rows
//! and, being a key, skips granules. ClickHouse's MergeTreeDataSelectExecutor turns the
//! ratios into the half-open range `[lower, upper)` of the key type's values with exact
//! fractions (`boost::rational` of unsigned 128-bit numbers) and integer division; the
//! rows are ClickHouse's only if every step rounds the same way, so [`Rational`] repeats
//! boost's operations step by step (gcd reductions included, and wrapping on the
//! overflows ClickHouse would also wrap on).
//!
//! ```text
//! SAMPLE 0.4 OFFSET 0.3   [------********------]   lower = 0.3 * 2^bits, upper = 0.7 * 2^bits
//! SAMPLE 0.4 OFFSET 0.8   [----------------****]   cut at the end: no upper bound
//! SAMPLE 1000             1000 / (rows the query's key condition leaves), at most 1
//! ```

use std::cmp::Ordering;

use granary_common::{Error, ErrorCode, Result};
use granary_storage::{SampleClause, SampleRatio};
use granary_types::ChType;

/// A non-negative fraction kept reduced, as `boost::rational<unsigned __int128>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rational {
    num: u128,
    den: u128,
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `a * b` as a 256-bit number (high, low): exact comparisons of fractions.
fn wide_mul(a: u128, b: u128) -> (u128, u128) {
    const MASK: u128 = u64::MAX as u128;
    let (a_hi, a_lo, b_hi, b_lo) = (a >> 64, a & MASK, b >> 64, b & MASK);
    let lo_lo = a_lo * b_lo;
    let hi_lo = a_hi * b_lo;
    let lo_hi = a_lo * b_hi;
    let hi_hi = a_hi * b_hi;
    let middle = (lo_lo >> 64) + (hi_lo & MASK) + (lo_hi & MASK);
    let low = (middle << 64) | (lo_lo & MASK);
    let high = hi_hi + (hi_lo >> 64) + (lo_hi >> 64) + (middle >> 64);
    (high, low)
}

/// What boost throws for a zero denominator; ClickHouse reports it as STD_EXCEPTION.
fn zero_denominator() -> Error {
    Error::new(ErrorCode::STD_EXCEPTION, "boost::wrapexcept<boost::bad_rational>: bad rational: zero denominator")
}

impl Rational {
    pub const ZERO: Rational = Rational { num: 0, den: 1 };
    pub const ONE: Rational = Rational { num: 1, den: 1 };

    pub fn integer(n: u128) -> Rational {
        Rational { num: n, den: 1 }
    }

    /// `num / den` reduced; a zero denominator fails as boost's `assign` does.
    pub fn new(num: u128, den: u128) -> Result<Rational> {
        if den == 0 {
            return Err(zero_denominator());
        }
        if num == 0 {
            return Ok(Rational::ZERO);
        }
        let g = gcd(num, den);
        Ok(Rational { num: num / g, den: den / g })
    }

    pub fn numerator(self) -> u128 {
        self.num
    }

    pub fn denominator(self) -> u128 {
        self.den
    }

    /// boost's `operator+=`.
    pub fn add(self, r: Rational) -> Rational {
        let g = gcd(self.den, r.den);
        let den = self.den / g;
        let num = self.num.wrapping_mul(r.den / g).wrapping_add(r.num.wrapping_mul(den));
        let g = gcd(num, g);
        Rational { num: num / g, den: den.wrapping_mul(r.den / g) }
    }

    /// boost's `operator*=`.
    pub fn mul(self, r: Rational) -> Rational {
        let gcd1 = gcd(self.num, r.den);
        let gcd2 = gcd(r.num, self.den);
        Rational { num: (self.num / gcd1).wrapping_mul(r.num / gcd2), den: (self.den / gcd2).wrapping_mul(r.den / gcd1) }
    }

    /// boost's `operator/=`.
    pub fn div(self, r: Rational) -> Result<Rational> {
        if r.num == 0 {
            return Err(zero_denominator());
        }
        if self.num == 0 {
            return Ok(self);
        }
        let gcd1 = gcd(self.num, r.num);
        let gcd2 = gcd(r.den, self.den);
        Ok(Rational { num: (self.num / gcd1).wrapping_mul(r.den / gcd2), den: (self.den / gcd2).wrapping_mul(r.num / gcd1) })
    }

    /// `rational_cast<BigNum>`: the integer part.
    pub fn floor(self) -> u128 {
        self.num / self.den
    }

    /// `rational_cast<Float64>`: both terms converted, then divided.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rational {
    fn cmp(&self, other: &Self) -> Ordering {
        wide_mul(self.num, other.den).cmp(&wide_mul(other.num, self.den))
    }
}

/// The number of values of a sampling key type: `2^bits` of its unsigned integer type.
pub fn universe_of(ch_type: &ChType) -> Option<Rational> {
    let bits = match ch_type {
        ChType::UInt8 => 8,
        ChType::UInt16 => 16,
        ChType::UInt32 => 32,
        ChType::UInt64 => 64,
        _ => return None,
    };
    Some(Rational::integer(1u128 << bits))
}

/// What a scan reads of a sampled table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    /// `_sample_factor`: 1 / the relative sample size (1 without sampling).
    pub factor: f64,
    pub range: SampleRange,
}

/// The rows a sample keeps, by their sampling-key value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleRange {
    /// Every row: `SAMPLE 1`, `SAMPLE 0`, or a range covering the whole universe.
    All,
    /// No row: the range is empty or starts past the end.
    Nothing,
    /// `lower <= key` (when `Some`) and `key < upper` (when `Some`); at least one is set.
    Bounded { lower: Option<u64>, upper: Option<u64> },
}

/// A ratio as written: over 1 it is a number of rows, made relative to
/// `approx_total_rows` (ClickHouse's convertAbsoluteSampleSizeToRelative).
fn absolute_to_relative(ratio: SampleRatio, approx_total_rows: u64) -> Result<Rational> {
    if approx_total_rows == 0 {
        return Ok(Rational::ONE);
    }
    let absolute = ratio.numerator / ratio.denominator;
    let relative = Rational::integer(absolute).div(Rational::integer(u128::from(approx_total_rows)))?;
    Ok(relative.min(Rational::ONE))
}

/// Whether the ratios of `sample` are numbers of rows, so [`sampling`] needs the number
/// of rows the query would read without sampling.
pub fn needs_total_rows(sample: &SampleClause) -> Result<bool> {
    let size = Rational::new(sample.size.numerator, sample.size.denominator)?;
    let offset = match sample.offset {
        Some(o) => Rational::new(o.numerator, o.denominator)?,
        None => Rational::ZERO,
    };
    Ok(size > Rational::ONE || offset > Rational::ONE)
}

/// The sample a scan reads, for a sampling key with `universe` values; `approx_total_rows`
/// is asked for only when a ratio is a number of rows.
pub fn sampling(sample: &SampleClause, universe: Rational, approx_total_rows: impl FnOnce() -> Result<u64>) -> Result<Sampling> {
    let mut size = Rational::new(sample.size.numerator, sample.size.denominator)?;
    let mut offset = match sample.offset {
        Some(o) => Rational::new(o.numerator, o.denominator)?,
        None => Rational::ZERO,
    };
    let total_rows = if size > Rational::ONE || offset > Rational::ONE { approx_total_rows()? } else { 0 };
    if size > Rational::ONE {
        size = absolute_to_relative(sample.size, total_rows)?;
    }
    // SAMPLE 1 is no sampling.
    if size == Rational::ONE {
        size = Rational::ZERO;
    }
    if offset > Rational::ZERO && size == Rational::ZERO {
        return Err(Error::new(ErrorCode::ARGUMENT_OUT_OF_BOUND, "Sampling offset is incorrect because no sampling"));
    }
    if offset > Rational::ONE {
        if let Some(ratio) = sample.offset {
            offset = absolute_to_relative(ratio, total_rows)?;
        }
    }
    if size == Rational::ZERO {
        return Ok(Sampling { factor: 1.0, range: SampleRange::All });
    }
    let factor = 1.0 / size.to_f64();
    let mut no_data = offset >= Rational::ONE;
    let lower_limit = offset.mul(universe);
    let upper_limit = offset.add(size).mul(universe);
    // ClickHouse casts the 128-bit integer parts to UInt64 (truncating).
    let lower = lower_limit.floor() as u64;
    let upper = upper_limit.floor() as u64;
    let has_lower = lower > 0;
    let has_upper = upper_limit < universe;
    if (has_upper && upper == 0) || (has_lower && has_upper && lower == upper) {
        no_data = true;
    }
    let range = if no_data {
        SampleRange::Nothing
    } else if !has_lower && !has_upper {
        SampleRange::All
    } else {
        SampleRange::Bounded { lower: has_lower.then_some(lower), upper: has_upper.then_some(upper) }
    };
    Ok(Sampling { factor, range })
}

/// The sampling key's type, checked as ClickHouse checks it at CREATE and at SELECT.
pub fn check_key_type(ch_type: &ChType, elements: usize) -> Result<Rational> {
    match universe_of(ch_type) {
        Some(universe) if elements == 1 => Ok(universe),
        _ => Err(Error::new(
            ErrorCode::ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER,
            format!("Invalid sampling column type in storage parameters: {ch_type}. Must be one unsigned integer type"),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ratio(numerator: u128, denominator: u128) -> SampleRatio {
        SampleRatio { numerator, denominator }
    }

    fn clause(size: (u128, u128), offset: Option<(u128, u128)>) -> SampleClause {
        SampleClause { size: ratio(size.0, size.1), offset: offset.map(|(n, d)| ratio(n, d)) }
    }

    fn range(size: (u128, u128), offset: Option<(u128, u128)>, ch_type: ChType, rows: u64) -> SampleRange {
        sampling(&clause(size, offset), universe_of(&ch_type).unwrap(), || Ok(rows)).unwrap().range
    }

    #[test]
    fn rationals_reduce_and_compare_exactly() {
        assert_eq!(Rational::new(10, 100).unwrap(), Rational::new(1, 10).unwrap());
        assert_eq!(Rational::new(0, 7).unwrap(), Rational::ZERO);
        assert!(Rational::new(1, 0).is_err());
        assert!(Rational::new(u128::MAX, u128::MAX - 1).unwrap() > Rational::ONE);
        assert!(Rational::new(u128::MAX - 1, u128::MAX).unwrap() < Rational::ONE);
        assert_eq!(Rational::new(1, 3).unwrap().add(Rational::new(1, 6).unwrap()), Rational::new(1, 2).unwrap());
        assert_eq!(Rational::new(2, 3).unwrap().mul(Rational::integer(1 << 32)).floor(), 2863311530);
        assert_eq!(wide_mul(u128::MAX, u128::MAX), (u128::MAX - 1, 1));
    }

    #[test]
    fn ranges_follow_clickhouse_rounding() {
        // 0.1 of 2^32 is 429496729.6: the upper bound is its integer part.
        assert_eq!(range((1, 10), None, ChType::UInt32, 0), SampleRange::Bounded { lower: None, upper: Some(429496729) });
        assert_eq!(range((1, 10), Some((1, 2)), ChType::UInt32, 0), SampleRange::Bounded { lower: Some(2147483648), upper: Some(2576980377) });
        // Past the end of the universe the range is cut: no upper bound.
        assert_eq!(range((4, 10), Some((8, 10)), ChType::UInt8, 0), SampleRange::Bounded { lower: Some(204), upper: None });
        assert_eq!(range((1, 10), None, ChType::UInt64, 0), SampleRange::Bounded { lower: None, upper: Some(1844674407370955161) });
        assert_eq!(range((1, 2), None, ChType::UInt16, 0), SampleRange::Bounded { lower: None, upper: Some(32768) });
    }

    #[test]
    fn edge_cases() {
        assert_eq!(range((1, 1), None, ChType::UInt32, 0), SampleRange::All);
        assert_eq!(range((0, 1), None, ChType::UInt32, 0), SampleRange::All);
        // An offset of 1 or more reads nothing.
        assert_eq!(range((1, 2), Some((1, 1)), ChType::UInt32, 0), SampleRange::Nothing);
        // A share smaller than one value of the type: nothing.
        assert_eq!(range((1, 1000), None, ChType::UInt8, 0), SampleRange::Nothing);
        assert_eq!(range((1, 4294967296), None, ChType::UInt32, 0), SampleRange::Bounded { lower: None, upper: Some(1) });
        let err = sampling(&clause((1, 1), Some((1, 2))), universe_of(&ChType::UInt32).unwrap(), || Ok(0)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::ARGUMENT_OUT_OF_BOUND);
        let err = sampling(&clause((1, 0), None), universe_of(&ChType::UInt32).unwrap(), || Ok(0)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::STD_EXCEPTION);
    }

    #[test]
    fn row_counts_become_ratios() {
        let s = sampling(&clause((1000, 1), None), universe_of(&ChType::UInt32).unwrap(), || Ok(100_000)).unwrap();
        assert_eq!(s.factor, 100.0);
        assert_eq!(s.range, SampleRange::Bounded { lower: None, upper: Some(42949672) });
        // More rows asked for than there are: everything, factor 1.
        let s = sampling(&clause((200_000, 1), None), universe_of(&ChType::UInt32).unwrap(), || Ok(100_000)).unwrap();
        assert_eq!((s.factor, s.range), (1.0, SampleRange::All));
        // `SAMPLE 1.5` asks for one row (the integer part).
        let s = sampling(&clause((15, 10), None), universe_of(&ChType::UInt32).unwrap(), || Ok(100_000)).unwrap();
        assert_eq!(s.range, SampleRange::Bounded { lower: None, upper: Some(42949) });
        // An empty table: ratio 1.
        assert_eq!(range((1000, 1), None, ChType::UInt32, 0), SampleRange::All);
        // Rows are counted only for row counts.
        assert!(sampling(&clause((1, 10), None), universe_of(&ChType::UInt32).unwrap(), || panic!("not needed")).is_ok());
    }

    #[test]
    fn key_types() {
        assert!(check_key_type(&ChType::UInt16, 1).is_ok());
        let err = check_key_type(&ChType::Int64, 1).unwrap_err();
        assert_eq!(err.code(), ErrorCode::ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER);
        assert!(err.to_string().contains("Invalid sampling column type in storage parameters: Int64. Must be one unsigned integer type"));
        assert!(check_key_type(&ChType::UInt64, 2).is_err());
        assert!(check_key_type(&ChType::Nullable(Box::new(ChType::UInt32)), 1).is_err());
    }
}
