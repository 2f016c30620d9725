//! Output formats, written as ClickHouse writes them (checked against chdb).

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::Result;
use granary_types::ChType;

use crate::value::{display_width, escape_tsv, write_json_string, Style, TextOptions, ValueWriter};
use crate::{FormatSettings, OutputFormat, QueryStatistics};

fn writers(batch: &RecordBatch, style: Style, options: &TextOptions) -> Result<Vec<ValueWriter>> {
    batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(f, c)| ValueWriter::new(f, c, style, options))
        .collect()
}

fn type_names(schema: &SchemaRef) -> Vec<String> {
    schema.fields().iter().map(|f| ChType::from_field(f).to_string()).collect()
}

/// TabSeparated and its variants; CSV and its variants (same shape, other rules).
pub struct Delimited {
    schema: SchemaRef,
    style: Style,
    delimiter: u8,
    names: bool,
    types: bool,
    options: TextOptions,
}

impl Delimited {
    pub fn new(schema: SchemaRef, style: Style, names: bool, types: bool, settings: &FormatSettings) -> Self {
        let delimiter = if style == Style::Csv { settings.text.csv_delimiter } else { b'\t' };
        Delimited { schema, style, delimiter, names, types, options: settings.text.clone() }
    }

    fn header_line(&self, values: &[String], out: &mut Vec<u8>) {
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                out.push(self.delimiter);
            }
            match self.style {
                Style::Csv => crate::value::write_string(v.as_bytes(), Style::Csv, out),
                Style::Raw => out.extend_from_slice(v.as_bytes()),
                _ => escape_tsv(v.as_bytes(), out),
            }
        }
        out.push(b'\n');
    }
}

impl OutputFormat for Delimited {
    fn content_type(&self) -> &'static str {
        match self.style {
            Style::Csv => "text/csv; charset=UTF-8; header=absent",
            _ => "text/tab-separated-values; charset=UTF-8",
        }
    }

    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()> {
        if self.names {
            let names: Vec<String> = self.schema.fields().iter().map(|f| f.name().clone()).collect();
            self.header_line(&names, out);
        }
        if self.types {
            let types = type_names(&self.schema);
            self.header_line(&types, out);
        }
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        let columns = writers(batch, self.style, &self.options)?;
        for row in 0..batch.num_rows() {
            for (i, w) in columns.iter().enumerate() {
                if i > 0 {
                    out.push(self.delimiter);
                }
                w.write(row, out);
            }
            out.push(b'\n');
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
}

/// JSONEachRow, JSONCompactEachRow.
pub struct JsonEachRow {
    compact: bool,
    names: Vec<Vec<u8>>,
    options: TextOptions,
}

impl JsonEachRow {
    pub fn new(schema: SchemaRef, compact: bool, settings: &FormatSettings) -> Self {
        let names = schema
            .fields()
            .iter()
            .map(|f| {
                let mut name = Vec::new();
                write_json_string(f.name().as_bytes(), settings.text.json_escape_forward_slashes, &mut name);
                name
            })
            .collect();
        JsonEachRow { compact, names, options: settings.text.clone() }
    }
}

impl OutputFormat for JsonEachRow {
    fn content_type(&self) -> &'static str {
        "application/x-ndjson; charset=UTF-8"
    }

    fn write_prefix(&mut self, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        let columns = writers(batch, Style::Json, &self.options)?;
        for row in 0..batch.num_rows() {
            out.push(if self.compact { b'[' } else { b'{' });
            for (i, w) in columns.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(if self.compact { b", " } else { b"," });
                }
                if !self.compact {
                    out.extend_from_slice(&self.names[i]);
                    out.push(b':');
                }
                w.write(row, out);
            }
            out.extend_from_slice(if self.compact { b"]\n" } else { b"}\n" });
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
}

/// JSON and JSONCompact: one document with meta, data, rows and statistics.
pub struct JsonDocument {
    schema: SchemaRef,
    compact: bool,
    rows: u64,
    write_statistics: bool,
    options: TextOptions,
}

impl JsonDocument {
    pub fn new(schema: SchemaRef, compact: bool, settings: &FormatSettings) -> Self {
        JsonDocument { schema, compact, rows: 0, write_statistics: settings.write_statistics, options: settings.text.clone() }
    }

    fn json_name(&self, name: &str) -> Vec<u8> {
        let mut out = Vec::new();
        write_json_string(name.as_bytes(), self.options.json_escape_forward_slashes, &mut out);
        out
    }
}

impl OutputFormat for JsonDocument {
    fn content_type(&self) -> &'static str {
        "application/json; charset=UTF-8"
    }

    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(b"{\n\t\"meta\":\n\t[\n");
        let types = type_names(&self.schema);
        for (i, (field, type_name)) in self.schema.fields().iter().zip(types).enumerate() {
            out.extend_from_slice(b"\t\t{\n\t\t\t\"name\": ");
            out.extend_from_slice(&self.json_name(field.name()));
            out.extend_from_slice(b",\n\t\t\t\"type\": ");
            out.extend_from_slice(&self.json_name(&type_name));
            out.extend_from_slice(if i + 1 < self.schema.fields().len() { b"\n\t\t},\n" } else { b"\n\t\t}\n" });
        }
        out.extend_from_slice(b"\t],\n\n\t\"data\":\n\t[\n");
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        let columns = writers(batch, Style::Json, &self.options)?;
        let names: Vec<Vec<u8>> = batch.schema().fields().iter().map(|f| self.json_name(f.name())).collect();
        for row in 0..batch.num_rows() {
            if self.rows > 0 {
                out.extend_from_slice(b",\n");
            }
            self.rows += 1;
            if self.compact {
                out.extend_from_slice(b"\t\t[");
                for (i, w) in columns.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    w.write(row, out);
                }
                out.push(b']');
            } else {
                out.extend_from_slice(b"\t\t{\n");
                for (i, w) in columns.iter().enumerate() {
                    out.extend_from_slice(b"\t\t\t");
                    out.extend_from_slice(&names[i]);
                    out.extend_from_slice(b": ");
                    w.write(row, out);
                    out.extend_from_slice(if i + 1 < columns.len() { b",\n" } else { b"\n" });
                }
                out.extend_from_slice(b"\t\t}");
            }
        }
        Ok(())
    }

    fn write_suffix(&mut self, stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        if self.rows > 0 {
            out.push(b'\n');
        } else {
            out.push(b'\n');
        }
        out.extend_from_slice(format!("\t],\n\n\t\"rows\": {}", self.rows).as_bytes());
        if self.write_statistics {
            out.extend_from_slice(
                format!(
                    ",\n\n\t\"statistics\":\n\t{{\n\t\t\"elapsed\": {},\n\t\t\"rows_read\": {},\n\t\t\"bytes_read\": {}\n\t}}",
                    crate::value::format_float(stats.elapsed.as_secs_f64(), None),
                    stats.rows_read,
                    stats.bytes_read
                )
                .as_bytes(),
            );
        }
        out.extend_from_slice(b"\n}\n");
        Ok(())
    }
}

/// `Values`: `(1,'a'),(2,'b')`.
pub struct Values {
    rows: u64,
    options: TextOptions,
}

impl Values {
    pub fn new(settings: &FormatSettings) -> Self {
        Values { rows: 0, options: settings.text.clone() }
    }
}

impl OutputFormat for Values {
    fn content_type(&self) -> &'static str {
        "text/plain; charset=UTF-8"
    }

    fn write_prefix(&mut self, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        let columns = writers(batch, Style::Quoted, &self.options)?;
        for row in 0..batch.num_rows() {
            if self.rows > 0 {
                out.push(b',');
            }
            self.rows += 1;
            out.push(b'(');
            for (i, w) in columns.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                w.write(row, out);
            }
            out.push(b')');
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
}

/// `Null`: computes everything, writes nothing.
pub struct NullOutput;

impl OutputFormat for NullOutput {
    fn content_type(&self) -> &'static str {
        "text/plain; charset=UTF-8"
    }
    fn write_prefix(&mut self, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
    fn write_batch(&mut self, _batch: &RecordBatch, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
    fn write_suffix(&mut self, _stats: &QueryStatistics, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrettyKind {
    Full,
    Compact,
    Space,
}

/// Pretty, PrettyCompact, PrettySpace: a table with column widths from the values, so
/// rows are kept until the end (up to `output_format_pretty_max_rows`).
pub struct Pretty {
    schema: SchemaRef,
    kind: PrettyKind,
    max_rows: u64,
    rows: Vec<Vec<String>>,
    total_rows: u64,
    options: TextOptions,
}

impl Pretty {
    pub fn new(schema: SchemaRef, kind: PrettyKind, settings: &FormatSettings) -> Self {
        Pretty { schema, kind, max_rows: settings.pretty_max_rows, rows: Vec::new(), total_rows: 0, options: settings.text.clone() }
    }
}

impl OutputFormat for Pretty {
    fn content_type(&self) -> &'static str {
        "text/plain; charset=UTF-8"
    }

    fn write_prefix(&mut self, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, _out: &mut Vec<u8>) -> Result<()> {
        let columns = writers(batch, Style::Pretty, &self.options)?;
        for row in 0..batch.num_rows() {
            self.total_rows += 1;
            if self.rows.len() as u64 >= self.max_rows {
                continue;
            }
            let cells = columns
                .iter()
                .map(|w| {
                    let mut cell = Vec::new();
                    w.write(row, &mut cell);
                    String::from_utf8_lossy(&cell).replace('\n', "\\n").replace('\t', "\\t")
                })
                .collect();
            self.rows.push(cells);
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let fields = self.schema.fields();
        let numeric: Vec<bool> = fields.iter().map(|f| ValueWriter::is_numeric(f)).collect();
        let mut widths: Vec<usize> = fields.iter().map(|f| display_width(f.name())).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(display_width(cell));
            }
        }
        let number_width = self.rows.len().to_string().len();
        let margin = " ".repeat(number_width + 2);
        let pad = |text: &str, width: usize, right: bool| -> String {
            let fill = " ".repeat(width.saturating_sub(display_width(text)));
            if right {
                format!("{fill}{text}")
            } else {
                format!("{text}{fill}")
            }
        };
        let mut text = String::new();
        match self.kind {
            PrettyKind::Compact => {
                text.push_str(&margin);
                text.push('┌');
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        text.push('┬');
                    }
                    let name = f.name();
                    let fill = "─".repeat(widths[i] - display_width(name));
                    if numeric[i] {
                        text.push_str(&format!("─{fill}{name}─"));
                    } else {
                        text.push_str(&format!("─{name}{fill}─"));
                    }
                }
                text.push_str("┐\n");
                for (r, row) in self.rows.iter().enumerate() {
                    text.push_str(&format!("{:>w$}. │", r + 1, w = number_width));
                    for (i, cell) in row.iter().enumerate() {
                        if i > 0 {
                            text.push('│');
                        }
                        text.push_str(&format!(" {} ", pad(cell, widths[i], numeric[i])));
                    }
                    text.push_str("│\n");
                }
                text.push_str(&margin);
                text.push('└');
                text.push_str(&widths.iter().map(|w| "─".repeat(w + 2)).collect::<Vec<_>>().join("┴"));
                text.push_str("┘\n");
            }
            PrettyKind::Full => {
                let line = |left: char, mid: char, right: char, fill: &str| -> String {
                    format!("{margin}{left}{}{right}\n", widths.iter().map(|w| fill.repeat(w + 2)).collect::<Vec<_>>().join(&mid.to_string()))
                };
                text.push_str(&line('┏', '┳', '┓', "━"));
                text.push_str(&margin);
                text.push('┃');
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        text.push('┃');
                    }
                    text.push_str(&format!(" {} ", pad(f.name(), widths[i], numeric[i])));
                }
                text.push_str("┃\n");
                text.push_str(&line('┡', '╇', '┩', "━"));
                for (r, row) in self.rows.iter().enumerate() {
                    if r > 0 {
                        text.push_str(&line('├', '┼', '┤', "─"));
                    }
                    text.push_str(&format!("{:>w$}. │", r + 1, w = number_width));
                    for (i, cell) in row.iter().enumerate() {
                        if i > 0 {
                            text.push('│');
                        }
                        text.push_str(&format!(" {} ", pad(cell, widths[i], numeric[i])));
                    }
                    text.push_str("│\n");
                }
                text.push_str(&line('└', '┴', '┘', "─"));
            }
            PrettyKind::Space => {
                text.push_str(&margin);
                for (i, f) in fields.iter().enumerate() {
                    text.push_str(&format!(" {} ", pad(f.name(), widths[i], numeric[i])));
                    let _ = i;
                }
                text.push_str("\n\n");
                for (r, row) in self.rows.iter().enumerate() {
                    text.push_str(&format!("{:>w$}. ", r + 1, w = number_width));
                    for (i, cell) in row.iter().enumerate() {
                        text.push_str(&format!(" {} ", pad(cell, widths[i], numeric[i])));
                    }
                    text.push('\n');
                }
            }
        }
        if self.total_rows > self.rows.len() as u64 {
            text.push_str(&format!("  Showed {} out of {} rows.\n", self.rows.len(), self.total_rows));
        }
        out.extend_from_slice(text.as_bytes());
        Ok(())
    }
}

/// Parquet: the whole result as one file (the footer needs everything first).
pub struct ParquetOutput {
    writer: Option<parquet::arrow::ArrowWriter<Vec<u8>>>,
}

impl ParquetOutput {
    pub fn new(schema: SchemaRef) -> Result<Self> {
        let props = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::ZSTD(parquet::basic::ZstdLevel::default()))
            .build();
        let writer = parquet::arrow::ArrowWriter::try_new(Vec::new(), schema, Some(props))
            .map_err(|e| granary_common::Error::new(granary_common::ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot write Parquet: {e}")))?;
        Ok(ParquetOutput { writer: Some(writer) })
    }
}

impl OutputFormat for ParquetOutput {
    fn content_type(&self) -> &'static str {
        "application/octet-stream"
    }

    fn write_prefix(&mut self, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, _out: &mut Vec<u8>) -> Result<()> {
        if let Some(w) = self.writer.as_mut() {
            w.write(batch)
                .map_err(|e| granary_common::Error::new(granary_common::ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot write Parquet: {e}")))?;
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        if let Some(w) = self.writer.take() {
            let bytes = w
                .into_inner()
                .map_err(|e| granary_common::Error::new(granary_common::ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot write Parquet: {e}")))?;
            out.extend_from_slice(&bytes);
        }
        Ok(())
    }
}
