//! `Parquet`: the whole result as one file. The footer needs every row group first, so
//! the file is produced at the end (inherent to the format); row groups are flushed by
//! the writer as they fill, so memory holds the encoded file, not the batches.

use std::sync::Arc;

use arrow::array::ArrayRef;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::wide::WideInt;
use granary_types::ChType;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::{OutputFormat, QueryStatistics};

pub struct ParquetOutput {
    writer: Option<ArrowWriter<Vec<u8>>>,
    /// Columns written as ClickHouse writes them (wide integers as `FixedSizeBinary`).
    schema: SchemaRef,
    /// The wide integer type of each column, if it is one.
    wide: Vec<Option<WideInt>>,
}

fn parquet_error(e: parquet::errors::ParquetError) -> Error {
    Error::new(ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot write Parquet: {e}"))
}

impl ParquetOutput {
    pub fn new(schema: SchemaRef) -> Result<Self> {
        // ClickHouse's default output_format_parquet_compression_method is zstd.
        let props = WriterProperties::builder().set_compression(Compression::ZSTD(ZstdLevel::default())).build();
        if let Some((f, family)) = schema.fields().iter().find_map(|f| {
            let t = ChType::from_field(f);
            let family = if t.contains(&|t| matches!(t, ChType::Time64(_))) {
                "Time64"
            } else if t.contains(&|t| matches!(t, ChType::Time)) {
                "Time"
            } else {
                return None;
            };
            Some((f, family))
        }) {
            // ClickHouse has no Parquet mapping for Time (Parquet's TIME is a time of day).
            return Err(Error::new(
                ErrorCode::UNKNOWN_TYPE,
                format!("Internal type '{family}' of column '{}' is not supported for conversion into Parquet data format.", f.name()),
            ));
        }
        let wide: Vec<Option<WideInt>> = schema.fields().iter().map(|f| WideInt::of(ChType::from_field(f).base())).collect();
        let schema = if wide.iter().any(Option::is_some) {
            let fields: Vec<Field> = schema
                .fields()
                .iter()
                .zip(&wide)
                .map(|(f, w)| match w {
                    Some(kind) => Field::new(f.name(), DataType::FixedSizeBinary(kind.byte_width() as i32), f.is_nullable()),
                    None => f.as_ref().clone(),
                })
                .collect();
            Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
        } else {
            schema
        };
        let writer = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props)).map_err(parquet_error)?;
        Ok(ParquetOutput { writer: Some(writer), schema, wide })
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
        let converted;
        let batch = if self.wide.iter().any(Option::is_some) {
            let columns = batch
                .columns()
                .iter()
                .zip(&self.wide)
                .map(|(c, w)| match w {
                    Some(kind) => Ok(Arc::new(kind.to_fixed_binary(c.as_ref())?) as ArrayRef),
                    None => Ok(c.clone()),
                })
                .collect::<Result<Vec<_>>>()?;
            converted = RecordBatch::try_new(self.schema.clone(), columns)
                .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("A batch does not match the Parquet schema: {e}")))?;
            &converted
        } else {
            batch
        };
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
