//! `SQLInsert`: `INSERT INTO table (`a`, `b`) VALUES (1, 'x'), (2, 'y');` with values in
//! quoted style, a new statement every `output_format_sql_insert_max_batch_size` rows,
//! and the `output_format_sql_insert_*` choices (table name written as given, column
//! names in backquotes or not, REPLACE INTO). Like ClickHouse, an empty result still
//! ends with `;` and no totals are written.

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::Result;
use granary_types::text::{TextOptions, TextStyle};

use super::column_writers;
use crate::{FormatSettings, OutputFormat, QueryStatistics};

pub struct SqlInsert {
    schema: SchemaRef,
    /// `INSERT INTO table (..) VALUES `.
    statement_start: Vec<u8>,
    max_batch_size: u64,
    rows_in_statement: u64,
    rows: u64,
    options: TextOptions,
}

impl SqlInsert {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Self {
        let s = &settings.sql_insert;
        let mut start = String::from(if s.use_replace { "REPLACE INTO " } else { "INSERT INTO " });
        start.push_str(&s.table_name);
        if s.include_column_names {
            let quote = if s.quote_names { "`" } else { "" };
            let names: Vec<String> = schema.fields().iter().map(|f| format!("{quote}{}{quote}", f.name())).collect();
            start.push_str(" (");
            start.push_str(&names.join(", "));
            start.push(')');
        }
        start.push_str(" VALUES ");
        SqlInsert { schema, statement_start: start.into_bytes(), max_batch_size: s.max_batch_size, rows_in_statement: 0, rows: 0, options: settings.text.clone() }
    }
}

impl OutputFormat for SqlInsert {
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
                if self.rows_in_statement >= self.max_batch_size {
                    out.extend_from_slice(b";\n");
                    self.rows_in_statement = 0;
                } else {
                    out.extend_from_slice(b", ");
                }
            }
            if self.rows_in_statement == 0 {
                out.extend_from_slice(&self.statement_start);
            }
            out.push(b'(');
            for (i, w) in columns.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                w.write(row, out);
            }
            out.push(b')');
            self.rows += 1;
            self.rows_in_statement += 1;
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(b";\n");
        Ok(())
    }
}
