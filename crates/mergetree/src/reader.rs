//! Reading granules of a part, and the scan plan (`MergeTreeExec`).
//!
//! A scan is planned in three steps (see `select.rs` for the first two):
//! 1. parts whose partition min/max cannot match the filters are skipped;
//! 2. in the remaining parts, granules whose primary-key range cannot match are
//!    skipped (`PruningPredicate` over the sparse index);
//! 3. the selected granule ranges of all parts are cut into `target_partitions`
//!    contiguous slices of about the same number of granules, one per output partition.
//!
//! Each output partition is produced by a blocking task (file reads, decompression and
//! decoding are CPU and I/O work that must not stall the async runtime) feeding a
//! bounded channel: at most two blocks are decoded ahead of the consumer, and dropping
//! the stream stops the task at its next send.

use std::fmt;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;

use arrow::array::{new_empty_array, Array, ArrayRef, AsArray, BooleanArray, UInt64Array};
use datafusion::common::ScalarValue;
use arrow::compute::{filter, prep_null_mask_filter};
use granary_common::QueryProgress;
use arrow::buffer::{Buffer, MutableBuffer};
use arrow::compute::concat;
use arrow::datatypes::{DataType, SchemaRef};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::filter_pushdown::{ChildPushdownResult, FilterPushdownPhase, FilterPushdownPropagation, PushedDown};
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricBuilder, MetricsSet};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use futures::StreamExt;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties};
use granary_common::{Error, ErrorCode, Result, ResultExt};

use crate::cache::uncompressed_cache;
use crate::compression::{block_len, decompress_read_block, BLOCK_HEADER_LEN, COMPRESSED_READ_SLACK};
use crate::encoding::{decode_array_filtered, decode_array_shared, decoded_bytes, GranuleConcat};
use crate::keys::TableKeys;
use crate::part::{Mark, Part};
use crate::threshold::ThresholdSkipping;
use crate::virtual_columns::{VirtualColumn, VirtualValues};

/// Granules `granules` of one part.
#[derive(Debug, Clone)]
pub struct GranuleRange {
    pub part: Arc<Part>,
    pub granules: Range<usize>,
}

impl GranuleRange {
    pub fn rows(&self) -> u64 {
        self.part.granule_starts[self.granules.end] - self.part.granule_starts[self.granules.start]
    }
}

struct ColumnCursor {
    index: usize,
    data_type: DataType,
    /// A virtual column: made, not read (see [`Computed`]).
    computed: Option<Computed>,
    /// Opened at the first block not found in the cache.
    file: Option<File>,
    path: PathBuf,
    block_offset: Option<u64>,
    /// The current block, decompressed (shared with the uncompressed cache and with
    /// arrays decoded from it).
    block: Buffer,
    /// The compressed bytes of the last block read (kept for its allocation).
    raw: Vec<u8>,
}

/// How a virtual column's values are made for a read range.
#[derive(Debug, Clone)]
enum Computed {
    /// One value for the whole part (`_part`, `_partition_id`, ...).
    Constant(ScalarValue),
    /// `_part_offset`, `_block_offset`: the row's number in the part.
    RowNumber,
    /// `_part_granule_offset`: the number of the row's granule in the part.
    GranuleNumber,
    /// `_row_exists` of a part with a lightweight-delete mask: the mask's values.
    RowExists(BooleanArray),
    /// A per-part column whose values the scan did not provide (a reader made without
    /// [`PartReader::with_virtual_values`]).
    Missing(&'static str),
}

impl Computed {
    /// The values of the rows of `granules` (the part's granule row starts are
    /// `starts`), or of those of them `mask` keeps.
    fn values(&self, starts: &[u64], granules: Range<usize>, mask: Option<&BooleanArray>) -> Result<ArrayRef> {
        let base = starts[granules.start];
        let rows = (starts[granules.end] - base) as usize;
        match self {
            Computed::Constant(value) => Ok(value.to_array_of_size(mask.map_or(rows, |m| m.true_count()))?),
            Computed::RowNumber => Ok(Arc::new(match mask {
                None => UInt64Array::from_iter_values(base..base + rows as u64),
                Some(mask) => UInt64Array::from_iter_values(mask.values().set_indices().map(|i| base + i as u64)),
            })),
            Computed::GranuleNumber => {
                let mut numbers = Vec::with_capacity(mask.map_or(rows, |m| m.true_count()));
                for g in granules {
                    let granule_rows = (starts[g + 1] - starts[g]) as usize;
                    let kept = match mask {
                        None => granule_rows,
                        Some(mask) => mask.slice((starts[g] - base) as usize, granule_rows).true_count(),
                    };
                    numbers.resize(numbers.len() + kept, g as u64);
                }
                Ok(Arc::new(UInt64Array::from(numbers)))
            }
            Computed::RowExists(exists) => {
                let exists = exists.slice(base as usize, rows);
                let exists = match mask {
                    Some(mask) => filter(&exists, mask)?.as_boolean().clone(),
                    None => exists,
                };
                Ok(Arc::new(arrow::array::UInt8Array::from_iter_values(exists.values().iter().map(u8::from))))
            }
            Computed::Missing(name) => Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("virtual column {name} read without its values"))),
        }
    }
}

impl ColumnCursor {
    /// Makes the block holding `mark`'s granule the current one.
    fn load_block(&mut self, mark: &Mark, cache_key: Option<u64>) -> Result<()> {
        if self.block_offset == Some(mark.block_offset) {
            return Ok(());
        }
        // Invalidated first: a failed read must not leave a stale block current.
        self.block_offset = None;
        let key = cache_key.map(|part| (part, self.index as u32, mark.block_offset));
        if let Some(cached) = key.and_then(|k| uncompressed_cache().get(&k)) {
            self.block = cached;
        } else {
            self.read_compressed(mark.block_offset)?;
            let what = || self.path.display().to_string();
            // The previous block's allocation is reused when no array decoded from it
            // (and no cache entry) holds it any more.
            let reuse = std::mem::take(&mut self.block).into_mutable().unwrap_or_else(|_| MutableBuffer::new(0));
            let (block, raw) = decompress_read_block(std::mem::take(&mut self.raw), &what, reuse)?;
            self.block = block;
            self.raw = raw.unwrap_or_default();
            if let Some(k) = key {
                uncompressed_cache().insert(k, self.block.clone());
            }
        }
        self.block_offset = Some(mark.block_offset);
        Ok(())
    }

    fn read_granule(&mut self, mark: &Mark, cache_key: Option<u64>) -> Result<ArrayRef> {
        self.load_block(mark, cache_key)?;
        let mut pos = mark.offset_in_block as usize;
        let array = decode_array_shared(&self.block, &mut pos, &self.data_type).map_err(|e| e.context(format!("in {}", self.path.display())))?;
        if array.len() as u64 != mark.rows {
            return Err(self.rows_mismatch(array.len(), mark.rows));
        }
        Ok(array)
    }

    /// The rows of the granule at `mark` set in `keep`, and the encoded bytes read.
    fn read_granule_filtered(&mut self, mark: &Mark, cache_key: Option<u64>, keep: &BooleanArray) -> Result<(ArrayRef, usize)> {
        self.load_block(mark, cache_key)?;
        if keep.len() as u64 != mark.rows {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("filter of {} rows for a granule of {}", keep.len(), mark.rows)));
        }
        let start = mark.offset_in_block as usize;
        let mut pos = start;
        let array = decode_array_filtered(self.block.as_slice(), &mut pos, &self.data_type, keep)
            .map_err(|e| e.context(format!("in {}", self.path.display())))?;
        Ok((array, pos - start))
    }

    /// The granules of `marks` as one array, decoded straight into it when the type
    /// allows (see `GranuleConcat`).
    fn read_granules(&mut self, marks: &[Mark], cache_key: Option<u64>) -> Result<ArrayRef> {
        let rows: u64 = marks.iter().map(|m| m.rows).sum();
        let Some(mut out) = GranuleConcat::new(&self.data_type, rows as usize).filter(|_| marks.len() > 1) else {
            let mut pieces = Vec::with_capacity(marks.len());
            for mark in marks {
                pieces.push(self.read_granule(mark, cache_key)?);
            }
            return if pieces.len() == 1 {
                pieces.pop().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "no granule"))
            } else {
                let refs: Vec<&dyn Array> = pieces.iter().map(|a| a.as_ref()).collect();
                Ok(concat(&refs)?)
            };
        };
        for mark in marks {
            self.load_block(mark, cache_key)?;
            let mut pos = mark.offset_in_block as usize;
            let n = out.append(self.block.as_slice(), &mut pos).map_err(|e| e.context(format!("in {}", self.path.display())))?;
            if n as u64 != mark.rows {
                return Err(self.rows_mismatch(n, mark.rows));
            }
        }
        out.finish().map_err(|e| e.context(format!("in {}", self.path.display())))
    }

    fn rows_mismatch(&self, found: usize, marked: u64) -> Error {
        Error::new(ErrorCode::CORRUPTED_DATA, format!("Granule of {} has {found} rows, marks say {marked}", self.path.display()))
    }

    /// Reads the compressed block at `offset`, header included, into `self.raw` from
    /// `COMPRESSED_READ_SLACK` on (see `decompress_read_block`).
    fn read_compressed(&mut self, offset: u64) -> Result<()> {
        if self.file.is_none() {
            let file = File::open(&self.path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot open {}", self.path.display()))?;
            self.file = Some(file);
        }
        let path = &self.path;
        let mut file = self.file.as_ref().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "column file not open"))?;
        let mut header = [0u8; BLOCK_HEADER_LEN];
        file.read_exact_at(&mut header, offset).with_code(ErrorCode::CANNOT_READ_ALL_DATA, || format!("Cannot read block header of {}", path.display()))?;
        let len = block_len(&header, &|| path.display().to_string())?;
        let rest = (len - BLOCK_HEADER_LEN) as u64;
        let raw = &mut self.raw;
        raw.clear();
        raw.reserve_exact(COMPRESSED_READ_SLACK + len);
        raw.resize(COMPRESSED_READ_SLACK, 0);
        raw.extend_from_slice(&header);
        // Read into the spare capacity, not into zeroed bytes: a NONE block's buffer
        // is handed over to the arrays, so each such block reads into a new one.
        file.seek(SeekFrom::Start(offset + BLOCK_HEADER_LEN as u64)).with_code(ErrorCode::CANNOT_READ_ALL_DATA, || format!("Cannot seek in {}", path.display()))?;
        let read = file.take(rest).read_to_end(raw).with_code(ErrorCode::CANNOT_READ_ALL_DATA, || format!("Cannot read block of {}", path.display()))?;
        if read as u64 != rest {
            return Err(Error::new(ErrorCode::CANNOT_READ_ALL_DATA, format!("Cannot read all data: block of {} is truncated ({read} of {rest} bytes)", path.display())));
        }
        Ok(())
    }
}

/// Every granule of one column file (`marks`), as one array: a part's lightweight-delete
/// mask, which is read whole when the part is loaded.
pub fn read_whole_column(path: &std::path::Path, marks: &[Mark], data_type: &DataType) -> Result<ArrayRef> {
    if marks.is_empty() {
        return Ok(new_empty_array(data_type));
    }
    let mut cursor = ColumnCursor { index: 0, data_type: data_type.clone(), computed: None, file: None, path: path.to_path_buf(), block_offset: None, block: Buffer::default(), raw: Vec::new() };
    cursor.read_granules(marks, None)
}

/// Reads granules of one part, for the given table columns.
pub struct PartReader {
    part: Arc<Part>,
    columns: Vec<ColumnCursor>,
    /// Decompressed blocks go through the uncompressed cache (`use_uncompressed_cache`).
    use_cache: bool,
}

impl PartReader {
    pub fn new(part: Arc<Part>, table_schema: &SchemaRef, columns: &[usize]) -> Result<PartReader> {
        let mut cursors = Vec::with_capacity(columns.len());
        for &index in columns {
            let field = table_schema.fields().get(index).ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, format!("scan column {index} out of the table's columns")))?;
            let computed = crate::virtual_columns::of_field(field).map(|v| match v {
                VirtualColumn::PartOffset | VirtualColumn::BlockOffset => Computed::RowNumber,
                VirtualColumn::PartGranuleOffset => Computed::GranuleNumber,
                VirtualColumn::RowExists => match &part.row_exists {
                    Some(exists) => Computed::RowExists(exists.clone()),
                    None => Computed::Constant(ScalarValue::UInt8(Some(1))),
                },
                other => Computed::Missing(other.name()),
            });
            let path = part.bin_path(field.name());
            cursors.push(ColumnCursor { index, data_type: field.data_type().clone(), computed, file: None, path, block_offset: None, block: Buffer::default(), raw: Vec::new() });
        }
        Ok(PartReader { part, columns: cursors, use_cache: false })
    }

    /// Gives the reader the values of its per-part virtual columns.
    pub fn with_virtual_values(mut self, values: &VirtualValues, keys: &TableKeys, stored_schema: &SchemaRef) -> Result<Self> {
        for column in &mut self.columns {
            if let Some(Computed::Missing(name)) = column.computed {
                let virtual_column = VirtualColumn::from_name(name).ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, format!("unknown virtual column {name}")))?;
                column.computed = Some(Computed::Constant(values.value(virtual_column, &self.part, keys, stored_schema)?));
            }
        }
        Ok(self)
    }

    /// Reads through the process's uncompressed-block cache.
    pub fn with_uncompressed_cache(mut self, on: bool) -> Self {
        self.use_cache = on;
        self
    }

    /// Reads granules `range` as one batch of `schema` (the projected columns).
    pub fn read(&mut self, range: Range<usize>, schema: &SchemaRef) -> Result<RecordBatch> {
        let rows = (self.part.granule_starts[range.end] - self.part.granule_starts[range.start]) as usize;
        let all: Vec<usize> = (0..self.columns.len()).collect();
        let arrays = self.read_columns(range, &all)?;
        Ok(RecordBatch::try_new_with_options(schema.clone(), arrays, &RecordBatchOptions::new().with_row_count(Some(rows)))?)
    }

    /// Reads granules `range` of the reader's columns at `positions` (indices into the
    /// columns the reader was made for).
    pub fn read_columns(&mut self, range: Range<usize>, positions: &[usize]) -> Result<Vec<ArrayRef>> {
        Ok(self.read_columns_where(range, positions, None)?.0)
    }

    /// Like [`Self::read_columns`], keeping only the rows of `mask` (one value per row
    /// of `range`, no nulls): each granule is filtered as it is decoded, so the columns
    /// are never copied whole, and a granule without a match is not read at all. Also
    /// returns the decoded bytes (read_bytes).
    pub fn read_columns_where(&mut self, range: Range<usize>, positions: &[usize], mask: Option<&BooleanArray>) -> Result<(Vec<ArrayRef>, usize)> {
        let cache_key = self.use_cache.then_some(self.part.id);
        let starts = &self.part.granule_starts;
        let base = starts[range.start] as usize;
        let mut arrays = Vec::with_capacity(positions.len());
        let mut decoded = 0usize;
        for &position in positions {
            let column = self.columns.get_mut(position).ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "column position out of range"))?;
            if let Some(computed) = &column.computed {
                arrays.push(computed.values(starts, range.clone(), mask)?);
                continue;
            }
            let marks = self.part.marks(column.index)?;
            if mask.is_none() {
                let marks = marks.get(range.clone()).ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "granule range out of the part's marks"))?;
                let array = column.read_granules(marks, cache_key)?;
                decoded += decoded_bytes(array.as_ref());
                arrays.push(array);
                continue;
            }
            let mut pieces = Vec::with_capacity(range.len());
            for g in range.clone() {
                let keep = match mask {
                    Some(mask) => {
                        let keep = mask.slice(starts[g] as usize - base, (starts[g + 1] - starts[g]) as usize);
                        match keep.true_count() {
                            0 => continue,
                            n if n == keep.len() => None,
                            _ => Some(keep),
                        }
                    }
                    None => None,
                };
                pieces.push(match keep {
                    Some(keep) => {
                        let (piece, read) = column.read_granule_filtered(&marks[g], cache_key, &keep)?;
                        decoded += read;
                        piece
                    }
                    None => {
                        let piece = column.read_granule(&marks[g], cache_key)?;
                        decoded += decoded_bytes(piece.as_ref());
                        piece
                    }
                });
            }
            arrays.push(match pieces.len() {
                0 => new_empty_array(&column.data_type),
                1 => pieces.pop().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "no granule"))?,
                _ => {
                    let refs: Vec<&dyn Array> = pieces.iter().map(|a| a.as_ref()).collect();
                    concat(&refs)?
                }
            });
        }
        Ok((arrays, decoded))
    }
}

/// The scan's own evaluation of the query's filters (ClickHouse's PREWHERE, applied to
/// every pushed-down filter as `optimize_move_to_prewhere` does): the filter columns of
/// a block are read first, and the other columns only for granules with matching rows.
#[derive(Debug)]
pub struct Prewhere {
    /// The filters over a batch of only the filter columns.
    pub predicate: Arc<dyn PhysicalExpr>,
    /// Positions of the filter columns among the scan's columns, in predicate order.
    pub filter_positions: Vec<usize>,
    pub filter_schema: SchemaRef,
    /// The filters as planned, over the scan's output columns.
    pub scan_predicate: Arc<dyn PhysicalExpr>,
}

impl Prewhere {
    /// `predicate` over the scan's output columns (`schema`), rewritten to run on a batch
    /// of only the columns it uses.
    pub(crate) fn over_scan_columns(predicate: &Arc<dyn PhysicalExpr>, schema: &SchemaRef) -> Result<Prewhere> {
        use datafusion::common::tree_node::{Transformed, TreeNode};
        use datafusion::physical_expr::expressions::Column;
        let mut used: Vec<usize> = datafusion::physical_expr::utils::collect_columns(predicate).into_iter().map(|c| c.index()).collect();
        used.sort_unstable();
        used.dedup();
        let filter_schema = Arc::new(schema.project(&used)?);
        let scan_predicate = Arc::clone(predicate);
        let predicate = Arc::clone(predicate)
            .transform(|e| {
                if let Some(c) = e.downcast_ref::<Column>() {
                    let index = used.iter().position(|&u| u == c.index()).unwrap_or(0);
                    return Ok(Transformed::yes(Arc::new(Column::new(c.name(), index)) as Arc<dyn PhysicalExpr>));
                }
                Ok(Transformed::no(e))
            })?
            .data;
        Ok(Prewhere { predicate, filter_positions: used, filter_schema, scan_predicate })
    }

    /// Whether the filter lets every row through as it stands now: a dynamic filter
    /// before its producer has set it (a TopK's before it holds `n` rows).
    fn passes_everything(&self) -> bool {
        use datafusion::physical_expr::expressions::Literal;
        let current = self.predicate.snapshot().ok().flatten();
        current.is_some_and(|e| e.downcast_ref::<Literal>().is_some_and(|l| l.value() == &datafusion::common::ScalarValue::Boolean(Some(true))))
    }
}

/// What a scan needs to make its per-part virtual columns.
#[derive(Debug)]
pub struct ScanVirtualValues {
    pub values: VirtualValues,
    pub keys: Arc<TableKeys>,
    /// The table's stored columns (what the partition key is evaluated over).
    pub stored_schema: SchemaRef,
}

/// Cuts the selected ranges into `n` slices of about the same number of granules.
pub fn split_ranges(ranges: Vec<GranuleRange>, n: usize) -> Vec<Vec<GranuleRange>> {
    let total: usize = ranges.iter().map(|r| r.granules.len()).sum();
    let n = n.max(1).min(total.max(1));
    let per = total.div_ceil(n).max(1);
    let mut out: Vec<Vec<GranuleRange>> = vec![Vec::new(); n];
    let (mut slot, mut filled) = (0, 0);
    for r in ranges {
        let mut start = r.granules.start;
        while start < r.granules.end {
            let take = (per - filled).min(r.granules.end - start);
            out[slot].push(GranuleRange { part: r.part.clone(), granules: start..start + take });
            start += take;
            filled += take;
            if filled == per && slot + 1 < n {
                slot += 1;
                filled = 0;
            }
        }
    }
    out
}

/// The scan of a MergeTree table.
#[derive(Clone)]
pub struct MergeTreeExec {
    table_schema: SchemaRef,
    schema: SchemaRef,
    columns: Vec<usize>,
    partitions: Vec<Vec<GranuleRange>>,
    /// Rows per produced block (granules are read whole, so blocks may be a granule over).
    block_rows: usize,
    limit: Option<usize>,
    /// `SELECT ... FINAL` on a Replacing/Summing table: each output partition holds the
    /// ranges of one table partition, merged at read time with the table's rules.
    final_merge: Option<Arc<FinalRead>>,
    /// Read through the uncompressed-block cache (short reads with `use_uncompressed_cache`).
    use_uncompressed_cache: bool,
    prewhere: Option<Arc<Prewhere>>,
    /// `SAMPLE k`: the range of sampling-key values the query reads, applied before any
    /// other filter and whatever `optimize_move_to_prewhere` says (nothing above the scan
    /// applies it again).
    sample_filter: Option<Arc<Prewhere>>,
    /// What index analysis selected when the scan was planned.
    selection: Option<crate::select::SelectionStats>,
    /// Filters that change while the query runs, pushed into the scan by DataFusion (a
    /// TopK's `ORDER BY t LIMIT n`: rows after the n-th best so far cannot be in the
    /// result; ClickHouse's `__topKFilter`). Evaluated before the PREWHERE on each block,
    /// so granules they reject are never read past their filter columns. Over the scan's
    /// output columns.
    dynamic_filters: Vec<Arc<dyn PhysicalExpr>>,
    /// The table's keys: with them, the dynamic filters also skip parts and granules by
    /// their statistics (see [`crate::threshold`]).
    keys: Option<Arc<TableKeys>>,
    /// Values of the projected per-part virtual columns, with what computes them.
    virtual_values: Option<Arc<ScanVirtualValues>>,
    /// `apply_deleted_mask` (1 in ClickHouse): rows a lightweight delete masked are left out.
    apply_deleted_mask: bool,
    properties: Arc<PlanProperties>,
    /// `output_rows`: the rows the scan produced (whole granules), which JSON's
    /// `rows_before_limit_at_least` reports under a LIMIT, as ClickHouse does.
    metrics: ExecutionPlanMetricsSet,
}

impl fmt::Debug for MergeTreeExec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MergeTreeExec").field("columns", &self.columns).field("partitions", &self.partitions.len()).finish()
    }
}

impl MergeTreeExec {
    pub fn new(
        table_schema: SchemaRef,
        columns: Vec<usize>,
        partitions: Vec<Vec<GranuleRange>>,
        block_rows: usize,
        limit: Option<usize>,
    ) -> Result<Self> {
        let schema = Arc::new(table_schema.project(&columns)?);
        let partitions = if partitions.is_empty() { vec![Vec::new()] } else { partitions };
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            Partitioning::UnknownPartitioning(partitions.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(MergeTreeExec { table_schema, schema, columns, partitions, block_rows: block_rows.max(1), limit, final_merge: None, use_uncompressed_cache: false, prewhere: None, sample_filter: None, selection: None, dynamic_filters: Vec::new(), keys: None, virtual_values: None, apply_deleted_mask: true, properties, metrics: ExecutionPlanMetricsSet::new() })
    }

    /// What the scan reads after index analysis, as `EXPLAIN ESTIMATE` shows it: parts,
    /// rows and marks (granules) of the selected ranges.
    pub fn estimate(&self) -> (u64, u64, u64) {
        let ranges: Vec<&GranuleRange> = self.partitions.iter().flatten().collect();
        let mut parts: Vec<String> = ranges.iter().map(|r| r.part.name()).collect();
        parts.sort_unstable();
        parts.dedup();
        let rows = ranges.iter().map(|r| r.rows()).sum();
        let marks = ranges.iter().map(|r| r.granules.len() as u64).sum();
        (parts.len() as u64, rows, marks)
    }

    /// What index analysis selected, for `EXPLAIN indexes = 1`.
    pub fn with_selection(mut self, stats: crate::select::SelectionStats) -> Self {
        self.selection = Some(stats);
        self
    }

    pub fn selection(&self) -> Option<&crate::select::SelectionStats> {
        self.selection.as_ref()
    }

    /// Reads through the uncompressed-block cache.
    pub fn with_uncompressed_cache(mut self, on: bool) -> Self {
        self.use_uncompressed_cache = on;
        self
    }

    /// Filters rows in the scan, reading filter columns first (see [`Prewhere`]).
    pub fn with_prewhere(mut self, prewhere: Option<Prewhere>) -> Self {
        self.prewhere = prewhere.map(Arc::new);
        self
    }

    /// Keeps only the rows of a `SAMPLE` (see `sample_filter`).
    pub fn with_sample_filter(mut self, filter: Option<Prewhere>) -> Self {
        self.sample_filter = filter.map(Arc::new);
        self
    }

    /// Makes this a FINAL scan (see `final_merge`).
    /// Merges at read time (FINAL) as `read` says.
    pub fn with_final(mut self, read: FinalRead) -> Self {
        self.final_merge = Some(Arc::new(read));
        self
    }

    /// Gives the scan the values of its per-part virtual columns.
    pub fn with_virtual_values(mut self, values: ScanVirtualValues) -> Self {
        self.virtual_values = Some(Arc::new(values));
        self
    }

    /// Shows the rows lightweight deletes masked (`apply_deleted_mask = 0`).
    pub fn with_deleted_mask(mut self, apply: bool) -> Self {
        self.apply_deleted_mask = apply;
        self
    }

    /// Lets the scan skip parts and granules by its dynamic filters (see `threshold`).
    pub fn with_keys(mut self, keys: Arc<TableKeys>) -> Self {
        self.keys = Some(keys);
        self
    }

    fn threshold_skipping(&self) -> Option<ThresholdSkipping> {
        let keys = self.keys.clone()?;
        if self.dynamic_filters.is_empty() || self.final_merge.is_some() {
            return None;
        }
        // Part and granule statistics say nothing about virtual columns.
        let on_virtual_column = |f: &Arc<dyn PhysicalExpr>| {
            datafusion::physical_expr::utils::collect_columns(f).iter().any(|c| {
                self.columns.get(c.index()).and_then(|&t| self.table_schema.fields().get(t)).is_some_and(|field| crate::virtual_columns::of_field(field).is_some())
            })
        };
        if self.dynamic_filters.iter().any(on_virtual_column) {
            return None;
        }
        Some(ThresholdSkipping::new(self.dynamic_filters.clone(), self.columns.clone(), self.table_schema.clone(), keys))
    }

    /// Whether every row this scan produces passes `predicate` (over its output columns):
    /// each conjunct of it is one of the PREWHERE's, which the scan applies exactly.
    pub fn applies_filter(&self, predicate: &Arc<dyn PhysicalExpr>) -> bool {
        use datafusion::physical_expr::split_conjunction;
        let Some(prewhere) = self.prewhere.as_ref().filter(|_| self.final_merge.is_none()) else {
            return false;
        };
        let applied = split_conjunction(&prewhere.scan_predicate);
        split_conjunction(predicate).iter().all(|conjunct| applied.iter().any(|a| a.as_ref() == conjunct.as_ref()))
    }

    /// Granules this plan will read (for tests and EXPLAIN).
    pub fn granules(&self) -> usize {
        self.partitions.iter().flatten().map(|r| r.granules.len()).sum()
    }
}

impl DisplayAs for MergeTreeExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let parts: std::collections::HashSet<String> = self.partitions.iter().flatten().map(|r| r.part.name()).collect();
        write!(f, "MergeTreeExec: parts={}, granules={}, partitions={}", parts.len(), self.granules(), self.partitions.len())?;
        for filter in &self.dynamic_filters {
            write!(f, ", dynamic_filter={filter}")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for MergeTreeExec {
    fn name(&self) -> &str {
        "MergeTreeExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> datafusion::common::Result<TreeNodeRecursion>,
    ) -> datafusion::common::Result<TreeNodeRecursion> {
        for filter in &self.dynamic_filters {
            if f(filter)? == TreeNodeRecursion::Stop {
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    }

    /// Keeps the dynamic filters among `child_pushdown_result`'s (see `dynamic_filters`)
    /// and reports every filter unsupported: the scan drops only rows the filter rejects
    /// at the time, the operators above still apply it. Not under FINAL, whose merge
    /// needs every version of a row.
    fn handle_child_pushdown_result(
        &self,
        phase: FilterPushdownPhase,
        child_pushdown_result: ChildPushdownResult,
        _config: &datafusion::config::ConfigOptions,
    ) -> datafusion::common::Result<FilterPushdownPropagation<Arc<dyn ExecutionPlan>>> {
        let filters = child_pushdown_result.parent_filters;
        let unsupported = FilterPushdownPropagation::with_parent_pushdown_result(vec![PushedDown::No; filters.len()]);
        if phase != FilterPushdownPhase::Post || self.final_merge.is_some() {
            return Ok(unsupported);
        }
        let dynamic: Vec<Arc<dyn PhysicalExpr>> = filters.iter().map(|f| Arc::clone(&f.filter)).filter(contains_dynamic_filter).collect();
        if dynamic.is_empty() {
            return Ok(unsupported);
        }
        let mut scan = self.clone();
        scan.dynamic_filters.extend(dynamic);
        Ok(unsupported.with_updated_node(Arc::new(scan)))
    }

    fn with_new_children(self: Arc<Self>, children: Vec<Arc<dyn ExecutionPlan>>) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        if children.is_empty() {
            Ok(self)
        } else {
            datafusion::common::internal_err!("MergeTreeExec has no children")
        }
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> datafusion::common::Result<SendableRecordBatchStream> {
        let ranges = self.partitions.get(partition).cloned().unwrap_or_default();
        let (tx, rx) = tokio::sync::mpsc::channel::<datafusion::common::Result<RecordBatch>>(2);
        let final_merge = self.final_merge.clone();
        // The sample, then the dynamic filters: cheap comparisons that drop most rows.
        let mut filters: Vec<Arc<Prewhere>> = self.sample_filter.iter().cloned().collect();
        filters.extend(self.dynamic_filters.iter().map(|f| Prewhere::over_scan_columns(f, &self.schema).map(Arc::new)).collect::<Result<Vec<_>>>().map_err(Error::into_datafusion)?);
        filters.extend(self.prewhere.clone());
        let mut scan = ScanTask {
            table_schema: self.table_schema.clone(),
            schema: self.schema.clone(),
            columns: self.columns.clone(),
            block_rows: self.block_rows,
            limit: self.limit,
            use_cache: self.use_uncompressed_cache,
            filters,
            progress: context.session_config().get_extension::<QueryProgress>(),
            threshold: self.threshold_skipping(),
            virtual_values: self.virtual_values.clone(),
            apply_deleted_mask: self.apply_deleted_mask,
        };
        let produce = granary_profiler::carry(move || {
            let result = match &final_merge {
                Some(read) => produce_final(read, &ranges, &scan, &tx),
                None => scan.produce(&ranges, &tx),
            };
            if let Err(e) = result {
                let _ = tx.blocking_send(Err(e.into_datafusion()));
            }
        });
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => drop(handle.spawn_blocking(produce)),
            Err(_) => drop(std::thread::spawn(produce)),
        }
        let output_rows = MetricBuilder::new(&self.metrics).output_rows(partition);
        let stream = futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|item| (item, rx)) }).map(move |item| {
            if let Ok(batch) = &item {
                output_rows.add(batch.num_rows());
            }
            item
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), stream)))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }
}

fn produce_final(
    read: &FinalRead,
    ranges: &[GranuleRange],
    scan: &ScanTask,
    tx: &tokio::sync::mpsc::Sender<datafusion::common::Result<RecordBatch>>,
) -> Result<()> {
    if ranges.is_empty() {
        return Ok(());
    }
    let inner = &read.inner;
    let stored = inner.schema.fields().len();
    let merged_column = |c: usize| if c < stored { c } else { stored + read.virtuals.iter().position(|&v| v == c).unwrap_or(0) };
    let mut produced = 0usize;
    for merged in crate::merge::final_merge(inner, ranges, &read.virtuals, scan.virtual_values.as_deref(), read.prewhere.as_ref())? {
        let batch = merged?;
        // What a FINAL read costs is the merged rows it produces (it reads every
        // column of the selected granules to merge them).
        scan.count_read(batch.num_rows(), batch.get_array_memory_size());
        let projected = RecordBatch::try_new_with_options(
            scan.schema.clone(),
            scan.columns.iter().map(|&c| batch.column(merged_column(c)).clone()).collect(),
            &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
        )?;
        produced += projected.num_rows();
        if tx.blocking_send(Ok(projected)).is_err() {
            return Ok(());
        }
        if scan.limit.is_some_and(|l| produced >= l) {
            return Ok(());
        }
    }
    Ok(())
}

/// How a FINAL scan reads: each table partition's rows merged with the table's rules.
#[derive(Debug)]
pub struct FinalRead {
    pub inner: Arc<crate::engine::Inner>,
    /// The virtual columns the merge carries after the stored ones (indices into the scan
    /// schema): the projected ones and those the PREWHERE reads.
    pub virtuals: Vec<usize>,
    /// The query's PREWHERE, over the merged columns, applied to the rows of the parts
    /// before they are merged, as ClickHouse does.
    pub prewhere: Option<Arc<dyn PhysicalExpr>>,
}

/// What one output partition of a scan needs, moved to its blocking task.
struct ScanTask {
    table_schema: SchemaRef,
    schema: SchemaRef,
    columns: Vec<usize>,
    block_rows: usize,
    limit: Option<usize>,
    use_cache: bool,
    /// Filters applied in the scan, in order (see [`ScanTask::read_filtered`]).
    filters: Vec<Arc<Prewhere>>,
    /// read_rows / read_bytes of the query: rows of the granules read, not rows returned.
    progress: Option<Arc<QueryProgress>>,
    /// Makes the skipping of parts and granules by the dynamic filters' threshold, when
    /// the scan has dynamic filters and the table's keys are known.
    threshold: Option<ThresholdSkipping>,
    virtual_values: Option<Arc<ScanVirtualValues>>,
    /// `apply_deleted_mask`: rows a lightweight delete masked are left out.
    apply_deleted_mask: bool,
}

impl ScanTask {
    fn count_read(&self, rows: usize, bytes: usize) {
        if let Some(p) = &self.progress {
            p.add_read(rows as u64, bytes as u64);
        }
    }

    fn produce(&mut self, ranges: &[GranuleRange], tx: &tokio::sync::mpsc::Sender<datafusion::common::Result<RecordBatch>>) -> Result<()> {
        let mut produced = 0usize;
        let mut skipping = self.threshold.take();
        let mut ranges = ranges.to_vec();
        let mut ordered = false;
        let mut next = 0;
        while next < ranges.len() {
            if let Some(skipping) = &mut skipping {
                skipping.order_ranges(&mut ranges[next..], &mut ordered);
            }
            let range = ranges[next].clone();
            next += 1;
            let mut reader = PartReader::new(range.part.clone(), &self.table_schema, &self.columns)?.with_uncompressed_cache(self.use_cache);
            if let Some(v) = &self.virtual_values {
                reader = reader.with_virtual_values(&v.values, &v.keys, &v.stored_schema)?;
            }
            let starts = &range.part.granule_starts;
            let mut g = range.granules.start;
            while g < range.granules.end {
                // Granules the threshold rules out are not read; a block stays within a
                // run of granules it may keep.
                let mut run_end = range.granules.end;
                if let Some(skipping) = &mut skipping {
                    match skipping.next_granules(&range.part, g, range.granules.end)? {
                        Some((start, end)) => (g, run_end) = (start, end),
                        None => break,
                    }
                }
                // Whole granules up to about `block_rows` rows per block. Not a granule
                // per batch, although its columns would then be slices of their blocks:
                // at 8192 rows the per-batch work downstream costs more than the copy
                // that gluing granules makes (a full scan took 1.25-1.6x longer).
                let mut end = g + 1;
                while end < run_end && (starts[end + 1] - starts[g]) as usize <= self.block_rows {
                    end += 1;
                }
                // Rows a lightweight delete masked go first, as ClickHouse's PREWHERE
                // steps start with `_row_exists`.
                let existing = if self.apply_deleted_mask { range.part.existing_in(g..end) } else { None };
                let batches = match self.filters.is_empty() && existing.is_none() {
                    false => self.read_filtered(&mut reader, &range.part, g..end, existing)?,
                    true => {
                        // read_bytes counts decoded column data: virtual columns read none.
                        let rows = (starts[end] - starts[g]) as usize;
                        let all: Vec<usize> = (0..self.columns.len()).collect();
                        let (arrays, bytes) = reader.read_columns_where(g..end, &all, None)?;
                        self.count_read(rows, bytes);
                        vec![RecordBatch::try_new_with_options(self.schema.clone(), arrays, &RecordBatchOptions::new().with_row_count(Some(rows)))?]
                    }
                };
                for batch in batches {
                    produced += batch.num_rows();
                    if tx.blocking_send(Ok(batch)).is_err() {
                        return Ok(()); // the consumer went away (LIMIT, cancellation)
                    }
                    if self.limit.is_some_and(|l| produced >= l) {
                        return Ok(());
                    }
                }
                g = end;
            }
        }
        Ok(())
    }

    /// Reads `granules` through the scan's filters, one after the other: each filter's
    /// columns are read for the rows the filters before it kept (a granule none of them
    /// kept is not read), then the other columns for the rows all of them kept. Returns
    /// the kept rows.
    /// `existing`: the rows a lightweight delete left, when it masked some.
    fn read_filtered(&self, reader: &mut PartReader, part: &Part, granules: Range<usize>, existing: Option<BooleanArray>) -> Result<Vec<RecordBatch>> {
        let starts = &part.granule_starts;
        let rows = (starts[granules.end] - starts[granules.start]) as usize;
        // Each column read so far, and the selection it was read under (None: all rows).
        let mut read: Vec<Option<(ArrayRef, Option<Arc<BooleanArray>>)>> = vec![None; self.columns.len()];
        if existing.as_ref().is_some_and(|e| e.true_count() == 0) {
            self.count_read(rows, 0);
            return Ok(Vec::new());
        }
        let mut selection: Option<Arc<BooleanArray>> = existing.map(Arc::new);
        let mut rows_counted = false;
        let mut read_missing = |reader: &mut PartReader, positions: Vec<usize>, read: &mut Vec<Option<(ArrayRef, Option<Arc<BooleanArray>>)>>, selection: &Option<Arc<BooleanArray>>| -> Result<()> {
            let (arrays, bytes) = reader.read_columns_where(granules.clone(), &positions, selection.as_deref())?;
            // read_rows counts the rows of the granules read, once.
            self.count_read(if rows_counted { 0 } else { rows }, bytes);
            rows_counted = true;
            for (position, array) in positions.into_iter().zip(arrays) {
                read[position] = Some((array, selection.clone()));
            }
            Ok(())
        };
        for step in &self.filters {
            if step.passes_everything() {
                continue;
            }
            let missing: Vec<usize> = step.filter_positions.iter().copied().filter(|&p| read[p].is_none()).collect();
            read_missing(reader, missing, &mut read, &selection)?;
            let selected = selection.as_ref().map_or(rows, |s| s.true_count());
            let columns = step.filter_positions.iter().map(|&p| restrict(read[p].as_ref(), selection.as_deref())).collect::<Result<Vec<_>>>()?;
            let batch = RecordBatch::try_new_with_options(step.filter_schema.clone(), columns, &RecordBatchOptions::new().with_row_count(Some(selected)))?;
            let mask = filter_mask(&step.predicate.evaluate(&batch)?.into_array(selected)?)?;
            let refined = match &selection {
                None => mask,
                Some(before) => refine_selection(before, &mask),
            };
            if refined.true_count() == 0 {
                return Ok(Vec::new());
            }
            selection = Some(Arc::new(refined));
        }
        let missing: Vec<usize> = (0..self.columns.len()).filter(|&p| read[p].is_none()).collect();
        read_missing(reader, missing, &mut read, &selection)?;
        let kept = selection.as_ref().map_or(rows, |s| s.true_count());
        let arrays = read.iter().map(|column| restrict(column.as_ref(), selection.as_deref())).collect::<Result<Vec<_>>>()?;
        Ok(vec![RecordBatch::try_new_with_options(self.schema.clone(), arrays, &RecordBatchOptions::new().with_row_count(Some(kept)))?])
    }
}

/// The rows a filter's value keeps: NULL is not true, as in WHERE.
pub(crate) fn filter_mask(value: &ArrayRef) -> Result<BooleanArray> {
    let mask = value.as_any().downcast_ref::<BooleanArray>().ok_or_else(|| {
        Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of column for filter (must be boolean)", value.data_type()))
    })?;
    Ok(if mask.null_count() > 0 { prep_null_mask_filter(mask) } else { mask.clone() })
}

/// Whether `expr` holds a filter set while the query runs.
fn contains_dynamic_filter(expr: &Arc<dyn PhysicalExpr>) -> bool {
    use datafusion::common::tree_node::TreeNode;
    use datafusion::physical_expr::expressions::DynamicFilterPhysicalExpr;
    let mut found = false;
    let _ = expr.apply(|e| {
        found = e.downcast_ref::<DynamicFilterPhysicalExpr>().is_some();
        Ok(if found { TreeNodeRecursion::Stop } else { TreeNodeRecursion::Continue })
    });
    found
}

/// A column read under selection `read_under` (None: every row), cut down to the rows
/// of `selection`, which is `read_under` or narrower.
fn restrict(column: Option<&(ArrayRef, Option<Arc<BooleanArray>>)>, selection: Option<&BooleanArray>) -> Result<ArrayRef> {
    let (array, read_under) = column.ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "a filtered scan left a column unread"))?;
    Ok(match (read_under, selection) {
        (_, None) => array.clone(),
        (None, Some(selection)) => filter(array, selection)?,
        (Some(under), Some(selection)) if std::ptr::eq(under.as_ref(), selection) => array.clone(),
        // The selection's rows among those the column holds.
        (Some(under), Some(selection)) => filter(array, &filter(selection, under)?.as_boolean().clone())?,
    })
}

/// The rows of `selection` whose `mask` value (one per selected row, in order) is true.
fn refine_selection(selection: &BooleanArray, mask: &BooleanArray) -> BooleanArray {
    let mut bits = arrow::array::BooleanBufferBuilder::new(selection.len());
    bits.append_n(selection.len(), false);
    for (rank, row) in selection.values().set_indices().enumerate() {
        if mask.value(rank) {
            bits.set_bit(row, true);
        }
    }
    BooleanArray::new(bits.finish(), None)
}
