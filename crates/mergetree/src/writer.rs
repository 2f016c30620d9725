//! Writing one part: granules cut from sorted blocks, encoded, compressed, fsynced.
//!
//! The writer takes a stream of blocks that are already sorted by the sorting key (one
//! block for an INSERT, the merging algorithm's blocks for a merge), so it never needs the
//! whole part in memory: at most one compressed block per column plus the rows of one
//! unfinished granule.
//!
//! Where granules end is ClickHouse's rule, replayed by [`GranulePlanner`] on the blocks
//! the writer is handed: each [`PartWriter::write_block`] call is one ClickHouse block
//! (an INSERT's part is one block; a merge hands over the blocks its merging algorithm
//! emits), and the part's format decides what happens to a block's short last granule.
//! `system.parts.marks` shows the result.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;


use arrow::array::{Array, ArrayRef};
use arrow::compute::{concat, concat_batches, filter, is_not_null};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use arrow::row::{RowConverter, SortField};
use granary_common::{Error, ErrorCode, Result, ResultExt};
use granary_storage::fs::escape_for_file_name;
use granary_types::ChType;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::compression::{BlockCompressor, Codec, ColumnCodec};
use crate::encoding::{GatherSources, ValueCoding, BUFFER_ALIGNMENT};
use crate::granules::{block_bytes, GranulePlanner};
use crate::keys::TableKeys;
use crate::part::{columns_txt, encode_arrays, encode_marks, Mark, Part, CHECKSUMS_FILE, PART_FORMAT_VERSION};
use crate::part_info::PartInfo;
use crate::settings::MergeTreeSettings;

/// How a part stores its columns (ClickHouse's part types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartLayout {
    /// A `.bin` and a `.mrk` file per column: reads of a few columns of a big part touch
    /// only their files.
    Wide,
    /// Every column's blocks in one `data.bin`, all marks in one `data.mrk`: a small
    /// INSERT writes and fsyncs a handful of files however many columns the table has.
    Compact,
}

impl PartLayout {
    /// ClickHouse's rule: a part below `min_bytes_for_wide_part` bytes (uncompressed) or
    /// `min_rows_for_wide_part` rows is compact.
    pub fn for_size(settings: &MergeTreeSettings, bytes: u64, rows: u64) -> PartLayout {
        // Compact parts need adaptive granularity.
        if settings.index_granularity_bytes == 0 {
            return PartLayout::Wide;
        }
        if bytes < settings.min_bytes_for_wide_part || rows < settings.min_rows_for_wide_part {
            PartLayout::Compact
        } else {
            PartLayout::Wide
        }
    }

    /// The name `system.parts.part_type` shows.
    pub fn name(self) -> &'static str {
        match self {
            PartLayout::Wide => "Wide",
            PartLayout::Compact => "Compact",
        }
    }
}

/// The one data file of a compact part.
pub const COMPACT_DATA_FILE: &str = "data.bin";
/// The marks of every column of a compact part, column after column.
pub const COMPACT_MARKS_FILE: &str = "data.mrk";

/// The file holding column `column`'s blocks.
pub fn bin_file_name(layout: PartLayout, column: &str) -> String {
    match layout {
        PartLayout::Wide => format!("{}.bin", escape_for_file_name(column)),
        PartLayout::Compact => COMPACT_DATA_FILE.to_string(),
    }
}

/// The file holding column `column`'s marks (all columns' in a compact part).
pub fn mark_file_name(layout: PartLayout, column: &str) -> String {
    match layout {
        PartLayout::Wide => format!("{}.mrk", escape_for_file_name(column)),
        PartLayout::Compact => COMPACT_MARKS_FILE.to_string(),
    }
}

/// A `.bin` file being written: one per column (wide) or one for all (compact).
struct BinFile {
    name: String,
    file: File,
    hasher: Xxh3,
    /// Bytes written so far: the offset of the next block.
    len: u64,
    /// Uncompressed size of the blocks written so far.
    uncompressed: u64,
    /// Bytes bit-packing saved in the blocks' granules.
    packing_saved: u64,
}

/// How a column's values are written: through its codec chain's transform, else as
/// bit-packed integers (`packing.rs`) unless the column asked for no compression at all.
fn value_coding(codec: &ColumnCodec) -> ValueCoding {
    match (codec.transform, codec.block) {
        (Some(transform), _) => ValueCoding::Transform(transform),
        (None, Codec::None) => ValueCoding::Plain,
        (None, _) => ValueCoding::Pack,
    }
}

struct ColumnWriter {
    /// Index into the part's `.bin` files.
    file: usize,
    compressor: BlockCompressor,
    values: ValueCoding,
    /// Bytes bit-packing saved in this column's granules: their size unpacked is what
    /// was compressed plus this.
    packing_saved: u64,
    /// Encoded granules not yet compressed.
    buf: Vec<u8>,
    marks: Vec<Mark>,
    /// The last marks, of granules in `buf`: their block goes where the file ends when
    /// it is written, which in a compact part depends on the other columns' blocks.
    unwritten_marks: usize,
}

impl ColumnWriter {
    /// Pads the block being gathered so the next granule starts at a multiple of
    /// [`BUFFER_ALIGNMENT`], and returns where it starts: the encoding aligns buffers by
    /// their offset in the block, which stays true when the granule moves to the start
    /// of the next block (`close_column_granule`).
    fn start_granule(&mut self) -> usize {
        self.buf.resize(self.buf.len().next_multiple_of(BUFFER_ALIGNMENT), 0);
        self.buf.len()
    }

    fn flush_block(&mut self, file: &mut BinFile) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let first_unwritten = self.marks.len() - self.unwritten_marks;
        for mark in &mut self.marks[first_unwritten..] {
            mark.block_offset = file.len;
        }
        self.unwritten_marks = 0;
        let block = self.compressor.compress(&self.buf)?;
        file.file.write_all(block).with_code(ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR, || format!("Cannot write {}", file.name))?;
        file.hasher.update(block);
        file.len += block.len() as u64;
        file.uncompressed += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }
}

pub struct PartWriter<'a> {
    info: PartInfo,
    /// The temporary directory written into.
    dir: PathBuf,
    schema: SchemaRef,
    keys: &'a TableKeys,
    settings: &'a MergeTreeSettings,
    layout: PartLayout,
    files: Vec<BinFile>,
    columns: Vec<ColumnWriter>,
    /// Rows of the granule left open by the blocks written so far (slices, no copies).
    pending: Vec<RecordBatch>,
    planner: GranulePlanner,
    /// Each column's ClickHouse type, for the blocks' byte sizes.
    types: Vec<ChType>,
    primary: Vec<Vec<ArrayRef>>,
    last_row: Option<RecordBatch>,
    /// Running (min, max) of each partition-key column.
    minmax: Vec<Option<(ArrayRef, ArrayRef)>>,
    rows: u64,
    /// Set by [`PartWriter::allow_empty`]: the part may end without rows.
    may_be_empty: bool,
    /// The table's TTL: the ranges of the rows' TTL values go to `ttl.txt`.
    ttl: Option<&'a crate::ttl::TableTtl>,
    /// Set by [`PartWriter::ttl_applied_at`].
    ttl_applied_at: Option<i64>,
    ttl_sources: Option<crate::ttl::TtlInfos>,
    recompressed: Option<String>,
    ttl_infos: crate::ttl::TtlInfos,
    /// The table's data-skipping indexes, each fed every granule written.
    skip_indexes: Vec<crate::skip_index::IndexBuilder<'a>>,
}

impl<'a> PartWriter<'a> {
    /// Starts a part in `tmp_dir` (created here, removed by the caller on failure).
    pub fn new(
        tmp_dir: &Path,
        info: PartInfo,
        schema: SchemaRef,
        codecs: &[ColumnCodec],
        keys: &'a TableKeys,
        settings: &'a MergeTreeSettings,
        layout: PartLayout,
    ) -> Result<Self> {
        fs::create_dir_all(tmp_dir).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot create {}", tmp_dir.display()))?;
        let create = |name: String| -> Result<BinFile> {
            let path = tmp_dir.join(&name);
            let file = File::create(&path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot create {}", path.display()))?;
            Ok(BinFile { name, file, hasher: Xxh3::new(), len: 0, uncompressed: 0, packing_saved: 0 })
        };
        let files = match layout {
            PartLayout::Wide => schema.fields().iter().map(|f| create(bin_file_name(layout, f.name()))).collect::<Result<Vec<_>>>()?,
            PartLayout::Compact => vec![create(COMPACT_DATA_FILE.to_string())?],
        };
        let columns = codecs
            .iter()
            .enumerate()
            .map(|(i, codec)| ColumnWriter {
                file: if layout == PartLayout::Wide { i } else { 0 },
                compressor: BlockCompressor::new(codec.block),
                values: value_coding(codec),
                packing_saved: 0,
                buf: Vec::new(),
                marks: Vec::new(),
                unwritten_marks: 0,
            })
            .collect();
        let types = crate::granules::ch_types(&schema);
        Ok(PartWriter {
            info,
            dir: tmp_dir.to_path_buf(),
            schema,
            keys,
            settings,
            layout,
            files,
            columns,
            pending: Vec::new(),
            planner: GranulePlanner::new(layout, settings),
            types,
            primary: Vec::new(),
            last_row: None,
            minmax: vec![None; keys.partition_columns.len()],
            rows: 0,
            may_be_empty: false,
            ttl: None,
            ttl_applied_at: None,
            ttl_sources: None,
            recompressed: None,
            ttl_infos: Default::default(),
            skip_indexes: Vec::new(),
        })
    }

    /// Records the ranges of `ttl`'s values in the part's `ttl.txt`.
    pub fn with_ttl(mut self, ttl: Option<&'a crate::ttl::TableTtl>) -> Self {
        self.ttl = ttl;
        self
    }

    /// Builds `indexes` for the part (`skp_idx_<name>.idx`).
    pub fn with_skip_indexes(mut self, indexes: &'a crate::skip_index::SkipIndexes) -> Self {
        self.skip_indexes = indexes.indexes.iter().map(|i| i.builder()).collect();
        self
    }

    /// The rows written had the TTL applied at `now` (a merge or MATERIALIZE TTL):
    /// column values expired then were reset and do not count in `ttl.txt`.
    pub fn ttl_applied_at(&mut self, now: i64) {
        self.ttl_applied_at = Some(now);
    }

    /// Records that a TTL RECOMPRESS rule chose the codec (`CODEC(...)`) the part is
    /// written with.
    pub fn recompressed(&mut self, codec: String) {
        self.recompressed = Some(codec);
    }

    /// The TTL ranges of the parts this one replaces, which decide what of its own
    /// ranges is `finished` (set with [`PartWriter::ttl_applied_at`]).
    pub fn ttl_sources(&mut self, sources: crate::ttl::TtlInfos) {
        self.ttl_sources = Some(sources);
    }

    fn observe_ttl(&mut self, batches: &[RecordBatch]) -> Result<()> {
        if let Some(ttl) = self.ttl {
            for batch in batches {
                ttl.observe(batch, self.ttl_applied_at, &mut self.ttl_infos)?;
            }
        }
        Ok(())
    }

    /// Lets the part end without rows, as a merge whose rows all went (CLEANUP, zero
    /// sums, cancelled signs) ends in ClickHouse: the empty part covers its sources, so
    /// they never come back. Its partition-key min/max are `partition_of`'s (a part of
    /// the same partition), so its partition stays known.
    pub fn allow_empty(&mut self, partition_of: &Part) {
        self.may_be_empty = true;
        self.minmax = partition_of.minmax.iter().map(|mm| Some((mm.slice(0, 1), mm.slice(1, 1)))).collect();
    }

    /// Appends one block of sorted rows (sorted after everything written before).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.write_block(std::slice::from_ref(batch))
    }

    /// Appends one ClickHouse block made of `batches` (in order): its granules are cut
    /// by its total rows and bytes.
    pub fn write_block(&mut self, batches: &[RecordBatch]) -> Result<()> {
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        if rows == 0 {
            return Ok(());
        }
        self.observe_ttl(batches)?;
        let bytes: usize = batches.iter().map(|b| block_bytes(b, &self.types)).sum();
        let granules = self.planner.block(rows, bytes);
        let mut rest = batches.iter().filter(|b| b.num_rows() > 0).cloned();
        let mut current: Option<RecordBatch> = None;
        for size in granules {
            let mut missing = size - self.pending.iter().map(RecordBatch::num_rows).sum::<usize>();
            while missing > 0 {
                let batch = match current.take() {
                    Some(b) => b,
                    None => rest.next().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "granule plan past the block's rows"))?,
                };
                let take = missing.min(batch.num_rows());
                self.pending.push(batch.slice(0, take));
                if take < batch.num_rows() {
                    current = Some(batch.slice(take, batch.num_rows() - take));
                }
                missing -= take;
            }
            let pieces = std::mem::take(&mut self.pending);
            let granule = match <[RecordBatch; 1]>::try_from(pieces) {
                Ok([one]) => one,
                Err(pieces) => concat_batches(&self.schema, &pieces)?,
            };
            self.write_granule(&granule)?;
        }
        self.pending.extend(current.into_iter().chain(rest));
        if self.pending.iter().map(RecordBatch::num_rows).sum::<usize>() != self.planner.open_rows() {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, "granule plan and written rows disagree"));
        }
        Ok(())
    }

    /// Appends one block whose rows, in order, are `order`'s (batch, row) pairs of
    /// `batches`; `bytes` is the block's [`block_bytes`]. Each granule's rows are
    /// gathered only when it is written, so the sorted block never exists as a whole:
    /// a sort costs one copy of the rows, into a granule that stays in the cache while
    /// it is encoded, instead of a copy of the whole block into fresh memory.
    pub fn write_permuted_block(&mut self, batches: &[RecordBatch], order: &[(usize, usize)], bytes: usize) -> Result<()> {
        let rows = order.len();
        if rows == 0 {
            return Ok(());
        }
        let refs: Vec<&RecordBatch> = batches.iter().collect();
        if self.ttl.is_some() {
            // `order` may take only some of the rows (one partition's): the TTL ranges
            // are the part's rows', gathered once (a copy only tables with TTL pay for).
            self.observe_ttl(&[arrow::compute::interleave_record_batch(&refs, order)?])?;
        }
        let sources: Vec<GatherSources> = (0..self.schema.fields().len())
            .map(|c| GatherSources::new(&batches.iter().map(|b| b.column(c).as_ref()).collect::<Vec<_>>()))
            .collect();
        let mut next = 0;
        for size in self.planner.block(rows, bytes) {
            let open: usize = self.pending.iter().map(RecordBatch::num_rows).sum();
            let end = size
                .checked_sub(open)
                .map(|missing| next + missing)
                .filter(|&end| end <= rows)
                .ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "granule plan past the block's rows"))?;
            let granule_order = &order[next..end];
            next = end;
            if self.pending.is_empty() {
                self.write_gathered_granule(&refs, &sources, granule_order)?;
            } else {
                let mut pieces = std::mem::take(&mut self.pending);
                pieces.push(arrow::compute::interleave_record_batch(&refs, granule_order)?);
                self.write_granule(&concat_batches(&self.schema, &pieces)?)?;
            }
        }
        if next < rows {
            self.pending.push(arrow::compute::interleave_record_batch(&refs, &order[next..])?);
        }
        if self.pending.iter().map(RecordBatch::num_rows).sum::<usize>() != self.planner.open_rows() {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, "granule plan and written rows disagree"));
        }
        Ok(())
    }

    /// Writes the granule of rows `order` ((batch, row) pairs of `batches`), each column
    /// encoded straight from the batches where its type allows (no granule array built).
    fn write_gathered_granule(&mut self, batches: &[&RecordBatch], sources: &[GatherSources], order: &[(usize, usize)]) -> Result<()> {
        let rows = order.len();
        let (Some(&first), Some(&last)) = (order.first(), order.last()) else { return Ok(()) };
        for (index, source) in sources.iter().enumerate() {
            let column = &mut self.columns[index];
            let start = column.start_granule();
            let saved = match source.encode(order, &mut column.buf, column.values)? {
                Some(saved) => saved,
                None => {
                    let arrays: Vec<&dyn Array> = batches.iter().map(|b| b.column(index).as_ref()).collect();
                    crate::encoding::encode_array(arrow::compute::interleave(&arrays, order)?.as_ref(), &mut column.buf, column.values)?
                }
            };
            column.packing_saved += saved as u64;
            self.close_column_granule(index, start, rows)?;
        }
        if !self.skip_indexes.is_empty() {
            // Indexes evaluate expressions over whole rows: only tables with indexes
            // pay for gathering them.
            let granule = arrow::compute::interleave_record_batch(batches, order)?;
            for index in &mut self.skip_indexes {
                index.add_granule(&granule)?;
            }
        }
        let first = arrow::compute::interleave_record_batch(batches, &[first])?;
        let last = arrow::compute::interleave_record_batch(batches, &[last])?;
        let partition_values = self
            .keys
            .partition_columns
            .iter()
            .map(|&col| {
                let arrays: Vec<&dyn Array> = batches.iter().map(|b| b.column(col).as_ref()).collect();
                Ok(arrow::compute::interleave(&arrays, order)?)
            })
            .collect::<Result<Vec<_>>>()?;
        self.close_granule(rows, &first, last, &partition_values)
    }

    fn write_granule(&mut self, granule: &RecordBatch) -> Result<()> {
        let rows = granule.num_rows();
        for (index, array) in granule.columns().iter().enumerate() {
            let column = &mut self.columns[index];
            let start = column.start_granule();
            column.packing_saved += crate::encoding::encode_array(array.as_ref(), &mut column.buf, column.values)? as u64;
            self.close_column_granule(index, start, rows)?;
        }
        for index in &mut self.skip_indexes {
            index.add_granule(granule)?;
        }
        let partition_values: Vec<ArrayRef> = self.keys.partition_columns.iter().map(|&col| granule.column(col).clone()).collect();
        self.close_granule(rows, &granule.slice(0, 1), granule.slice(rows - 1, 1), &partition_values)
    }

    /// After a granule of `rows` rows was encoded into column `index`'s buffer from
    /// `start` on: its mark, and the block written when it is full.
    fn close_column_granule(&mut self, index: usize, start: usize, rows: usize) -> Result<()> {
        let column = &mut self.columns[index];
        let file = &mut self.files[column.file];
        // Encoded straight into the block being gathered; a granule that would make the
        // block larger than max_compress_block_size starts the next one.
        let mut offset_in_block = start;
        if start > 0 && column.buf.len() > self.settings.max_compress_block_size as usize {
            let granule_bytes = column.buf.split_off(start);
            column.flush_block(file)?;
            column.buf.extend_from_slice(&granule_bytes);
            offset_in_block = 0;
        }
        // The block's offset is known when the block is written (`flush_block`).
        column.marks.push(Mark { block_offset: 0, offset_in_block: offset_in_block as u64, rows: rows as u64 });
        column.unwritten_marks += 1;
        if column.buf.len() >= self.settings.min_compress_block_size as usize {
            column.flush_block(file)?;
        }
        Ok(())
    }

    /// After every column of a granule was written: its primary-index entry (`first`:
    /// its first row), the part's last row and the partition columns' min/max.
    fn close_granule(&mut self, rows: usize, first: &RecordBatch, last: RecordBatch, partition_values: &[ArrayRef]) -> Result<()> {
        self.primary.push(self.keys.primary().iter().map(|k| k.evaluate(first)).collect::<Result<_>>()?);
        self.last_row = Some(last);
        for (slot, values) in self.minmax.iter_mut().zip(partition_values) {
            *slot = merge_minmax(slot.take(), values)?;
        }
        self.rows += rows as u64;
        Ok(())
    }

    /// Writes the remaining files and fsyncs what `sync` asks for. Returns the part as it
    /// will be once renamed to `final_dir`.
    pub fn finish(mut self, final_dir: &Path, sync: PartSync) -> Result<Part> {
        if !self.pending.is_empty() {
            let last = concat_batches(&self.schema, &std::mem::take(&mut self.pending))?;
            self.write_granule(&last)?;
        }
        if self.rows == 0 && !self.may_be_empty {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, "Attempt to write an empty part"));
        }
        let mut checksums = String::new();
        let mut bytes_on_disk = 0u64;
        let mut marks = Vec::with_capacity(self.columns.len());
        for mut column in std::mem::take(&mut self.columns) {
            column.flush_block(&mut self.files[column.file])?;
            self.files[column.file].packing_saved += column.packing_saved;
            marks.push(column.marks);
        }
        for file in &self.files {
            // The fourth field: the column data's size uncompressed and unpacked.
            checksums.push_str(&format!("{}\t{}\t{:016x}\t{}\n", file.name, file.len, file.hasher.digest(), file.uncompressed + file.packing_saved));
            bytes_on_disk += file.len;
        }
        // Small files are written now and fsynced with the others at the end.
        let mut small: Vec<(String, File)> = Vec::new();
        match self.layout {
            PartLayout::Wide => {
                for (field, column_marks) in self.schema.fields().iter().zip(&marks) {
                    small.push(self.small_file(&mark_file_name(self.layout, field.name()), &encode_marks(column_marks), &mut checksums, &mut bytes_on_disk)?);
                }
            }
            PartLayout::Compact => {
                let all: Vec<u8> = marks.iter().flat_map(|m| encode_marks(m)).collect();
                small.push(self.small_file(COMPACT_MARKS_FILE, &all, &mut checksums, &mut bytes_on_disk)?);
            }
        }
        // primary.idx: each granule's first key, then the last row's key (NULL in an
        // empty part, so that every part's index has `granules + 1` entries).
        let last_key: Vec<ArrayRef> = match self.last_row.take() {
            Some(last) => self.keys.primary().iter().map(|k| k.evaluate(&last)).collect::<Result<_>>()?,
            None => self.keys.primary().iter().map(|k| arrow::array::new_null_array(&k.data_type, 1)).collect(),
        };
        let mut primary = Vec::with_capacity(self.keys.primary_len);
        for i in 0..self.keys.primary_len {
            let parts: Vec<&dyn Array> = self.primary.iter().map(|g| g[i].as_ref()).chain(std::iter::once(last_key[i].as_ref())).collect();
            primary.push(concat(&parts)?);
        }
        small.push(self.small_file("primary.idx", &encode_arrays(&primary)?, &mut checksums, &mut bytes_on_disk)?);
        let minmax: Vec<ArrayRef> = std::mem::take(&mut self.minmax)
            .into_iter()
            .zip(self.keys.partition_columns.clone())
            .map(|(mm, col)| match mm {
                Some((min, max)) => Ok(concat(&[min.as_ref(), max.as_ref()])?),
                None => Ok(arrow::array::new_null_array(self.schema.field(col).data_type(), 2)),
            })
            .collect::<Result<_>>()?;
        small.push(self.small_file("minmax.idx", &encode_arrays(&minmax)?, &mut checksums, &mut bytes_on_disk)?);
        small.push(self.small_file("count.txt", self.rows.to_string().as_bytes(), &mut checksums, &mut bytes_on_disk)?);
        small.push(self.small_file("columns.txt", columns_txt(&self.schema).as_bytes(), &mut checksums, &mut bytes_on_disk)?);
        small.push(self.small_file("format_version.txt", PART_FORMAT_VERSION.to_string().as_bytes(), &mut checksums, &mut bytes_on_disk)?);
        let mut ttl_infos = self.ttl.map(|_| std::mem::take(&mut self.ttl_infos));
        if let (Some(ttl), Some(infos), Some(sources), Some(now)) = (self.ttl, ttl_infos.as_mut(), &self.ttl_sources, self.ttl_applied_at) {
            ttl.finish_group_by(sources, now, infos);
        }
        if let Some(infos) = &ttl_infos {
            small.push(self.small_file(crate::ttl::TTL_FILE, infos.text().as_bytes(), &mut checksums, &mut bytes_on_disk)?);
        }
        let mut skip_index_files = std::collections::HashMap::new();
        for builder in std::mem::take(&mut self.skip_indexes) {
            let name = crate::skip_index::file_name(builder.index_name());
            let bytes = builder.finish()?;
            small.push(self.small_file(&name, &bytes, &mut checksums, &mut bytes_on_disk)?);
            skip_index_files.insert(name, Arc::new(bytes));
        }
        if let Some(codec) = &self.recompressed {
            small.push(self.small_file(crate::ttl::CODEC_FILE, codec.as_bytes(), &mut checksums, &mut bytes_on_disk)?);
        }
        small.push((CHECKSUMS_FILE.to_string(), write_unsynced(&self.dir.join(CHECKSUMS_FILE), checksums.as_bytes())?));
        bytes_on_disk += checksums.len() as u64;
        let mut to_sync: Vec<(&str, &File)> = Vec::new();
        if sync.files {
            to_sync.extend(self.files.iter().map(|f| (f.name.as_str(), &f.file)));
            to_sync.extend(small.iter().map(|(name, file)| (name.as_str(), file)));
        }
        let dir = match sync.directories {
            true => Some(File::open(&self.dir).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot open directory {}", self.dir.display()))?),
            false => None,
        };
        if let Some(dir) = &dir {
            to_sync.push((".", dir));
        }
        sync_all_concurrently(&to_sync)?;
        let mut part = Part::new(self.info.clone(), final_dir.to_path_buf(), bytes_on_disk, &self.schema, self.layout, marks, primary, minmax);
        part.ttl = ttl_infos;
        part.skip_index_files = skip_index_files;
        part.recompressed = self.recompressed.take();
        Ok(part)
    }

    /// Writes one small file of the part, not yet fsynced: `finish` fsyncs it with the rest.
    fn small_file(&self, name: &str, bytes: &[u8], checksums: &mut String, total: &mut u64) -> Result<(String, File)> {
        let file = write_unsynced(&self.dir.join(name), bytes)?;
        checksums.push_str(&format!("{name}\t{}\t{:016x}\n", bytes.len(), xxh3_64(bytes)));
        *total += bytes.len() as u64;
        Ok((name.to_string(), file))
    }
}

fn write_unsynced(path: &Path, bytes: &[u8]) -> Result<File> {
    let mut file = File::create(path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot create {}", path.display()))?;
    file.write_all(bytes).with_code(ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR, || format!("Cannot write {}", path.display()))?;
    Ok(file)
}

/// At most this many fsyncs of one part run at once.
const MAX_CONCURRENT_FSYNCS: usize = 16;

/// Fsyncs every file of a part (and its directory) before it may be renamed into place.
/// Issued from several threads at once: the file system commits concurrent fsyncs in one
/// journal transaction, so a part costs about one disk flush instead of one per file (ten
/// for a compact part, two per column for a wide one). Nothing is renamed until all of
/// them returned, so the durability contract is the same as fsyncing one by one.
fn sync_all_concurrently(files: &[(&str, &File)]) -> Result<()> {
    let sync = |group: &[(&str, &File)]| -> Result<()> {
        for (name, file) in group {
            file.sync_all().with_code(ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR, || format!("Cannot fsync {name}"))?;
        }
        Ok(())
    };
    if files.len() <= 1 {
        return sync(files);
    }
    let per_thread = files.len().div_ceil(MAX_CONCURRENT_FSYNCS);
    std::thread::scope(|scope| {
        let mut groups = files.chunks(per_thread);
        // The caller's thread takes the first group itself.
        let first = groups.next().unwrap_or_default();
        let mut spawned = Vec::new();
        let mut result = Ok(());
        for group in groups {
            match std::thread::Builder::new().name("part-fsync".into()).spawn_scoped(scope, move || sync(group)) {
                Ok(handle) => spawned.push(handle),
                // No thread to be had: this one does the work.
                Err(_) => result = result.and_then(|_| sync(group)),
            }
        }
        result = result.and_then(|_| sync(first));
        for handle in spawned {
            let outcome = handle.join().unwrap_or_else(|payload| Err(Error::from_panic(payload.as_ref())));
            if result.is_ok() {
                result = outcome;
            }
        }
        result
    })
}

/// Folds a granule's column into a running (min, max), ignoring NULLs. Uses the row
/// format so every orderable type is handled the same way.
pub(crate) fn merge_minmax(current: Option<(ArrayRef, ArrayRef)>, column: &ArrayRef) -> Result<Option<(ArrayRef, ArrayRef)>> {
    let non_null = if column.null_count() > 0 { filter(column, &is_not_null(column)?)? } else { column.clone() };
    let mut candidates: Vec<&dyn Array> = vec![non_null.as_ref()];
    if let Some((min, max)) = &current {
        candidates.push(min.as_ref());
        candidates.push(max.as_ref());
    }
    let all = concat(&candidates)?;
    if all.is_empty() {
        return Ok(current);
    }
    let converter = RowConverter::new(vec![SortField::new(all.data_type().clone())])?;
    let rows = converter.convert_columns(std::slice::from_ref(&all))?;
    let (mut lo, mut hi) = (0, 0);
    for i in 1..rows.num_rows() {
        if rows.row(i) < rows.row(lo) {
            lo = i;
        }
        if rows.row(i) > rows.row(hi) {
            hi = i;
        }
    }
    Ok(Some((all.slice(lo, 1), all.slice(hi, 1))))
}

/// Writes one column of an existing part into `dir` (the new part being made from it by
/// hard links): `values` (one per row of the part) in the granules `granule_starts`
/// gives, as `PartWriter` writes a wide column, `.bin` and `.mrk` fsynced. Returns
/// their `checksums.txt` lines.
pub fn write_column_file(dir: &Path, name: &str, granule_starts: &[u64], values: &ArrayRef, codec: &ColumnCodec) -> Result<String> {
    let bin_name = bin_file_name(PartLayout::Wide, name);
    let mut file = BinFile { name: bin_name.clone(), file: File::create(dir.join(&bin_name)).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot create {}", dir.join(&bin_name).display()))?, hasher: Xxh3::new(), len: 0, uncompressed: 0, packing_saved: 0 };
    let mut column = ColumnWriter { file: 0, compressor: BlockCompressor::new(codec.block), values: value_coding(codec), packing_saved: 0, buf: Vec::new(), marks: Vec::new(), unwritten_marks: 0 };
    let min_block = MergeTreeSettings::default().min_compress_block_size as usize;
    for granule in granule_starts.windows(2) {
        let rows = (granule[1] - granule[0]) as usize;
        let start = column.start_granule();
        column.packing_saved += crate::encoding::encode_array(values.slice(granule[0] as usize, rows).as_ref(), &mut column.buf, column.values)? as u64;
        column.marks.push(Mark { block_offset: 0, offset_in_block: start as u64, rows: rows as u64 });
        column.unwritten_marks += 1;
        if column.buf.len() >= min_block {
            column.flush_block(&mut file)?;
        }
    }
    column.flush_block(&mut file)?;
    file.file.sync_all().with_code(ErrorCode::CANNOT_FSYNC, || format!("Cannot fsync {bin_name}"))?;
    let marks = encode_marks(&column.marks);
    let mark_name = mark_file_name(PartLayout::Wide, name);
    write_unsynced(&dir.join(&mark_name), &marks)?.sync_all().with_code(ErrorCode::CANNOT_FSYNC, || format!("Cannot fsync {mark_name}"))?;
    Ok(format!(
        "{bin_name}\t{}\t{:016x}\t{}\n{mark_name}\t{}\t{:016x}\n",
        file.len,
        file.hasher.digest(),
        file.uncompressed + column.packing_saved,
        marks.len(),
        xxh3_64(&marks)
    ))
}

/// Renames a finished temporary part into place, durably.
pub fn commit_part_dir(tmp: &Path, final_dir: &Path, sync: PartSync) -> Result<()> {
    match sync.directories {
        true => granary_storage::fs::rename_durable(tmp, final_dir),
        false => std::fs::rename(tmp, final_dir)
            .with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot rename {} to {}", tmp.display(), final_dir.display())),
    }
}

/// What of a new part is fsynced before and after it is renamed into place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartSync {
    /// Every file of the part, before the rename.
    pub files: bool,
    /// The part's directory before the rename, the table directory after it.
    pub directories: bool,
}

impl PartSync {
    /// Merged and mutated parts: their sources are dropped once they are in, so they are
    /// always durable first.
    pub const FULL: PartSync = PartSync { files: true, directories: true };

    /// An inserted part, as the table's `fsync_after_insert` / `fsync_part_directory` say.
    pub fn for_insert(settings: &MergeTreeSettings) -> PartSync {
        PartSync { files: settings.fsync_after_insert != 0, directories: settings.fsync_part_directory != 0 }
    }
}

