//! What every text input format shares: the column builders of the current block, row
//! numbering for error messages, bad-row accounting, and the streaming driver.

use std::sync::Arc;

use arrow::array::{AsArray, RecordBatchOptions};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, Result};
use granary_types::text::ColumnBuilder;

use crate::FormatSettings;

/// The block being built: one builder per target column.
pub(crate) struct Block {
    schema: SchemaRef,
    text: granary_types::text::TextOptions,
    pub builders: Vec<ColumnBuilder>,
    /// Finished rows in the current block.
    rows: usize,
    max_block_rows: usize,
    /// 1-based number of the row being read (rows before it, good or bad, counted).
    pub row_number: u64,
    errors: u64,
    allow_errors_num: u64,
    allow_errors_ratio: f64,
    /// String bytes per row of each column in the last parallel round (0: not a
    /// String column), to size the next round's builders.
    string_bytes_per_row: Vec<f64>,
}

impl Block {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Result<Self> {
        let builders = schema.fields().iter().map(|f| ColumnBuilder::new(f, &settings.text)).collect::<Result<Vec<_>>>()?;
        Ok(Block {
            schema,
            text: settings.text.clone(),
            builders,
            rows: 0,
            max_block_rows: settings.max_block_rows.max(1),
            row_number: 0,
            errors: 0,
            allow_errors_num: settings.allow_errors_num,
            allow_errors_ratio: settings.allow_errors_ratio,
            string_bytes_per_row: Vec::new(),
        })
    }

    /// An empty block of the same columns and limits for a parallel parser whose first
    /// row is row `row_number + 1` of the input and which reads about `rows` rows.
    fn fork(&self, row_number: u64, rows: u64) -> Result<Block> {
        let mut builders = self.schema.fields().iter().map(|f| ColumnBuilder::new(f, &self.text)).collect::<Result<Vec<_>>>()?;
        let rows = (rows as usize).min(self.max_block_rows);
        for (builder, per_row) in builders.iter_mut().zip(&self.string_bytes_per_row) {
            if *per_row > 0.0 {
                // A little more than the last round's average: strings vary in length.
                builder.reserve(rows, (per_row * rows as f64 * 1.125) as usize);
            }
        }
        Ok(Block {
            schema: Arc::clone(&self.schema),
            text: self.text.clone(),
            builders,
            rows: 0,
            max_block_rows: self.max_block_rows,
            row_number,
            errors: self.errors,
            allow_errors_num: self.allow_errors_num,
            allow_errors_ratio: self.allow_errors_ratio,
            string_bytes_per_row: Vec::new(),
        })
    }

    /// Remembers the String columns' bytes per row of a parallel round's batches.
    fn learn_string_sizes(&mut self, batches: &[RecordBatch]) {
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        if rows == 0 {
            return;
        }
        self.string_bytes_per_row = (0..self.schema.fields().len())
            .map(|c| {
                let bytes: usize = batches.iter().filter_map(|b| b.column(c).as_string_opt::<i32>()).map(|s| s.value_data().len()).sum();
                bytes as f64 / rows as f64
            })
            .collect();
    }

    pub fn column_name(&self, column: usize) -> &str {
        self.schema.fields().get(column).map_or("", |f| f.name().as_str())
    }

    pub fn column_count(&self) -> usize {
        self.builders.len()
    }

    /// Starts reading the next row.
    pub fn begin_row(&mut self) {
        self.row_number += 1;
    }

    /// The row was read completely: count it and cut a batch when the block is full.
    pub fn commit_row(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.rows += 1;
        if self.rows >= self.max_block_rows {
            self.flush(out)?;
        }
        Ok(())
    }

    /// `n` rows were read at once (columnar formats): count them, and cut a batch when
    /// the block is full.
    pub fn commit_rows(&mut self, n: usize, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.rows += n;
        if self.rows >= self.max_block_rows {
            self.flush(out)?;
        }
        Ok(())
    }

    /// The row failed: its values are dropped, and the error is returned unless
    /// `input_format_allow_errors_num`/`_ratio` let it be skipped (both are exceeded
    /// for the error to stop the input, as in ClickHouse).
    pub fn fail_row(&mut self, error: Error) -> Result<()> {
        for b in &mut self.builders {
            b.truncate(self.rows);
        }
        self.errors += 1;
        let ratio = self.errors as f64 / self.row_number.max(1) as f64;
        if self.errors > self.allow_errors_num && ratio > self.allow_errors_ratio {
            return Err(error);
        }
        Ok(())
    }

    /// `error` while reading column `column` of the current row, with the row and column
    /// named as ClickHouse does.
    pub fn column_error(&self, error: Error, column: usize) -> Error {
        let context = format!("(at row {}, column '{}')", self.row_number, self.column_name(column));
        error.context(context)
    }

    /// `error` about the current row as a whole.
    pub fn row_error(&self, error: Error) -> Error {
        let context = format!("(at row {})", self.row_number);
        error.context(context)
    }

    /// Emits the rows read so far as a batch.
    pub fn flush(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let columns = self.builders.iter_mut().map(|b| b.finish()).collect::<Result<Vec<_>>>()?;
        let options = RecordBatchOptions::new().with_row_count(Some(self.rows));
        out.push(RecordBatch::try_new_with_options(Arc::clone(&self.schema), columns, &options)?);
        self.rows = 0;
        Ok(())
    }
}

/// One parallel parser's work: `rows` of `data` into `block`. Returns the batches and
/// the block's error count.
fn parse_rows<F: RowFormat>(mut format: F, mut block: Block, data: &[u8], rows: &[(usize, usize)]) -> Result<(Vec<RecordBatch>, u64)> {
    let mut out = Vec::new();
    for &(start, end) in rows {
        block.begin_row();
        if let Err(e) = format.parse_row(&data[start..end], &mut block, &mut out) {
            if e.code() == granary_common::ErrorCode::SYNTAX_ERROR {
                return Err(e);
            }
            block.fail_row(e)?;
        }
    }
    block.flush(&mut out)?;
    Ok((out, block.errors))
}

/// One parallel parser's work when it finds the rows itself: `data` is whole rows.
fn parse_chunk<F: RowFormat>(mut format: F, mut block: Block, data: &[u8]) -> Result<(Vec<RecordBatch>, u64)> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        match format.scan(data, pos, true)? {
            Scan::Row { start, end, next } => {
                block.begin_row();
                if let Err(e) = format.parse_row(&data[start..end], &mut block, &mut out) {
                    if e.code() == granary_common::ErrorCode::SYNTAX_ERROR {
                        return Err(e);
                    }
                    block.fail_row(e)?;
                }
                pos = next;
            }
            Scan::Skip { next } => pos = next,
            Scan::NeedMore { .. } => {
                return Err(Error::new(granary_common::ErrorCode::LOGICAL_ERROR, "A chunk of whole rows for parallel parsing ends inside a row"));
            }
        }
    }
    block.flush(&mut out)?;
    Ok((out, block.errors))
}

/// Where a scanner stands on the data after the last row it found.
pub(crate) enum Scan {
    /// A row is in `data[start..end]`; the next one is looked for from `next`.
    Row { start: usize, end: usize, next: usize },
    /// Only separators or nothing left: everything before `next` is consumed.
    Skip { next: usize },
    /// The row that starts at `start` is not complete yet.
    NeedMore { start: usize },
}

/// One text format: finds rows and parses them.
pub(crate) trait RowFormat: Send {
    /// Looks for the next row in `data[from..]`. `eof`: no more data will come, so an
    /// unterminated last row is complete. Scanners may keep state between calls that
    /// return `NeedMore` (the data then starts again at the same row start).
    fn scan(&mut self, data: &[u8], from: usize, eof: bool) -> Result<Scan>;
    /// Parses one complete row (without its terminator) into `block`.
    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()>;
    /// Cuts whole rows for a parallel parser from `data[from..]` (`from`: a row start,
    /// no header lines left): the start of the first row that begins at least
    /// `min_bytes` after `from` (or after the last complete row, when the data ends
    /// first), and how many rows `scan` finds before it. Formats that can do this faster
    /// than `scan` (no field splitting, no row bookkeeping) let each parallel parser
    /// scan its own chunk; the others (`None`) have their rows found by `scan` on one
    /// thread. Any scan in progress is forgotten.
    fn whole_rows(&mut self, _data: &[u8], _from: usize, _min_bytes: usize) -> Option<(usize, u64)> {
        None
    }
    /// Whether the rows still to come are header lines (they are parsed, not counted).
    fn in_header(&self) -> bool {
        false
    }
    /// The error for input that ends inside a row (`rest`: the unfinished row).
    fn truncated_row_error(&self, rest: &[u8]) -> Error {
        Error::new(
            granary_common::ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
            format!("Cannot parse input: unexpected end of data in: '{}'", granary_types::text::escape::shorten(rest)),
        )
    }
}

/// The most input bytes one parallel round holds.
const MAX_PARALLEL_ROUND_BYTES: usize = 256 << 20;

/// How one stream is parsed on several threads (`input_format_parallel_parsing`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parallelism {
    pub threads: usize,
    /// Bytes of whole rows each thread gets at least (`min_chunk_bytes_for_parallel_parsing`).
    pub chunk_bytes: usize,
}

impl Parallelism {
    pub fn from_settings(settings: &FormatSettings) -> Self {
        let chunk_bytes = settings.min_chunk_bytes_for_parallel_parsing.max(1);
        // Bytes gathered for one round stay under a fixed budget however many cores.
        let threads = settings.parsing_threads.clamp(1, (MAX_PARALLEL_ROUND_BYTES / chunk_bytes).max(1));
        Parallelism { threads, chunk_bytes }
    }

    fn enabled(&self) -> bool {
        self.threads > 1
    }

    /// Bytes worth parsing in parallel: a chunk for every thread.
    fn batch_bytes(&self) -> usize {
        self.chunk_bytes.saturating_mul(self.threads)
    }
}

/// Drives a [`RowFormat`] over pushed bytes.
///
/// With [`Parallelism`], bytes are gathered until every thread can get a chunk; one
/// sequential pass then cuts them into one chunk of whole rows per thread
/// ([`RowFormat::whole_rows`]: quotes and line feeds only, rows counted; or, for other
/// formats, the rows found by `scan`), the chunks are parsed by copies of the format
/// into their own blocks on scoped threads, and the batches emitted in input order.
/// Row numbers in errors stay those of the whole input.
pub(crate) struct Streamer<F: RowFormat + Clone> {
    pub format: F,
    pub block: Block,
    /// The unfinished row carried over from the previous push (or, when parsing in
    /// parallel, the bytes gathered for the next parallel round).
    pending: Vec<u8>,
    parallelism: Parallelism,
}

impl<F: RowFormat + Clone> Streamer<F> {
    pub fn new(format: F, block: Block, parallelism: Parallelism) -> Self {
        Streamer { format, block, pending: Vec::new(), parallelism }
    }

    /// Parses every complete row of `data`; returns how many bytes were consumed.
    fn consume(&mut self, data: &[u8], eof: bool, out: &mut Vec<RecordBatch>) -> Result<usize> {
        let mut pos = 0;
        if self.parallelism.enabled() && !self.format.in_header() && data.len() >= 2 * self.parallelism.chunk_bytes {
            match self.consume_chunks(data, out)? {
                // The rest (an unfinished row, or the last rows at the end) is read below.
                Some(end) => pos = end,
                None => return self.consume_parallel(data, eof, out),
            }
        }
        loop {
            match self.format.scan(data, pos, eof)? {
                Scan::Row { start, end, next } => {
                    let header = self.format.in_header();
                    if !header {
                        self.block.begin_row();
                    }
                    let row = &data[start..end];
                    if let Err(e) = self.format.parse_row(row, &mut self.block, out) {
                        // Header errors and expressions (the caller's cue to evaluate
                        // Values as SQL) are never skipped as bad rows.
                        if header || e.code() == granary_common::ErrorCode::SYNTAX_ERROR {
                            return Err(e);
                        }
                        self.block.fail_row(e)?;
                    }
                    pos = next;
                }
                Scan::Skip { next } => {
                    pos = next;
                    if pos >= data.len() {
                        return Ok(pos);
                    }
                }
                Scan::NeedMore { start } => return Ok(start),
            }
        }
    }

    /// Parses the whole rows of `data` in parallel chunks that the parsers scan
    /// themselves. Returns where the whole rows end, or `None` when the format cannot
    /// cut chunks this way.
    fn consume_chunks(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<Option<usize>> {
        let target = data.len() / self.parallelism.threads + 1;
        let mut chunks: Vec<(usize, usize, u64)> = Vec::with_capacity(self.parallelism.threads + 1);
        let mut pos = 0;
        while pos < data.len() {
            let Some((next, rows)) = self.format.whole_rows(data, pos, target) else {
                return Ok(None);
            };
            if next == pos {
                break;
            }
            chunks.push((pos, next, rows));
            pos = next;
        }
        // Rows parsed before this round go out first.
        self.block.flush(out)?;
        let mut first_row = self.block.row_number;
        let mut jobs = Vec::with_capacity(chunks.len());
        for &(start, end, rows) in &chunks {
            jobs.push((self.format.clone(), self.block.fork(first_row, rows)?, &data[start..end]));
            first_row += rows;
        }
        self.run_parallel(jobs, first_row, |(format, block, chunk)| parse_chunk(format, block, chunk), out)?;
        Ok(Some(pos))
    }

    /// Runs one parser per job on scoped threads, collects their batches in order and
    /// their bad rows; `last_row`: the number of the last row of the round.
    fn run_parallel<J: Send>(&mut self, jobs: Vec<J>, last_row: u64, parse: impl Fn(J) -> Result<(Vec<RecordBatch>, u64)> + Sync, out: &mut Vec<RecordBatch>) -> Result<()> {
        let errors_before = self.block.errors;
        let parse = &parse;
        let results: Vec<Result<(Vec<RecordBatch>, u64)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = jobs.into_iter().map(|job| scope.spawn(granary_profiler::carry(move || parse(job)))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(Error::new(granary_common::ErrorCode::LOGICAL_ERROR, "a parsing thread panicked"))))
                .collect()
        });
        let first_batch = out.len();
        for result in results {
            let (batches, errors) = result?;
            out.extend(batches);
            self.block.errors += errors - errors_before;
        }
        self.block.learn_string_sizes(&out[first_batch..]);
        self.block.row_number = last_row;
        if self.block.errors > self.block.allow_errors_num && self.block.errors as f64 / self.block.row_number.max(1) as f64 > self.block.allow_errors_ratio {
            return Err(Error::new(granary_common::ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Too many bad rows: {} of {}", self.block.errors, self.block.row_number)));
        }
        Ok(())
    }

    fn consume_parallel(&mut self, data: &[u8], eof: bool, out: &mut Vec<RecordBatch>) -> Result<usize> {
        // Row boundaries, cut into one chunk per thread.
        let target = data.len() / self.parallelism.threads + 1;
        let mut chunks: Vec<Vec<(usize, usize)>> = Vec::with_capacity(self.parallelism.threads);
        let mut current: Vec<(usize, usize)> = Vec::new();
        let mut chunk_start = 0;
        let mut pos = 0;
        loop {
            match self.format.scan(data, pos, eof)? {
                Scan::Row { start, end, next } => {
                    current.push((start, end));
                    pos = next;
                    if next - chunk_start >= target {
                        chunks.push(std::mem::take(&mut current));
                        chunk_start = next;
                    }
                }
                Scan::Skip { next } => {
                    pos = next;
                    if pos >= data.len() {
                        break;
                    }
                }
                Scan::NeedMore { start } => {
                    pos = start;
                    break;
                }
            }
        }
        if !current.is_empty() {
            chunks.push(current);
        }
        // Rows parsed before this round go out first.
        self.block.flush(out)?;
        let mut first_row = self.block.row_number;
        let mut jobs = Vec::with_capacity(chunks.len());
        for rows in &chunks {
            jobs.push((self.format.clone(), self.block.fork(first_row, rows.len() as u64)?, rows.as_slice()));
            first_row += rows.len() as u64;
        }
        self.run_parallel(jobs, first_row, |(format, block, rows)| parse_rows(format, block, data, rows), out)?;
        Ok(pos)
    }

    pub fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.parallelism.enabled() && !self.format.in_header() && self.pending.len() + data.len() < self.parallelism.batch_bytes() {
            // Gather until every thread can get a chunk.
            self.pending.extend_from_slice(data);
            return Ok(());
        }
        if self.pending.is_empty() {
            // The common case: parse straight from the caller's slice, keep the tail.
            let consumed = self.consume(data, false, out)?;
            self.pending.extend_from_slice(&data[consumed..]);
        } else {
            let mut pending = std::mem::take(&mut self.pending);
            pending.extend_from_slice(data);
            let consumed = self.consume(&pending, false, out);
            let consumed = match consumed {
                Ok(c) => c,
                Err(e) => {
                    self.pending = pending;
                    return Err(e);
                }
            };
            pending.drain(..consumed);
            self.pending = pending;
        }
        Ok(())
    }

    pub fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        let pending = std::mem::take(&mut self.pending);
        let consumed = self.consume(&pending, true, out)?;
        if consumed < pending.len() {
            // The scanner saw the end of the input and still found no complete row.
            // The unfinished row was never begun: it is the one after the last row read.
            let error = self.format.truncated_row_error(&pending[consumed..]);
            return Err(error.context(format!("(at row {})", self.block.row_number + 1)));
        }
        self.block.flush(out)
    }
}
