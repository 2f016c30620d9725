//! `groupBitmap(x)`: the number of distinct integers, with ClickHouse's state
//! (`AggregateFunctionGroupBitmapData.h`): a flag byte, then either a small set (up to 32
//! values, in the order they came: a VarUInt count and each value in the state's width)
//! or a Roaring bitmap (a VarUInt size and the bitmap in the portable format; for 64-bit
//! values Roaring64Map's: a u64 count of 32-bit bitmaps, each after its u32 high key).
//!
//! Values are kept in their type's width (signed ones as their two's complement bits).
//! Roaring containers are chosen as
//! CRoaring's `runOptimize` chooses them (a run container where it is smaller), so the
//! bytes are ClickHouse's for any set.

use std::collections::BTreeMap;

use datafusion::arrow::array::{ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, UInt64Type};
use datafusion::common::ScalarValue;
use granary_types::ChType;

use crate::args::{Arity, DfResult};
use crate::native_state::{illegal_argument, take, NativeState, NullHandling, Spec};
use crate::states::{get_varuint, put_varuint};

/// How many values the small set holds before the state becomes a bitmap.
const SMALL_SET_SIZE: usize = 32;

#[derive(Debug)]
struct GroupBitmapSpec;

pub(crate) fn group_bitmap(params: &[ScalarValue]) -> DfResult<std::sync::Arc<dyn Spec>> {
    if !params.is_empty() {
        return Err(crate::args::ch_error(granary_common::ErrorCode::AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS, "Aggregate function groupBitmap cannot have parameters"));
    }
    Ok(std::sync::Arc::new(GroupBitmapSpec))
}

/// The state's value width in bytes and whether the argument is signed: integers up to
/// 64 bits (Bool as UInt8).
fn value_shape(t: &ChType) -> Option<(usize, bool)> {
    crate::arithmetic::int_shape(t).filter(|(width, _)| *width <= 8)
}

impl Spec for GroupBitmapSpec {
    fn name(&self) -> &str {
        "groupBitmap"
    }
    fn arity(&self) -> Arity {
        Arity::exact(1)
    }
    fn nulls(&self) -> NullHandling {
        NullHandling::DefaultResult
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        value_shape(&args[0]).ok_or_else(|| illegal_argument("groupBitmap", &args[0]))?;
        Ok(ChType::UInt64)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        let (width, signed) = value_shape(&args[0]).ok_or_else(|| illegal_argument("groupBitmap", &args[0]))?;
        Ok(Box::new(GroupBitmap { width, signed, small: Vec::new(), large: None }))
    }
}

#[derive(Debug)]
struct GroupBitmap {
    width: usize,
    signed: bool,
    /// The values while there are at most [`SMALL_SET_SIZE`], in arrival order, as the
    /// state's unsigned bits.
    small: Vec<u64>,
    /// Past that, every value: 32-bit containers by high bits, then 16-bit by the next.
    large: Option<BTreeMap<u64, Vec<u16>>>,
}

impl GroupBitmap {
    fn insert(&mut self, v: u64) {
        if let Some(large) = &mut self.large {
            let values = large.entry(v >> 16).or_default();
            if let Err(at) = values.binary_search(&(v as u16)) {
                values.insert(at, v as u16);
            }
            return;
        }
        if self.small.contains(&v) {
            return;
        }
        if self.small.len() < SMALL_SET_SIZE {
            self.small.push(v);
            return;
        }
        let mut large: BTreeMap<u64, Vec<u16>> = BTreeMap::new();
        for x in self.small.drain(..).chain(std::iter::once(v)) {
            large.entry(x >> 16).or_default().push(x as u16);
        }
        large.values_mut().for_each(|c| c.sort_unstable());
        self.large = Some(large);
    }

    fn cardinality(&self) -> u64 {
        match &self.large {
            Some(large) => large.values().map(|c| c.len() as u64).sum(),
            None => self.small.len() as u64,
        }
    }

    /// A value's bits masked to the state's width.
    fn mask(&self) -> u64 {
        if self.width >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * self.width)) - 1
        }
    }
}

/// One 32-bit Roaring bitmap in the portable format, from its containers (high 16 bits
/// -> sorted low 16 bits).
fn write_roaring32(containers: &[(u16, &[u16])], out: &mut Vec<u8>) {
    // Per container: how it is written (0 array, 1 bitmap, 2 runs) and its runs.
    let shapes: Vec<(u8, Vec<(u16, u16)>)> = containers
        .iter()
        .map(|(_, values)| {
            let mut runs: Vec<(u16, u16)> = Vec::new();
            for &v in values.iter() {
                match runs.last_mut() {
                    Some((start, length)) if u32::from(*start) + u32::from(*length) + 1 == u32::from(v) => *length += 1,
                    _ => runs.push((v, 0)),
                }
            }
            let as_run = 2 + 4 * runs.len();
            let as_plain = if values.len() > 4096 { 8192 } else { 2 * values.len() };
            let kind = if as_run < as_plain { 2 } else if values.len() > 4096 { 1 } else { 0 };
            (kind, runs)
        })
        .collect();
    let n = containers.len();
    let has_runs = shapes.iter().any(|(kind, _)| *kind == 2);
    if has_runs {
        out.extend_from_slice(&(12347u32 | (((n - 1) as u32) << 16)).to_le_bytes());
        let mut flags = vec![0u8; n.div_ceil(8)];
        for (i, (kind, _)) in shapes.iter().enumerate() {
            if *kind == 2 {
                flags[i / 8] |= 1 << (i % 8);
            }
        }
        out.extend_from_slice(&flags);
    } else {
        out.extend_from_slice(&12346u32.to_le_bytes());
        out.extend_from_slice(&(n as u32).to_le_bytes());
    }
    for (key, values) in containers {
        out.extend_from_slice(&key.to_le_bytes());
        out.extend_from_slice(&((values.len() - 1) as u16).to_le_bytes());
    }
    let sizes: Vec<usize> = containers
        .iter()
        .zip(&shapes)
        .map(|((_, values), (kind, runs))| match kind {
            0 => 2 * values.len(),
            1 => 8192,
            _ => 2 + 4 * runs.len(),
        })
        .collect();
    // The offsets header: always without runs, from four containers with them.
    if !has_runs || n >= 4 {
        // Offsets count from the cookie; the first container follows the header.
        let mut offset = header_len(n, has_runs) as u32;
        for size in &sizes {
            out.extend_from_slice(&offset.to_le_bytes());
            offset += *size as u32;
        }
    }
    for ((_, values), (kind, runs)) in containers.iter().zip(&shapes) {
        match kind {
            0 => values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
            1 => {
                let mut words = [0u64; 1024];
                for v in values.iter() {
                    words[usize::from(*v) / 64] |= 1 << (v % 64);
                }
                words.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
            }
            _ => {
                out.extend_from_slice(&(runs.len() as u16).to_le_bytes());
                for (start, length) in runs {
                    out.extend_from_slice(&start.to_le_bytes());
                    out.extend_from_slice(&length.to_le_bytes());
                }
            }
        }
    }
}

/// The bytes before the first container's data: cookie (and count), run flags,
/// descriptive header and offsets.
fn header_len(n: usize, has_runs: bool) -> usize {
    if has_runs {
        4 + n.div_ceil(8) + 4 * n + if n >= 4 { 4 * n } else { 0 }
    } else {
        8 + 4 * n + 4 * n
    }
}

fn read_u16(input: &mut &[u8]) -> DfResult<u16> {
    let b = take(input, 2)?;
    Ok(u16::from_le_bytes([b[0], b[1]]))
}

fn read_u32(input: &mut &[u8]) -> DfResult<u32> {
    let b = take(input, 4)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Reads one 32-bit portable Roaring bitmap, calling `each` with every value.
fn read_roaring32(input: &mut &[u8], each: &mut dyn FnMut(u32)) -> DfResult<()> {
    let cookie = read_u32(input)?;
    let (n, run_flags) = if cookie & 0xFFFF == 12347 {
        let n = (cookie >> 16) as usize + 1;
        (n, take(input, n.div_ceil(8))?.to_vec())
    } else if cookie == 12346 {
        (read_u32(input)? as usize, Vec::new())
    } else {
        return Err(crate::args::ch_error(granary_common::ErrorCode::CORRUPTED_DATA, "Cannot read a groupBitmap state: not a Roaring bitmap"));
    };
    let mut descriptions = Vec::with_capacity(n);
    for _ in 0..n {
        let key = read_u16(input)?;
        let cardinality = usize::from(read_u16(input)?) + 1;
        descriptions.push((key, cardinality));
    }
    if run_flags.is_empty() || n >= 4 {
        take(input, 4 * n)?;
    }
    for (i, (key, cardinality)) in descriptions.into_iter().enumerate() {
        let high = u32::from(key) << 16;
        let is_run = run_flags.get(i / 8).is_some_and(|f| f & (1 << (i % 8)) != 0);
        if is_run {
            let runs = read_u16(input)?;
            for _ in 0..runs {
                let (start, length) = (u32::from(read_u16(input)?), u32::from(read_u16(input)?));
                (start..=start + length).for_each(|v| each(high | v));
            }
        } else if cardinality > 4096 {
            let words = take(input, 8192)?;
            for (w, chunk) in words.chunks_exact(8).enumerate() {
                let mut word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
                while word != 0 {
                    each(high | (w as u32 * 64 + word.trailing_zeros()));
                    word &= word - 1;
                }
            }
        } else {
            for _ in 0..cardinality {
                each(high | u32::from(read_u16(input)?));
            }
        }
    }
    Ok(())
}

impl NativeState for GroupBitmap {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let mask = self.mask();
        if self.signed {
            let values = cast(&columns[0], &DataType::Int64)?;
            for v in values.as_primitive::<Int64Type>().values() {
                self.insert((*v as u64) & mask);
            }
        } else {
            let values = cast(&columns[0], &DataType::UInt64)?;
            for v in values.as_primitive::<UInt64Type>().values() {
                self.insert(*v);
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let large = take(input, 1)?[0] != 0;
        if !large {
            let count = get_varuint(input)?;
            for _ in 0..count {
                let bytes = take(input, self.width)?;
                let mut word = [0u8; 8];
                word[..self.width].copy_from_slice(bytes);
                self.insert(u64::from_le_bytes(word));
            }
            return Ok(());
        }
        let size = get_varuint(input)? as usize;
        let mut bitmap = take(input, size)?;
        let mut values: Vec<u64> = Vec::new();
        if self.width == 8 {
            let maps = crate::native_state::read_u64(&mut bitmap)?;
            for _ in 0..maps {
                let high = u64::from(read_u32(&mut bitmap)?) << 32;
                read_roaring32(&mut bitmap, &mut |v| values.push(high | u64::from(v)))?;
            }
        } else {
            read_roaring32(&mut bitmap, &mut |v| values.push(u64::from(v)))?;
        }
        values.into_iter().for_each(|v| self.insert(v));
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        let Some(large) = &self.large else {
            out.push(0);
            put_varuint(out, self.small.len() as u64);
            for v in &self.small {
                out.extend_from_slice(&v.to_le_bytes()[..self.width]);
            }
            return;
        };
        let mut bitmap = Vec::new();
        if self.width == 8 {
            let mut by_high: BTreeMap<u32, Vec<(u16, &[u16])>> = BTreeMap::new();
            for (key, values) in large {
                by_high.entry((key >> 16) as u32).or_default().push((*key as u16, values.as_slice()));
            }
            bitmap.extend_from_slice(&(by_high.len() as u64).to_le_bytes());
            for (high, containers) in &by_high {
                bitmap.extend_from_slice(&high.to_le_bytes());
                write_roaring32(containers, &mut bitmap);
            }
        } else {
            let containers: Vec<(u16, &[u16])> = large.iter().map(|(key, values)| (*key as u16, values.as_slice())).collect();
            write_roaring32(&containers, &mut bitmap);
        }
        out.push(1);
        put_varuint(out, bitmap.len() as u64);
        out.extend_from_slice(&bitmap);
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        // ClickHouse counts in the value type: 256 distinct UInt8 values count as 0.
        Ok(ScalarValue::UInt64(Some(self.cardinality() & self.mask())))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + 8 * self.small.capacity() + self.large.as_ref().map_or(0, |l| l.values().map(|c| 2 * c.capacity() + 48).sum())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::native_state::state_hex as hex;
    use datafusion::arrow::array::{UInt32Array, UInt64Array};
    use std::sync::Arc;

    fn state_of(t: ChType, values: ArrayRef) -> Box<dyn NativeState> {
        let mut state = GroupBitmapSpec.new_state(&[t]).unwrap();
        state.add(&[values]).unwrap();
        state
    }

    /// chdb's `hex(groupBitmapState(...))`.
    #[test]
    fn states_as_clickhouse() {
        let small = state_of(ChType::UInt32, Arc::new(UInt32Array::from(vec![0, 1, 2])));
        assert_eq!(hex(small.as_ref()), "0003000000000100000002000000");
        let runs = state_of(ChType::UInt32, Arc::new(UInt32Array::from_iter_values(0..5000)));
        assert_eq!(hex(runs.as_ref()), "010F3B3000000100008713010000008713");
        let array = state_of(ChType::UInt32, Arc::new(UInt32Array::from_iter_values((0..40).map(|n| n * 3))));
        assert!(hex(array.as_ref()).starts_with("01603A30000001000000000027001000000000000300060009000C00"));
        let wide = state_of(ChType::UInt64, Arc::new(UInt64Array::from_iter_values((0..40).map(|n| n * 1000))));
        assert!(hex(wide.as_ref()).starts_with("016C0100000000000000000000003A3000000100000000002700100000000000E803D007"));
        // Merging the bytes back gives the same bytes.
        for (state, t) in [(small, ChType::UInt32), (runs, ChType::UInt32), (array, ChType::UInt32), (wide, ChType::UInt64)] {
            let mut merged = GroupBitmapSpec.new_state(&[t]).unwrap();
            let mut bytes = Vec::new();
            state.write(&mut bytes);
            let mut input = bytes.as_slice();
            merged.merge(&mut input).unwrap();
            assert!(input.is_empty());
            assert_eq!(hex(merged.as_ref()), hex(state.as_ref()));
        }
    }
}
