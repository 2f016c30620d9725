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
//! | [`keys`] | ORDER BY / PRIMARY KEY / PARTITION BY / SAMPLE BY text ─► DataFusion physical expressions; partition ids |
//! | [`part_info`] | part identity (`partition_min_max_level`), containment |
//! | [`part`] | the on-disk part format (see also `FORMAT.md`), loading and verifying a part |
//! | [`compression`] | compressed blocks with checksums; LZ4 / ZSTD / NONE codecs; `CODEC(...)` chains |
//! | [`transform`] | `Delta` / `DoubleDelta` / `Gorilla` value transforms of codec chains |
//! | [`encoding`] | values inside a granule (Arrow buffers, framed) |
//! | [`granules`] | where granules end: ClickHouse's per-block rules for wide and compact parts (adaptive granularity from ClickHouse's block byte sizes) |
//! | [`writer`] | `PartWriter`: granules (as `granules` plans them), marks, primary index, minmax, checksums, fsync |
//! | [`insert`] | INSERT: all-or-nothing publication, too-many-parts delay/throw |
//! | [`select`] | part and granule pruning with `PruningPredicate` |
//! | [`point`] | point reads (`key = X`, `key IN (...)`) by binary search in the sparse index, without a plan |
//! | [`reader`] | granule reads, the `MergeTreeExec` plan, PREWHERE (filter columns first, other columns only for granules with matches, filtered granule by granule as they are decoded (plain fixed-width values gathered from the encoded bytes); every pushed-down filter unless `optimize_move_to_prewhere = 0` or volatile), read_rows/read_bytes as rows of granules read |
//! | [`skip_index`] | data-skipping indexes (`minmax`, `set`, `bloom_filter`, `tokenbf_v1`, `ngrambf_v1`): built per part by the writer (`skp_idx_<name>.idx`), granules dropped by the query's condition after key pruning |
//! | [`threshold`] | skipping parts and granules by a TopK's running threshold (its dynamic filter against part and granule statistics), parts read in the threshold column's order |
//! | [`sample`] | `SAMPLE k [OFFSET m]` as the range of `SAMPLE BY` key values ClickHouse reads (its exact fractions and rounding), a filter the scan applies first and the key pruning uses |
//! | [`monotonic`] | pruning through monotonic functions (`WHERE toDate(ts) = ...` on `ORDER BY ts`, `WHERE ts >= ...` on `ORDER BY toStartOfHour(ts)`) |
//! | [`cache`] | the process-wide uncompressed-block cache (`use_uncompressed_cache`) and mark cache (`mark_cache_size`) |
//! | [`selector`] | which parts to merge (the write-amplification vs part-count trade-off) |
//! | [`merge`] | streaming k-way merge (with Replacing/Summing/Aggregating/Collapsing collapsing), `OPTIMIZE [FINAL]`, the read-time merge of `SELECT ... FINAL` |
//! | [`virtual_columns`] | `_part`, `_part_index`, `_part_offset`, `_partition_id`, `_partition_value`, `_block_number` and ClickHouse's other MergeTree virtual columns: their types, their values per part or granule range, parts dropped by filters on them |
//! | [`graphite`] | GraphiteMergeTree's rollup rules (config sections, pattern choice, retentions, time rounding); the rollup itself runs in [`merge`] |
//! | [`alter`] | `DROP/DETACH/ATTACH PARTITION`; `DELETE WHERE` / `UPDATE` hand over to [`mutation`] |
//! | [`lightweight_delete`] | `DELETE FROM`: the `_row_exists` mask written into hard-linked parts, loaded with them, applied by every read and dropped by merges |
//! | [`mutation`] | mutations: `mutation_N.txt` files, versioned parts (`_N` suffix), the background runner, `KILL MUTATION` |
//!
//! ## Guarantees
//! * An INSERT is all or nothing for readers: its parts appear in one snapshot swap
//!   after all of them are durable. A failed INSERT leaves no part (and no temporary
//!   directory). A crash during the final renames may keep a prefix of its parts.
//! * A part on disk under its final name is complete and was fsynced; at open every part
//!   is checked against `checksums.txt` (sizes of all files, hashes of the small ones)
//!   and a damaged one is detached, not served. Column blocks carry checksums verified
//!   on every read; `CHECK TABLE` hashes whole files.
//! * Block numbers of an INSERT's parts are taken when they are published, under the
//!   commit lock: a merge can only cover parts published before it, so no part can land
//!   inside a merged part's block range (and be dropped as covered at the next start).
//! * Readers never block writers: a scan holds `Arc`s of the parts it reads, so a merge
//!   can replace them. Replaced parts stay on disk as *outdated* (system.parts
//!   `active = 0`) for `old_parts_lifetime` seconds, then are deleted once no reader
//!   holds them; they are covered by the part that replaced them, so a restart drops
//!   them too.
//!
//! ## Operations
//! * `system.parts` through `TableEngine::parts` (active and outdated parts, sizes from
//!   `checksums.txt` and the compressed-block headers; `marks` counts the final mark as
//!   ClickHouse does). `CHECK TABLE [PARTITION p]` re-verifies every file of every
//!   active part against `checksums.txt`.
//! * `SELECT ... FINAL` (query setting `final = 1`, seen as a `Settings` session-config
//!   extension) on Replacing/Summing/Aggregating tables: the selected granules of each partition are
//!   merged at read time with the merge's own code (`merge::final_merge`), one output
//!   partition per table partition. Key pruning stays exact (see `engine::plan_scan`).
//! * `ALTER TABLE ... DROP/DETACH/ATTACH PARTITION`, `DELETE WHERE` (see [`alter`]),
//!   `OPTIMIZE ... PARTITION p` (value or `ID 'id'`), `SYSTEM STOP/START MERGES`
//!   (OPTIMIZE fails with ABORTED while stopped, as in ClickHouse).
//! * Part changes (`NewPart`, `MergeParts`, `MutatePart`, `RemovePart`) go to the
//!   `PartLogSink` given at registration (`system.part_log`); the merge running now is
//!   `TableEngine::merges` (`system.merges`, with rows read/written as it goes).
//!
//! ## Engines
//! `MergeTree`; `ReplacingMergeTree([ver [, is_deleted]])` (one row per sorting key: the
//! greatest `ver`, else the last inserted; a latest version with `is_deleted = 1` stays
//! through merges, is hidden by `FINAL` and dropped by `OPTIMIZE ... FINAL CLEANUP`, which
//! needs `allow_experimental_replacing_merge_with_cleanup = 1`); `SummingMergeTree([(cols)])` (numeric columns summed
//! per sorting key, rows summing to all zeros removed; nested structures named `*Map`
//! summed by key as ClickHouse's `sumMap`, whether listed or not: `engine::NestedMap`); `AggregatingMergeTree`
//! (`AggregateFunction(f, T)` states merged with `granary_functions::merge_aggregate_states`,
//! `SimpleAggregateFunction(f, T)` combined with `f` (sum, sumWithOverflow, min, max, any,
//! anyLast and their `_respect_nulls` forms, groupBitAnd/Or/Xor, groupArrayArray,
//! groupUniqArrayArray, sumMap/minMap/maxMap keyed by any type, ordered as ClickHouse
//! orders its `Field`s; the stored type checked as ClickHouse
//! checks it); other non-key columns
//! need `allow_dimensions_outside_sorting_key = 1` and keep the first row's value);
//! `CollapsingMergeTree(sign)` (per sorting key, 1 and -1 rows of the `Int8` sign cancel:
//! at most the first -1 and the last 1 row are kept; `FINAL` shows only 1 rows);
//! `VersionedCollapsingMergeTree(sign, version)` (the version ends the sorting key; rows
//! of one key and version cancel in pairs of opposite sign);
//! `GraphiteMergeTree('section')` (rows of one path rolled up by time with the rules of
//! the server config's `[graphite_rollup.section]`: see [`graphite`]). All
//! collapse equal keys in every merge and in each INSERT block (ClickHouse's
//! `optimize_on_insert = 1`; such a block is a level-1 part), never across parts at read
//! time unless the query says `FINAL`. `OPTIMIZE ... FINAL` merges a lone part again.
//! A merge whose rows all go (CLEANUP, zero sums, cancelled signs) leaves an empty part
//! (0 rows, 0 marks) covering its sources, as ClickHouse does; reads skip it.
//!
//! ## Not yet
//! * Nested-map Bool values are or-ed (ClickHouse sums them as UInt8: `true` either
//!   way, only a cast to a number differs). GraphiteMergeTree rollup functions other
//!   than any/anyLast/min/max/sum/avg.
//!   SimpleAggregateFunction(groupArrayLastArray|groupUniqArrayArrayMap, ...); groupUniqArrayArray keeps first-appearance order (ClickHouse:
//!   its hash table's). `FINAL` reads each
//!   partition on one thread. Background merges gate ranges by ClickHouse's
//!   `SimpleMergeSelector` rule (`selector`), without its part-alignment heuristics.
//! * PREWHERE under the `final` setting without the FINAL keyword filters merged rows
//!   (ClickHouse: the versions before merging). `_block_number`/`_block_offset` are not persisted
//!   (`enable_block_number_column`): a merged part reports its min block and row offsets,
//!   as ClickHouse does without that setting.
//! * Mutations: `DELETE WHERE`, `UPDATE ... WHERE`, `MATERIALIZE TTL`, `CLEAR COLUMN`,
//!   `MATERIALIZE COLUMN` and the lightweight `DELETE FROM` ([`lightweight_delete`]:
//!   a mask until a merge, as ClickHouse); the mutation text keeps the predicate as
//!   written (ClickHouse prints its formatted AST: `(k % 3) = 0`);
//!   one part at a time and one mutation at a time (ClickHouse applies every pending
//!   mutation to a part in one step); a failed one is retried every wake-up of the
//!   background task (ClickHouse backs off); `finished_mutations_to_keep` is applied
//!   when a mutation run ends (ClickHouse: by its cleanup thread). `ATTACH PART 'name'`,
//!   `REPLACE/MOVE PARTITION`, `FREEZE` are missing. DROP/DETACH PARTITION, like
//!   TRUNCATE, do not wait for running scans of those parts.
//! * Monotonic-function pruning ([`monotonic`]) knows a fixed list of non-decreasing
//!   functions (no decreasing ones, no per-range monotonicity like `toHour` within a
//!   day). `IN` lists longer than DataFusion's default `max_in_list_size` do not prune.
//! * TTL ([`ttl`]): `TTL ... GROUP BY` is refused, `TO DISK/VOLUME` fails (one disk),
//!   `RECOMPRESS` is kept but not applied; TTL expressions are planned without the SQL
//!   front end's rewrites (`DateTime + 1` fails, `+ INTERVAL` works); a Date is taken
//!   at midnight UTC; a part left empty by TTL stays as an empty part.
//! * Column ALTERs change the parts at the ALTER (or the next load), not at read time:
//!   an added column's DEFAULT is written into old rows (wide parts get only that
//!   column's files, the others are hard links; compact parts are rewritten), so a
//!   later change of the DEFAULT does not change them, and RENAME/MODIFY/DROP COLUMN
//!   are not listed in `system.mutations`. Projections, skip indexes, `T64`, `FPC` and `GCD`
//!   codecs, more than one
//!   transform per column. `DoubleDelta` and `Gorilla` are transforms followed by a
//!   general codec, not ClickHouse's bit-packed encodings (same SQL, Granary's format). Insert deduplication is by `non_replicated_deduplication_window`
//!   (block ids in `deduplication_log.txt`), as for ClickHouse's non-replicated tables.
//! * Opening a table verifies the xxh3 of every byte of every part (safe, but O(data) at
//!   startup).
//! * TRUNCATE does not wait for running scans; they may fail with "cannot open". A
//!   replaced part is removed by whichever thread drops the last reference to it (it
//!   can be an async worker).
//! * Merges are chosen by a simple selector, one merge at a time per table, with no
//!   global pool or disk-space check.

pub mod alter;
pub mod cache;
pub mod compression;
pub mod encoding;
pub mod engine;
pub mod granules;
pub mod graphite;
pub mod insert;
pub mod keys;
pub mod lightweight_delete;
pub mod merge;
pub mod monotonic;
pub mod mutation;
pub mod packing;
pub mod part;
pub mod part_info;
pub mod point;
pub mod reader;
pub mod sample;
pub mod select;
pub mod selector;
pub mod settings;
pub mod skip_index;
pub mod threshold;
pub mod transform;
pub mod ttl;
pub mod virtual_columns;
pub mod writer;

use std::sync::Arc;

pub use engine::{MergeMode, MergeTreeEngine, MergeTreeFactory};
pub use settings::MergeTreeSettings;

/// Registers `MergeTree`, `ReplacingMergeTree`, `SummingMergeTree`, `AggregatingMergeTree`,
/// the Collapsing variants and `GraphiteMergeTree` (without rollup sections).
pub fn register_engines(registry: &mut granary_storage::EngineRegistry) {
    register_engines_with(registry, None, Arc::default());
}

/// [`register_engines`], with part changes reported to `part_log` (`system.part_log`) and
/// the server configuration's `graphite_rollup` sections for GraphiteMergeTree.
pub fn register_engines_with(
    registry: &mut granary_storage::EngineRegistry,
    part_log: Option<Arc<dyn granary_storage::PartLogSink>>,
    graphite: Arc<graphite::GraphiteConfigs>,
) {
    for name in ["MergeTree", "ReplacingMergeTree", "SummingMergeTree", "AggregatingMergeTree", "CollapsingMergeTree", "VersionedCollapsingMergeTree", "GraphiteMergeTree"] {
        registry.register(Arc::new(MergeTreeFactory { name, part_log: part_log.clone(), graphite: graphite.clone() }));
    }
}
