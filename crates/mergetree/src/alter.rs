//! Partition commands (`ALTER TABLE ... DROP/DETACH/ATTACH PARTITION`), the
//! `DELETE WHERE` and `UPDATE ... WHERE` mutations, and parts rewritten to the columns
//! of an `ALTER TABLE ... ADD/DROP/RENAME/MODIFY COLUMN`.
//!
//! All of them hold the table's merge lock (no merge is half-way over the parts they
//! touch) and the commit lock for the snapshot swap.
//!
//! * DROP: the partition's parts leave the snapshot and are removed durably at once
//!   (renamed to `delete_tmp_<name>` first, so a crash never resurrects them); outdated
//!   parts of the partition go too, since nothing would cover them after a restart.
//! * DETACH: the parts move to `detached/<name>` (never served, never deleted).
//! * ATTACH: every `detached/<partition>_*` part is verified as at load (checksums,
//!   columns), gets a fresh block number and moves back in.
//! * UPDATE ... WHERE: the same, the rows kept and the assigned columns replaced.
//! * DELETE WHERE: each active part with a matching row is rewritten without those rows
//!   as `<partition>_<min>_<max>_<level + 1>`, which covers the old part (so a crash
//!   after the rename heals at load like a merge). ClickHouse names it with a mutation
//!   version suffix instead (`_<level>_<version>`); that would change the part-name
//!   contract, so it is not done. A part losing every row is removed like a DROP.
//! * Column changes: the catalog writes the new metadata durably first, then reopens the
//!   table, and the open rewrites every part whose `columns.txt` is not the table's as
//!   `<level + 1>` (kept columns copied, renamed ones found under their old name, type
//!   changes converted with `_CAST`, added ones filled with their DEFAULT or the type's
//!   default, dropped ones left out). A crash at any point leaves the old metadata with
//!   the old parts, or the new metadata, whose next open finishes the rewrite. Unlike
//!   ClickHouse, whose parts keep the columns they were written with, every part is
//!   rewritten at once. A type change is first tried on every part in memory
//!   (`check_conversion`), so a value that does not convert fails the ALTER before
//!   anything changed.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, BooleanArray};
use arrow::compute::{filter_record_batch, not, prep_null_mask_filter};
use arrow::datatypes::DataType;
use datafusion::physical_expr::PhysicalExpr;
use granary_common::{Error, ErrorCode, Result, ResultExt};
use arrow::array::ArrayRef;
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_storage::{ColumnMeta, DeleteRequest, PartitionCommand, TableMeta, UpdateRequest};

use crate::engine::{remove_parts_now, Inner};
use crate::insert::{discard, write_part};
use crate::part::Part;
use crate::part_info::PartInfo;
use crate::reader::PartReader;
use crate::virtual_columns::VirtualValues;
use crate::writer::{commit_part_dir, PartSync};

pub async fn alter_partition(inner: &Arc<Inner>, command: PartitionCommand) -> Result<()> {
    let _merge = inner.merge_lock.lock().await;
    let inner = inner.clone();
    tokio::task::spawn_blocking(move || match command {
        PartitionCommand::Drop { partition } => {
            let id = crate::merge::partition_id_of(&inner, &partition)?;
            let _commit = inner.commit_lock.lock();
            let mut gone = inner.remove_active(|p| p.info.partition_id == id);
            gone.extend(inner.take_outdated(|p| p.info.partition_id == id));
            remove_parts_now(&inner, &gone)
        }
        PartitionCommand::Detach { partition } => {
            let id = crate::merge::partition_id_of(&inner, &partition)?;
            let _commit = inner.commit_lock.lock();
            let gone = inner.remove_active(|p| p.info.partition_id == id);
            let detached = inner.dir.join("detached");
            granary_storage::fs::create_dir_all(&detached)?;
            for part in &gone {
                granary_storage::fs::rename_durable(&part.dir, &detached.join(part.name()))?;
            }
            let outdated = inner.take_outdated(|p| p.info.partition_id == id);
            remove_parts_now(&inner, &outdated)
        }
        PartitionCommand::Attach { partition } => attach(&inner, &partition),
    })
    .await
    .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("partition task failed: {e}")))?
}

fn attach(inner: &Inner, partition: &str) -> Result<()> {
    let id = crate::merge::partition_id_of(inner, partition)?;
    let detached = inner.dir.join("detached");
    let mut found: Vec<(PartInfo, std::path::PathBuf)> = Vec::new();
    if detached.is_dir() {
        let entries = std::fs::read_dir(&detached).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot list {}", detached.display()))?;
        for entry in entries {
            let entry = entry.with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot list {}", detached.display()))?;
            let name = entry.file_name().to_string_lossy().to_string();
            // `broken_*` and other prefixed names do not parse: they stay detached.
            if let Ok(info) = PartInfo::parse(&name) {
                if info.partition_id == id {
                    found.push((info, entry.path()));
                }
            }
        }
    }
    found.sort();
    // Verify everything before moving anything: ATTACH is all or nothing.
    let _commit = inner.commit_lock.lock();
    let mut loaded = Vec::with_capacity(found.len());
    for (info, path) in &found {
        let block = inner.next_block.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let new_info = PartInfo::new(id.clone(), block, block, info.level);
        let part = Part::load(path, new_info, &inner.schema, &inner.keys).map_err(|e| e.context(format!("cannot attach part {}", info.name())))?;
        loaded.push((path.clone(), part));
    }
    let mut attached = Vec::with_capacity(loaded.len());
    for (path, mut part) in loaded {
        let target = inner.dir.join(part.name());
        granary_storage::fs::rename_durable(&path, &target)?;
        part.dir = target;
        attached.push(Arc::new(part));
    }
    inner.add_parts(attached, &[]);
    Ok(())
}

/// `ALTER TABLE t DELETE WHERE predicate`: synchronous when `request.sync`, else run in
/// the background (errors are logged, as ClickHouse shows them in system.mutations).
pub async fn delete_where(inner: &Arc<Inner>, request: DeleteRequest) -> Result<()> {
    let predicate = mutation_predicate(inner, &request.predicate, "DELETE")?;
    let command = format!("(DELETE WHERE {})", request.predicate);
    run_mutation(inner, request.sync, command, move |inner| mutate_all(inner, &predicate, &[])).await
}

/// `ALTER TABLE t UPDATE c = expr, ... WHERE predicate`, run as `delete_where`. Each new
/// value is ClickHouse's `_CAST(if(predicate, _CAST(expr, 'T'), c), 'T')` over the old
/// row, so every assignment sees the values before the update. Key columns cannot change:
/// rows would leave their place in the part, or their partition.
pub async fn update_where(inner: &Arc<Inner>, request: UpdateRequest) -> Result<()> {
    let keys = inner.keys.sorting.iter().chain(&inner.keys.partition).flat_map(|k| datafusion::physical_expr::utils::collect_columns(&k.expr)).map(|c| c.index()).collect::<Vec<_>>();
    let mut updates = Vec::with_capacity(request.assignments.len());
    for (name, value) in &request.assignments {
        let column = inner.schema.index_of(name).map_err(|_| Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("There is no column `{name}` in table.")))?;
        if keys.contains(&column) {
            return Err(Error::new(ErrorCode::CANNOT_UPDATE_COLUMN, format!("Cannot UPDATE key column `{name}`.")));
        }
        let t = granary_types::ChType::from_field(inner.schema.field(column)).to_string().replace('\'', "\\'");
        let text = format!("_CAST(if(({}), _CAST(({value}), '{t}'), `{name}`), '{t}')", request.predicate);
        updates.push((column, inner.keys.plan_expr(&inner.scan_schema, &text)?));
    }
    // The condition of `if`: what `if` takes (an integer literal too), as a boolean.
    let predicate = mutation_predicate(inner, &format!("if(({}), true, false)", request.predicate), "UPDATE")?;
    let assignments: Vec<String> = request.assignments.iter().map(|(name, value)| format!("{name} = {value}")).collect();
    let command = format!("(UPDATE {} WHERE {})", assignments.join(", "), request.predicate);
    run_mutation(inner, request.sync, command, move |inner| mutate_all(inner, &predicate, &updates)).await
}

/// The boolean predicate of a mutation, over the stored and virtual columns
/// (`DELETE WHERE _partition_id = ...` works in ClickHouse).
fn mutation_predicate(inner: &Inner, text: &str, what: &str) -> Result<Arc<dyn PhysicalExpr>> {
    let predicate = inner.keys.plan_predicate(&inner.scan_schema, text)?;
    let data_type = predicate.data_type(&inner.scan_schema)?;
    if data_type != DataType::Boolean {
        return Err(Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {data_type} of column for filter: the {what} predicate must be boolean ({text})")));
    }
    Ok(predicate)
}

/// Runs `mutate` under the merge lock: waited for when `sync`, else in the background
/// (errors are logged). Each mutation takes a block number, as in ClickHouse, which names
/// it in `system.mutations` (`mutation_<block>.txt`), where its state and last error show.
async fn run_mutation(inner: &Arc<Inner>, sync: bool, command: String, mutate: impl FnOnce(&Inner) -> Result<()> + Send + 'static) -> Result<()> {
    let block = inner.next_block.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let mutation_id = format!("mutation_{block}.txt");
    inner.mutations.lock().push(granary_storage::MutationStatus {
        mutation_id: mutation_id.clone(),
        command,
        create_time: unix_now(),
        parts_to_do: inner.snapshot().len() as i64,
        ..Default::default()
    });
    let run = {
        let inner = inner.clone();
        async move {
            let _merge = inner.merge_lock.lock().await;
            let task_inner = inner.clone();
            let result = tokio::task::spawn_blocking(move || mutate(&task_inner))
                .await
                .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("mutation task failed: {e}")))
                .and_then(|r| r);
            let mut mutations = inner.mutations.lock();
            if let Some(status) = mutations.iter_mut().find(|m| m.mutation_id == mutation_id) {
                match &result {
                    Ok(()) => {
                        status.is_done = true;
                        status.parts_to_do = 0;
                        status.finish_time = unix_now();
                    }
                    Err(e) => {
                        status.latest_fail_time = unix_now();
                        status.latest_fail_reason = e.to_string();
                    }
                }
            }
            result
        }
    };
    if sync {
        return run.await;
    }
    let table = inner.table_name.clone();
    tokio::spawn(async move {
        if let Err(e) = run.await {
            tracing::error!("mutation of {table} failed: {e}");
        }
    });
    Ok(())
}

/// Rewrites every part with a row matching `predicate`: without those rows, or (with
/// `updates`) with those columns replaced by their expressions' values.
fn mutate_all(inner: &Inner, predicate: &Arc<dyn PhysicalExpr>, updates: &[(usize, Arc<dyn PhysicalExpr>)]) -> Result<()> {
    let snapshot = inner.snapshot();
    let filter_columns: Vec<usize> = {
        let mut c: Vec<usize> = datafusion::physical_expr::utils::collect_columns(predicate).into_iter().map(|c| c.index()).collect();
        c.sort_unstable();
        c
    };
    let scan_schema = &inner.scan_schema;
    let stored: Vec<usize> = (0..inner.schema.fields().len()).collect();
    // The stored columns, then the virtual ones (made, not read: they cost nothing).
    let all: Vec<usize> = (0..scan_schema.fields().len()).collect();
    let virtual_values = VirtualValues::new(inner, snapshot.iter());
    for part in snapshot.iter() {
        // First pass: only the predicate's columns, to skip parts without matches.
        let projected = Arc::new(scan_schema.project(&filter_columns)?);
        let remap = remap_predicate(predicate, scan_schema, &filter_columns)?;
        let mut reader = PartReader::new(part.clone(), scan_schema, &filter_columns)?.with_virtual_values(&virtual_values, &inner.keys, &inner.schema)?;
        let mut matches = 0u64;
        for g in 0..part.granules() {
            let batch = reader.read(g..g + 1, &projected)?;
            matches += deleted_mask(&remap, &batch)?.true_count() as u64;
        }
        if matches == 0 {
            continue;
        }
        if matches == part.rows && updates.is_empty() {
            let _commit = inner.commit_lock.lock();
            let gone = inner.remove_active(|p| std::ptr::eq(p, part.as_ref()));
            remove_parts_now(inner, &gone)?;
            continue;
        }
        let info = PartInfo::new(part.info.partition_id.clone(), part.info.min_block, part.info.max_block, part.info.level + 1);
        let mut reader = PartReader::new(part.clone(), scan_schema, &all)?.with_virtual_values(&virtual_values, &inner.keys, &inner.schema)?;
        let blocks = (0..part.granules()).map(|g| {
            let batch = reader.read(g..g + 1, scan_schema)?;
            if updates.is_empty() {
                let deleted = deleted_mask(predicate, &batch)?;
                return Ok(filter_record_batch(&batch.project(&stored)?, &not(&deleted)?)?);
            }
            let mut columns = batch.project(&stored)?.columns().to_vec();
            for (column, value) in updates {
                let field = inner.schema.field(*column);
                let value = value.evaluate(&batch)?.into_array(batch.num_rows())?;
                columns[*column] = if value.data_type() == field.data_type() { value } else { arrow::compute::cast(&value, field.data_type())? };
            }
            Ok(arrow::record_batch::RecordBatch::try_new(inner.schema.clone(), columns)?)
        });
        let layout = crate::merge::layout_of_merge(inner, std::slice::from_ref(part));
        // Each source granule, filtered, is one block, as ClickHouse's mutation reads it.
        let pending = write_part(inner, info, "tmp_mut_", PartSync::FULL, layout, blocks.map(|b| b.map(|b| vec![b])))?;
        let _commit = inner.commit_lock.lock();
        if !inner.all_active(std::slice::from_ref(part)) {
            discard(std::slice::from_ref(&pending));
            continue;
        }
        if let Err(e) = commit_part_dir(&pending.tmp_dir, &pending.final_dir, PartSync::FULL) {
            discard(std::slice::from_ref(&pending));
            return Err(e);
        }
        let mutated = Arc::new(pending.part);
        inner.log_part("MutatePart", &mutated, std::slice::from_ref(part), std::time::Duration::ZERO);
        inner.add_parts(vec![mutated], std::slice::from_ref(part));
    }
    Ok(())
}

/// Rows the predicate deletes: true only (NULL keeps the row, as in ClickHouse).
fn deleted_mask(predicate: &Arc<dyn PhysicalExpr>, batch: &arrow::record_batch::RecordBatch) -> Result<BooleanArray> {
    let value = predicate.evaluate(batch)?.into_array(batch.num_rows())?;
    let mask = value
        .as_any()
        .downcast_ref::<BooleanArray>()
        .ok_or_else(|| Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "DELETE predicate is not boolean"))?;
    Ok(if mask.null_count() > 0 { prep_null_mask_filter(mask) } else { mask.clone() })
}

/// The predicate over the projected batch of `columns` (column indices renumbered).
fn remap_predicate(
    predicate: &Arc<dyn PhysicalExpr>,
    schema: &arrow::datatypes::SchemaRef,
    columns: &[usize],
) -> Result<Arc<dyn PhysicalExpr>> {
    use datafusion::common::tree_node::{Transformed, TreeNode};
    use datafusion::physical_plan::expressions::Column;
    let out = predicate.clone().transform(|e| {
        if let Some(c) = e.downcast_ref::<Column>() {
            let index = columns.iter().position(|&i| i == c.index()).unwrap_or(0);
            return Ok(Transformed::yes(Arc::new(Column::new(schema.field(c.index()).name(), index)) as Arc<dyn PhysicalExpr>));
        }
        Ok(Transformed::no(e))
    })?;
    Ok(out.data)
}

fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::SystemTime::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// Loads a part written with other columns (`columns_txt`) than `meta`'s: with its own
/// columns, and keys planned over them (key columns never change).
pub fn load_stale(dir: &Path, info: PartInfo, meta: &TableMeta, columns_txt: &str) -> Result<(Part, SchemaRef)> {
    let columns = crate::part::parse_columns_txt(columns_txt)?;
    let part_meta = TableMeta { columns: columns.iter().map(|(name, t)| ColumnMeta::new(name.clone(), t)).collect(), ..meta.clone() };
    let schema = part_meta.schema()?;
    let keys = crate::keys::TableKeys::new(&part_meta, &schema)?;
    Ok((Part::load(dir, info, &schema, &keys)?, schema))
}

/// How each table column is made from a part written with other columns.
struct Conversion {
    target: SchemaRef,
    sources: Vec<ColumnSource>,
}

enum ColumnSource {
    /// The part's column, unchanged.
    Stored(usize),
    /// An expression over the part's columns: a cast, or the column's DEFAULT.
    Computed(Arc<dyn PhysicalExpr>),
    /// The type's default value, one row.
    Default(ArrayRef),
}

impl Conversion {
    fn new(inner: &Inner, part_schema: &SchemaRef, target: &SchemaRef, columns: &[ColumnMeta], renames: &[(String, String)]) -> Result<Conversion> {
        let mut sources = Vec::with_capacity(columns.len());
        for (column, field) in columns.iter().zip(target.fields()) {
            let name = renames.iter().find(|(new, _)| *new == column.name).map_or(column.name.as_str(), |(_, old)| old.as_str());
            let t = column.type_name.replace('\\', "\\\\").replace('\'', "\\'");
            let source = match part_schema.index_of(name) {
                Ok(index) if part_schema.field(index).data_type() == field.data_type() && granary_types::ChType::from_field(part_schema.field(index)) == granary_types::ChType::from_field(field) => {
                    ColumnSource::Stored(index)
                }
                Ok(_) => ColumnSource::Computed(inner.keys.plan_expr(part_schema, &format!("_CAST(`{}`, '{t}')", name.replace('`', "\\`")))?),
                Err(_) => {
                    let expression = column.default_expression.as_deref().filter(|_| matches!(column.default_kind.as_deref(), Some("DEFAULT" | "MATERIALIZED")));
                    // A DEFAULT naming other new columns cannot be computed from the part:
                    // such rows get the type's default.
                    match expression.map(|e| inner.keys.plan_expr(part_schema, &format!("_CAST(({e}), '{t}')"))) {
                        Some(Ok(expr)) => ColumnSource::Computed(expr),
                        _ => ColumnSource::Default(granary_storage::defaults::default_value(field)?),
                    }
                }
            };
            sources.push(source);
        }
        Ok(Conversion { target: target.clone(), sources })
    }

    /// Whether any value has to be computed, so that converting can fail.
    fn computes(&self) -> bool {
        self.sources.iter().any(|s| matches!(s, ColumnSource::Computed(_)))
    }

    fn apply(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let columns = self
            .sources
            .iter()
            .zip(self.target.fields())
            .map(|(source, field)| {
                let array = match source {
                    ColumnSource::Stored(index) => batch.column(*index).clone(),
                    ColumnSource::Computed(expr) => expr.evaluate(batch)?.into_array(rows)?,
                    ColumnSource::Default(value) => granary_storage::defaults::repeat(value, rows)?,
                };
                Ok(if array.data_type() == field.data_type() { array } else { arrow::compute::cast(&array, field.data_type())? })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(RecordBatch::try_new_with_options(self.target.clone(), columns, &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(rows)))?)
    }
}

/// Rewrites `part` (written with `part_schema`) to the table's columns as
/// `<level + 1>`, which covers it, and serves the new part instead.
pub fn convert_part(inner: &Inner, part: &Arc<Part>, part_schema: &SchemaRef, columns: &[ColumnMeta], renames: &[(String, String)]) -> Result<()> {
    let conversion = Conversion::new(inner, part_schema, &inner.schema, columns, renames)?;
    let all: Vec<usize> = (0..part_schema.fields().len()).collect();
    let mut reader = PartReader::new(part.clone(), part_schema, &all)?;
    let blocks = (0..part.granules()).map(|g| Ok(vec![conversion.apply(&reader.read(g..g + 1, part_schema)?)?]));
    let info = PartInfo::new(part.info.partition_id.clone(), part.info.min_block, part.info.max_block, part.info.level + 1);
    let layout = crate::merge::layout_of_merge(inner, std::slice::from_ref(part));
    let pending = write_part(inner, info, "tmp_mut_", PartSync::FULL, layout, blocks)?;
    let _commit = inner.commit_lock.lock();
    if let Err(e) = commit_part_dir(&pending.tmp_dir, &pending.final_dir, PartSync::FULL) {
        discard(std::slice::from_ref(&pending));
        return Err(e);
    }
    let converted = Arc::new(pending.part);
    inner.log_part("MutatePart", &converted, std::slice::from_ref(part), std::time::Duration::ZERO);
    inner.add_parts(vec![converted], &[]);
    part.mark_for_removal();
    Ok(())
}

/// Converts every active part to `meta`'s columns in memory, keeping nothing: the error
/// of a value that does not convert, before the ALTER changes anything.
pub fn check_conversion(inner: &Inner, meta: &TableMeta) -> Result<()> {
    let target = meta.schema()?;
    if crate::part::columns_txt(&target) == crate::part::columns_txt(&inner.schema) {
        return Ok(());
    }
    let conversion = Conversion::new(inner, &inner.schema, &target, &meta.columns, &meta.renamed_columns)?;
    if !conversion.computes() {
        return Ok(());
    }
    let all: Vec<usize> = (0..inner.schema.fields().len()).collect();
    for part in inner.snapshot().iter() {
        let mut reader = PartReader::new(part.clone(), &inner.schema, &all)?;
        for g in 0..part.granules() {
            conversion.apply(&reader.read(g..g + 1, &inner.schema)?)?;
        }
    }
    Ok(())
}
