//! `JSONEachRow` (`JSONLines`, `NDJSON`): one JSON object per row, separated by
//! whitespace (commas and an enclosing `[...]` are accepted too). Keys are matched to
//! columns by name; missing keys take the column's default; unknown keys are skipped
//! (`input_format_skip_unknown_fields`, on by default) or an error. Values follow the
//! JSON rules of [`granary_types::text::ColumnBuilder::parse_json`]: nested arrays,
//! tuples as arrays or objects, maps as objects, numbers in quotes, NULL as `null`.

use std::collections::HashMap;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::escape::shorten;
use granary_types::text::read::{read_object, skip_ws};

use super::rows::{Block, Parallelism, RowFormat, Scan, Streamer};
use crate::{FormatSettings, InputFormat};

#[derive(Clone)]
pub(crate) struct JsonRows {
    columns: HashMap<Vec<u8>, usize>,
    skip_unknown_fields: bool,
    /// Which columns the current row set.
    seen: Vec<bool>,
    scratch: Vec<u8>,
    /// Scanner state of an unfinished object: bytes scanned, nesting depth, inside a
    /// string, after a backslash in a string.
    resume: usize,
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl JsonRows {
    /// Rows as JSON objects whose keys are the columns of `schema`.
    pub(crate) fn new(schema: &SchemaRef, settings: &FormatSettings) -> Self {
        JsonRows {
            columns: schema.fields().iter().enumerate().map(|(i, f)| (f.name().as_bytes().to_vec(), i)).collect(),
            skip_unknown_fields: settings.skip_unknown_fields,
            seen: vec![false; schema.fields().len()],
            scratch: Vec::new(),
            resume: 0,
            depth: 0,
            in_string: false,
            escaped: false,
        }
    }
}

impl RowFormat for JsonRows {
    fn scan(&mut self, data: &[u8], from: usize, eof: bool) -> Result<Scan> {
        let mut start = from;
        if self.resume == 0 {
            // Between rows: whitespace, commas and the brackets of a JSON array of rows.
            while start < data.len() && matches!(data[start], b' ' | b'\t' | b'\n' | b'\r' | b',' | b'[' | b']' | b';') {
                start += 1;
            }
            if start >= data.len() {
                return Ok(Scan::Skip { next: data.len() });
            }
            if data[start] != b'{' {
                return Err(Error::new(
                    ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                    format!("Cannot parse input: expected '{{' before: '{}'", shorten(&data[start..])),
                ));
            }
            self.depth = 0;
            self.in_string = false;
            self.escaped = false;
        }
        let mut i = start + self.resume;
        while i < data.len() {
            let b = data[i];
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                } else if let Some(offset) = memchr::memchr2(b'"', b'\\', &data[i..]) {
                    // Jump to the next byte that matters inside the string.
                    i += offset;
                    continue;
                } else {
                    break;
                }
            } else {
                match b {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            self.resume = 0;
                            return Ok(Scan::Row { start, end: i + 1, next: i + 1 });
                        }
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        let _ = eof;
        self.resume = data.len() - start;
        Ok(Scan::NeedMore { start })
    }

    fn truncated_row_error(&self, _rest: &[u8]) -> Error {
        Error::new(ErrorCode::CANNOT_READ_ALL_DATA, "Unexpected end of stream while parsing JSONEachRow format")
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.seen.iter_mut().for_each(|s| *s = false);
        let mut pos = 1;
        let mut scratch = std::mem::take(&mut self.scratch);
        let columns = &self.columns;
        let seen = &mut self.seen;
        let skip_unknown = self.skip_unknown_fields;
        let mut failed_column = None;
        let result = read_object(row, &mut pos, &mut scratch, |key, input, pos, scratch| match columns.get(key) {
            Some(&column) if seen[column] => {
                failed_column = Some(column);
                Err(Error::new(
                    ErrorCode::INCORRECT_DATA,
                    format!("Duplicate field found while parsing JSONEachRow format: {}", String::from_utf8_lossy(key)),
                ))
            }
            Some(&column) => {
                seen[column] = true;
                let value_start = *pos;
                let r = block.builders[column].parse_json(input, pos, scratch);
                if r.is_err() {
                    failed_column = Some(column);
                }
                r.map_err(|e| quoted_number_error(e, block.builders[column].ch_type(), &input[value_start..]))
            }
            None if skip_unknown => granary_types::text::read::skip_json_value(input, pos),
            None => Err(Error::new(
                ErrorCode::INCORRECT_DATA,
                format!("Unknown field found while parsing JSONEachRow format: {}", String::from_utf8_lossy(key)),
            )),
        });
        self.scratch = scratch;
        if let Err(e) = result {
            return Err(match failed_column {
                Some(column) => block.column_error(e, column),
                None => block.row_error(e),
            });
        }
        skip_ws(row, &mut pos);
        if pos != row.len() {
            return Err(block.row_error(Error::new(
                ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                format!("Cannot parse input: unexpected data after the object: '{}'", shorten(&row[pos..])),
            )));
        }
        for column in 0..self.seen.len() {
            if !self.seen[column] {
                block.builders[column].append_default().map_err(|e| block.column_error(e, column))?;
            }
        }
        block.commit_row(out)
    }
}

pub struct JsonEachRowInput {
    streamer: Streamer<JsonRows>,
}

impl JsonEachRowInput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Result<Self> {
        let rows = JsonRows::new(&schema, settings);
        Ok(JsonEachRowInput { streamer: Streamer::new(rows, Block::new(schema, settings)?, Parallelism::from_settings(settings)) })
    }
}

impl InputFormat for JsonEachRowInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.push(data, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.finish(out)
    }
}

/// A number column given a JSON string that is not a number (`"three"`): ClickHouse reads
/// the string's characters as the number (or a bool word) and fails on the first one it
/// cannot take, as a missing character (CANNOT_PARSE_INPUT_ASSERTION_FAILED).
fn quoted_number_error(error: Error, ch_type: &granary_types::ChType, value: &[u8]) -> Error {
    use granary_types::ChType;
    let numeric = matches!(
        ch_type.base(),
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Float32 | ChType::Float64
    );
    let mut start = 0;
    skip_ws(value, &mut start);
    if !numeric || value.get(start) != Some(&b'"') || !matches!(error.code(), ErrorCode::CANNOT_PARSE_TEXT | ErrorCode::CANNOT_PARSE_NUMBER) {
        return error;
    }
    let body = &value[start + 1..];
    let digits = body.iter().enumerate().take_while(|(i, b)| b.is_ascii_digit() || (*i == 0 && matches!(b, b'-' | b'+')) || matches!(b, b'.' | b'e' | b'E')).count();
    // `t...` and `f...` are read as the start of `true` / `false`.
    let (expected, rest) = match body.first() {
        Some(b't') if digits == 0 => ("true", &body[1..]),
        Some(b'f') if digits == 0 => ("false", &body[1..]),
        _ => ("\"", &body[digits..]),
    };
    Error::new(
        ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
        format!("Cannot parse input: expected '{expected}' before: '{}'", shorten(rest)),
    )
}
