//! # granary-mergetree: `ENGINE = MergeTree`
//!
//! ClickHouse's main table engine, on Granary's storage contract
//! (`granary_storage::TableEngine`). A table is a set of immutable, sorted **parts**;
//! each INSERT writes new parts and a background task **merges** small parts into
//! bigger ones. Reads skip whole parts by partition min/max and skip **granules**
//! (8192-row slices) by a sparse **primary index**, then read only the projected
//! columns of the selected granules.
//!
//! ```text
//! INSERT ─► insert.rs: squash ─► split by partition (keys.rs) ─► sort ─► writer.rs
//!                      ─► tmp_insert_<part>/ fsynced ─► rename ─► snapshot swap (engine.rs)
//!
//! SELECT ─► engine.rs: snapshot of active parts
//!           ─► select.rs: PruningPredicate over part min/max, then over granule key ranges
//!           ─► reader.rs: MergeTreeExec, target_partitions slices, blocking readers ─► batches
//!
//! background / OPTIMIZE ─► selector.rs picks contiguous parts ─► merge.rs k-way merge
//!           ─► writer.rs tmp_merge_<part>/ ─► rename ─► swap; sources deleted when unread
//! ```
//!
//! ## Module map
//! | module | what |
//! |---|---|
//! | [`engine`] | `MergeTreeEngine` (the `TableEngine`), `MergeTreeFactory` (engine clause validation), load at open, TRUNCATE / DROP, the background merge task |
//! | [`settings`] | engine `SETTINGS` with ClickHouse defaults; unknown names are errors (115) |
//! | [`keys`] | ORDER BY / PRIMARY KEY / PARTITION BY text ─► DataFusion physical expressions; partition ids |
//! | [`part_info`] | part identity (`partition_min_max_level`), containment |
//! | [`part`] | the on-disk part format (see also `FORMAT.md`), loading and verifying a part |
//! | [`compression`] | compressed blocks with checksums; LZ4 / ZSTD / NONE codecs |
//! | [`encoding`] | values inside a granule (Arrow buffers, framed) |
//! | [`writer`] | `PartWriter`: granules (adaptive), marks, primary index, minmax, checksums, fsync |
//! | [`insert`] | INSERT: all-or-nothing publication, too-many-parts delay/throw |
//! | [`select`] | part and granule pruning with `PruningPredicate` |
//! | [`point`] | point reads (`key = X`, `key IN (...)`) by binary search in the sparse index, without a plan |
//! | [`reader`] | granule reads and the `MergeTreeExec` plan |
//! | [`selector`] | which parts to merge (the write-amplification vs part-count trade-off) |
//! | [`merge`] | streaming k-way merge (with Replacing/Summing collapsing), `OPTIMIZE [FINAL]` |
//!
//! ## Guarantees
//! * An INSERT is all or nothing for readers: its parts appear in one snapshot swap
//!   after all of them are durable. A failed INSERT leaves no part (and no temporary
//!   directory). A crash during the final renames may keep a prefix of its parts.
//! * A part on disk under its final name is complete and was fsynced; at open every part
//!   is verified against `checksums.txt` and a damaged one is detached, not served.
//! * Readers never block writers: a scan holds `Arc`s of the parts it reads, so a merge
//!   can replace them; replaced parts are deleted when the last reader drops them.
//!
//! ## Engines
//! `MergeTree`; `ReplacingMergeTree([ver])` (one row per sorting key: the greatest
//! `ver`, else the last inserted); `SummingMergeTree([(cols)])` (numeric columns summed
//! per sorting key, rows summing to all zeros removed). Both collapse equal keys in
//! every merge and in each INSERT block (ClickHouse's `optimize_on_insert = 1`), never
//! across parts at read time (no `FINAL` modifier for SELECT yet).
//!
//! ## Not yet
//! * `SELECT ... FINAL`; `is_deleted` for Replacing; nested-map summing; the other
//!   merge-time engines (Collapsing, VersionedCollapsing, Aggregating, Graphite).
//! * Key conditions through monotonic functions (`ORDER BY toDate(ts)` does not prune
//!   `WHERE ts > ...`, `PARTITION BY toYYYYMM(d)` prunes `WHERE d ...` through the
//!   min/max of `d` but not `WHERE toYYYYMM(d) = ...`); only bare key columns prune.
//!   `IN` lists longer than DataFusion's default `max_in_list_size` do not prune.
//! * `old_parts_lifetime` is accepted but replaced parts are deleted as soon as no
//!   query holds them.
//! * `min_insert_block_size_bytes` is not used for squashing (rows only:
//!   `max_insert_block_size`).
//! * `system.parts`, mutations, TTL, SAMPLE BY, ALTER, projections, skip indexes,
//!   compact parts (`min_bytes_for_wide_part` is accepted, every part is wide), insert
//!   deduplication tokens, uncompressed/mark caches, `Delta`/`DoubleDelta`/`Gorilla`
//!   codecs and codec chains.
//! * Opening a table verifies the xxh3 of every byte of every part (safe, but O(data) at
//!   startup).
//! * TRUNCATE does not wait for running scans; they may fail with "cannot open". A
//!   replaced part is removed by whichever thread drops the last reference to it (it
//!   can be an async worker).
//! * Merges are chosen by a simple selector, one merge at a time per table, with no
//!   global pool or disk-space check.

pub mod compression;
pub mod encoding;
pub mod engine;
pub mod insert;
pub mod keys;
pub mod merge;
pub mod part;
pub mod part_info;
pub mod point;
pub mod reader;
pub mod select;
pub mod selector;
pub mod settings;
pub mod writer;

use std::sync::Arc;

pub use engine::{MergeMode, MergeTreeEngine, MergeTreeFactory};
pub use settings::MergeTreeSettings;

/// Registers `MergeTree`, `ReplacingMergeTree` and `SummingMergeTree`.
pub fn register_engines(registry: &mut granary_storage::EngineRegistry) {
    for name in ["MergeTree", "ReplacingMergeTree", "SummingMergeTree"] {
        registry.register(Arc::new(MergeTreeFactory { name }));
    }
}
