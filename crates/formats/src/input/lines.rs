//! The formats that fill one String column: `LineAsString` (each line, without its line
//! feed and with nothing unescaped, is a value; a carriage return stays) and `RawBLOB`
//! (the whole input is one value; no input, no row).

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, Result};

use super::json::single_string_column;
use super::rows::{Block, Parallelism, RowFormat, Scan, Streamer};
use crate::{FormatSettings, InputFormat};

#[derive(Clone)]
struct Lines;

/// The next line of `data` from `from` (without its line feed; at the end of the data,
/// an unterminated last line), as the one-row-per-line formats cut their rows.
pub(crate) fn scan_line(data: &[u8], from: usize, eof: bool) -> Scan {
    match memchr::memchr(b'\n', &data[from..]) {
        Some(offset) => Scan::Row { start: from, end: from + offset, next: from + offset + 1 },
        None if eof && from < data.len() => Scan::Row { start: from, end: data.len(), next: data.len() },
        None if eof => Scan::Skip { next: data.len() },
        None => Scan::NeedMore { start: from },
    }
}

impl RowFormat for Lines {
    fn scan(&mut self, data: &[u8], from: usize, eof: bool) -> Result<Scan> {
        Ok(scan_line(data, from, eof))
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        block.builders[0].parse_text(row).map_err(|e| block.column_error(e, 0))?;
        block.commit_row(out)
    }

    fn truncated_row_error(&self, _rest: &[u8]) -> Error {
        Error::new(granary_common::ErrorCode::LOGICAL_ERROR, "LineAsString: a line was left unread")
    }
}

/// `LineAsString`.
pub struct LineAsStringInput {
    streamer: Streamer<Lines>,
}

impl LineAsStringInput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Result<Self> {
        single_string_column(&schema, false)?;
        Ok(LineAsStringInput { streamer: Streamer::new(Lines, Block::new(schema, settings)?, Parallelism::from_settings(settings)) })
    }
}

impl InputFormat for LineAsStringInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.push(data, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.finish(out)
    }
}

/// `RawBLOB`: the input is gathered and becomes one value at the end.
pub struct RawBlobInput {
    block: Block,
    data: Vec<u8>,
}

impl RawBlobInput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Result<Self> {
        single_string_column(&schema, false)?;
        Ok(RawBlobInput { block: Block::new(schema, settings)?, data: Vec::new() })
    }
}

impl InputFormat for RawBlobInput {
    fn push(&mut self, data: &[u8], _out: &mut Vec<RecordBatch>) -> Result<()> {
        self.data.extend_from_slice(data);
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.data.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut self.data);
        self.block.begin_row();
        self.block.builders[0].parse_text(&data).map_err(|e| self.block.column_error(e, 0))?;
        self.block.commit_row(out)?;
        self.block.flush(out)
    }
}
