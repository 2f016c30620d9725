//! `Parquet`: the footer (schema and row group index) is at the end of the file, so the
//! pushed bytes are spooled to a temporary file (not memory) and decoded at `finish`,
//! one batch of up to `max_block_rows` rows at a time. Columns are matched by name and
//! cast to the target types; columns missing from the file take their defaults
//! (ClickHouse's `input_format_parquet_allow_missing_columns`), and NULLs of a
//! non-Nullable target become defaults (`input_format_null_as_default`).

use std::io::Write;

use arrow::array::{Array, ArrayRef, RecordBatchOptions};
use arrow::compute::CastOptions;
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::{ColumnBuilder, TextOptions};
use granary_types::ChType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::{FormatSettings, InputFormat};

pub struct ParquetInput {
    schema: SchemaRef,
    file: tempfile::NamedTempFile,
    max_block_rows: usize,
    text: TextOptions,
}

impl ParquetInput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Result<Self> {
        Ok(ParquetInput { schema, file: tempfile::NamedTempFile::new()?, max_block_rows: settings.max_block_rows.max(1), text: settings.text.clone() })
    }

    /// A column of `rows` defaults of target column `index`.
    fn defaults(&self, index: usize, rows: usize) -> Result<ArrayRef> {
        let mut builder = ColumnBuilder::new(self.schema.field(index), &self.text)?;
        for _ in 0..rows {
            builder.append_default()?;
        }
        builder.finish()
    }

    fn conform(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let mut columns = Vec::with_capacity(self.schema.fields().len());
        for (index, field) in self.schema.fields().iter().enumerate() {
            let Some(column) = batch.column_by_name(field.name()) else {
                columns.push(self.defaults(index, rows)?);
                continue;
            };
            let strict = CastOptions { safe: false, ..Default::default() };
            let mut cast = arrow::compute::cast_with_options(column, field.data_type(), &strict).map_err(|e| {
                Error::new(
                    ErrorCode::TYPE_MISMATCH,
                    format!("Cannot convert Parquet column {} of type {} to {}: {e}", field.name(), column.data_type(), ChType::from_field(field)),
                )
            })?;
            if !field.is_nullable() && cast.null_count() > 0 {
                if !self.text.null_as_default {
                    return Err(Error::new(
                        ErrorCode::CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN,
                        format!("Cannot insert NULL value into a column '{}' of type '{}'", field.name(), ChType::from_field(field)),
                    ));
                }
                let mask = arrow::compute::is_not_null(&cast)?;
                let defaults = self.defaults(index, rows)?;
                cast = arrow::compute::kernels::zip::zip(&mask, &cast, &defaults)?;
            }
            columns.push(cast);
        }
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        Ok(RecordBatch::try_new_with_options(self.schema.clone(), columns, &options)?)
    }
}

fn bad_parquet(e: parquet::errors::ParquetError) -> Error {
    Error::new(ErrorCode::INCORRECT_DATA, format!("Cannot read Parquet data: {e}"))
}

impl InputFormat for ParquetInput {
    fn push(&mut self, data: &[u8], _out: &mut Vec<RecordBatch>) -> Result<()> {
        self.file.write_all(data)?;
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.file.flush()?;
        if self.file.as_file().metadata()?.len() == 0 {
            // No data at all: no rows (ClickHouse reads an empty input as empty).
            return Ok(());
        }
        let file = self.file.reopen()?;
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(bad_parquet)?
            .with_batch_size(self.max_block_rows)
            .build()
            .map_err(bad_parquet)?;
        for batch in reader {
            let batch = batch.map_err(|e| Error::new(ErrorCode::INCORRECT_DATA, format!("Cannot read Parquet data: {e}")))?;
            out.push(self.conform(&batch)?);
        }
        Ok(())
    }
}
