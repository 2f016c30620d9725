//! `Values`: `(1,'a'),(2,'b')`, no line breaks (ClickHouse writes none, not even at the end).

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::Result;
use granary_types::text::{TextOptions, TextStyle};

use super::column_writers;
use crate::{FormatSettings, OutputFormat, QueryStatistics};

pub struct Values {
    schema: SchemaRef,
    rows: u64,
    options: TextOptions,
}

impl Values {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Self {
        Values { schema, rows: 0, options: settings.text.clone() }
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
        let columns = column_writers(&self.schema, batch, TextStyle::Quoted, &self.options)?;
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
