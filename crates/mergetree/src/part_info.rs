//! Part identity: partition, block range and merge level, as ClickHouse's
//! `MergeTreePartInfo`.
//!
//! Every INSERT block gets a fresh block number `n` and becomes part
//! `<partition>_n_n_0`. A merge of contiguous parts of one partition produces
//! `<partition>_<min>_<max>_<level>` with the union of their block ranges and
//! `level = max(levels) + 1`. So a part *covers* another when both are in the same
//! partition, its block range contains the other's and its level is at least as high:
//! the covered part's rows are all in the covering part, and it can be dropped at load
//! (that is how a crash between "merged part committed" and "sources deleted" heals).
//!
//! A mutation (`mutation_N.txt`, block number `N`) turns every part whose data version
//! is below `N` into `<partition>_<min>_<max>_<level>_N`: same blocks and level, data
//! version `N` (a part without the suffix has its min block as data version). The
//! mutated part covers the old one, and a merge keeps the largest version of its
//! sources, as ClickHouse's `MergeTreePartInfo` does.

use std::cmp::Ordering;
use std::fmt;

use granary_common::{Error, ErrorCode, Result};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PartInfo {
    pub partition_id: String,
    pub min_block: u64,
    pub max_block: u64,
    pub level: u32,
    /// The mutation whose result this part is (`_N` suffix), if any.
    pub mutation: Option<u64>,
}

impl PartInfo {
    pub fn new(partition_id: impl Into<String>, min_block: u64, max_block: u64, level: u32) -> Self {
        PartInfo { partition_id: partition_id.into(), min_block, max_block, level, mutation: None }
    }

    pub fn with_mutation(mut self, mutation: Option<u64>) -> Self {
        self.mutation = mutation;
        self
    }

    /// The block number up to which mutations are applied to the part's rows.
    pub fn data_version(&self) -> u64 {
        self.mutation.unwrap_or(self.min_block)
    }

    /// Parses a directory name `<partition_id>_<min>_<max>_<level>[_<mutation>]`.
    /// Partition ids never contain `_` (they are digits, `-`, hex or `all`), so the
    /// first component is the partition and the rest are four or five numbers.
    pub fn parse(name: &str) -> Result<PartInfo> {
        let bad = || Error::new(ErrorCode::BAD_ARGUMENTS, format!("Unexpected part name: {name}"));
        let mut it = name.split('_');
        let partition_id = it.next().filter(|p| !p.is_empty()).ok_or_else(bad)?;
        let numbers: Vec<u64> = it.map(|s| s.parse().map_err(|_| bad())).collect::<Result<_>>()?;
        let (min_block, max_block, level, mutation) = match numbers.as_slice() {
            [min, max, level] => (*min, *max, *level, None),
            [min, max, level, mutation] => (*min, *max, *level, Some(*mutation)),
            _ => return Err(bad()),
        };
        let level = u32::try_from(level).map_err(|_| bad())?;
        if min_block > max_block {
            return Err(bad());
        }
        Ok(PartInfo::new(partition_id, min_block, max_block, level).with_mutation(mutation))
    }

    pub fn name(&self) -> String {
        match self.mutation {
            Some(m) => format!("{}_{}_{}_{}_{m}", self.partition_id, self.min_block, self.max_block, self.level),
            None => format!("{}_{}_{}_{}", self.partition_id, self.min_block, self.max_block, self.level),
        }
    }

    /// True when every row of `other` is in `self` (see the module docs).
    pub fn contains(&self, other: &PartInfo) -> bool {
        self.partition_id == other.partition_id
            && self.min_block <= other.min_block
            && other.max_block <= self.max_block
            && self.level >= other.level
            && self.mutation.unwrap_or(0) >= other.mutation.unwrap_or(0)
    }

    /// True when the two parts share no block.
    pub fn is_disjoint(&self, other: &PartInfo) -> bool {
        self.partition_id != other.partition_id || self.max_block < other.min_block || other.max_block < self.min_block
    }
}

impl Ord for PartInfo {
    /// Partition, then block order: the order in which parts may be merged.
    fn cmp(&self, other: &Self) -> Ordering {
        (&self.partition_id, self.min_block, self.max_block, self.level, self.mutation).cmp(&(
            &other.partition_id,
            other.min_block,
            other.max_block,
            other.level,
            other.mutation,
        ))
    }
}

impl PartialOrd for PartInfo {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for PartInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in ["all_1_1_0", "202401_3_10_2", "1f0e9a7c3b2d4e5f_7_7_0", "202401-5_1_2_1", "all_1_1_0_3", "1_2_5_1_7"] {
            assert_eq!(PartInfo::parse(name).unwrap().name(), name);
        }
        assert_eq!(PartInfo::parse("all_1_1_0").unwrap().data_version(), 1);
        assert_eq!(PartInfo::parse("all_1_4_1_3").unwrap().data_version(), 3);
        for bad in ["all_1_1", "_1_1_0", "all_2_1_0", "all_x_1_0", "tmp_insert_all_1_1_0", "all_1_1_0_3_4", "all_1_1_0_"] {
            assert!(PartInfo::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn containment() {
        let merged = PartInfo::parse("all_1_5_1").unwrap();
        assert!(merged.contains(&PartInfo::parse("all_2_2_0").unwrap()));
        assert!(!merged.contains(&PartInfo::parse("all_5_6_0").unwrap()));
        assert!(!merged.contains(&PartInfo::parse("x_2_2_0").unwrap()));
        assert!(!merged.contains(&PartInfo::parse("all_1_5_2").unwrap()));
        assert!(merged.is_disjoint(&PartInfo::parse("all_6_6_0").unwrap()));
        // A mutated part covers the part it was made from, not a later version.
        let mutated = PartInfo::parse("all_1_1_0_3").unwrap();
        assert!(mutated.contains(&PartInfo::parse("all_1_1_0").unwrap()));
        assert!(!PartInfo::parse("all_1_1_0").unwrap().contains(&mutated));
        assert!(PartInfo::parse("all_1_5_1_7").unwrap().contains(&mutated));
        assert!(!PartInfo::parse("all_1_5_1").unwrap().contains(&mutated));
    }
}
