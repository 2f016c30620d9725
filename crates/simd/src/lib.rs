//! Where given byte values occur in a block of 64 bytes, as one `u64` bit mask per value
//! (bit j: byte j), and the prefix parity of a mask. Text scanners (CSV, TSV) find row
//! and field boundaries from these masks a block at a time instead of byte by byte: the
//! quotes' prefix parity says which bytes are inside quoted fields, so the delimiters and
//! line feeds outside them are found without a branch per byte.
//!
//! On x86_64 the masks are computed with SSE2 (16 bytes per compare), which every x86_64
//! CPU has; elsewhere eight bytes at a time in a `u64` (SWAR). The SSE2 intrinsics are
//! the only unsafe code here: they are `unsafe` to call because of their CPU feature,
//! which the target guarantees.
//!
//! [`lanes`] holds maps over `u64` values compiled for AVX-512 and picked at run time.

pub mod lanes;

/// The bytes one mask covers.
pub const BLOCK: usize = 64;

/// For each needle, the mask of the positions in `block` that hold it.
#[inline(always)]
pub fn byte_masks<const N: usize>(block: &[u8; BLOCK], needles: [u8; N]) -> [u64; N] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        sse2::byte_masks(block, needles)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        swar::byte_masks(block, needles)
    }
}

/// Asks the CPU to start loading the cache line that holds `value`, ahead of a read
/// (gathers in a random order issue these a few rows ahead). A hint only: it never
/// faults and changes no result.
#[inline(always)]
pub fn prefetch_read<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads no data into the program and cannot fault; the address
    // comes from a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((value as *const T).cast::<i8>())
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Bit j of the result: the parity of the set bits of `mask` at positions 0..=j (for a
/// mask of quotes, whether byte j is inside a quoted field opened in this block).
#[inline(always)]
pub fn prefix_xor(mask: u64) -> u64 {
    let mut x = mask;
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};

    use super::BLOCK;

    // Plain index loops, always inlined: the loops over N and over the four lanes must
    // unroll into the caller's block loop (iterator adapters here stayed out of line).
    #[inline(always)]
    pub fn byte_masks<const N: usize>(block: &[u8; BLOCK], needles: [u8; N]) -> [u64; N] {
        // SAFETY: the four 16-byte unaligned loads stay inside the 64 bytes of `block`;
        // SSE2 is enabled for this target (the cfg above).
        let lanes: [__m128i; 4] = std::array::from_fn(|k| unsafe { _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>()) });
        let mut masks = [0u64; N];
        let mut n = 0;
        while n < N {
            // SAFETY: SSE2 is enabled for this target; these read only registers.
            let splat = unsafe { _mm_set1_epi8(needles[n] as i8) };
            let mut mask = 0u64;
            let mut k = 0;
            while k < 4 {
                // SAFETY: as above.
                let bits = unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(lanes[k], splat)) };
                mask |= u64::from(bits as u16) << (16 * k);
                k += 1;
            }
            masks[n] = mask;
            n += 1;
        }
        masks
    }
}

#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
mod swar {
    use super::BLOCK;

    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

    /// One bit per byte of `word` that equals the byte repeated in `pattern`, gathered
    /// into the low eight bits.
    fn equal(word: u64, pattern: u64) -> u64 {
        let x = word ^ pattern;
        // Bit 7 of each byte set where the byte of `x` is zero (no carry leaves a byte).
        let zero = !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7);
        // Bits 7, 15, .. 63 gathered into bits 56..63: each partial product lands on its
        // own bit, so no carries mix them.
        (zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
    }

    pub fn byte_masks<const N: usize>(block: &[u8; BLOCK], needles: [u8; N]) -> [u64; N] {
        let patterns = needles.map(|b| u64::from(b) * 0x0101_0101_0101_0101);
        let mut masks = [0u64; N];
        for (k, eight) in block.chunks_exact(8).enumerate() {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(eight);
            let word = u64::from_le_bytes(bytes);
            for (mask, pattern) in masks.iter_mut().zip(patterns.iter()) {
                *mask |= equal(word, *pattern) << (8 * k);
            }
        }
        masks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(block: &[u8; BLOCK], needle: u8) -> u64 {
        block.iter().enumerate().filter(|(_, b)| **b == needle).fold(0, |m, (j, _)| m | 1 << j)
    }

    #[test]
    fn masks_match_a_plain_comparison() {
        let mut state = 7u64;
        for case in 0..2000 {
            let mut block = [0u8; BLOCK];
            for b in block.iter_mut() {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                // Few distinct values so every needle occurs; some high bytes too.
                *b = [b'"', b',', b'\n', b'\r', b'a', 0x80, 0xff, 0][(state >> 61) as usize];
            }
            if case == 0 {
                block = [b','; BLOCK];
            }
            let needles = [b'"', b',', b'\n', 0xff, 0];
            let expected = needles.map(|n| naive(&block, n));
            assert_eq!(byte_masks(&block, needles), expected);
            assert_eq!(swar::byte_masks(&block, needles), expected);
        }
    }

    #[test]
    fn prefix_xor_is_the_running_parity() {
        for mask in [0u64, 1, 0b1001, 1 << 63, u64::MAX, 0x8000_0000_0000_0001, 0x1234_5678_9abc_def0] {
            let mut parity = 0;
            for j in 0..64 {
                parity ^= (mask >> j) & 1;
                assert_eq!((prefix_xor(mask) >> j) & 1, parity, "mask {mask:#x} bit {j}");
            }
        }
    }
}
