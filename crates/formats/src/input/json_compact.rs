//! `JSONCompactEachRow`, `JSONCompactStringsEachRow` and their `WithNames` /
//! `WithNamesAndTypes` variants: one JSON array of values per row, by position, after
//! optional header arrays of names (matched to the columns by name with
//! `input_format_with_names_use_header`; unknown names skipped with
//! `input_format_skip_unknown_fields`, missing columns take their defaults) and of types
//! (read and ignored). In the `Strings` formats every value is a JSON string of the
//! value's text.

use std::collections::HashMap;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::escape::{read_json_string, shorten};
use granary_types::text::read::{read_sequence, skip_json_value, skip_ws};

use super::json::{parse_json_string_value, JsonScanner};
use super::rows::{Block, Parallelism, RowFormat, Scan, Streamer};
use crate::{FormatSettings, InputFormat};

#[derive(Clone)]
struct CompactRows {
    names: HashMap<String, usize>,
    strings: bool,
    /// Header arrays still to read (names, then types).
    header_lines: usize,
    names_read: bool,
    use_header: bool,
    skip_unknown_fields: bool,
    /// For each value of a row, the target column (None: skipped).
    positions: Vec<Option<usize>>,
    seen: Vec<bool>,
    scratch: Vec<u8>,
    value: Vec<u8>,
    scanner: JsonScanner,
    name: &'static str,
}

fn expected(what: char, rest: &[u8]) -> Error {
    Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '{what}' before: '{}'", shorten(rest)))
}

impl CompactRows {
    fn read_header(&mut self, row: &[u8]) -> Result<()> {
        self.header_lines -= 1;
        if self.names_read {
            // The types of *WithNamesAndTypes: the table's types are used.
            return Ok(());
        }
        self.names_read = true;
        let mut header = Vec::new();
        let mut pos = 1;
        read_sequence(row, &mut pos, b']', |input, pos| {
            skip_ws(input, pos);
            let mut name = Vec::new();
            read_json_string(input, pos, &mut name)?;
            header.push(String::from_utf8_lossy(&name).into_owned());
            Ok(())
        })
        .map_err(|e| e.context("(while reading header)"))?;
        if !self.use_header {
            return Ok(());
        }
        let mut used = vec![false; self.seen.len()];
        let mut positions = Vec::with_capacity(header.len());
        for (position, name) in header.iter().enumerate() {
            match self.names.get(name) {
                Some(&column) if used[column] => {
                    return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Duplicate field found while parsing header: '{name}'")));
                }
                Some(&column) => {
                    used[column] = true;
                    positions.push(Some(column));
                }
                None if self.skip_unknown_fields => positions.push(None),
                None => {
                    return Err(Error::new(
                        ErrorCode::INCORRECT_DATA,
                        format!(
                            "Unknown field found in format header: '{name}' at position {position}\nSet the 'input_format_skip_unknown_fields' parameter explicitly to ignore and proceed: (while reading header)"
                        ),
                    ))
                }
            }
        }
        self.positions = positions;
        Ok(())
    }
}

impl RowFormat for CompactRows {
    fn scan(&mut self, data: &[u8], from: usize, _eof: bool) -> Result<Scan> {
        self.scanner.scan(data, from, b'[', |rest| expected('[', rest))
    }

    fn in_header(&self) -> bool {
        self.header_lines > 0
    }

    fn truncated_row_error(&self, _rest: &[u8]) -> Error {
        Error::new(ErrorCode::CANNOT_READ_ALL_DATA, format!("Unexpected end of stream while parsing {} format", self.name))
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.header_lines > 0 {
            return self.read_header(row);
        }
        self.seen.iter_mut().for_each(|s| *s = false);
        let mut pos = 1;
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut failed_column = None;
        let mut result = Ok(());
        for (index, target) in self.positions.iter().enumerate() {
            skip_ws(row, &mut pos);
            if index > 0 {
                if row.get(pos) != Some(&b',') {
                    result = Err(expected(',', &row[pos.min(row.len())..]));
                    break;
                }
                pos += 1;
            }
            let step = match target {
                Some(column) => {
                    self.seen[*column] = true;
                    let builder = &mut block.builders[*column];
                    let r = if self.strings { parse_json_string_value(builder, row, &mut pos, &mut self.value) } else { builder.parse_json(row, &mut pos, &mut scratch) };
                    if r.is_err() {
                        failed_column = Some(*column);
                    }
                    r
                }
                None => skip_json_value(row, &mut pos),
            };
            if let Err(e) = step {
                result = Err(e);
                break;
            }
        }
        self.scratch = scratch;
        if result.is_ok() {
            skip_ws(row, &mut pos);
            if row.get(pos) != Some(&b']') {
                result = Err(expected(']', &row[pos.min(row.len())..]));
            }
        }
        if let Err(e) = result {
            return Err(match failed_column {
                Some(column) => block.column_error(e, column),
                None => block.row_error(e),
            });
        }
        for column in 0..self.seen.len() {
            if !self.seen[column] {
                block.builders[column].append_default().map_err(|e| block.column_error(e, column))?;
            }
        }
        block.commit_row(out)
    }
}

/// The `JSONCompact(Strings)EachRow(WithNames(AndTypes))` input formats.
pub struct JsonCompactEachRowInput {
    streamer: Streamer<CompactRows>,
}

impl JsonCompactEachRowInput {
    /// `header_lines`: 0, 1 (`WithNames`) or 2 (`WithNamesAndTypes`).
    pub fn new(schema: SchemaRef, strings: bool, header_lines: usize, settings: &FormatSettings) -> Result<Self> {
        let columns = schema.fields().len();
        let rows = CompactRows {
            names: schema.fields().iter().enumerate().map(|(i, f)| (f.name().clone(), i)).collect(),
            strings,
            header_lines,
            names_read: false,
            use_header: settings.with_names_use_header,
            skip_unknown_fields: settings.skip_unknown_fields,
            positions: (0..columns).map(Some).collect(),
            seen: vec![false; columns],
            scratch: Vec::new(),
            value: Vec::new(),
            scanner: JsonScanner::default(),
            name: if strings { "JSONCompactStringsEachRow" } else { "JSONCompactEachRow" },
        };
        Ok(JsonCompactEachRowInput { streamer: Streamer::new(rows, Block::new(schema, settings)?, Parallelism::from_settings(settings)) })
    }
}

impl InputFormat for JsonCompactEachRowInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.push(data, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.finish(out)
    }
}
