//! Streaming input formats: bytes in any split, batches of the target columns out.
//!
//! Text formats cut the buffered bytes at row boundaries, collect each target column's
//! field texts, and convert a column at a time ([`crate::convert`]). Chunk-parallel
//! parsing (issue: object storage ingestion) hooks in at the row-boundary cut: chunks can
//! be handed to threads and their batches re-ordered.

use std::io::Write;

use arrow::array::{ArrayRef, StringBuilder};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use granary_common::{Error, ErrorCode, Result};

use crate::convert::{convert_column, read_quoted, unescape_byte};
use crate::{FormatSettings, InputFormat};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    Tsv,
    Csv,
    JsonEachRow,
    Values,
}

/// Field texts of the rows parsed so far, by target column.
struct Columns {
    schema: SchemaRef,
    builders: Vec<StringBuilder>,
    rows: usize,
    /// Rows already emitted, for error messages.
    emitted: u64,
}

impl Columns {
    fn new(schema: SchemaRef) -> Self {
        let builders = schema.fields().iter().map(|_| StringBuilder::new()).collect();
        Columns { schema, builders, rows: 0, emitted: 0 }
    }

    fn flush(&mut self, settings: &FormatSettings, out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let first_row = self.emitted + 1;
        let columns = self
            .schema
            .fields()
            .iter()
            .zip(self.builders.iter_mut())
            .map(|(field, builder)| convert_column(&builder.finish(), field, first_row, settings.null_as_default))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let options = RecordBatchOptions::new().with_row_count(Some(self.rows));
        out.push(RecordBatch::try_new_with_options(self.schema.clone(), columns, &options)?);
        self.emitted += self.rows as u64;
        self.rows = 0;
        Ok(())
    }
}

pub struct TextInput {
    kind: TextKind,
    settings: FormatSettings,
    columns: Columns,
    buffer: Vec<u8>,
    /// Header lines still to read (WithNames: 1, WithNamesAndTypes: 2).
    header_lines: usize,
    header_names_read: bool,
    /// For each field position of the input, the target column (None: skipped).
    mapping: Vec<Option<usize>>,
    /// Names of the target columns, for JSON keys.
    names: Vec<String>,
    delimiter: u8,
}

impl TextInput {
    pub fn new(kind: TextKind, schema: SchemaRef, settings: &FormatSettings, header_lines: usize) -> Self {
        let names = schema.fields().iter().map(|f| f.name().clone()).collect();
        let delimiter = if kind == TextKind::Csv { settings.text.csv_delimiter } else { b'\t' };
        TextInput {
            kind,
            settings: settings.clone(),
            mapping: (0..schema.fields().len()).map(Some).collect(),
            columns: Columns::new(schema),
            buffer: Vec::new(),
            header_lines,
            header_names_read: false,
            names,
            delimiter,
        }
    }

    fn row_error(&self, what: &str) -> Error {
        Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: {what} (at row {})", self.columns.emitted + self.columns.rows as u64 + 1))
    }

    /// Parses the complete rows in the buffer; keeps an incomplete tail unless `last`.
    fn parse_buffer(&mut self, last: bool, out: &mut Vec<RecordBatch>) -> Result<()> {
        let buffer = std::mem::take(&mut self.buffer);
        let mut pos = 0;
        loop {
            let consumed = match self.kind {
                TextKind::Tsv | TextKind::Csv => self.delimited_row(&buffer[pos..], last)?,
                TextKind::JsonEachRow => self.json_row(&buffer[pos..], last)?,
                TextKind::Values => self.values_row(&buffer[pos..], last)?,
            };
            match consumed {
                Some(n) => {
                    pos += n;
                    if self.columns.rows >= self.settings.max_block_rows {
                        self.columns.flush(&self.settings, out)?;
                    }
                }
                None => break,
            }
        }
        self.buffer = buffer[pos..].to_vec();
        Ok(())
    }

    /// One TSV/CSV row: returns the bytes consumed, or None if the row is incomplete.
    fn delimited_row(&mut self, data: &[u8], last: bool) -> Result<Option<usize>> {
        if data.is_empty() {
            return Ok(None);
        }
        let mut fields: Vec<Option<Vec<u8>>> = Vec::with_capacity(self.mapping.len());
        let mut i = 0;
        let mut field = Vec::new();
        let mut quoted = false;
        loop {
            if i >= data.len() {
                if !last {
                    return Ok(None);
                }
                fields.push(finish_field(&field, quoted, self.kind));
                break;
            }
            let b = data[i];
            if self.kind == TextKind::Csv && field.is_empty() && !quoted && (b == b'"' || (b == b'\'' && self.settings.csv_allow_single_quotes)) {
                match read_csv_quoted(data, i) {
                    Some((value, next)) => {
                        field = value;
                        quoted = true;
                        i = next;
                        continue;
                    }
                    None if last => return Err(self.row_error("unterminated quoted field")),
                    None => return Ok(None),
                }
            }
            if b == self.delimiter {
                fields.push(finish_field(&field, quoted, self.kind));
                field.clear();
                quoted = false;
                i += 1;
                continue;
            }
            if b == b'\n' || (b == b'\r' && data.get(i + 1) == Some(&b'\n')) {
                fields.push(finish_field(&field, quoted, self.kind));
                i += if b == b'\r' { 2 } else { 1 };
                break;
            }
            if b == b'\\' && self.kind == TextKind::Tsv {
                match data.get(i + 1) {
                    Some(&next) => {
                        if next == b'N' && field.is_empty() {
                            field.extend_from_slice(b"\\N");
                        } else {
                            field.push(unescape_byte(next));
                        }
                        i += 2;
                        continue;
                    }
                    None if !last => return Ok(None),
                    None => return Err(self.row_error("backslash at the end of input")),
                }
            }
            field.push(b);
            i += 1;
        }
        if self.header_lines > 0 {
            // The first header line has the names; a second one (WithNamesAndTypes) the types.
            if !self.header_names_read {
                self.apply_header(&fields)?;
                self.header_names_read = true;
            }
            self.header_lines -= 1;
            return Ok(Some(i));
        }
        if fields.len() == 1 && fields[0].as_deref() == Some(b"") && self.mapping.len() != 1 {
            // An empty line (for example a trailing one) is not a row.
            return Ok(Some(i));
        }
        if fields.len() != self.mapping.len() {
            return Err(self.row_error(&format!("expected {} fields, found {}", self.mapping.len(), fields.len())));
        }
        self.push_row(fields.into_iter().map(|f| f.map(|v| String::from_utf8_lossy(&v).into_owned())).collect());
        Ok(Some(i))
    }

    /// Maps input positions to target columns by the header's names.
    fn apply_header(&mut self, fields: &[Option<Vec<u8>>]) -> Result<()> {
        let names: Vec<String> = fields.iter().map(|f| String::from_utf8_lossy(f.as_deref().unwrap_or_default()).into_owned()).collect();
        if names.iter().all(|n| self.names.contains(n)) || self.settings.skip_unknown_fields {
            self.mapping = names.iter().map(|n| self.names.iter().position(|t| t == n)).collect();
            return Ok(());
        }
        let unknown: Vec<&String> = names.iter().filter(|n| !self.names.contains(n)).collect();
        Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Unknown field found while parsing header: {unknown:?}")))
    }

    fn push_row(&mut self, fields: Vec<Option<String>>) {
        let width = self.columns.builders.len();
        let mut row: Vec<Option<String>> = vec![None; width];
        for (value, target) in fields.into_iter().zip(self.mapping.iter()) {
            if let Some(t) = target {
                row[*t] = value;
            }
        }
        for (builder, value) in self.columns.builders.iter_mut().zip(row) {
            match value {
                Some(v) => builder.append_value(v),
                None => builder.append_null(),
            }
        }
        self.columns.rows += 1;
    }

    fn json_row(&mut self, data: &[u8], last: bool) -> Result<Option<usize>> {
        let start = data.iter().position(|b| !b.is_ascii_whitespace() && *b != b',').unwrap_or(data.len());
        if start == data.len() {
            return Ok(if last && start > 0 { Some(start) } else { None });
        }
        let mut stream = serde_json::Deserializer::from_slice(&data[start..]).into_iter::<serde_json::Map<String, serde_json::Value>>();
        match stream.next() {
            Some(Ok(object)) => {
                let consumed = start + stream.byte_offset();
                let mut row: Vec<Option<String>> = vec![None; self.columns.builders.len()];
                for (key, value) in object {
                    match self.names.iter().position(|n| *n == key) {
                        Some(i) if i < row.len() => row[i] = json_value_text(value),
                        _ if self.settings.skip_unknown_fields => {}
                        _ => return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Unknown field found while parsing JSONEachRow format: {key}"))),
                    }
                }
                for (builder, value) in self.columns.builders.iter_mut().zip(row) {
                    match value {
                        Some(v) => builder.append_value(v),
                        None => builder.append_null(),
                    }
                }
                self.columns.rows += 1;
                Ok(Some(consumed))
            }
            Some(Err(e)) if e.is_eof() && !last => Ok(None),
            Some(Err(e)) => Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Cannot parse JSON object here: {e} (at row {})", self.columns.emitted + self.columns.rows as u64 + 1))),
            None => Ok(None),
        }
    }

    /// `(v, v, ...)` with literals only; anything else is a syntax error the caller may
    /// answer by evaluating the VALUES as SQL.
    fn values_row(&mut self, data: &[u8], last: bool) -> Result<Option<usize>> {
        let mut i = 0;
        while i < data.len() && (data[i].is_ascii_whitespace() || data[i] == b',' || data[i] == b';') {
            i += 1;
        }
        if i == data.len() {
            return Ok(if i > 0 && last { Some(i) } else { None });
        }
        if data[i] != b'(' {
            return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse Values: expected '(' at row {}", self.columns.emitted + self.columns.rows as u64 + 1)));
        }
        i += 1;
        let mut fields = Vec::new();
        loop {
            while i < data.len() && data[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= data.len() {
                return if last { Err(self.row_error("unexpected end of Values")) } else { Ok(None) };
            }
            let (value, next) = match data[i] {
                b'\'' => match read_quoted(data, i) {
                    Ok((v, next)) => (Some(v), next),
                    Err(_) if !last => return Ok(None),
                    Err(e) => return Err(self.row_error(&e)),
                },
                b'[' => {
                    let mut depth = 0;
                    let mut j = i;
                    while j < data.len() {
                        match data[j] {
                            b'[' => depth += 1,
                            b']' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            b'\'' => {
                                if let Ok((_, next)) = read_quoted(data, j) {
                                    j = next;
                                    continue;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    if j >= data.len() {
                        return if last { Err(self.row_error("unterminated array")) } else { Ok(None) };
                    }
                    (Some(String::from_utf8_lossy(&data[i..=j]).into_owned()), j + 1)
                }
                _ => {
                    let mut j = i;
                    while j < data.len() && !matches!(data[j], b',' | b')') && !data[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if j >= data.len() && !last {
                        return Ok(None);
                    }
                    let token = String::from_utf8_lossy(&data[i..j]).into_owned();
                    let literal = token.eq_ignore_ascii_case("null")
                        || token.eq_ignore_ascii_case("true")
                        || token.eq_ignore_ascii_case("false")
                        || token.parse::<f64>().is_ok()
                        || matches!(token.to_ascii_lowercase().as_str(), "inf" | "-inf" | "nan");
                    if !literal {
                        return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse expression '{token}' in Values: only literals are read by the fast parser")));
                    }
                    (if token.eq_ignore_ascii_case("null") { None } else { Some(token) }, j)
                }
            };
            fields.push(value);
            i = next;
            while i < data.len() && data[i].is_ascii_whitespace() {
                i += 1;
            }
            match data.get(i) {
                Some(b',') => i += 1,
                Some(b')') => {
                    i += 1;
                    break;
                }
                Some(other) => return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse Values: unexpected '{}' (at row {})", *other as char, self.columns.emitted + self.columns.rows as u64 + 1))),
                None if !last => return Ok(None),
                None => return Err(self.row_error("unexpected end of Values")),
            }
        }
        if fields.len() != self.mapping.len() {
            return Err(self.row_error(&format!("expected {} values, found {}", self.mapping.len(), fields.len())));
        }
        self.push_row(fields);
        Ok(Some(i))
    }
}

fn finish_field(field: &[u8], quoted: bool, kind: TextKind) -> Option<Vec<u8>> {
    if !quoted && field == b"\\N" {
        return None;
    }
    if kind == TextKind::Csv && !quoted && field == b"NULL" {
        return None;
    }
    Some(field.to_vec())
}

/// A CSV quoted field starting at `start`: its value and the index after the closing quote.
fn read_csv_quoted(data: &[u8], start: usize) -> Option<(Vec<u8>, usize)> {
    let quote = data[start];
    let mut out = Vec::new();
    let mut i = start + 1;
    while i < data.len() {
        if data[i] == quote {
            if data.get(i + 1) == Some(&quote) {
                out.push(quote);
                i += 2;
                continue;
            }
            return Some((out, i + 1));
        }
        out.push(data[i]);
        i += 1;
    }
    None
}

fn json_value_text(value: serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s),
        serde_json::Value::Bool(b) => Some(if b { "true".into() } else { "false".into() }),
        serde_json::Value::Number(n) => Some(n.to_string()),
        other => Some(other.to_string()),
    }
}

impl InputFormat for TextInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.buffer.extend_from_slice(data);
        self.parse_buffer(false, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.parse_buffer(true, out)?;
        if !self.buffer.iter().all(|b| b.is_ascii_whitespace()) {
            return Err(self.row_error("unexpected data at the end of input"));
        }
        self.columns.flush(&self.settings, out)
    }
}

/// Parquet: the footer is at the end, so the bytes go to a temporary file (not memory)
/// and are decoded at the end, by row group.
pub struct ParquetInput {
    schema: SchemaRef,
    file: tempfile::NamedTempFile,
    max_block_rows: usize,
}

impl ParquetInput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Result<Self> {
        Ok(ParquetInput { schema, file: tempfile::NamedTempFile::new()?, max_block_rows: settings.max_block_rows })
    }
}

impl InputFormat for ParquetInput {
    fn push(&mut self, data: &[u8], _out: &mut Vec<RecordBatch>) -> Result<()> {
        self.file.write_all(data)?;
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.file.flush()?;
        let file = self.file.reopen()?;
        let bad = |e: parquet::errors::ParquetError| Error::new(ErrorCode::INCORRECT_DATA, format!("Cannot read Parquet data: {e}"));
        let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).map_err(bad)?;
        let reader = builder.with_batch_size(self.max_block_rows.max(1)).build().map_err(bad)?;
        for batch in reader {
            let batch = batch?;
            let columns = self
                .schema
                .fields()
                .iter()
                .map(|field| match batch.column_by_name(field.name()) {
                    Some(column) => {
                        let strict = arrow::compute::CastOptions { safe: false, ..Default::default() };
                        arrow::compute::cast_with_options(column, field.data_type(), &strict).map_err(|e| {
                            Error::new(ErrorCode::TYPE_MISMATCH, format!("Cannot convert Parquet column {} to {}: {e}", field.name(), granary_types::ChType::from_field(field)))
                        })
                    }
                    None => Err(Error::new(ErrorCode::THERE_IS_NO_COLUMN, format!("Column {} is not in the Parquet data", field.name()))),
                })
                .collect::<Result<Vec<ArrayRef>>>()?;
            let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
            out.push(RecordBatch::try_new_with_options(self.schema.clone(), columns, &options)?);
        }
        Ok(())
    }
}
