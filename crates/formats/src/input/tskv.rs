//! `TSKV`: one line per row of `name=value` fields separated by tabs, TabSeparated
//! escapes in names and values (`\=` in a name). Fields are matched to columns by
//! name; missing columns take their defaults; unknown names are skipped with
//! `input_format_skip_unknown_fields` (else INCORRECT_DATA); a field without `=` may
//! only be the `tskv` marker; an empty line is a row of defaults. As in ClickHouse, the
//! last line must end with a line feed.

use std::collections::HashMap;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::escape::{unescape_letter, unescape_tsv};
use granary_types::ChType;

use super::rows::{Block, Parallelism, RowFormat, Scan, Streamer};
use crate::{FormatSettings, InputFormat};

#[derive(Clone)]
struct TskvRows {
    names: HashMap<Vec<u8>, usize>,
    skip_unknown_fields: bool,
    seen: Vec<bool>,
    /// Bytes of the current line already scanned.
    resume: usize,
    key: Vec<u8>,
    scratch: Vec<u8>,
}

impl RowFormat for TskvRows {
    fn scan(&mut self, data: &[u8], from: usize, eof: bool) -> Result<Scan> {
        let mut i = from + self.resume;
        loop {
            let Some(offset) = memchr::memchr2(b'\n', b'\\', &data[i..]) else { break };
            let at = i + offset;
            if data[at] == b'\n' {
                self.resume = 0;
                return Ok(Scan::Row { start: from, end: at, next: at + 1 });
            }
            if at + 1 >= data.len() {
                i = at;
                self.resume = i - from;
                return Ok(Scan::NeedMore { start: from });
            }
            // An escaped byte (an escaped line feed too) belongs to the field.
            i = at + 2;
        }
        self.resume = data.len() - from;
        if eof && from >= data.len() {
            self.resume = 0;
            return Ok(Scan::Skip { next: data.len() });
        }
        Ok(Scan::NeedMore { start: from })
    }

    fn truncated_row_error(&self, rest: &[u8]) -> Error {
        let last = rest.rsplit(|b| *b == b'\t').next().unwrap_or(rest);
        let name = last.split(|b| *b == b'=').next().unwrap_or(last);
        Error::new(ErrorCode::CANNOT_READ_ALL_DATA, format!("Unexpected end of stream after field in TSKV format: {}", String::from_utf8_lossy(name)))
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.seen.iter_mut().for_each(|s| *s = false);
        if !row.is_empty() {
            for field in row.split(|b| *b == b'\t') {
                self.read_field(field, block)?;
            }
        }
        for column in 0..self.seen.len() {
            if !self.seen[column] {
                block.builders[column].append_default().map_err(|e| block.column_error(e, column))?;
            }
        }
        block.commit_row(out)
    }
}

impl TskvRows {
    fn read_field(&mut self, field: &[u8], block: &mut Block) -> Result<()> {
        // The name ends at the first `=` that is not escaped.
        self.key.clear();
        let mut value_start = None;
        let mut i = 0;
        while i < field.len() {
            match field[i] {
                b'\\' if i + 1 < field.len() => {
                    self.key.push(unescape_letter(field[i + 1]));
                    i += 2;
                }
                b'=' => {
                    value_start = Some(i + 1);
                    break;
                }
                b => {
                    self.key.push(b);
                    i += 1;
                }
            }
        }
        let name = || String::from_utf8_lossy(&self.key).into_owned();
        let Some(value_start) = value_start else {
            if self.key == b"tskv" {
                return Ok(());
            }
            return Err(block.row_error(Error::new(ErrorCode::INCORRECT_DATA, format!("Found field without value while parsing TSKV format: {}", name()))));
        };
        let Some(&column) = self.names.get(&self.key) else {
            if self.skip_unknown_fields {
                return Ok(());
            }
            return Err(block.row_error(Error::new(ErrorCode::INCORRECT_DATA, format!("Unknown field found while parsing TSKV format: {}", name()))));
        };
        if self.seen[column] {
            return Err(block.row_error(Error::new(ErrorCode::INCORRECT_DATA, format!("Duplicate field found while parsing TSKV format: {}", name()))));
        }
        self.seen[column] = true;
        let text = &field[value_start..];
        let builder = &mut block.builders[column];
        let step = if text == b"\\N" {
            builder.append_null()
        } else if matches!(builder.ch_type().base(), ChType::Array(_) | ChType::Tuple(_) | ChType::Map(..)) || memchr::memchr(b'\\', text).is_none() {
            // Composites keep their elements' own escapes (as in TabSeparated).
            builder.parse_text(text)
        } else {
            self.scratch.clear();
            unescape_tsv(text, &mut self.scratch);
            builder.parse_text(&self.scratch)
        };
        step.map_err(|e| block.column_error(e, column))
    }
}

/// The `TSKV` input format.
pub struct TskvInput {
    streamer: Streamer<TskvRows>,
}

impl TskvInput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Result<Self> {
        let rows = TskvRows {
            names: schema.fields().iter().enumerate().map(|(i, f)| (f.name().as_bytes().to_vec(), i)).collect(),
            skip_unknown_fields: settings.skip_unknown_fields,
            seen: vec![false; schema.fields().len()],
            resume: 0,
            key: Vec::new(),
            scratch: Vec::new(),
        };
        Ok(TskvInput { streamer: Streamer::new(rows, Block::new(schema, settings)?, Parallelism::from_settings(settings)) })
    }
}

impl InputFormat for TskvInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.push(data, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.finish(out)
    }
}
