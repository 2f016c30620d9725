//! `Markdown` (`MD`): a GitHub table, `| a | b |`, an alignment row (`-:` for the types
//! Pretty aligns right, `:-` for the others) and one line per row. Values are written
//! TabSeparated-escaped, or, with `output_format_markdown_escape_special_characters`,
//! `String`/`FixedString`/`Enum` values raw with a backslash before ASCII punctuation
//! (only those, and not inside Nullable or LowCardinality: ClickHouse's other
//! serializations keep their escaped text).
//! ClickHouse leaves `WITH TOTALS` out of this format.

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::Result;
use granary_types::text::escape::{write_markdown_escaped, write_tsv_escaped};
use granary_types::text::{ColumnWriter, TextOptions, TextStyle};
use granary_types::ChType;

use super::pretty::aligns_right;
use crate::{FormatSettings, OutputFormat, QueryStatistics};

pub struct Markdown {
    schema: SchemaRef,
    types: Vec<ChType>,
    /// Per column: written raw and Markdown-escaped instead of TSV-escaped.
    markdown_escaped: Vec<bool>,
    options: TextOptions,
}

impl Markdown {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Self {
        let types: Vec<ChType> = schema.fields().iter().map(|f| ChType::from_field(f)).collect();
        let markdown_escaped = types
            .iter()
            .map(|t| settings.markdown_escape_special_characters && matches!(t, ChType::String | ChType::FixedString(_) | ChType::Enum8(_) | ChType::Enum16(_)))
            .collect();
        Markdown { schema, types, markdown_escaped, options: settings.text.clone() }
    }
}

impl OutputFormat for Markdown {
    fn content_type(&self) -> &'static str {
        "text/plain; charset=UTF-8"
    }

    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(b"| ");
        for (i, field) in self.schema.fields().iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b" | ");
            }
            write_tsv_escaped(field.name().as_bytes(), out);
        }
        out.extend_from_slice(b" |\n|");
        for t in &self.types {
            out.extend_from_slice(if aligns_right(t) { b"-:|" } else { b":-|" });
        }
        out.push(b'\n');
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        let columns = self
            .schema
            .fields()
            .iter()
            .zip(batch.columns())
            .zip(&self.markdown_escaped)
            .map(|((field, column), raw)| ColumnWriter::new(field, column, if *raw { TextStyle::Raw } else { TextStyle::Tsv }, &self.options))
            .collect::<Result<Vec<_>>>()?;
        let mut value = Vec::new();
        for row in 0..batch.num_rows() {
            out.extend_from_slice(b"| ");
            for (i, w) in columns.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b" | ");
                }
                if self.markdown_escaped[i] {
                    value.clear();
                    w.write(row, &mut value);
                    write_markdown_escaped(&value, out);
                } else {
                    w.write(row, out);
                }
            }
            out.extend_from_slice(b" |\n");
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
}
