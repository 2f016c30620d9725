//! `XML`: ClickHouse's `<result>` document: `<meta>` with the columns' names and types,
//! `<data>` with one `<row>` per row (each value in an element named after its column,
//! or `<field>` when the name is not a simple tag name), `<totals>`, `<rows>`,
//! `<rows_before_limit_at_least>` and `<statistics>`. Values are written with the XML
//! rules of [`TextStyle::Xml`] (`<` and `&` as entities, arrays as `<array><elem>`).

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::Result;
use granary_types::text::escape::write_xml_escaped;
use granary_types::text::float::write_f64;
use granary_types::text::{TextOptions, TextStyle};

use super::{column_writers, type_names};
use crate::{FormatSettings, OutputFormat, QueryStatistics};

pub struct Xml {
    schema: SchemaRef,
    /// Per column: `<tag>` and `</tag>`.
    tags: Vec<(Vec<u8>, Vec<u8>)>,
    rows: u64,
    /// The `<totals>` element, written by the suffix after `</data>`.
    totals: Option<Vec<u8>>,
    write_statistics: bool,
    options: TextOptions,
}

/// ClickHouse's rule (stricter than XML's): ASCII letters, `_`, `-`, `.`, and digits
/// after the first character.
fn is_tag_name(name: &str) -> bool {
    name.bytes().enumerate().all(|(i, c)| c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()) || matches!(c, b'_' | b'-' | b'.'))
}

impl Xml {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Self {
        let tags = schema
            .fields()
            .iter()
            .map(|f| {
                let tag = if is_tag_name(f.name()) { f.name().as_str() } else { "field" };
                (format!("<{tag}>").into_bytes(), format!("</{tag}>\n").into_bytes())
            })
            .collect();
        Xml { schema, tags, rows: 0, totals: None, write_statistics: settings.write_statistics, options: settings.text.clone() }
    }

    fn write_fields(&self, batch: &RecordBatch, row: usize, indent: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let columns = column_writers(&self.schema, batch, TextStyle::Xml, &self.options)?;
        for (w, (open, close)) in columns.iter().zip(&self.tags) {
            out.extend_from_slice(indent);
            out.extend_from_slice(open);
            w.write(row, out);
            out.extend_from_slice(close);
        }
        Ok(())
    }
}

impl OutputFormat for Xml {
    fn content_type(&self) -> &'static str {
        "application/xml; charset=UTF-8"
    }

    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(b"<?xml version='1.0' encoding='UTF-8' ?>\n<result>\n\t<meta>\n\t\t<columns>\n");
        for (field, type_name) in self.schema.fields().iter().zip(type_names(&self.schema)) {
            out.extend_from_slice(b"\t\t\t<column>\n\t\t\t\t<name>");
            write_xml_escaped(field.name().as_bytes(), out);
            out.extend_from_slice(b"</name>\n\t\t\t\t<type>");
            write_xml_escaped(type_name.as_bytes(), out);
            out.extend_from_slice(b"</type>\n\t\t\t</column>\n");
        }
        out.extend_from_slice(b"\t\t</columns>\n\t</meta>\n\t<data>\n");
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let columns = column_writers(&self.schema, batch, TextStyle::Xml, &self.options)?;
        for row in 0..batch.num_rows() {
            self.rows += 1;
            out.extend_from_slice(b"\t\t<row>\n");
            for (w, (open, close)) in columns.iter().zip(&self.tags) {
                out.extend_from_slice(b"\t\t\t");
                out.extend_from_slice(open);
                w.write(row, out);
                out.extend_from_slice(close);
            }
            out.extend_from_slice(b"\t\t</row>\n");
        }
        Ok(())
    }

    fn write_totals(&mut self, totals: &RecordBatch, _out: &mut Vec<u8>) -> Result<()> {
        if totals.num_rows() == 0 {
            return Ok(());
        }
        let mut element = b"\t<totals>\n".to_vec();
        self.write_fields(totals, 0, b"\t\t", &mut element)?;
        element.extend_from_slice(b"\t</totals>\n");
        self.totals = Some(element);
        Ok(())
    }

    fn write_suffix(&mut self, stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(b"\t</data>\n");
        if let Some(totals) = self.totals.take() {
            out.extend_from_slice(&totals);
        }
        out.extend_from_slice(format!("\t<rows>{}</rows>\n", self.rows).as_bytes());
        if let Some(rows) = stats.rows_before_limit {
            out.extend_from_slice(format!("\t<rows_before_limit_at_least>{rows}</rows_before_limit_at_least>\n").as_bytes());
        }
        if self.write_statistics {
            out.extend_from_slice(b"\t<statistics>\n\t\t<elapsed>");
            write_f64(stats.elapsed.as_secs_f64(), out);
            out.extend_from_slice(format!("</elapsed>\n\t\t<rows_read>{}</rows_read>\n\t\t<bytes_read>{}</bytes_read>\n\t</statistics>\n", stats.rows_read, stats.bytes_read).as_bytes());
        }
        out.extend_from_slice(b"</result>\n");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::is_tag_name;

    #[test]
    fn tag_names() {
        assert!(is_tag_name("a.b-c_d"));
        assert!(is_tag_name("x1"));
        assert!(!is_tag_name("1x"));
        assert!(!is_tag_name("count()"));
        assert!(!is_tag_name("é"));
        assert!(!is_tag_name("x y"));
    }
}
