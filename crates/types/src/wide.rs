//! ClickHouse's wide integers: `Int128`, `UInt128`, `Int256`, `UInt256`.
//!
//! Arrow has no 128- or 256-bit integer type; its scale-0 decimals hold the same
//! two's-complement words, and DataFusion sorts, hashes, groups, compares (also with
//! other numbers, by its decimal coercions) and aggregates them natively. So:
//!
//! | ClickHouse | Arrow | why |
//! |---|---|---|
//! | `Int128` | `Decimal128(38, 0)` | same 16 bytes |
//! | `UInt128` | `Decimal256(39, 0)` | 2^128-1 does not fit an `i128`; zero-extended into 32 bytes |
//! | `Int256` | `Decimal256(76, 0)` | same 32 bytes |
//! | `UInt256` | `Decimal256(76, 0)` | the raw 256 bits (see below) |
//!
//! The exact type is in the field metadata (`granary.ch_type`), as for `Date`/`Date32`.
//! Values may exceed the decimal's nominal precision (`i128::MAX` has 39 digits): Granary
//! never validates the precision of these columns; text, binary formats and functions
//! convert through this module.
//!
//! `UInt256` keeps its raw bits, so values from 2^255 up read as negative to Arrow. The
//! alternative, storing `value - 2^255` so that the native order is right, would make
//! every comparison with a constant or another column of a different type wrong
//! (DataFusion compares the stored words after its own coercion). So what orders
//! `UInt256` values goes through [`unsigned_order_key`] (the bits with the top one
//! flipped, as ClickHouse's radix sort orders unsigned keys): ORDER BY keys, `min`/`max`,
//! `argMin`/`argMax`, and comparisons ([`compare_words`]).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, FixedSizeBinaryArray, PrimitiveArray};
use arrow::datatypes::{i256, DataType, Decimal128Type, Decimal256Type};
use granary_common::{Error, ErrorCode, Result};

use crate::ChType;

/// One of the four wide integer types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WideInt {
    Int128,
    UInt128,
    Int256,
    UInt256,
}

/// Why a text value is not a wide integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WideParseError {
    Empty,
    /// No digit at the start.
    AtBegin,
    /// Digits, then something else at this byte position.
    Trailing(usize),
    /// A minus sign for an unsigned type.
    Negative,
}

impl WideInt {
    /// The wide integer type `t` is (not looking through `Nullable`).
    pub fn of(t: &ChType) -> Option<WideInt> {
        Some(match t {
            ChType::Int128 => WideInt::Int128,
            ChType::UInt128 => WideInt::UInt128,
            ChType::Int256 => WideInt::Int256,
            ChType::UInt256 => WideInt::UInt256,
            _ => return None,
        })
    }

    pub fn ch_type(self) -> ChType {
        match self {
            WideInt::Int128 => ChType::Int128,
            WideInt::UInt128 => ChType::UInt128,
            WideInt::Int256 => ChType::Int256,
            WideInt::UInt256 => ChType::UInt256,
        }
    }

    pub fn arrow_type(self) -> DataType {
        match self {
            WideInt::Int128 => DataType::Decimal128(38, 0),
            WideInt::UInt128 => DataType::Decimal256(39, 0),
            WideInt::Int256 | WideInt::UInt256 => DataType::Decimal256(76, 0),
        }
    }

    /// Bytes of a value in ClickHouse's binary formats.
    pub fn byte_width(self) -> usize {
        match self {
            WideInt::Int128 | WideInt::UInt128 => 16,
            WideInt::Int256 | WideInt::UInt256 => 32,
        }
    }

    pub fn is_signed(self) -> bool {
        matches!(self, WideInt::Int128 | WideInt::Int256)
    }

    /// `v` (256 bits of two's complement) reduced modulo 2^bits, as this type holds it:
    /// ClickHouse's wrapping conversion (`toInt128(toUInt256(...))`).
    #[inline]
    pub fn wrap(self, v: i256) -> i256 {
        match self {
            WideInt::Int128 => i256::from_i128(v.as_i128()),
            WideInt::UInt128 => i256::from_parts(v.to_parts().0, 0),
            WideInt::Int256 | WideInt::UInt256 => v,
        }
    }

    /// The values of an array of this type as 256-bit words (sign- or zero-extended).
    pub fn widen(self, array: &dyn Array) -> Result<PrimitiveArray<Decimal256Type>> {
        match array.data_type() {
            DataType::Decimal128(..) => Ok(array.as_primitive::<Decimal128Type>().unary(i256::from_i128)),
            DataType::Decimal256(..) => Ok(array.as_primitive::<Decimal256Type>().clone()),
            other => Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("{} held as {other}", self.ch_type()))),
        }
    }

    /// The value at `row` of an array of this type as a 256-bit word.
    pub fn value(self, array: &dyn Array, row: usize) -> Option<i256> {
        match array.data_type() {
            DataType::Decimal128(..) => Some(i256::from_i128(array.as_primitive::<Decimal128Type>().value(row))),
            DataType::Decimal256(..) => Some(array.as_primitive::<Decimal256Type>().value(row)),
            _ => None,
        }
    }

    /// An array of this type from 256-bit words, each wrapped into the type's range.
    pub fn narrow(self, values: &PrimitiveArray<Decimal256Type>) -> ArrayRef {
        match self {
            WideInt::Int128 => {
                let out: PrimitiveArray<Decimal128Type> = values.unary(|v| v.as_i128());
                Arc::new(out.with_data_type(self.arrow_type()))
            }
            WideInt::UInt128 => Arc::new(values.unary::<_, Decimal256Type>(|v| self.wrap(v)).with_data_type(self.arrow_type())),
            WideInt::Int256 | WideInt::UInt256 => Arc::new(values.clone().with_data_type(self.arrow_type())),
        }
    }

    /// The values as ClickHouse's Arrow and Parquet outputs write them: `FixedSizeBinary`
    /// of the type's width, little-endian two's complement (NULL slots zero).
    pub fn to_fixed_binary(self, array: &dyn Array) -> Result<FixedSizeBinaryArray> {
        let words = self.widen(array)?;
        let width = self.byte_width();
        let mut bytes = Vec::with_capacity(words.len() * width);
        for v in words.values().iter() {
            bytes.extend_from_slice(&v.to_le_bytes()[..width]);
        }
        Ok(FixedSizeBinaryArray::try_new(width as i32, bytes.into(), words.nulls().cloned())?)
    }

    /// Reads what [`WideInt::to_fixed_binary`] writes; `None` when the width is not the
    /// type's.
    pub fn from_fixed_binary(self, array: &FixedSizeBinaryArray) -> Option<ArrayRef> {
        let width = self.byte_width();
        if array.value_length() as usize != width {
            return None;
        }
        let words: Vec<i256> = (0..array.len())
            .map(|i| {
                let mut le = [0u8; 32];
                le[..width].copy_from_slice(array.value(i));
                // Sign-extend Int128 from its 16 bytes.
                if self == WideInt::Int128 && le[15] & 0x80 != 0 {
                    le[16..].fill(0xff);
                }
                i256::from_le_bytes(le)
            })
            .collect();
        Some(self.narrow(&PrimitiveArray::<Decimal256Type>::new(words.into(), array.nulls().cloned())))
    }

    /// The value as the nearest `f64`.
    pub fn to_f64(self, v: i256) -> f64 {
        // Parts of one sign, so that nothing cancels (-7 is 2^128 - 7 plus -1 * 2^128).
        let unsigned_f64 = |v: i256| {
            let (low, high) = v.to_parts();
            (high as u128) as f64 * 2f64.powi(128) + low as f64
        };
        match v.to_i128() {
            Some(small) if self != WideInt::UInt256 || !v.is_negative() => small as f64,
            _ if self == WideInt::UInt256 || !v.is_negative() => unsigned_f64(v),
            // The magnitude of i256::MIN is 2^255, which `wrapping_neg` leaves as the
            // same bits: read unsigned, that is right.
            _ => -unsigned_f64(v.wrapping_neg()),
        }
    }

    /// Appends the decimal text of `v`.
    pub fn write(self, v: i256, out: &mut Vec<u8>) {
        if self == WideInt::UInt256 && v.is_negative() {
            write_unsigned(v, out);
        } else if let Some(small) = v.to_i128() {
            out.extend_from_slice(itoa::Buffer::new().format(small).as_bytes());
        } else {
            out.extend_from_slice(v.to_string().as_bytes());
        }
    }

    /// The decimal text of `v`.
    pub fn to_text(self, v: i256) -> String {
        let mut out = Vec::with_capacity(40);
        self.write(v, &mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// Reads `[-|+]digits`; a value out of range wraps around (as ClickHouse's
    /// `toInt128('...')` does). Also returns whether the value fit the type.
    pub fn parse(self, text: &[u8]) -> std::result::Result<(i256, bool), WideParseError> {
        let (negative, start) = match text.first() {
            None => return Err(WideParseError::Empty),
            Some(b'-') => (true, 1),
            Some(b'+') => (false, 1),
            Some(_) => (false, 0),
        };
        if negative && !self.is_signed() {
            return Err(WideParseError::Negative);
        }
        let digits_end = text[start..].iter().position(|d| !d.is_ascii_digit()).map_or(text.len(), |p| start + p);
        if digits_end == start {
            return Err(if start == text.len() { WideParseError::Empty } else { WideParseError::AtBegin });
        }
        if digits_end < text.len() {
            return Err(WideParseError::Trailing(digits_end));
        }
        let digits = &text[start..digits_end];
        let ten = i256::from_i128(10);
        let magnitude = digits.iter().fold(i256::ZERO, |acc, d| acc.wrapping_mul(ten).wrapping_add(i256::from_i128((d - b'0') as i128)));
        let significant = &digits[digits.iter().position(|d| *d != b'0').unwrap_or(digits.len())..];
        let limit = self.magnitude_limit(negative).as_bytes();
        let fits = significant.len() < limit.len() || (significant.len() == limit.len() && significant <= limit);
        let value = if negative { magnitude.wrapping_neg() } else { magnitude };
        Ok((self.wrap(value), fits))
    }

    /// The largest magnitude of a value of this sign, in decimal.
    fn magnitude_limit(self, negative: bool) -> &'static str {
        match (self, negative) {
            (WideInt::Int128, false) => "170141183460469231731687303715884105727",
            (WideInt::Int128, true) => "170141183460469231731687303715884105728",
            (WideInt::UInt128, _) => "340282366920938463463374607431768211455",
            (WideInt::Int256, false) => "57896044618658097711785492504343953926634992332820282019728792003956564819967",
            (WideInt::Int256, true) => "57896044618658097711785492504343953926634992332820282019728792003956564819968",
            (WideInt::UInt256, _) => "115792089237316195423570985008687907853269984665640564039457584007913129639935",
        }
    }
}

/// A `UInt256`'s key whose signed order is the values' unsigned order; its own inverse.
#[inline]
pub fn unsigned_order_key(v: i256) -> i256 {
    v ^ i256::MIN
}

/// [`unsigned_order_key`] of every value (NULL slots keep theirs, ignored).
pub fn unsigned_order_keys(words: &PrimitiveArray<Decimal256Type>) -> PrimitiveArray<Decimal256Type> {
    words.unary(unsigned_order_key).with_data_type(words.data_type().clone())
}

/// The mathematical order of two integers held as 256-bit words: `*_is_uint256` tells
/// that a word is a `UInt256`'s raw bits, otherwise it is the (sign- or zero-extended)
/// value itself.
#[inline]
pub fn compare_words(x: i256, x_is_uint256: bool, y: i256, y_is_uint256: bool) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (x_is_uint256, y_is_uint256) {
        (false, false) => x.cmp(&y),
        (true, false) if y.is_negative() => Ordering::Greater,
        (false, true) if x.is_negative() => Ordering::Less,
        // Both sides are non-negative values now.
        _ => unsigned_order_key(x).cmp(&unsigned_order_key(y)),
    }
}

/// Appends the text of the 256 bits of `v` read as an unsigned number.
fn write_unsigned(v: i256, out: &mut Vec<u8>) {
    // v / 10 as unsigned: halve with a logical shift (now below 2^255, so signed division
    // is right), divide by 5; the last digit is what the quotient leaves.
    let half: i256 = (v >> 1u8) & i256::MAX;
    let quotient = half.wrapping_div(i256::from_i128(5));
    let digit = v.wrapping_sub(quotient.wrapping_mul(i256::from_i128(10))).as_i128() as u8;
    out.extend_from_slice(quotient.to_string().as_bytes());
    out.push(b'0' + digit);
}

/// `v` truncated toward zero and reduced modulo 2^256 (callers wrap further to their
/// type), as ClickHouse converts floats to wide integers. `None` for NaN and infinities.
/// Exact; ClickHouse computes magnitudes from 2^63 up in x87 long double steps of
/// 2^64-1, which loses low bits (`toInt128(1e40)` ends in ...528221 there, ...758528 here).
pub fn f64_to_i256_wrapping(v: f64) -> Option<i256> {
    if !v.is_finite() {
        return None;
    }
    let t = v.trunc();
    if t.abs() < 1.7e38 {
        return Some(i256::from_i128(t as i128));
    }
    // |t| = mantissa * 2^exponent with a 53-bit mantissa; exponent >= 75 here.
    let bits = t.abs().to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1075;
    let mantissa = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let magnitude = if exponent >= 256 { i256::ZERO } else { shift_left(i256::from_i128(mantissa as i128), exponent as u32) };
    Some(if t < 0.0 { magnitude.wrapping_neg() } else { magnitude })
}

fn shift_left(v: i256, by: u32) -> i256 {
    // `i256 << u8` takes shifts below 256 only.
    if by >= 256 {
        i256::ZERO
    } else {
        v << (by as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(w: WideInt, s: &str) -> String {
        let (v, _) = w.parse(s.as_bytes()).unwrap();
        w.to_text(v)
    }

    #[test]
    fn parses_and_prints_the_boundaries() {
        for (w, s) in [
            (WideInt::Int128, "170141183460469231731687303715884105727"),
            (WideInt::Int128, "-170141183460469231731687303715884105728"),
            (WideInt::UInt128, "340282366920938463463374607431768211455"),
            (WideInt::Int256, "-57896044618658097711785492504343953926634992332820282019728792003956564819968"),
            (WideInt::UInt256, "115792089237316195423570985008687907853269984665640564039457584007913129639935"),
            (WideInt::UInt256, "57896044618658097711785492504343953926634992332820282019728792003956564819968"),
            (WideInt::UInt256, "0"),
        ] {
            assert_eq!(text(w, s), s);
            assert!(w.parse(s.as_bytes()).unwrap().1);
        }
    }

    #[test]
    fn wraps_out_of_range_text() {
        assert_eq!(text(WideInt::Int128, "170141183460469231731687303715884105728"), "-170141183460469231731687303715884105728");
        assert!(!WideInt::Int128.parse(b"170141183460469231731687303715884105728").unwrap().1);
        assert_eq!(text(WideInt::Int128, "99999999999999999999999999999999999999999999"), "-140296523870011835749384403451373420545");
        assert_eq!(text(WideInt::UInt256, "115792089237316195423570985008687907853269984665640564039457584007913129639936"), "0");
        assert_eq!(WideInt::UInt128.parse(b"-1"), Err(WideParseError::Negative));
        assert_eq!(WideInt::Int128.parse(b"12 "), Err(WideParseError::Trailing(2)));
        assert_eq!(WideInt::Int128.parse(b"abc"), Err(WideParseError::AtBegin));
    }

    #[test]
    fn converts_floats_as_clickhouse() {
        let v = f64_to_i256_wrapping(2f64.powi(200) * -3.0).unwrap();
        assert_eq!(v, i256::from_i128(-3) << 200u8);
        assert_eq!(f64_to_i256_wrapping(2f64.powi(300)), Some(i256::ZERO));
        assert_eq!(f64_to_i256_wrapping(1e30), Some(i256::from_i128(1e30 as i128)));
        assert_eq!(f64_to_i256_wrapping(f64::NAN), None);
        assert_eq!(f64_to_i256_wrapping(-3.7), Some(i256::from_i128(-3)));
        assert_eq!(WideInt::UInt256.to_f64(i256::MINUS_ONE), 2f64.powi(256));
        assert_eq!(WideInt::Int128.to_f64(i256::from_i128(-7)), -7.0);
        assert_eq!(WideInt::Int256.to_f64(i256::MIN), -(2f64.powi(255)));
        assert_eq!(WideInt::Int256.to_f64(i256::from_i128(-3) << 200u8), -3.0 * 2f64.powi(200));
    }

    #[test]
    fn orders_uint256_as_unsigned() {
        use std::cmp::Ordering;
        let top = i256::MINUS_ONE; // 2^256 - 1 as UInt256
        let half = i256::MIN; // 2^255 as UInt256
        assert_eq!(compare_words(top, true, i256::ONE, true), Ordering::Greater);
        assert_eq!(compare_words(half, true, top, true), Ordering::Less);
        assert_eq!(compare_words(top, true, i256::MINUS_ONE, false), Ordering::Greater);
        assert_eq!(compare_words(i256::MINUS_ONE, false, i256::ZERO, true), Ordering::Less);
        assert_eq!(compare_words(i256::from_i128(5), false, i256::from_i128(5), true), Ordering::Equal);
        assert_eq!(compare_words(i256::from_i128(-5), false, i256::from_i128(3), false), Ordering::Less);
        assert!(unsigned_order_key(top) > unsigned_order_key(i256::ZERO));
        assert_eq!(unsigned_order_key(unsigned_order_key(half)), half);
    }

    #[test]
    fn fixed_binary_round_trips() {
        for kind in [WideInt::Int128, WideInt::UInt128, WideInt::Int256, WideInt::UInt256] {
            let words = PrimitiveArray::<Decimal256Type>::from(vec![Some(i256::MINUS_ONE), None, Some(i256::from_i128(7))]);
            let column = kind.narrow(&words);
            let binary = kind.to_fixed_binary(column.as_ref()).unwrap();
            assert_eq!(binary.value(0).len(), kind.byte_width());
            let back = kind.from_fixed_binary(&binary).unwrap();
            assert_eq!(&back, &column, "{kind:?}");
        }
    }
}
