//! Element-wise maps over `u64` values, compiled a second time for AVX-512 and chosen at
//! run time when the CPU has it.
//!
//! Hashes of integers (`cityHash64(n)`, `intHash64`, the mixing of several arguments)
//! are chains of 64-bit multiplications. The x86_64 baseline has no vector 64-bit
//! multiply, and the compiler's SSE2 emulation of it (three 32-bit multiplies per lane,
//! two lanes) ran at half the speed of ClickHouse's scalar code; AVX-512DQ multiplies
//! eight lanes at once. The map is any inlinable function: it is compiled inside the
//! AVX-512 function, so its multiplications use the wide registers.

/// `values[i] = map(values[i])` for every i.
pub fn map_in_place<F: Fn(u64) -> u64>(values: &mut [u64], map: F) {
    #[cfg(target_arch = "x86_64")]
    if has_avx512() {
        // SAFETY: the CPU has the features `avx512::map_in_place` is compiled for.
        return unsafe { avx512::map_in_place(values, map) };
    }
    portable::map_in_place(values, map)
}

/// `values[i] = map(values[i], other[i])` for every i (`other` at least as long).
pub fn zip_in_place<F: Fn(u64, u64) -> u64>(values: &mut [u64], other: &[u64], map: F) {
    #[cfg(target_arch = "x86_64")]
    if has_avx512() {
        // SAFETY: the CPU has the features `avx512::zip_in_place` is compiled for.
        return unsafe { avx512::zip_in_place(values, other, map) };
    }
    portable::zip_in_place(values, other, map)
}

/// `values` folded with `combine` (associative and commutative, such as `max`), or None
/// when empty. Sixteen independent accumulators let the compiler keep them in vector
/// registers: `u64::max` becomes one `vpmaxuq` per eight values with AVX-512, where the
/// baseline x86_64 build (SSE2 has no 64-bit compare) loops one value at a time.
pub fn reduce<T: Copy, F: Fn(T, T) -> T>(values: &[T], combine: F) -> Option<T> {
    #[cfg(target_arch = "x86_64")]
    if has_avx512() {
        // SAFETY: the CPU has the features `avx512::reduce` is compiled for.
        return unsafe { avx512::reduce(values, combine) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { avx2::reduce(values, combine) };
    }
    portable::reduce(values, combine)
}

#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    // std caches the CPUID answer: an atomic load per call.
    std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512dq") && std::arch::is_x86_feature_detected!("avx512vl")
}

mod portable {
    const LANES: usize = 16;

    #[inline(always)]
    pub fn reduce<T: Copy, F: Fn(T, T) -> T>(values: &[T], combine: F) -> Option<T> {
        let first = *values.first()?;
        let mut lanes = [first; LANES];
        let mut chunks = values.chunks_exact(LANES);
        for chunk in &mut chunks {
            let Ok(chunk) = <&[T; LANES]>::try_from(chunk) else { continue };
            for i in 0..LANES {
                lanes[i] = combine(lanes[i], chunk[i]);
            }
        }
        let mut result = first;
        for lane in lanes {
            result = combine(result, lane);
        }
        for &value in chunks.remainder() {
            result = combine(result, value);
        }
        Some(result)
    }

    #[inline(always)]
    pub fn map_in_place<F: Fn(u64) -> u64>(values: &mut [u64], map: F) {
        for value in values.iter_mut() {
            *value = map(*value);
        }
    }

    #[inline(always)]
    pub fn zip_in_place<F: Fn(u64, u64) -> u64>(values: &mut [u64], other: &[u64], map: F) {
        let other = &other[..values.len()];
        for (value, &second) in values.iter_mut().zip(other) {
            *value = map(*value, second);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    /// # Safety
    /// The CPU must have AVX-512F, DQ and VL.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    pub unsafe fn map_in_place<F: Fn(u64) -> u64>(values: &mut [u64], map: F) {
        super::portable::map_in_place(values, map)
    }

    /// # Safety
    /// The CPU must have AVX-512F, DQ and VL.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    pub unsafe fn reduce<T: Copy, F: Fn(T, T) -> T>(values: &[T], combine: F) -> Option<T> {
        super::portable::reduce(values, combine)
    }

    /// # Safety
    /// The CPU must have AVX-512F, DQ and VL.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    pub unsafe fn zip_in_place<F: Fn(u64, u64) -> u64>(values: &mut [u64], other: &[u64], map: F) {
        super::portable::zip_in_place(values, other, map)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn reduce<T: Copy, F: Fn(T, T) -> T>(values: &[T], combine: F) -> Option<T> {
        super::portable::reduce(values, combine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix(x: u64) -> u64 {
        (x ^ (x >> 33)).wrapping_mul(0xff51afd7ed558ccd)
    }

    #[test]
    fn reduce_agrees_with_the_scalar_fold() {
        assert_eq!(reduce(&[] as &[u64], u64::max), None);
        for len in [1, 7, 15, 16, 17, 33, 1000] {
            let values: Vec<u64> = (0..len as u64).map(|i| i.wrapping_mul(0x9e3779b97f4a7c15)).collect();
            assert_eq!(reduce(&values, u64::max), values.iter().copied().max());
            assert_eq!(reduce(&values, u64::min), values.iter().copied().min());
            let signed: Vec<i8> = values.iter().map(|&v| v as i8).collect();
            assert_eq!(reduce(&signed, i8::max), signed.iter().copied().max());
            assert_eq!(reduce(&signed, i8::min), signed.iter().copied().min());
        }
    }

    #[test]
    fn maps_agree_with_the_scalar_loop() {
        for len in [0, 1, 7, 8, 9, 63, 64, 65, 1000] {
            let input: Vec<u64> = (0..len as u64).map(|i| i.wrapping_mul(0x9e3779b97f4a7c15)).collect();
            let mut mapped = input.clone();
            map_in_place(&mut mapped, mix);
            assert_eq!(mapped, input.iter().map(|&x| mix(x)).collect::<Vec<_>>());
            let other: Vec<u64> = input.iter().map(|x| x.rotate_left(7)).collect();
            let mut zipped = input.clone();
            zip_in_place(&mut zipped, &other, |a, b| mix(a ^ b).wrapping_mul(b | 1));
            assert_eq!(zipped, input.iter().zip(&other).map(|(&a, &b)| mix(a ^ b).wrapping_mul(b | 1)).collect::<Vec<_>>());
        }
    }
}
