//! `TabSeparated` (`TSV`), `TabSeparatedRaw`, `CSV`, with optional header lines of names
//! (columns matched by name; unknown ones skipped with `input_format_skip_unknown_fields`,
//! missing ones filled with defaults) and of types (read and ignored).
//!
//! TSV: rows end at a line feed that is not escaped; fields are split at tabs and their
//! backslash escapes decoded; `\N` is NULL. CSV: fields are split at the delimiter,
//! `"..."` (and `'...'` with `format_csv_allow_single_quotes`) quote fields with `""`
//! for a quote, CRLF line ends are accepted, spaces and tabs around unquoted fields are
//! trimmed, an unquoted `\N` is NULL and an empty unquoted field is the default.

use std::borrow::Cow;
use std::collections::HashMap;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::escape::{shorten, unescape_tsv};
use granary_types::ChType;

use super::rows::{Block, Parallelism, RowFormat, Scan, Streamer};
use crate::{FormatSettings, InputFormat};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Tsv,
    /// TabSeparatedRaw: no escapes.
    TsvRaw,
    Csv,
}

/// The CSV scanner's state inside a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CsvState {
    FieldStart,
    Unquoted,
    Quoted(u8),
    /// A quote was seen inside a quoted field: either a doubled quote or the end.
    QuoteSeen(u8),
}

#[derive(Clone)]
struct DelimitedRows {
    dialect: Dialect,
    delimiter: u8,
    allow_double_quotes: bool,
    allow_single_quotes: bool,
    /// Header lines still to read (names, then types).
    header_lines: usize,
    names_read: bool,
    use_header: bool,
    skip_unknown_fields: bool,
    names: HashMap<String, usize>,
    /// For each input field, the target column (None: skipped).
    mapping: Vec<Option<usize>>,
    /// Target columns absent from the input (filled with defaults).
    missing: Vec<usize>,
    /// Bytes of the current row already scanned (resumed on the next push).
    resume: usize,
    csv_state: CsvState,
    /// Decoded field bytes (escapes, doubled quotes).
    scratch: Vec<u8>,
    /// Field boundaries of the current row (reused between rows).
    fields: Vec<Field>,
}

/// One field of a row: where its text is, and whether it needs decoding.
#[derive(Debug, Clone, Copy)]
struct Field {
    start: usize,
    end: usize,
    /// CSV: the field was quoted (its quotes excluded from start..end).
    quoted: Option<u8>,
}

impl DelimitedRows {
    /// ClickHouse reads a number as far as it looks like one and then expects the
    /// delimiter, so a bad number (`x`, `3x`) fails as a missing delimiter after the
    /// digits it read (or, for the last CSV field, a missing end of line), not as a
    /// conversion error. A float with no digits at all keeps its CANNOT_PARSE_NUMBER.
    fn number_error(&self, error: Error, ch_type: &ChType, row: &[u8], field: Field, last: bool) -> Error {
        let base = ch_type.base();
        let integer = matches!(base, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64);
        let float = matches!(base, ChType::Float32 | ChType::Float64);
        let text = &row[field.start..field.end];
        let numeric_prefix = text.iter().enumerate().take_while(|(i, b)| b.is_ascii_digit() || (*i == 0 && matches!(b, b'-' | b'+')) || (float && matches!(b, b'.' | b'e' | b'E'))).count();
        let reclassify = (integer && error.code() == ErrorCode::CANNOT_PARSE_TEXT) || (float && error.code() == ErrorCode::CANNOT_PARSE_NUMBER && numeric_prefix > 0);
        if !reclassify {
            return error;
        }
        if let Some(quote) = field.quoted {
            let rest = &row[field.start + numeric_prefix..];
            return Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '{}' before: '{}'", quote as char, shorten(rest)));
        }
        let rest = &row[field.start + numeric_prefix..];
        match (last, self.dialect) {
            (true, Dialect::Csv) => Error::new(ErrorCode::INCORRECT_DATA, "Expected end of line"),
            (true, _) => Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '\\n' before: '{}'", shorten(rest))),
            (false, _) => Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '{}' before: '{}'", self.delimiter_text(), shorten(rest))),
        }
    }

    fn delimiter_text(&self) -> &'static str {
        match self.delimiter {
            b'\t' => "\\t",
            b',' => ",",
            b';' => ";",
            b'|' => "|",
            _ => "the delimiter",
        }
    }

    fn scan_tsv(&mut self, data: &[u8], from: usize, eof: bool) -> Scan {
        let mut i = from + self.resume;
        loop {
            let Some(offset) = memchr::memchr2(b'\n', b'\\', &data[i..]) else {
                i = data.len();
                break;
            };
            let at = i + offset;
            if data[at] == b'\n' {
                self.resume = 0;
                return Scan::Row { start: from, end: at, next: at + 1 };
            }
            if self.dialect == Dialect::TsvRaw {
                i = at + 1;
            } else if at + 1 >= data.len() {
                // The escaped byte has not arrived yet: resume at the backslash.
                i = at;
                break;
            } else {
                // An escaped byte, an escaped line feed included, is part of the field.
                i = at + 2;
            }
        }
        if eof {
            self.resume = 0;
            return if from < data.len() { Scan::Row { start: from, end: data.len(), next: data.len() } } else { Scan::Skip { next: data.len() } };
        }
        self.resume = i - from;
        Scan::NeedMore { start: from }
    }

    fn is_quote(&self, b: u8) -> bool {
        (b == b'"' && self.allow_double_quotes) || (b == b'\'' && self.allow_single_quotes)
    }

    fn scan_csv(&mut self, data: &[u8], from: usize, eof: bool) -> Scan {
        let mut i = from + self.resume;
        let mut state = if self.resume == 0 { CsvState::FieldStart } else { self.csv_state };
        while i < data.len() {
            let b = data[i];
            match state {
                CsvState::Quoted(q) => match memchr::memchr(q, &data[i..]) {
                    Some(offset) => {
                        i += offset + 1;
                        state = CsvState::QuoteSeen(q);
                        continue;
                    }
                    None => break,
                },
                CsvState::QuoteSeen(q) if b == q => {
                    state = CsvState::Quoted(q);
                    i += 1;
                    continue;
                }
                _ => {}
            }
            if b == b'\n' {
                let end = if i > from && data[i - 1] == b'\r' && !matches!(state, CsvState::Quoted(_)) { i - 1 } else { i };
                self.resume = 0;
                return Scan::Row { start: from, end, next: i + 1 };
            }
            state = if b == self.delimiter {
                CsvState::FieldStart
            } else if state == CsvState::FieldStart && self.is_quote(b) {
                CsvState::Quoted(b)
            } else if state == CsvState::FieldStart && (b == b' ' || b == b'\t') {
                CsvState::FieldStart
            } else {
                CsvState::Unquoted
            };
            i += 1;
        }
        if eof && !matches!(state, CsvState::Quoted(_)) {
            self.resume = 0;
            if from >= data.len() {
                return Scan::Skip { next: data.len() };
            }
            let end = if data.ends_with(b"\r") { data.len() - 1 } else { data.len() };
            return Scan::Row { start: from, end, next: data.len() };
        }
        self.resume = data.len() - from;
        self.csv_state = state;
        Scan::NeedMore { start: from }
    }

    /// Splits a TSV row at tabs.
    fn split_tsv(&mut self, row: &[u8]) {
        self.fields.clear();
        let mut start = 0;
        for at in memchr::memchr_iter(b'\t', row) {
            self.fields.push(Field { start, end: at, quoted: None });
            start = at + 1;
        }
        self.fields.push(Field { start, end: row.len(), quoted: None });
    }

    /// Splits a CSV row at delimiters outside quotes.
    fn split_csv(&mut self, row: &[u8]) -> Result<()> {
        self.fields.clear();
        let mut i = 0;
        loop {
            // Leading spaces of a field are not part of it.
            while i < row.len() && (row[i] == b' ' || row[i] == b'\t') && row[i] != self.delimiter {
                i += 1;
            }
            if i < row.len() && self.is_quote(row[i]) {
                let q = row[i];
                let start = i + 1;
                let mut j = start;
                loop {
                    match memchr::memchr(q, &row[j..]) {
                        Some(offset) if row.get(j + offset + 1) == Some(&q) => j += offset + 2,
                        Some(offset) => {
                            j += offset;
                            break;
                        }
                        None => {
                            return Err(Error::new(
                                ErrorCode::CANNOT_PARSE_QUOTED_STRING,
                                format!("Cannot parse input: unterminated quoted field: '{}'", shorten(&row[i..])),
                            ))
                        }
                    }
                }
                self.fields.push(Field { start, end: j, quoted: Some(q) });
                i = j + 1;
                while i < row.len() && (row[i] == b' ' || row[i] == b'\t') && row[i] != self.delimiter {
                    i += 1;
                }
                match row.get(i) {
                    None => return Ok(()),
                    Some(b) if *b == self.delimiter => i += 1,
                    Some(_) => {
                        return Err(Error::new(
                            ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                            format!("Cannot parse input: expected '{}' before: '{}'", self.delimiter_text(), shorten(&row[i..])),
                        ))
                    }
                }
            } else {
                let start = i;
                let end = memchr::memchr(self.delimiter, &row[i..]).map_or(row.len(), |o| i + o);
                let mut trimmed_end = end;
                while trimmed_end > start && (row[trimmed_end - 1] == b' ' || row[trimmed_end - 1] == b'\t') {
                    trimmed_end -= 1;
                }
                self.fields.push(Field { start, end: trimmed_end, quoted: None });
                if end == row.len() {
                    return Ok(());
                }
                i = end + 1;
            }
        }
    }

    fn split(&mut self, row: &[u8]) -> Result<()> {
        match self.dialect {
            Dialect::Csv => self.split_csv(row),
            _ => {
                self.split_tsv(row);
                Ok(())
            }
        }
    }

    /// The decoded text of a field (borrowed when nothing needs decoding).
    fn decode<'a>(&self, row: &'a [u8], field: Field, scratch: &'a mut Vec<u8>) -> Cow<'a, [u8]> {
        let text = &row[field.start..field.end];
        match (self.dialect, field.quoted) {
            (Dialect::Tsv, _) if memchr::memchr(b'\\', text).is_some() => {
                scratch.clear();
                unescape_tsv(text, scratch);
                Cow::Borrowed(scratch.as_slice())
            }
            (Dialect::Csv, Some(q)) if memchr::memchr(q, text).is_some() => {
                scratch.clear();
                let mut start = 0;
                let mut i = 0;
                while let Some(offset) = memchr::memchr(q, &text[i..]) {
                    let at = i + offset;
                    scratch.extend_from_slice(&text[start..=at]);
                    // Skip the second quote of the pair.
                    i = at + 2;
                    start = i;
                }
                scratch.extend_from_slice(&text[start.min(text.len())..]);
                Cow::Borrowed(scratch.as_slice())
            }
            _ => Cow::Borrowed(text),
        }
    }

    fn read_header(&mut self, row: &[u8]) -> Result<()> {
        self.header_lines -= 1;
        if self.names_read {
            // The types line of *WithNamesAndTypes: the table's types are used.
            return Ok(());
        }
        self.names_read = true;
        if !self.use_header {
            return Ok(());
        }
        self.split(row)?;
        let fields = std::mem::take(&mut self.fields);
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut mapping = Vec::with_capacity(fields.len());
        let mut used = vec![false; self.names.len()];
        let mut result = Ok(());
        for (position, field) in fields.iter().enumerate() {
            let name = String::from_utf8_lossy(&self.decode(row, *field, &mut scratch)).into_owned();
            match self.names.get(&name) {
                Some(&column) if used[column] => {
                    result = Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Duplicate field found while parsing header: '{name}'")));
                    break;
                }
                Some(&column) => {
                    used[column] = true;
                    mapping.push(Some(column));
                }
                None if self.skip_unknown_fields => mapping.push(None),
                None => {
                    result = Err(Error::new(
                        ErrorCode::INCORRECT_DATA,
                        format!(
                            "Unknown field found in header: '{name}' at position {}. Set the 'input_format_skip_unknown_fields' parameter explicitly to ignore and proceed",
                            position + 1
                        ),
                    ));
                    break;
                }
            }
        }
        self.fields = fields;
        self.scratch = scratch;
        result?;
        self.missing = (0..used.len()).filter(|c| !used[*c]).collect();
        self.mapping = mapping;
        Ok(())
    }
}

impl RowFormat for DelimitedRows {
    fn scan(&mut self, data: &[u8], from: usize, eof: bool) -> Result<Scan> {
        let scan = match self.dialect {
            Dialect::Csv => self.scan_csv(data, from, eof),
            _ => self.scan_tsv(data, from, eof),
        };
        // Empty lines are not rows when they cannot be one (more than one column).
        if let Scan::Row { start, end, next } = scan {
            if start == end && (self.mapping.len() != 1 || self.header_lines > 0) {
                return Ok(Scan::Skip { next });
            }
        }
        Ok(scan)
    }

    fn in_header(&self) -> bool {
        self.header_lines > 0
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.header_lines > 0 {
            return self.read_header(row);
        }
        self.split(row).map_err(|e| block.row_error(e))?;
        let expected = self.mapping.len();
        if self.fields.len() != expected {
            let (what, rest) = if self.fields.len() < expected {
                (self.delimiter_text(), &b"\n"[..])
            } else {
                ("\\n", &row[self.fields[expected].start.saturating_sub(1)..])
            };
            return Err(block.row_error(Error::new(
                ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                format!(
                    "Cannot parse input: expected '{what}' before: '{}': the row has {} fields, {} are expected",
                    shorten(rest),
                    self.fields.len(),
                    expected
                ),
            )));
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut result = Ok(());
        for (position, field) in self.fields.iter().enumerate() {
            let Some(column) = self.mapping[position] else { continue };
            let text = &row[field.start..field.end];
            let step = if field.quoted.is_none() && text == b"\\N" {
                block.builders[column].append_null()
            } else if self.dialect == Dialect::Csv && field.quoted.is_none() && text.is_empty() && block.builders[column].is_nullable() {
                // input_format_csv_empty_as_default: the default of a Nullable column is NULL.
                block.builders[column].append_null()
            } else if self.dialect == Dialect::TsvRaw
                || (self.dialect == Dialect::Tsv && matches!(block.builders[column].ch_type().base(), ChType::Array(_) | ChType::Tuple(_) | ChType::Map(..)))
            {
                // Arrays, tuples and maps are read from the escaped text directly: their
                // quoted elements keep their own backslash escapes (`['b\'c']`).
                block.builders[column].parse_text(text)
            } else {
                let decoded = self.decode(row, *field, &mut scratch);
                block.builders[column].parse_text(&decoded)
            };
            if let Err(e) = step {
                let e = self.number_error(e, block.builders[column].ch_type(), row, *field, position + 1 == self.fields.len());
                result = Err(block.column_error(e, column));
                break;
            }
        }
        self.scratch = scratch;
        result?;
        for &column in &self.missing {
            block.builders[column].append_default().map_err(|e| block.column_error(e, column))?;
        }
        block.commit_row(out)
    }
}

/// The `TabSeparated*` and `CSV*` input formats.
pub struct DelimitedInput {
    streamer: Streamer<DelimitedRows>,
}

impl DelimitedInput {
    /// `header_lines`: 0, 1 (`WithNames`) or 2 (`WithNamesAndTypes`).
    pub fn new(schema: SchemaRef, dialect: Dialect, header_lines: usize, settings: &FormatSettings) -> Result<Self> {
        let columns = schema.fields().len();
        let names = schema.fields().iter().enumerate().map(|(i, f)| (f.name().clone(), i)).collect();
        let rows = DelimitedRows {
            dialect,
            delimiter: if dialect == Dialect::Csv { settings.text.csv_delimiter } else { b'\t' },
            allow_double_quotes: settings.csv_allow_double_quotes,
            allow_single_quotes: settings.csv_allow_single_quotes,
            header_lines,
            names_read: false,
            use_header: settings.with_names_use_header,
            skip_unknown_fields: settings.skip_unknown_fields,
            names,
            mapping: (0..columns).map(Some).collect(),
            missing: Vec::new(),
            resume: 0,
            csv_state: CsvState::FieldStart,
            scratch: Vec::new(),
            fields: Vec::with_capacity(columns),
        };
        Ok(DelimitedInput { streamer: Streamer::new(rows, Block::new(schema, settings)?, Parallelism::from_settings(settings)) })
    }
}

impl InputFormat for DelimitedInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.push(data, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.finish(out)
    }
}
