//! Fitting decoded columns to the target schema, for the formats that carry their own
//! column names and types (Native, RowBinaryWithNamesAndTypes, Arrow, Parquet):
//! columns are matched by name and cast to the target types, columns absent from the
//! data take their defaults, and NULLs of a non-Nullable target become defaults
//! (`input_format_null_as_default`) or fail.

use arrow::array::{make_array, Array, ArrayRef, AsArray, RecordBatchOptions};
use arrow::compute::CastOptions;
use arrow::datatypes::{DataType, Field, SchemaRef};
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::{ColumnBuilder, TextOptions};
use granary_types::wide::WideInt;
use granary_types::ChType;

/// A column of `rows` defaults of target column `index`.
fn defaults(schema: &SchemaRef, index: usize, rows: usize, text: &TextOptions) -> Result<ArrayRef> {
    let mut builder = ColumnBuilder::new(schema.field(index), text)?;
    for _ in 0..rows {
        builder.append_default()?;
    }
    builder.finish()
}

/// Timestamps of the same unit only change their time zone: the instants stay (Arrow's
/// cast would read a zone-less timestamp as local time of the new zone).
fn relabel_timestamps(column: &ArrayRef, target: &DataType) -> Result<Option<ArrayRef>> {
    match (column.data_type(), target) {
        (DataType::Timestamp(from, _), DataType::Timestamp(to, _)) if from == to => {
            Ok(Some(make_array(column.to_data().into_builder().data_type(target.clone()).build()?)))
        }
        _ => Ok(None),
    }
}

/// Strings and binaries into `FixedString(n)`: shorter values are padded with zero bytes
/// (Arrow's cast refuses both the conversion and the padding), longer ones are an error.
fn to_fixed_string(column: &ArrayRef, target: &DataType, name: &str) -> Result<Option<ArrayRef>> {
    let DataType::FixedSizeBinary(width) = target else {
        return Ok(None);
    };
    if !matches!(column.data_type(), DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Binary | DataType::LargeBinary | DataType::BinaryView) {
        return Ok(None);
    }
    let binary = arrow::compute::cast(column, &DataType::Binary)?;
    let binary = binary.as_any().downcast_ref::<arrow::array::BinaryArray>().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "cast to Binary gave another array"))?;
    let width_usize = usize::try_from(*width).unwrap_or(0);
    let mut builder = arrow::array::FixedSizeBinaryBuilder::with_capacity(binary.len(), *width);
    let mut padded = vec![0u8; width_usize];
    for value in binary.iter() {
        match value {
            None => builder.append_null(),
            Some(bytes) if bytes.len() > width_usize => {
                return Err(Error::new(ErrorCode::TOO_LARGE_STRING_SIZE, format!("Too large value for FixedString({width}) in column {name}: {} bytes", bytes.len())));
            }
            Some(bytes) => {
                padded.fill(0);
                padded[..bytes.len()].copy_from_slice(bytes);
                builder.append_value(&padded)?;
            }
        }
    }
    Ok(Some(std::sync::Arc::new(builder.finish())))
}

/// ClickHouse's Arrow and Parquet wide integers (`FixedSizeBinary` of 16 or 32
/// little-endian bytes) into an `Int128`..`UInt256` column.
fn from_wide_binary(column: &ArrayRef, field: &Field) -> Option<ArrayRef> {
    let kind = WideInt::of(ChType::from_field(field).base())?;
    kind.from_fixed_binary(column.as_fixed_size_binary_opt()?)
}

/// Enum names (strings, or a dictionary of them: Avro enums) into an `Enum8`/`Enum16`
/// column by name; a name the enum does not have is an error.
fn to_enum(column: &ArrayRef, field: &Field) -> Result<Option<ArrayRef>> {
    let (ChType::Enum8(values) | ChType::Enum16(values)) = ChType::from_field(field).base().clone() else {
        return Ok(None);
    };
    let is_text = |t: &DataType| matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View);
    let text = match column.data_type() {
        t if is_text(t) => arrow::compute::cast(column, &DataType::Utf8)?,
        DataType::Dictionary(_, value) if is_text(value) => arrow::compute::cast(column, &DataType::Utf8)?,
        _ => return Ok(None),
    };
    let by_name: std::collections::HashMap<&str, i16> = values.iter().map(|(name, value)| (name.as_str(), *value)).collect();
    let numbers = text
        .as_string::<i32>()
        .iter()
        .map(|name| match name {
            None => Ok(None),
            Some(name) => by_name
                .get(name)
                .map(|v| Some(*v))
                .ok_or_else(|| Error::new(ErrorCode::UNKNOWN_ELEMENT_OF_ENUM, format!("Unknown element '{name}' for enum {}", ChType::from_field(field)))),
        })
        .collect::<Result<arrow::array::Int16Array>>()?;
    Ok(Some(arrow::compute::cast(&(std::sync::Arc::new(numbers) as ArrayRef), field.data_type())?))
}

/// A batch of `schema` from `columns` (name, values) of `rows` rows read by `format`.
pub(crate) fn conform(schema: &SchemaRef, rows: usize, columns: &[(&str, ArrayRef)], text: &TextOptions, format: &str) -> Result<RecordBatch> {
    let mut out = Vec::with_capacity(schema.fields().len());
    for (index, field) in schema.fields().iter().enumerate() {
        let Some((_, column)) = columns.iter().find(|(name, _)| *name == field.name()) else {
            out.push(defaults(schema, index, rows, text)?);
            continue;
        };
        let mut cast = if column.data_type() == field.data_type() {
            column.clone()
        } else if let Some(relabeled) = relabel_timestamps(column, field.data_type())? {
            relabeled
        } else if let Some(fixed) = to_fixed_string(column, field.data_type(), field.name())? {
            fixed
        } else if let Some(wide) = from_wide_binary(column, field) {
            wide
        } else if let Some(names) = to_enum(column, field)? {
            names
        } else {
            let strict = CastOptions { safe: false, ..Default::default() };
            arrow::compute::cast_with_options(column, field.data_type(), &strict).map_err(|e| {
                Error::new(
                    ErrorCode::TYPE_MISMATCH,
                    format!("Cannot convert {format} column {} of type {} to {}: {e}", field.name(), column.data_type(), ChType::from_field(field)),
                )
            })?
        };
        if !field.is_nullable() && cast.null_count() > 0 {
            if !text.null_as_default {
                return Err(Error::new(
                    ErrorCode::CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN,
                    format!("Cannot insert NULL value into a column '{}' of type '{}'", field.name(), ChType::from_field(field)),
                ));
            }
            let mask = arrow::compute::is_not_null(&cast)?;
            let defaults = defaults(schema, index, rows, text)?;
            cast = arrow::compute::kernels::zip::zip(&mask, &cast, &defaults)?;
        }
        out.push(cast);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(schema.clone(), out, &options)?)
}

/// Cuts `batch` into batches of at most `max_rows` rows.
pub(crate) fn push_sliced(batch: RecordBatch, max_rows: usize, out: &mut Vec<RecordBatch>) {
    let rows = batch.num_rows();
    if rows <= max_rows {
        out.push(batch);
        return;
    }
    let mut start = 0;
    while start < rows {
        let len = max_rows.min(rows - start);
        out.push(batch.slice(start, len));
        start += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{FixedSizeBinaryArray, StringArray};
    use std::sync::Arc;

    #[test]
    fn strings_pad_into_fixed_strings_and_long_ones_fail() {
        let column: ArrayRef = Arc::new(StringArray::from(vec![Some("ab"), None, Some("xyz")]));
        let fixed = to_fixed_string(&column, &DataType::FixedSizeBinary(3), "f").unwrap().unwrap();
        let fixed = fixed.as_any().downcast_ref::<FixedSizeBinaryArray>().unwrap();
        assert_eq!(fixed.value(0), b"ab\0");
        assert!(fixed.is_null(1));
        assert_eq!(fixed.value(2), b"xyz");
        let error = to_fixed_string(&column, &DataType::FixedSizeBinary(2), "f").unwrap_err();
        assert_eq!(error.code(), ErrorCode::TOO_LARGE_STRING_SIZE);
        assert!(to_fixed_string(&column, &DataType::Utf8, "f").unwrap().is_none());
    }
}
