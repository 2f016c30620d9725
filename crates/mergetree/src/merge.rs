//! Merging parts: a streaming k-way merge by sorting key.
//!
//! Each source part is read granule by granule; the sorting key of the current granule
//! is converted to Arrow's row format (byte-comparable), and the output is built by
//! repeatedly taking the smallest current row (ties go to the older part, so equal keys
//! keep insertion order). Output rows are gathered with `interleave` into blocks and fed
//! to a [`PartWriter`](crate::writer::PartWriter), so memory holds one granule per
//! source plus one output block, never a whole part.
//!
//! The blocks are the ones ClickHouse's `MergingSortedAlgorithm` emits, because the
//! writer cuts granules per block (`granules.rs`): a block ends at `merge_max_block_size`
//! rows or once it holds `merge_max_block_size_bytes` bytes; and a source granule that
//! comes before every other source's current row as a whole (or the granules of the
//! last source left) is passed on as a block of its own, after the rows gathered so far
//! are emitted as a shorter block.
//!
//! The merged part gets the union of the block ranges and `max(level) + 1`; it is
//! renamed into place and swapped for its sources in one step. If a source vanished in
//! the meantime (TRUNCATE), the result is discarded.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef};
use arrow::compute::{filter_record_batch, interleave};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use arrow::row::{OwnedRow, RowConverter, Rows};
use datafusion::common::ScalarValue;
use datafusion::physical_expr::PhysicalExpr;
use granary_common::{Error, ErrorCode, Result};
use granary_storage::OptimizeRequest;

use crate::compression::ColumnCodec;
use crate::engine::{Combine, Inner, MergeMode, NestedMap};
use crate::insert::{discard, write_part_with, PendingPart};
use crate::part::Part;
use crate::part_info::PartInfo;
use crate::reader::PartReader;
use crate::selector::select_merge;
use crate::writer::{commit_part_dir, PartLayout, PartSync};
use granary_functions::map_key::replaces;
use granary_functions::MapKeyPart;
use granary_types::ChType;

/// One background merge step: returns true when a merge was done.
pub async fn merge_once(inner: &Arc<Inner>) -> Result<bool> {
    let Ok(_guard) = inner.merge_lock.try_lock() else {
        return Ok(false); // OPTIMIZE or TRUNCATE is running
    };
    let snapshot = inner.snapshot();
    if ttl_merge(inner, &snapshot).await? {
        return Ok(true);
    }
    let now = std::time::SystemTime::now();
    let ages: Vec<u64> = snapshot
        .iter()
        .map(|p| std::fs::metadata(&p.dir).and_then(|m| m.modified()).ok().and_then(|written| now.duration_since(written).ok()).map_or(0, |d| d.as_secs()))
        .collect();
    let versions = mutation_versions(inner, &snapshot);
    let Some(sources) = select_merge(&snapshot, &versions, &inner.settings, Some(&ages)) else {
        return Ok(false);
    };
    merge_and_commit(inner, sources, false).await?;
    Ok(true)
}

/// ClickHouse's TTL merge selector, before the ordinary one: the part whose TTL came
/// due first (its `ttl.txt` says it holds expired rows or values), with the parts next
/// to it in its partition that are due too, merged together (which applies the TTL),
/// in a partition not TTL-merged in the last `merge_with_ttl_timeout` seconds. With
/// `ttl_only_drop_parts` only parts whose every row expired are taken, and dropped.
async fn ttl_merge(inner: &Arc<Inner>, snapshot: &[Arc<Part>]) -> Result<bool> {
    if inner.ttl.is_none() {
        return Ok(false);
    }
    let now = crate::ttl::unix_now();
    let only_drop = inner.settings.ttl_only_drop_parts != 0;
    let timeout = i64::try_from(inner.settings.merge_with_ttl_timeout).unwrap_or(i64::MAX);
    let due = |p: &Arc<Part>| p.rows > 0 && p.ttl.as_ref().is_some_and(|t| if only_drop { t.all_rows_expired(now) } else { t.any_expired(now) });
    let versions = mutation_versions(inner, snapshot);
    let chosen = {
        let last = inner.last_ttl_merge.lock();
        let eligible = |p: &Arc<Part>| last.get(&p.info.partition_id).is_none_or(|&t| now.saturating_sub(t) >= timeout) && due(p);
        let first = snapshot.iter().enumerate().filter(|(_, p)| eligible(p)).min_by_key(|(_, p)| p.ttl.as_ref().map_or(i64::MAX, |t| t.due_at()));
        first.map(|(at, part)| {
            let fits = |q: &Arc<Part>, i: usize| q.info.partition_id == part.info.partition_id && versions[i] == versions[at] && eligible(q);
            let mut from = at;
            while from > 0 && fits(&snapshot[from - 1], from - 1) {
                from -= 1;
            }
            let mut to = at + 1;
            while to < snapshot.len() && fits(&snapshot[to], to) {
                to += 1;
            }
            snapshot[from..to].to_vec()
        })
    };
    let Some(parts) = chosen else { return Ok(false) };
    let Some(first) = parts.first() else { return Ok(false) };
    inner.last_ttl_merge.lock().insert(first.info.partition_id.clone(), now);
    if only_drop {
        let _running = inner.merge_running.lock();
        let _commit = inner.commit_lock.lock();
        if !inner.all_active(&parts) {
            return Ok(false);
        }
        crate::engine::drop_active_parts(inner, &parts)?;
        return Ok(true);
    }
    merge_and_commit(inner, parts, false).await?;
    Ok(true)
}

/// `OPTIMIZE TABLE [PARTITION p] [FINAL]`. Without FINAL: one merge chosen by the
/// selector (restricted to the partition). With FINAL: every partition (or the given
/// one) is merged down to one part. `PARTITION` is matched against the partition id
/// (`202401`, or `ID 'abc'`); a partition of one part is merged too, unless
/// `optimize_skip_merged_partitions` and the part is already a merge's. `FINAL CLEANUP`
/// (ReplacingMergeTree only) also drops the rows whose latest version is deleted;
/// CLEANUP without FINAL is ignored, as in ClickHouse.
pub async fn optimize(inner: &Arc<Inner>, request: OptimizeRequest) -> Result<()> {
    let cleanup = request.final_ && request.cleanup;
    if cleanup {
        if !matches!(inner.mode, MergeMode::Replacing { .. }) {
            return Err(Error::new(ErrorCode::CANNOT_ASSIGN_OPTIMIZE, "Cannot OPTIMIZE with CLEANUP table: only ReplacingMergeTree can be CLEANUP"));
        }
        if inner.settings.allow_experimental_replacing_merge_with_cleanup == 0 {
            return Err(Error::new(ErrorCode::SUPPORT_IS_DISABLED, "Experimental merges with CLEANUP are not allowed"));
        }
    }
    // A background merge running now finishes first; its part is merged again, as
    // ClickHouse's OPTIMIZE FINAL waits for running merges and then merges what is there.
    let _guard = inner.merge_lock.lock().await;
    let wanted = match request.partition.as_deref() {
        Some(p) => Some(partition_id_of(inner, p)?),
        None => None,
    };
    let snapshot = inner.snapshot();
    let in_scope = |p: &&Arc<Part>| wanted.as_ref().is_none_or(|w| &p.info.partition_id == w);
    if !request.final_ {
        let candidates: Vec<Arc<Part>> = snapshot.iter().filter(in_scope).cloned().collect();
        if let Some(sources) = select_merge(&candidates, &mutation_versions(inner, &candidates), &inner.settings, None) {
            merge_and_commit(inner, sources, false).await?;
        }
        return Ok(());
    }
    let mut partitions: Vec<String> = snapshot.iter().filter(in_scope).map(|p| p.info.partition_id.clone()).collect();
    partitions.dedup();
    for partition in partitions {
        // Parts inserted meanwhile are included: FINAL means one part at the end.
        let mut merged_once = false;
        loop {
            let in_partition: Vec<Arc<Part>> = inner.snapshot().iter().filter(|p| p.info.partition_id == partition).cloned().collect();
            // Parts waiting for a mutation (one that fails, say) cannot merge with parts
            // past it: each run of equal versions merges on its own, once.
            let versions = mutation_versions(inner, &in_partition);
            let runs = runs_of_equal(in_partition.clone(), &versions);
            if runs.len() > 1 {
                for run in runs.into_iter().filter(|r| r.len() > 1) {
                    merge_and_commit(inner, run, cleanup).await?;
                }
                break;
            }
            let sources = in_partition;
            // A single part is merged again, as ClickHouse does: an INSERT written with
            // optimize_on_insert = 0 still holds rows to collapse, rows may have got old
            // enough for a coarser Graphite precision, deleted rows may go (CLEANUP).
            let single_done = merged_once || (request.skip_merged_partitions && sources.first().is_some_and(|p| p.info.level > 0));
            if sources.is_empty() || (sources.len() < 2 && single_done) {
                break;
            }
            merge_and_commit(inner, sources, cleanup).await?;
            merged_once = true;
        }
    }
    Ok(())
}

/// Each part's current mutation version (parallel to `parts`): only parts of equal
/// version merge.
fn mutation_versions(inner: &Inner, parts: &[Arc<Part>]) -> Vec<u64> {
    parts.iter().map(|p| crate::mutation::current_version(inner, p.info.data_version())).collect()
}

/// Contiguous runs of parts with equal values in `keys` (parallel to `parts`).
fn runs_of_equal(parts: Vec<Arc<Part>>, keys: &[u64]) -> Vec<Vec<Arc<Part>>> {
    let mut runs: Vec<Vec<Arc<Part>>> = Vec::new();
    for (i, part) in parts.into_iter().enumerate() {
        match runs.last_mut() {
            Some(run) if i > 0 && keys[i - 1] == keys[i] => run.push(part),
            _ => runs.push(vec![part]),
        }
    }
    runs
}

/// The partition id named by a `PARTITION p` clause of this table.
pub fn partition_id_of(inner: &Inner, text: &str) -> Result<String> {
    inner.keys.partition_id_of(&inner.schema, text)
}

async fn merge_and_commit(inner: &Arc<Inner>, sources: Vec<Arc<Part>>, cleanup: bool) -> Result<()> {
    let inner = inner.clone();
    // OPTIMIZE runs this inside its query: its log lines keep the query id.
    tokio::task::spawn_blocking(granary_profiler::carry(move || {
        let _running = inner.merge_running.lock();
        let started = std::time::Instant::now();
        let pending = merge_parts(&inner, &sources, cleanup);
        *inner.running_merge.lock() = None;
        let pending = pending?;
        let _commit = inner.commit_lock.lock();
        if !inner.all_active(&sources) {
            discard(std::slice::from_ref(&pending));
            return Ok(());
        }
        // TTL removed every row: the sources go and no part is left, as ClickHouse
        // removes a part its TTL emptied (CLEANUP's empty part stays: it must cover
        // older rows).
        if pending.part.rows == 0 && !cleanup && inner.ttl.is_some() && inner.settings.ttl_only_drop_parts == 0 {
            discard(std::slice::from_ref(&pending));
            tracing::debug!(logger = %format_args!("{} (MergerMutator)", inner.table_name), "Removed {} parts emptied by TTL", sources.len());
            return crate::engine::drop_active_parts(&inner, &sources);
        }
        if let Err(e) = commit_part_dir(&pending.tmp_dir, &pending.final_dir, PartSync::FULL) {
            discard(std::slice::from_ref(&pending));
            return Err(e);
        }
        tracing::debug!(logger = %format_args!("{} (MergerMutator)", inner.table_name), "Merged {} parts into {} ({} rows)", sources.len(), pending.part.name(), pending.part.rows);
        let merged = Arc::new(pending.part);
        inner.log_part("MergeParts", &merged, &sources, started.elapsed());
        inner.add_parts(vec![merged], &sources);
        Ok(())
    }))
    .await
    .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("merge task failed: {e}")))?
}

/// Writes the merge of `sources` (contiguous parts of one partition) to a temporary part,
/// an empty one when no row survives (SummingMergeTree's zero sums, Collapsing's
/// cancelled rows, a `cleanup` merge's deleted rows), as ClickHouse keeps one.
pub fn merge_parts(inner: &Inner, sources: &[Arc<Part>], cleanup: bool) -> Result<PendingPart> {
    let _running = granary_common::metrics::GaugeGuard::new(granary_common::metrics::Metric::Merge);
    let first = sources.first().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "merge of no parts"))?;
    let info = PartInfo::new(
        first.info.partition_id.clone(),
        sources.iter().map(|p| p.info.min_block).min().unwrap_or(0),
        sources.iter().map(|p| p.info.max_block).max().unwrap_or(0),
        sources.iter().map(|p| p.info.level).max().unwrap_or(0) + 1,
    )
    // Sources of equal current mutation version (see `mutation::current_version`): the
    // largest version among them is every row's.
    .with_mutation(sources.iter().filter_map(|p| p.info.mutation).max());
    let all: Vec<usize> = (0..inner.schema.fields().len()).collect();
    let mut inputs = Vec::with_capacity(sources.len());
    for part in sources {
        inputs.push(Source::Part { reader: PartReader::new(part.clone(), &inner.schema, &all)?, part: part.clone(), next_granule: 0, end: part.granules(), filter: None });
    }
    let running = crate::engine::RunningMerge {
        started: std::time::Instant::now(),
        sources: sources.iter().map(|p| p.name()).collect(),
        result: info.name(),
        partition_id: info.partition_id.clone(),
        is_mutation: false,
        total_rows: sources.iter().map(|p| p.rows).sum(),
        total_bytes: sources.iter().map(|p| p.bytes_on_disk).sum(),
        rows_read: Arc::new(std::sync::atomic::AtomicU64::new(0)),
        rows_written: Arc::new(std::sync::atomic::AtomicU64::new(0)),
    };
    let (rows_read, rows_written) = (running.rows_read.clone(), running.rows_written.clone());
    *inner.running_merge.lock() = Some(running);
    let mut merger = Merger::new(inner, inner.schema.clone(), inputs, merge_block_limits(inner))?;
    merger.rows_read = Some(rows_read);
    merger.drop_deleted = cleanup;
    let counted = merger.map(|b| {
        // A dropped table stops its merge at the next block.
        if inner.shutdown.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(Error::new(ErrorCode::ABORTED, format!("Cancelled merging parts of {}: the table is being dropped", inner.table_name)));
        }
        if let Ok(b) = &b {
            rows_written.fetch_add(b.num_rows() as u64, std::sync::atomic::Ordering::Relaxed);
        }
        b
    });
    // Expired rows go and expired values are reset in every merge (ClickHouse applies
    // them whenever a source part holds any; here the check costs one evaluation),
    // unless only whole parts may go (`ttl_only_drop_parts`).
    let ttl = inner.ttl.as_ref().filter(|_| inner.settings.ttl_only_drop_parts == 0);
    let now = crate::ttl::unix_now();
    let counted = crate::ttl::apply_to_blocks(ttl.map(|t| t.stream(now)).transpose()?, counted);
    let mut counted = counted.filter(|b| b.as_ref().map_or(true, |b| b.num_rows() > 0)).peekable();
    if counted.peek().is_none() {
        let layout = PartLayout::for_size(&inner.settings, 0, 0);
        return write_part_with(inner, info, "tmp_merge_", PartSync::FULL, layout, |writer| {
            writer.allow_empty(first);
            Ok(())
        });
    }
    let source_ttl = crate::ttl::TtlInfos::union(sources.iter().filter_map(|p| p.ttl.as_ref()));
    // A RECOMPRESS rule past for every row: columns without a CODEC of their own take its codec.
    let recompress = match inner.ttl.as_ref().and_then(|t| t.recompression_codec(&source_ttl, now)) {
        Some(text) => {
            let codecs = inner.codecs.iter().zip(inner.schema.fields()).map(|(c, f)| if *c == ColumnCodec::default() { ColumnCodec::parse(text, f.data_type()) } else { Ok(*c) }).collect::<Result<Vec<_>>>()?;
            Some((text.to_string(), codecs))
        }
        None => None,
    };
    let codecs = recompress.as_ref().map_or(inner.codecs.as_slice(), |(_, c)| c.as_slice());
    crate::insert::write_part_with_codecs(inner, info, "tmp_merge_", PartSync::FULL, layout_of_merge(inner, sources), codecs, |writer| {
        if ttl.is_some() {
            writer.ttl_applied_at(now);
            writer.ttl_sources(source_ttl.clone());
        }
        if let Some((text, _)) = &recompress {
            writer.recompressed(text.clone());
        }
        for block in counted {
            writer.write(&block?)?;
        }
        Ok(())
    })
}

/// The rows of `inputs` (each sorted) merged and collapsed (Replacing/Summing/
/// Aggregating): an INSERT's block of such a table, as ClickHouse's `optimize_on_insert`
/// collapses it before writing it as one block.
pub fn collapse(inner: &Inner, inputs: Vec<Source>) -> Result<Vec<RecordBatch>> {
    let limits = BlockLimits { rows: inner.settings.index_granularity.max(1) as usize, bytes: 0 };
    Merger::new(inner, inner.schema.clone(), inputs, limits)?.collect()
}

/// How a [`Merger`] cuts its output into blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockLimits {
    /// A block ends at this many rows,
    pub rows: usize,
    /// or once its rows take this many bytes as ClickHouse counts them (0: no limit).
    pub bytes: usize,
}

/// The blocks of a merge or mutation: `merge_max_block_size` rows,
/// `merge_max_block_size_bytes` bytes.
pub fn merge_block_limits(inner: &Inner) -> BlockLimits {
    BlockLimits { rows: inner.settings.merge_max_block_size.max(1) as usize, bytes: inner.settings.merge_max_block_size_bytes as usize }
}

/// The format of a part made from `sources`, by their total uncompressed size and rows
/// (as ClickHouse decides it before merging).
pub fn layout_of_merge(inner: &Inner, sources: &[Arc<Part>]) -> PartLayout {
    let bytes = sources.iter().map(|p| p.sizes().map_or(p.bytes_on_disk, |s| s.data_uncompressed_bytes)).sum();
    PartLayout::for_size(&inner.settings, bytes, sources.iter().map(|p| p.rows).sum())
}

/// `SELECT ... FINAL`: the rows of `ranges` (granule ranges of parts of one partition,
/// in part order) collapsed as a merge would collapse them, streaming: every stored
/// column, then the scan's virtual columns `virtuals` (indices into the scan schema).
/// A virtual column travels with its row, so each surviving row keeps the part and
/// offset of the version it came from, as in ClickHouse. `prewhere` (over those
/// columns) drops rows before they are merged, as ClickHouse's PREWHERE under FINAL.
pub fn final_merge<'a>(
    inner: &'a Inner,
    ranges: &[crate::reader::GranuleRange],
    virtuals: &[usize],
    virtual_values: Option<&crate::reader::ScanVirtualValues>,
    prewhere: Option<&Arc<dyn PhysicalExpr>>,
) -> Result<Merger<'a>> {
    let read: Vec<usize> = (0..inner.schema.fields().len()).chain(virtuals.iter().copied()).collect();
    let schema = Arc::new(inner.scan_schema.project(&read)?);
    let mut inputs = Vec::with_capacity(ranges.len());
    for r in ranges {
        let mut reader = PartReader::new(r.part.clone(), &inner.scan_schema, &read)?;
        if let Some(v) = virtual_values {
            reader = reader.with_virtual_values(&v.values, &v.keys, &v.stored_schema)?;
        }
        inputs.push(Source::Part { reader, part: r.part.clone(), next_granule: r.granules.start, end: r.granules.end, filter: prewhere.cloned() });
    }
    let mut merger = Merger::new(inner, schema, inputs, BlockLimits { rows: inner.settings.index_granularity.max(1) as usize, bytes: 0 })?;
    merger.final_read = true;
    merger.drop_deleted = true;
    Ok(merger)
}

/// A sorted input of a merge.
pub enum Source {
    /// A part, read granule by granule, keeping the rows `filter` accepts (and those a
    /// lightweight delete left).
    Part { reader: PartReader, part: Arc<Part>, next_granule: usize, end: usize, filter: Option<Arc<dyn PhysicalExpr>> },
    /// A sorted block in memory (an INSERT block of a Replacing/Summing table, which is
    /// collapsed like a merge before it is written, as ClickHouse's optimize_on_insert).
    Block { batch: RecordBatch, offset: usize, chunk: usize },
}

impl Source {
    fn next_batch(&mut self, schema: &arrow::datatypes::SchemaRef) -> Result<Option<RecordBatch>> {
        match self {
            Source::Part { reader, part, next_granule, end, filter } => {
                while *next_granule < *end {
                    let mut batch = reader.read(*next_granule..*next_granule + 1, schema)?;
                    // Rows a lightweight delete masked are not merged (nor shown by FINAL).
                    if let Some(existing) = part.existing_in(*next_granule..*next_granule + 1) {
                        batch = filter_record_batch(&batch, &existing)?;
                    }
                    *next_granule += 1;
                    if batch.num_rows() == 0 {
                        continue;
                    }
                    let Some(filter) = filter else { return Ok(Some(batch)) };
                    let mask = crate::reader::filter_mask(&filter.evaluate(&batch)?.into_array(batch.num_rows())?)?;
                    if mask.true_count() > 0 {
                        return Ok(Some(filter_record_batch(&batch, &mask)?));
                    }
                }
                Ok(None)
            }
            Source::Block { batch, offset, chunk } => {
                if *offset >= batch.num_rows() {
                    return Ok(None);
                }
                let n = (*chunk).max(1).min(batch.num_rows() - *offset);
                let out = batch.slice(*offset, n);
                *offset += n;
                Ok(Some(out))
            }
        }
    }
}

struct Cursor {
    source: Source,
    batch: Option<RecordBatch>,
    rows: Option<Rows>,
    pos: usize,
    /// Index of `batch` in `Merger::pending`.
    slot: usize,
    /// Each row's bytes as ClickHouse counts them (only with a byte limit on blocks).
    row_bytes: Vec<usize>,
}

pub struct Merger<'a> {
    inner: &'a Inner,
    /// The columns of the sources and of the output: the table's, then (FINAL) the
    /// virtual columns the query reads.
    schema: SchemaRef,
    converter: Option<RowConverter>,
    cursors: Vec<Cursor>,
    /// Batches referenced by the output chunk being built.
    pending: Vec<RecordBatch>,
    limits: BlockLimits,
    /// Column types, for the byte limit.
    types: Vec<ChType>,
    /// Ordinary merges pass a source granule that comes first as a whole on as a block
    /// (ClickHouse's fast path; its collapsing algorithms have none).
    pass_chunks: bool,
    failed: bool,
    /// Replacing/Summing/Aggregating: the group of equal keys being read, emitted when
    /// a different key comes (it may span granules and output chunks).
    carry: Option<Group>,
    /// Summing/Aggregating: the combined columns of each row of the output chunk.
    chunk_folded: Vec<Vec<Folded>>,
    /// Summing: the summed nested maps of each row of the output chunk.
    chunk_maps: Vec<Vec<MapSum>>,
    /// Rows of the output chunk being built: (slot in `pending`, row).
    indices: Vec<(usize, usize)>,
    /// A merge's progress counter (`system.merges`): rows read from the sources.
    rows_read: Option<Arc<std::sync::atomic::AtomicU64>>,
    /// `SELECT ... FINAL`, where Collapsing keeps no -1 row (ClickHouse's
    /// `only_positive_sign`).
    final_read: bool,
    /// Replacing with `is_deleted`: drop a key whose latest version is deleted (FINAL
    /// reads and `OPTIMIZE ... FINAL CLEANUP`).
    drop_deleted: bool,
    /// Collapsing: keys whose 1 and -1 rows differ in number by more than one (logged,
    /// as ClickHouse logs them, for the first few).
    incorrect_sign_runs: u64,
    /// Graphite: the rollup of the merged rows, which come out of the merge as in an
    /// ordinary merge.
    roller: Option<crate::graphite::Roller>,
}

struct Group {
    /// The row that represents the group: (slot in `pending`, row).
    slot: usize,
    pos: usize,
    key: OwnedRow,
    /// Summing/Aggregating: the combined columns so far, one per `MergeMode` column.
    folded: Vec<Folded>,
    /// Summing: the nested maps summed so far, one per `MergeMode::Summing` map.
    maps: Vec<MapSum>,
    /// Collapsing: the signs seen so far and the rows that may survive.
    signs: SignRun,
    /// VersionedCollapsing: the rows not cancelled yet.
    versioned: VersionedRun,
}

impl Group {
    /// Every reference of the group into `Merger::pending`.
    fn slots_mut(&mut self) -> impl Iterator<Item = &mut usize> {
        let collapsing = self.signs.first_negative.iter_mut().chain(self.signs.last_positive.iter_mut());
        std::iter::once(&mut self.slot).chain(collapsing.chain(self.versioned.rows.iter_mut()).map(|(slot, _)| slot))
    }
}

/// The rows of one sorting key of a CollapsingMergeTree, as ClickHouse's
/// `CollapsingSortedAlgorithm` counts them: with as many 1 as -1 rows, the key keeps
/// its first -1 and last 1 row if the last row was a 1, and nothing otherwise; with one
/// more 1 (or -1) row, only the last 1 (or first -1) row. A larger difference is bad
/// data (logged), and the side with more rows keeps its row.
#[derive(Debug, Default)]
struct SignRun {
    positive: u64,
    negative: u64,
    last_is_positive: bool,
    /// (slot in `pending`, row).
    first_negative: Option<(usize, usize)>,
    last_positive: Option<(usize, usize)>,
}

impl SignRun {
    fn add(&mut self, sign: i8, at: (usize, usize)) -> Result<()> {
        match sign {
            1 => {
                self.positive += 1;
                self.last_is_positive = true;
                self.last_positive = Some(at);
            }
            -1 => {
                if self.negative == 0 {
                    self.first_negative = Some(at);
                }
                self.negative += 1;
                self.last_is_positive = false;
            }
            other => return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Incorrect data: Sign = {other} (must be 1 or -1)."))),
        }
        Ok(())
    }

    /// The surviving rows, in output order; `only_positive` for FINAL.
    fn survivors(&self, only_positive: bool) -> [Option<(usize, usize)>; 2] {
        let (p, n) = (self.positive, self.negative);
        if (p == 0 && n == 0) || (!self.last_is_positive && p == n) {
            return [None, None];
        }
        [self.first_negative.filter(|_| p <= n && !only_positive), self.last_positive.filter(|_| p >= n)]
    }
}

/// The rows of one sorting key (version included) of a VersionedCollapsingMergeTree
/// not cancelled yet, all of one sign, as ClickHouse's `VersionedCollapsingAlgorithm`
/// keeps them: a row of the other sign cancels the last of them. Past `cap` rows the
/// oldest is let out, so memory stays bounded.
#[derive(Debug, Default)]
struct VersionedRun {
    sign: i8,
    /// (slot in `pending`, row), oldest first.
    rows: std::collections::VecDeque<(usize, usize)>,
}

impl VersionedRun {
    /// Adds a row; returns the oldest row when it had to be let out.
    fn add(&mut self, sign: i8, at: (usize, usize), cap: usize) -> Option<(usize, usize)> {
        let released = if self.rows.len() >= cap { self.rows.pop_front() } else { None };
        if self.rows.is_empty() {
            self.sign = sign;
            self.rows.push_back(at);
        } else if sign == self.sign {
            self.rows.push_back(at);
        } else {
            self.rows.pop_back();
        }
        released
    }
}

/// The sign of row `row` of a CollapsingMergeTree's sign column.
fn sign_at(column: &dyn Array, row: usize) -> Result<i8> {
    use arrow::array::AsArray;
    let signs = column.as_primitive_opt::<arrow::datatypes::Int8Type>().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "sign column is not Int8"))?;
    Ok(signs.value(row))
}

/// Whether row `row` of a ReplacingMergeTree's `is_deleted` column (UInt8 or Bool) marks
/// a deletion; values other than 0 and 1 are refused, as ClickHouse refuses them.
fn deleted_at(column: &dyn Array, row: usize) -> Result<bool> {
    use arrow::array::AsArray;
    if let Some(flags) = column.as_boolean_opt() {
        return Ok(flags.value(row));
    }
    let flags = column.as_primitive_opt::<arrow::datatypes::UInt8Type>().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "is_deleted column is not UInt8"))?;
    match flags.value(row) {
        0 => Ok(false),
        1 => Ok(true),
        other => Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Incorrect data: is_deleted = {other} (must be 1 or 0)."))),
    }
}

/// The nested maps a table's merges sum.
fn summed_maps(mode: &MergeMode) -> &[NestedMap] {
    match mode {
        MergeMode::Summing { maps, .. } => maps,
        _ => &[],
    }
}

/// `sum + value` as ClickHouse's `sumMapWithOverflow` adds them: in the value's type,
/// wrapping. Wide integers (`wide`) add as 256-bit words wrapped back into their type.
/// A Bool, which ClickHouse sums as a UInt8 that still shows as `true`, is or-ed: only
/// its cast to a number differs.
fn add_in_type(sum: &ScalarValue, value: ScalarValue, wide: Option<granary_types::wide::WideInt>) -> Result<ScalarValue> {
    use arrow::datatypes::i256;
    Ok(match (sum, &value, wide) {
        (ScalarValue::Boolean(Some(a)), ScalarValue::Boolean(Some(b)), _) => ScalarValue::Boolean(Some(*a || *b)),
        (ScalarValue::Decimal128(Some(a), p, s), ScalarValue::Decimal128(Some(b), ..), Some(kind)) => {
            ScalarValue::Decimal128(Some(kind.wrap(i256::from_i128(*a).wrapping_add(i256::from_i128(*b))).as_i128()), *p, *s)
        }
        (ScalarValue::Decimal256(Some(a), p, s), ScalarValue::Decimal256(Some(b), ..), Some(kind)) => ScalarValue::Decimal256(Some(kind.wrap(a.wrapping_add(*b))), *p, *s),
        _ => sum.add(value)?,
    })
}

/// One nested map of a SummingMergeTree group: entries by key, holding the key's values
/// (as written) and the sums. With one key column it is ClickHouse's `sumMap`: every
/// row's entries are summed (NULLs skipped), and the entries whose sums are all the
/// type's default are left out at the end (NULL for a Nullable value, so a 0 stays
/// there). With several key columns it is ClickHouse's older
/// `mergeMap`: an entry is removed as soon as an addition makes it all zero, and a group
/// of one row keeps its arrays as they are.
#[derive(Default)]
struct MapSum {
    entries: std::collections::BTreeMap<Vec<MapKeyPart>, (Vec<ScalarValue>, Vec<ScalarValue>)>,
    rows: usize,
    composite: bool,
}

impl MapSum {
    fn add_row(&mut self, map: &NestedMap, batch: &RecordBatch, row: usize) -> Result<()> {
        use arrow::array::AsArray;
        let list_at = |col: usize| -> Result<ArrayRef> {
            let lists = batch.column(col).as_list_opt::<i32>().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "nested map column is not an Array"))?;
            Ok(lists.value(row))
        };
        let keys: Vec<ArrayRef> = map.keys.iter().map(|c| list_at(*c)).collect::<Result<_>>()?;
        let values: Vec<ArrayRef> = map.values.iter().map(|c| list_at(*c)).collect::<Result<_>>()?;
        let len = keys[0].len();
        if keys.iter().chain(&values).any(|a| a.len() != len) {
            return Err(Error::new(ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH, "Arrays of a nested map have different sizes in one row"));
        }
        self.rows += 1;
        self.composite = map.keys.len() > 1;
        for entry in 0..len {
            let key_values: Vec<ScalarValue> = keys.iter().map(|k| ScalarValue::try_from_array(k, entry)).collect::<datafusion::common::Result<_>>()?;
            let key = key_values.iter().zip(&map.key_types).map(|(v, t)| MapKeyPart::of(v, t)).collect::<Result<Vec<_>>>()?;
            let added: Vec<ScalarValue> = values.iter().map(|v| ScalarValue::try_from_array(v, entry)).collect::<datafusion::common::Result<_>>()?;
            match self.entries.get_mut(&key) {
                Some((_, sums)) => {
                    for ((sum, value), wide) in sums.iter_mut().zip(added).zip(&map.wide_values) {
                        if value.is_null() {
                            continue;
                        }
                        *sum = if sum.is_null() { value } else { add_in_type(sum, value, *wide)? };
                    }
                    if self.composite && all_default(sums, &[])? {
                        self.entries.remove(&key);
                    }
                }
                None => {
                    self.entries.insert(key, (key_values, added));
                }
            }
        }
        Ok(())
    }

    /// Column `position` of the map (keys, then values) for each row of a chunk;
    /// `written` is that column as the chunk holds it (the group's first row).
    /// `nullable`: which value columns are Nullable.
    fn column(sums: &[&MapSum], position: usize, written: &ArrayRef, nullable: &[bool]) -> Result<ArrayRef> {
        use arrow::array::AsArray;
        let arrow::datatypes::DataType::List(element) = written.data_type() else {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, "nested map column is not an Array"));
        };
        let mut elements: Vec<ScalarValue> = Vec::new();
        let mut offsets: Vec<i32> = vec![0];
        for (row, sum) in sums.iter().enumerate() {
            if sum.composite && sum.rows == 1 {
                let list = written.as_list::<i32>().value(row);
                for i in 0..list.len() {
                    elements.push(ScalarValue::try_from_array(&list, i)?);
                }
            } else {
                for (key_values, values) in sum.entries.values() {
                    if !sum.composite && all_default(values, nullable)? {
                        continue;
                    }
                    elements.push(match key_values.get(position) {
                        Some(key) => key.clone(),
                        None => values[position - key_values.len()].clone(),
                    });
                }
            }
            offsets.push(i32::try_from(elements.len()).map_err(|_| Error::new(ErrorCode::TOO_LARGE_ARRAY_SIZE, "nested map of a block too large"))?);
        }
        let values = if elements.is_empty() { arrow::array::new_empty_array(element.data_type()) } else { ScalarValue::iter_to_array(elements)? };
        let values = arrow::compute::cast(&values, element.data_type())?;
        Ok(Arc::new(arrow::array::ListArray::try_new(element.clone(), arrow::buffer::OffsetBuffer::new(offsets.into()), values, None)?))
    }
}

/// Whether every sum is NULL or its type's default: 0, or NULL only when `nullable`
/// says the column is Nullable (missing: not Nullable).
fn all_default(sums: &[ScalarValue], nullable: &[bool]) -> Result<bool> {
    for (i, sum) in sums.iter().enumerate() {
        if !sum.is_null() && (nullable.get(i).copied().unwrap_or(false) || *sum != ScalarValue::new_zero(&sum.data_type())?) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// One combined column of a group of rows with equal keys.
enum Folded {
    Value(ScalarValue),
    /// Serialized `AggregateFunction` states, merged when the chunk is built (rows
    /// meeting in one merge are few: each part holds a key at most once).
    States(Vec<Option<Vec<u8>>>),
}

impl Folded {
    fn start(combine: &Combine, column: &dyn Array, row: usize) -> Result<Folded> {
        Ok(match combine {
            Combine::State(_) => Folded::States(vec![state_at(column, row)?]),
            // One row's array has its duplicates too.
            Combine::UniqArrays => Folded::Value(combine_arrays(&ScalarValue::try_from_array(column, row)?, None, true)?),
            Combine::SumMap | Combine::MinMap | Combine::MaxMap => Folded::Value(combine_maps(combine, &ScalarValue::try_from_array(column, row)?, None)?),
            _ => Folded::Value(ScalarValue::try_from_array(column, row)?),
        })
    }

    fn fold(&mut self, combine: &Combine, column: &dyn Array, row: usize) -> Result<()> {
        match self {
            Folded::States(list) => list.push(state_at(column, row)?),
            Folded::Value(current) => {
                let new = ScalarValue::try_from_array(column, row)?;
                match combine {
                    Combine::AnyRespectNulls => return Ok(()),
                    Combine::AnyLastRespectNulls => {
                        *current = new;
                        return Ok(());
                    }
                    _ => {}
                }
                // NULLs are skipped, as the aggregate functions skip them.
                if new.is_null() {
                    return Ok(());
                }
                if current.is_null() {
                    *current = new;
                    return Ok(());
                }
                match combine {
                    Combine::Sum => *current = current.add(new)?,
                    Combine::Min => {
                        if new.partial_cmp(current) == Some(std::cmp::Ordering::Less) {
                            *current = new;
                        }
                    }
                    Combine::Max => {
                        if new.partial_cmp(current) == Some(std::cmp::Ordering::Greater) {
                            *current = new;
                        }
                    }
                    Combine::Any | Combine::AnyRespectNulls => {}
                    Combine::AnyLast | Combine::AnyLastRespectNulls => *current = new,
                    Combine::BitAnd | Combine::BitOr | Combine::BitXor => *current = combine_bits(combine, current, &new)?,
                    Combine::ConcatArrays => *current = combine_arrays(current, Some(&new), false)?,
                    Combine::UniqArrays => *current = combine_arrays(current, Some(&new), true)?,
                    Combine::SumMap | Combine::MinMap | Combine::MaxMap => *current = combine_maps(combine, current, Some(&new))?,
                    Combine::State(_) => return Err(Error::new(ErrorCode::LOGICAL_ERROR, "aggregate state folded as a value")),
                }
            }
        }
        Ok(())
    }
}

/// `groupBitAnd/Or/Xor` of two integers of one type. Signed values are combined
/// sign-extended to 64 bits, which gives the narrow type's result sign-extended.
fn combine_bits(combine: &Combine, current: &ScalarValue, new: &ScalarValue) -> Result<ScalarValue> {
    let op = |a: u64, b: u64| match combine {
        Combine::BitAnd => a & b,
        Combine::BitOr => a | b,
        _ => a ^ b,
    };
    let data_type = current.data_type();
    let bits = |v: &ScalarValue| -> Result<u64> {
        let wide = v.cast_to(&if data_type.is_signed_integer() { arrow::datatypes::DataType::Int64 } else { arrow::datatypes::DataType::UInt64 })?;
        match wide {
            ScalarValue::Int64(Some(x)) => Ok(x as u64),
            ScalarValue::UInt64(Some(x)) => Ok(x),
            other => Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("groupBit* of {other:?}"))),
        }
    };
    let result = op(bits(current)?, bits(new)?);
    let wide = if data_type.is_signed_integer() { ScalarValue::Int64(Some(result as i64)) } else { ScalarValue::UInt64(Some(result)) };
    Ok(wide.cast_to(&data_type)?)
}

/// `groupArrayArray` (the elements of `current` then of `new`) or, `distinct`,
/// `groupUniqArrayArray` (each element once, in order of first appearance).
fn combine_arrays(current: &ScalarValue, new: Option<&ScalarValue>, distinct: bool) -> Result<ScalarValue> {
    let ScalarValue::List(list) = current else {
        return Err(Error::new(ErrorCode::LOGICAL_ERROR, "groupArrayArray of a value that is not an Array"));
    };
    let arrow::datatypes::DataType::List(element) = list.data_type() else {
        return Err(Error::new(ErrorCode::LOGICAL_ERROR, "groupArrayArray of a value that is not an Array"));
    };
    let mut parts: Vec<ArrayRef> = vec![list.value(0)];
    if let Some(ScalarValue::List(other)) = new {
        parts.push(other.value(0));
    }
    let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
    let mut values = arrow::compute::concat(&refs)?;
    if distinct {
        let mut seen = std::collections::HashSet::new();
        let mut keep = Vec::with_capacity(values.len());
        for i in 0..values.len() {
            keep.push(seen.insert(ScalarValue::try_from_array(&values, i)?));
        }
        values = arrow::compute::filter(&values, &arrow::array::BooleanArray::from(keep))?;
    }
    let offsets = arrow::buffer::OffsetBuffer::from_lengths([values.len()]);
    Ok(ScalarValue::List(Arc::new(arrow::array::ListArray::try_new(element.clone(), offsets, values, None)?)))
}

/// `sumMap`/`minMap`/`maxMap` of `current` and `new` (tuples of a key array and value
/// arrays): one entry per key, keys sorted; sumMap leaves out entries whose sums are
/// all zero (summing again later gives the same result, so one value is enough).
fn combine_maps(combine: &Combine, current: &ScalarValue, new: Option<&ScalarValue>) -> Result<ScalarValue> {
    use arrow::array::AsArray;
    let not_a_map = || Error::new(ErrorCode::LOGICAL_ERROR, "sumMap of a value that is not a tuple of arrays");
    let ScalarValue::Struct(tuple) = current else { return Err(not_a_map()) };
    // Keys and values order as ClickHouse orders them (UInt256, UUID, floats); wide sums wrap.
    let element_types: Vec<ChType> = tuple
        .fields()
        .iter()
        .map(|f| match ChType::from_field(f) {
            ChType::Array(inner) => *inner,
            other => other,
        })
        .collect();
    let wide: Vec<Option<granary_types::wide::WideInt>> = element_types.iter().map(|t| granary_types::wide::WideInt::of(t.base())).collect();
    let mut entries: std::collections::BTreeMap<MapKeyPart, (ScalarValue, Vec<ScalarValue>)> = std::collections::BTreeMap::new();
    let others: Vec<&ScalarValue> = std::iter::once(current).chain(new).collect();
    for value in others {
        let ScalarValue::Struct(t) = value else { return Err(not_a_map()) };
        let arrays: Vec<ArrayRef> = t.columns().iter().map(|c| c.as_list_opt::<i32>().map(|l| l.value(0)).ok_or_else(not_a_map)).collect::<Result<_>>()?;
        let len = arrays[0].len();
        if arrays.iter().any(|a| a.len() != len) {
            return Err(Error::new(ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH, "Arrays of a sumMap/minMap/maxMap value have different sizes"));
        }
        for i in 0..len {
            let key = ScalarValue::try_from_array(&arrays[0], i)?;
            let values: Vec<ScalarValue> = arrays[1..].iter().map(|a| ScalarValue::try_from_array(a, i)).collect::<datafusion::common::Result<_>>()?;
            let part = MapKeyPart::of(&key, &element_types[0])?;
            match entries.get_mut(&part) {
                None => {
                    entries.insert(part, (key, values));
                }
                Some((_, old)) => {
                    for (n, (old, value)) in old.iter_mut().zip(values).enumerate().map(|(n, e)| (n + 1, e)) {
                        let wanted = match combine {
                            Combine::SumMap => None,
                            Combine::MinMap => Some(std::cmp::Ordering::Less),
                            _ => Some(std::cmp::Ordering::Greater),
                        };
                        match wanted {
                            None => *old = add_in_type(old, value, wide[n])?,
                            Some(order) if replaces(&value, old, &element_types[n], order) => *old = value,
                            Some(_) => {}
                        }
                    }
                }
            }
        }
    }
    let mut columns: Vec<Vec<ScalarValue>> = vec![Vec::new(); tuple.num_columns()];
    for (key, values) in entries.into_values() {
        if *combine == Combine::SumMap && all_default(&values, &[])? {
            continue;
        }
        columns[0].push(key);
        for (column, value) in columns[1..].iter_mut().zip(values) {
            column.push(value);
        }
    }
    let fields = tuple.fields().clone();
    let arrays: Vec<ArrayRef> = fields
        .iter()
        .zip(columns)
        .map(|(field, values)| {
            let arrow::datatypes::DataType::List(element) = field.data_type() else { return Err(not_a_map()) };
            let values = if values.is_empty() { arrow::array::new_empty_array(element.data_type()) } else { arrow::compute::cast(&ScalarValue::iter_to_array(values)?, element.data_type())? };
            let offsets = arrow::buffer::OffsetBuffer::from_lengths([values.len()]);
            Ok(Arc::new(arrow::array::ListArray::try_new(element.clone(), offsets, values, None)?) as ArrayRef)
        })
        .collect::<Result<_>>()?;
    Ok(ScalarValue::Struct(Arc::new(arrow::array::StructArray::try_new(fields, arrays, None)?)))
}

fn state_at(column: &dyn Array, row: usize) -> Result<Option<Vec<u8>>> {
    use arrow::array::AsArray;
    let binary = column.as_binary_opt::<i32>().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "AggregateFunction column is not Binary"))?;
    Ok((!binary.is_null(row)).then(|| binary.value(row).to_vec()))
}

impl<'a> Merger<'a> {
    fn new(inner: &'a Inner, schema: SchemaRef, sources: Vec<Source>, limits: BlockLimits) -> Result<Self> {
        let converter = if inner.keys.sorting.is_empty() { None } else { Some(RowConverter::new(inner.keys.sort_fields())?) };
        let ordinary = inner.mode == MergeMode::Ordinary;
        let mut merger = Merger {
            inner,
            schema,
            converter,
            cursors: Vec::new(),
            pending: Vec::new(),
            limits: BlockLimits { rows: limits.rows.max(1), bytes: if ordinary { limits.bytes } else { 0 } },
            types: if ordinary && limits.bytes > 0 { crate::granules::ch_types(&inner.schema) } else { Vec::new() },
            pass_chunks: ordinary,
            failed: false,
            carry: None,
            chunk_folded: Vec::new(),
            chunk_maps: Vec::new(),
            indices: Vec::new(),
            rows_read: None,
            final_read: false,
            drop_deleted: false,
            incorrect_sign_runs: 0,
            roller: match &inner.mode {
                MergeMode::Graphite(rollup) => {
                    rollup.check_value_type(&inner.schema)?;
                    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
                    Some(crate::graphite::Roller::new(rollup.clone(), now, crate::graphite::server_time_zone()?))
                }
                _ => None,
            },
        };
        for source in sources {
            merger.cursors.push(Cursor { source, batch: None, rows: None, pos: 0, slot: 0, row_bytes: Vec::new() });
        }
        for i in 0..merger.cursors.len() {
            merger.advance(i)?;
        }
        Ok(merger)
    }

    /// Loads the next chunk of cursor `i` (or marks it exhausted).
    fn advance(&mut self, i: usize) -> Result<()> {
        let c = &mut self.cursors[i];
        let Some(batch) = c.source.next_batch(&self.schema)? else {
            c.batch = None;
            c.rows = None;
            c.row_bytes.clear();
            return Ok(());
        };
        if self.limits.bytes > 0 {
            c.row_bytes.clear();
            c.row_bytes.resize(batch.num_rows(), 0);
            crate::granules::add_row_bytes(&batch, &self.types, &mut c.row_bytes);
        }
        if let Some(counter) = &self.rows_read {
            counter.fetch_add(batch.num_rows() as u64, std::sync::atomic::Ordering::Relaxed);
        }
        c.rows = match &self.converter {
            Some(conv) => {
                let keys: Vec<ArrayRef> = self.inner.keys.sorting.iter().map(|k| k.evaluate_ordered(&batch)).collect::<Result<_>>()?;
                Some(conv.convert_columns(&keys)?)
            }
            None => None,
        };
        c.pos = 0;
        c.slot = self.pending.len();
        self.pending.push(batch.clone());
        c.batch = Some(batch);
        // A long run of equal keys (Replacing/Summing) adds granules without adding output
        // rows: drop the batches nothing points into any more, so memory stays bounded.
        if self.pending.len() > 2 * self.cursors.len() + 8 {
            self.compact();
        }
        Ok(())
    }

    /// Keeps only the pending batches referenced by output rows, the open group or a
    /// cursor, renumbering the references.
    fn compact(&mut self) {
        let old = std::mem::take(&mut self.pending);
        let mut map: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
        let mut kept: Vec<RecordBatch> = Vec::new();
        let mut remap = |slot: usize| {
            *map.entry(slot).or_insert_with(|| {
                kept.push(old[slot].clone());
                kept.len() - 1
            })
        };
        for index in &mut self.indices {
            index.0 = remap(index.0);
        }
        if let Some(group) = &mut self.carry {
            for slot in group.slots_mut() {
                *slot = remap(*slot);
            }
        }
        for c in &mut self.cursors {
            if c.batch.is_some() {
                c.slot = remap(c.slot);
            }
        }
        self.pending = kept;
    }

    /// Adds the current row of cursor `b` to the output, or (Replacing, Summing,
    /// Aggregating) folds it into the group of equal keys.
    fn take_row(&mut self, b: usize) -> Result<()> {
        let c = &self.cursors[b];
        if matches!(self.inner.mode, MergeMode::Ordinary | MergeMode::Graphite(_)) {
            self.indices.push((c.slot, c.pos));
            return Ok(());
        }
        let logical = || Error::new(ErrorCode::LOGICAL_ERROR, "merge cursor without keys or batch");
        let rows = c.rows.as_ref().ok_or_else(logical)?;
        let batch = c.batch.as_ref().ok_or_else(logical)?;
        let key = rows.row(c.pos);
        match (&mut self.carry, &self.inner.mode) {
            (Some(group), MergeMode::Replacing { version, is_deleted }) if group.key.row() == key => {
                if let Some(d) = is_deleted {
                    deleted_at(batch.column(*d).as_ref(), c.pos)?;
                }
                // Rows come oldest first, so on equal versions the newer one wins.
                let newer_wins = match version {
                    None => true,
                    Some(v) => {
                        let new = ScalarValue::try_from_array(batch.column(*v), c.pos)?;
                        let old = ScalarValue::try_from_array(self.pending[group.slot].column(*v), group.pos)?;
                        new >= old
                    }
                };
                if newer_wins {
                    group.slot = c.slot;
                    group.pos = c.pos;
                }
            }
            (Some(group), MergeMode::Summing { columns, .. } | MergeMode::Aggregating { columns }) if group.key.row() == key => {
                for (folded, (col, combine)) in group.folded.iter_mut().zip(columns) {
                    folded.fold(combine, batch.column(*col).as_ref(), c.pos)?;
                }
                for (sum, map) in group.maps.iter_mut().zip(summed_maps(&self.inner.mode)) {
                    sum.add_row(map, batch, c.pos)?;
                }
            }
            (Some(group), MergeMode::Collapsing { sign }) if group.key.row() == key => {
                group.signs.add(sign_at(batch.column(*sign).as_ref(), c.pos)?, (c.slot, c.pos))?;
            }
            (Some(group), MergeMode::VersionedCollapsing { sign }) if group.key.row() == key => {
                let cap = self.limits.rows.clamp(3, 8192) - 1;
                if let Some(released) = group.versioned.add(sign_at(batch.column(*sign).as_ref(), c.pos)?, (c.slot, c.pos), cap) {
                    self.indices.push(released);
                }
            }
            _ => {
                let folded = match &self.inner.mode {
                    MergeMode::Summing { columns, .. } | MergeMode::Aggregating { columns } => {
                        columns.iter().map(|(col, combine)| Folded::start(combine, batch.column(*col).as_ref(), c.pos)).collect::<Result<_>>()?
                    }
                    _ => Vec::new(),
                };
                let mut maps = Vec::new();
                for map in summed_maps(&self.inner.mode) {
                    let mut sum = MapSum::default();
                    sum.add_row(map, batch, c.pos)?;
                    maps.push(sum);
                }
                let (mut signs, mut versioned) = (SignRun::default(), VersionedRun::default());
                match &self.inner.mode {
                    MergeMode::Replacing { is_deleted: Some(d), .. } => {
                        deleted_at(batch.column(*d).as_ref(), c.pos)?;
                    }
                    MergeMode::Collapsing { sign } => signs.add(sign_at(batch.column(*sign).as_ref(), c.pos)?, (c.slot, c.pos))?,
                    MergeMode::VersionedCollapsing { sign } => {
                        versioned.add(sign_at(batch.column(*sign).as_ref(), c.pos)?, (c.slot, c.pos), usize::MAX);
                    }
                    _ => {}
                }
                let group = Group { slot: c.slot, pos: c.pos, key: key.owned(), folded, maps, signs, versioned };
                if let Some(done) = self.carry.replace(group) {
                    self.emit(done)?;
                }
            }
        }
        Ok(())
    }

    fn emit(&mut self, group: Group) -> Result<()> {
        if let (MergeMode::Replacing { is_deleted: Some(d), .. }, true) = (&self.inner.mode, self.drop_deleted) {
            if deleted_at(self.pending[group.slot].column(*d).as_ref(), group.pos)? {
                return Ok(());
            }
        }
        if let MergeMode::VersionedCollapsing { .. } = self.inner.mode {
            self.indices.extend(group.versioned.rows);
            return Ok(());
        }
        if let MergeMode::Collapsing { .. } = self.inner.mode {
            self.indices.extend(group.signs.survivors(self.final_read).into_iter().flatten());
            if group.signs.positive.abs_diff(group.signs.negative) > 1 {
                self.incorrect_sign_runs += 1;
                if self.incorrect_sign_runs <= 10 {
                    tracing::warn!(
                        logger = %format_args!("{} (CollapsingSortedAlgorithm)", self.inner.table_name),
                        "Incorrect data: number of rows with sign = 1 ({}) differs with number of rows with sign = -1 ({}) by more than one",
                        group.signs.positive,
                        group.signs.negative
                    );
                }
            }
            return Ok(());
        }
        self.indices.push((group.slot, group.pos));
        if matches!(self.inner.mode, MergeMode::Summing { .. } | MergeMode::Aggregating { .. }) {
            self.chunk_folded.push(group.folded);
            self.chunk_maps.push(group.maps);
        }
        Ok(())
    }

    /// Summing/Aggregating: puts the combined values into the chunk; Summing drops rows
    /// whose summed columns are all zero.
    fn apply_folded(&mut self, chunk: RecordBatch) -> Result<RecordBatch> {
        let (MergeMode::Summing { columns, .. } | MergeMode::Aggregating { columns }) = &self.inner.mode else {
            return Ok(chunk);
        };
        let folded = std::mem::take(&mut self.chunk_folded);
        let maps = std::mem::take(&mut self.chunk_maps);
        let summed_maps = summed_maps(&self.inner.mode);
        if columns.is_empty() && summed_maps.is_empty() {
            return Ok(chunk);
        }
        // ClickHouse never drops a row of a table whose nested maps it sums or that has
        // (Simple)AggregateFunction columns.
        let typed = columns.iter().any(|(col, _)| matches!(ChType::from_field(chunk.schema().field(*col)), ChType::AggregateFunction(..) | ChType::SimpleAggregateFunction(..)));
        let drop_zero_rows = matches!(self.inner.mode, MergeMode::Summing { .. }) && columns.iter().any(|(_, c)| *c == Combine::Sum) && summed_maps.is_empty() && !typed;
        let mut arrays = chunk.columns().to_vec();
        for (m, map) in summed_maps.iter().enumerate() {
            let sums: Vec<&MapSum> = maps.iter().map(|row| &row[m]).collect();
            let nullable: Vec<bool> = map.values.iter().map(|c| matches!(ChType::from_field(chunk.schema().field(*c)), ChType::Array(t) if matches!(*t, ChType::Nullable(_)))).collect();
            for (position, col) in map.keys.iter().chain(&map.values).enumerate() {
                arrays[*col] = MapSum::column(&sums, position, &chunk.columns()[*col], &nullable)?;
            }
        }
        let mut all_zero = vec![drop_zero_rows; chunk.num_rows()];
        for (i, (col, combine)) in columns.iter().enumerate() {
            let field = chunk.schema().field(*col).clone();
            if let Combine::State(ty) = combine {
                let mut states = arrow::array::BinaryBuilder::new();
                let mut group_of_row = Vec::new();
                for (group, row) in folded.iter().enumerate() {
                    if let Folded::States(list) = &row[i] {
                        for state in list {
                            states.append_option(state.as_deref());
                            group_of_row.push(group);
                        }
                    }
                }
                arrays[*col] = granary_functions::merge_aggregate_states(ty, &states.finish(), &group_of_row, folded.len())?;
                continue;
            }
            let values = folded.iter().map(|row| match &row[i] {
                Folded::Value(v) => Ok(v.clone()),
                Folded::States(_) => Err(Error::new(ErrorCode::LOGICAL_ERROR, "aggregate states in a value column")),
            });
            let values: Vec<ScalarValue> = values.collect::<Result<_>>()?;
            if *combine == Combine::Sum && drop_zero_rows {
                let zero = ScalarValue::new_zero(field.data_type())?;
                for (row, v) in values.iter().enumerate() {
                    if *v != zero {
                        all_zero[row] = false;
                    }
                }
            }
            let array = if values.is_empty() { arrow::array::new_empty_array(field.data_type()) } else { ScalarValue::iter_to_array(values)? };
            arrays[*col] = match granary_types::wide::WideInt::of(granary_types::ChType::from_field(&field).base()) {
                // UInt128 is summed in 256 bits: wrapped back into 128, as ClickHouse wraps.
                Some(kind) => kind.narrow(&kind.widen(array.as_ref())?),
                None => arrow::compute::cast(&array, field.data_type())?,
            };
        }
        let chunk = RecordBatch::try_new(chunk.schema(), arrays)?;
        if all_zero.iter().any(|z| *z) {
            let keep = arrow::array::BooleanArray::from_iter(all_zero.iter().map(|z| Some(!z)));
            return Ok(arrow::compute::filter_record_batch(&chunk, &keep)?);
        }
        Ok(chunk)
    }

    /// The cursor with the smallest current row, other than `except` (ties: the older
    /// source).
    fn smallest(&self, except: Option<usize>) -> Result<Option<usize>> {
        let mut best: Option<usize> = None;
        for (i, c) in self.cursors.iter().enumerate() {
            if c.batch.is_none() || Some(i) == except {
                continue;
            }
            best = match (best, &c.rows) {
                (None, _) => Some(i),
                // No sorting key: parts are concatenated in block order.
                (Some(b), None) => Some(b),
                (Some(b), Some(rows)) => {
                    let other = &self.cursors[b];
                    let other_rows = other.rows.as_ref().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "merge cursor without keys"))?;
                    if rows.row(c.pos) < other_rows.row(other.pos) {
                        Some(i)
                    } else {
                        Some(b)
                    }
                }
            };
        }
        Ok(best)
    }

    /// Whether all of cursor `b`'s granule comes before the current row of every other
    /// cursor (ClickHouse's `totallyLessOrEquals`; equal keys: the older source first).
    fn whole_granule_first(&self, b: usize) -> Result<bool> {
        let Some(o) = self.smallest(Some(b))? else {
            return Ok(true);
        };
        let (c, other) = (&self.cursors[b], &self.cursors[o]);
        let (Some(rows), Some(other_rows)) = (&c.rows, &other.rows) else {
            return Ok(b < o);
        };
        let last = rows.num_rows().saturating_sub(1);
        Ok(match rows.row(last).cmp(&other_rows.row(other.pos)) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => b < o,
            std::cmp::Ordering::Greater => false,
        })
    }

    fn next_chunk(&mut self) -> Result<Option<RecordBatch>> {
        let mut bytes = 0usize;
        while self.indices.len() < self.limits.rows && (self.limits.bytes == 0 || self.indices.is_empty() || bytes < self.limits.bytes) {
            let Some(b) = self.smallest(None)? else {
                if let Some(done) = self.carry.take() {
                    self.emit(done)?;
                }
                break;
            };
            if self.pass_chunks && self.cursors[b].pos == 0 && self.whole_granule_first(b)? {
                if !self.indices.is_empty() {
                    break;
                }
                let whole = self.cursors[b].batch.clone().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "merge cursor without batch"))?;
                self.advance(b)?;
                self.keep_cursor_batches();
                return Ok(Some(whole));
            }
            self.take_row(b)?;
            let c = &mut self.cursors[b];
            bytes += c.row_bytes.get(c.pos).copied().unwrap_or(0);
            c.pos += 1;
            if c.pos >= c.batch.as_ref().map(|x| x.num_rows()).unwrap_or(0) {
                self.advance(b)?;
            }
        }
        let indices = std::mem::take(&mut self.indices);
        if indices.is_empty() {
            return Ok(None);
        }
        let mut columns = Vec::with_capacity(self.schema.fields().len());
        for col in 0..self.schema.fields().len() {
            let arrays: Vec<&dyn Array> = self.pending.iter().map(|b| b.column(col).as_ref()).collect();
            columns.push(interleave(&arrays, &indices)?);
        }
        let out = self.apply_folded(RecordBatch::try_new(self.schema.clone(), columns)?)?;
        self.keep_cursor_batches();
        Ok(Some(out))
    }

    /// The next block: of the rollup of the merged rows (Graphite), else of the merge.
    fn next_rolled_up_or_chunk(&mut self) -> Result<Option<RecordBatch>> {
        if self.roller.is_none() {
            return self.next_chunk();
        }
        let rows = self.limits.rows;
        loop {
            let sorted = self.next_chunk()?;
            let roller = self.roller.as_mut().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "rollup without a roller"))?;
            let finished = match sorted {
                Some(chunk) => {
                    roller.push(chunk)?;
                    false
                }
                None => {
                    roller.finish()?;
                    true
                }
            };
            if let Some(out) = roller.take_chunk(rows, finished)? {
                return Ok(Some(out));
            }
            if finished {
                return Ok(None);
            }
        }
    }

    /// Keeps only the batches the cursors (and the carried row) still point into.
    fn keep_cursor_batches(&mut self) {
        let mut kept = Vec::new();
        if let Some(group) = &mut self.carry {
            for slot in group.slots_mut() {
                kept.push(self.pending[*slot].clone());
                *slot = kept.len() - 1;
            }
        }
        for c in &mut self.cursors {
            if let Some(batch) = &c.batch {
                c.slot = kept.len();
                kept.push(batch.clone());
            }
        }
        self.pending = kept;
    }
}

impl Iterator for Merger<'_> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            match self.next_rolled_up_or_chunk() {
                Ok(Some(b)) if b.num_rows() == 0 => continue, // every row summed to zero
                Ok(Some(b)) => return Some(Ok(b)),
                Ok(None) => return None,
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(signs: &[i8]) -> SignRun {
        let mut run = SignRun::default();
        for (row, sign) in signs.iter().enumerate() {
            run.add(*sign, (0, row)).expect("valid sign");
        }
        run
    }

    #[test]
    fn collapsing_keeps_corner_rows_by_sign_counts() {
        // Balanced, last a state: first cancel and last state.
        assert_eq!(run(&[-1, 1, -1, 1]).survivors(false), [Some((0, 0)), Some((0, 3))]);
        // Balanced, last a cancel: nothing.
        assert_eq!(run(&[1, -1]).survivors(false), [None, None]);
        // One more state / cancel: the last state / first cancel.
        assert_eq!(run(&[1, -1, 1]).survivors(false), [None, Some((0, 2))]);
        assert_eq!(run(&[-1, -1, 1]).survivors(false), [Some((0, 0)), None]);
        // Bad data (two more states): still the last state.
        assert_eq!(run(&[1, 1, 1, -1]).survivors(false), [None, Some((0, 2))]);
        // FINAL shows no cancel row.
        assert_eq!(run(&[-1, 1]).survivors(true), [None, Some((0, 1))]);
        assert_eq!(run(&[-1]).survivors(true), [None, None]);
        assert!(SignRun::default().add(0, (0, 0)).is_err());
    }

    /// One row per (ids, hits) pair, as the arrays `m.id`, `m.hits` (or with a second
    /// key column `m.idKey` when `second_key` is given).
    fn map_rows(rows: &[(Vec<u32>, Vec<i64>)], second_key: Option<&[Vec<u32>]>) -> RecordBatch {
        use arrow::array::ListArray;
        use arrow::datatypes::{Int64Type, UInt32Type};
        let ids = ListArray::from_iter_primitive::<UInt32Type, _, _>(rows.iter().map(|(ids, _)| Some(ids.iter().map(|i| Some(*i)).collect::<Vec<_>>())));
        let hits = ListArray::from_iter_primitive::<Int64Type, _, _>(rows.iter().map(|(_, hits)| Some(hits.iter().map(|h| Some(*h)).collect::<Vec<_>>())));
        let mut columns: Vec<(&str, ArrayRef)> = vec![("m.id", Arc::new(ids))];
        if let Some(keys) = second_key {
            columns.push(("m.idKey", Arc::new(ListArray::from_iter_primitive::<UInt32Type, _, _>(keys.iter().map(|k| Some(k.iter().map(|i| Some(*i)).collect::<Vec<_>>()))))));
        }
        columns.push(("m.hits", Arc::new(hits)));
        RecordBatch::try_from_iter(columns).expect("valid batch")
    }

    fn summed(batch: &RecordBatch, map: &NestedMap) -> Vec<String> {
        let mut sum = MapSum::default();
        for row in 0..batch.num_rows() {
            sum.add_row(map, batch, row).expect("same sizes");
        }
        let columns = map.keys.iter().chain(&map.values).enumerate();
        columns.map(|(position, col)| {
            let array = MapSum::column(&[&sum], position, batch.column(*col), &[false]).expect("column");
            arrow::util::display::array_value_to_string(&array, 0).expect("text")
        })
        .collect()
    }

    #[test]
    fn nested_maps_sum_by_key() {
        // One key column (sumMap): sorted, all-zero entries left out at the end only.
        let one_key = NestedMap { keys: vec![0], values: vec![1], key_types: vec![ChType::Int32], wide_values: vec![None] };
        let batch = map_rows(&[(vec![3, 1, 4], vec![1, 2, 0]), (vec![1, 3, 5], vec![-2, 5, 7]), (vec![5], vec![-7])], None);
        assert_eq!(summed(&batch, &one_key), ["[3]", "[6]"]);
        // A single row is summed too: its duplicate keys meet, its zeros go.
        assert_eq!(summed(&map_rows(&[(vec![2, 2, 1], vec![1, 1, 0])], None), &one_key), ["[2]", "[2]"]);
        // Several key columns: an entry goes when an addition makes it zero, and comes
        // back if a later row has it again; entries never added to stay, even at zero.
        let two_keys = NestedMap { keys: vec![0, 1], values: vec![2], key_types: vec![ChType::Int32; 2], wide_values: vec![None] };
        let batch = map_rows(&[(vec![1, 2], vec![1, 0]), (vec![1], vec![-1]), (vec![1], vec![4])], Some(&[vec![9, 9], vec![9], vec![9]]));
        assert_eq!(summed(&batch, &two_keys), ["[1, 2]", "[9, 9]", "[4, 0]"]);
        // A group of one row keeps its arrays as written.
        let batch = map_rows(&[(vec![2, 1, 1], vec![1, 0, 0])], Some(&[vec![0, 0, 0]]));
        assert_eq!(summed(&batch, &two_keys), ["[2, 1, 1]", "[0, 0, 0]", "[1, 0, 0]"]);
        // Arrays of one row must have equal sizes.
        let bad = map_rows(&[(vec![1, 2], vec![1])], None);
        assert_eq!(MapSum::default().add_row(&one_key, &bad, 0).map_err(|e| e.code()), Err(ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH));
    }

    #[test]
    fn nested_map_keys_order_as_clickhouse_and_values_wrap() {
        use arrow::datatypes::i256;
        use granary_types::wide::WideInt;
        let key = |v: ScalarValue, t: &ChType| MapKeyPart::of(&v, t).expect("key type");
        // UUIDs compare by their second half first.
        let uuid = |text: &str| {
            let hex: Vec<u8> = (0..16).map(|i| u8::from_str_radix(&text.replace('-', "")[2 * i..2 * i + 2], 16).expect("hex")).collect();
            key(ScalarValue::FixedSizeBinary(16, Some(hex)), &ChType::Uuid)
        };
        assert!(uuid("ff000000-0000-0000-0000-000000000000") < uuid("00000000-0000-0000-0000-000000000001"));
        assert!(uuid("00000000-0000-0001-0000-000000000000") < uuid("00000001-0000-0000-0000-000000000000"));
        // UInt256 values from 2^255 up are negative words but the largest keys.
        let top = ScalarValue::Decimal256(Some(i256::MINUS_ONE), 76, 0);
        assert!(key(top.clone(), &ChType::UInt256) > key(ScalarValue::Decimal256(Some(i256::ONE), 76, 0), &ChType::UInt256));
        assert!(key(top, &ChType::Int256) < key(ScalarValue::Decimal256(Some(i256::ONE), 76, 0), &ChType::Int256));
        assert!(key(ScalarValue::Decimal128(Some(-5), 38, 0), &ChType::Int128) < key(ScalarValue::Decimal128(Some(3), 38, 0), &ChType::Int128));
        // Floats: -0 is 0, NaNs are one key after +inf; NULL comes first.
        let float = |v: f64| key(ScalarValue::Float64(Some(v)), &ChType::Float64);
        assert_eq!(float(-0.0), float(0.0));
        assert_eq!(float(f64::NAN), float(-f64::NAN));
        assert!(float(f64::INFINITY) < float(f64::NAN) && float(f64::NEG_INFINITY) < float(-1.0));
        let nullable = ChType::Nullable(Box::new(ChType::Float64));
        assert!(key(ScalarValue::Float64(None), &nullable) < key(ScalarValue::Float64(Some(f64::NEG_INFINITY)), &nullable));
        // Min/max skip NaN while there is another value.
        assert!(replaces(&ScalarValue::Float64(Some(2.0)), &ScalarValue::Float64(Some(f64::NAN)), &ChType::Float64, std::cmp::Ordering::Greater));
        assert!(!replaces(&ScalarValue::Float64(Some(f64::NAN)), &ScalarValue::Float64(Some(2.0)), &ChType::Float64, std::cmp::Ordering::Less));
        // Sums stay in their type: Int128 and UInt128 wrap, Bool is or-ed.
        let sum = add_in_type(&ScalarValue::Decimal128(Some(i128::MAX), 38, 0), ScalarValue::Decimal128(Some(7), 38, 0), Some(WideInt::Int128));
        assert_eq!(sum.ok(), Some(ScalarValue::Decimal128(Some(i128::MIN + 6), 38, 0)));
        let u128_max = i256::from_parts(u128::MAX, 0);
        let sum = add_in_type(&ScalarValue::Decimal256(Some(u128_max), 39, 0), ScalarValue::Decimal256(Some(i256::from_i128(3)), 39, 0), Some(WideInt::UInt128));
        assert_eq!(sum.ok(), Some(ScalarValue::Decimal256(Some(i256::from_i128(2)), 39, 0)));
        assert_eq!(add_in_type(&ScalarValue::Boolean(Some(true)), ScalarValue::Boolean(Some(false)), None).ok(), Some(ScalarValue::Boolean(Some(true))));
        assert_eq!(add_in_type(&ScalarValue::Int8(Some(100)), ScalarValue::Int8(Some(100)), None).ok(), Some(ScalarValue::Int8(Some(-56))));
    }

    #[test]
    fn simple_aggregate_bits_and_arrays() {
        let (a, b) = (ScalarValue::Int8(Some(-128)), ScalarValue::Int8(Some(3)));
        assert_eq!(combine_bits(&Combine::BitOr, &a, &b).ok(), Some(ScalarValue::Int8(Some(-125))));
        assert_eq!(combine_bits(&Combine::BitAnd, &ScalarValue::Int8(Some(-1)), &b).ok(), Some(ScalarValue::Int8(Some(3))));
        assert_eq!(combine_bits(&Combine::BitXor, &ScalarValue::UInt8(Some(255)), &ScalarValue::UInt8(Some(15))).ok(), Some(ScalarValue::UInt8(Some(240))));
        let list = |values: &[u32]| ScalarValue::List(ScalarValue::new_list_nullable(&values.iter().map(|v| ScalarValue::UInt32(Some(*v))).collect::<Vec<_>>(), &arrow::datatypes::DataType::UInt32));
        let text = |v: Result<ScalarValue>| v.map(|v| v.to_string()).unwrap_or_default();
        assert_eq!(text(combine_arrays(&list(&[3, 1]), Some(&list(&[1, 2])), false)), list(&[3, 1, 1, 2]).to_string());
        assert_eq!(text(combine_arrays(&list(&[3, 1, 3]), Some(&list(&[1, 2])), true)), list(&[3, 1, 2]).to_string());
        assert_eq!(text(combine_arrays(&list(&[5, 5]), None, true)), list(&[5]).to_string());
        assert!(combine_arrays(&ScalarValue::UInt32(Some(1)), None, false).is_err());
    }

    #[test]
    fn simple_aggregate_maps_combine_per_key() {
        use arrow::array::{ListArray, StructArray};
        use arrow::datatypes::{Field, Int64Type, UInt32Type};
        let tuple = |keys: &[u32], values: &[i64]| {
            let keys = ListArray::from_iter_primitive::<UInt32Type, _, _>([Some(keys.iter().map(|k| Some(*k)).collect::<Vec<_>>())]);
            let values = ListArray::from_iter_primitive::<Int64Type, _, _>([Some(values.iter().map(|v| Some(*v)).collect::<Vec<_>>())]);
            let fields = vec![Arc::new(Field::new("1", keys.data_type().clone(), false)), Arc::new(Field::new("2", values.data_type().clone(), false))];
            ScalarValue::Struct(Arc::new(StructArray::from(vec![(fields[0].clone(), Arc::new(keys) as ArrayRef), (fields[1].clone(), Arc::new(values) as ArrayRef)])))
        };
        let text = |v: Result<ScalarValue>| v.map(|v| v.to_string()).unwrap_or_default();
        let (a, b) = (tuple(&[3, 1, 3], &[1, 2, 3]), tuple(&[1, 2], &[-2, 0]));
        // sumMap: sorted, duplicate keys summed, all-zero keys out (2 never summed, too).
        assert_eq!(text(combine_maps(&Combine::SumMap, &a, Some(&b))), tuple(&[3], &[4]).to_string());
        assert_eq!(text(combine_maps(&Combine::MinMap, &a, Some(&b))), tuple(&[1, 2, 3], &[-2, 0, 1]).to_string());
        assert_eq!(text(combine_maps(&Combine::MaxMap, &a, None)), tuple(&[1, 3], &[2, 3]).to_string());
        assert!(combine_maps(&Combine::SumMap, &ScalarValue::Int64(Some(1)), None).is_err());
    }

    #[test]
    fn is_deleted_flags_are_zero_or_one() {
        let flags = arrow::array::UInt8Array::from(vec![0, 1, 2]);
        assert!(!deleted_at(&flags, 0).expect("0 is valid"));
        assert!(deleted_at(&flags, 1).expect("1 is valid"));
        assert_eq!(deleted_at(&flags, 2).map_err(|e| e.code()), Err(ErrorCode::INCORRECT_DATA));
        let bools = arrow::array::BooleanArray::from(vec![false, true]);
        assert_eq!((deleted_at(&bools, 0).ok(), deleted_at(&bools, 1).ok()), (Some(false), Some(true)));
        assert!(deleted_at(&arrow::array::Int8Array::from(vec![1]), 0).is_err());
    }

    #[test]
    fn versioned_rows_cancel_the_previous_row_of_the_other_sign() {
        let mut run = VersionedRun::default();
        for (row, sign) in [1, 1, -1, 1, -1, -1, -1].into_iter().enumerate() {
            assert_eq!(run.add(sign, (0, row), usize::MAX), None);
        }
        // 1 1 -1 cancels row 1, 1 (row 3) -1 cancels it, -1 cancels row 0: row 6 is left.
        assert_eq!(run.rows.iter().copied().collect::<Vec<_>>(), vec![(0, 6)]);
        assert_eq!(run.sign, -1);
        // Past the cap the oldest row is let out.
        let mut capped = VersionedRun::default();
        let released: Vec<_> = (0..5).filter_map(|row| capped.add(1, (0, row), 3)).collect();
        assert_eq!(released, vec![(0, 0), (0, 1)]);
        assert_eq!(capped.rows.len(), 3);
    }
}
