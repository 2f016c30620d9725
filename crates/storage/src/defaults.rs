//! The values ClickHouse fills a column with when none is given: INSERT's unlisted
//! columns, and parts written before `ALTER TABLE ... ADD COLUMN`.

use std::sync::Arc;

use arrow::array::{new_null_array, ArrayRef};
use arrow::datatypes::{DataType, Field};
use datafusion::common::ScalarValue;
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

pub fn repeat(value: &ArrayRef, rows: usize) -> Result<ArrayRef> {
    // By index rather than through a ScalarValue, which drops the metadata of nested
    // fields (the ClickHouse type of an Array's elements).
    let indices = arrow::array::UInt32Array::from(vec![0u32; rows]);
    Ok(arrow::compute::take(value.as_ref(), &indices, None)?)
}

/// The value ClickHouse puts in a column that was not given: NULL for Nullable, else
/// the type's zero (0, '', 1970-01-01, empty array, empty map).
pub fn default_value(field: &Field) -> Result<ArrayRef> {
    if field.is_nullable() {
        return Ok(new_null_array(field.data_type(), 1));
    }
    // An enum's default is its smallest element, which need not be 0.
    if let Some((_, smallest)) = ChType::from_field(field).enum_elements().and_then(|e| e.first()) {
        return Ok(match field.data_type() {
            DataType::Int8 => Arc::new(arrow::array::Int8Array::from(vec![*smallest as i8])),
            _ => Arc::new(arrow::array::Int16Array::from(vec![*smallest])),
        });
    }
    default_of_type(field.data_type())
}

/// One row of `data_type`'s zero value.
pub fn default_of_type(data_type: &DataType) -> Result<ArrayRef> {
    use arrow::array::{MapArray, StructArray};
    use arrow::buffer::OffsetBuffer;
    let scalar = match data_type {
        DataType::Utf8 => ScalarValue::Utf8(Some(String::new())),
        DataType::FixedSizeBinary(n) => ScalarValue::FixedSizeBinary(*n, Some(vec![0; (*n).max(0) as usize])),
        DataType::Boolean => ScalarValue::Boolean(Some(false)),
        // DataFusion's own default panics for maps (arrow 59): built by hand.
        DataType::Map(entries, sorted) => {
            let DataType::Struct(fields) = entries.data_type() else {
                return Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("Unexpected map layout {data_type}")));
            };
            let columns = fields.iter().map(|f| arrow::array::new_empty_array(f.data_type())).collect();
            let empty = StructArray::try_new(fields.clone(), columns, None)?;
            return Ok(Arc::new(MapArray::try_new(entries.clone(), OffsetBuffer::new_zeroed(1), empty, None, *sorted)?));
        }
        DataType::Struct(fields) => {
            let columns = fields.iter().map(|f| default_value(f)).collect::<Result<Vec<_>>>()?;
            return Ok(Arc::new(StructArray::try_new(fields.clone(), columns, None)?));
        }
        // Built by hand so the element field (and its ClickHouse type) stays as declared.
        DataType::List(item) => {
            let values = arrow::array::new_empty_array(item.data_type());
            return Ok(Arc::new(arrow::array::ListArray::try_new(item.clone(), OffsetBuffer::new_zeroed(1), values, None)?));
        }
        other => ScalarValue::new_default(other).or_else(|_| ScalarValue::new_zero(other))?,
    };
    Ok(scalar.to_array_of_size(1)?)
}
