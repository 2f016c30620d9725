//! `Parquet`: the footer (schema and row group index) is at the end of the file, so the
//! pushed bytes are spooled to a temporary file (not memory) and decoded at `finish`,
//! one batch of up to `max_block_rows` rows at a time. Columns are matched by name and
//! cast to the target types; columns missing from the file take their defaults
//! (ClickHouse's `input_format_parquet_allow_missing_columns`), and NULLs of a
//! non-Nullable target become defaults (`input_format_null_as_default`).

use std::io::Write;

use arrow::array::ArrayRef;
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::TextOptions;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::input::conform::conform;
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
            let columns: Vec<(&str, ArrayRef)> = batch.schema_ref().fields().iter().map(|f| f.name().as_str()).zip(batch.columns().iter().cloned()).collect();
            out.push(conform(&self.schema, batch.num_rows(), &columns, &self.text, "Parquet")?);
        }
        Ok(())
    }
}
