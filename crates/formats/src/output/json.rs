//! JSON formats: `JSONEachRow` (one object per line), `JSONCompactEachRow` (one array per
//! line), and the `JSON`/`JSONCompact` documents with `meta`, `data`, `rows` and
//! `statistics`, laid out with ClickHouse's tabs and blank lines.

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::Result;
use granary_types::text::escape::write_json_string;
use granary_types::text::float::write_f64;
use granary_types::text::{TextOptions, TextStyle};

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

/// `JSONEachRow` and `JSONCompactEachRow`.
pub struct JsonEachRow {
    schema: SchemaRef,
    compact: bool,
    names: Vec<Vec<u8>>,
    options: TextOptions,
}

impl JsonEachRow {
    pub fn new(schema: SchemaRef, compact: bool, settings: &FormatSettings) -> Self {
        let names = json_names(&schema, &settings.text);
        JsonEachRow { schema, compact, names, options: settings.text.clone() }
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
        let columns = column_writers(&self.schema, batch, TextStyle::Json, &self.options)?;
        for row in 0..batch.num_rows() {
            if self.compact {
                out.push(b'[');
                for (i, w) in columns.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    w.write(row, out);
                }
                out.extend_from_slice(b"]\n");
            } else {
                out.push(b'{');
                for (i, w) in columns.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(&self.names[i]);
                    out.push(b':');
                    w.write(row, out);
                }
                out.extend_from_slice(b"}\n");
            }
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
}

/// `JSON` and `JSONCompact`.
pub struct JsonDocument {
    schema: SchemaRef,
    compact: bool,
    names: Vec<Vec<u8>>,
    rows: u64,
    /// The `"totals"` member, written by the suffix.
    totals: Option<Vec<u8>>,
    write_statistics: bool,
    options: TextOptions,
}

impl JsonDocument {
    pub fn new(schema: SchemaRef, compact: bool, settings: &FormatSettings) -> Self {
        let names = json_names(&schema, &settings.text);
        JsonDocument { schema, compact, names, rows: 0, totals: None, write_statistics: settings.write_statistics, options: settings.text.clone() }
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
        out.extend_from_slice(b"\n\t],\n\n\t\"data\":\n\t[\n");
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        let columns = column_writers(&self.schema, batch, TextStyle::Json, &self.options)?;
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
                out.extend_from_slice(b"\t\t{");
                for (i, w) in columns.iter().enumerate() {
                    out.extend_from_slice(if i > 0 { b",\n\t\t\t" } else { b"\n\t\t\t" });
                    out.extend_from_slice(&self.names[i]);
                    out.extend_from_slice(b": ");
                    w.write_json_pretty(row, 3, out);
                }
                out.extend_from_slice(b"\n\t\t}");
            }
        }
        Ok(())
    }

    fn write_totals(&mut self, totals: &RecordBatch, _out: &mut Vec<u8>) -> Result<()> {
        let columns = column_writers(&self.schema, totals, TextStyle::Json, &self.options)?;
        let mut member = Vec::new();
        if self.compact {
            member.extend_from_slice(b"\t\"totals\": [");
            for (i, w) in columns.iter().enumerate() {
                if i > 0 {
                    member.extend_from_slice(b", ");
                }
                w.write(0, &mut member);
            }
            member.push(b']');
        } else {
            member.extend_from_slice(b"\t\"totals\":\n\t{");
            for (i, w) in columns.iter().enumerate() {
                member.extend_from_slice(if i > 0 { b",\n\t\t" } else { b"\n\t\t" });
                member.extend_from_slice(&self.names[i]);
                member.extend_from_slice(b": ");
                w.write_json_pretty(0, 2, &mut member);
            }
            member.extend_from_slice(b"\n\t}");
        }
        self.totals = Some(member);
        Ok(())
    }

    fn write_suffix(&mut self, stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(b"\n\t],\n\n");
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
