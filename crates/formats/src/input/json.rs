//! `JSONEachRow` (`JSONLines`, `NDJSON`): one JSON object per row, separated by
//! whitespace (commas and an enclosing `[...]` are accepted too). Keys are matched to
//! columns by name; missing keys take the column's default; unknown keys are skipped
//! (`input_format_skip_unknown_fields`, on by default) or an error. Values follow the
//! JSON rules of [`granary_types::text::ColumnBuilder::parse_json`]: nested arrays,
//! tuples as arrays or objects, maps as objects, numbers in quotes, NULL as `null`.
//!
//! The same rows serve `JSONStringsEachRow` (every value a JSON string holding the
//! value's text), `JSONObjectEachRow` (`{"row_1": {..}, ..}`: the rows are the values
//! of one object) and `JSONAsString` (each object's text is the value of the only
//! column).

use std::collections::HashMap;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::escape::{read_json_string, shorten};
use granary_types::text::read::{read_object, skip_ws};
use granary_types::text::ColumnBuilder;

use super::rows::{Block, Parallelism, RowFormat, Scan, Streamer};
use crate::{FormatSettings, InputFormat};

/// Finds where a JSON value that starts with `{` or `[` ends, resuming where it stopped
/// when the data so far ends inside it.
#[derive(Clone, Default)]
pub(crate) struct JsonScanner {
    /// Bytes of the unfinished value already scanned, nesting depth, inside a string,
    /// after a backslash in a string.
    resume: usize,
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl JsonScanner {
    /// The next value in `data[from..]`, after whitespace and the separators of a stream
    /// of values (commas, the brackets of an enclosing array, semicolons). `open` is the
    /// byte the values start with.
    pub(crate) fn scan(&mut self, data: &[u8], from: usize, open: u8, wrong_start: impl FnOnce(&[u8]) -> Error) -> Result<Scan> {
        let mut start = from;
        if self.resume == 0 {
            while start < data.len() && matches!(data[start], b' ' | b'\t' | b'\n' | b'\r' | b',' | b';') || (start < data.len() && open == b'{' && matches!(data[start], b'[' | b']')) {
                start += 1;
            }
            if start >= data.len() {
                return Ok(Scan::Skip { next: data.len() });
            }
            if data[start] != open {
                return Err(wrong_start(&data[start..]));
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
        self.resume = data.len() - start;
        Ok(Scan::NeedMore { start })
    }
}

/// A value of a `*Strings*` format: a JSON string whose text is read as the value
/// (ClickHouse's `deserializeWholeText`): `NULL` (any case) or `ᴺᵁᴸᴸ` is NULL for a
/// Nullable column.
pub(crate) fn parse_json_string_value(builder: &mut ColumnBuilder, input: &[u8], pos: &mut usize, scratch: &mut Vec<u8>) -> Result<()> {
    skip_ws(input, pos);
    if input.get(*pos) != Some(&b'"') {
        return Err(Error::new(ErrorCode::CANNOT_PARSE_QUOTED_STRING, "Cannot parse JSON string: expected opening quote"));
    }
    scratch.clear();
    read_json_string(input, pos, scratch)?;
    if builder.is_nullable() && (scratch.eq_ignore_ascii_case(b"null") || scratch.as_slice() == "ᴺᵁᴸᴸ".as_bytes()) {
        return builder.append_null();
    }
    builder.parse_text(scratch)
}

#[derive(Clone)]
pub(crate) struct JsonRows {
    columns: HashMap<Vec<u8>, usize>,
    skip_unknown_fields: bool,
    /// `JSONStringsEachRow`: values are JSON strings of their text.
    strings: bool,
    /// Which columns the current row set.
    seen: Vec<bool>,
    scratch: Vec<u8>,
    value: Vec<u8>,
    scanner: JsonScanner,
    /// The format's name in error messages.
    name: &'static str,
    /// `JSONObjectEachRow` with `format_json_object_each_row_column_for_object_name`:
    /// the column that takes each row's name, and the name of the row being read.
    name_column: Option<usize>,
    row_name: Vec<u8>,
}

impl JsonRows {
    /// Rows as JSON objects whose keys are the columns of `schema`.
    pub(crate) fn new(schema: &SchemaRef, settings: &FormatSettings) -> Self {
        JsonRows {
            columns: schema.fields().iter().enumerate().map(|(i, f)| (f.name().as_bytes().to_vec(), i)).collect(),
            skip_unknown_fields: settings.skip_unknown_fields,
            strings: false,
            seen: vec![false; schema.fields().len()],
            scratch: Vec::new(),
            value: Vec::new(),
            scanner: JsonScanner::default(),
            name: "JSONEachRow",
            name_column: None,
            row_name: Vec::new(),
        }
    }

    /// `JSONStringsEachRow`.
    pub(crate) fn strings(mut self) -> Self {
        self.strings = true;
        self.name = "JSONStringsEachRow";
        self
    }
}

impl RowFormat for JsonRows {
    fn scan(&mut self, data: &[u8], from: usize, _eof: bool) -> Result<Scan> {
        self.scanner.scan(data, from, b'{', |rest| {
            Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '{{' before: '{}'", shorten(rest)))
        })
    }

    fn truncated_row_error(&self, _rest: &[u8]) -> Error {
        Error::new(ErrorCode::CANNOT_READ_ALL_DATA, format!("Unexpected end of stream while parsing {} format", self.name))
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.seen.iter_mut().for_each(|s| *s = false);
        if let Some(column) = self.name_column {
            self.seen[column] = true;
            block.builders[column].parse_text(&self.row_name).map_err(|e| block.column_error(e, column))?;
        }
        let mut pos = 1;
        let mut scratch = std::mem::take(&mut self.scratch);
        let value = &mut self.value;
        let columns = &self.columns;
        let seen = &mut self.seen;
        let skip_unknown = self.skip_unknown_fields;
        let strings = self.strings;
        let name = self.name;
        let mut failed_column = None;
        let result = read_object(row, &mut pos, &mut scratch, |key, input, pos, scratch| match columns.get(key) {
            Some(&column) if seen[column] => {
                failed_column = Some(column);
                Err(Error::new(
                    ErrorCode::INCORRECT_DATA,
                    format!("Duplicate field found while parsing {name} format: {}", String::from_utf8_lossy(key)),
                ))
            }
            Some(&column) => {
                seen[column] = true;
                let value_start = *pos;
                let r = if strings {
                    parse_json_string_value(&mut block.builders[column], input, pos, value)
                } else {
                    block.builders[column].parse_json(input, pos, scratch)
                };
                if r.is_err() {
                    failed_column = Some(column);
                }
                r.map_err(|e| quoted_number_error(e, block.builders[column].ch_type(), &input[value_start..]))
            }
            None if skip_unknown => granary_types::text::read::skip_json_value(input, pos),
            None => Err(Error::new(
                ErrorCode::INCORRECT_DATA,
                format!("Unknown field found while parsing {name} format: {}", String::from_utf8_lossy(key)),
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
    /// `strings`: `JSONStringsEachRow`.
    pub fn new(schema: SchemaRef, strings: bool, settings: &FormatSettings) -> Result<Self> {
        let rows = JsonRows::new(&schema, settings);
        let rows = if strings { rows.strings() } else { rows };
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

/// `JSONObjectEachRow`: `{"row_1": {..}, "row_2": {..}}`, the member names ignored.
#[derive(Clone)]
pub(crate) struct ObjectOfRows {
    rows: JsonRows,
    /// The opening `{` was read.
    opened: bool,
    /// The closing `}` was read: only whitespace may follow.
    closed: bool,
}

impl RowFormat for ObjectOfRows {
    fn scan(&mut self, data: &[u8], from: usize, eof: bool) -> Result<Scan> {
        let mut pos = from;
        skip_ws(data, &mut pos);
        if pos >= data.len() {
            return Ok(Scan::Skip { next: data.len() });
        }
        if self.closed {
            return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Cannot parse input: unexpected data after the object: '{}'", shorten(&data[pos..]))));
        }
        if !self.opened {
            if data[pos] != b'{' {
                return Err(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '{{' before: '{}'", shorten(&data[pos..]))));
            }
            self.opened = true;
            return Ok(Scan::Skip { next: pos + 1 });
        }
        // Between members: a comma, or the end of the object.
        if data[pos] == b',' {
            pos += 1;
            skip_ws(data, &mut pos);
        }
        match data.get(pos) {
            None => return Ok(Scan::Skip { next: data.len() }),
            Some(b'}') => {
                self.closed = true;
                return Ok(Scan::Skip { next: pos + 1 });
            }
            Some(b'"') => {}
            Some(_) => {
                return Err(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '\"' before: '{}'", shorten(&data[pos..]))))
            }
        }
        // The member's name is read again each time the data ends inside its value.
        let key_start = pos;
        let mut key = Vec::new();
        if read_json_string(data, &mut pos, &mut key).is_err() {
            return if eof { Err(self.truncated_row_error(&data[key_start..])) } else { Ok(Scan::NeedMore { start: key_start }) };
        }
        skip_ws(data, &mut pos);
        match data.get(pos) {
            None if eof => return Err(self.truncated_row_error(&data[key_start..])),
            None => return Ok(Scan::NeedMore { start: key_start }),
            Some(b':') => pos += 1,
            Some(_) => {
                return Err(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected ':' before: '{}'", shorten(&data[pos..]))))
            }
        }
        skip_ws(data, &mut pos);
        if pos >= data.len() {
            return Ok(Scan::NeedMore { start: key_start });
        }
        if data[pos] != b'{' {
            return Err(Error::new(ErrorCode::INCORRECT_DATA, "JSON object must begin with '{'"));
        }
        match self.rows.scan(data, pos, eof)? {
            Scan::NeedMore { .. } => Ok(Scan::NeedMore { start: key_start }),
            // The row is the member: its name, then the object.
            Scan::Row { end, next, .. } => Ok(Scan::Row { start: key_start, end, next }),
            other => Ok(other),
        }
    }

    fn truncated_row_error(&self, _rest: &[u8]) -> Error {
        Error::new(ErrorCode::CANNOT_READ_ALL_DATA, "Unexpected end of stream while parsing JSONObjectEachRow format")
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        // The scanner checked the member's syntax: a name, a colon, an object.
        let mut pos = 0;
        self.rows.row_name.clear();
        read_json_string(row, &mut pos, &mut self.rows.row_name).map_err(|e| block.row_error(e))?;
        skip_ws(row, &mut pos);
        pos += 1;
        skip_ws(row, &mut pos);
        self.rows.parse_row(&row[pos.min(row.len())..], block, out)
    }
}

/// `JSONObjectEachRow`.
pub struct JsonObjectEachRowInput {
    streamer: Streamer<ObjectOfRows>,
}

impl JsonObjectEachRowInput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Result<Self> {
        let mut rows = JsonRows::new(&schema, settings);
        rows.name = "JSONObjectEachRow";
        let name = &settings.json_object_name_column;
        if !name.is_empty() {
            let column = schema.fields().iter().position(|f| f.name() == name).ok_or_else(|| {
                Error::new(ErrorCode::BAD_ARGUMENTS, format!("Column name '{name}' from setting format_json_object_each_row_column_for_object_name doesn't exists in header"))
            })?;
            rows.name_column = Some(column);
        }
        let rows = ObjectOfRows { rows, opened: false, closed: false };
        // Where the scanner stands in the enclosing object is state chunks cannot share.
        let sequential = Parallelism { threads: 1, ..Parallelism::from_settings(settings) };
        Ok(JsonObjectEachRowInput { streamer: Streamer::new(rows, Block::new(schema, settings)?, sequential) })
    }
}

impl InputFormat for JsonObjectEachRowInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.push(data, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.finish(out)
    }
}

/// The check of the formats that fill one String column (`JSONAsString`,
/// `LineAsString`, `RawBLOB`), with ClickHouse's errors.
pub(crate) fn single_string_column(schema: &SchemaRef, or_object: bool) -> Result<()> {
    if schema.fields().len() != 1 {
        return Err(Error::new(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "This input format is only suitable for tables with a single column of type String{}, but the number of columns is {}",
                if or_object { " or Object" } else { "" },
                schema.fields().len()
            ),
        ));
    }
    if !matches!(granary_types::ChType::from_field(&schema.fields()[0]).base(), granary_types::ChType::String) {
        return Err(Error::new(ErrorCode::INCORRECT_QUERY, "This input format is only suitable for tables with a single column of type String"));
    }
    Ok(())
}

/// `JSONAsString`: the text of each JSON object, as it is, is the value of the only
/// (String) column.
#[derive(Clone)]
pub(crate) struct ObjectsAsString {
    scanner: JsonScanner,
}

impl RowFormat for ObjectsAsString {
    fn scan(&mut self, data: &[u8], from: usize, _eof: bool) -> Result<Scan> {
        self.scanner.scan(data, from, b'{', |_| Error::new(ErrorCode::INCORRECT_DATA, "JSON object must begin with '{'"))
    }

    fn truncated_row_error(&self, _rest: &[u8]) -> Error {
        Error::new(ErrorCode::CANNOT_READ_ALL_DATA, "Unexpected end of stream while parsing JSONAsString format")
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        block.builders[0].parse_text(row).map_err(|e| block.column_error(e, 0))?;
        block.commit_row(out)
    }
}

/// `JSONAsString`.
pub struct JsonAsStringInput {
    streamer: Streamer<ObjectsAsString>,
}

impl JsonAsStringInput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Result<Self> {
        single_string_column(&schema, true)?;
        let rows = ObjectsAsString { scanner: JsonScanner::default() };
        Ok(JsonAsStringInput { streamer: Streamer::new(rows, Block::new(schema, settings)?, Parallelism::from_settings(settings)) })
    }
}

impl InputFormat for JsonAsStringInput {
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
