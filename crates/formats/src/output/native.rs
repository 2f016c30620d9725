//! `Native`: ClickHouse's columnar format, as its HTTP interface writes it. Per
//! batch: the number of columns and rows (varints), then per column its name, its type
//! name and its data ([`crate::binary`]).
//!
//! `client_protocol_version` (sent by clients such as clickhouse-connect) changes the
//! layout as ClickHouse's NativeWriter does for that revision: a BlockInfo before each
//! block when it is non-zero, `LowCardinality` removed below 54405, the explicit time
//! zone of a `DateTime` type name kept only from 54337 (so HTTP without a protocol
//! version writes `DateTime`), and a "custom serialization" byte per column from 54454.

use arrow::array::{Array, ArrayRef};
use arrow::datatypes::{DataType, SchemaRef};
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

use crate::binary::{write_native, write_native_prefix, write_string, write_varint, Col};
use crate::{FormatSettings, OutputFormat, QueryStatistics};

/// Revisions of ClickHouse's ProtocolDefines.h that change the Native layout.
const REVISION_WITH_TIME_ZONE_IN_DATETIME: u64 = 54337;
const REVISION_WITH_LOW_CARDINALITY: u64 = 54405;
const REVISION_WITH_CUSTOM_SERIALIZATION: u64 = 54454;
const REVISION_WITH_OUT_OF_ORDER_BUCKETS: u64 = 54480;

pub struct NativeOutput {
    /// The type each column is written as, and its name in the block.
    types: Vec<ChType>,
    type_names: Vec<String>,
    names: Vec<String>,
    revision: u64,
}

/// The type without `LowCardinality` anywhere (for clients older than 54405).
fn remove_low_cardinality(t: &ChType) -> ChType {
    t.without_low_cardinality()
}

/// The column as an array of `t`'s Arrow type (strings of any Arrow kind are read as they are).
pub(crate) fn canonical(t: &ChType, array: &ArrayRef) -> Result<ArrayRef> {
    let target = t.to_arrow();
    let binary = matches!(t.base(), ChType::String)
        && matches!(array.data_type(), DataType::Binary | DataType::LargeBinary | DataType::BinaryView | DataType::LargeUtf8 | DataType::Utf8View);
    if array.data_type() == &target || binary {
        return Ok(array.clone());
    }
    arrow::compute::cast(array, &target)
        .map_err(|e| Error::new(ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot write a column of Arrow type {} as {t}: {e}", array.data_type())))
}

/// Writes the columns whose Native layout is the Arrow layout (numbers without NULLs)
/// or nearly (strings: a varint length before each value) straight from the Arrow
/// buffers; `false` leaves the column to the general path.
fn write_plain(t: &ChType, array: &dyn Array, out: &mut Vec<u8>) -> bool {
    use arrow::array::AsArray;
    if array.null_count() > 0 {
        return false;
    }
    let width = match (t, array.data_type()) {
        (ChType::UInt8, DataType::UInt8) | (ChType::Int8, DataType::Int8) => 1,
        (ChType::UInt16, DataType::UInt16) | (ChType::Int16, DataType::Int16) => 2,
        (ChType::UInt32, DataType::UInt32) | (ChType::Int32, DataType::Int32) | (ChType::Float32, DataType::Float32) => 4,
        (ChType::UInt64, DataType::UInt64) | (ChType::Int64, DataType::Int64) | (ChType::Float64, DataType::Float64) => 8,
        (ChType::Date32, DataType::Date32) => 4,
        // Narrower in ClickHouse than in Arrow: converted in one pass, as the general path does.
        (ChType::Date, DataType::Date32) => {
            let days = array.as_primitive::<arrow::datatypes::Date32Type>();
            out.reserve(days.len() * 2);
            days.values().iter().for_each(|v| out.extend_from_slice(&(*v as u16).to_le_bytes()));
            return true;
        }
        (ChType::DateTime(_), DataType::Timestamp(arrow::datatypes::TimeUnit::Second, _)) => {
            let seconds = array.as_primitive::<arrow::datatypes::TimestampSecondType>();
            out.reserve(seconds.len() * 4);
            seconds.values().iter().for_each(|v| out.extend_from_slice(&(*v as u32).to_le_bytes()));
            return true;
        }
        (ChType::String, DataType::Utf8) => {
            let strings = array.as_string::<i32>();
            out.reserve(strings.value_data().len() + strings.len() * 2);
            for value in strings.iter().flatten() {
                write_string(value.as_bytes(), out);
            }
            return true;
        }
        _ => return false,
    };
    // Arrow buffers are in the machine's byte order, Native is little-endian.
    if cfg!(target_endian = "big") {
        return false;
    }
    let data = array.to_data();
    let Some(values) = data.buffers().first() else { return false };
    let start = data.offset() * width;
    let end = start + data.len() * width;
    match values.as_slice().get(start..end) {
        Some(bytes) => {
            out.extend_from_slice(bytes);
            true
        }
        None => false,
    }
}

impl NativeOutput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Self {
        let revision = settings.client_protocol_version;
        let mut types = Vec::new();
        let mut type_names = Vec::new();
        for field in schema.fields() {
            let mut t = ChType::from_field(field);
            if revision > 0 && revision < REVISION_WITH_LOW_CARDINALITY {
                t = remove_low_cardinality(&t);
            }
            let mut name = t.to_string();
            if revision < REVISION_WITH_TIME_ZONE_IN_DATETIME && name.starts_with("DateTime(") {
                name = "DateTime".to_string();
            }
            types.push(t);
            type_names.push(name);
        }
        let names = schema.fields().iter().map(|f| f.name().clone()).collect();
        NativeOutput { types, type_names, names, revision }
    }

    fn write_block_info(&self, out: &mut Vec<u8>) {
        // Field 1: is_overflows (false); field 2: bucket_num (-1); field 3 (from
        // 54480): out_of_order_buckets (empty); 0 ends the fields.
        out.extend_from_slice(&[1, 0, 2]);
        out.extend_from_slice(&(-1i32).to_le_bytes());
        if self.revision >= REVISION_WITH_OUT_OF_ORDER_BUCKETS {
            out.extend_from_slice(&[3, 0]);
        }
        out.push(0);
    }
}

impl OutputFormat for NativeOutput {
    fn content_type(&self) -> &'static str {
        "application/octet-stream"
    }

    fn write_prefix(&mut self, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        // ClickHouse writes no block for an empty chunk.
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if batch.num_columns() != self.types.len() {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, "A batch does not match the schema of the Native output"));
        }
        if self.revision > 0 {
            self.write_block_info(out);
        }
        write_varint(batch.num_columns() as u64, out);
        write_varint(batch.num_rows() as u64, out);
        for (i, column) in batch.columns().iter().enumerate() {
            let t = &self.types[i];
            write_string(self.names[i].as_bytes(), out);
            write_string(self.type_names[i].as_bytes(), out);
            if self.revision >= REVISION_WITH_CUSTOM_SERIALIZATION {
                out.push(0); // no custom (sparse) serialization
            }
            let column = canonical(t, column)?;
            if write_plain(t, column.as_ref(), out) {
                continue;
            }
            let col = Col::from_arrow(t, column.as_ref())?;
            write_native_prefix(t, out);
            write_native(t, &col, out)?;
        }
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
}
