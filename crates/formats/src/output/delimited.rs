//! `TabSeparated`, `TabSeparatedRaw`, `CSV`, and their `WithNames`/`WithNamesAndTypes`
//! variants: one line per row, fields separated by a tab or the CSV delimiter.

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::Result;
use granary_types::text::escape::{write_csv_quoted, write_tsv_escaped};
use granary_types::text::{TextOptions, TextStyle};
use granary_types::ChType;

use super::column_writers;
use crate::{FormatSettings, OutputFormat, QueryStatistics};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Tsv,
    TsvRaw,
    Csv,
}

pub struct Delimited {
    schema: SchemaRef,
    kind: Kind,
    delimiter: u8,
    names: bool,
    types: bool,
    options: TextOptions,
    /// CSV lines end with `\r\n` (output_format_csv_crlf_end_of_line).
    crlf: bool,
}

impl Delimited {
    pub fn new(schema: SchemaRef, kind: Kind, names: bool, types: bool, settings: &FormatSettings) -> Self {
        let delimiter = if kind == Kind::Csv { settings.text.csv_delimiter } else { b'\t' };
        let crlf = kind == Kind::Csv && settings.csv_crlf_end_of_line;
        Delimited { schema, kind, delimiter, names, types, options: settings.text.clone(), crlf }
    }

    fn end_line(&self, out: &mut Vec<u8>) {
        if self.crlf {
            out.push(b'\r');
        }
        out.push(b'\n');
    }

    fn style(&self) -> TextStyle {
        match self.kind {
            Kind::Tsv => TextStyle::Tsv,
            Kind::TsvRaw => TextStyle::Raw,
            Kind::Csv => TextStyle::Csv,
        }
    }

    fn header_line(&self, values: &[String], out: &mut Vec<u8>) {
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                out.push(self.delimiter);
            }
            match self.kind {
                Kind::Csv => write_csv_quoted(v.as_bytes(), out),
                Kind::TsvRaw => out.extend_from_slice(v.as_bytes()),
                Kind::Tsv => write_tsv_escaped(v.as_bytes(), out),
            }
        }
        self.end_line(out);
    }
}

/// Header entries of a column: CSV writes a tuple as separate fields, so its header
/// has one name (`t.1`, `t.a`) and one type per element
/// (output_format_csv_header_serialize_tuple_into_separate_columns).
fn csv_header_entries(name: &str, t: &ChType, names: &mut Vec<String>, types: &mut Vec<String>) {
    match t {
        ChType::Tuple(items) => {
            for (element, element_type) in items {
                csv_header_entries(&format!("{name}.{element}"), element_type, names, types);
            }
        }
        other => {
            names.push(name.to_string());
            types.push(other.to_string());
        }
    }
}

impl OutputFormat for Delimited {
    fn content_type(&self) -> &'static str {
        match (self.kind, self.names) {
            (Kind::Csv, false) => "text/csv; charset=UTF-8; header=absent",
            (Kind::Csv, true) => "text/csv; charset=UTF-8; header=present",
            _ => "text/tab-separated-values; charset=UTF-8",
        }
    }

    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()> {
        let mut names = Vec::new();
        let mut types = Vec::new();
        for field in self.schema.fields() {
            let t = ChType::from_field(field);
            if self.kind == Kind::Csv {
                csv_header_entries(field.name(), &t, &mut names, &mut types);
            } else {
                names.push(field.name().clone());
                types.push(t.to_string());
            }
        }
        if self.names {
            self.header_line(&names, out);
        }
        if self.types {
            self.header_line(&types, out);
        }
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        let columns = column_writers(&self.schema, batch, self.style(), &self.options)?;
        for row in 0..batch.num_rows() {
            for (i, w) in columns.iter().enumerate() {
                if i > 0 {
                    out.push(self.delimiter);
                }
                w.write(row, out);
            }
            self.end_line(out);
        }
        Ok(())
    }

    /// After an empty line, like a data row.
    fn write_totals(&mut self, totals: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        out.push(b'\n');
        self.write_batch(totals, out)
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
}
