//! Fitting decoded columns to the target schema, for the formats that carry their own
//! column names and types (Native, RowBinaryWithNamesAndTypes, Arrow, Parquet):
//! columns are matched by name and cast to the target types, columns absent from the
//! data take their defaults, and NULLs of a non-Nullable target become defaults
//! (`input_format_null_as_default`) or fail.

use arrow::array::{make_array, Array, ArrayRef, RecordBatchOptions};
use arrow::compute::CastOptions;
use arrow::datatypes::{DataType, SchemaRef};
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::{ColumnBuilder, TextOptions};
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
