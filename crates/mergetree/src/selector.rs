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

/// Whether ClickHouse's `SimpleMergeSelector` (its default settings) lets a background
/// merge take a range of `len` parts totalling `sum` bytes, the largest `max`, the
/// youngest `min_age` seconds old, in a partition of `partition_len` parts: each part
/// counts 5 MiB more than its size, and the range must be `base` times its largest part,
/// `base` going from 5 down to 2 as the parts age (10 s to an hour for small ones, up
/// to 30 days for 100 GiB) or the partition fills up (10 to 50 parts). Fresh small parts
/// thus wait until there are five of them, as in ClickHouse, so an `OPTIMIZE ... FINAL`
/// soon after a few INSERTs merges them itself and gives the level ClickHouse gives.
fn allowed_in_background(sum: u64, max: u64, len: usize, min_age: u64, partition_len: usize) -> bool {
    const BASE: f64 = 5.0;
    const FIXED_COST: f64 = 5.0 * 1024.0 * 1024.0;
    // Where `value` lies between `low` and `high`, from 0 to 1.
    let unit = |value: f64, low: f64, high: f64| ((value - low) / (high - low)).clamp(0.0, 1.0);
    let lerp = |from: f64, to: f64, ratio: f64| from + (to - from) * ratio;
    let size = unit((sum as f64).ln_1p(), (1024.0f64 * 1024.0).ln_1p(), (100.0f64 * 1024.0 * 1024.0 * 1024.0).ln_1p());
    let age = unit(min_age as f64, 10.0, lerp(3600.0, 30.0 * 86400.0, size));
    let crowding = unit(partition_len as f64, 10.0, 50.0);
    let base = lerp(BASE, 2.0, (age + crowding).min(1.0));
    (sum as f64 + len as f64 * FIXED_COST) / (max as f64 + FIXED_COST) >= base
}

/// Picks a range of contiguous parts of one partition to merge, or None.
/// `parts` is the table's active-part snapshot (sorted by partition, then block).
/// `ages` (seconds since each part was written, parallel to `parts`) asks for a
/// background merge, which ClickHouse's rule gates (see [`allowed_in_background`]);
/// without, an `OPTIMIZE` merges any balanced range. `versions` (parallel to `parts`)
/// are the parts' current mutation versions: a range never mixes two.
pub fn select_merge(parts: &[Arc<Part>], versions: &[u64], settings: &MergeTreeSettings, ages: Option<&[u64]>) -> Option<Vec<Arc<Part>>> {
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
                if versions[start + j] != versions[start + i] {
                    break;
                }
                let size = partition[j].bytes_on_disk.max(1);
                sum += size;
                max = max.max(size);
                if sum > settings.max_bytes_to_merge_at_max_space_in_pool {
                    break;
                }
                let len = j - i + 1;
                if len < 2 {
                    continue;
                }
                let allowed = match ages {
                    Some(ages) => allowed_in_background(sum, max, len, ages[start + i..=start + j].iter().copied().min().unwrap_or(0), partition.len()),
                    None => max <= BASE * (sum - max),
                };
                if !crowded && !allowed {
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

#[cfg(test)]
mod tests {
    use super::allowed_in_background;

    #[test]
    fn fresh_small_parts_wait_for_five_of_them_or_for_age() {
        let kib = 1024;
        // Fresh parts of 1 KiB: five of them, not three.
        assert!(!allowed_in_background(3 * kib, kib, 3, 0, 3));
        assert!(!allowed_in_background(4 * kib, kib, 4, 0, 4));
        assert!(allowed_in_background(6 * kib, kib, 6, 0, 6));
        // An hour old, two are enough; three need about forty minutes.
        assert!(allowed_in_background(2 * kib, kib, 2, 3600, 2));
        assert!(!allowed_in_background(2 * kib, kib, 2, 1800, 2));
        assert!(allowed_in_background(3 * kib, kib, 3, 2500, 3));
        // A crowded partition lowers the base too.
        assert!(allowed_in_background(2 * kib, kib, 2, 0, 50));
        // A range dominated by one big part waits.
        assert!(!allowed_in_background(1024 * 1024 * kib + 5 * kib, 1024 * 1024 * kib, 6, 0, 6));
    }
}
