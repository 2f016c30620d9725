//! `RawBLOB`: the bytes of each value with nothing around them, the way ClickHouse's
//! `getDataAt` holds them (strings as they are, numbers and dates in their
//! little-endian binary form, NULL as nothing). Meant for one column, as in ClickHouse;
//! types without such bytes (tuples, maps) are NOT_IMPLEMENTED.

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

use crate::binary::Col;
use crate::output::native::canonical;
use crate::{OutputFormat, QueryStatistics};

pub struct RawBlob {
    types: Vec<ChType>,
}

impl RawBlob {
    pub fn new(schema: SchemaRef) -> Self {
        RawBlob { types: schema.fields().iter().map(|f| ChType::from_field(f)).collect() }
    }
}

impl OutputFormat for RawBlob {
    fn content_type(&self) -> &'static str {
        "text/plain; charset=UTF-8"
    }

    fn write_prefix(&mut self, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        if batch.num_columns() != self.types.len() {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, "A batch does not match the schema of the RawBLOB output"));
        }
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let columns = self.types.iter().zip(batch.columns()).map(|(t, c)| Col::from_arrow(t, canonical(t, c)?.as_ref())).collect::<Result<Vec<_>>>()?;
        for row in 0..batch.num_rows() {
            for (col, t) in columns.iter().zip(&self.types) {
                if !col.write_raw(row, out) {
                    return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Method getDataAt is not supported for {t}")));
                }
            }
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
}
