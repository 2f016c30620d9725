//! `JSONColumns` (`{"a": [1, 2], "b": ["x", "y"]}`) and `JSONCompactColumns`
//! (`[[1, 2], ["x", "y"]]`): each top-level object (or array) is a block of rows given
//! column by column. Columns are matched by name (by position in the compact form);
//! a column the block lacks takes its default in every row, and columns of different
//! lengths are INCORRECT_DATA, as in ClickHouse. Several blocks may follow each other.
//! The `data` object of `JSONColumnsWithMetadata` is read by the same code
//! ([`parse_columns`]).

use std::collections::HashMap;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::escape::shorten;
use granary_types::text::read::{read_object, read_sequence, skip_json_value, skip_ws};

use super::json::JsonScanner;
use super::rows::{Block, Parallelism, RowFormat, Scan, Streamer};
use crate::{FormatSettings, InputFormat};

/// Reads one block of columns (`block_text` is the whole object, or array when
/// `compact`) into `block`.
pub(crate) fn parse_columns(
    block_text: &[u8],
    compact: bool,
    names: &HashMap<Vec<u8>, usize>,
    skip_unknown_fields: bool,
    block: &mut Block,
    out: &mut Vec<RecordBatch>,
) -> Result<()> {
    let columns = block.column_count();
    let mut counts: Vec<Option<usize>> = vec![None; columns];
    let mut scratch = Vec::new();
    let mut pos = 1;
    let mut read_values = |column: Option<usize>, input: &[u8], pos: &mut usize, scratch: &mut Vec<u8>| -> Result<()> {
        let Some(column) = column else { return skip_json_value(input, pos) };
        if counts[column].is_some() {
            return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Duplicate field found while parsing JSONColumns format: {}", block.column_name(column))));
        }
        skip_ws(input, pos);
        if input.get(*pos) != Some(&b'[') {
            return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Cannot parse input: expected '[' before: '{}'", shorten(&input[(*pos).min(input.len())..]))));
        }
        *pos += 1;
        let mut n = 0;
        let builder = &mut block.builders[column];
        read_sequence(input, pos, b']', |input, pos| {
            n += 1;
            builder.parse_json(input, pos, scratch)
        })
        .map_err(|e| e.context(format!("(while reading the values of column '{}')", block.column_name(column))))?;
        counts[column] = Some(n);
        Ok(())
    };
    if compact {
        let mut index = 0;
        read_sequence(block_text, &mut pos, b']', |input, pos| {
            let column = (index < columns).then_some(index);
            index += 1;
            read_values(column, input, pos, &mut scratch)
        })?;
    } else {
        read_object(block_text, &mut pos, &mut Vec::new(), |key, input, pos, _| match names.get(key) {
            Some(&column) => read_values(Some(column), input, pos, &mut scratch),
            None if skip_unknown_fields => skip_json_value(input, pos),
            None => Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Unknown column found in input data: {}", String::from_utf8_lossy(key)))),
        })?;
    }
    let mut rows: Option<usize> = None;
    for count in counts.iter().flatten() {
        match rows {
            Some(n) if n != *count => return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Number of rows differs in different columns: {n} != {count}"))),
            _ => rows = Some(*count),
        }
    }
    let rows = rows.unwrap_or(0);
    for (column, count) in counts.iter().enumerate() {
        if count.is_none() {
            for _ in 0..rows {
                block.builders[column].append_default().map_err(|e| block.column_error(e, column))?;
            }
        }
    }
    block.commit_rows(rows, out)
}

#[derive(Clone)]
struct ColumnBlocks {
    compact: bool,
    names: HashMap<Vec<u8>, usize>,
    skip_unknown_fields: bool,
    scanner: JsonScanner,
}

impl RowFormat for ColumnBlocks {
    fn scan(&mut self, data: &[u8], from: usize, _eof: bool) -> Result<Scan> {
        let open = if self.compact { b'[' } else { b'{' };
        self.scanner.scan(data, from, open, |rest| {
            Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '{}' before: '{}'", open as char, shorten(rest)))
        })
    }

    fn truncated_row_error(&self, _rest: &[u8]) -> Error {
        Error::new(ErrorCode::CANNOT_READ_ALL_DATA, format!("Unexpected end of stream while parsing {} format", if self.compact { "JSONCompactColumns" } else { "JSONColumns" }))
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        parse_columns(row, self.compact, &self.names, self.skip_unknown_fields, block, out).map_err(|e| block.row_error(e))
    }
}

/// The `JSONColumns` and `JSONCompactColumns` input formats.
pub struct JsonColumnsInput {
    streamer: Streamer<ColumnBlocks>,
}

impl JsonColumnsInput {
    pub fn new(schema: SchemaRef, compact: bool, settings: &FormatSettings) -> Result<Self> {
        let rows = ColumnBlocks {
            compact,
            names: schema.fields().iter().enumerate().map(|(i, f)| (f.name().as_bytes().to_vec(), i)).collect(),
            skip_unknown_fields: settings.skip_unknown_fields,
            scanner: JsonScanner::default(),
        };
        // A block is one "row" of the scanner: row numbers and bad-row counting would
        // not mean rows if blocks were split among threads.
        let sequential = Parallelism { threads: 1, ..Parallelism::from_settings(settings) };
        Ok(JsonColumnsInput { streamer: Streamer::new(rows, Block::new(schema, settings)?, sequential) })
    }
}

impl InputFormat for JsonColumnsInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.push(data, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.finish(out)
    }
}
