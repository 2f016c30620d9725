//! Which parts to merge next.
//!
//! # The trade-off
//!
//! Every merge rewrites its inputs: merging too eagerly multiplies the bytes written per
//! inserted byte (write amplification); merging too lazily leaves many small parts,
//! and every query pays per part (files opened, index consulted) and inserts end with
//! TOO_MANY_PARTS. As in ClickHouse's `SimpleMergeSelector`, we only merge *contiguous*
//! parts of one partition (so a merged part's block range never covers a part it did
//! not absorb) and prefer ranges of parts of *similar size*: merging a 1 GiB part with
//! a 1 MiB one rewrites 1 GiB to remove one part, while merging ten 1 MiB parts removes
//! nine for 10 MiB. Concretely, a range is eligible when
//!
//! * it has 2..=`MAX_PARTS_TO_MERGE` parts and totals at most
//!   `max_bytes_to_merge_at_max_space_in_pool`;
//! * its largest part is at most `BASE` (2) times the sum of the others (balanced), a
//!   condition dropped once the partition has more than a quarter of
//!   `parts_to_delay_insert` parts, when part count matters more than amplification;
//!
//! and among eligible ranges we take the one with the lowest cost per removed part,
//! `total bytes / (parts - 1)`, preferring longer ranges on ties. Each level of merging
//! thus multiplies part size by about the number of parts merged, and a byte is
//! rewritten about log(total / insert size) times.
//!
//! Tuning: not tuned on real workloads yet. `BASE = 1` (the biggest part at most as large
//! as all others together) left geometric series of parts (4 KiB, 2.6 KiB, 1.4 KiB)
//! unmerged forever in tests; `BASE = 2` merges them while a 1 GiB part still waits
//! for 512 MiB of small parts before it is rewritten (a part is rewritten about
//! log1.5(total / insert size) times at worst).

use std::sync::Arc;

use crate::part::Part;
use crate::settings::MergeTreeSettings;

pub const MAX_PARTS_TO_MERGE: usize = 100;
const BASE: u64 = 2;

/// Picks a range of contiguous parts of one partition to merge, or None.
/// `parts` is the table's active-part snapshot (sorted by partition, then block).
pub fn select_merge(parts: &[Arc<Part>], settings: &MergeTreeSettings) -> Option<Vec<Arc<Part>>> {
    let mut best: Option<(f64, usize, &[Arc<Part>])> = None;
    let mut start = 0;
    while start < parts.len() {
        let mut end = start;
        while end < parts.len() && parts[end].info.partition_id == parts[start].info.partition_id {
            end += 1;
        }
        let partition = &parts[start..end];
        let crowded = (partition.len() as u64) * 4 > settings.parts_to_delay_insert;
        for i in 0..partition.len() {
            let (mut sum, mut max) = (0u64, 0u64);
            for j in i..partition.len().min(i + MAX_PARTS_TO_MERGE) {
                let size = partition[j].bytes_on_disk.max(1);
                sum += size;
                max = max.max(size);
                if sum > settings.max_bytes_to_merge_at_max_space_in_pool {
                    break;
                }
                let len = j - i + 1;
                if len < 2 || (!crowded && max > BASE * (sum - max)) {
                    continue;
                }
                let cost = sum as f64 / (len - 1) as f64;
                let better = match best {
                    None => true,
                    Some((c, l, _)) => cost < c || (cost == c && len > l),
                };
                if better {
                    best = Some((cost, len, &partition[i..=j]));
                }
            }
        }
        start = end;
    }
    best.map(|(_, _, range)| range.to_vec())
}
