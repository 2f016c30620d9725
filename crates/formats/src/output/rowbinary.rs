//! `RowBinary`, `RowBinaryWithNames`, `RowBinaryWithNamesAndTypes`: values row after
//! row in ClickHouse's binary encoding ([`crate::binary`]), after an optional header of
//! the column count, the names and the type names (varint-length strings).

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

use crate::binary::{write_string, write_varint, Col};
use crate::output::native::canonical;
use crate::{OutputFormat, QueryStatistics};

pub struct RowBinaryOutput {
    schema: SchemaRef,
    types: Vec<ChType>,
    names: bool,
    with_types: bool,
}

impl RowBinaryOutput {
    pub fn new(schema: SchemaRef, names: bool, with_types: bool) -> Self {
        let types = schema.fields().iter().map(|f| ChType::from_field(f)).collect();
        RowBinaryOutput { schema, types, names, with_types }
    }
}

impl OutputFormat for RowBinaryOutput {
    fn content_type(&self) -> &'static str {
        "application/octet-stream"
    }

    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()> {
        if self.names {
            write_varint(self.types.len() as u64, out);
            for field in self.schema.fields() {
                write_string(field.name().as_bytes(), out);
            }
            if self.with_types {
                for t in &self.types {
                    write_string(t.to_string().as_bytes(), out);
                }
            }
        }
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        if batch.num_columns() != self.types.len() {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, "A batch does not match the schema of the RowBinary output"));
        }
        let columns = self
            .types
            .iter()
            .zip(batch.columns())
            .map(|(t, c)| Col::from_arrow(t, canonical(t, c)?.as_ref()))
            .collect::<Result<Vec<_>>>()?;
        for row in 0..batch.num_rows() {
            for col in &columns {
                col.write_row(row, out);
            }
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
}
