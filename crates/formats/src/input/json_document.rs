//! `JSON`, `JSONCompact` and `JSONColumnsWithMetadata` input: the documents those
//! output formats write,
//! `{"meta": [{"name": .., "type": ..}, ..], "data": [rows], "rows": n, ...}`, with rows
//! as objects (`JSON`) or arrays in the order of `meta` (`JSONCompact`). Members other
//! than `meta` and `data` (`rows`, `statistics`, `totals`, ...) are skipped. A `data`
//! that is an object of column arrays (`JSONColumnsWithMetadata`) is read as one block.
//!
//! Streamed like the other text formats: the scanner walks the document's head up to the
//! `[` of `data`, then hands out one row at a time, then skips the rest.

use std::collections::HashMap;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::escape::{read_json_string, shorten};
use granary_types::text::read::{read_object, read_sequence, skip_json_value, skip_ws};

use super::json::JsonRows;
use super::json_columns::parse_columns;
use super::rows::{Block, Parallelism, RowFormat, Scan, Streamer};
use crate::{FormatSettings, InputFormat};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// Before the rows: `{"meta": ..., "data": [`.
    Head,
    /// Inside the `data` array.
    Rows,
    /// After the rows: the rest of the document is ignored.
    Tail,
}

#[derive(Clone)]
struct DocumentRows {
    compact: bool,
    part: Part,
    /// Column names from `meta`, in order (the positions of a compact row's values).
    meta: Vec<String>,
    /// For each value of a compact row, the target column (None: skipped).
    positions: Vec<Option<usize>>,
    names: Vec<String>,
    skip_unknown_fields: bool,
    objects: JsonRows,
    scratch: Vec<u8>,
    /// `data` is an object of columns (`JSONColumnsWithMetadata`).
    columns_data: bool,
    column_names: HashMap<Vec<u8>, usize>,
}

impl DocumentRows {
    /// Reads the head from `from`; Ok(None) when the data so far ends inside it.
    fn read_head(&mut self, data: &[u8], from: usize, eof: bool) -> Result<Option<usize>> {
        // A value that does not end: more data may complete it, or the input was cut.
        let incomplete = |_: Error| if eof { Err(truncated()) } else { Ok(None) };
        let mut pos = from;
        skip_ws(data, &mut pos);
        match data.get(pos) {
            None => return if eof { Ok(Some(pos)) } else { Ok(None) },
            Some(b'{') => pos += 1,
            Some(_) => {
                return Err(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '{{' before: '{}'", shorten(&data[pos..]))))
            }
        }
        loop {
            skip_ws(data, &mut pos);
            match data.get(pos) {
                None => return incomplete(truncated()),
                Some(b'}') => {
                    // A document without rows.
                    self.part = Part::Tail;
                    return Ok(Some(pos + 1));
                }
                Some(b'"') => {}
                Some(_) => {
                    return Err(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '\"' before: '{}'", shorten(&data[pos..]))))
                }
            }
            let mut key = Vec::new();
            if let Err(e) = read_json_string(data, &mut pos, &mut key) {
                return incomplete(e);
            }
            skip_ws(data, &mut pos);
            match data.get(pos) {
                None => return incomplete(truncated()),
                Some(b':') => pos += 1,
                Some(_) => {
                    return Err(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected ':' before: '{}'", shorten(&data[pos..]))))
                }
            }
            skip_ws(data, &mut pos);
            match key.as_slice() {
                b"data" => match data.get(pos) {
                    None => return incomplete(truncated()),
                    Some(b'[') => {
                        self.start_rows();
                        self.part = Part::Rows;
                        return Ok(Some(pos + 1));
                    }
                    Some(b'{') => {
                        // The whole object is one block, scanned as one row.
                        self.columns_data = true;
                        self.part = Part::Rows;
                        return Ok(Some(pos));
                    }
                    Some(_) => {
                        return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Cannot parse input: expected '[' before: '{}'", shorten(&data[pos..]))))
                    }
                },
                b"meta" => {
                    let start = pos;
                    if let Err(e) = skip_json_value(data, &mut pos) {
                        return incomplete(e);
                    }
                    self.meta = meta_names(&data[start..pos])?;
                }
                _ => {
                    if let Err(e) = skip_json_value(data, &mut pos) {
                        return incomplete(e);
                    }
                }
            }
            skip_ws(data, &mut pos);
            match data.get(pos) {
                None => return incomplete(truncated()),
                Some(b',') => pos += 1,
                Some(b'}') => {
                    self.part = Part::Tail;
                    return Ok(Some(pos + 1));
                }
                Some(_) => {
                    return Err(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected ',' before: '{}'", shorten(&data[pos..]))))
                }
            }
        }
    }

    /// Maps the values of compact rows to columns by the names in `meta` (by position
    /// when the document has no `meta`).
    fn start_rows(&mut self) {
        self.positions = if self.meta.is_empty() {
            (0..self.names.len()).map(Some).collect()
        } else {
            self.meta.iter().map(|m| self.names.iter().position(|n| n == m)).collect()
        };
    }
}

fn truncated() -> Error {
    Error::new(ErrorCode::CANNOT_READ_ALL_DATA, "Unexpected end of stream while parsing JSON format")
}

/// The `name`s of `[{"name": "a", "type": "UInt8"}, ...]`.
fn meta_names(meta: &[u8]) -> Result<Vec<String>> {
    let mut names = Vec::new();
    let mut pos = 0;
    skip_ws(meta, &mut pos);
    if meta.get(pos) != Some(&b'[') {
        return Err(Error::new(ErrorCode::INCORRECT_DATA, "The meta of a JSON document must be an array"));
    }
    pos += 1;
    let mut scratch = Vec::new();
    read_sequence(meta, &mut pos, b']', |input, pos| {
        skip_ws(input, pos);
        if input.get(*pos) != Some(&b'{') {
            return Err(Error::new(ErrorCode::INCORRECT_DATA, "Each element of the meta of a JSON document must be an object"));
        }
        *pos += 1;
        let mut name = None;
        read_object(input, pos, &mut scratch, |key, input, pos, _| {
            skip_ws(input, pos);
            if key == b"name" {
                let mut value = Vec::new();
                read_json_string(input, pos, &mut value)?;
                name = Some(String::from_utf8_lossy(&value).into_owned());
                Ok(())
            } else {
                skip_json_value(input, pos)
            }
        })?;
        names.push(name.ok_or_else(|| Error::new(ErrorCode::INCORRECT_DATA, "An element of the meta of a JSON document has no name"))?);
        Ok(())
    })?;
    Ok(names)
}

impl RowFormat for DocumentRows {
    fn scan(&mut self, data: &[u8], from: usize, eof: bool) -> Result<Scan> {
        match self.part {
            Part::Head => match self.read_head(data, from, eof)? {
                Some(next) => Ok(Scan::Skip { next }),
                None => Ok(Scan::NeedMore { start: from }),
            },
            Part::Tail => Ok(Scan::Skip { next: data.len() }),
            Part::Rows => {
                let mut pos = from;
                while pos < data.len() && matches!(data[pos], b' ' | b'\t' | b'\n' | b'\r' | b',') {
                    pos += 1;
                }
                match data.get(pos) {
                    None => Ok(Scan::Skip { next: data.len() }),
                    Some(b']') => {
                        self.part = Part::Tail;
                        Ok(Scan::Skip { next: pos + 1 })
                    }
                    Some(b'{' | b'[') => {
                        let mut end = pos;
                        match skip_json_value(data, &mut end) {
                            Ok(()) => {
                                if self.columns_data {
                                    self.part = Part::Tail;
                                }
                                Ok(Scan::Row { start: pos, end, next: end })
                            }
                            // A row cut off by the end of the input.
                            Err(_) if eof => Err(Error::new(ErrorCode::ATTEMPT_TO_READ_AFTER_EOF, "Attempt to read after eof")),
                            Err(_) => Ok(Scan::NeedMore { start: pos }),
                        }
                    }
                    Some(_) => Err(Error::new(
                        ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                        format!("Cannot parse input: expected '{}' before: '{}'", if self.compact { '[' } else { '{' }, shorten(&data[pos..])),
                    )),
                }
            }
        }
    }

    fn truncated_row_error(&self, _rest: &[u8]) -> Error {
        match self.part {
            Part::Rows => Error::new(ErrorCode::ATTEMPT_TO_READ_AFTER_EOF, "Attempt to read after eof"),
            _ => truncated(),
        }
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.columns_data {
            return parse_columns(row, false, &self.column_names, self.skip_unknown_fields, block, out).map_err(|e| block.row_error(e));
        }
        if !self.compact {
            return self.objects.parse_row(row, block, out);
        }
        if row.first() != Some(&b'[') {
            return Err(block.row_error(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, "Cannot parse input: expected '['")));
        }
        let mut pos = 1;
        let mut index = 0;
        let mut seen = vec![false; block.column_count()];
        let mut scratch = std::mem::take(&mut self.scratch);
        let positions = &self.positions;
        let skip_unknown = self.skip_unknown_fields;
        let mut failed_column = None;
        let result = read_sequence(row, &mut pos, b']', |input, pos| {
            let target = positions.get(index).copied().flatten();
            index += 1;
            match target {
                Some(column) => {
                    seen[column] = true;
                    let r = block.builders[column].parse_json(input, pos, &mut scratch);
                    if r.is_err() {
                        failed_column = Some(column);
                    }
                    r
                }
                None if skip_unknown || index <= positions.len() => skip_json_value(input, pos),
                None => Err(Error::new(ErrorCode::INCORRECT_DATA, format!("The row has more than {} values", positions.len()))),
            }
        });
        self.scratch = scratch;
        if let Err(e) = result {
            return Err(match failed_column {
                Some(column) => block.column_error(e, column),
                None => block.row_error(e),
            });
        }
        for (column, seen) in seen.iter().enumerate() {
            if !seen {
                block.builders[column].append_default().map_err(|e| block.column_error(e, column))?;
            }
        }
        block.commit_row(out)
    }
}

/// The `JSON` (`compact = false`) and `JSONCompact` input formats.
pub struct JsonDocumentInput {
    streamer: Streamer<DocumentRows>,
}

impl JsonDocumentInput {
    pub fn new(schema: SchemaRef, compact: bool, settings: &FormatSettings) -> Result<Self> {
        let rows = DocumentRows {
            compact,
            part: Part::Head,
            meta: Vec::new(),
            positions: Vec::new(),
            names: schema.fields().iter().map(|f| f.name().clone()).collect(),
            skip_unknown_fields: settings.skip_unknown_fields,
            objects: JsonRows::new(&schema, settings),
            scratch: Vec::new(),
            columns_data: false,
            column_names: schema.fields().iter().enumerate().map(|(i, f)| (f.name().as_bytes().to_vec(), i)).collect(),
        };
        // The scanner's place in the document is state that parallel chunks cannot share.
        let sequential = Parallelism { threads: 1, ..Parallelism::from_settings(settings) };
        Ok(JsonDocumentInput { streamer: Streamer::new(rows, Block::new(schema, settings)?, sequential) })
    }
}

impl InputFormat for JsonDocumentInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.push(data, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.finish(out)
    }
}
