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
//! * DELETE WHERE / UPDATE ... WHERE: mutations, see `crate::mutation`.
//! * Column changes: the catalog writes the new metadata durably first, then reopens the
//!   table, and the open rewrites every part whose `columns.txt` is not the table's one
//!   level up (kept columns copied, renamed ones found under their old name, type
//!   changes converted with `_CAST`, added ones filled with their DEFAULT or the type's
//!   default, dropped ones left out). A crash at any point leaves the old metadata with
//!   the old parts, or the new metadata, whose next open finishes the rewrite. Unlike
//!   ClickHouse, whose parts keep the columns they were written with, every part is
//!   replaced at once; a wide part is replaced by hard links, with only the columns
//!   whose values change written (`link_converted`). A type change is first tried on every part in memory
//!   (`check_conversion`), so a value that does not convert fails the ALTER before
//!   anything changed.

use std::path::Path;
use std::sync::Arc;

use granary_common::{Error, ErrorCode, Result, ResultExt};
use arrow::array::ArrayRef;
use datafusion::physical_expr::PhysicalExpr;
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_storage::{ColumnMeta, DeleteRequest, PartitionCommand, TableMeta, UpdateRequest};

use crate::engine::{remove_parts_now, Inner};
use crate::mutation::MutationCommand;
use crate::part::Part;
use crate::part_info::PartInfo;
use crate::insert::discard;
use crate::reader::PartReader;
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

/// `ALTER TABLE t DELETE WHERE predicate`: a mutation (see `crate::mutation`), waited
/// for when `request.sync`.
pub async fn delete_where(inner: &Arc<Inner>, request: DeleteRequest) -> Result<()> {
    crate::mutation::create(inner, MutationCommand::Delete { predicate: request.predicate, lightweight: request.lightweight }, request.sync).await
}

/// `ALTER TABLE t UPDATE c = expr, ... WHERE predicate`, run as `delete_where`.
pub async fn update_where(inner: &Arc<Inner>, request: UpdateRequest) -> Result<()> {
    crate::mutation::create(inner, MutationCommand::Update { assignments: request.assignments, predicate: request.predicate }, request.sync).await
}

/// `ALTER TABLE t MATERIALIZE TTL` / `CLEAR COLUMN c` / `MATERIALIZE|CLEAR|DROP INDEX i`, run as `delete_where`.
pub async fn mutate_by_rule(inner: &Arc<Inner>, command: granary_storage::RuleMutation, sync: bool) -> Result<()> {
    let command = match command {
        granary_storage::RuleMutation::MaterializeTtl { partition } => MutationCommand::MaterializeTtl { partition },
        granary_storage::RuleMutation::ClearColumn { column, partition } => MutationCommand::ClearColumn { column, partition },
        granary_storage::RuleMutation::MaterializeColumn { column, partition } => MutationCommand::MaterializeColumn { column, partition },
        granary_storage::RuleMutation::MaterializeIndex { name, partition } => MutationCommand::MaterializeIndex { name, partition },
        granary_storage::RuleMutation::ClearIndex { name, partition: _, drop: true } => MutationCommand::DropIndex { name },
        granary_storage::RuleMutation::ClearIndex { name, partition, drop: false } => MutationCommand::ClearIndex { name, partition },
    };
    crate::mutation::create(inner, command, sync).await
}

/// Loads a part written with other columns (`columns_txt`) than `meta`'s: with its own
/// columns, and keys planned over them (key columns never change).
pub fn load_stale(dir: &Path, info: PartInfo, meta: &TableMeta, columns_txt: &str) -> Result<(Part, SchemaRef)> {
    let mut columns = crate::part::parse_columns_txt(columns_txt)?;
    // The lightweight-delete mask is not a table column; `Part::load` finds it.
    columns.retain(|(name, _)| name != crate::lightweight_delete::ROW_EXISTS_COLUMN);
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

    /// Whether a value of a key column changes (its type does): the part's index would
    /// have to be written again.
    fn changes_keys(&self, inner: &Inner) -> bool {
        let keys = inner.keys.sorting.iter().chain(&inner.keys.partition).flat_map(|k| datafusion::physical_expr::utils::collect_columns(&k.expr)).map(|c| c.index());
        let mut keys = keys.chain(inner.keys.partition_columns.iter().copied());
        keys.any(|k| !matches!(self.sources.get(k), Some(ColumnSource::Stored(_))))
    }

    /// Target column `index` made from `batch` (of the part's columns).
    fn column(&self, index: usize, batch: &RecordBatch) -> Result<ArrayRef> {
        let field = self.target.field(index);
        let array = match &self.sources[index] {
            ColumnSource::Stored(from) => batch.column(*from).clone(),
            ColumnSource::Computed(expr) => expr.evaluate(batch)?.into_array(batch.num_rows())?,
            ColumnSource::Default(value) => granary_storage::defaults::repeat(value, batch.num_rows())?,
        };
        Ok(if array.data_type() == field.data_type() { array } else { arrow::compute::cast(&array, field.data_type())? })
    }

    fn apply(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let columns = (0..self.sources.len()).map(|index| self.column(index, batch)).collect::<Result<Vec<_>>>()?;
        Ok(RecordBatch::try_new_with_options(self.target.clone(), columns, &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(rows)))?)
    }
}

/// Rewrites `part` (written with `part_schema`) to the table's columns one level up,
/// which covers it, and serves the new part instead.
pub fn convert_part(inner: &Inner, part: &Arc<Part>, part_schema: &SchemaRef, columns: &[ColumnMeta], renames: &[(String, String)]) -> Result<()> {
    let conversion = Conversion::new(inner, part_schema, &inner.schema, columns, renames)?;
    // One level up with the same data version: it covers the old part, and mutations see it as they saw that one.
    let info = PartInfo::new(part.info.partition_id.clone(), part.info.min_block, part.info.max_block, part.info.level + 1).with_mutation(part.info.mutation);
    if part.layout == crate::writer::PartLayout::Wide && !conversion.changes_keys(inner) {
        return link_converted(inner, part, part_schema, &conversion, info);
    }
    let all: Vec<usize> = (0..part_schema.fields().len()).collect();
    let mut reader = PartReader::new(part.clone(), part_schema, &all)?;
    // Rows a lightweight delete masked are left out: the new part has no mask.
    let blocks = (0..part.granules()).map(|g| {
        let batch = reader.read(g..g + 1, part_schema)?;
        let batch = match part.existing_in(g..g + 1) {
            Some(existing) => arrow::compute::filter_record_batch(&batch, &existing)?,
            None => batch,
        };
        conversion.apply(&batch)
    });
    let layout = crate::merge::layout_of_merge(inner, std::slice::from_ref(part));
    let pending = crate::insert::write_part_with(inner, info, "tmp_mut_", PartSync::FULL, layout, |writer| {
        // Every row may have been masked: the empty part still covers the old one.
        writer.allow_empty(part);
        for block in blocks {
            writer.write(&block?)?;
        }
        Ok(())
    })?;
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

/// A wide part converted without rewriting it (ClickHouse's hard-linked mutation): the
/// files of every column kept are hard-linked under the column's (new) name, a dropped
/// column's are left behind, and only a column whose values change (a new type, or
/// ADD COLUMN's values) is written. Compact parts, whose columns share one file, and
/// changes to key columns are rewritten whole (`convert_part`).
fn link_converted(inner: &Inner, part: &Arc<Part>, part_schema: &SchemaRef, conversion: &Conversion, info: PartInfo) -> Result<()> {
    use crate::writer::{bin_file_name, mark_file_name, PartLayout};
    let tmp_seq = inner.next_tmp.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp_dir = inner.dir.join(format!("tmp_mut_{}_{tmp_seq}", info.name()));
    let final_dir = inner.dir.join(info.name());
    let made = (|| -> Result<()> {
        granary_storage::fs::create_dir_all(&tmp_dir)?;
        let old = crate::part::read_text(&part.dir.join(crate::part::CHECKSUMS_FILE))?;
        let lines: std::collections::HashMap<&str, &str> = old.lines().filter_map(|l| l.split_once('\t')).collect();
        // Column files of the part, by file name: they go only where a column takes them.
        let column_files: std::collections::HashSet<String> =
            part_schema.fields().iter().flat_map(|f| [bin_file_name(PartLayout::Wide, f.name()), mark_file_name(PartLayout::Wide, f.name())]).collect();
        let mut checksums = String::new();
        // The linked file's `checksums.txt` line, under its new name.
        let link = |from: &str, to: &str| -> Result<String> {
            let line = lines.get(from).ok_or_else(|| Error::new(ErrorCode::CORRUPTED_DATA, format!("{from} is missing from {}", part.dir.display())))?;
            crate::mutation::link_file(&part.dir.join(from), &tmp_dir.join(to))?;
            Ok(format!("{to}\t{line}\n"))
        };
        for name in lines.keys() {
            if !column_files.contains(*name) && *name != "columns.txt" {
                checksums.push_str(&link(name, name)?);
            }
        }
        let all: Vec<usize> = (0..part_schema.fields().len()).collect();
        let mut reader = PartReader::new(part.clone(), part_schema, &all)?;
        for (index, (source, field)) in conversion.sources.iter().zip(conversion.target.fields()).enumerate() {
            if let ColumnSource::Stored(from) = source {
                let from = part_schema.field(*from).name();
                for file in [bin_file_name(PartLayout::Wide, from), mark_file_name(PartLayout::Wide, from)] {
                    let to = if file.ends_with(".bin") { bin_file_name(PartLayout::Wide, field.name()) } else { mark_file_name(PartLayout::Wide, field.name()) };
                    checksums.push_str(&link(&file, &to)?);
                }
                continue;
            }
            let mut pieces = Vec::with_capacity(part.granules());
            for g in 0..part.granules() {
                let batch = reader.read(g..g + 1, part_schema)?;
                pieces.push(conversion.column(index, &batch)?);
            }
            let refs: Vec<&dyn arrow::array::Array> = pieces.iter().map(|a| a.as_ref()).collect();
            let values = if refs.is_empty() { arrow::array::new_empty_array(field.data_type()) } else { arrow::compute::concat(&refs)? };
            let codec = inner.codecs.get(index).copied().unwrap_or_default();
            checksums.push_str(&crate::writer::write_column_file(&tmp_dir, field.name(), &part.granule_starts, &values, &codec)?);
        }
        let mut schema = conversion.target.clone();
        if part.row_exists.is_some() {
            schema = crate::lightweight_delete::with_row_exists(&schema);
        }
        let columns = crate::part::columns_txt(&schema);
        crate::lightweight_delete::write_synced(&tmp_dir.join("columns.txt"), columns.as_bytes())?;
        checksums.push_str(&format!("columns.txt\t{}\t{:016x}\n", columns.len(), xxhash_rust::xxh3::xxh3_64(columns.as_bytes())));
        crate::lightweight_delete::write_synced(&tmp_dir.join(crate::part::CHECKSUMS_FILE), checksums.as_bytes())?;
        granary_common::fs::sync_dir(&tmp_dir)
    })();
    if let Err(e) = made {
        if let Err(e) = std::fs::remove_dir_all(&tmp_dir) {
            tracing::warn!("cannot remove {}: {e}", tmp_dir.display());
        }
        return Err(e);
    }
    let _commit = inner.commit_lock.lock();
    commit_part_dir(&tmp_dir, &final_dir, PartSync::FULL)?;
    let converted = Arc::new(Part::load(&final_dir, info, &inner.schema, &inner.keys)?);
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
            let batch = reader.read(g..g + 1, &inner.schema)?;
            conversion.apply(&match part.existing_in(g..g + 1) {
                Some(existing) => arrow::compute::filter_record_batch(&batch, &existing)?,
                None => batch,
            })?;
        }
    }
    Ok(())
}
