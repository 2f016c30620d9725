//! `TSKV`: one line per row of `name=value` fields separated by tabs. Values are
//! TabSeparated-escaped; names are escaped the same way except that `=` takes the place
//! of the quote (`a\=b`, while `'` stays as it is). ClickHouse writes no totals here.

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::Result;
use granary_types::text::{TextOptions, TextStyle};

use super::column_writers;
use crate::{FormatSettings, OutputFormat, QueryStatistics};

pub struct Tskv {
    schema: SchemaRef,
    /// `name=` per column, escaped.
    keys: Vec<Vec<u8>>,
    options: TextOptions,
}

/// ClickHouse's `writeAnyEscapedString<'='>`.
fn write_key(name: &[u8], out: &mut Vec<u8>) {
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'=' => out.extend_from_slice(b"\\="),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0 => out.extend_from_slice(b"\\0"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            other => out.push(other),
        }
    }
}

impl Tskv {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Self {
        let keys = schema
            .fields()
            .iter()
            .map(|f| {
                let mut key = Vec::with_capacity(f.name().len() + 1);
                write_key(f.name().as_bytes(), &mut key);
                key.push(b'=');
                key
            })
            .collect();
        Tskv { schema, keys, options: settings.text.clone() }
    }
}

impl OutputFormat for Tskv {
    fn content_type(&self) -> &'static str {
        "text/tab-separated-values; charset=UTF-8"
    }

    fn write_prefix(&mut self, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        let columns = column_writers(&self.schema, batch, TextStyle::Tsv, &self.options)?;
        for row in 0..batch.num_rows() {
            for (i, w) in columns.iter().enumerate() {
                if i > 0 {
                    out.push(b'\t');
                }
                out.extend_from_slice(&self.keys[i]);
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
