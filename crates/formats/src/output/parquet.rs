//! `Parquet`: the whole result as one file. The footer needs every row group first, so
//! the file is produced at the end (inherent to the format); row groups are flushed by
//! the writer as they fill, so memory holds the encoded file, not the batches.

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::{OutputFormat, QueryStatistics};

pub struct ParquetOutput {
    writer: Option<ArrowWriter<Vec<u8>>>,
}

fn parquet_error(e: parquet::errors::ParquetError) -> Error {
    Error::new(ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot write Parquet: {e}"))
}

impl ParquetOutput {
    pub fn new(schema: SchemaRef) -> Result<Self> {
        // ClickHouse's default output_format_parquet_compression_method is zstd.
        let props = WriterProperties::builder().set_compression(Compression::ZSTD(ZstdLevel::default())).build();
        let writer = ArrowWriter::try_new(Vec::new(), schema, Some(props)).map_err(parquet_error)?;
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
        match self.writer.as_mut() {
            Some(w) => w.write(batch).map_err(parquet_error),
            None => Err(Error::new(ErrorCode::LOGICAL_ERROR, "Parquet output written after its end")),
        }
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        if let Some(w) = self.writer.take() {
            out.extend_from_slice(&w.into_inner().map_err(parquet_error)?);
        }
        Ok(())
    }
}
