//! JSON formats.
//!
//! * Row streams ([`JsonEachRow`]): `JSONEachRow` (one object per line),
//!   `JSONCompactEachRow` (one array per line, optionally after lines of names and
//!   types), `PrettyJSONEachRow` (objects over several lines, four-space indents), the
//!   `*WithProgress` variants (`{"meta":..}`, `{"row":..}`, `{"totals":..}`, then
//!   `{"progress":..}` and `{"rows_before_limit_at_least":..}` lines) and
//!   `JSONObjectEachRow` (`{"row_1": {..}, ...}`).
//! * Documents ([`JsonDocument`]): `JSON`/`JSONCompact` with `meta`, `data`, `totals`,
//!   `rows` and `statistics`, laid out with ClickHouse's tabs and blank lines, and
//!   `JSONColumnsWithMetadata`, whose `data` is an object of column arrays.
//! * Column documents ([`JsonColumns`]): `JSONColumns` (`{"a": [..], ..}`) and
//!   `JSONCompactColumns` (`[[..], ..]`).
//!
//! Every format has a `*Strings*` twin where each value is its `toString` text (NULL
//! `ᴺᵁᴸᴸ`) in a JSON string; the column-document formats hold the whole result and
//! write it at the end, as ClickHouse does.

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::escape::write_json_string;
use granary_types::text::float::write_f64;
use granary_types::text::{ColumnWriter, TextOptions, TextStyle};
use granary_types::ChType;

use super::{column_writers, type_names};
use crate::{FormatSettings, OutputFormat, QueryStatistics};

/// Column names as JSON strings, escaped once.
fn json_names(schema: &SchemaRef, options: &TextOptions) -> Vec<Vec<u8>> {
    schema
        .fields()
        .iter()
        .map(|f| {
            let mut name = Vec::with_capacity(f.name().len() + 2);
            write_json_string(f.name().as_bytes(), options.json_escape_forward_slashes, &mut name);
            name
        })
        .collect()
}

/// The values of one batch, as JSON values or (`*Strings*` formats) as JSON strings of
/// their text.
struct Cells {
    writers: Vec<ColumnWriter>,
    strings: bool,
    escape_slash: bool,
    scratch: Vec<u8>,
}

impl Cells {
    fn new(schema: &SchemaRef, batch: &RecordBatch, strings: bool, options: &TextOptions) -> Result<Cells> {
        let style = if strings { TextStyle::Pretty } else { TextStyle::Json };
        Ok(Cells { writers: column_writers(schema, batch, style, options)?, strings, escape_slash: options.json_escape_forward_slashes, scratch: Vec::new() })
    }

    fn write(&mut self, column: usize, row: usize, out: &mut Vec<u8>) {
        let writer = &self.writers[column];
        if self.strings {
            self.scratch.clear();
            writer.write(row, &mut self.scratch);
            write_json_string(&self.scratch, self.escape_slash, out);
        } else {
            writer.write(row, out);
        }
    }

    /// Composites over several lines (`output_format_json_pretty_print`), `indent`
    /// levels of `unit` deep.
    fn write_pretty(&mut self, column: usize, row: usize, indent: usize, unit: &[u8], out: &mut Vec<u8>) {
        if self.strings {
            self.write(column, row, out);
        } else {
            self.writers[column].write_json_pretty_with(row, indent, unit, out);
        }
    }

    /// `v1<separator>v2...` of one row.
    fn write_list(&mut self, row: usize, separator: &[u8], out: &mut Vec<u8>) {
        for column in 0..self.writers.len() {
            if column > 0 {
                out.extend_from_slice(separator);
            }
            self.write(column, row, out);
        }
    }

    /// `{"a":v1,"b":v2}` of one row (without column `skip`).
    fn write_object(&mut self, row: usize, names: &[Vec<u8>], skip: Option<usize>, out: &mut Vec<u8>) {
        out.push(b'{');
        let mut first = true;
        for column in 0..self.writers.len() {
            if Some(column) == skip {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            out.extend_from_slice(&names[column]);
            out.push(b':');
            self.write(column, row, out);
        }
        out.push(b'}');
    }
}

/// The layout of a row-stream JSON format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EachRow {
    /// `{"a":1,"b":2}` per line.
    Object,
    /// `[1, 2]` per line.
    Compact,
    /// An object over several lines, indented with four spaces.
    Pretty,
    /// `{"row_1": {...}, ...}`: one object keyed by row number.
    ObjectOfRows,
}

/// The row-stream JSON formats.
pub struct JsonEachRow {
    schema: SchemaRef,
    layout: EachRow,
    strings: bool,
    /// Header lines of a compact stream: names, names and types.
    header_names: bool,
    header_types: bool,
    /// `*WithProgress`: meta, `{"row":..}` lines, totals, progress.
    progress: bool,
    /// `output_format_json_array_of_rows`: the rows of (Pretty)JSONEachRow in one array.
    array_of_rows: bool,
    /// `JSONObjectEachRow` with `format_json_object_each_row_column_for_object_name`:
    /// the String column whose values name the rows.
    name_column: Option<usize>,
    names: Vec<Vec<u8>>,
    rows: u64,
    options: TextOptions,
}

impl JsonEachRow {
    pub fn new(schema: SchemaRef, layout: EachRow, strings: bool, settings: &FormatSettings) -> Self {
        let names = json_names(&schema, &settings.text);
        JsonEachRow {
            schema,
            array_of_rows: matches!(layout, EachRow::Object | EachRow::Pretty) && settings.json_array_of_rows,
            layout,
            strings,
            header_names: false,
            header_types: false,
            progress: false,
            name_column: None,
            names,
            rows: 0,
            options: settings.text.clone(),
        }
    }

    /// `JSONObjectEachRow`, with ClickHouse's checks of the name column setting.
    pub fn object_of_rows(schema: SchemaRef, settings: &FormatSettings) -> Result<Self> {
        let mut format = JsonEachRow::new(schema, EachRow::ObjectOfRows, false, settings);
        let name = &settings.json_object_name_column;
        if !name.is_empty() {
            let column = format.schema.fields().iter().position(|f| f.name() == name).ok_or_else(|| {
                Error::new(ErrorCode::BAD_ARGUMENTS, format!("Column name '{name}' from setting format_json_object_each_row_column_for_object_name doesn't exists in header"))
            })?;
            if ChType::from_field(&format.schema.fields()[column]) != ChType::String {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Column '{name}' from setting json_object_each_row_column_for_object_name must have String type")));
            }
            format.name_column = Some(column);
        }
        Ok(format)
    }

    /// `*WithNames` (`types`: `*WithNamesAndTypes`): header lines before the rows.
    pub fn with_header(mut self, types: bool) -> Self {
        self.header_names = true;
        self.header_types = types;
        self
    }

    /// `*WithProgress`.
    pub fn with_progress(mut self) -> Self {
        self.progress = true;
        self.array_of_rows = false;
        self
    }

    fn write_row(&self, cells: &mut Cells, row: usize, out: &mut Vec<u8>) {
        match self.layout {
            EachRow::Compact => {
                out.push(b'[');
                cells.write_list(row, b", ", out);
                out.push(b']');
            }
            EachRow::Object | EachRow::ObjectOfRows => cells.write_object(row, &self.names, self.name_column, out),
            EachRow::Pretty => {
                out.extend_from_slice(b"{\n");
                for column in 0..self.names.len() {
                    if column > 0 {
                        out.extend_from_slice(b",\n");
                    }
                    out.extend_from_slice(b"    ");
                    out.extend_from_slice(&self.names[column]);
                    out.extend_from_slice(b": ");
                    cells.write_pretty(column, row, 1, b"    ", out);
                }
                out.extend_from_slice(b"\n}");
            }
        }
    }
}

impl OutputFormat for JsonEachRow {
    fn content_type(&self) -> &'static str {
        match self.layout {
            EachRow::ObjectOfRows => "application/json; charset=UTF-8",
            _ => "application/x-ndjson; charset=UTF-8",
        }
    }

    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()> {
        if self.progress {
            out.extend_from_slice(b"{\"meta\":[");
            for (i, (name, type_name)) in self.names.iter().zip(type_names(&self.schema)).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"name\":");
                out.extend_from_slice(name);
                out.extend_from_slice(b",\"type\":");
                write_json_string(type_name.as_bytes(), self.options.json_escape_forward_slashes, out);
                out.push(b'}');
            }
            out.extend_from_slice(b"]}\n");
        }
        if self.header_names {
            out.push(b'[');
            out.extend_from_slice(&self.names.join(&b", "[..]));
            out.extend_from_slice(b"]\n");
        }
        if self.header_types {
            out.push(b'[');
            for (i, type_name) in type_names(&self.schema).iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                write_json_string(type_name.as_bytes(), self.options.json_escape_forward_slashes, out);
            }
            out.extend_from_slice(b"]\n");
        }
        if self.layout == EachRow::ObjectOfRows {
            out.extend_from_slice(b"{\n");
        }
        if self.array_of_rows {
            out.extend_from_slice(b"[\n");
        }
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        let mut cells = Cells::new(&self.schema, batch, self.strings, &self.options)?;
        for row in 0..batch.num_rows() {
            self.rows += 1;
            if self.layout == EachRow::ObjectOfRows {
                if self.rows > 1 {
                    out.extend_from_slice(b",\n");
                }
                match self.name_column {
                    Some(column) => {
                        // ClickHouse writes the name as it is, without JSON escapes.
                        let mut name = Vec::new();
                        ColumnWriter::new(&self.schema.fields()[column], batch.column(column), TextStyle::Raw, &self.options)?.write(row, &mut name);
                        out.extend_from_slice(b"\t\"");
                        out.extend_from_slice(&name);
                        out.extend_from_slice(b"\": ");
                    }
                    None => out.extend_from_slice(format!("\t\"row_{}\": ", self.rows).as_bytes()),
                }
                self.write_row(&mut cells, row, out);
                continue;
            }
            if self.array_of_rows {
                if self.rows > 1 {
                    out.extend_from_slice(b",\n");
                }
                self.write_row(&mut cells, row, out);
                continue;
            }
            if self.progress {
                out.extend_from_slice(b"{\"row\":");
            }
            self.write_row(&mut cells, row, out);
            if self.progress {
                out.push(b'}');
            }
            out.push(b'\n');
        }
        Ok(())
    }

    /// Only the `*WithProgress` formats have a place for totals.
    fn write_totals(&mut self, totals: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        if !self.progress || totals.num_rows() == 0 {
            return Ok(());
        }
        let mut cells = Cells::new(&self.schema, totals, self.strings, &self.options)?;
        out.extend_from_slice(b"{\"totals\":");
        self.write_row(&mut cells, 0, out);
        out.extend_from_slice(b"}\n");
        Ok(())
    }

    fn write_suffix(&mut self, stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        if self.layout == EachRow::ObjectOfRows {
            out.extend_from_slice(b"\n}\n");
        }
        if self.array_of_rows {
            out.extend_from_slice(b"\n]\n");
        }
        if self.progress {
            // ClickHouse writes a progress line whenever rows were read, with the
            // counters that are not zero.
            if stats.rows_read > 0 || stats.bytes_read > 0 {
                out.extend_from_slice(b"{\"progress\":{");
                let elapsed_ns = stats.elapsed.as_nanos().min(u64::MAX as u128) as u64;
                let mut first = true;
                for (name, value) in [("read_rows", stats.rows_read), ("read_bytes", stats.bytes_read), ("elapsed_ns", elapsed_ns)] {
                    if value == 0 {
                        continue;
                    }
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    out.extend_from_slice(format!("\"{name}\":\"{value}\"").as_bytes());
                }
                out.extend_from_slice(b"}}\n");
            }
            if let Some(rows) = stats.rows_before_limit {
                out.extend_from_slice(format!("{{\"rows_before_limit_at_least\":{rows}}}\n").as_bytes());
            }
        }
        Ok(())
    }
}

/// How a JSON document holds its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentData {
    /// `JSON`: an array of objects.
    Objects,
    /// `JSONCompact`: an array of arrays.
    Arrays,
    /// `JSONColumnsWithMetadata`: an object of column arrays.
    Columns,
}

/// `JSON`, `JSONCompact`, `JSONStrings`, `JSONCompactStrings`, `JSONColumnsWithMetadata`.
pub struct JsonDocument {
    schema: SchemaRef,
    data: DocumentData,
    strings: bool,
    names: Vec<Vec<u8>>,
    rows: u64,
    /// `Columns`: the whole result, written by the suffix.
    batches: Vec<RecordBatch>,
    /// The `"totals"` member, written by the suffix.
    totals: Option<Vec<u8>>,
    write_statistics: bool,
    options: TextOptions,
}

impl JsonDocument {
    pub fn new(schema: SchemaRef, data: DocumentData, strings: bool, settings: &FormatSettings) -> Self {
        let names = json_names(&schema, &settings.text);
        JsonDocument {
            schema,
            data,
            strings,
            names,
            rows: 0,
            batches: Vec::new(),
            totals: None,
            write_statistics: settings.write_statistics,
            options: settings.text.clone(),
        }
    }
}

impl OutputFormat for JsonDocument {
    fn content_type(&self) -> &'static str {
        "application/json; charset=UTF-8"
    }

    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(b"{\n\t\"meta\":\n\t[");
        for (i, (name, type_name)) in self.names.iter().zip(type_names(&self.schema)).enumerate() {
            out.extend_from_slice(if i > 0 { b",\n\t\t{\n\t\t\t\"name\": " } else { b"\n\t\t{\n\t\t\t\"name\": " });
            out.extend_from_slice(name);
            out.extend_from_slice(b",\n\t\t\t\"type\": ");
            write_json_string(type_name.as_bytes(), self.options.json_escape_forward_slashes, out);
            out.extend_from_slice(b"\n\t\t}");
        }
        out.extend_from_slice(if self.data == DocumentData::Columns { b"\n\t],\n\n\t\"data\":\n\t{\n" } else { b"\n\t],\n\n\t\"data\":\n\t[\n" });
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        if self.data == DocumentData::Columns {
            if batch.num_rows() > 0 {
                self.rows += batch.num_rows() as u64;
                self.batches.push(batch.clone());
            }
            return Ok(());
        }
        let mut cells = Cells::new(&self.schema, batch, self.strings, &self.options)?;
        for row in 0..batch.num_rows() {
            if self.rows > 0 {
                out.extend_from_slice(b",\n");
            }
            self.rows += 1;
            if self.data == DocumentData::Arrays {
                out.extend_from_slice(b"\t\t[");
                cells.write_list(row, b", ", out);
                out.push(b']');
            } else {
                out.extend_from_slice(b"\t\t{");
                for column in 0..self.names.len() {
                    out.extend_from_slice(if column > 0 { b",\n\t\t\t" } else { b"\n\t\t\t" });
                    out.extend_from_slice(&self.names[column]);
                    out.extend_from_slice(b": ");
                    cells.write_pretty(column, row, 3, b"\t", out);
                }
                out.extend_from_slice(b"\n\t\t}");
            }
        }
        Ok(())
    }

    fn write_totals(&mut self, totals: &RecordBatch, _out: &mut Vec<u8>) -> Result<()> {
        let mut cells = Cells::new(&self.schema, totals, self.strings, &self.options)?;
        let mut member = Vec::new();
        if self.data == DocumentData::Arrays {
            member.extend_from_slice(b"\t\"totals\": [");
            cells.write_list(0, b", ", &mut member);
            member.push(b']');
        } else {
            member.extend_from_slice(b"\t\"totals\":\n\t{");
            for column in 0..self.names.len() {
                member.extend_from_slice(if column > 0 { b",\n\t\t" } else { b"\n\t\t" });
                member.extend_from_slice(&self.names[column]);
                member.extend_from_slice(b": ");
                cells.write_pretty(column, 0, 2, b"\t", &mut member);
            }
            member.extend_from_slice(b"\n\t}");
        }
        self.totals = Some(member);
        Ok(())
    }

    fn write_suffix(&mut self, stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        if self.data == DocumentData::Columns {
            // Without rows ClickHouse writes no column at all here.
            let batches = std::mem::take(&mut self.batches);
            if !batches.is_empty() {
                write_columns(&self.schema, &batches, &self.names, self.strings, &self.options, b"\t\t", out)?;
            }
            out.extend_from_slice(b"\n\t},\n\n");
        } else {
            out.extend_from_slice(b"\n\t],\n\n");
        }
        if let Some(totals) = self.totals.take() {
            out.extend_from_slice(&totals);
            out.extend_from_slice(b",\n\n");
        }
        out.extend_from_slice(b"\t\"rows\": ");
        out.extend_from_slice(itoa::Buffer::new().format(self.rows).as_bytes());
        if let Some(rows) = stats.rows_before_limit {
            out.extend_from_slice(b",\n\n\t\"rows_before_limit_at_least\": ");
            out.extend_from_slice(itoa::Buffer::new().format(rows).as_bytes());
        }
        if self.write_statistics {
            out.extend_from_slice(b",\n\n\t\"statistics\":\n\t{\n\t\t\"elapsed\": ");
            write_f64(stats.elapsed.as_secs_f64(), out);
            out.extend_from_slice(b",\n\t\t\"rows_read\": ");
            out.extend_from_slice(itoa::Buffer::new().format(stats.rows_read).as_bytes());
            out.extend_from_slice(b",\n\t\t\"bytes_read\": ");
            out.extend_from_slice(itoa::Buffer::new().format(stats.bytes_read).as_bytes());
            out.extend_from_slice(b"\n\t}");
        }
        out.extend_from_slice(b"\n}\n");
        Ok(())
    }
}

/// The columns of `batches`, one per line after `indent`: `"name": [v, v]` (or `[v, v]`
/// without names), separated by `,\n`.
fn write_columns(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    names: &[Vec<u8>],
    strings: bool,
    options: &TextOptions,
    indent: &[u8],
    out: &mut Vec<u8>,
) -> Result<()> {
    let mut cells = batches.iter().map(|b| Cells::new(schema, b, strings, options)).collect::<Result<Vec<_>>>()?;
    for column in 0..schema.fields().len() {
        if column > 0 {
            out.extend_from_slice(b",\n");
        }
        out.extend_from_slice(indent);
        if let Some(name) = names.get(column) {
            out.extend_from_slice(name);
            out.extend_from_slice(b": ");
        }
        out.push(b'[');
        let mut first = true;
        for (batch, cells) in batches.iter().zip(cells.iter_mut()) {
            for row in 0..batch.num_rows() {
                if !first {
                    out.extend_from_slice(b", ");
                }
                first = false;
                cells.write(column, row, out);
            }
        }
        out.push(b']');
    }
    Ok(())
}

/// `JSONColumns` (`{"a": [..], ...}`) and `JSONCompactColumns` (`[[..], ...]`): the
/// whole result is held and written at the end.
pub struct JsonColumns {
    schema: SchemaRef,
    compact: bool,
    names: Vec<Vec<u8>>,
    batches: Vec<RecordBatch>,
    options: TextOptions,
}

impl JsonColumns {
    pub fn new(schema: SchemaRef, compact: bool, settings: &FormatSettings) -> Self {
        let names = if compact { Vec::new() } else { json_names(&schema, &settings.text) };
        JsonColumns { schema, compact, names, batches: Vec::new(), options: settings.text.clone() }
    }
}

impl OutputFormat for JsonColumns {
    fn content_type(&self) -> &'static str {
        "application/json; charset=UTF-8"
    }

    fn write_prefix(&mut self, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, _out: &mut Vec<u8>) -> Result<()> {
        if batch.num_rows() > 0 {
            self.batches.push(batch.clone());
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        let batches = std::mem::take(&mut self.batches);
        // Without rows ClickHouse still lists the columns of JSONColumns (`"a": []`) but
        // writes no column of JSONCompactColumns.
        out.extend_from_slice(if self.compact { b"[\n" } else { b"{\n" });
        if !self.compact || !batches.is_empty() {
            write_columns(&self.schema, &batches, &self.names, false, &self.options, b"\t", out)?;
        }
        out.extend_from_slice(if self.compact { b"\n]\n" } else { b"\n}\n" });
        Ok(())
    }
}
