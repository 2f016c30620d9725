//! MergeTree's virtual columns: `_part`, `_part_index`, `_part_offset`, `_partition_id`,
//! `_partition_value`, `_part_uuid`, `_table`, `_database` (see
//! `granary_storage::virtual_columns` for how queries see them).
//!
//! All but `_part_offset` are one value per part: a scan turns each into a constant array
//! per block, and filters on them drop whole parts before any granule is chosen
//! ([`prune_parts`]). `_part_offset` is the row number in the part, made from the read
//! range's first row. None of them reads a column file.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray, StructArray};
use arrow::datatypes::{Field, FieldRef, Fields, Schema, SchemaRef};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use datafusion::catalog::Session;
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::{utils::conjunction, Expr};
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

use crate::engine::Inner;
use crate::part::Part;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VirtualColumn {
    Part,
    PartIndex,
    PartOffset,
    PartitionId,
    PartitionValue,
    PartUuid,
    Table,
    Database,
}

impl VirtualColumn {
    const ALL: [VirtualColumn; 8] = [
        VirtualColumn::Part,
        VirtualColumn::PartIndex,
        VirtualColumn::PartOffset,
        VirtualColumn::PartitionId,
        VirtualColumn::PartitionValue,
        VirtualColumn::PartUuid,
        VirtualColumn::Table,
        VirtualColumn::Database,
    ];

    pub fn name(self) -> &'static str {
        match self {
            VirtualColumn::Part => "_part",
            VirtualColumn::PartIndex => "_part_index",
            VirtualColumn::PartOffset => "_part_offset",
            VirtualColumn::PartitionId => "_partition_id",
            VirtualColumn::PartitionValue => "_partition_value",
            VirtualColumn::PartUuid => "_part_uuid",
            VirtualColumn::Table => "_table",
            VirtualColumn::Database => "_database",
        }
    }

    pub fn from_name(name: &str) -> Option<VirtualColumn> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Whether filters on the column can drop parts: it is one value per part.
    fn decides_parts(self) -> bool {
        self != VirtualColumn::PartOffset
    }
}

/// The virtual columns of a table, as ClickHouse types them: `_partition_value` is the
/// tuple of the PARTITION BY elements, absent without PARTITION BY; a stored column of
/// the same name hides a virtual one.
pub fn fields(schema: &SchemaRef, keys: &crate::keys::TableKeys) -> Vec<FieldRef> {
    let low_cardinality_string = ChType::LowCardinality(Box::new(ChType::String));
    VirtualColumn::ALL
        .into_iter()
        .filter(|v| schema.field_with_name(v.name()).is_err())
        .filter_map(|v| {
            let ch_type = match v {
                VirtualColumn::Part | VirtualColumn::PartitionId | VirtualColumn::Table | VirtualColumn::Database => low_cardinality_string.clone(),
                VirtualColumn::PartIndex | VirtualColumn::PartOffset => ChType::UInt64,
                VirtualColumn::PartUuid => ChType::Uuid,
                VirtualColumn::PartitionValue if keys.partition.is_empty() => return None,
                VirtualColumn::PartitionValue => {
                    ChType::Tuple(keys.partition.iter().enumerate().map(|(i, k)| ((i + 1).to_string(), ChType::from_arrow(&k.data_type, k.nullable))).collect())
                }
            };
            Some(granary_storage::virtual_columns::field(v.name(), &ch_type))
        })
        .collect()
}

/// The per-part values of a scan's virtual columns.
#[derive(Debug, Default)]
pub struct VirtualValues {
    table: String,
    database: String,
    /// `_part_index`: the place of each part (by `Part::id`) among the table's active
    /// parts, as ClickHouse numbers them (before any is dropped by the query's filters).
    part_indexes: HashMap<u64, u64>,
    /// The field of `_partition_value`, when the table has one.
    partition_value_field: Option<FieldRef>,
}

impl VirtualValues {
    /// For a scan of `parts`, the table's active parts in order.
    pub fn new<'a>(inner: &Inner, parts: impl IntoIterator<Item = &'a Arc<Part>>) -> VirtualValues {
        let mut part_indexes = HashMap::new();
        for part in parts {
            let next = part_indexes.len() as u64;
            part_indexes.entry(part.id).or_insert(next);
        }
        let partition_value_field = inner.scan_schema.field_with_name(VirtualColumn::PartitionValue.name()).ok().filter(|f| granary_storage::virtual_columns::is_virtual(f));
        VirtualValues { table: inner.table.clone(), database: inner.database.clone(), part_indexes, partition_value_field: partition_value_field.map(|f| Arc::new(f.clone())) }
    }

    /// The value of a per-part column for `part` (`_part_offset` has none).
    pub fn value(&self, column: VirtualColumn, part: &Part, keys: &crate::keys::TableKeys, schema: &SchemaRef) -> Result<ScalarValue> {
        Ok(match column {
            VirtualColumn::Part => ScalarValue::Utf8(Some(part.name())),
            VirtualColumn::PartIndex => ScalarValue::UInt64(Some(self.part_indexes.get(&part.id).copied().unwrap_or(0))),
            VirtualColumn::PartitionId => ScalarValue::Utf8(Some(part.info.partition_id.clone())),
            VirtualColumn::PartUuid => ScalarValue::FixedSizeBinary(16, Some(vec![0; 16])),
            VirtualColumn::Table => ScalarValue::Utf8(Some(self.table.clone())),
            VirtualColumn::Database => ScalarValue::Utf8(Some(self.database.clone())),
            VirtualColumn::PartitionValue => {
                let field = self.partition_value_field.as_ref().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "_partition_value of a table without PARTITION BY"))?;
                let arrow::datatypes::DataType::Struct(element_fields) = field.data_type() else {
                    return Err(Error::new(ErrorCode::LOGICAL_ERROR, "_partition_value is not a tuple"));
                };
                let values = keys.partition_values(schema, &part.minmax)?;
                ScalarValue::Struct(Arc::new(StructArray::try_new(element_fields.clone(), values, None)?))
            }
            VirtualColumn::PartOffset => return Err(Error::new(ErrorCode::LOGICAL_ERROR, "_part_offset is not one value per part")),
        })
    }
}

/// Drops the parts that the filters on per-part virtual columns reject (`_part = ...`,
/// `_partition_id IN (...)`, `_part LIKE ...`): those filters are evaluated once per part,
/// on a batch of one row per part, before any of its granules is considered.
pub fn prune_parts(session: &dyn Session, inner: &Inner, parts: Vec<Arc<Part>>, filters: &[Expr], values: &VirtualValues) -> Result<Vec<Arc<Part>>> {
    let stored = inner.schema.fields().len();
    let per_part: Vec<(usize, VirtualColumn)> = inner.scan_schema.fields()[stored..]
        .iter()
        .enumerate()
        .filter_map(|(i, f)| VirtualColumn::from_name(f.name()).filter(|v| v.decides_parts()).map(|v| (stored + i, v)))
        .collect();
    let names: Vec<&str> = per_part.iter().map(|(_, v)| v.name()).collect();
    let deciding: Vec<Expr> = filters
        .iter()
        .filter(|f| !f.is_volatile() && {
            let refs = f.column_refs();
            !refs.is_empty() && refs.iter().all(|c| names.contains(&c.name.as_str()))
        })
        .cloned()
        .collect();
    let Some(predicate) = conjunction(deciding) else { return Ok(parts) };
    if parts.is_empty() {
        return Ok(parts);
    }
    let schema = Arc::new(Schema::new(per_part.iter().map(|&(i, _)| inner.scan_schema.field(i).clone()).collect::<Fields>()));
    let columns = per_part
        .iter()
        .map(|&(_, column)| {
            let scalars = parts.iter().map(|p| values.value(column, p, &inner.keys, &inner.schema)).collect::<Result<Vec<_>>>()?;
            Ok(ScalarValue::iter_to_array(scalars)?)
        })
        .collect::<Result<Vec<ArrayRef>>>()?;
    let batch = RecordBatch::try_new_with_options(schema.clone(), columns, &RecordBatchOptions::new().with_row_count(Some(parts.len())))?;
    let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
    let physical = session.create_physical_expr(predicate, &df_schema)?;
    let result = physical.evaluate(&batch)?.into_array(parts.len())?;
    let keep = result.as_any().downcast_ref::<BooleanArray>().ok_or_else(|| {
        Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of column for filter (must be boolean)", result.data_type()))
    })?;
    Ok(parts.into_iter().enumerate().filter(|(i, _)| keep.is_valid(*i) && keep.value(*i)).map(|(_, p)| p).collect())
}

/// Whether `field` of a scan schema is this table's virtual column rather than a stored one.
pub fn of_field(field: &Field) -> Option<VirtualColumn> {
    VirtualColumn::from_name(field.name()).filter(|_| granary_storage::virtual_columns::is_virtual(field))
}
