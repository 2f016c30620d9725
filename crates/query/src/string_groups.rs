//! The group table of [`crate::dictionary_group_by`] for string keys: it interns a
//! Parquet dictionary's `Utf8` values as they come.
//!
//! Why not DataFusion's `GroupValues`: for a `Utf8View` key (what the plan above the
//! exec expects) its table takes view arrays, so every row group's dictionary was cast
//! to views and had a NULL appended before it could be interned. In the seed's read
//! query the cast, the append and the interning were 18% of the time. Here the
//! dictionary's offsets and bytes are hashed straight away and the table is probed with
//! every string's slot, then the view of the group in it, prefetched a few strings
//! ahead: a row group's dictionary lists
//! its strings in an order unrelated to the groups', so each probe is a cache miss the
//! prefetch overlaps with the work on the strings before it. Each group keeps an Arrow-
//! style view (length and up to 12 bytes inline), so comparing a short string is one
//! 16-byte compare; strings are turned into arrays once, for the groups emitted.

use std::hash::BuildHasher;
use std::ops::Range;

use arrow::array::{Array, ArrayRef, LargeStringArray, StringArray};
use arrow::buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::compute::cast;
use arrow::datatypes::DataType;
use datafusion::error::{DataFusionError, Result};

/// Strings up to this long live in their view.
const INLINE_LEN: usize = 12;
/// How many strings ahead of the probe a slot is prefetched.
const PREFETCH_DISTANCE: usize = 8;

/// Distinct strings (and NULL), each with a group number in order of first sight.
pub(crate) struct StringGroups {
    hasher: foldhash::fast::FixedState,
    /// Open addressing with linear probing, a power of two long and at most half full.
    /// 0 is an empty slot; otherwise the high 32 bits of the string's hash and, in the
    /// low 32 bits, its group + 1.
    slots: Vec<u64>,
    /// Per group: the string's hash, to grow the table.
    hashes: Vec<u64>,
    /// Per group: the length in the low 32 bits, then the string itself when at most 12
    /// bytes long, else its first 4 bytes and its offset in `long_strings`.
    views: Vec<u128>,
    long_strings: Vec<u8>,
    null_group: Option<u32>,
}

impl StringGroups {
    pub(crate) fn new() -> Self {
        StringGroups {
            hasher: foldhash::fast::FixedState::with_seed(0x9e37_79b9_7f4a_7c15),
            slots: vec![0; 64],
            hashes: Vec::new(),
            views: Vec::new(),
            long_strings: Vec::new(),
            null_group: None,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.views.len()
    }

    /// Bytes held, for the query's memory accounting.
    pub(crate) fn size(&self) -> usize {
        self.slots.capacity() * size_of::<u64>()
            + self.hashes.capacity() * size_of::<u64>()
            + self.views.capacity() * size_of::<u128>()
            + self.long_strings.capacity()
    }

    /// The group of every value of `values`, in order; strings not seen before get new
    /// groups.
    pub(crate) fn intern(&mut self, values: &StringArray) -> Result<Vec<u32>> {
        let offsets = values.value_offsets();
        let data = values.value_data();
        // Offsets of a valid StringArray are in bounds and non-decreasing.
        let string = |index: usize| &data[offsets[index] as usize..offsets[index + 1] as usize];
        let probes: Vec<(u128, u64)> = (0..values.len())
            .map(|index| {
                let view = probe_view(data, offsets[index] as usize, string(index));
                let hash = if view as u32 as usize <= INLINE_LEN { hash_short(view) } else { self.hasher.hash_one(string(index)) };
                (view, hash)
            })
            .collect();
        let has_nulls = values.null_count() > 0;
        let mut groups = Vec::with_capacity(values.len());
        for (index, &(view, hash)) in probes.iter().enumerate() {
            // Two stages ahead of the probe: the slot, then the view of the group in it.
            let mask = self.slots.len() - 1;
            if let Some(&(_, ahead)) = probes.get(index + 2 * PREFETCH_DISTANCE) {
                granary_simd::prefetch_read(&self.slots[ahead as usize & mask]);
            }
            if let Some(&(_, ahead)) = probes.get(index + PREFETCH_DISTANCE) {
                let entry = self.slots[ahead as usize & mask];
                if let Some(stored) = (entry as u32 as usize).checked_sub(1).and_then(|group| self.views.get(group)) {
                    granary_simd::prefetch_read(stored);
                }
            }
            if has_nulls && values.is_null(index) {
                groups.push(self.null_group()?);
                continue;
            }
            groups.push(self.intern_hashed(string(index), view, hash)?);
        }
        Ok(groups)
    }

    /// Doubles the table.
    fn grow(&mut self) -> Result<()> {
        let size = self.slots.len().checked_mul(2).ok_or_else(too_many_groups)?;
        let mut slots = vec![0u64; size];
        let mask = size - 1;
        for (group, &hash) in self.hashes.iter().enumerate() {
            // NULL is never in the table (see `null_group`).
            if self.null_group == Some(group as u32) {
                continue;
            }
            let mut slot = hash as usize & mask;
            while slots[slot] != 0 {
                slot = (slot + 1) & mask;
            }
            slots[slot] = (hash & !0xffff_ffff) | (group as u64 + 1);
        }
        self.slots = slots;
        Ok(())
    }

    /// Interns `string`, whose [`probe_view`] is `view` and hash `hash`.
    fn intern_hashed(&mut self, string: &[u8], view: u128, hash: u64) -> Result<u32> {
        // At most half full after this string's insertion.
        if (self.len() + 1) * 2 > self.slots.len() {
            self.grow()?;
        }
        let mask = self.slots.len() - 1;
        let tag = hash & !0xffff_ffff;
        let mut slot = hash as usize & mask;
        loop {
            let entry = self.slots[slot];
            if entry == 0 {
                break;
            }
            if entry & !0xffff_ffff == tag {
                let group = (entry & 0xffff_ffff) as usize - 1;
                if self.equals(group, string, view) {
                    return Ok(group as u32);
                }
            }
            slot = (slot + 1) & mask;
        }
        let group = next_group(self.len())?;
        let stored_view = if string.len() <= INLINE_LEN {
            view
        } else {
            let offset = self.long_strings.len() as u128;
            self.long_strings.extend_from_slice(string);
            let prefix = u32::from_le_bytes([string[0], string[1], string[2], string[3]]);
            string.len() as u128 | (u128::from(prefix) << 32) | (offset << 64)
        };
        self.views.push(stored_view);
        self.hashes.push(hash);
        self.slots[slot] = tag | (u64::from(group) + 1);
        Ok(group)
    }

    fn equals(&self, group: usize, string: &[u8], view: u128) -> bool {
        let stored = self.views[group];
        if string.len() <= INLINE_LEN {
            return stored == view;
        }
        let (length, offset) = (stored as u32 as usize, (stored >> 64) as usize);
        length == string.len() && self.long_strings.get(offset..offset + length) == Some(string)
    }

    /// The group of NULL, made when first asked for.
    pub(crate) fn null_group(&mut self) -> Result<u32> {
        if let Some(group) = self.null_group {
            return Ok(group);
        }
        let group = next_group(self.len())?;
        // Never in the table (NULL is found through `null_group`), so its view, the
        // empty string's, never matches a string.
        self.views.push(0);
        self.hashes.push(0);
        self.null_group = Some(group);
        Ok(group)
    }

    /// The strings of `groups` as an array of `data_type` (`Utf8View` or `Utf8`).
    pub(crate) fn strings(&self, groups: Range<usize>, data_type: &DataType) -> Result<ArrayRef> {
        let mut offsets: Vec<i64> = Vec::with_capacity(groups.len() + 1);
        let mut bytes: Vec<u8> = Vec::new();
        offsets.push(0);
        for &view in &self.views[groups.clone()] {
            let length = view as u32 as usize;
            if length <= INLINE_LEN {
                bytes.extend_from_slice(&view.to_le_bytes()[4..4 + length]);
            } else {
                let offset = (view >> 64) as usize;
                bytes.extend_from_slice(&self.long_strings[offset..offset + length]);
            }
            offsets.push(i64::try_from(bytes.len()).map_err(|_| too_many_groups())?);
        }
        let nulls = self.null_group.map(|g| g as usize).filter(|g| groups.contains(g)).map(|null| NullBuffer::from_iter(groups.clone().map(|g| g != null)));
        let strings = LargeStringArray::try_new(OffsetBuffer::new(ScalarBuffer::from(offsets)), Buffer::from_vec(bytes), nulls)?;
        Ok(cast(&strings, data_type)?)
    }

    /// Every group's string, in group order, as an array of `data_type`.
    pub(crate) fn emit(&mut self, data_type: &DataType) -> Result<ArrayRef> {
        let strings = self.strings(0..self.len(), data_type);
        *self = StringGroups::new();
        strings
    }
}

/// What a string is looked up by: for at most 12 bytes its view (the length in the low
/// 32 bits, then the bytes), for longer ones only the length. `string` starts at `start`
/// in `data`; when 16 bytes are there they are read at once and masked, which costs no
/// copy byte by byte.
fn probe_view(data: &[u8], start: usize, string: &[u8]) -> u128 {
    let length = string.len();
    if length > INLINE_LEN {
        return length as u128;
    }
    let word = match data.get(start..start + 16).and_then(|bytes| <[u8; 16]>::try_from(bytes).ok()) {
        Some(bytes) => u128::from_le_bytes(bytes) & ((1u128 << (length * 8)) - 1),
        None => string.iter().rev().fold(0u128, |word, &byte| (word << 8) | u128::from(byte)),
    };
    (word << 32) | length as u128
}

/// The hash of a string of at most 12 bytes, from its view: one folded multiply of its
/// halves (foldhash's mixing step).
fn hash_short(view: u128) -> u64 {
    let product = u128::from(view as u64 ^ 0x243f_6a88_85a3_08d3) * u128::from((view >> 64) as u64 ^ 0x1319_8a2e_0370_7344);
    let folded = product as u64 ^ (product >> 64) as u64;
    // A second round, so that the bits used for the slot and for the tag both depend on
    // every byte.
    let product = u128::from(folded ^ 0xa409_3822_299f_31d0) * u128::from(0x082e_fa98_ec4e_6c89u64);
    product as u64 ^ (product >> 64) as u64
}

fn too_many_groups() -> DataFusionError {
    DataFusionError::Execution("too many groups".to_string())
}

fn next_group(count: usize) -> Result<u32> {
    u32::try_from(count).ok().filter(|&g| g < u32::MAX - 1).ok_or_else(too_many_groups)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::AsArray;

    #[test]
    fn interns_strings_and_null_across_dictionaries() {
        let mut groups = StringGroups::new();
        let first = StringArray::from(vec![Some("a"), Some("long string over twelve bytes"), None, Some("")]);
        assert_eq!(groups.intern(&first).expect("intern"), vec![0, 1, 2, 3]);
        let second = StringArray::from(vec![Some(""), Some("c"), Some("a"), None, Some("long string over twelve bytes")]);
        assert_eq!(groups.intern(&second).expect("intern"), vec![3, 4, 0, 2, 1]);
        assert_eq!(groups.null_group().expect("null"), 2);
        let new_ones = groups.strings(4..5, &DataType::Utf8).expect("strings");
        assert_eq!(new_ones.as_string::<i32>().value(0), "c");
        let all = groups.emit(&DataType::Utf8View).expect("emit");
        let all = all.as_string_view();
        let rows: Vec<Option<&str>> = all.iter().collect();
        assert_eq!(rows, vec![Some("a"), Some("long string over twelve bytes"), None, Some(""), Some("c")]);
        assert_eq!(groups.len(), 0);
    }

    #[test]
    fn keeps_distinct_strings_apart_through_table_growth() {
        let mut groups = StringGroups::new();
        let values = StringArray::from_iter_values((0..10_000).map(|i| format!("user{i}")));
        let assigned = groups.intern(&values).expect("intern");
        assert_eq!(assigned, (0..10_000).collect::<Vec<u32>>());
        let reversed = StringArray::from_iter_values((0..10_000).rev().map(|i| format!("user{i}")));
        assert_eq!(groups.intern(&reversed).expect("intern"), (0..10_000).rev().collect::<Vec<u32>>());
        assert_eq!(groups.len(), 10_000);
    }

    /// The table keeps only strings: NULL's group stays out of it when the table grows.
    #[test]
    fn null_stays_out_of_the_table_when_it_grows() {
        let mut groups = StringGroups::new();
        assert_eq!(groups.intern(&StringArray::from(vec![None::<&str>])).expect("intern"), vec![0]);
        let values = StringArray::from_iter_values((0..1000).map(|i| format!("s{i}")));
        groups.intern(&values).expect("intern");
        assert_eq!(groups.slots.iter().filter(|&&slot| slot != 0).count(), 1000);
        let empty = groups.intern(&StringArray::from(vec![Some(""), None])).expect("intern");
        assert_eq!(empty, vec![1001, 0]);
    }

    /// Strings 12 and 13 bytes long, and long strings equal in length and first bytes.
    #[test]
    fn tells_apart_strings_at_the_inline_limit_and_long_ones_with_a_common_prefix() {
        let mut groups = StringGroups::new();
        let strings = ["twelve bytes", "thirteen byte", "common prefix, tail A", "common prefix, tail B", "twelve bytez"];
        let values = StringArray::from_iter_values(strings);
        assert_eq!(groups.intern(&values).expect("intern"), vec![0, 1, 2, 3, 4]);
        let again = StringArray::from_iter_values(strings.iter().rev());
        assert_eq!(groups.intern(&again).expect("intern"), vec![4, 3, 2, 1, 0]);
        let emitted = groups.emit(&DataType::Utf8).expect("emit");
        let emitted: Vec<&str> = emitted.as_string::<i32>().iter().map(|s| s.expect("not null")).collect();
        assert_eq!(emitted, strings);
    }
}
