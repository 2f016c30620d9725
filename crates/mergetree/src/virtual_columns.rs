//! MergeTree's virtual columns, ClickHouse's list for MergeTree (see
//! `granary_storage::virtual_columns` for how queries see them).
//!
//! All but `_part_offset`, `_block_offset` (row numbers in the part) and
//! `_part_granule_offset` (granule numbers) are one value per part: a scan turns each
//! into a constant array per block, and filters on them drop whole parts before any
//! granule is chosen ([`prune_parts`]). The others are made from the read range's
//! granules. None of them reads a column file.

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
    PartStartingOffset,
    PartUuid,
    PartitionId,
    SampleFactor,
    PartOffset,
    PartGranuleOffset,
    PartDataVersion,
    DiskName,
    Distance,
    Table,
    Database,
    PartitionValue,
    RowExists,
    BlockNumber,
    BlockOffset,
}

impl VirtualColumn {
    /// In ClickHouse's order (DESCRIBE lists them so).
    const ALL: [VirtualColumn; 17] = [
        VirtualColumn::Part,
        VirtualColumn::PartIndex,
        VirtualColumn::PartStartingOffset,
        VirtualColumn::PartUuid,
        VirtualColumn::PartitionId,
        VirtualColumn::SampleFactor,
        VirtualColumn::PartOffset,
        VirtualColumn::PartGranuleOffset,
        VirtualColumn::PartDataVersion,
        VirtualColumn::DiskName,
        VirtualColumn::Distance,
        VirtualColumn::Table,
        VirtualColumn::Database,
        VirtualColumn::PartitionValue,
        VirtualColumn::RowExists,
        VirtualColumn::BlockNumber,
        VirtualColumn::BlockOffset,
    ];

    pub fn name(self) -> &'static str {
        match self {
            VirtualColumn::Part => "_part",
            VirtualColumn::PartIndex => "_part_index",
            VirtualColumn::PartStartingOffset => "_part_starting_offset",
            VirtualColumn::PartUuid => "_part_uuid",
            VirtualColumn::PartitionId => "_partition_id",
            VirtualColumn::SampleFactor => "_sample_factor",
            VirtualColumn::PartOffset => "_part_offset",
            VirtualColumn::PartGranuleOffset => "_part_granule_offset",
            VirtualColumn::PartDataVersion => "_part_data_version",
            VirtualColumn::DiskName => "_disk_name",
            VirtualColumn::Distance => "_distance",
            VirtualColumn::Table => "_table",
            VirtualColumn::Database => "_database",
            VirtualColumn::PartitionValue => "_partition_value",
            VirtualColumn::RowExists => "_row_exists",
            VirtualColumn::BlockNumber => "_block_number",
            VirtualColumn::BlockOffset => "_block_offset",
        }
    }

    /// ClickHouse's comment and codec for the column (DESCRIBE shows them).
    fn description(self) -> (&'static str, &'static str) {
        match self {
            VirtualColumn::Part => ("Name of part", ""),
            VirtualColumn::PartIndex => ("Sequential index of the part in the query result", ""),
            VirtualColumn::PartStartingOffset => ("Cumulative starting row of the part in the query result", ""),
            VirtualColumn::PartUuid => ("Unique part identifier (if enabled MergeTree setting assign_part_uuids)", ""),
            VirtualColumn::PartitionId => ("Name of partition", ""),
            VirtualColumn::SampleFactor => ("Sample factor (from the query)", ""),
            VirtualColumn::PartOffset => ("Number of row in the part", ""),
            VirtualColumn::PartGranuleOffset => ("Number of granule in the part", ""),
            VirtualColumn::PartDataVersion => ("Data version of part (either min block number or mutation version)", ""),
            VirtualColumn::DiskName => ("Disk name", ""),
            VirtualColumn::Distance => ("Pre-computed distance for vector search queries", ""),
            VirtualColumn::Table | VirtualColumn::Database => ("", ""),
            VirtualColumn::PartitionValue => ("Value (a tuple) of a PARTITION BY expression", ""),
            VirtualColumn::RowExists => ("Persisted mask created by lightweight delete that show whether row exists or is deleted", ""),
            VirtualColumn::BlockNumber => ("Persisted original number of block that was assigned at insert", "Delta, LZ4"),
            VirtualColumn::BlockOffset => ("Persisted original number of row in block that was assigned at insert", "Delta, LZ4"),
        }
    }

    pub fn from_name(name: &str) -> Option<VirtualColumn> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Whether filters on the column can drop parts: it is one value per part.
    /// `_row_exists` is a lightweight delete's mask, one value per row.
    /// `_sample_factor` is one value per scan, known only once the parts left are
    /// counted (`SAMPLE 1000`), so its filters are left to the rows.
    fn decides_parts(self) -> bool {
        !matches!(self, VirtualColumn::PartOffset | VirtualColumn::PartGranuleOffset | VirtualColumn::BlockOffset | VirtualColumn::SampleFactor | VirtualColumn::RowExists)
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
                VirtualColumn::Part | VirtualColumn::PartitionId | VirtualColumn::DiskName | VirtualColumn::Table | VirtualColumn::Database => low_cardinality_string.clone(),
                VirtualColumn::PartIndex
                | VirtualColumn::PartStartingOffset
                | VirtualColumn::PartOffset
                | VirtualColumn::PartGranuleOffset
                | VirtualColumn::PartDataVersion
                | VirtualColumn::BlockNumber
                | VirtualColumn::BlockOffset => ChType::UInt64,
                VirtualColumn::PartUuid => ChType::Uuid,
                VirtualColumn::SampleFactor => ChType::Float64,
                VirtualColumn::Distance => ChType::Float32,
                VirtualColumn::RowExists => ChType::UInt8,
                VirtualColumn::PartitionValue if keys.partition.is_empty() => return None,
                VirtualColumn::PartitionValue => {
                    ChType::Tuple(keys.partition.iter().enumerate().map(|(i, k)| ((i + 1).to_string(), ChType::from_arrow(&k.data_type, k.nullable))).collect())
                }
            };
            let (comment, codec) = v.description();
            Some(granary_storage::virtual_columns::field(v.name(), &ch_type, comment, codec))
        })
        .collect()
}

/// The per-part values of a scan's virtual columns.
#[derive(Debug)]
pub struct VirtualValues {
    table: String,
    database: String,
    /// `_part_index` and `_part_starting_offset` of each part (by `Part::id`): its
    /// place among the table's active parts and the rows of the parts before it, as
    /// ClickHouse numbers them (before any is dropped by the query's filters).
    part_places: HashMap<u64, PartPlace>,
    /// The field of `_partition_value`, when the table has one.
    partition_value_field: Option<FieldRef>,
    /// `_sample_factor`: 1 / the share of the table a `SAMPLE` reads.
    sample_factor: f64,
}

impl VirtualValues {
    /// For a scan of `parts`, the table's active parts in order.
    pub fn new<'a>(inner: &Inner, parts: impl IntoIterator<Item = &'a Arc<Part>>) -> VirtualValues {
        let mut part_places = HashMap::new();
        let mut starting_offset = 0;
        for part in parts {
            let index = part_places.len() as u64;
            if let std::collections::hash_map::Entry::Vacant(entry) = part_places.entry(part.id) {
                entry.insert(PartPlace { index, starting_offset });
                starting_offset += part.rows;
            }
        }
        let partition_value_field = inner.scan_schema.field_with_name(VirtualColumn::PartitionValue.name()).ok().filter(|f| granary_storage::virtual_columns::is_virtual(f));
        VirtualValues { table: inner.table.clone(), database: inner.database.clone(), part_places, partition_value_field: partition_value_field.map(|f| Arc::new(f.clone())), sample_factor: 1.0 }
    }

    /// The `_sample_factor` of a scan with `SAMPLE`.
    pub fn with_sample_factor(mut self, factor: f64) -> Self {
        self.sample_factor = factor;
        self
    }

    /// The value of a per-part column for `part` (`_part_offset`, `_part_granule_offset`
    /// and `_block_offset` have none). `_part_data_version` is the part's mutation
    /// version, else its min block; its `_block_number` is the min block, and
    /// `_block_offset` the row in the part, which is what ClickHouse reports without
    /// `enable_block_number_column`.
    pub fn value(&self, column: VirtualColumn, part: &Part, keys: &crate::keys::TableKeys, schema: &SchemaRef) -> Result<ScalarValue> {
        Ok(match column {
            VirtualColumn::Part => ScalarValue::Utf8(Some(part.name())),
            VirtualColumn::PartIndex => ScalarValue::UInt64(Some(self.part_places.get(&part.id).map_or(0, |p| p.index))),
            VirtualColumn::PartStartingOffset => ScalarValue::UInt64(Some(self.part_places.get(&part.id).map_or(0, |p| p.starting_offset))),
            VirtualColumn::PartDataVersion => ScalarValue::UInt64(Some(part.info.data_version())),
            VirtualColumn::BlockNumber => ScalarValue::UInt64(Some(part.info.min_block)),
            // Granary has one disk and no vector search: ClickHouse's values in those
            // cases. `_row_exists` of a part without a lightweight-delete mask.
            VirtualColumn::DiskName => ScalarValue::Utf8(Some("default".to_string())),
            VirtualColumn::SampleFactor => ScalarValue::Float64(Some(self.sample_factor)),
            VirtualColumn::Distance => ScalarValue::Float32(Some(0.0)),
            VirtualColumn::RowExists => ScalarValue::UInt8(Some(1)),
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
            VirtualColumn::PartOffset | VirtualColumn::PartGranuleOffset | VirtualColumn::BlockOffset => {
                return Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("{} is not one value per part", column.name())))
            }
        })
    }
}

#[derive(Debug, Clone, Copy)]
struct PartPlace {
    index: u64,
    starting_offset: u64,
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
