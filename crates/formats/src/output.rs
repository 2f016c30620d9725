//! Output formats, written as ClickHouse writes them (compared byte for byte with chdb
//! by the golden tests in `tests/golden.rs`).
//!
//! Each format builds one [`ColumnWriter`] per column and batch (the type is resolved
//! once), then loops over rows appending bytes to the caller's buffer.

pub mod avro;
pub mod custom;
pub mod delimited;
pub mod ipc;
pub mod json;
pub mod markdown;
pub mod native;
pub mod parquet;
pub mod pretty;
pub mod raw_blob;
pub mod rowbinary;
pub mod sql_insert;
pub mod tskv;
pub mod values;
pub mod vertical;
pub mod xml;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::{ColumnWriter, TextOptions, TextStyle};
use granary_types::ChType;

use crate::{OutputFormat, QueryStatistics};

/// One writer per column of `batch`, typed by the format's `schema` (which carries the
/// ClickHouse types in its field metadata).
pub(crate) fn column_writers(schema: &SchemaRef, batch: &RecordBatch, style: TextStyle, options: &TextOptions) -> Result<Vec<ColumnWriter>> {
    if batch.num_columns() != schema.fields().len() {
        return Err(Error::new(
            ErrorCode::LOGICAL_ERROR,
            format!("A batch of {} columns was sent to an output format of {} columns", batch.num_columns(), schema.fields().len()),
        ));
    }
    schema.fields().iter().zip(batch.columns()).map(|(field, column)| ColumnWriter::new(field, column, style, options)).collect()
}

/// The ClickHouse type names of the columns (for `meta` and `*WithNamesAndTypes`).
pub(crate) fn type_names(schema: &SchemaRef) -> Vec<String> {
    schema.fields().iter().map(|f| ChType::from_field(f).to_string()).collect()
}

/// `Null`: the query runs, nothing is written.
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
