//! Unsigned division by a constant as one high multiplication and shifts: libdivide's
//! branching algorithm (`libdivide_u64_gen`), which ClickHouse uses for `intDiv` and `%`
//! by constants. A hardware 64-bit division takes 20-40 cycles, and the two-multiply
//! reduction of the `strength_reduce` crate used before was twice as slow per value.

use datafusion::arrow::array::PrimitiveArray;
use datafusion::arrow::datatypes::ArrowPrimitiveType;

#[derive(Clone, Copy, Debug)]
pub(crate) struct ConstantDivisor {
    divisor: u64,
    /// 0 for a power of two (a shift alone).
    magic: u64,
    shift: u32,
    /// The 65-bit multiplier case: the quotient needs an extra add and halving.
    add: bool,
}

impl ConstantDivisor {
    /// `None` for zero.
    pub(crate) fn new(divisor: u64) -> Option<ConstantDivisor> {
        if divisor == 0 {
            return None;
        }
        let log = 63 - divisor.leading_zeros();
        if divisor.is_power_of_two() {
            return Some(ConstantDivisor { divisor, magic: 0, shift: log, add: false });
        }
        // 2^(64 + log) / divisor fits in 64 bits because divisor > 2^log.
        let numerator = 1u128 << (64 + log);
        let mut proposed = (numerator / divisor as u128) as u64;
        let remainder = (numerator % divisor as u128) as u64;
        let add = divisor - remainder >= 1u64 << log;
        if add {
            proposed = proposed.wrapping_add(proposed);
            let twice = remainder.wrapping_add(remainder);
            if twice >= divisor || twice < remainder {
                proposed = proposed.wrapping_add(1);
            }
        }
        Some(ConstantDivisor { divisor, magic: proposed.wrapping_add(1), shift: log, add })
    }

    pub(crate) fn divisor(&self) -> u64 {
        self.divisor
    }

    #[inline(always)]
    fn high(&self, x: u64) -> u64 {
        ((x as u128 * self.magic as u128) >> 64) as u64
    }

    /// One quotient, for checking [`ConstantDivisor::map`]'s hoisted cases.
    #[cfg(test)]
    pub(crate) fn quotient(&self, x: u64) -> u64 {
        if self.magic == 0 {
            x >> self.shift
        } else if self.add {
            let q = self.high(x);
            (((x - q) >> 1) + q) >> self.shift
        } else {
            self.high(x) >> self.shift
        }
    }

    /// `f(x, operand(x) / divisor)` for every value of `values`, with the divisor's case
    /// chosen once for the array rather than per value.
    #[inline(always)]
    pub(crate) fn map<T: ArrowPrimitiveType, O: ArrowPrimitiveType>(
        &self,
        values: &PrimitiveArray<T>,
        operand: impl Fn(T::Native) -> u64,
        f: impl Fn(T::Native, u64) -> O::Native,
    ) -> PrimitiveArray<O> {
        let d = *self;
        if d.magic == 0 {
            values.unary(|x| f(x, operand(x) >> d.shift))
        } else if d.add {
            values.unary(|x| {
                let n = operand(x);
                let q = d.high(n);
                f(x, (((n - q) >> 1) + q) >> d.shift)
            })
        } else {
            values.unary(|x| f(x, d.high(operand(x)) >> d.shift))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::UInt64Array;
    use datafusion::arrow::datatypes::UInt64Type;

    #[test]
    fn matches_hardware_division() {
        let mut divisors: Vec<u64> = (1..=300).collect();
        divisors.extend([1000, 4096, 5000, 100000, 1000000, 5000000, 1 << 32, (1 << 32) + 1, 3 << 40, 10_000_000_019]);
        divisors.extend([u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) + 1, (1 << 63) - 1, u64::MAX / 3, u64::MAX / 7 + 1]);
        let mut numerators: Vec<u64> = (0..1000).collect();
        numerators.extend([u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) - 1, (1 << 63) + 1, u32::MAX as u64, 1 << 32]);
        // A fixed pseudo-random spread over the whole range.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            numerators.push(x);
            divisors.push(x >> (x % 64));
        }
        let column = UInt64Array::from(numerators.clone());
        for &d in divisors.iter().filter(|&&d| d != 0) {
            let divisor = ConstantDivisor::new(d).expect("non-zero");
            for &n in &numerators {
                assert_eq!(divisor.quotient(n), n / d, "{n} / {d}");
            }
            let remainders = divisor.map::<UInt64Type, UInt64Type>(&column, |x| x, |x, q| x - q * divisor.divisor());
            let expected: Vec<u64> = numerators.iter().map(|n| n % d).collect();
            assert_eq!(remainders.values().to_vec(), expected, "% {d}");
        }
        assert!(ConstantDivisor::new(0).is_none());
    }
}
