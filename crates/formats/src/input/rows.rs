//! What every text input format shares: the column builders of the current block, row
//! numbering for error messages, bad-row accounting, and the streaming driver.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

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
    /// String bytes per row of each column in the last chunk parsed in parallel (0: not
    /// a String column), to size the next chunks' builders.
    string_bytes_per_row: Vec<f64>,
    /// Set when the stream a parallel parser works for was abandoned.
    cancelled: Option<Arc<AtomicBool>>,
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
            cancelled: None,
        })
    }

    pub(crate) fn cancelled(&self) -> bool {
        self.cancelled.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// An empty block of the same columns and limits for a parallel parser whose first
    /// row is row `row_number + 1` of the input and which reads about `rows` rows.
    fn fork(&self, row_number: u64, rows: u64, cancelled: &Arc<AtomicBool>) -> Result<Block> {
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
            cancelled: Some(Arc::clone(cancelled)),
        })
    }

    /// Remembers the String columns' bytes per row of a parsed chunk's batches.
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

    /// How many more rows the current block takes before it is cut.
    pub fn room(&self) -> usize {
        self.max_block_rows.saturating_sub(self.rows).max(1)
    }

    /// Drops the values appended after the last committed row (rows parsed column by
    /// column that failed, to be parsed again row by row).
    pub fn drop_uncommitted(&mut self) {
        for b in &mut self.builders {
            b.truncate(self.rows);
        }
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

/// How many rows a parser reads between looks at whether its stream was abandoned.
const CANCEL_CHECK_ROWS: u64 = 4096;

pub(crate) fn cancelled_error() -> Error {
    Error::new(granary_common::ErrorCode::QUERY_WAS_CANCELLED, "Parsing was cancelled")
}

/// Parses the row `data[start..end]` into `block` as the parallel parsers do: a bad row
/// is skipped when the allowances permit, an expression (`SYNTAX_ERROR`) never is.
fn parse_one_row<F: RowFormat>(format: &mut F, block: &mut Block, row: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
    block.begin_row();
    if let Err(e) = format.parse_row(row, block, out) {
        if e.code() == granary_common::ErrorCode::SYNTAX_ERROR {
            return Err(e);
        }
        block.fail_row(e)?;
    }
    if block.row_number % CANCEL_CHECK_ROWS == 0 && block.cancelled() {
        return Err(cancelled_error());
    }
    Ok(())
}

/// One parallel parser's work: `rows` of `data` into `block`. Returns the batches and
/// how many of the rows were bad.
fn parse_rows<F: RowFormat>(mut format: F, mut block: Block, data: &[u8], rows: &[(usize, usize)]) -> ChunkResult {
    let errors_before = block.errors;
    let mut out = Vec::new();
    for &(start, end) in rows {
        parse_one_row(&mut format, &mut block, &data[start..end], &mut out)?;
    }
    block.flush(&mut out)?;
    Ok((out, block.errors - errors_before))
}

/// One parallel parser's work when it finds the rows itself: `data` is whole rows.
fn parse_chunk<F: RowFormat>(mut format: F, mut block: Block, data: &[u8]) -> ChunkResult {
    let errors_before = block.errors;
    let mut out = Vec::new();
    let mut pos = format.parse_columns(data, &mut block, &mut out)?;
    while pos < data.len() {
        match format.scan(data, pos, true)? {
            Scan::Row { start, end, next } => {
                parse_one_row(&mut format, &mut block, &data[start..end], &mut out)?;
                pos = next;
            }
            Scan::Skip { next } => pos = next,
            Scan::NeedMore { .. } => {
                return Err(Error::new(granary_common::ErrorCode::LOGICAL_ERROR, "A chunk of whole rows for parallel parsing ends inside a row"));
            }
        }
    }
    block.flush(&mut out)?;
    Ok((out, block.errors - errors_before))
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
    /// Parses the first rows of `data` (whole rows, no header lines) column by column,
    /// committing them to `block`, as far as the format can do it with the results
    /// `parse_row` would give; returns where row-by-row parsing goes on (0: nothing
    /// parsed). Rows that fail are left to `parse_row`, which reports them.
    fn parse_columns(&mut self, _data: &[u8], _block: &mut Block, _out: &mut Vec<RecordBatch>) -> Result<usize> {
        Ok(0)
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

/// The most input bytes the chunks in flight of one stream may hold.
const MAX_IN_FLIGHT_BYTES: usize = 256 << 20;

/// How one stream is parsed on several threads (`input_format_parallel_parsing`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parallelism {
    pub threads: usize,
    /// Bytes of whole rows each chunk gets at least (`min_chunk_bytes_for_parallel_parsing`).
    pub chunk_bytes: usize,
}

impl Parallelism {
    pub fn from_settings(settings: &FormatSettings) -> Self {
        let chunk_bytes = settings.min_chunk_bytes_for_parallel_parsing.max(1);
        // The chunks in flight stay under a fixed budget however many cores.
        let threads = settings.parsing_threads.clamp(1, (MAX_IN_FLIGHT_BYTES / chunk_bytes / CHUNKS_IN_FLIGHT_PER_THREAD).max(1));
        Parallelism { threads, chunk_bytes }
    }

    fn enabled(&self) -> bool {
        self.threads > 1
    }

    /// Bytes past a chunk's minimum before it is cut: the row that crosses the minimum
    /// has then most likely arrived, so the cut is rarely tried in vain.
    fn cut_slack(&self) -> usize {
        (self.chunk_bytes / 16).min(64 << 10)
    }

    /// How much more data a failed cut waits for (a row longer than the slack).
    fn cut_retry_growth(&self) -> usize {
        (self.chunk_bytes / 8).max(1)
    }
}

/// Chunks a stream may have handed to its parsers and not yet emitted, per thread: one
/// being parsed, one queued so a parser never waits for the cutter.
const CHUNKS_IN_FLIGHT_PER_THREAD: usize = 2;

/// A chunk's batches and how many of its rows were bad.
type ChunkResult = Result<(Vec<RecordBatch>, u64)>;
type ChunkJob = Box<dyn FnOnce() -> ChunkResult + Send>;

/// The parser threads of one stream: chunks go in numbered, results come back in any
/// order and are put back in input order by [`Streamer`].
struct Pipeline {
    jobs: mpsc::Sender<(u64, ChunkJob)>,
    results: mpsc::Receiver<(u64, ChunkResult)>,
    /// Tells the parsers to drop their work: the stream was abandoned.
    cancelled: Arc<AtomicBool>,
    /// Number of the next chunk handed out.
    next_job: u64,
    /// Number of the next chunk whose batches are emitted.
    next_emitted: u64,
    /// For each chunk handed out and not yet emitted, oldest first: its last row number.
    last_rows: VecDeque<u64>,
    /// Results that came back before an older chunk's.
    finished: BTreeMap<u64, ChunkResult>,
    max_in_flight: usize,
}

impl Pipeline {
    fn start(threads: usize) -> Result<Pipeline> {
        let (jobs, job_queue) = mpsc::channel::<(u64, ChunkJob)>();
        let (result_sender, results) = mpsc::channel();
        let job_queue = Arc::new(Mutex::new(job_queue));
        let cancelled = Arc::new(AtomicBool::new(false));
        for _ in 0..threads {
            let (job_queue, result_sender, cancelled) = (Arc::clone(&job_queue), result_sender.clone(), Arc::clone(&cancelled));
            std::thread::Builder::new()
                .name("granary-parse".into())
                .spawn(move || parse_jobs(&job_queue, &result_sender, &cancelled))
                .map_err(|e| Error::new(granary_common::ErrorCode::CANNOT_SCHEDULE_TASK, format!("Cannot start a parsing thread: {e}")))?;
        }
        Ok(Pipeline {
            jobs,
            results,
            cancelled,
            next_job: 0,
            next_emitted: 0,
            last_rows: VecDeque::new(),
            finished: BTreeMap::new(),
            max_in_flight: threads * CHUNKS_IN_FLIGHT_PER_THREAD,
        })
    }

    fn submit(&mut self, job: ChunkJob, last_row: u64) -> Result<()> {
        self.jobs.send((self.next_job, job)).map_err(|_| parsers_stopped())?;
        self.next_job += 1;
        self.last_rows.push_back(last_row);
        Ok(())
    }

    /// The oldest chunk's result and last row number, if it is there (or, `wait`, once it is).
    fn next_result(&mut self, wait: bool) -> Result<Option<(ChunkResult, u64)>> {
        loop {
            let Some(&last_row) = self.last_rows.front() else { return Ok(None) };
            if let Some(result) = self.finished.remove(&self.next_emitted) {
                self.last_rows.pop_front();
                self.next_emitted += 1;
                return Ok(Some((result, last_row)));
            }
            let (number, result) = if wait {
                self.results.recv().map_err(|_| parsers_stopped())?
            } else {
                match self.results.try_recv() {
                    Ok(received) => received,
                    Err(mpsc::TryRecvError::Empty) => return Ok(None),
                    Err(mpsc::TryRecvError::Disconnected) => return Err(parsers_stopped()),
                }
            };
            self.finished.insert(number, result);
        }
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        // The parsers stop within a few thousand rows and exit once the queue is closed
        // (when `jobs` is dropped); nobody waits for them.
        self.cancelled.store(true, Ordering::Relaxed);
    }
}

fn parsers_stopped() -> Error {
    Error::new(granary_common::ErrorCode::LOGICAL_ERROR, "The parsing threads stopped unexpectedly")
}

/// A parser thread: parses chunks until the stream closes its queue.
fn parse_jobs(job_queue: &Mutex<mpsc::Receiver<(u64, ChunkJob)>>, results: &mpsc::Sender<(u64, ChunkResult)>, cancelled: &AtomicBool) {
    loop {
        let next = match job_queue.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => return,
        };
        let Ok((number, job)) = next else { return };
        if cancelled.load(Ordering::Relaxed) {
            continue;
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job))
            .unwrap_or_else(|_| Err(Error::new(granary_common::ErrorCode::LOGICAL_ERROR, "a parsing thread panicked")));
        if results.send((number, result)).is_err() {
            return;
        }
    }
}

/// Drives a [`RowFormat`] over pushed bytes.
///
/// With [`Parallelism`], parsing is a pipeline: each push appends to `pending` and cuts
/// off chunks of whole rows as soon as `chunk_bytes` of them are there
/// ([`RowFormat::whole_rows`]: quotes and line feeds only, rows counted; or, for other
/// formats, the rows `scan` finds, scanned as the bytes arrive). A pool of parser
/// threads parses the chunks, each with a copy of the format into its own block, while
/// the caller pushes more; finished chunks are emitted in input order by the pushes
/// that follow, and a push waits only when `CHUNKS_IN_FLIGHT_PER_THREAD` chunks per
/// thread are out (that bounds the memory). Header lines and the rows of a stream
/// smaller than a chunk are parsed on the caller's thread. Row numbers in errors stay
/// those of the whole input: each chunk's first row number is known when it is cut.
pub(crate) struct Streamer<F: RowFormat + Clone + 'static> {
    pub format: F,
    pub block: Block,
    /// The unfinished row carried over from the previous push (or, when parsing in
    /// parallel, the bytes not yet cut into chunks).
    pending: Vec<u8>,
    parallelism: Parallelism,
    pipeline: Option<Pipeline>,
    /// `pending`'s length from which cutting chunks is tried (again).
    cut_from: usize,
    /// Formats without `whole_rows`: the rows `scan` found in `pending[..scan_pos]`,
    /// not yet handed out.
    scanned_rows: Vec<(usize, usize)>,
    scan_pos: usize,
    /// Buffers of chunks already cut, kept for `pending` to reuse once their parsers are
    /// done: a fresh chunk-sized buffer may come from the allocator as untouched pages,
    /// each faulted in on its first write.
    used_buffers: Vec<Arc<Vec<u8>>>,
}

impl<F: RowFormat + Clone + 'static> Streamer<F> {
    pub fn new(format: F, block: Block, parallelism: Parallelism) -> Self {
        let cut_from = parallelism.chunk_bytes + parallelism.cut_slack();
        Streamer { format, block, pending: Vec::new(), parallelism, pipeline: None, cut_from, scanned_rows: Vec::new(), scan_pos: 0, used_buffers: Vec::new() }
    }

    /// Parses every complete row of `data` on this thread; returns how many bytes were
    /// consumed. When parsing in parallel, it stops after the header lines.
    fn consume(&mut self, data: &[u8], eof: bool, out: &mut Vec<RecordBatch>) -> Result<usize> {
        let mut pos = 0;
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
                    if header && !eof && self.parallelism.enabled() && !self.format.in_header() {
                        return Ok(pos);
                    }
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

    /// Parses on this thread what `pending` holds, keeping the unfinished tail.
    fn consume_pending(&mut self, eof: bool, out: &mut Vec<RecordBatch>) -> Result<()> {
        let mut pending = std::mem::take(&mut self.pending);
        let consumed = self.consume(&pending, eof, out);
        let consumed = match consumed {
            Ok(c) => c,
            Err(e) => {
                self.pending = pending;
                return Err(e);
            }
        };
        pending.drain(..consumed);
        self.pending = pending;
        Ok(())
    }

    pub fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.parallelism.enabled() {
            self.pending.extend_from_slice(data);
            if self.format.in_header() {
                self.consume_pending(false, out)?;
            }
            if !self.format.in_header() && self.pending.len() >= self.cut_from {
                self.cut_chunks(false, out)?;
            }
            return self.emit_finished(out, usize::MAX);
        }
        if self.pending.is_empty() {
            // The common case: parse straight from the caller's slice, keep the tail.
            let consumed = self.consume(data, false, out)?;
            self.pending.extend_from_slice(&data[consumed..]);
            return Ok(());
        }
        self.pending.extend_from_slice(data);
        self.consume_pending(false, out)
    }

    pub fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        let parallel_stream = self.pipeline.is_some() || !self.scanned_rows.is_empty() || self.pending.len() >= self.parallelism.chunk_bytes;
        if self.parallelism.enabled() && !self.format.in_header() && parallel_stream {
            self.cut_chunks(true, out)?;
        }
        self.emit_finished(out, 0)?;
        self.consume_pending(true, out)?;
        if !self.pending.is_empty() {
            // The scanner saw the end of the input and still found no complete row.
            // The unfinished row was never begun: it is the one after the last row read.
            let error = self.format.truncated_row_error(&self.pending);
            return Err(error.context(format!("(at row {})", self.block.row_number + 1)));
        }
        self.block.flush(out)
    }

    /// Hands chunks of whole rows of `pending` to the parsers as they are cut: each of
    /// at least `chunk_bytes`, or, `last` (the input ended), every complete row left.
    fn cut_chunks(&mut self, last: bool, out: &mut Vec<RecordBatch>) -> Result<()> {
        let chunk_bytes = self.parallelism.chunk_bytes;
        let min_bytes = if last { usize::MAX } else { chunk_bytes };
        // Shared by the chunks cut from it; only the tail after the last cut is copied.
        let data = Arc::new(std::mem::take(&mut self.pending));
        let mut pos = 0;
        let mut short = false;
        let mut result = Ok(());
        while data.len() > pos {
            let Some((next, rows)) = self.format.whole_rows(&data, pos, min_bytes) else {
                // Nothing was cut yet: `data` is not shared.
                self.pending = Arc::try_unwrap(data).unwrap_or_else(|shared| shared.to_vec());
                return self.cut_scanned_chunks(last, out);
            };
            if next == pos || (!last && next - pos < chunk_bytes) {
                short = true;
                break;
            }
            let chunk = Arc::clone(&data);
            let range = pos..next;
            result = self.submit(rows, out, move |format, block| parse_chunk(format, block, &chunk[range]));
            if result.is_err() {
                break;
            }
            pos = next;
        }
        let tail = data.len() - pos;
        // A cut that found no row end past the minimum waits for more data than a row
        // longer than the slack needs, so long rows are not scanned again and again.
        self.cut_from = if short { (chunk_bytes + self.parallelism.cut_slack()).max(tail + self.parallelism.cut_retry_growth()) } else { chunk_bytes + self.parallelism.cut_slack() };
        // Room for the next chunk, so that gathering it does not copy it again and again.
        let chunk_room = (chunk_bytes + chunk_bytes / 4).min(64 << 20);
        self.pending = self.reusable_buffer(chunk_room.max(tail));
        self.pending.extend_from_slice(&data[pos..]);
        if pos > 0 {
            self.used_buffers.push(data);
        }
        result
    }

    /// An empty buffer of at least `capacity` bytes: a chunk buffer no parser holds any
    /// more, or a new one. The used buffers kept are at most the chunks in flight (their
    /// memory is already counted there) and one more.
    fn reusable_buffer(&mut self, capacity: usize) -> Vec<u8> {
        let max_in_flight = self.pipeline.as_ref().map_or(0, |p| p.max_in_flight);
        let free = self.used_buffers.iter().position(|b| Arc::strong_count(b) == 1);
        let mut buffer = match free.map(|i| Arc::try_unwrap(self.used_buffers.swap_remove(i))) {
            Some(Ok(mut buffer)) => {
                buffer.clear();
                buffer
            }
            _ => Vec::new(),
        };
        buffer.reserve(capacity);
        if self.used_buffers.len() > max_in_flight {
            // Still held by parsers: dropped by them when they finish.
            self.used_buffers.remove(0);
        }
        buffer
    }

    /// [`Self::cut_chunks`] for formats whose rows only `scan` finds: scans on from
    /// where the last push stopped, and hands out the rows found whenever they reach
    /// `chunk_bytes` (at the end of the input, whatever was found).
    fn cut_scanned_chunks(&mut self, last: bool, out: &mut Vec<RecordBatch>) -> Result<()> {
        // Scanned incrementally: no retry threshold.
        self.cut_from = 0;
        loop {
            let scan = match self.format.scan(&self.pending, self.scan_pos, false) {
                Ok(scan) => scan,
                Err(e) => {
                    // Errors in the rows before the one the scanner rejects come first.
                    self.submit_scanned_rows(out)?;
                    self.emit_finished(out, 0)?;
                    return Err(e);
                }
            };
            match scan {
                Scan::Row { start, end, next } => {
                    self.scanned_rows.push((start, end));
                    self.scan_pos = next;
                    if next >= self.parallelism.chunk_bytes {
                        self.submit_scanned_rows(out)?;
                    }
                }
                Scan::Skip { next } => {
                    self.scan_pos = next;
                    if next >= self.pending.len() {
                        break;
                    }
                }
                Scan::NeedMore { start } => {
                    self.scan_pos = start;
                    break;
                }
            }
        }
        if last {
            self.submit_scanned_rows(out)?;
        }
        Ok(())
    }

    /// Hands the rows `scan` found so far to a parser; `pending` then starts where the
    /// scan goes on.
    fn submit_scanned_rows(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        let rows = std::mem::take(&mut self.scanned_rows);
        let rest = self.pending.split_off(self.scan_pos);
        let data = std::mem::replace(&mut self.pending, rest);
        self.scan_pos = 0;
        if rows.is_empty() {
            return Ok(());
        }
        self.submit(rows.len() as u64, out, move |format, block| parse_rows(format, block, &data, &rows))
    }

    /// Hands the next `rows` rows of the input to a parser (`parse`, given a copy of the
    /// format and a block that numbers its rows from the right row), first waiting for
    /// the oldest chunk while too many are out.
    fn submit(&mut self, rows: u64, out: &mut Vec<RecordBatch>, parse: impl FnOnce(F, Block) -> ChunkResult + Send + 'static) -> Result<()> {
        if self.pipeline.is_none() {
            // Rows parsed on this thread go out before any chunk's.
            self.block.flush(out)?;
            self.pipeline = Some(Pipeline::start(self.parallelism.threads)?);
        }
        let max_in_flight = self.pipeline.as_ref().map_or(usize::MAX, |p| p.max_in_flight);
        self.emit_finished(out, max_in_flight.saturating_sub(1))?;
        let Some(pipeline) = self.pipeline.as_mut() else { return Err(parsers_stopped()) };
        let block = self.block.fork(self.block.row_number, rows, &pipeline.cancelled)?;
        self.block.row_number += rows;
        let format = self.format.clone();
        let job = granary_profiler::carry(move || parse(format, block));
        pipeline.submit(Box::new(job), self.block.row_number)
    }

    /// Emits the batches of finished chunks in input order, waiting for the oldest ones
    /// while more than `keep_at_most` chunks are out. Bad rows are counted against the
    /// allowances as each chunk is emitted.
    fn emit_finished(&mut self, out: &mut Vec<RecordBatch>, keep_at_most: usize) -> Result<()> {
        let Some(pipeline) = self.pipeline.as_mut() else { return Ok(()) };
        loop {
            let wait = pipeline.last_rows.len() > keep_at_most;
            let Some((result, last_row)) = pipeline.next_result(wait)? else { return Ok(()) };
            let (batches, errors) = result?;
            self.block.learn_string_sizes(&batches);
            out.extend(batches);
            let block = &mut self.block;
            block.errors += errors;
            if block.errors > block.allow_errors_num && block.errors as f64 / last_row.max(1) as f64 > block.allow_errors_ratio {
                return Err(Error::new(granary_common::ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Too many bad rows: {} of {}", block.errors, last_row)));
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use arrow::compute::concat_batches;
    use arrow::datatypes::Schema;
    use granary_common::{ErrorCode, Settings};
    use granary_types::ChType;

    use super::*;
    use crate::create_input_format;

    fn schema(columns: &[(&str, &str)]) -> SchemaRef {
        Arc::new(Schema::new(columns.iter().map(|(n, t)| ChType::parse(t).unwrap().to_arrow_field(n)).collect::<Vec<_>>()))
    }

    fn settings(threads: usize, chunk_bytes: usize) -> FormatSettings {
        let mut s = FormatSettings::from_settings(&Settings::new(), chrono_tz::Tz::UTC);
        s.parsing_threads = threads;
        s.min_chunk_bytes_for_parallel_parsing = chunk_bytes;
        s.max_block_rows = 1000;
        s
    }

    /// Pushes `data` in pieces of `piece` bytes; the batches, each no larger than a block.
    fn parse(format: &str, schema: &SchemaRef, data: &[u8], piece: usize, settings: &FormatSettings) -> Result<Vec<RecordBatch>> {
        let mut input = create_input_format(format, Arc::clone(schema), settings)?;
        let mut out = Vec::new();
        for chunk in data.chunks(piece.max(1)) {
            input.push(chunk, &mut out)?;
        }
        input.finish(&mut out)?;
        assert!(out.iter().all(|b| b.num_rows() <= settings.max_block_rows));
        Ok(out)
    }

    fn rows(schema: &SchemaRef, batches: &[RecordBatch]) -> RecordBatch {
        concat_batches(schema, batches).unwrap()
    }

    /// CSV rows whose quoted fields hold delimiters, doubled quotes and line feeds, so
    /// that a line feed is often not a row end; row `bad_row` (1-based) has a bad number.
    fn awkward_csv(rows: u64, bad_row: Option<u64>) -> String {
        let mut csv = String::new();
        for i in 0..rows {
            let text = match i % 4 {
                0 => format!("\"multi\nline, {i}\n\""),
                1 => format!("\"a \"\"quote\"\"\n{i}\""),
                2 => String::new(),
                _ => format!("plain{i}"),
            };
            let number = if bad_row == Some(i + 1) { "x".to_string() } else { format!("{}.5", i * 3) };
            csv.push_str(&format!("{i},{text},{number}\n"));
        }
        csv
    }

    #[test]
    fn pipeline_keeps_input_order_for_any_chunk_and_push_size() {
        let schema = schema(&[("id", "UInt64"), ("s", "String"), ("f", "Float64")]);
        let csv = awkward_csv(3_000, None);
        let sequential = rows(&schema, &parse("CSV", &schema, csv.as_bytes(), csv.len(), &settings(1, 1 << 20)).unwrap());
        assert_eq!(sequential.num_rows(), 3_000);
        // Chunks of one byte (a chunk per row), chunks that end inside quoted line feeds,
        // and pushes smaller than a row, of a few rows, and of everything at once.
        for (threads, chunk_bytes) in [(2, 1), (3, 17), (2, 1000), (4, 4096)] {
            for piece in [1, 7, 333, 64 << 10, csv.len()] {
                if chunk_bytes == 1 && piece == 1 {
                    continue; // a cut tried for every byte: slow, and covered by piece 7
                }
                let parallel = parse("CSV", &schema, csv.as_bytes(), piece, &settings(threads, chunk_bytes)).unwrap();
                assert_eq!(rows(&schema, &parallel), sequential, "{threads} threads, chunks of {chunk_bytes}, pushes of {piece}");
            }
        }
    }

    #[test]
    fn pipeline_for_formats_whose_rows_only_scan_finds() {
        let schema = schema(&[("id", "UInt64"), ("s", "String")]);
        let json: String = (0..2_000).map(|i| format!("{{\"id\":{i},\"s\":\"x{{\\\"{i}\\n\"}}\n")).collect();
        let sequential = rows(&schema, &parse("JSONEachRow", &schema, json.as_bytes(), json.len(), &settings(1, 1 << 20)).unwrap());
        assert_eq!(sequential.num_rows(), 2_000);
        for (chunk_bytes, piece) in [(1, 5), (50, 1), (999, 4096), (1 << 20, 100)] {
            let parallel = parse("JSONEachRow", &schema, json.as_bytes(), piece, &settings(3, chunk_bytes)).unwrap();
            assert_eq!(rows(&schema, &parallel), sequential, "chunks of {chunk_bytes}, pushes of {piece}");
        }
        // The scanner's own error comes after the rows before it, and a bad row before it wins.
        let broken = format!("{json}oops\n");
        let e = parse("JSONEachRow", &schema, broken.as_bytes(), 100, &settings(2, 64)).unwrap_err();
        assert!(e.message().contains("expected '{'"), "{}", e.message());
        let first_rows: String = json.split_inclusive('\n').take(1000).collect();
        let bad_first = format!("{first_rows}{{\"id\":-1,\"s\":\"\"}}\n{json}oops\n");
        let e = parse("JSONEachRow", &schema, bad_first.as_bytes(), 100, &settings(2, 64)).unwrap_err();
        assert!(e.message().contains("(at row 1001"), "{}", e.message());
    }

    #[test]
    fn errors_name_the_row_of_the_whole_input_across_chunks() {
        let schema = schema(&[("id", "UInt64"), ("s", "String"), ("f", "Float64")]);
        for bad_row in [1, 2, 999, 1000, 1001, 2000] {
            let data = awkward_csv(2_000, Some(bad_row));
            let sequential = parse("CSV", &schema, data.as_bytes(), data.len(), &settings(1, 1 << 20)).unwrap_err();
            assert!(sequential.message().contains(&format!("(at row {bad_row},")), "{}", sequential.message());
            for (chunk_bytes, piece) in [(1, 7), (100, 1000), (4096, 50)] {
                let parallel = parse("CSV", &schema, data.as_bytes(), piece, &settings(3, chunk_bytes)).unwrap_err();
                assert_eq!(parallel.message(), sequential.message(), "chunks of {chunk_bytes}, pushes of {piece}");
            }
        }
        // The first bad row in input order is reported even when a later chunk fails first.
        let mut tsv = String::new();
        for i in 1..=5_000 {
            tsv.push_str(if i == 100 || i == 4_900 { "oops\n" } else { "1\n" });
        }
        let one = schema_of_one();
        let e = parse("TSV", &one, tsv.as_bytes(), tsv.len(), &settings(4, 64)).unwrap_err();
        assert!(e.message().contains("(at row 100"), "{}", e.message());
    }

    /// CSV of many types with the cases `parse_row` treats specially: empty fields,
    /// `\N`, quoted numbers, doubled quotes, blanks, missing values of Nullable types;
    /// one row in `bad_every` (never when 0) has a value of the wrong type.
    fn typed_csv(rows: u64, bad_every: u64) -> String {
        let mut csv = String::new();
        for i in 0..rows {
            let bad = bad_every > 0 && i % bad_every == bad_every - 1;
            let small = match i % 7 {
                0 => "".to_string(),
                1 => "\"12\"".to_string(),
                2 => " 3 ".to_string(),
                _ => format!("{}", (i % 200) as i64 - 100),
            };
            let nullable_int = match i % 5 {
                0 => "\\N".to_string(),
                1 => "".to_string(),
                _ => format!("{}", i * 1_000_003),
            };
            let text = match i % 6 {
                0 => "\"say \"\"hi\"\"\"".to_string(),
                1 => "".to_string(),
                2 => "\\N".to_string(),
                3 => "\"\\N\"".to_string(),
                _ => format!("\"t{i}, x\""),
            };
            let time = match i % 4 {
                0 => format!("\"2020-01-{:02} 10:11:{:02}\"", 1 + i % 28, i % 60),
                1 => format!("{}", 1_600_000_000 + i),
                2 => "".to_string(),
                _ => "2021-06-01T00:00:00".to_string(),
            };
            let unsigned = if bad { "-5".to_string() } else { format!("{}", i % 300) };
            let array = if i % 3 == 0 { "\"[1,2,3]\"".to_string() } else { "[]".to_string() };
            let wrong = if bad && i % 2 == 0 { ",extra" } else { "" };
            let date = ["2020-02-29", "", "\"2149-06-07\"", "1969-12-31", "2024-01-15"][(i % 5) as usize];
            csv.push_str(&format!("{i},{small},{nullable_int},{text},{text},{time},{unsigned},{array},{:.2},{date},{}{wrong}\n", i as f64 / 3.0, i as f32 * 0.25));
        }
        csv
    }

    /// `typed_csv`'s columns as TSV, with backslash escapes.
    fn typed_tsv(rows: u64, bad_every: u64) -> String {
        let mut tsv = String::new();
        for i in 0..rows {
            let bad = bad_every > 0 && i % bad_every == bad_every - 1;
            let small = ["", "-5", "7", "100"][(i % 4) as usize];
            let nullable_int = match i % 5 {
                0 => "\\N".to_string(),
                1 => "".to_string(),
                _ => format!("{}", i * 1_000_003),
            };
            let text = match i % 6 {
                0 => "tab\\there".to_string(),
                1 => "".to_string(),
                2 => "\\N".to_string(),
                3 => "line\\nnext \\\\ back".to_string(),
                _ => format!("t{i}, x"),
            };
            let time = ["2020-01-02 10:11:12", "1600000000", "", "2021-06-01T00:00:00"][(i % 4) as usize];
            let unsigned = if bad { "-5".to_string() } else { format!("{}", i % 300) };
            let array = ["[1,2,3]", "[]", "\\N"][(i % 3) as usize];
            let wrong = if bad && i % 2 == 0 { "\textra" } else { "" };
            let date = ["2020-02-29", "", "2149-06-07", "1969-12-31", "2024-01-15"][(i % 5) as usize];
            tsv.push_str(&format!("{i}\t{small}\t{nullable_int}\t{text}\t{text}\t{time}\t{unsigned}\t{array}\t{:.2}\t{date}\t{}{wrong}\n", i as f64 / 3.0, i as f32 * 0.25));
        }
        tsv
    }

    #[test]
    fn columns_parsed_at_once_as_rows_parsed_one_by_one() {
        let schema = schema(&[
            ("id", "UInt64"),
            ("small", "Int8"),
            ("n", "Nullable(Int64)"),
            ("s", "String"),
            ("ns", "Nullable(String)"),
            ("t", "DateTime('Asia/Tokyo')"),
            ("u", "UInt16"),
            ("a", "Array(Int32)"),
            ("f", "Float64"),
            ("d", "Date"),
            ("f32", "Float32"),
        ]);
        let cases = [(3_000, 0, 0), (3_000, 997, 0), (3_000, 250, 100)];
        for (format, (rows_count, bad_every, allowed)) in ["CSV", "TSV", "TSVRaw"].into_iter().flat_map(|f| cases.map(|c| (f, c))) {
            let csv = if format == "CSV" { typed_csv(rows_count, bad_every) } else { typed_tsv(rows_count, bad_every) };
            let mut sequential_settings = settings(1, 1 << 20);
            sequential_settings.allow_errors_num = allowed;
            let sequential = parse(format, &schema, csv.as_bytes(), csv.len(), &sequential_settings);
            for (chunk_bytes, piece) in [(100, 1000), (4096, 50), (64 << 10, csv.len())] {
                let mut parallel_settings = settings(2, chunk_bytes);
                parallel_settings.allow_errors_num = allowed;
                let parallel = parse(format, &schema, csv.as_bytes(), piece, &parallel_settings);
                match (&sequential, &parallel) {
                    (Ok(s), Ok(p)) => assert_eq!(rows(&schema, p), rows(&schema, s), "{format}, bad every {bad_every}, chunks of {chunk_bytes}"),
                    (Err(s), Err(p)) => assert_eq!(p.message(), s.message(), "{format}, bad every {bad_every}, chunks of {chunk_bytes}"),
                    _ => panic!("{format}, bad every {bad_every}, chunks of {chunk_bytes}: {:?} against {:?}", parallel.as_ref().map(|b| b.len()), sequential.as_ref().map(|b| b.len())),
                }
            }
            if bad_every == 0 {
                assert_eq!(rows(&schema, sequential.as_ref().unwrap()).num_rows(), rows_count as usize, "{format}");
            }
            if allowed > 0 {
                let kept = rows(&schema, sequential.as_ref().unwrap()).num_rows();
                assert!(kept < rows_count as usize && kept > rows_count as usize - 20, "{kept} rows kept");
            }
        }
    }

    fn schema_of_one() -> SchemaRef {
        schema(&[("id", "UInt32")])
    }

    #[test]
    fn bad_rows_are_counted_across_chunks() {
        let one = schema_of_one();
        let mut tsv = String::new();
        for i in 1..=10_000 {
            tsv.push_str(if i % 1000 == 0 { "oops\n" } else { "1\n" });
        }
        for (chunk_bytes, piece) in [(1, 333), (64, 1), (3000, 4096)] {
            let mut lenient = settings(3, chunk_bytes);
            lenient.allow_errors_num = 10;
            let batches = parse("TSV", &one, tsv.as_bytes(), piece, &lenient).unwrap();
            assert_eq!(rows(&one, &batches).num_rows(), 9_990);
            // One bad row too many, whichever chunks they fall in.
            lenient.allow_errors_num = 9;
            let e = parse("TSV", &one, tsv.as_bytes(), piece, &lenient).unwrap_err();
            assert_eq!(e.code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, "{}", e.message());
            // A ratio: 10 of 10000 rows are 0.1%.
            let mut ratio = settings(3, chunk_bytes);
            ratio.allow_errors_ratio = 0.002;
            assert_eq!(rows(&one, &parse("TSV", &one, tsv.as_bytes(), piece, &ratio).unwrap()).num_rows(), 9_990);
            ratio.allow_errors_ratio = 0.0005;
            assert!(parse("TSV", &one, tsv.as_bytes(), piece, &ratio).is_err());
        }
    }

    #[test]
    fn header_lines_before_the_pipeline_and_a_truncated_last_row() {
        let schema = schema(&[("id", "UInt64"), ("s", "String"), ("f", "Float64")]);
        let body = awkward_csv(500, None);
        // Columns named in another order: the header decides the mapping for every chunk.
        let reordered: String = {
            let mut out = String::from("s,f,id\n");
            for i in 0..500u64 {
                out.push_str(&format!("\"v\n{i}\",{}.5,{i}\n", i * 3));
            }
            out
        };
        let expected = rows(&schema, &parse("CSVWithNames", &schema, reordered.as_bytes(), reordered.len(), &settings(1, 1 << 20)).unwrap());
        for (chunk_bytes, piece) in [(1, 3), (100, 1), (1000, 999)] {
            let parallel = parse("CSVWithNames", &schema, reordered.as_bytes(), piece, &settings(2, chunk_bytes)).unwrap();
            assert_eq!(rows(&schema, &parallel), expected, "chunks of {chunk_bytes}, pushes of {piece}");
        }
        // A quoted field left open at the end: the row after the last one read.
        let open = format!("{body}500,\"never closed,1\n");
        let e = parse("CSV", &schema, open.as_bytes(), 100, &settings(2, 256)).unwrap_err();
        assert!(e.message().contains("(at row 501)"), "{}", e.message());
    }

    #[test]
    fn abandoned_stream_stops_its_parsers() {
        let one = schema_of_one();
        let tsv = "1\n".repeat(200_000);
        let mut input = create_input_format("TSV", Arc::clone(&one), &settings(2, 1000)).unwrap();
        let mut out = Vec::new();
        input.push(tsv.as_bytes(), &mut out).unwrap();
        // Dropped with chunks in flight: neither hangs nor panics.
        drop(input);
        // Cancelled parsers give up their chunk.
        let cancelled = Arc::new(AtomicBool::new(true));
        let block = Block::new(Arc::clone(&one), &settings(2, 1000)).unwrap().fork(0, 10_000, &cancelled).unwrap();
        let e = parse_rows(EmptyRows, block, b"", &vec![(0, 0); 10_000]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::QUERY_WAS_CANCELLED);
    }

    #[test]
    fn chunk_buffers_kept_for_reuse_stay_bounded() {
        let one = schema_of_one();
        let settings = settings(2, 1000);
        let mut streamer = Streamer::new(Lines, Block::new(Arc::clone(&one), &settings).unwrap(), Parallelism::from_settings(&settings));
        let mut out = Vec::new();
        let line = "x".repeat(99) + "\n";
        for _ in 0..2_000 {
            streamer.push(line.as_bytes(), &mut out).unwrap();
            let max_in_flight = streamer.pipeline.as_ref().map_or(0, |p| p.max_in_flight);
            assert!(streamer.used_buffers.len() <= max_in_flight + 1, "{} buffers kept", streamer.used_buffers.len());
        }
        streamer.finish(&mut out).unwrap();
        assert_eq!(rows(&one, &out).num_rows(), 2_000);
    }

    /// One row per line, holding nothing; whole rows cut at line feeds.
    #[derive(Clone)]
    struct Lines;

    impl RowFormat for Lines {
        fn scan(&mut self, data: &[u8], from: usize, eof: bool) -> Result<Scan> {
            Ok(match memchr::memchr(b'\n', &data[from..]) {
                Some(at) => Scan::Row { start: from, end: from + at, next: from + at + 1 },
                None if eof || from == data.len() => Scan::Skip { next: data.len() },
                None => Scan::NeedMore { start: from },
            })
        }

        fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
            EmptyRows.parse_row(row, block, out)
        }

        fn whole_rows(&mut self, data: &[u8], from: usize, min_bytes: usize) -> Option<(usize, u64)> {
            let mut end = from;
            let mut rows = 0;
            for at in memchr::memchr_iter(b'\n', &data[from..]) {
                end = from + at + 1;
                rows += 1;
                if end - from >= min_bytes {
                    break;
                }
            }
            Some((end, rows))
        }
    }

    /// Rows that hold nothing (the columns get defaults).
    #[derive(Clone)]
    struct EmptyRows;

    impl RowFormat for EmptyRows {
        fn scan(&mut self, data: &[u8], from: usize, _eof: bool) -> Result<Scan> {
            Ok(Scan::Skip { next: data.len().max(from) })
        }

        fn parse_row(&mut self, _row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
            for builder in &mut block.builders {
                builder.append_default()?;
            }
            block.commit_row(out)
        }
    }
}
