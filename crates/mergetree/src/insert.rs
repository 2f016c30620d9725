//! INSERT: squash, split by partition, sort, write parts, publish them together.
//!
//! ```text
//! input streams (one per SELECT partition, at most max_insert_threads pipelines)
//!   each ─► squash to min_insert_block_size_rows / _bytes ─► split by partition id
//!        ─► sort each block by the sorting key ─► PartWriter into tmp_insert_<name>/ (fsynced)
//!   the streams' leftovers (< one block) ─► gathered into blocks of at least half a
//!        block (one block for a small INSERT), written the same way, in parallel
//!   ─► (every stream finished without error) rename every part into place, fsync the dir
//!   ─► one swap of the active-part snapshot: all parts of the INSERT appear at once
//! ```
//!
//! Pipelines keep their stream's order, so a sorted source (numbers(), a sorted file,
//! the partitions of a sorted table) arrives at the writer sorted and is not re-sorted.
//!
//! A failure anywhere before the swap removes the temporary directories: nothing of the
//! INSERT is visible, now or after a restart (`tmp_*` directories are removed at load).
//! A crash *during* the renames can leave a prefix of the INSERT's parts after restart,
//! as in ClickHouse, where each block of an INSERT is its own part.

use std::path::PathBuf;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use arrow::array::{make_comparator, ArrayRef, UInt32Array};
use arrow::compute::{sort_to_indices, SortOptions};
use arrow::row::{RowConverter, SortField};
use arrow::record_batch::RecordBatch;
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result};
use datafusion::execution::SendableRecordBatchStream;
use granary_storage::{InsertRequest, InsertResult, InsertSquash};

use crate::compression::ColumnCodec;
use crate::engine::{Inner, MergeMode};
use crate::merge::{collapse, Source};
use crate::part::Part;
use crate::part_info::PartInfo;
use crate::writer::{commit_part_dir, PartLayout, PartSync, PartWriter};

/// A part written to its temporary directory, not yet visible.
pub struct PendingPart {
    pub tmp_dir: PathBuf,
    pub final_dir: PathBuf,
    pub part: Part,
}

pub async fn insert(inner: &Arc<Inner>, request: InsertRequest) -> Result<InsertResult> {
    let started = std::time::Instant::now();
    throttle(inner).await?;
    let squash = InsertSquash::from_settings(&request.settings);
    let threads = request.settings.max_insert_threads();
    let collapse = request.settings.get_bool("optimize_on_insert");
    let dedup = Deduplication::of(inner, &request.settings);
    let inputs = request.input_count();
    let streams = request.into_streams(threads);
    tracing::debug!(inputs, pipelines = streams.len(), "INSERT pipelines");
    // A lone stream (a client's data, a sorted SELECT) gets every writer beside its
    // reader; parallel streams get one each. Memory holds (writers + 1) blocks per stream.
    let writers = (threads / streams.len()).max(1);
    let failed = Arc::new(AtomicBool::new(false));
    // An INSERT abandoned by its caller (timeout, KILL QUERY, closed connection) stops
    // its pipelines, which then remove what they wrote.
    let _stop_when_dropped = StopOnDrop(failed.clone());
    // Spawned tasks work for the caller's query (the profiler's runtime hooks): what
    // they log carries its id.
    let pipelines: Vec<_> = streams
        .into_iter()
        .map(|stream| {
            let (inner, failed) = (inner.clone(), failed.clone());
            tokio::spawn(run_pipeline(inner, stream, squash, writers, collapse, failed))
        })
        .collect();
    let mut outputs = Vec::with_capacity(pipelines.len());
    let mut error: Option<Error> = None;
    for pipeline in pipelines {
        match pipeline.await {
            Ok(Ok(output)) => outputs.push(output),
            Ok(Err(e)) => {
                failed.store(true, Ordering::Relaxed);
                // The first error is the cause; later ones are pipelines told to stop.
                error.get_or_insert(e);
            }
            Err(e) => {
                failed.store(true, Ordering::Relaxed);
                error.get_or_insert(Error::new(ErrorCode::LOGICAL_ERROR, format!("insert task failed: {e}")));
            }
        }
    }
    let mut tails: Vec<RecordBatch> = Vec::new();
    let (mut rows, mut bytes) = (0u64, 0u64);
    for output in &mut outputs {
        tails.extend(std::mem::take(&mut output.tail).into_iter().filter(|b| b.num_rows() > 0));
        rows += output.rows;
        bytes += output.bytes;
    }
    // Every input has been read. The streams' leftovers start writing now, beside the
    // blocks still being written, not after them: one stream's leftover is most of a
    // large INSERT from a few files or row groups.
    let leftovers: Vec<WriteTask> = match error {
        None => group_leftovers(tails, squash).into_iter().map(|block| spawn_write(inner, block, collapse)).collect(),
        Some(_) => Vec::new(),
    };
    // Parts keep their stream's order (block numbers follow it at publish).
    let mut pending: Vec<PendingPart> = Vec::new();
    for output in outputs {
        pending.extend(output.parts);
        let (parts, write_error) = join_writes(output.writing).await;
        pending.extend(parts);
        error = error.or(write_error);
    }
    let (parts, write_error) = join_writes(leftovers).await;
    pending.extend(parts);
    if let Some(e) = error.or(write_error) {
        discard(&pending);
        return Err(e);
    }
    // Renames and directory fsyncs are blocking I/O: off the async runtime.
    let publisher = inner.clone();
    tokio::task::spawn_blocking(granary_profiler::carry(move || publish(&publisher, pending, started, dedup.as_ref())))
        .await
        .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("insert task failed: {e}")))??;
    inner.merge_wakeup.notify_one();
    Ok(InsertResult { written_rows: rows, written_bytes: bytes })
}

/// Groups what the streams left below a block into blocks to write: rows are gathered
/// until they make half a block, and a last group smaller than that joins the one
/// before it. A small INSERT makes one part per partition however many streams it came
/// on, while two streams that each left most of a block (a large INSERT from two files
/// or row groups) are written as two parts at once, as ClickHouse writes each stream's
/// remainder, instead of one part sorted and written on one thread.
fn group_leftovers(batches: Vec<RecordBatch>, squash: InsertSquash) -> Vec<Vec<RecordBatch>> {
    let mut groups: Vec<Vec<RecordBatch>> = Vec::new();
    let mut current: Vec<RecordBatch> = Vec::new();
    let (mut rows, mut bytes) = (0usize, 0usize);
    for batch in batches {
        rows += batch.num_rows();
        bytes += batch.get_array_memory_size();
        current.push(batch);
        if squash.is_full(rows.saturating_mul(2), bytes.saturating_mul(2)) {
            groups.push(std::mem::take(&mut current));
            (rows, bytes) = (0, 0);
        }
    }
    if !current.is_empty() {
        match groups.last_mut() {
            Some(last) => last.extend(current),
            None => groups.push(current),
        }
    }
    groups
}

struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

type WriteTask = tokio::task::JoinHandle<Result<Vec<PendingPart>>>;

/// What one insert pipeline read: its blocks' writes (finished or still running), and
/// the rows it left for the final blocks.
struct PipelineOutput {
    parts: Vec<PendingPart>,
    writing: Vec<WriteTask>,
    tail: Vec<RecordBatch>,
    rows: u64,
    bytes: u64,
}

/// Squashes one input stream into blocks (see [`Squash`]) and starts writing each full
/// block as parts, with at most `writers` writes running beside the reading. Returns
/// when the input ends, leaving its last writes running. Stops early when another
/// pipeline of the INSERT has failed. On error, its own parts are removed.
async fn run_pipeline(
    inner: Arc<Inner>,
    mut input: SendableRecordBatchStream,
    squash: InsertSquash,
    writers: usize,
    collapse: bool,
    failed: Arc<AtomicBool>,
) -> Result<PipelineOutput> {
    let mut parts: Vec<PendingPart> = Vec::new();
    let mut writing: VecDeque<WriteTask> = VecDeque::new();
    let mut block: Vec<RecordBatch> = Vec::new();
    let (mut block_len, mut block_bytes, mut rows, mut bytes) = (0usize, 0usize, 0u64, 0u64);
    let result: Result<()> = async {
        while let Some(batch) = input.next().await {
            if failed.load(Ordering::Relaxed) {
                return Err(Error::new(ErrorCode::QUERY_WAS_CANCELLED, "another part of the INSERT failed"));
            }
            let batch = batch?;
            if batch.schema().fields() != inner.schema.fields() {
                return Err(Error::new(ErrorCode::LOGICAL_ERROR, "Inserted block structure does not match the table"));
            }
            let batch_bytes = batch.get_array_memory_size();
            rows += batch.num_rows() as u64;
            bytes += batch_bytes as u64;
            block_len += batch.num_rows();
            block_bytes += batch_bytes;
            block.push(batch);
            if squash.is_full(block_len, block_bytes) {
                while writing.len() >= writers {
                    parts.extend(join_write(writing.pop_front()).await?);
                }
                writing.push_back(spawn_write(&inner, std::mem::take(&mut block), collapse));
                block_len = 0;
                block_bytes = 0;
            }
        }
        Ok(())
    }
    .await;
    if let Err(e) = result {
        // Writes still running finish (their temporary parts are then removed): a
        // half-written directory must not be left for the next start to find.
        let (written, _) = join_writes(writing.into()).await;
        discard(&written);
        discard(&parts);
        return Err(e);
    }
    Ok(PipelineOutput { parts, writing: writing.into(), tail: block, rows, bytes })
}

/// Waits for every write; returns the parts written and the first error.
async fn join_writes(writes: Vec<WriteTask>) -> (Vec<PendingPart>, Option<Error>) {
    let mut parts = Vec::new();
    let mut error = None;
    for write in writes {
        match join_write(Some(write)).await {
            Ok(written) => parts.extend(written),
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    (parts, error)
}

fn spawn_write(inner: &Arc<Inner>, batches: Vec<RecordBatch>, collapse: bool) -> WriteTask {
    let inner = inner.clone();
    tokio::task::spawn_blocking(granary_profiler::carry(move || write_block(&inner, batches, collapse)))
}

async fn join_write(task: Option<WriteTask>) -> Result<Vec<PendingPart>> {
    match task {
        Some(task) => task.await.map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("insert task failed: {e}")))?,
        None => Ok(Vec::new()),
    }
}

/// Writes one squashed block as one part per partition (blocking); `collapse`
/// (optimize_on_insert) applies the engine's merge to the block first.
pub fn write_block(inner: &Inner, batches: Vec<RecordBatch>, collapse: bool) -> Result<Vec<PendingPart>> {
    if inner.mode == MergeMode::Ordinary || !collapse {
        return write_ordinary_block(inner, batches);
    }
    // Each partition's rows are copied once, in key order, straight from the batches.
    let keys = crate::keys::ordered_keys_over(&inner.keys.sorting, &batches)?;
    let positions = row_positions(&batches);
    let refs: Vec<&RecordBatch> = batches.iter().collect();
    write_each_split(inner.keys.split_batches_by_partition(&batches)?, |partition_id, indices| {
        let order = key_order(&keys, &positions, Some(indices))?;
        write_sorted_block(inner, partition_id, arrow::compute::interleave_record_batch(&refs, &order)?)
    })
}

/// A plain MergeTree's block: each partition's rows go to the writer in sorting-key
/// order as (batch, row) positions, and are copied only granule by granule.
fn write_ordinary_block(inner: &Inner, batches: Vec<RecordBatch>) -> Result<Vec<PendingPart>> {
    let types = crate::granules::ch_types(&inner.schema);
    let sync = PartSync::for_insert(&inner.settings);
    if inner.keys.partition.is_empty() {
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        let bytes: usize = batches.iter().map(|b| crate::granules::block_bytes(b, &types)).sum();
        let layout = PartLayout::for_size(&inner.settings, bytes as u64, rows as u64);
        let info = PartInfo::new("all".to_string(), 0, 0, 0);
        if is_sorted_run(inner, &batches)? {
            // A sorted source: the batches go to the writer as they are.
            return Ok(vec![write_part(inner, info, "tmp_insert_", sync, layout, std::iter::once(Ok(batches)))?]);
        }
        let order = sorted_rows(inner, &batches)?;
        return Ok(vec![write_part_with(inner, info, "tmp_insert_", sync, layout, |writer| writer.write_permuted_block(&batches, &order, bytes))?]);
    }
    // The block is not copied into one batch: rows are (batch, row) positions, and
    // only the key columns are evaluated into one array each.
    let positions = row_positions(&batches);
    let keys = crate::keys::ordered_keys_over(&inner.keys.sorting, &batches)?;
    let splits = inner.keys.split_batches_by_partition(&batches)?;
    // Each row's share of the block's bytes, summed per partition when there are several.
    let mut row_bytes: Option<Vec<usize>> = None;
    write_each_split(splits, |partition_id, indices| {
        let rows = indices.values();
        let bytes = if rows.len() == positions.len() {
            batches.iter().map(|b| crate::granules::block_bytes(b, &types)).sum()
        } else {
            let per_row = row_bytes.get_or_insert_with(|| {
                let mut out = vec![0; positions.len()];
                let mut start = 0;
                for batch in &batches {
                    crate::granules::add_row_bytes(batch, &types, &mut out[start..start + batch.num_rows()]);
                    start += batch.num_rows();
                }
                out
            });
            rows.iter().map(|&i| per_row[i as usize]).sum()
        };
        let order = key_order(&keys, &positions, Some(indices))?;
        let layout = PartLayout::for_size(&inner.settings, bytes as u64, order.len() as u64);
        let info = PartInfo::new(partition_id, 0, 0, 0);
        let part = write_part_with(inner, info, "tmp_insert_", sync, layout, |writer| writer.write_permuted_block(&batches, &order, bytes))?;
        Ok(vec![part])
    })
}

/// Runs `write` for each partition's rows (`splits`); if one fails, the parts already
/// written are discarded.
fn write_each_split(splits: Vec<(String, UInt32Array)>, mut write: impl FnMut(String, &UInt32Array) -> Result<Vec<PendingPart>>) -> Result<Vec<PendingPart>> {
    let mut out: Vec<PendingPart> = Vec::new();
    let result = (|| {
        for (partition_id, indices) in splits {
            out.extend(write(partition_id, &indices)?);
        }
        Ok(())
    })();
    if let Err(e) = result {
        discard(&out);
        return Err(e);
    }
    Ok(out)
}

/// Writes the sorted rows of one partition as a part.
fn write_sorted_block(inner: &Inner, partition_id: String, sorted: RecordBatch) -> Result<Vec<PendingPart>> {
    // The block number is assigned at publish (see `publish`); until then the part is
    // named only by its temporary directory.
    let info = PartInfo::new(partition_id, 0, 0, 0);
    if inner.mode == MergeMode::Ordinary {
        let layout = insert_layout(inner, std::slice::from_ref(&sorted));
        return Ok(vec![write_part(inner, info, "tmp_insert_", PartSync::for_insert(&inner.settings), layout, std::iter::once(Ok(vec![sorted])))?]);
    }
    // Replacing/Summing collapse equal keys of the block before writing it; what is left
    // is still one block, counted as merged once (ClickHouse's level 1), so that
    // optimize_skip_merged_partitions leaves it alone.
    let info = PartInfo::new(info.partition_id, 0, 0, 1);
    let chunk = inner.settings.index_granularity as usize;
    let source = Source::Block { batch: sorted, offset: 0, chunk };
    let collapsed = collapse(inner, vec![source])?;
    if collapsed.iter().all(|b| b.num_rows() == 0) {
        return Ok(Vec::new());
    }
    let layout = insert_layout(inner, &collapsed);
    Ok(vec![write_part(inner, info, "tmp_insert_", PartSync::for_insert(&inner.settings), layout, std::iter::once(Ok(collapsed)))?])
}

/// The format of an INSERT's part: ClickHouse decides it by the block's in-memory size.
fn insert_layout(inner: &Inner, batches: &[RecordBatch]) -> PartLayout {
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let types = crate::granules::ch_types(&inner.schema);
    let bytes: usize = batches.iter().map(|b| crate::granules::block_bytes(b, &types)).sum();
    PartLayout::for_size(&inner.settings, bytes as u64, rows as u64)
}

/// Writes sorted blocks as part `info` into a temporary directory; each item is one
/// ClickHouse block (see `writer.rs`), possibly made of several batches.
pub fn write_part(
    inner: &Inner,
    info: PartInfo,
    tmp_prefix: &str,
    sync: PartSync,
    layout: PartLayout,
    blocks: impl Iterator<Item = Result<Vec<RecordBatch>>>,
) -> Result<PendingPart> {
    write_part_with(inner, info, tmp_prefix, sync, layout, |writer| {
        for block in blocks {
            writer.write_block(&block?)?;
        }
        Ok(())
    })
}

/// Writes part `info` into a temporary directory with `write`, which hands the writer
/// its sorted rows; the directory is removed if anything fails.
pub fn write_part_with(
    inner: &Inner,
    info: PartInfo,
    tmp_prefix: &str,
    sync: PartSync,
    layout: PartLayout,
    write: impl FnOnce(&mut PartWriter) -> Result<()>,
) -> Result<PendingPart> {
    write_part_with_codecs(inner, info, tmp_prefix, sync, layout, &inner.codecs, write)
}

/// [`write_part_with`], the columns compressed with `codecs` (a TTL RECOMPRESS merge).
pub fn write_part_with_codecs(
    inner: &Inner,
    info: PartInfo,
    tmp_prefix: &str,
    sync: PartSync,
    layout: PartLayout,
    codecs: &[ColumnCodec],
    write: impl FnOnce(&mut PartWriter) -> Result<()>,
) -> Result<PendingPart> {
    let tmp_seq = inner.next_tmp.fetch_add(1, Ordering::Relaxed);
    let tmp_dir = inner.dir.join(format!("{tmp_prefix}{}_{tmp_seq}", info.name()));
    let final_dir = inner.dir.join(info.name());
    let result = (|| {
        let mut writer = PartWriter::new(&tmp_dir, info.clone(), inner.schema.clone(), codecs, &inner.keys, &inner.settings, layout)?.with_ttl(inner.ttl.as_ref()).with_skip_indexes(&inner.skip_indexes);
        write(&mut writer)?;
        writer.finish(&final_dir, sync)
    })();
    match result {
        Ok(part) => Ok(PendingPart { tmp_dir, final_dir, part }),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp_dir);
            Err(e)
        }
    }
}

/// Whether the batches, one after the other, are in sorting-key order (each batch in
/// order, and each batch's first row not below the previous batch's last row).
fn is_sorted_run(inner: &Inner, batches: &[RecordBatch]) -> Result<bool> {
    if inner.keys.sorting.is_empty() {
        return Ok(true);
    }
    let options = SortOptions { descending: false, nulls_first: true };
    let mut previous_last: Option<Vec<ArrayRef>> = None;
    for batch in batches.iter().filter(|b| b.num_rows() > 0) {
        let keys = inner.keys.sorting.iter().map(|k| k.evaluate_ordered(batch)).collect::<Result<Vec<_>>>()?;
        let compare_rows = |left: &[ArrayRef], i: usize, right: &[ArrayRef], j: usize| -> Result<std::cmp::Ordering> {
            for (l, r) in left.iter().zip(right) {
                match make_comparator(l.as_ref(), r.as_ref(), options)?(i, j) {
                    std::cmp::Ordering::Equal => continue,
                    other => return Ok(other),
                }
            }
            Ok(std::cmp::Ordering::Equal)
        };
        if let Some(last) = &previous_last {
            if compare_rows(last, 0, &keys, 0)? == std::cmp::Ordering::Greater {
                return Ok(false);
            }
        }
        let comparators = keys.iter().map(|k| make_comparator(k.as_ref(), k.as_ref(), options)).collect::<std::result::Result<Vec<_>, _>>()?;
        let in_order = typed_in_order(&keys).unwrap_or_else(|| (1..batch.num_rows()).all(|i| {
            for c in &comparators {
                match c(i - 1, i) {
                    std::cmp::Ordering::Equal => continue,
                    other => return other != std::cmp::Ordering::Greater,
                }
            }
            true
        }));
        if !in_order {
            return Ok(false);
        }
        let last = batch.num_rows() - 1;
        previous_last = Some(keys.iter().map(|k| k.slice(last, 1)).collect());
    }
    Ok(true)
}

/// The (batch, row) positions of `batches`' rows in sorting-key order (stable): only
/// the key columns are put together to sort.
fn sorted_rows(inner: &Inner, batches: &[RecordBatch]) -> Result<Vec<(usize, usize)>> {
    let keys = crate::keys::ordered_keys_over(&inner.keys.sorting, batches)?;
    key_order(&keys, &row_positions(batches), None)
}

/// The (batch, row) position of each row of `batches`, counting across them.
fn row_positions(batches: &[RecordBatch]) -> Vec<(usize, usize)> {
    let mut positions = Vec::with_capacity(batches.iter().map(RecordBatch::num_rows).sum());
    for (b, batch) in batches.iter().enumerate() {
        positions.extend((0..batch.num_rows()).map(|row| (b, row)));
    }
    positions
}

/// The positions of rows `subset` (all rows when None) in the order of the sorting
/// `keys` evaluated over all rows (stable).
fn key_order(keys: &[ArrayRef], positions: &[(usize, usize)], subset: Option<&UInt32Array>) -> Result<Vec<(usize, usize)>> {
    let Some(subset) = subset.filter(|s| s.len() != positions.len()) else {
        return Ok(match sort_order(keys)? {
            Some(order) => order.iter().map(|&i| positions[i as usize]).collect(),
            None => positions.to_vec(),
        });
    };
    let rows = subset.values();
    let subset_keys = keys.iter().map(|k| Ok(arrow::compute::take(k.as_ref(), subset, None)?)).collect::<Result<Vec<_>>>()?;
    Ok(match sort_order(&subset_keys)? {
        Some(order) => order.iter().map(|&i| positions[rows[i as usize] as usize]).collect(),
        None => rows.iter().map(|&i| positions[i as usize]).collect(),
    })
}

/// Bits that hold every row number of `rows` rows.
fn row_bits(rows: usize) -> u32 {
    usize::BITS - rows.saturating_sub(1).leading_zeros()
}

/// `$generic::<T>(key)` for the Arrow type `T` of an integer, date or time key column;
/// None for any other type.
macro_rules! with_integer_key {
    ($key:expr, $generic:ident) => {{
        use arrow::datatypes::*;
        match $key.data_type() {
            DataType::Int8 => $generic::<Int8Type>($key.as_ref()),
            DataType::Int16 => $generic::<Int16Type>($key.as_ref()),
            DataType::Int32 => $generic::<Int32Type>($key.as_ref()),
            DataType::Int64 => $generic::<Int64Type>($key.as_ref()),
            DataType::UInt8 => $generic::<UInt8Type>($key.as_ref()),
            DataType::UInt16 => $generic::<UInt16Type>($key.as_ref()),
            DataType::UInt32 => $generic::<UInt32Type>($key.as_ref()),
            DataType::UInt64 => $generic::<UInt64Type>($key.as_ref()),
            DataType::Date32 => $generic::<Date32Type>($key.as_ref()),
            DataType::Date64 => $generic::<Date64Type>($key.as_ref()),
            DataType::Timestamp(TimeUnit::Second, _) => $generic::<TimestampSecondType>($key.as_ref()),
            DataType::Timestamp(TimeUnit::Millisecond, _) => $generic::<TimestampMillisecondType>($key.as_ref()),
            DataType::Timestamp(TimeUnit::Microsecond, _) => $generic::<TimestampMicrosecondType>($key.as_ref()),
            DataType::Timestamp(TimeUnit::Nanosecond, _) => $generic::<TimestampNanosecondType>($key.as_ref()),
            _ => None,
        }
    }};
}

/// Keys made only of integer, date and time columns without NULLs, as one `u128` per
/// row that orders as the keys do: each column's value minus the column's minimum, in
/// as many bits as the column's range needs, then the row number. None when the key has
/// another type or the ranges need more than 128 bits. ClickHouse sorts such keys by
/// radix; here one sort of plain integers replaces comparing Arrow rows byte by byte.
fn packed_integer_keys(keys: &[ArrayRef]) -> Option<Vec<u128>> {
    use arrow::datatypes::*;
    fn ranks<T: ArrowPrimitiveType>(array: &dyn arrow::array::Array) -> Option<(Vec<u128>, u32)>
    where
        T::Native: Into<i128>,
    {
        let array = array.as_any().downcast_ref::<arrow::array::PrimitiveArray<T>>()?;
        let values = array.values();
        let min: i128 = values.iter().map(|&v| v.into()).min()?;
        let max: i128 = values.iter().map(|&v| v.into()).max()?;
        let bits = u128::BITS - ((max - min) as u128).leading_zeros();
        Some((values.iter().map(|&v| (v.into() - min) as u128).collect(), bits))
    }
    let n = keys.first()?.len();
    let mut packed: Vec<u128> = vec![0; n];
    let mut used = row_bits(n);
    for key in keys {
        if key.null_count() > 0 {
            return None;
        }
        let (ranks, bits) = with_integer_key!(key, ranks)?;
        used += bits;
        if used > u128::BITS {
            return None;
        }
        for (slot, rank) in packed.iter_mut().zip(ranks) {
            // A column of one value has 0 bits: shifting by 0 keeps the slot.
            *slot = (*slot << bits) | rank;
        }
    }
    let shift = row_bits(n);
    for (row, slot) in packed.iter_mut().enumerate() {
        *slot = (*slot << shift) | row as u128;
    }
    Some(packed)
}

/// Packed keys whose key part is at most this wide are radix sorted: at most eight
/// passes over the rows, against a comparison sort's log2(rows) (20 for a 1M-row block).
const MAX_RADIX_KEY_BITS: u32 = 64;

/// Sorts packed keys (the row number in the low `row_bits`, the key above it, all of it
/// below bit `key_bits`) by their key part, least significant byte first. Each pass is
/// stable and the rows start in order, so equal keys keep their rows' order: the same
/// order as sorting the whole packed keys, in linear time.
fn radix_sort_packed(packed: &mut Vec<u128>, row_bits: u32, key_bits: u32) {
    let mut sorted = vec![0u128; packed.len()];
    let mut shift = row_bits;
    while shift < key_bits {
        let digit = |k: u128| ((k >> shift) & 0xff) as usize;
        let mut counts = [0usize; 256];
        for &k in packed.iter() {
            counts[digit(k)] += 1;
        }
        // One value of this byte in every row: the pass would move nothing.
        if !counts.contains(&packed.len()) {
            let mut next = [0usize; 256];
            let mut start = 0;
            for (slot, count) in next.iter_mut().zip(counts) {
                *slot = start;
                start += count;
            }
            for &k in packed.iter() {
                let d = digit(k);
                sorted[next[d]] = k;
                next[d] += 1;
            }
            std::mem::swap(packed, &mut sorted);
        }
        shift += 8;
    }
}

/// Whether a single integer, date or time key without NULLs is in ascending order,
/// checked on its values directly; None for any other key, which takes the comparator
/// path. A sorted source (numbers(), data in key order) passes this check on every row of
/// every block, and a comparator called through a pointer per row cost more than the
/// whole rest of the check.
fn typed_in_order(keys: &[ArrayRef]) -> Option<bool> {
    use arrow::datatypes::*;
    fn ascending<T: ArrowPrimitiveType>(array: &dyn arrow::array::Array) -> Option<bool>
    where
        T::Native: Ord,
    {
        let values = array.as_any().downcast_ref::<arrow::array::PrimitiveArray<T>>()?.values();
        // Chunked so the loop has no early exit per element and vectorizes; an unsorted
        // block still stops at the first chunk out of order.
        let ordered = |w: &[T::Native]| w.windows(2).fold(true, |ok, p| ok & (p[0] <= p[1]));
        let mut previous: Option<T::Native> = None;
        for chunk in values.chunks(4096) {
            let first = *chunk.first()?;
            if previous.is_some_and(|p| p > first) || !ordered(chunk) {
                return Some(false);
            }
            previous = chunk.last().copied();
        }
        Some(true)
    }
    let [key] = keys else { return None };
    if key.null_count() > 0 {
        return None;
    }
    with_integer_key!(key, ascending)
}

/// The permutation that sorts rows by `keys` (ascending, NULLs first) stably: equal keys
/// keep insertion order, which ReplacingMergeTree's "last row wins" relies on. None when
/// the rows are in order already (one linear check, much cheaper than a sort that would
/// change nothing: data often arrives in key order).
fn sort_order(keys: &[ArrayRef]) -> Result<Option<Vec<u32>>> {
    let n = keys.first().map_or(0, |k| k.len());
    if keys.is_empty() || n < 2 {
        return Ok(None);
    }
    if let [key] = keys {
        if key.data_type().is_primitive() {
            let options = SortOptions { descending: false, nulls_first: true };
            let compare = make_comparator(key.as_ref(), key.as_ref(), options)?;
            let in_order = match typed_in_order(keys) {
                Some(in_order) => in_order,
                None => (1..n).all(|i| compare(i - 1, i) != std::cmp::Ordering::Greater),
            };
            if in_order {
                return Ok(None);
            }
            // Arrow's primitive sort is far faster than a comparator sort, but unstable:
            // runs of equal keys are put back in insertion order after.
            let mut order = sort_to_indices(key, Some(options), None)?.values().to_vec();
            let mut start = 0;
            for i in 1..=n {
                if i == n || compare(order[i - 1] as usize, order[i] as usize) != std::cmp::Ordering::Equal {
                    if i - start > 1 {
                        order[start..i].sort_unstable();
                    }
                    start = i;
                }
            }
            return Ok(Some(order));
        }
    }
    if let Some(mut packed) = packed_integer_keys(keys) {
        // Each packed key ends with its row number: all distinct, and ascending exactly
        // when the rows are in key order; an unstable sort of them is a stable sort.
        if packed.windows(2).all(|w| w[0] < w[1]) {
            return Ok(None);
        }
        let key_bits = u128::BITS - packed.iter().fold(0, |all, k| all | *k).leading_zeros();
        let row_bits = row_bits(n);
        if key_bits.saturating_sub(row_bits) <= MAX_RADIX_KEY_BITS {
            radix_sort_packed(&mut packed, row_bits, key_bits);
        } else {
            packed.sort_unstable();
        }
        let row_mask = (1u128 << row_bits) - 1;
        return Ok(Some(packed.iter().map(|&k| (k & row_mask) as u32).collect()));
    }
    // Composite and string keys: Arrow's row format compares as bytes, and a stable
    // sort of row numbers by it keeps equal keys in order.
    let converter = RowConverter::new(keys.iter().map(|k| SortField::new(k.data_type().clone())).collect())?;
    let rows = converter.convert_columns(keys)?;
    if (1..n).all(|i| rows.row(i - 1) <= rows.row(i)) {
        return Ok(None);
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&a, &b| rows.row(a as usize).cmp(&rows.row(b as usize)));
    Ok(Some(order))
}

pub fn discard(parts: &[PendingPart]) {
    for p in parts {
        if let Err(e) = std::fs::remove_dir_all(&p.tmp_dir) {
            tracing::warn!("cannot remove {}: {e}", p.tmp_dir.display());
        }
    }
}

/// Numbers the parts, renames them into place and makes them visible in one snapshot swap.
///
/// Block numbers are taken here, under the commit lock, not when the part is written: a
/// merge running meanwhile may only cover published parts, so every part published
/// later must get a block number above all of them. Numbered earlier, a slow INSERT's
/// part could land inside the block range of a merged part that does not contain its
/// rows, and the next start would drop it as "covered" (acknowledged rows lost).
fn publish(inner: &Inner, mut pending: Vec<PendingPart>, started: std::time::Instant, dedup: Option<&Deduplication>) -> Result<()> {
    if pending.is_empty() {
        return Ok(());
    }
    let _guard = inner.commit_lock.lock();
    if inner.shutdown.load(Ordering::SeqCst) {
        discard(&pending);
        return Err(Error::new(ErrorCode::ABORTED, format!("Table {} was altered or dropped while the INSERT ran", inner.table_name)));
    }
    let block_ids = match dedup {
        Some(dedup) => {
            let ids = dedup.block_ids(&pending)?;
            let known = inner.dedup_log.lock();
            let mut kept = Vec::with_capacity(pending.len());
            let mut kept_ids = Vec::with_capacity(pending.len());
            for (part, id) in pending.into_iter().zip(ids) {
                match known.iter().find(|(known_id, _)| *known_id == id) {
                    Some((_, existing)) => {
                        tracing::info!(logger = %inner.table_name, "Block with ID {id} already exists as part {existing}; ignoring it");
                        discard(std::slice::from_ref(&part));
                    }
                    None => {
                        kept.push(part);
                        kept_ids.push(id);
                    }
                }
            }
            pending = kept;
            kept_ids
        }
        None => Vec::new(),
    };
    for p in pending.iter_mut() {
        let block = inner.next_block.fetch_add(1, Ordering::SeqCst);
        // The level stays: a block collapsed on insert is a level-1 part, as in ClickHouse.
        let info = PartInfo::new(p.part.info.partition_id.clone(), block, block, p.part.info.level);
        p.final_dir = inner.dir.join(info.name());
        p.part.dir = p.final_dir.clone();
        p.part.info = info;
    }
    for (i, p) in pending.iter().enumerate() {
        if let Err(e) = commit_part_dir(&p.tmp_dir, &p.final_dir, PartSync::for_insert(&inner.settings)) {
            for done in &pending[..i] {
                let _ = std::fs::remove_dir_all(&done.final_dir);
            }
            discard(&pending[i..]);
            return Err(e);
        }
    }
    let parts: Vec<Arc<Part>> = pending.into_iter().map(|p| Arc::new(p.part)).collect();
    if let Some(dedup) = dedup {
        // The parts are in: a log that cannot be written costs a later retry its
        // deduplication, not this INSERT its success.
        if let Err(e) = remember_blocks(inner, block_ids.into_iter().zip(parts.iter().map(|p| p.name())), dedup.window) {
            tracing::error!("cannot write the deduplication log of {}: {e}", inner.table_name);
        }
    }
    for part in &parts {
        tracing::debug!(logger = %inner.table_name, "Committed part {} ({} rows) in {:?}", part.name(), part.rows, started.elapsed());
        inner.log_part("NewPart", part, &[], started.elapsed());
    }
    inner.add_parts(parts, &[]);
    Ok(())
}

const DEDUP_LOG_FILE: &str = "deduplication_log.txt";

/// Insert deduplication (the table's `non_replicated_deduplication_window` > 0): each
/// new part gets a block id, its partition and a hash of its data (of
/// `insert_deduplication_token` and the block's position when one is given); a block
/// whose id is among the table's last `window` ones is dropped, so a retried INSERT is
/// not doubled. As in ClickHouse, `insert_deduplicate` governs Replicated tables only:
/// a plain MergeTree deduplicates whenever its window says so (checked with chdb).
pub(crate) struct Deduplication {
    token: Option<String>,
    window: usize,
}

impl Deduplication {
    fn of(inner: &Inner, settings: &granary_common::Settings) -> Option<Deduplication> {
        let window = inner.settings.non_replicated_deduplication_window as usize;
        if window == 0 {
            return None;
        }
        let token = Some(settings.get_str("insert_deduplication_token").to_string()).filter(|t| !t.is_empty());
        Some(Deduplication { token, window })
    }

    fn block_ids(&self, pending: &[PendingPart]) -> Result<Vec<String>> {
        pending
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let hash = match &self.token {
                    Some(token) => xxhash_rust::xxh3::xxh3_64(format!("{token}_{i}").as_bytes()),
                    // The checksums of every file of the part: same rows, same bytes.
                    None => xxhash_rust::xxh3::xxh3_64(&std::fs::read(p.tmp_dir.join(crate::part::CHECKSUMS_FILE))?),
                };
                Ok(format!("{}_{hash:016x}", p.part.info.partition_id))
            })
            .collect()
    }
}

/// The table's remembered block ids (a missing or unreadable file remembers none).
pub(crate) fn load_dedup_log(dir: &std::path::Path) -> std::collections::VecDeque<(String, String)> {
    let text = std::fs::read_to_string(dir.join(DEDUP_LOG_FILE)).unwrap_or_default();
    text.lines().filter_map(|line| line.split_once('\t')).map(|(id, part)| (id.to_string(), part.to_string())).collect()
}

/// Adds the blocks just committed to the log, keeps the last `window`, and writes it.
fn remember_blocks(inner: &Inner, blocks: impl Iterator<Item = (String, String)>, window: usize) -> Result<()> {
    let mut log = inner.dedup_log.lock();
    log.extend(blocks);
    while log.len() > window {
        log.pop_front();
    }
    let text: String = log.iter().map(|(id, part)| format!("{id}\t{part}\n")).collect();
    granary_common::fs::write_atomic(&inner.dir.join(DEDUP_LOG_FILE), text.as_bytes())
}

/// Too many parts: slow down from `parts_to_delay_insert`, fail from
/// `parts_to_throw_insert`, counting the active parts of the fullest partition.
async fn throttle(inner: &Inner) -> Result<()> {
    let s = &inner.settings;
    let (partition, count) = inner.fullest_partition();
    if s.parts_to_throw_insert > 0 && count >= s.parts_to_throw_insert {
        return Err(Error::new(
            ErrorCode::TOO_MANY_PARTS,
            format!(
                "Too many parts ({count} with parts_to_throw_insert = {}) in partition {partition} of table {}. Merges are processing significantly slower than inserts: insert less often in bigger blocks (or use async_insert), use a coarser PARTITION BY, or raise parts_to_throw_insert",
                s.parts_to_throw_insert, inner.table_name
            ),
        ));
    }
    if s.parts_to_delay_insert > 0 && count >= s.parts_to_delay_insert {
        // Linear from 0 at parts_to_delay_insert to 1 s at parts_to_throw_insert, so
        // parallel inserts slow down instead of failing while merges catch up.
        let span = s.parts_to_throw_insert.saturating_sub(s.parts_to_delay_insert).max(1);
        let ms = (1000 * (count - s.parts_to_delay_insert + 1) / span).min(1000);
        inner.merge_wakeup.notify_one();
        tracing::info!("delaying insert into {} by {ms} ms: {count} parts in partition {partition}", inner.table_name);
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::UInt64Array;
    use arrow::datatypes::{DataType, Field, Schema};

    fn batch(rows: u64) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::UInt64, false)]));
        RecordBatch::try_new(schema, vec![Arc::new(UInt64Array::from_iter_values(0..rows))]).unwrap()
    }

    fn group_rows(batches: &[u64], squash: InsertSquash) -> Vec<usize> {
        let groups = group_leftovers(batches.iter().map(|r| batch(*r)).collect(), squash);
        groups.iter().map(|g| g.iter().map(RecordBatch::num_rows).sum()).collect()
    }

    #[test]
    fn leftovers_of_most_of_a_block_are_written_apart() {
        let squash = InsertSquash { rows: 1000, bytes: 0 };
        // Two streams that each left most of a block: two parts, written at once.
        assert_eq!(group_rows(&[900, 800], squash), vec![900, 800]);
        // Small leftovers of many streams: one part.
        assert_eq!(group_rows(&[10, 20, 30, 40], squash), vec![100]);
        // Gathered until half a block; a last group below half a block joins the one before it.
        assert_eq!(group_rows(&[300, 300, 300, 300], squash), vec![600, 600]);
        assert_eq!(group_rows(&[300, 300, 300, 100], squash), vec![1000]);
        assert_eq!(group_rows(&[], squash), Vec::<usize>::new());
    }

    /// The typed check answers as the comparator does, at chunk edges too, and leaves
    /// keys it does not handle to the comparator.
    #[test]
    fn typed_order_check_agrees_with_the_comparator() {
        use arrow::array::{Int32Array, StringArray};
        let comparator_says = |key: &ArrayRef| {
            let options = SortOptions { descending: false, nulls_first: true };
            let compare = make_comparator(key.as_ref(), key.as_ref(), options).unwrap();
            (1..key.len()).all(|i| compare(i - 1, i) != std::cmp::Ordering::Greater)
        };
        let n = 10_000i32;
        let mut cases: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from_iter_values(0..n)),
            Arc::new(Int32Array::from_iter_values((0..n).map(|i| i / 3 - 100))),
            Arc::new(Int32Array::from_iter_values(std::iter::empty())),
            Arc::new(UInt64Array::from_iter_values([u64::MAX])),
        ];
        // One step down at each position around the 4096-value chunk edges.
        for at in [1, 4095, 4096, 4097, 8191, 8192, 9999] {
            cases.push(Arc::new(Int32Array::from_iter_values((0..n).map(move |i| if i == at { i - 2 } else { i }))));
        }
        for key in &cases {
            assert_eq!(typed_in_order(std::slice::from_ref(key)), Some(comparator_says(key)), "{key:?}");
        }
        let with_null: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None]));
        let text: ArrayRef = Arc::new(StringArray::from(vec!["a", "b"]));
        assert_eq!(typed_in_order(&[with_null]), None);
        assert_eq!(typed_in_order(&[text]), None);
        assert_eq!(typed_in_order(&[cases[0].clone(), cases[1].clone()]), None);
    }

    /// The order Arrow's row format gives with a stable sort: what every path must give.
    fn row_format_order(keys: &[ArrayRef]) -> Vec<u32> {
        let converter = RowConverter::new(keys.iter().map(|k| SortField::new(k.data_type().clone())).collect()).unwrap();
        let rows = converter.convert_columns(keys).unwrap();
        let mut order: Vec<u32> = (0..keys[0].len() as u32).collect();
        order.sort_by(|&a, &b| rows.row(a as usize).cmp(&rows.row(b as usize)));
        order
    }

    #[test]
    fn packed_integer_keys_sort_stably_as_the_row_format_does() {
        use arrow::array::{Date32Array, Int64Array, Int8Array, TimestampSecondArray, UInt8Array};
        let n = 5000u64;
        // A small pseudo-random generator: deterministic, with many equal keys.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        let keys: Vec<ArrayRef> = vec![
            Arc::new(UInt8Array::from_iter_values((0..n).map(|_| next(4) as u8))),
            Arc::new(Date32Array::from_iter_values((0..n).map(|_| 19_000 + next(30) as i32))),
            Arc::new(TimestampSecondArray::from_iter_values((0..n).map(|_| 1_700_000_000 + next(50) as i64))),
            Arc::new(Int8Array::from_iter_values((0..n).map(|_| next(256) as i64 as i8))),
            Arc::new(Int64Array::from_iter_values((0..n).map(|_| next(3) as i64 - 1))),
            Arc::new(UInt64Array::from_iter_values((0..n).map(|_| u64::MAX - next(5)))),
        ];
        for columns in [&keys[..1], &keys[..3], &keys[1..4], &keys[3..], &keys[..]] {
            assert!(packed_integer_keys(columns).is_some());
            assert_eq!(sort_order(columns).unwrap(), Some(row_format_order(columns)));
        }
        // Key parts wider than the radix sort takes (80 bits): the comparison sort, same order.
        let spread: Vec<ArrayRef> = vec![
            Arc::new(UInt64Array::from_iter_values((0..n).map(|i| if i % 3 == 0 { 1 << 40 } else { next(5) }))),
            Arc::new(Int64Array::from_iter_values((0..n).map(|i| if i % 5 == 0 { -(1 << 39) } else { next(1 << 39) as i64 }))),
        ];
        assert!(packed_integer_keys(&spread).is_some());
        assert_eq!(sort_order(&spread).unwrap(), Some(row_format_order(&spread)));
        // Already in order: no permutation.
        let sorted: Vec<ArrayRef> = vec![Arc::new(UInt64Array::from_iter_values(0..n)), Arc::new(Int64Array::from_iter_values((0..n as i64).map(|i| -i)))];
        assert_eq!(sort_order(&sorted).unwrap(), None);
        // Wider than 128 bits, or a NULL: the row format's path, same order.
        let wide: Vec<ArrayRef> = vec![
            Arc::new(UInt64Array::from_iter_values((0..n).map(|i| if i % 2 == 0 { 0 } else { u64::MAX - i }))),
            Arc::new(Int64Array::from_iter_values((0..n).map(|i| if i % 3 == 0 { i64::MIN } else { i64::MAX - i as i64 }))),
        ];
        assert!(packed_integer_keys(&wide).is_none());
        assert_eq!(sort_order(&wide).unwrap(), Some(row_format_order(&wide)));
        let with_null: Vec<ArrayRef> = vec![Arc::new(Int64Array::from_iter((0..n).map(|i| (i % 7 != 0).then_some((n - i) as i64 % 11)))), keys[0].clone()];
        assert!(packed_integer_keys(&with_null).is_none());
        assert_eq!(sort_order(&with_null).unwrap(), Some(row_format_order(&with_null)));
    }
}
