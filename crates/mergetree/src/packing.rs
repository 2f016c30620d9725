//! Bit-packed integers: the value buffer of an integer granule stored in the few bits its
//! values need (format version 4).
//!
//! Why: LZ4 finds no repeat in a sorted key (every value differs from the ones before it
//! in its low bytes), so a granule of sorted `UInt64` ids decoded as one 8-byte literal
//! per value, and that decoding was half the time of a full scan. Packed against the
//! previous value (delta mode), sequential ids need 0 bits each: the granule is its
//! header, and decoding is a fill. Small numbers (counters, codes, dates, foreign keys)
//! pack against the granule's minimum (frame-of-reference mode) into a fraction of their
//! width. String offsets pack in delta mode: what is stored is the strings' lengths.
//! The block codec (LZ4, ZSTD) still runs over the result, as the column says.
//!
//! A buffer is packed only when that at least halves it: unpacking costs more than a
//! copy, so a small saving is not worth it, and the packed width is then at most half the
//! value width (at most 32 bits), which is what lets [`unpack`] read every value with one
//! unaligned 8-byte load.
//!
//! Layout of a packed buffer (little-endian):
//!
//! ```text
//! u8   mode: 0 frame of reference (value i = base + packed i),
//!            1 delta (value 0 = first, value i = value i-1 + base + packed i-1)
//! u8   bits per packed value (0 to 56)
//! 6    zero bytes
//! u64  base
//! u64  first (0 in frame-of-reference mode)
//! ...  the packed values, value j at bit j * bits of this stream, LSB first,
//!      ceil(count * bits / 8) bytes, then 8 zero bytes
//! ```
//!
//! Values are taken in an order-preserving unsigned domain (signed integers with their
//! sign bit flipped), so small negative and positive numbers pack as tightly as small
//! positive ones, and arithmetic wraps in 64 bits.

use arrow::buffer::MutableBuffer;
use arrow::datatypes::{ArrowNativeType, DataType};
use granary_common::Result;

use crate::encoding::corrupted;

const HEADER_LEN: usize = 24;
/// Zero bytes after the packed values, so the 8-byte load of the last value stays inside
/// the buffer.
const TAIL_LEN: usize = 8;
const MODE_FRAME_OF_REFERENCE: u8 = 0;
const MODE_DELTA: u8 = 1;
/// Widest packed value a reader accepts: a value and its bit offset in a byte fit one
/// 8-byte load.
const MAX_BITS: u32 = 56;

/// An integer type whose values may be packed: its width in bytes and signedness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedType {
    width: usize,
    signed: bool,
}

impl PackedType {
    /// The `i32` offsets of String and Binary values.
    pub const STRING_OFFSETS: PackedType = PackedType { width: 4, signed: true };

    /// The packing of `data_type`'s values, or None when they are not integers (floats,
    /// decimals and wider types are stored as they are).
    pub fn of(data_type: &DataType) -> Option<PackedType> {
        use DataType::*;
        let signed = match data_type {
            UInt8 | UInt16 | UInt32 | UInt64 => false,
            Int8 | Int16 | Int32 | Int64 | Date32 | Date64 | Time32(_) | Time64(_) | Timestamp(_, _) | Duration(_) => true,
            _ => return None,
        };
        let width = data_type.primitive_width()?;
        matches!(width, 1 | 2 | 4 | 8).then_some(PackedType { width, signed })
    }

    pub fn width(self) -> usize {
        self.width
    }

    /// XORed into values to map them to the unsigned domain and back.
    fn sign_flip(self) -> u64 {
        if self.signed {
            1u64 << (self.width * 8 - 1)
        } else {
            0
        }
    }
}

/// How a buffer will be packed: computed from its values by [`plan`], then written by
/// [`Plan::write`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    ty: PackedType,
    mode: u8,
    bits: u32,
    base: u64,
    first: u64,
    count: usize,
}

fn bits_for(range: u64) -> u32 {
    64 - range.leading_zeros()
}

/// Values of `W` bytes in the unsigned domain.
fn values<const W: usize>(bytes: &[u8], flip: u64) -> impl Iterator<Item = u64> + Clone + '_ {
    bytes.chunks_exact(W).map(move |chunk| {
        let mut le = [0u8; 8];
        le[..W].copy_from_slice(chunk);
        u64::from_le_bytes(le) ^ flip
    })
}

/// The packing of `bytes` (values of `ty`), or None when packing would not halve them.
pub fn plan(bytes: &[u8], ty: PackedType) -> Option<Plan> {
    match ty.width {
        1 => plan_width::<1>(bytes, ty),
        2 => plan_width::<2>(bytes, ty),
        4 => plan_width::<4>(bytes, ty),
        8 => plan_width::<8>(bytes, ty),
        _ => None,
    }
}

fn plan_width<const W: usize>(bytes: &[u8], ty: PackedType) -> Option<Plan> {
    if bytes.len() % W != 0 {
        return None;
    }
    let rows = bytes.len() / W;
    let mut iter = values::<W>(bytes, ty.sign_flip());
    let first = iter.next()?;
    let (mut min, mut max) = (first, first);
    let (mut delta_min, mut delta_max) = (u64::MAX, 0u64);
    let mut previous = first;
    for v in iter {
        min = min.min(v);
        max = max.max(v);
        let delta = v.wrapping_sub(previous);
        delta_min = delta_min.min(delta);
        delta_max = delta_max.max(delta);
        previous = v;
    }
    let frame_bits = bits_for(max - min);
    let delta_bits = if rows > 1 { bits_for(delta_max - delta_min) } else { u32::MAX };
    // Equal widths: frame of reference, whose values decode independently of each other.
    let plan = if delta_bits < frame_bits {
        Plan { ty, mode: MODE_DELTA, bits: delta_bits, base: delta_min, first, count: rows - 1 }
    } else {
        Plan { ty, mode: MODE_FRAME_OF_REFERENCE, bits: frame_bits, base: min, first: 0, count: rows }
    };
    (plan.len() * 2 <= bytes.len()).then_some(plan)
}

impl Plan {
    fn packed_len(&self) -> usize {
        (self.count * self.bits as usize).div_ceil(8)
    }

    /// Bytes [`Plan::write`] appends.
    pub fn len(&self) -> usize {
        HEADER_LEN + self.packed_len() + TAIL_LEN
    }

    /// Appends the packed form of `bytes`, the values this plan was made from.
    pub fn write(&self, bytes: &[u8], out: &mut Vec<u8>) {
        out.reserve(self.len());
        out.push(self.mode);
        out.push(self.bits as u8);
        out.extend_from_slice(&[0u8; 6]);
        out.extend_from_slice(&self.base.to_le_bytes());
        out.extend_from_slice(&self.first.to_le_bytes());
        let start = out.len();
        if self.bits > 0 {
            match self.ty.width {
                1 => self.write_packed::<1>(bytes, out),
                2 => self.write_packed::<2>(bytes, out),
                4 => self.write_packed::<4>(bytes, out),
                _ => self.write_packed::<8>(bytes, out),
            }
        }
        out.truncate(start + self.packed_len());
        out.resize(start + self.packed_len() + TAIL_LEN, 0);
    }

    fn write_packed<const W: usize>(&self, bytes: &[u8], out: &mut Vec<u8>) {
        let values = values::<W>(bytes, self.ty.sign_flip());
        let mut writer = BitWriter { out, word: 0, filled: 0, bits: self.bits };
        if self.mode == MODE_DELTA {
            let mut previous = self.first;
            for v in values.skip(1) {
                writer.push(v.wrapping_sub(previous).wrapping_sub(self.base));
                previous = v;
            }
        } else {
            for v in values {
                writer.push(v - self.base);
            }
        }
        writer.finish();
    }
}

/// Appends values of `bits` bits (1 to 56) LSB first, a 64-bit word at a time.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    word: u64,
    filled: u32,
    bits: u32,
}

impl BitWriter<'_> {
    fn push(&mut self, value: u64) {
        self.word |= value << self.filled;
        self.filled += self.bits;
        if self.filled >= 64 {
            self.out.extend_from_slice(&self.word.to_le_bytes());
            self.filled -= 64;
            // The high bits of `value` that did not fit the full word.
            self.word = if self.filled == 0 { 0 } else { value >> (self.bits - self.filled) };
        }
    }

    fn finish(self) {
        if self.filled > 0 {
            self.out.extend_from_slice(&self.word.to_le_bytes());
        }
    }
}

/// Appends the `rows` values of `ty` packed in `stored` to `values`.
pub fn unpack(stored: &[u8], rows: usize, ty: PackedType, values: &mut MutableBuffer) -> Result<()> {
    let header = stored.get(..HEADER_LEN).ok_or_else(|| corrupted(format!("packed buffer of {} bytes has no header", stored.len())))?;
    let (mode, bits) = (header[0], u32::from(header[1]));
    let word = |at: usize| u64::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3], header[at + 4], header[at + 5], header[at + 6], header[at + 7]]);
    let (base, first) = (word(8), word(16));
    let count = match mode {
        MODE_FRAME_OF_REFERENCE => rows,
        MODE_DELTA if rows > 0 => rows - 1,
        other => return Err(corrupted(format!("unknown packing mode {other} for {rows} values"))),
    };
    if bits > MAX_BITS.min(ty.width as u32 * 8) {
        return Err(corrupted(format!("{bits} bits per packed value of {} bytes", ty.width)));
    }
    let packed = &stored[HEADER_LEN..];
    if packed.len() < (count * bits as usize).div_ceil(8) + TAIL_LEN {
        return Err(corrupted(format!("{count} packed values of {bits} bits need more than {} bytes", packed.len())));
    }
    let unpacked = Unpacked { packed, bits, base, first, flip: ty.sign_flip(), delta: mode == MODE_DELTA };
    match ty.width {
        1 => unpacked.append::<u8>(rows, values),
        2 => unpacked.append::<u16>(rows, values),
        4 => unpacked.append::<u32>(rows, values),
        _ => unpacked.append::<u64>(rows, values),
    }
}

/// The unsigned integer a packed value of one width decodes to.
trait Unsigned: ArrowNativeType + Default {
    fn truncate(value: u64) -> Self;
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl Unsigned for $t {
            #[inline(always)]
            fn truncate(value: u64) -> Self {
                value as $t
            }
        }
    )*};
}
unsigned!(u8, u16, u32, u64);

struct Unpacked<'a> {
    /// Checked to hold every packed value and the tail.
    packed: &'a [u8],
    bits: u32,
    base: u64,
    first: u64,
    flip: u64,
    delta: bool,
}

impl Unpacked<'_> {
    /// Appends the values to `values`: decoded in place when its values are `T`s at
    /// their alignment (always so for Arrow's allocations of one value type), else into a
    /// copy.
    fn append<T: Unsigned>(&self, rows: usize, values: &mut MutableBuffer) -> Result<()> {
        let size = std::mem::size_of::<T>();
        let start = values.len();
        let need = rows.checked_mul(size).ok_or_else(|| corrupted(format!("{rows} values overflow")))?;
        values.resize(start + need, 0);
        // The conditions under which `typed_data_mut` views the bytes as `T`s.
        if (values.as_ptr() as usize) % std::mem::align_of::<T>() == 0 && start % size == 0 {
            self.fill(&mut values.typed_data_mut::<T>()[start / size..]);
        } else {
            let mut copy = vec![T::default(); rows];
            self.fill(&mut copy);
            values.truncate(start);
            values.extend_from_slice(&copy);
        }
        Ok(())
    }

    fn fill<T: Unsigned>(&self, out: &mut [T]) {
        let (base, flip) = (self.base, self.flip);
        match (self.delta, self.bits) {
            (false, 0) => out.fill(T::truncate(base ^ flip)),
            (false, _) => {
                for (i, v) in out.iter_mut().enumerate() {
                    *v = T::truncate(base.wrapping_add(self.packed_value(i)) ^ flip);
                }
            }
            // An arithmetic sequence, in closed form so that it vectorizes.
            (true, 0) => {
                for (i, v) in out.iter_mut().enumerate() {
                    *v = T::truncate(self.first.wrapping_add(base.wrapping_mul(i as u64)) ^ flip);
                }
            }
            (true, _) => {
                let Some((head, rest)) = out.split_first_mut() else { return };
                *head = T::truncate(self.first ^ flip);
                let mut value = self.first;
                for (i, v) in rest.iter_mut().enumerate() {
                    value = value.wrapping_add(base).wrapping_add(self.packed_value(i));
                    *v = T::truncate(value ^ flip);
                }
            }
        }
    }

    /// Packed value `i`: one unaligned load of the 8 bytes its bits start in (the tail
    /// keeps the load in bounds).
    #[inline(always)]
    fn packed_value(&self, i: usize) -> u64 {
        let bit = i * self.bits as usize;
        let at = bit / 8;
        let bytes: [u8; 8] = self.packed[at..at + 8].try_into().expect("8 bytes");
        (u64::from_le_bytes(bytes) >> (bit % 8)) & ((1u64 << self.bits) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(bytes: &[u8], ty: PackedType) -> Option<Plan> {
        let plan = plan(bytes, ty)?;
        let mut out = Vec::new();
        plan.write(bytes, &mut out);
        assert_eq!(out.len(), plan.len());
        let mut decoded = MutableBuffer::new(0);
        unpack(&out, bytes.len() / ty.width, ty, &mut decoded).unwrap();
        assert_eq!(decoded.as_slice(), bytes);
        // Appended after other values, and into a buffer whose values are not aligned.
        let mut after = MutableBuffer::new(0);
        after.extend_from_slice(&bytes[..ty.width]);
        unpack(&out, bytes.len() / ty.width, ty, &mut after).unwrap();
        assert_eq!(&after.as_slice()[ty.width..], bytes);
        let mut odd = MutableBuffer::new(0);
        odd.push(0u8);
        unpack(&out, bytes.len() / ty.width, ty, &mut odd).unwrap();
        assert_eq!(&odd.as_slice()[1..], bytes);
        Some(plan)
    }

    fn le<T: Copy, const N: usize>(values: &[T], to_le: fn(T) -> [u8; N]) -> Vec<u8> {
        values.iter().flat_map(|v| to_le(*v)).collect()
    }

    #[test]
    fn sequential_ids_pack_to_a_header_in_delta_mode() {
        let ids: Vec<u64> = (1_000_000..1_008_192).collect();
        let plan = round_trip(&le(&ids, u64::to_le_bytes), PackedType::of(&DataType::UInt64).unwrap()).unwrap();
        assert_eq!((plan.mode, plan.bits, plan.base), (MODE_DELTA, 0, 1));
        assert_eq!(plan.len(), HEADER_LEN + TAIL_LEN);
    }

    #[test]
    fn small_numbers_pack_against_their_minimum() {
        let values: Vec<u32> = (0..8192u32).map(|i| 5000 + i.wrapping_mul(2654435761) % 1000).collect();
        let plan = round_trip(&le(&values, u32::to_le_bytes), PackedType::of(&DataType::UInt32).unwrap()).unwrap();
        assert_eq!((plan.mode, plan.bits, plan.base), (MODE_FRAME_OF_REFERENCE, 10, 5000));
    }

    #[test]
    fn signed_values_across_zero_and_extremes_round_trip() {
        let ty = PackedType::of(&DataType::Int64).unwrap();
        let values: Vec<i64> = (0..1000i64).map(|i| (i % 37) - 18).collect();
        assert_eq!(round_trip(&le(&values, i64::to_le_bytes), ty).unwrap().bits, 6);
        let sorted: Vec<i64> = (0..1000i64).map(|i| i64::MIN + i * 3).collect();
        assert_eq!(round_trip(&le(&sorted, i64::to_le_bytes), ty).unwrap().mode, MODE_DELTA);
        let wide = [i64::MIN, i64::MAX, 0, -1];
        assert!(round_trip(&le(&wide, i64::to_le_bytes), ty).is_none(), "full-range values are not worth packing");
        let bytes: Vec<i8> = (0..1000).map(|i| (i % 5) as i8 - 2).collect();
        round_trip(&le(&bytes, i8::to_le_bytes), PackedType::of(&DataType::Int8).unwrap()).unwrap();
        let dates: Vec<i32> = (0..5000).map(|i| 19000 + i / 100).collect();
        round_trip(&le(&dates, i32::to_le_bytes), PackedType::of(&DataType::Date32).unwrap()).unwrap();
    }

    #[test]
    fn every_bit_width_round_trips() {
        let ty = PackedType::of(&DataType::UInt64).unwrap();
        for bits in 1..=31u32 {
            let mask = (1u64 << bits) - 1;
            let values: Vec<u64> = (0..777u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7) & mask).collect();
            let plan = round_trip(&le(&values, u64::to_le_bytes), ty).unwrap();
            assert!(plan.bits <= bits);
        }
    }

    #[test]
    fn unsorted_values_use_the_frame_of_reference_and_descending_ones_deltas() {
        let ty = PackedType::of(&DataType::UInt16).unwrap();
        let unsorted: Vec<u16> = (0..300u16).map(|i| i * 7 % 100).collect();
        assert_eq!(round_trip(&le(&unsorted, u16::to_le_bytes), ty).unwrap().mode, MODE_FRAME_OF_REFERENCE);
        // Each delta wraps to the same 64-bit number: descending steps cost no bits.
        let descending: Vec<u16> = (0..300u16).rev().collect();
        let plan = round_trip(&le(&descending, u16::to_le_bytes), ty).unwrap();
        assert_eq!((plan.mode, plan.bits), (MODE_DELTA, 0));
        let constant = vec![7u16; 100];
        let plan = round_trip(&le(&constant, u16::to_le_bytes), ty).unwrap();
        assert_eq!((plan.bits, plan.mode), (0, MODE_FRAME_OF_REFERENCE));
    }

    #[test]
    fn corrupted_headers_are_errors() {
        let ty = PackedType::of(&DataType::UInt64).unwrap();
        let values: Vec<u64> = (0..100).map(|i| i * i).collect();
        let bytes = le(&values, u64::to_le_bytes);
        let plan = plan(&bytes, ty).unwrap();
        let mut packed = Vec::new();
        plan.write(&bytes, &mut packed);
        let mut out = MutableBuffer::new(0);
        assert!(unpack(&packed[..packed.len() - 1], 100, ty, &mut out).is_err());
        assert!(unpack(&packed[..10], 100, ty, &mut out).is_err());
        let mut bad_mode = packed.clone();
        bad_mode[0] = 9;
        assert!(unpack(&bad_mode, 100, ty, &mut out).is_err());
        let mut bad_bits = packed.clone();
        bad_bits[1] = 60;
        assert!(unpack(&bad_bits, 100, ty, &mut out).is_err());
        let mut zero_rows = packed.clone();
        zero_rows[0] = MODE_DELTA;
        assert!(unpack(&zero_rows, 0, ty, &mut out).is_err());
        assert!(PackedType::of(&DataType::Float64).is_none());
        assert!(PackedType::of(&DataType::Decimal128(10, 2)).is_none());
    }
}
