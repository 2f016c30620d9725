//! ClickHouse's bitmap value (`RoaringBitmapWithSmallSet`, `AggregateFunctionGroupBitmapData.h`),
//! the state of `groupBitmap` and the value every `bitmap*` function reads and writes:
//! a flag byte, then either a small set (up to 32 values, in the order they came: a
//! VarUInt count and each value in the state's width) or a Roaring bitmap (a VarUInt size
//! and the bitmap in the portable format; for 64-bit values Roaring64Map's: a u64 count
//! of 32-bit bitmaps, each after its u32 high key).
//!
//! Which of the two forms a result takes follows ClickHouse's operations, since the bytes
//! (and `bitmapToArray`'s order) depend on it: a small set stays small under AND and
//! ANDNOT whatever the other side, an OR turns large when the other side is large or
//! the set outgrows 32 values, XOR is always large, and a large set never turns small.
//! Values are kept in their type's width (signed ones as their two's complement bits).
//! Roaring containers are chosen as CRoaring's `runOptimize` chooses them (a run
//! container where it is smaller), so the bytes are ClickHouse's for any set.

use std::collections::BTreeMap;

use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, DfResult};
use crate::native_state::take;
use crate::states::{get_varuint, put_varuint};

/// How many values the small set holds before the set becomes a bitmap.
const SMALL_SET_SIZE: usize = 32;

/// The large form: 16-bit containers by the value's bits above the lowest 16, each with
/// its sorted low 16 bits, none empty.
type Containers = BTreeMap<u64, Vec<u16>>;

/// The state's value width in bytes and whether the type is signed: integers up to
/// 64 bits (Bool as UInt8).
pub(crate) fn value_shape(t: &ChType) -> Option<(usize, bool)> {
    crate::arithmetic::int_shape(t).filter(|(width, _)| *width <= 8)
}

#[derive(Debug, Clone)]
pub(crate) struct BitmapSet {
    width: usize,
    signed: bool,
    /// The values while the set is small, in arrival order, as unsigned bits.
    small: Vec<u64>,
    large: Option<Containers>,
}

/// A set operation on the large form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SetOp {
    And,
    Or,
    Xor,
    AndNot,
}

impl SetOp {
    fn keeps(self, in_left: bool, in_right: bool) -> bool {
        match self {
            SetOp::And => in_left && in_right,
            SetOp::Or => in_left || in_right,
            SetOp::Xor => in_left != in_right,
            SetOp::AndNot => in_left && !in_right,
        }
    }
}

impl BitmapSet {
    pub(crate) fn new(width: usize, signed: bool) -> BitmapSet {
        BitmapSet { width, signed, small: Vec::new(), large: None }
    }

    /// An empty set of values of type `t`, if bitmaps hold it.
    pub(crate) fn of_type(t: &ChType) -> Option<BitmapSet> {
        value_shape(t).map(|(width, signed)| BitmapSet::new(width, signed))
    }

    pub(crate) fn width(&self) -> usize {
        self.width
    }

    pub(crate) fn signed(&self) -> bool {
        self.signed
    }

    /// A value's bits masked to the set's width.
    pub(crate) fn mask(&self) -> u64 {
        if self.width >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * self.width)) - 1
        }
    }

    pub(crate) fn is_large(&self) -> bool {
        self.large.is_some()
    }

    /// ClickHouse's `add`: a new value goes at the end of the small set, which turns into
    /// a bitmap when it would hold more than 32.
    pub(crate) fn insert(&mut self, v: u64) {
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
        self.to_large();
        self.insert(v);
    }

    /// Removes a value from the large form; whether it was there.
    fn remove_large(&mut self, v: u64) -> bool {
        let Some(large) = &mut self.large else { return false };
        let Some(values) = large.get_mut(&(v >> 16)) else { return false };
        let Ok(at) = values.binary_search(&(v as u16)) else { return false };
        values.remove(at);
        if values.is_empty() {
            large.remove(&(v >> 16));
        }
        true
    }

    pub(crate) fn to_large(&mut self) {
        if self.large.is_none() {
            self.large = Some(containers_of(self.small.drain(..)));
        }
    }

    pub(crate) fn cardinality(&self) -> u64 {
        match &self.large {
            Some(large) => large.values().map(|c| c.len() as u64).sum(),
            None => self.small.len() as u64,
        }
    }

    /// The values in ClickHouse's order: the small set's arrival order, else ascending
    /// unsigned bits.
    pub(crate) fn values(&self) -> Vec<u64> {
        match &self.large {
            Some(large) => large.iter().flat_map(|(key, values)| values.iter().map(move |v| (key << 16) | u64::from(*v))).collect(),
            None => self.small.clone(),
        }
    }

    /// The values ascending by their unsigned bits.
    pub(crate) fn sorted_values(&self) -> Vec<u64> {
        let mut values = self.values();
        if self.large.is_none() {
            values.sort_unstable();
        }
        values
    }

    pub(crate) fn contains(&self, v: u64) -> bool {
        match &self.large {
            Some(large) => large.get(&(v >> 16)).is_some_and(|c| c.binary_search(&(v as u16)).is_ok()),
            None => self.small.contains(&v),
        }
    }

    /// The smallest value's unsigned bits; for no values, the largest value of
    /// CRoaring's 32-bit (up to 32-bit types) or 64-bit bitmap, as ClickHouse.
    pub(crate) fn min(&self) -> u64 {
        let empty = if self.width == 8 { u64::MAX } else { u64::from(u32::MAX) };
        match &self.large {
            Some(large) => large.iter().next().and_then(|(key, values)| values.first().map(|v| (key << 16) | u64::from(*v))).unwrap_or(empty),
            None => self.small.iter().copied().min().unwrap_or(empty),
        }
    }

    /// The largest value's unsigned bits, 0 for no values.
    pub(crate) fn max(&self) -> u64 {
        match &self.large {
            Some(large) => large.iter().next_back().and_then(|(key, values)| values.last().map(|v| (key << 16) | u64::from(*v))).unwrap_or(0),
            None => self.small.iter().copied().max().unwrap_or(0),
        }
    }

    /// The other set as ClickHouse's large form (`getNewRoaringBitmapFromSmall`).
    fn containers_of_set(&self) -> std::borrow::Cow<'_, Containers> {
        match &self.large {
            Some(large) => std::borrow::Cow::Borrowed(large),
            None => std::borrow::Cow::Owned(containers_of(self.small.iter().copied())),
        }
    }

    /// ClickHouse's `merge` (OR): a large other side makes this set large, a small one
    /// adds its values in order.
    pub(crate) fn merge(&mut self, other: &BitmapSet) {
        match &other.large {
            Some(large) => {
                self.to_large();
                if let Some(mine) = &mut self.large {
                    *mine = combine(mine, large, SetOp::Or);
                }
            }
            None => other.small.iter().for_each(|v| self.insert(*v)),
        }
    }

    /// Applies a set operation as ClickHouse's `rb_and`/`rb_or`/`rb_xor`/`rb_andnot`.
    /// AND and ANDNOT of a small set filter it in its order; AND of a large set with a
    /// small one keeps the small one's values present here.
    pub(crate) fn apply(&mut self, op: SetOp, other: &BitmapSet) {
        match op {
            SetOp::Or => self.merge(other),
            // A small other side makes the intersection small, in the other side's order.
            SetOp::And if self.large.is_some() && other.large.is_none() => {
                let kept: Vec<u64> = other.small.iter().copied().filter(|v| self.contains(*v)).collect();
                self.large = None;
                self.small = kept;
            }
            SetOp::And | SetOp::AndNot if self.large.is_none() => {
                let keep_present = op == SetOp::And;
                self.small.retain(|v| other.contains(*v) == keep_present);
            }
            _ => {
                self.to_large();
                let theirs = other.containers_of_set();
                if let Some(mine) = &mut self.large {
                    *mine = combine(mine, &theirs, op);
                }
            }
        }
    }

    /// Whether the sets share a value.
    pub(crate) fn intersects(&self, other: &BitmapSet) -> bool {
        let (few, many) = if self.cardinality() <= other.cardinality() { (self, other) } else { (other, self) };
        few.values().iter().any(|v| many.contains(*v))
    }

    /// Whether every value of `other` is in this set.
    pub(crate) fn contains_all(&self, other: &BitmapSet) -> bool {
        other.values().iter().all(|v| self.contains(*v))
    }

    /// ClickHouse's `rb_replace` (`bitmapTransform`): the set turns large, then each
    /// `from` value present is replaced by its `to`, in the order given.
    pub(crate) fn replace(&mut self, pairs: impl Iterator<Item = (u64, u64)>) {
        self.to_large();
        // CRoaring's 32-bit bitmap keeps only the low 32 bits of what it is given.
        let value_mask = if self.width == 8 { u64::MAX } else { u64::from(u32::MAX) };
        for (from, to) in pairs {
            let (from, to) = (from & value_mask, to & value_mask);
            if from != to && self.remove_large(from) {
                self.insert(to);
            }
        }
    }

    /// Reads a set in ClickHouse's bytes from the start of `input`, in its form.
    pub(crate) fn read(width: usize, signed: bool, input: &mut &[u8]) -> DfResult<BitmapSet> {
        let mut set = BitmapSet::new(width, signed);
        let large = take(input, 1)?[0] != 0;
        if !large {
            let count = get_varuint(input)?;
            for _ in 0..count {
                let bytes = take(input, width)?;
                let mut word = [0u8; 8];
                word[..width].copy_from_slice(bytes);
                set.small.push(u64::from_le_bytes(word));
            }
            return Ok(set);
        }
        let size = get_varuint(input)? as usize;
        let mut bitmap = take(input, size)?;
        let mut containers = Containers::new();
        let mut add = |v: u64| {
            let values = containers.entry(v >> 16).or_default();
            if values.last().is_none_or(|last| *last < v as u16) {
                values.push(v as u16);
            } else if let Err(at) = values.binary_search(&(v as u16)) {
                values.insert(at, v as u16);
            }
        };
        if width == 8 {
            let maps = crate::native_state::read_u64(&mut bitmap)?;
            for _ in 0..maps {
                let high = u64::from(read_u32(&mut bitmap)?) << 32;
                read_roaring32(&mut bitmap, &mut |v| add(high | u64::from(v)))?;
            }
        } else {
            read_roaring32(&mut bitmap, &mut |v| add(u64::from(v)))?;
        }
        set.large = Some(containers);
        Ok(set)
    }

    /// Writes the set in ClickHouse's bytes.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
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

    /// Bytes held, for memory accounting.
    pub(crate) fn size(&self) -> usize {
        std::mem::size_of_val(self) + 8 * self.small.capacity() + self.large.as_ref().map_or(0, |l| l.values().map(|c| 2 * c.capacity() + 48).sum())
    }
}

fn containers_of(values: impl Iterator<Item = u64>) -> Containers {
    let mut large = Containers::new();
    for x in values {
        large.entry(x >> 16).or_default().push(x as u16);
    }
    large.values_mut().for_each(|c| {
        c.sort_unstable();
        c.dedup();
    });
    large
}

/// A set operation container by container (sorted merges), dropping empty containers
/// as CRoaring does.
fn combine(left: &Containers, right: &Containers, op: SetOp) -> Containers {
    let empty: Vec<u16> = Vec::new();
    let mut keys: Vec<u64> = left.keys().chain(right.keys()).copied().collect();
    keys.sort_unstable();
    keys.dedup();
    let mut out = Containers::new();
    for key in keys {
        let (a, b) = (left.get(&key).unwrap_or(&empty), right.get(&key).unwrap_or(&empty));
        let mut merged = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let (v, in_a, in_b) = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x == y => (*x, true, true),
                (Some(x), Some(y)) if x < y => (*x, true, false),
                (Some(x), None) => (*x, true, false),
                (_, Some(y)) => (*y, false, true),
                (None, None) => break,
            };
            if in_a {
                i += 1;
            }
            if in_b {
                j += 1;
            }
            if op.keeps(in_a, in_b) {
                merged.push(v);
            }
        }
        if !merged.is_empty() {
            out.insert(key, merged);
        }
    }
    out
}

/// A corrupted or foreign value where a bitmap was expected.
fn not_roaring() -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::CORRUPTED_DATA, "Cannot read a groupBitmap state: not a Roaring bitmap")
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
        return Err(not_roaring());
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


#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn built(width: usize, values: impl IntoIterator<Item = u64>) -> BitmapSet {
        let mut set = BitmapSet::new(width, false);
        values.into_iter().for_each(|v| set.insert(v));
        set
    }

    fn hex(set: &BitmapSet) -> String {
        let mut out = Vec::new();
        set.write(&mut out);
        out.iter().map(|b| format!("{b:02X}")).collect()
    }

    fn op(mut left: BitmapSet, op: SetOp, right: &BitmapSet) -> String {
        left.apply(op, right);
        hex(&left)
    }

    /// chdb's `hex(bitmapAnd(bitmapBuild(..), bitmapBuild(..)))` and friends.
    #[test]
    fn set_operations_keep_clickhouse_forms() {
        let small = || built(4, [5, 3, 1, 2]);
        let other = built(4, [7, 2, 6]);
        assert_eq!(op(small(), SetOp::And, &built(4, [2, 1])), "00020100000002000000");
        assert_eq!(op(small(), SetOp::Or, &other), "0006050000000300000001000000020000000700000006000000");
        assert_eq!(op(small(), SetOp::Xor, &other), "011A3A30000001000000000004001000000001000300050006000700");
        assert_eq!(op(small(), SetOp::AndNot, &other), "0003050000000300000001000000");
        let forty = || built(4, 0..40);
        assert_eq!(op(forty(), SetOp::And, &built(4, [3, 1, 2])), "0003030000000100000002000000");
        assert_eq!(op(forty(), SetOp::AndNot, &built(4, [3, 1, 2])), "01133B300000010000240002000000000004002300");
        assert_eq!(op(forty(), SetOp::AndNot, &built(4, 5..40)), "010F3B3000000100000400010000000400");
        assert_eq!(op(built(4, [39, 3, 100, 1, 2]), SetOp::And, &forty()), "000427000000030000000100000002000000");
        assert_eq!(op(built(4, [3, 1]), SetOp::Or, &forty()), "010F3B3000000100002700010000002700");
        assert_eq!(op(built(4, 0..30), SetOp::Or, &built(4, 25..35)), "010F3B3000000100002200010000002200");
        assert_eq!(op(built(4, 0..100), SetOp::And, &built(4, 200..300)), "01083A30000000000000");
        assert_eq!(op(built(8, 0..100), SetOp::And, &built(8, 200..300)), "01080000000000000000");
        assert_eq!(hex(&built(4, 0..70000)), "01193B300100030000FFFF01006F1101000000FFFF010000006F11");
    }

    #[test]
    fn reads_keep_the_form() {
        let mut xor = built(4, [1, 2]);
        xor.apply(SetOp::Xor, &built(4, [3]));
        let mut bytes = Vec::new();
        xor.write(&mut bytes);
        let mut input = bytes.as_slice();
        let back = BitmapSet::read(4, false, &mut input).unwrap();
        assert!(input.is_empty());
        assert!(back.is_large());
        assert_eq!(back.values(), vec![1, 2, 3]);
        assert_eq!(hex(&back), hex(&xor));
    }

    #[test]
    fn min_max_and_replace() {
        assert_eq!(BitmapSet::new(1, false).min(), u64::from(u32::MAX));
        assert_eq!(BitmapSet::new(8, false).min(), u64::MAX);
        assert_eq!(BitmapSet::new(4, false).max(), 0);
        let mut set = built(4, 1..=10);
        set.replace([(5, 2), (999, 888), (2, 20)].into_iter());
        assert_eq!(set.values(), vec![1, 3, 4, 6, 7, 8, 9, 10, 20]);
        assert_eq!(hex(&set), "01223A30000001000000000008001000000001000300040006000700080009000A001400");
    }
}
