//! `MergeTreeEngine`: the table, its active parts, and the `TableEngine` contract.
//!
//! The active parts are an immutable, sorted `Vec<Arc<Part>>` behind a lock that is held
//! only to clone or swap the `Arc`: a scan takes a snapshot and never blocks an insert
//! or a merge, and a part replaced by a merge stays on disk until the last snapshot
//! holding it is dropped (`Part` removes its directory on drop once marked).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, SystemTime};

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::DFSchema;
use datafusion::logical_expr::{utils::conjunction, Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use granary_common::{Error, ErrorCode, Result, ResultExt};
use granary_storage::{
    CheckResult, ColumnSizes, DeleteRequest, EngineContext, EngineFactory, InsertRequest, InsertResult, MergeStatus, OptimizeRequest, PartLogSink, PartStatus, PartitionCommand,
    SampleClause, TableEngine, TableMeta,
};
use parking_lot::{Mutex, RwLock};

use crate::compression::ColumnCodec;
use crate::keys::TableKeys;
use crate::merge;
use crate::part::{Part, PartSizes};
use crate::writer::{bin_file_name, mark_file_name, PartLayout};
use crate::part_info::PartInfo;
use crate::reader::{split_ranges, MergeTreeExec};
use crate::select::select_granules;
use crate::settings::MergeTreeSettings;

/// Shared state of one table (the background merge task holds a `Weak` to it).
#[derive(Debug)]
pub struct Inner {
    pub table_name: String,
    pub database: String,
    pub table: String,
    /// Where part changes are reported (`system.part_log`).
    pub part_log: Option<Arc<dyn PartLogSink>>,
    /// The merge or mutation running now (one at a time per table), for `system.merges`.
    pub running_merge: Mutex<Option<RunningMerge>>,
    /// `MergeTree`, `ReplacingMergeTree`, ...
    pub engine_name: &'static str,
    pub mode: MergeMode,
    pub dir: PathBuf,
    pub schema: SchemaRef,
    /// `schema` followed by the virtual columns (`crate::virtual_columns`): what a scan's
    /// projection indexes.
    pub scan_schema: SchemaRef,
    pub keys: TableKeys,
    pub settings: MergeTreeSettings,
    pub codecs: Vec<ColumnCodec>,
    parts: RwLock<Arc<Vec<Arc<Part>>>>,
    /// Parts replaced by a merge or mutation, kept on disk for `old_parts_lifetime`
    /// (ClickHouse's "Outdated" state; shown in system.parts with active = 0). They are
    /// covered by an active part, so a restart removes them.
    outdated: Mutex<Vec<(Arc<Part>, SystemTime)>>,
    /// `SYSTEM STOP/START MERGES`.
    pub merges_enabled: AtomicBool,
    /// Next block number; starts past the largest block of the parts found at load.
    pub next_block: AtomicU64,
    /// Makes temporary part directory names unique.
    pub next_tmp: AtomicU64,
    /// Serializes part-set changes that rename directories (insert publish, merge
    /// commit, truncate), so a rename and its snapshot swap are one step.
    pub commit_lock: Mutex<()>,
    /// One merge at a time per table (background or OPTIMIZE).
    pub merge_lock: tokio::sync::Mutex<()>,
    /// Held by a merge's blocking work for as long as it runs: aborting the async task
    /// that awaits it does not stop it, and DROP must not remove files under it.
    pub merge_running: Mutex<()>,
    /// Ids of the last `non_replicated_deduplication_window` inserted blocks and the
    /// parts they became, oldest first (`deduplication_log.txt`).
    pub dedup_log: Mutex<std::collections::VecDeque<(String, String)>>,
    /// The table's mutations (`mutation_N.txt`), by block (see `crate::mutation`).
    pub mutations: Mutex<Vec<crate::mutation::Mutation>>,
    pub merge_wakeup: tokio::sync::Notify,
    pub(crate) shutdown: AtomicBool,
    /// The table's and columns' TTL rules (`crate::ttl`).
    pub ttl: Option<crate::ttl::TableTtl>,
    /// Each column's DEFAULT or MATERIALIZED expression (CLEAR COLUMN writes it).
    pub column_defaults: Vec<Option<String>>,
    /// Unix seconds of the last background TTL merge, by partition id
    /// (`merge_with_ttl_timeout`).
    pub last_ttl_merge: Mutex<std::collections::HashMap<String, i64>>,
    /// The table's data-skipping indexes (`crate::skip_index`).
    pub skip_indexes: crate::skip_index::SkipIndexes,
}

/// A merge or mutation in progress.
#[derive(Debug, Clone)]
pub struct RunningMerge {
    pub started: std::time::Instant,
    pub sources: Vec<String>,
    pub result: String,
    pub partition_id: String,
    pub is_mutation: bool,
    pub total_rows: u64,
    pub total_bytes: u64,
    pub rows_read: Arc<AtomicU64>,
    pub rows_written: Arc<AtomicU64>,
}

impl Inner {
    /// Reports a part change to `system.part_log`.
    pub fn log_part(&self, event_type: &str, part: &Part, merged_from: &[Arc<Part>], duration: Duration) {
        use granary_common::metrics::Event;
        match event_type {
            "NewPart" => {
                Event::MergeTreeDataWriterBlocks.add(1);
                Event::MergeTreeDataWriterRows.add(part.rows);
            }
            "MergeParts" => {
                Event::Merge.add(1);
                Event::MergedRows.add(merged_from.iter().map(|p| p.rows).sum());
                Event::MergeTotalMilliseconds.add(duration.as_millis() as u64);
            }
            "MutatePart" => Event::MutatedParts.add(1),
            "RemovePart" => Event::RemovedParts.add(1),
            _ => {}
        }
        let Some(sink) = &self.part_log else { return };
        let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_micros() as i64).unwrap_or(0);
        sink.record(granary_storage::PartLogEvent {
            event_type: event_type.to_string(),
            event_time_us: now,
            duration_ms: duration.as_millis() as u64,
            database: self.database.clone(),
            table: self.table.clone(),
            part_name: part.name(),
            partition_id: part.info.partition_id.clone(),
            rows: part.rows,
            size_in_bytes: part.bytes_on_disk,
            merged_from: merged_from.iter().map(|p| p.name()).collect(),
            read_rows: merged_from.iter().map(|p| p.rows).sum(),
        });
    }

    pub fn snapshot(&self) -> Arc<Vec<Arc<Part>>> {
        self.parts.read().clone()
    }

    /// Adds `new` and removes `old` (by identity) in one swap; the removed parts are
    /// deleted once no snapshot holds them.
    pub fn add_parts(&self, new: Vec<Arc<Part>>, old: &[Arc<Part>]) {
        let mut guard = self.parts.write();
        let mut next: Vec<Arc<Part>> = guard.iter().filter(|p| !old.iter().any(|o| Arc::ptr_eq(o, p))).cloned().collect();
        next.extend(new);
        next.sort_by(|a, b| a.info.cmp(&b.info));
        *guard = Arc::new(next);
        drop(guard);
        let now = SystemTime::now();
        self.outdated.lock().extend(old.iter().map(|o| (o.clone(), now)));
        self.remove_old_parts();
    }

    /// Removes outdated parts older than `old_parts_lifetime` (their directories go when
    /// the last query reading them ends).
    pub fn remove_old_parts(&self) {
        let lifetime = Duration::from_secs(self.settings.old_parts_lifetime);
        let now = SystemTime::now();
        self.outdated.lock().retain(|(part, since)| {
            let expired = now.duration_since(*since).unwrap_or_default() >= lifetime;
            if expired {
                part.mark_for_removal();
                self.log_part("RemovePart", part, &[], Duration::ZERO);
            }
            !expired
        });
    }

    /// Takes the outdated parts matching `pred` out of the list (their rows would come
    /// back at restart once their covering part is gone: TRUNCATE, DROP PARTITION).
    pub fn take_outdated(&self, pred: impl Fn(&Part) -> bool) -> Vec<Arc<Part>> {
        let mut guard = self.outdated.lock();
        let (taken, kept): (Vec<_>, Vec<_>) = guard.drain(..).partition(|(p, _)| pred(p));
        *guard = kept;
        taken.into_iter().map(|(p, _)| p).collect()
    }

    pub fn outdated_parts(&self) -> Vec<(Arc<Part>, SystemTime)> {
        self.outdated.lock().clone()
    }

    /// True when every part of `parts` is still active.
    pub fn all_active(&self, parts: &[Arc<Part>]) -> bool {
        let current = self.snapshot();
        parts.iter().all(|p| current.iter().any(|c| Arc::ptr_eq(c, p)))
    }

    pub fn fullest_partition(&self) -> (String, u64) {
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        let snapshot = self.snapshot();
        for p in snapshot.iter() {
            *counts.entry(p.info.partition_id.as_str()).or_default() += 1;
        }
        counts.into_iter().max_by_key(|(_, c)| *c).map(|(p, c)| (p.to_string(), c)).unwrap_or_default()
    }

    /// Removes the active parts matching `pred` from the snapshot and returns them.
    pub fn remove_active(&self, pred: impl Fn(&Part) -> bool) -> Vec<Arc<Part>> {
        let mut guard = self.parts.write();
        let (gone, kept): (Vec<Arc<Part>>, Vec<Arc<Part>>) = guard.iter().cloned().partition(|p| pred(p));
        *guard = Arc::new(kept);
        gone
    }

    fn clear(&self) -> Vec<Arc<Part>> {
        self.remove_active(|_| true)
    }
}

#[derive(Debug)]
pub struct MergeTreeEngine {
    inner: Arc<Inner>,
    merge_task: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl MergeTreeEngine {
    /// Opens (or creates) the table in `dir`: cleans leftovers, loads and verifies parts.
    pub fn open(meta: &TableMeta, schema: SchemaRef, dir: &Path, part_log: Option<Arc<dyn PartLogSink>>, graphite: &crate::graphite::GraphiteConfigs) -> Result<MergeTreeEngine> {
        let settings = MergeTreeSettings::from_pairs(&meta.engine.settings)?;
        let keys = TableKeys::new(meta, &schema)?;
        let ttl = crate::ttl::TableTtl::new(meta, &schema, &keys)?;
        let skip_indexes = crate::skip_index::SkipIndexes::new(meta, &schema, &keys)?;
        let column_defaults = meta
            .columns
            .iter()
            .map(|c| c.default_expression.clone().filter(|_| matches!(c.default_kind.as_deref(), Some("DEFAULT" | "MATERIALIZED"))))
            .collect();
        let codecs = meta
            .columns
            .iter()
            .zip(schema.fields())
            .map(|(c, field)| c.codec.as_deref().map_or(Ok(ColumnCodec::default()), |text| ColumnCodec::parse(text, field.data_type())))
            .collect::<Result<_>>()?;
        granary_storage::fs::create_dir_all(dir)?;
        let (parts, stale) = load_parts(dir, meta, &schema, &keys)?;
        let mutations = crate::mutation::load(dir)?;
        // A mutation's block is never reused either, even once no part is past it.
        let next_block = parts
            .iter()
            .chain(stale.iter().map(|(p, _)| p))
            .map(|p| p.info.max_block.max(p.info.data_version()))
            .chain(mutations.iter().map(|m| m.block))
            .max()
            .unwrap_or(0)
            + 1;
        let (engine_name, mode) = MergeMode::from_meta(meta, &schema, graphite)?;
        let scan_schema = {
            let fields: Vec<_> = schema.fields().iter().cloned().chain(crate::virtual_columns::fields(&schema, &keys)).collect();
            Arc::new(arrow::datatypes::Schema::new_with_metadata(fields, schema.metadata().clone()))
        };
        let inner = Arc::new(Inner {
            table_name: format!("{}.{}", meta.database, meta.name),
            database: meta.database.clone(),
            table: meta.name.clone(),
            part_log,
            running_merge: Mutex::new(None),
            engine_name,
            mode,
            dir: dir.to_path_buf(),
            schema,
            scan_schema,
            keys,
            settings,
            codecs,
            parts: RwLock::new(Arc::new(parts)),
            outdated: Mutex::new(Vec::new()),
            merges_enabled: AtomicBool::new(true),
            next_block: AtomicU64::new(next_block),
            next_tmp: AtomicU64::new(0),
            commit_lock: Mutex::new(()),
            merge_lock: tokio::sync::Mutex::new(()),
            merge_running: Mutex::new(()),
            dedup_log: Mutex::new(crate::insert::load_dedup_log(dir)),
            mutations: Mutex::new(mutations),
            merge_wakeup: tokio::sync::Notify::new(),
            shutdown: AtomicBool::new(false),
            ttl,
            column_defaults,
            last_ttl_merge: Mutex::new(std::collections::HashMap::new()),
            skip_indexes,
        });
        // Background merges need a runtime; a table opened outside one (tools, some
        // tests) still merges on OPTIMIZE.
        // Parts written before an ALTER of the columns (interrupted by a crash, or this
        // open finishing it) are rewritten to the table's columns before anything reads.
        for (part, part_schema) in stale {
            crate::alter::convert_part(&inner, &part, &part_schema, &meta.columns, &meta.renamed_columns)?;
        }
        let task = tokio::runtime::Handle::try_current().ok().map(|h| h.spawn(merge_loop(Arc::downgrade(&inner))));
        Ok(MergeTreeEngine { inner, merge_task: Mutex::new(task) })
    }

    pub fn inner(&self) -> &Arc<Inner> {
        &self.inner
    }

    /// Names of the active parts, in order (for tests and a future `system.parts`).
    pub fn part_names(&self) -> Vec<String> {
        self.inner.snapshot().iter().map(|p| p.name()).collect()
    }

    /// Plans a scan; also used by tests to see how many granules would be read.
    pub fn plan_scan(
        &self,
        session: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<MergeTreeExec> {
        Ok(self.plan_scan_with(session, projection, filters, limit, None)?.0)
    }

    /// A scan, of the rows of `sample` when given. Its columns may go past the
    /// projection: the sampling key's, which its sample filter reads; the second value
    /// is how many of them the caller wants.
    fn plan_scan_with(
        &self,
        session: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
        sample: Option<&SampleClause>,
    ) -> Result<(MergeTreeExec, usize)> {
        let inner = &self.inner;
        let stored = inner.schema.fields().len();
        let snapshot = inner.snapshot();
        let mut virtual_values = crate::virtual_columns::VirtualValues::new(inner, snapshot.iter());
        // A PREWHERE under FINAL is one more filter to every use but the merge's (which
        // applies it before merging): it may prune anything its rows cannot pass.
        let marked_filters = filters;
        let filters: Vec<Expr> = filters.iter().map(|f| final_prewhere_condition(f).unwrap_or(f).clone()).collect();
        let filters = filters.as_slice();
        // Empty parts (left by merges whose rows all went, or whose rows a lightweight
        // delete masked) have nothing to read.
        let apply_deleted_mask = session.config().get_extension::<granary_common::Settings>().is_none_or(|s| s.get_bool("apply_deleted_mask"));
        let non_empty: Vec<Arc<Part>> = snapshot.iter().filter(|p| if apply_deleted_mask { p.existing_rows() > 0 } else { p.rows > 0 }).cloned().collect();
        let parts = crate::virtual_columns::prune_parts(session, inner, non_empty, filters, &virtual_values)?;
        // Key pruning plans over the stored columns: a filter naming a virtual column
        // (which `prune_parts` used) would make the whole conjunction unplannable.
        let stored_filters: Vec<Expr> = filters.iter().filter(|f| f.column_refs().iter().all(|c| inner.schema.index_of(&c.name).is_ok())).cloned().collect();
        let pruning = crate::monotonic::Pruning::plan(session, &inner.schema, &inner.keys, &stored_filters);
        let (mut ranges, mut stats) = select_granules(&parts, pruning.as_ref(), &inner.schema, &inner.keys)?;
        let sample_predicate = match sample {
            Some(sample) => {
                let (sampling, predicate) = self.sampling(sample, &ranges)?;
                virtual_values = virtual_values.with_sample_factor(sampling.factor);
                match (&sampling.range, predicate) {
                    (crate::sample::SampleRange::Nothing, _) => {
                        tracing::debug!(logger = %format_args!("{} (SelectExecutor)", inner.table_name), "Sampling yields no data.");
                        ranges.clear();
                        None
                    }
                    (_, Some(predicate)) => {
                        // The sample's range is a condition on a primary-key element: it
                        // skips granules as the query's own filters do.
                        let planned = datafusion::common::DFSchema::try_from(inner.schema.as_ref().clone())
                            .ok()
                            .and_then(|schema| session.create_physical_expr(conjunction(stored_filters.iter().cloned())?, &schema).ok());
                        let condition = match planned {
                            Some(filters) => Arc::new(datafusion::physical_expr::expressions::BinaryExpr::new(filters, datafusion::logical_expr::Operator::And, predicate.clone())),
                            None => predicate.clone(),
                        };
                        let pruning = crate::monotonic::Pruning::of_physical(&inner.schema, &inner.keys, condition);
                        (ranges, stats) = select_granules(&parts, pruning.as_ref(), &inner.schema, &inner.keys)?;
                        Some(predicate)
                    }
                    (_, None) => None,
                }
            }
            None => None,
        };
        tracing::debug!(logger = %format_args!("{} (SelectExecutor)", inner.table_name), "{stats}");
        let config = session.config();
        let final_ = inner.mode != MergeMode::Ordinary
            && config.get_extension::<granary_common::Settings>().is_some_and(|s| s.get_bool("final"));
        {
            // Skip indexes come after key pruning. Not under FINAL: a granule without a
            // matching row may hold the version that replaces a matching one.
            let query_settings = config.get_extension::<granary_common::Settings>();
            let filter = match (final_, inner.skip_indexes.is_empty(), conjunction(stored_filters.iter().cloned())) {
                (false, false, Some(condition)) => {
                    datafusion::common::DFSchema::try_from(inner.schema.as_ref().clone()).ok().and_then(|schema| session.create_physical_expr(condition, &schema).ok())
                }
                _ => None,
            };
            let (kept, selections) = crate::skip_index::select(&inner.skip_indexes, filter.as_ref(), std::mem::take(&mut ranges), query_settings.as_deref(), &inner.table_name)?;
            ranges = kept;
            stats.ranges = ranges.len();
            stats.skip_indexes = selections;
        }
        // Without a projection DataFusion wants every column it was shown.
        let mut columns: Vec<usize> = match projection {
            Some(p) => p.clone(),
            None if granary_storage::virtual_columns::visible() => (0..inner.scan_schema.fields().len()).collect(),
            None => (0..stored).collect(),
        };
        let wanted = columns.len();
        // A FINAL read's PREWHERE may read virtual columns the query does not project.
        let reads_virtual_columns = final_ || columns.iter().any(|&c| c >= stored);
        let virtual_values = reads_virtual_columns.then(|| crate::reader::ScanVirtualValues {
            values: virtual_values,
            keys: Arc::new(inner.keys.clone()),
            stored_schema: inner.schema.clone(),
        });
        if final_ {
            // Pruning stays exact under FINAL: the statistics describe key columns only,
            // and rows that collapse together share their key (and so their partition).
            // Each table partition is merged on its own, one output partition each.
            check_rows_to_read(config, &ranges)?;
            let mut by_partition: Vec<Vec<crate::reader::GranuleRange>> = Vec::new();
            for r in ranges {
                match by_partition.last_mut() {
                    Some(last) if last[0].part.info.partition_id == r.part.info.partition_id => last.push(r),
                    _ => by_partition.push(vec![r]),
                }
            }
            let read = plan_final_read(session, inner, &columns, marked_filters, sample_predicate)?;
            let mut exec = MergeTreeExec::new(inner.scan_schema.clone(), columns, by_partition, config.batch_size(), limit)?.with_final(read).with_selection(stats);
            if let Some(values) = virtual_values {
                exec = exec.with_virtual_values(values);
            }
            return Ok((exec, wanted));
        }
        let sample_filter = match &sample_predicate {
            Some(predicate) => Some(sample_filter(predicate, &inner.scan_schema, &mut columns)?),
            None => None,
        };
        // Masked rows would not count towards the limit.
        let masked = apply_deleted_mask && ranges.iter().any(|r| r.part.row_exists.is_some());
        if let (Some(limit), true, None, false) = (limit, filters.is_empty(), &sample_filter, masked) {
            // Without filters, the first granules holding `limit` rows are enough.
            let mut rows = 0u64;
            let mut kept = Vec::new();
            for r in ranges {
                if rows >= limit as u64 {
                    break;
                }
                let mut end = r.granules.start;
                while end < r.granules.end && rows < limit as u64 {
                    rows += r.part.granule_starts[end + 1] - r.part.granule_starts[end];
                    end += 1;
                }
                kept.push(crate::reader::GranuleRange { part: r.part.clone(), granules: r.granules.start..end });
            }
            ranges = kept;
        }
        check_rows_to_read(config, &ranges)?;
        // ClickHouse's rule: the cache serves short reads only; a big scan would evict
        // the hot blocks it exists for.
        let use_cache = config.get_extension::<granary_common::Settings>().is_some_and(|s| {
            let rows = ranges.iter().map(|r| r.rows()).sum::<u64>();
            // Variable-size values are counted at 16 bytes: the parts keep no uncompressed
            // size per column to do better without reading every block header.
            let row_bytes: u64 = columns.iter().map(|&c| inner.scan_schema.field(c).data_type().primitive_width().unwrap_or(16) as u64).sum();
            s.get_bool("use_uncompressed_cache")
                && rows <= s.get_u64("merge_tree_max_rows_to_use_cache")
                && rows.saturating_mul(row_bytes) <= s.get_u64("merge_tree_max_bytes_to_use_cache")
        });
        let prewhere = match config.get_extension::<granary_common::Settings>() {
            Some(s) if !s.get_bool("optimize_move_to_prewhere") => None,
            _ => plan_prewhere(session, &inner.scan_schema, &columns, filters),
        };
        let partitions = split_ranges(ranges, config.target_partitions());
        let mut exec = MergeTreeExec::new(inner.scan_schema.clone(), columns, partitions, config.batch_size(), limit)?
            .with_uncompressed_cache(use_cache)
            .with_prewhere(prewhere)
            .with_sample_filter(sample_filter)
            .with_keys(Arc::new(inner.keys.clone()))
            .with_deleted_mask(apply_deleted_mask)
            .with_selection(stats);
        if let Some(values) = virtual_values {
            exec = exec.with_virtual_values(values);
        }
        Ok((exec, wanted))
    }

    /// What `sample` reads of this table, given the granules the query's filters leave
    /// (their rows make `SAMPLE 1000` a ratio), and the condition on the sampling key
    /// it makes, over the stored columns.
    fn sampling(&self, sample: &SampleClause, ranges: &[crate::reader::GranuleRange]) -> Result<(crate::sample::Sampling, Option<Arc<dyn datafusion::physical_expr::PhysicalExpr>>)> {
        use datafusion::logical_expr::Operator;
        use datafusion::physical_expr::expressions::{BinaryExpr, Literal};
        let key = self.inner.keys.sampling.as_ref().ok_or_else(|| Error::new(ErrorCode::SAMPLING_NOT_SUPPORTED, "Sampling is not supported: the table does not have a sampling key"))?;
        let sampling = crate::sample::sampling(sample, key.universe, || Ok(ranges.iter().map(|r| r.rows()).sum()))?;
        let crate::sample::SampleRange::Bounded { lower, upper } = sampling.range else {
            return Ok((sampling, None));
        };
        let bound = |value: u64, op: Operator| -> Result<Arc<dyn datafusion::physical_expr::PhysicalExpr>> {
            let literal = datafusion::common::ScalarValue::UInt64(Some(value)).cast_to(&key.key.data_type)?;
            Ok(Arc::new(BinaryExpr::new(key.key.expr.clone(), op, Arc::new(Literal::new(literal)))))
        };
        let predicate = match (lower.map(|l| bound(l, Operator::GtEq)).transpose()?, upper.map(|u| bound(u, Operator::Lt)).transpose()?) {
            (Some(l), Some(u)) => Arc::new(BinaryExpr::new(l, Operator::And, u)),
            (Some(one), None) | (None, Some(one)) => one,
            (None, None) => return Ok((sampling, None)),
        };
        Ok((sampling, Some(predicate)))
    }
}

/// The sample's condition (over the stored columns) as a filter of a scan of `columns`,
/// which get the stored columns it reads that they lack.
fn sample_filter(predicate: &Arc<dyn datafusion::physical_expr::PhysicalExpr>, scan_schema: &SchemaRef, columns: &mut Vec<usize>) -> Result<crate::reader::Prewhere> {
    use datafusion::common::tree_node::{Transformed, TreeNode};
    use datafusion::physical_expr::expressions::Column;
    let over_scan = Arc::clone(predicate)
        .transform(|e| {
            let Some(c) = e.downcast_ref::<Column>() else { return Ok(Transformed::no(e)) };
            let position = match columns.iter().position(|&p| p == c.index()) {
                Some(p) => p,
                None => {
                    columns.push(c.index());
                    columns.len() - 1
                }
            };
            Ok(Transformed::yes(Arc::new(Column::new(c.name(), position)) as Arc<dyn datafusion::physical_expr::PhysicalExpr>))
        })?
        .data;
    crate::reader::Prewhere::over_scan_columns(&over_scan, &Arc::new(scan_schema.project(columns)?))
}

/// The condition `c` of a filter `__final_prewhere(c)`: the query's PREWHERE, marked by
/// the SQL front end when the query reads a table with FINAL.
fn final_prewhere_condition(filter: &Expr) -> Option<&Expr> {
    match filter {
        Expr::ScalarFunction(f) if f.func.name() == "__final_prewhere" && f.args.len() == 1 => f.args.first(),
        _ => None,
    }
}

/// How a FINAL scan of `columns` reads: the merge carries the stored columns, then the
/// projected virtual ones and those the query's PREWHERE (its filters marked
/// `__final_prewhere`, which DataFusion leaves to the scan) reads; the PREWHERE is
/// planned over those columns, for the merge to apply before rows collapse.
fn plan_final_read(
    session: &dyn Session,
    inner: &Arc<Inner>,
    columns: &[usize],
    filters: &[Expr],
    sample: Option<Arc<dyn datafusion::physical_expr::PhysicalExpr>>,
) -> Result<crate::reader::FinalRead> {
    let stored = inner.schema.fields().len();
    let mut virtuals: Vec<usize> = columns.iter().copied().filter(|&c| c >= stored).collect();
    let condition = conjunction(filters.iter().filter_map(final_prewhere_condition).cloned());
    if let Some(condition) = &condition {
        for column in condition.column_refs() {
            if let Ok(c) = inner.scan_schema.index_of(&column.name) {
                if c >= stored && !virtuals.contains(&c) {
                    virtuals.push(c);
                }
            }
        }
    }
    let prewhere = match condition {
        Some(condition) => {
            let merged: Vec<usize> = (0..stored).chain(virtuals.iter().copied()).collect();
            let schema = DFSchema::try_from(inner.scan_schema.project(&merged)?)?;
            Some(session.create_physical_expr(condition, &schema)?)
        }
        None => None,
    };
    // The sample's condition reads stored columns only, which lead the merged columns;
    // like the PREWHERE it applies before rows merge (their sampling key is equal).
    let prewhere = match (prewhere, sample) {
        (Some(p), Some(s)) => Some(Arc::new(datafusion::physical_expr::expressions::BinaryExpr::new(p, datafusion::logical_expr::Operator::And, s)) as Arc<dyn datafusion::physical_expr::PhysicalExpr>),
        (p, s) => p.or(s),
    };
    Ok(crate::reader::FinalRead { inner: inner.clone(), virtuals, prewhere })
}

/// The scan's filter (see [`crate::reader::Prewhere`]), or None when there is none or
/// it cannot be evaluated in the scan: a volatile function (`rand()`) must be evaluated
/// once per row, and DataFusion evaluates the filters again above the scan.
fn plan_prewhere(session: &dyn Session, schema: &SchemaRef, columns: &[usize], filters: &[Expr]) -> Option<crate::reader::Prewhere> {
    if filters.is_empty() || filters.iter().any(|f| f.is_volatile()) {
        return None;
    }
    // Planned over the scan's columns: a filter on an unprojected column cannot be.
    let scan_schema = Arc::new(schema.project(columns).ok()?);
    let df_schema = DFSchema::try_from(scan_schema.as_ref().clone()).ok()?;
    let physical = session.create_physical_expr(conjunction(filters.iter().cloned())?, &df_schema).ok()?;
    crate::reader::Prewhere::over_scan_columns(&physical, &scan_schema).ok()
}

impl Drop for MergeTreeEngine {
    fn drop(&mut self) {
        self.inner.shutdown.store(true, Ordering::SeqCst);
        if let Some(task) = self.merge_task.lock().take() {
            task.abort();
        }
    }
}

#[async_trait]
impl TableEngine for MergeTreeEngine {
    fn engine_name(&self) -> &str {
        self.inner.engine_name
    }

    fn supports_final(&self) -> bool {
        self.inner.mode != MergeMode::Ordinary
    }

    fn schema(&self) -> SchemaRef {
        self.inner.schema.clone()
    }

    fn virtual_columns(&self) -> Vec<arrow::datatypes::FieldRef> {
        self.inner.scan_schema.fields()[self.inner.schema.fields().len()..].to_vec()
    }

    async fn scan(
        &self,
        session: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(self.plan_scan(session, projection, filters, limit)?))
    }

    fn supports_sampling(&self) -> bool {
        self.inner.keys.sampling.is_some()
    }

    async fn scan_sample(
        &self,
        session: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
        sample: &SampleClause,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        use datafusion::physical_plan::projection::{ProjectionExec, ProjectionExpr};
        let (exec, wanted) = self.plan_scan_with(session, projection, filters, limit, Some(sample))?;
        let schema = exec.schema();
        if schema.fields().len() == wanted {
            return Ok(Arc::new(exec));
        }
        // The sampling key's columns were read for the sample filter alone.
        let exprs: Vec<ProjectionExpr> = schema.fields()[..wanted]
            .iter()
            .enumerate()
            .map(|(i, f)| ProjectionExpr::new(Arc::new(datafusion::physical_expr::expressions::Column::new(f.name(), i)) as Arc<dyn datafusion::physical_expr::PhysicalExpr>, f.name().clone()))
            .collect();
        Ok(Arc::new(ProjectionExec::try_new(exprs, Arc::new(exec))?))
    }

    /// Every filter is used for pruning where it can be, and DataFusion re-applies them:
    /// granules hold rows that do not match. Except a PREWHERE under FINAL
    /// (`__final_prewhere`) on a table that merges rows: such a query's scan is a FINAL
    /// one, whose merge applies it exactly, to the rows before they collapse; above the
    /// scan it would filter the merged rows again (a sum grown past it).
    fn supports_filters_pushdown(&self, filters: &[&Expr]) -> Vec<TableProviderFilterPushDown> {
        filters
            .iter()
            .map(|f| match final_prewhere_condition(f) {
                Some(_) if self.inner.mode != MergeMode::Ordinary => TableProviderFilterPushDown::Exact,
                _ => TableProviderFilterPushDown::Inexact,
            })
            .collect()
    }

    async fn insert(&self, request: InsertRequest) -> Result<InsertResult> {
        crate::insert::insert(&self.inner, request).await
    }

    fn counts_reads(&self) -> bool {
        true
    }

    async fn truncate(&self) -> Result<()> {
        let _merge = self.inner.merge_lock.lock().await;
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || truncate_parts(&inner))
            .await
            .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("truncate task failed: {e}")))?
    }

    async fn drop_data(&self) -> Result<()> {
        self.close().await?;
        let _merge = self.inner.merge_lock.lock().await;
        self.inner.clear();
        match fs::remove_dir_all(&self.inner.dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::with_source(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot remove {}", self.inner.dir.display()), e)),
        }
    }

    fn supports_alter_columns(&self) -> bool {
        true
    }

    async fn check_alter(&self, meta: &TableMeta) -> Result<()> {
        let inner = self.inner.clone();
        let meta = meta.clone();
        tokio::task::spawn_blocking(move || crate::alter::check_conversion(&inner, &meta))
            .await
            .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("alter check failed: {e}")))?
    }

    async fn close(&self) -> Result<()> {
        self.inner.shutdown.store(true, Ordering::SeqCst);
        if let Some(task) = self.merge_task.lock().take() {
            task.abort();
        }
        let _merge = self.inner.merge_lock.lock().await;
        let inner = self.inner.clone();
        // A merge whose task was aborted may still be writing: it stops at its next
        // block (it sees `shutdown`); wait for it. And once the commit lock was taken
        // with `shutdown` set, no INSERT publishes a part any more.
        tokio::task::spawn_blocking(move || {
            drop(inner.merge_running.lock());
            drop(inner.commit_lock.lock());
        })
        .await
        .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("waiting for a merge failed: {e}")))
    }

    async fn optimize(&self, request: OptimizeRequest) -> Result<()> {
        if !self.inner.merges_enabled.load(Ordering::SeqCst) {
            return Err(Error::new(ErrorCode::ABORTED, format!("Cancelled merging parts of {}: merges are stopped (SYSTEM START MERGES)", self.inner.table_name)));
        }
        merge::optimize(&self.inner, request).await
    }

    async fn alter_partition(&self, command: PartitionCommand) -> Result<()> {
        crate::alter::alter_partition(&self.inner, command).await
    }

    async fn delete_where(&self, request: DeleteRequest) -> Result<()> {
        crate::alter::delete_where(&self.inner, request).await
    }

    async fn update_where(&self, request: granary_storage::UpdateRequest) -> Result<()> {
        crate::alter::update_where(&self.inner, request).await
    }

    async fn mutate_by_rule(&self, command: granary_storage::RuleMutation, sync: bool) -> Result<()> {
        crate::alter::mutate_by_rule(&self.inner, command, sync).await
    }

    fn mutations(&self) -> Vec<granary_storage::MutationStatus> {
        crate::mutation::statuses(&self.inner)
    }

    fn kill_mutation(&self, mutation_id: &str) -> Result<bool> {
        crate::mutation::kill(&self.inner, mutation_id)
    }

    fn total_rows(&self) -> Option<u64> {
        Some(self.inner.snapshot().iter().map(|p| p.existing_rows()).sum())
    }

    fn total_bytes(&self) -> Option<u64> {
        Some(self.inner.snapshot().iter().map(|p| p.bytes_on_disk).sum())
    }

    fn data_paths(&self) -> Vec<PathBuf> {
        vec![self.inner.dir.clone()]
    }

    fn point_read(&self, request: &granary_storage::PointReadRequest) -> Option<Result<granary_storage::PointReadResult>> {
        crate::point::point_read(&self.inner, request)
    }

    fn parts(&self) -> Vec<PartStatus> {
        let inner = &self.inner;
        let active = inner.snapshot();
        let outdated = inner.outdated_parts();
        let all = active.iter().map(|p| (p, None)).chain(outdated.iter().map(|(p, since)| (p, Some(*since))));
        let unix = |t: SystemTime| t.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
        let mut out: Vec<PartStatus> = all
            .map(|(p, removed)| {
                // A part whose files cannot be read shows zero sizes; CHECK TABLE says why.
                let sizes = p.sizes().unwrap_or_default();
                let modified = fs::metadata(&p.dir).and_then(|m| m.modified()).map(unix).unwrap_or(0);
                PartStatus {
                    partition: inner.keys.partition_text(&inner.schema, &p.minmax),
                    name: p.name(),
                    part_type: p.layout.name().into(),
                    active: removed.is_none(),
                    // ClickHouse counts the final mark (the key after the last row) too;
                    // parts without adaptive granularity have none.
                    // Adaptive granularity adds a final mark, but not to an empty part.
                    marks: p.granules() as u64 + u64::from(inner.settings.index_granularity_bytes != 0 && p.rows > 0),
                    rows: p.rows,
                    files: sizes.files,
                    bytes_on_disk: p.bytes_on_disk,
                    data_compressed_bytes: sizes.data_compressed_bytes,
                    data_uncompressed_bytes: sizes.data_uncompressed_bytes,
                    primary_key_size: sizes.primary_key_size,
                    marks_bytes: sizes.marks_bytes,
                    modification_time: modified,
                    remove_time: removed.map(unix).unwrap_or(0),
                    partition_id: p.info.partition_id.clone(),
                    min_block_number: p.info.min_block as i64,
                    max_block_number: p.info.max_block as i64,
                    level: p.info.level,
                    data_version: p.info.data_version(),
                    path: format!("{}/", p.dir.display()),
                    columns: column_sizes(&inner.schema, p.layout, &sizes, p.row_exists.is_some()),
                    delete_ttl_info: p.ttl.as_ref().map_or((0, 0), |t| (t.table.min, t.table.max)),
                    has_lightweight_delete: p.row_exists.is_some(),
                    skip_indexes: inner
                        .skip_indexes
                        .indexes
                        .iter()
                        .filter_map(|i| p.skip_index_files.get(&crate::skip_index::file_name(&i.meta.name)).map(|bytes| (i.meta.name.clone(), bytes.len() as u64)))
                        .collect(),
                    default_compression_codec: p.recompressed.as_deref().map_or("LZ4", |c| c.strip_prefix("CODEC(").and_then(|c| c.strip_suffix(')')).unwrap_or(c)).to_string(),
                    recompression_ttl_info: p.ttl.as_ref().map(|t| crate::ttl::TtlInfos::listed(&t.recompression)).unwrap_or_default(),
                    group_by_ttl_info: p.ttl.as_ref().map(|t| crate::ttl::TtlInfos::listed(&t.group_by)).unwrap_or_default(),
                    rows_where_ttl_info: p.ttl.as_ref().map(|t| crate::ttl::TtlInfos::listed(&t.rows_where)).unwrap_or_default(),
                }
            })
            .collect();
        out.sort_by(|a, b| (&a.partition_id, a.min_block_number, a.max_block_number, a.level).cmp(&(&b.partition_id, b.min_block_number, b.max_block_number, b.level)));
        out
    }

    async fn check(&self, partition: Option<String>) -> Result<Vec<CheckResult>> {
        let inner = self.inner.clone();
        let wanted = match partition {
            Some(p) => Some(crate::merge::partition_id_of(&inner, &p)?),
            None => None,
        };
        tokio::task::spawn_blocking(move || {
            let parts = inner.snapshot();
            parts
                .iter()
                .filter(|p| wanted.as_ref().is_none_or(|w| &p.info.partition_id == w))
                .map(|p| {
                    let result = crate::part::verify_files(&p.dir, true);
                    CheckResult {
                        part_path: p.name(),
                        is_passed: result.is_ok(),
                        message: result.err().map(|e| e.message().to_string()).unwrap_or_default(),
                    }
                })
                .collect()
        })
        .await
        .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("check task failed: {e}")))
    }

    fn merges(&self) -> Vec<MergeStatus> {
        let running = self.inner.running_merge.lock().clone();
        running
            .map(|m| {
                let rows_read = m.rows_read.load(Ordering::Relaxed);
                MergeStatus {
                    elapsed: m.started.elapsed().as_secs_f64(),
                    progress: if m.total_rows == 0 { 0.0 } else { (rows_read as f64 / m.total_rows as f64).min(1.0) },
                    num_parts: m.sources.len() as u64,
                    source_part_names: m.sources,
                    result_part_name: m.result,
                    partition_id: m.partition_id,
                    is_mutation: m.is_mutation,
                    total_size_bytes_compressed: m.total_bytes,
                    rows_read,
                    rows_written: m.rows_written.load(Ordering::Relaxed),
                }
            })
            .into_iter()
            .collect()
    }

    fn set_merges_enabled(&self, enabled: bool) {
        self.inner.merges_enabled.store(enabled, Ordering::SeqCst);
        if enabled {
            self.inner.merge_wakeup.notify_one();
        }
    }
}

/// TRUNCATE: each part directory is renamed to `delete_tmp_<name>` (durably, so it can
/// never come back after a crash) and then removed. Queries still reading the old
/// snapshot may fail with "cannot open": ClickHouse blocks them with a table lock, the
/// storage contract has none yet.
fn truncate_parts(inner: &Inner) -> Result<()> {
    let _guard = inner.commit_lock.lock();
    let mut old = inner.clear();
    old.extend(inner.take_outdated(|_| true));
    remove_parts_now(inner, &old)
}

/// Removes parts for good right now: each directory is first renamed to
/// `delete_tmp_<name>` (durably, so it can never come back after a crash), then deleted.
/// Drops the active `parts` with no part after them (TTL emptied or expired them), under
/// the commit lock. The outdated parts they cover go first: after a restart nothing
/// would cover them, and their rows would come back.
pub fn drop_active_parts(inner: &Inner, parts: &[Arc<Part>]) -> Result<()> {
    let mut gone = inner.take_outdated(|o| parts.iter().any(|p| p.info.contains(&o.info)));
    gone.extend(inner.remove_active(|p| parts.iter().any(|q| std::ptr::eq(p, q.as_ref()))));
    remove_parts_now(inner, &gone)
}

pub fn remove_parts_now(inner: &Inner, old: &[Arc<Part>]) -> Result<()> {
    for part in old {
        inner.log_part("RemovePart", part, &[], Duration::ZERO);
        let doomed = inner.dir.join(format!("delete_tmp_{}", part.name()));
        granary_storage::fs::rename_durable(&part.dir, &doomed)?;
        fs::remove_dir_all(&doomed).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot remove {}", doomed.display()))?;
    }
    Ok(())
}

/// Loads the parts of a table directory (see the crate docs for what is cleaned up).
/// The table's parts, and apart those whose columns are not the table's (written
/// before an ALTER), loaded with their own columns.
type StaleParts = Vec<(Arc<Part>, SchemaRef)>;

fn load_parts(dir: &Path, meta: &TableMeta, schema: &SchemaRef, keys: &TableKeys) -> Result<(Vec<Arc<Part>>, StaleParts)> {
    let mut found: Vec<(PartInfo, PathBuf)> = Vec::new();
    let entries = fs::read_dir(dir).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot list {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot list {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().to_string();
        let path = entry.path();
        if name == "detached" || !path.is_dir() {
            continue;
        }
        if name.starts_with("tmp_") || name.starts_with("delete_tmp_") {
            tracing::info!("removing leftover {}", path.display());
            fs::remove_dir_all(&path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot remove {}", path.display()))?;
            continue;
        }
        match PartInfo::parse(&name) {
            Ok(info) => found.push((info, path)),
            Err(_) => tracing::warn!("ignoring unexpected directory {} in table data", path.display()),
        }
    }
    // Parts covered by another part are leftovers of a merge whose sources were not yet
    // deleted: their rows are in the covering part.
    let infos: Vec<PartInfo> = found.iter().map(|(i, _)| i.clone()).collect();
    let mut parts = Vec::new();
    let mut stale = Vec::new();
    let table_columns = crate::part::columns_txt(schema);
    let masked_columns = crate::part::columns_txt(&crate::lightweight_delete::with_row_exists(schema));
    for (info, path) in found {
        if infos.iter().any(|other| *other != info && other.contains(&info)) {
            tracing::info!("removing part {} covered by a merged part", path.display());
            fs::remove_dir_all(&path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot remove {}", path.display()))?;
            continue;
        }
        let loaded = match crate::part::read_columns(&path) {
            Ok(columns) if columns != table_columns && columns != masked_columns => crate::alter::load_stale(&path, info.clone(), meta, &columns).map(|(part, part_schema)| stale.push((Arc::new(part), part_schema))),
            Ok(_) => Part::load(&path, info.clone(), schema, keys).map(|part| parts.push(Arc::new(part))),
            Err(e) => Err(e),
        };
        match loaded {
            Ok(()) => {}
            Err(e) => {
                let detached = dir.join("detached");
                granary_storage::fs::create_dir_all(&detached)?;
                let target = detached.join(format!("broken_{}", info.name()));
                tracing::error!("part {} is broken and is not served, moved to {}: {e}", path.display(), target.display());
                granary_storage::fs::rename_durable(&path, &target)?;
            }
        }
    }
    parts.sort_by(|a, b| a.info.cmp(&b.info));
    Ok((parts, stale))
}

/// The background merge task: wakes on inserts (and every few seconds), merges while
/// the selector finds something worth merging, ends when the table goes away.
async fn merge_loop(table: Weak<Inner>) {
    loop {
        let wakeup = match table.upgrade() {
            Some(inner) if !inner.shutdown.load(Ordering::SeqCst) => {
                inner.remove_old_parts();
                // SYSTEM STOP MERGES stops background mutations too, as in ClickHouse.
                if inner.merges_enabled.load(Ordering::SeqCst) {
                    if let Err(e) = run_pending_mutations(&inner).await {
                        tracing::error!("mutation of {} failed: {e}", inner.table_name);
                    }
                }
                while inner.merges_enabled.load(Ordering::SeqCst) {
                    match merge::merge_once(&inner).await {
                        Ok(true) => continue,
                        Ok(false) => break,
                        Err(e) => {
                            tracing::error!("background merge in {} failed: {e}", inner.table_name);
                            break;
                        }
                    }
                }
                inner
            }
            _ => return,
        };
        let notified = async { wakeup.merge_wakeup.notified().await };
        tokio::select! {
            _ = notified => {}
            _ = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
    }
}

/// Applies pending mutations in the background (retried every wake-up while one fails),
/// unless OPTIMIZE or another mutation holds the merge lock.
async fn run_pending_mutations(inner: &Arc<Inner>) -> Result<()> {
    let pending = {
        let mutations = inner.mutations.lock();
        let snapshot = inner.snapshot();
        mutations.iter().any(|m| snapshot.iter().any(|p| p.info.data_version() < m.block))
    };
    if !pending {
        return Ok(());
    }
    let Ok(_guard) = inner.merge_lock.try_lock() else { return Ok(()) };
    let task_inner = inner.clone();
    tokio::task::spawn_blocking(move || crate::mutation::apply_pending(&task_inner))
        .await
        .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("mutation task failed: {e}")))?
}

/// What a merge does with rows of equal sorting key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeMode {
    /// Keeps every row (`MergeTree`).
    Ordinary,
    /// Keeps one row per sorting key (`ReplacingMergeTree([ver [, is_deleted]])`): the one
    /// with the greatest `ver` (table column index), or the last inserted without `ver`
    /// (also on equal versions). With `is_deleted` (a UInt8/Bool column of 0 and 1), a
    /// merge still keeps the latest version when it is a deletion, as ClickHouse 23.12+
    /// does; `SELECT ... FINAL` and `OPTIMIZE ... FINAL CLEANUP` drop it.
    Replacing { version: Option<usize>, is_deleted: Option<usize> },
    /// One row per sorting key (`SummingMergeTree([cols])`): the listed columns (table
    /// indices; default: every numeric column outside the sorting key) are summed,
    /// wrapping on overflow as in ClickHouse; other columns keep the first row's value.
    /// A row whose sums are all zero is removed (never in a table with nested maps or
    /// `(Simple)AggregateFunction` columns, as in ClickHouse). `AggregateFunction` and `SimpleAggregateFunction` columns are combined
    /// by their function, as in AggregatingMergeTree. `maps` are summed by key whether
    /// the columns are listed or not.
    Summing { columns: Vec<(usize, Combine)>, maps: Vec<NestedMap> },
    /// One row per sorting key (`AggregatingMergeTree`): `AggregateFunction(f, T)`
    /// states are merged, `SimpleAggregateFunction(f, T)` values combined with `f`;
    /// other columns keep the first row's value.
    Aggregating { columns: Vec<(usize, Combine)> },
    /// Rows of equal sorting key cancel out by their `Int8` sign column (table index):
    /// 1 is a state, -1 cancels one (`CollapsingMergeTree(sign)`). A merge keeps the
    /// first -1 and the last 1 row of each key, by how many of each there were (see
    /// `merge::SignRun`); `SELECT ... FINAL` keeps only the 1 rows left.
    Collapsing { sign: usize },
    /// `VersionedCollapsingMergeTree(sign, version)`: the version column ends the sorting
    /// key, and among rows of equal key and version a row cancels the one before it
    /// when their signs differ (see `merge::VersionedRun`); FINAL shows what is left,
    /// -1 rows included.
    VersionedCollapsing { sign: usize },
    /// `GraphiteMergeTree('section')`: rows of one path rolled up by time (see
    /// `graphite`).
    Graphite(crate::graphite::Rollup),
}

/// A nested structure of a SummingMergeTree summed by key (ClickHouse's rule): its name
/// ends in `Map` (`statsMap Nested(id UInt32, hits UInt64)`, stored as the arrays
/// `statsMap.id`, `statsMap.hits`); the first column and those named `*ID`, `*Key`,
/// `*Type` are the key (types whose values are integers: numbers, Bool, dates, Enum,
/// IPv4/IPv6, UUID; or strings, also LowCardinality; never Nullable), the others are
/// summed (numbers, Bool, Nullable or not).
/// One key column sums as `sumMap` (keys sorted, entries whose values are all zero
/// removed); several use ClickHouse's older rule (see `merge::MapSum`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NestedMap {
    /// Table column indices of the key arrays and of the value arrays.
    pub keys: Vec<usize>,
    pub values: Vec<usize>,
    /// The type of each key column's elements (parallel to `keys`), which orders them.
    pub key_types: Vec<granary_types::ChType>,
    /// The wide integer type of each value column, summed in 256 bits and wrapped back
    /// (parallel to `values`).
    pub wide_values: Vec<Option<granary_types::wide::WideInt>>,
}

impl NestedMap {
    /// The nested maps of a SummingMergeTree table: every group of `prefix.name` array
    /// columns with `prefix` ending in `Map`, at least two columns, none in the sorting
    /// key, of key and value types that can be summed (other groups keep the first row's
    /// arrays, as in ClickHouse).
    fn of_table(schema: &SchemaRef, in_key: &[usize]) -> Vec<NestedMap> {
        use granary_types::ChType as T;
        let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
        for (i, field) in schema.fields().iter().enumerate() {
            let Some((prefix, _)) = field.name().split_once('.') else { continue };
            if !prefix.ends_with("Map") || !matches!(field.data_type(), arrow::datatypes::DataType::List(_)) {
                continue;
            }
            match groups.iter_mut().find(|(p, _)| *p == prefix) {
                Some((_, columns)) => columns.push(i),
                None => groups.push((prefix, vec![i])),
            }
        }
        let element = |i: usize| match T::from_field(schema.field(i)) {
            T::Array(inner) => Some(*inner),
            _ => None,
        };
        // ClickHouse's `isValueRepresentedByInteger`, or String/FixedString, seen
        // through LowCardinality (never Nullable: such maps keep their first arrays).
        let is_key_type = |t: &T| {
            let t = match t {
                T::LowCardinality(inner) => inner.as_ref(),
                t => t,
            };
            matches!(
                t,
                T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 | T::Int8 | T::Int16 | T::Int32 | T::Int64 | T::Int128 | T::UInt128 | T::Int256 | T::UInt256 | T::Bool
                    | T::Date | T::Date32 | T::DateTime(_) | T::Enum8(_) | T::Enum16(_) | T::IPv4 | T::IPv6 | T::Uuid | T::String | T::FixedString(_)
            )
        };
        let is_summable = |t: &T| {
            matches!(
                t.base(),
                T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 | T::Int8 | T::Int16 | T::Int32 | T::Int64 | T::Int128 | T::UInt128 | T::Int256 | T::UInt256 | T::Bool
                    | T::Float32 | T::Float64 | T::Decimal(..)
            )
        };
        let mut maps = Vec::new();
        'groups: for (_, columns) in groups {
            if columns.len() < 2 || columns.iter().any(|c| in_key.contains(c)) {
                continue;
            }
            let mut map = NestedMap { keys: Vec::new(), values: Vec::new(), key_types: Vec::new(), wide_values: Vec::new() };
            for (n, &c) in columns.iter().enumerate() {
                let Some(t) = element(c) else { continue 'groups };
                let name = schema.field(c).name();
                if n == 0 || name.ends_with("ID") || name.ends_with("Key") || name.ends_with("Type") {
                    if !is_key_type(&t) {
                        continue 'groups;
                    }
                    map.keys.push(c);
                    map.key_types.push(t.base().clone());
                } else {
                    if !is_summable(&t) {
                        continue 'groups;
                    }
                    map.values.push(c);
                    map.wide_values.push(granary_types::wide::WideInt::of(t.base()));
                }
            }
            if !map.values.is_empty() {
                maps.push(map);
            }
        }
        maps
    }
}

/// How a column of rows with equal keys is combined in Summing/Aggregating merges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Combine {
    Sum,
    Min,
    Max,
    Any,
    AnyLast,
    /// `any_respect_nulls` / `anyLast_respect_nulls`: a NULL counts as a value.
    AnyRespectNulls,
    AnyLastRespectNulls,
    BitAnd,
    BitOr,
    BitXor,
    /// `groupArrayArray`: the arrays concatenated.
    ConcatArrays,
    /// `groupUniqArrayArray`: the distinct elements of the arrays (in order of first
    /// appearance; ClickHouse's order is its hash table's).
    UniqArrays,
    /// `sumMap` / `minMap` / `maxMap` of `Tuple(Array(K), Array(V1), ...)` values: per
    /// key, sorted; `sumMap` leaves out the keys whose sums are all zero.
    SumMap,
    MinMap,
    MaxMap,
    /// Merge of serialized states of this `AggregateFunction` type.
    State(granary_types::ChType),
}

impl Combine {
    /// The combination a column's type asks for: `AggregateFunction` states merge,
    /// `SimpleAggregateFunction(f, T)` combines with `f`; None for plain types.
    fn of_type(name: &str, t: &granary_types::ChType) -> Result<Option<Combine>> {
        use granary_types::ChType;
        Ok(match t {
            ChType::AggregateFunction(..) => Some(Combine::State(t.clone())),
            ChType::SimpleAggregateFunction(f, stored) => {
                let combine = match f.as_str() {
                    "sum" => {
                        check_sum_type(stored)?;
                        Combine::Sum
                    }
                    "sumWithOverflow" => Combine::Sum,
                    "min" => Combine::Min,
                    "max" => Combine::Max,
                    "any" => Combine::Any,
                    "anyLast" => Combine::AnyLast,
                    "any_respect_nulls" => Combine::AnyRespectNulls,
                    "anyLast_respect_nulls" => Combine::AnyLastRespectNulls,
                    "groupBitAnd" => Combine::BitAnd,
                    "groupBitOr" => Combine::BitOr,
                    "groupBitXor" => Combine::BitXor,
                    "groupArrayArray" => Combine::ConcatArrays,
                    "groupUniqArrayArray" => Combine::UniqArrays,
                    "sumMap" => Combine::SumMap,
                    "minMap" => Combine::MinMap,
                    "maxMap" => Combine::MaxMap,
                    "groupArrayLastArray" | "groupUniqArrayArrayMap" => {
                        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("SimpleAggregateFunction({f}, ...) of column {name} is not supported yet")))
                    }
                    other => {
                        return Err(Error::new(
                            ErrorCode::BAD_ARGUMENTS,
                            format!("Unsupported aggregate function {other}, supported functions are any,any_respect_nulls,anyLast,anyLast_respect_nulls,min,max,sum,sumWithOverflow,groupBitAnd,groupBitOr,groupBitXor,sumMap,minMap,maxMap,groupArrayArray,groupArrayLastArray,groupUniqArrayArray,groupUniqArrayArrayMap"),
                        ))
                    }
                };
                match &combine {
                    Combine::BitAnd | Combine::BitOr | Combine::BitXor if !matches!(stored.strip_nullable(), ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64) => {
                        return Err(Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {stored} of argument for aggregate function {f}.")));
                    }
                    Combine::ConcatArrays | Combine::UniqArrays => match stored.as_ref() {
                        ChType::Array(element) if element.is_nullable() => {
                            return Err(Error::new(
                                ErrorCode::BAD_ARGUMENTS,
                                format!("Incompatible data types between aggregate function '{f}' which returns Array({}) and column storage type {stored}.", element.strip_nullable()),
                            ));
                        }
                        ChType::Array(_) => {}
                        _ => {
                            return Err(Error::new(
                                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                                format!("Illegal type {stored} of argument for aggregate function with Array suffix. Must be array."),
                            ))
                        }
                    },
                    Combine::SumMap | Combine::MinMap | Combine::MaxMap => check_map_tuple(f, stored)?,
                    _ => {}
                }
                Some(combine)
            }
            _ => None,
        })
    }

    /// Every column of `schema` outside `in_key` whose type names a combination.
    fn typed_columns(schema: &SchemaRef, in_key: &[usize]) -> Result<Vec<(usize, Combine)>> {
        let mut out = Vec::new();
        for (i, field) in schema.fields().iter().enumerate() {
            if in_key.contains(&i) {
                continue;
            }
            if let Some(c) = Combine::of_type(field.name(), &granary_types::ChType::from_field(field))? {
                out.push((i, c));
            }
        }
        Ok(out)
    }
}

impl MergeMode {
    /// The engine name and mode of a table, with its arguments checked.
    pub fn from_meta(meta: &TableMeta, schema: &SchemaRef, graphite: &crate::graphite::GraphiteConfigs) -> Result<(&'static str, MergeMode)> {
        let args: Vec<String> = meta.engine.args.iter().map(|a| a.trim().trim_matches('`').to_string()).collect();
        match meta.engine.name.as_str() {
            "GraphiteMergeTree" => {
                let [section] = args.as_slice() else {
                    return Err(Error::new(
                        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                        format!("With extended storage definition syntax storage GraphiteMergeTree requires 1 parameters: 'config_element_for_graphite_schema' ({} given)", args.len()),
                    ));
                };
                let name = match section.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
                    Some(name) => name,
                    None => {
                        return Err(Error::new(
                            ErrorCode::BAD_ARGUMENTS,
                            format!("Last parameter of GraphiteMergeTree must be the name (in single quotes) of the element in configuration file with the Graphite options (not {section})"),
                        ))
                    }
                };
                Ok(("GraphiteMergeTree", MergeMode::Graphite(crate::graphite::Rollup::of_table(name, graphite, schema)?)))
            }
            "MergeTree" => {
                if !args.is_empty() {
                    return Err(Error::new(
                        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                        format!("Engine MergeTree takes no arguments with the ORDER BY syntax ({} given)", args.len()),
                    ));
                }
                Ok(("MergeTree", MergeMode::Ordinary))
            }
            "ReplacingMergeTree" => {
                let (version, is_deleted) = match args.as_slice() {
                    [] => (None, None),
                    [ver] => (Some(version_column(schema, ver, "ReplacingMergeTree")?), None),
                    [ver, is_deleted] => {
                        if ver == is_deleted {
                            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("The version and is_deleted column cannot be the same column ({ver}).")));
                        }
                        (Some(version_column(schema, ver, "ReplacingMergeTree")?), Some(is_deleted_column(schema, is_deleted)?))
                    }
                    _ => {
                        return Err(Error::new(
                            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                            format!("With extended storage definition syntax storage ReplacingMergeTree requires 0 to 2 parameters: [version], [is_deleted column] ({} given)", args.len()),
                        ))
                    }
                };
                Ok(("ReplacingMergeTree", MergeMode::Replacing { version, is_deleted }))
            }
            "AggregatingMergeTree" => {
                if !args.is_empty() {
                    return Err(Error::new(
                        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                        format!("Engine AggregatingMergeTree takes no arguments with the ORDER BY syntax ({} given)", args.len()),
                    ));
                }
                let in_key = key_columns(meta, schema)?;
                let columns = Combine::typed_columns(schema, &in_key)?;
                let dimensions: Vec<&str> = (0..schema.fields().len())
                    .filter(|i| !in_key.contains(i) && !columns.iter().any(|(c, _)| c == i))
                    .map(|i| schema.field(i).name().as_str())
                    .collect();
                // A table without any measure is a plain deduplicating table: allowed.
                if !dimensions.is_empty() && !columns.is_empty() && MergeTreeSettings::from_pairs(&meta.engine.settings)?.allow_dimensions_outside_sorting_key == 0 {
                    return Err(Error::new(
                        ErrorCode::BAD_ARGUMENTS,
                        format!(
                            "Column(s) {} of the AggregatingMergeTree table are neither part of the sorting key nor aggregate measures (AggregateFunction or SimpleAggregateFunction). During background merges, rows with the same value of the sorting key are collapsed into one, so these columns keep an arbitrary value, which silently produces wrong results for queries that GROUP BY or filter on them. Add them to the sorting key (ORDER BY), or set 'allow_dimensions_outside_sorting_key = 1' if this is intentional (for example, when the columns are functionally dependent on the sorting key)",
                            dimensions.join(", ")
                        ),
                    ));
                }
                Ok(("AggregatingMergeTree", MergeMode::Aggregating { columns }))
            }
            "CollapsingMergeTree" => {
                let [sign] = args.as_slice() else {
                    return Err(Error::new(
                        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                        format!("With extended storage definition syntax storage CollapsingMergeTree requires 1 parameters: sign column ({} given)", args.len()),
                    ));
                };
                Ok(("CollapsingMergeTree", MergeMode::Collapsing { sign: sign_column(schema, sign, "CollapsingMergeTree")? }))
            }
            "VersionedCollapsingMergeTree" => {
                let [sign, version] = args.as_slice() else {
                    return Err(Error::new(
                        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                        format!("With extended storage definition syntax storage VersionedCollapsingMergeTree requires 2 parameters: sign column, version ({} given)", args.len()),
                    ));
                };
                let sign = sign_column(schema, sign, "VersionedCollapsingMergeTree")?;
                version_column(schema, version, "VersionedCollapsingMergeTree")?;
                Ok(("VersionedCollapsingMergeTree", MergeMode::VersionedCollapsing { sign }))
            }
            "SummingMergeTree" => {
                let in_key = key_columns(meta, schema)?;
                let typed = Combine::typed_columns(schema, &in_key)?;
                let is_numeric = |i: usize| {
                    let t = schema.field(i).data_type();
                    t.is_numeric() && !matches!(t, arrow::datatypes::DataType::Float16) && !typed.iter().any(|(c, _)| *c == i)
                };
                let mut columns: Vec<(usize, Combine)> = if args.is_empty() {
                    (0..schema.fields().len()).filter(|i| !in_key.contains(i) && is_numeric(*i)).map(|i| (i, Combine::Sum)).collect()
                } else {
                    let mut columns = Vec::new();
                    for arg in &args {
                        for name in crate::keys::split_tuple(arg)? {
                            let name = name.trim_matches('`');
                            // A nested structure is named by its prefix; its maps are summed anyway.
                            let nested = schema.fields().iter().any(|f| f.name().strip_prefix(name).is_some_and(|rest| rest.starts_with('.')));
                            let index = match schema.index_of(name) {
                                Ok(index) => index,
                                Err(_) if nested => continue,
                                Err(_) => {
                                    return Err(Error::new(
                                        ErrorCode::NO_SUCH_COLUMN_IN_TABLE,
                                        format!("Column {name} listed in columns to sum does not exist in table declaration."),
                                    ))
                                }
                            };
                            if in_key.contains(&index) {
                                return Err(Error::new(
                                    ErrorCode::BAD_ARGUMENTS,
                                    format!("Columns: {name} listed both in columns to sum and in sorting key. That is not allowed."),
                                ));
                            }
                            // ClickHouse accepts a listed column it cannot sum and keeps its first value.
                            if is_numeric(index) {
                                columns.push((index, Combine::Sum));
                            }
                        }
                    }
                    columns
                };
                columns.extend(typed);
                columns.sort_by_key(|(i, _)| *i);
                let maps = NestedMap::of_table(schema, &in_key);
                Ok(("SummingMergeTree", MergeMode::Summing { columns, maps }))
            }
            other => Err(Error::new(ErrorCode::UNKNOWN_STORAGE, format!("Unknown table engine {other}"))),
        }
    }
}

/// The stored type of `SimpleAggregateFunction(sumMap|minMap|maxMap, T)`: a tuple of an
/// array of keys (of any type: ClickHouse keeps them as `Field`s, which all compare) and
/// arrays of values (numbers for sumMap; minMap/maxMap take any type). The tuple must be
/// what the function returns, as ClickHouse checks: sumMap sums into Int64, UInt64 or
/// Float64 (wide integers and decimals stay); keys lose their LowCardinality (kept
/// Nullable), values their Nullable and LowCardinality.
fn check_map_tuple(function: &str, stored: &granary_types::ChType) -> Result<()> {
    use granary_types::ChType as T;
    let illegal = |t: &T| Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {t} of argument for aggregate function {function}: a Tuple(Array(key), Array(value), ...) is needed"));
    let T::Tuple(elements) = stored else { return Err(illegal(stored)) };
    let arrays: Vec<&T> = elements.iter().map(|(_, t)| if let T::Array(inner) = t { Ok(inner.as_ref()) } else { Err(illegal(stored)) }).collect::<Result<_>>()?;
    let [_, values @ ..] = arrays.as_slice() else { return Err(illegal(stored)) };
    if values.is_empty() {
        return Err(illegal(stored));
    }
    let summable = |t: &T| {
        matches!(t, T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 | T::Int8 | T::Int16 | T::Int32 | T::Int64 | T::Int128 | T::UInt128 | T::Int256 | T::UInt256 | T::Float32 | T::Float64 | T::Decimal(..))
    };
    let sums = function == "sumMap";
    for value in values {
        if sums && !summable(value.base()) {
            return Err(Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument for aggregate function sum.", value.base())));
        }
    }
    let returned = |n: usize, t: &T| match t.base() {
        _ if n == 0 => t.without_low_cardinality(),
        T::Int8 | T::Int16 | T::Int32 | T::Int64 if sums => T::Int64,
        T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 if sums => T::UInt64,
        T::Float32 | T::Float64 if sums => T::Float64,
        other => other.without_low_cardinality(),
    };
    if arrays.iter().enumerate().any(|(n, t)| returned(n, t) != **t) {
        let returned: Vec<String> = arrays.iter().enumerate().map(|(n, t)| format!("Array({})", returned(n, t))).collect();
        return Err(Error::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Incompatible data types between aggregate function '{function}' which returns Tuple({}) and column storage type {stored}.", returned.join(", ")),
        ));
    }
    Ok(())
}

/// `SimpleAggregateFunction(sum, T)` needs `T` to be what `sum(T)` returns, as ClickHouse
/// checks: the values are stored as they are summed.
fn check_sum_type(stored: &granary_types::ChType) -> Result<()> {
    use granary_types::ChType as T;
    let base = stored.strip_nullable();
    let returned = match base {
        T::Int8 | T::Int16 | T::Int32 | T::Int64 => T::Int64,
        T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 => T::UInt64,
        T::Float32 | T::Float64 => T::Float64,
        T::Decimal(p, s) => T::Decimal(if *p <= 38 { 38 } else { 76 }, *s),
        other => other.clone(),
    };
    if &returned == base {
        return Ok(());
    }
    let returned = if stored.is_nullable() { T::Nullable(Box::new(returned)) } else { returned };
    Err(Error::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("Incompatible data types between aggregate function 'sum' which returns {returned} and column storage type {stored}."),
    ))
}

/// The index of a Collapsing engine's sign column, which must be `Int8`.
fn sign_column(schema: &SchemaRef, name: &str, engine: &str) -> Result<usize> {
    let index = schema.index_of(name).map_err(|_| Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("Sign column {name} does not exist in table declaration.")))?;
    let t = granary_types::ChType::from_field(schema.field(index));
    if t != granary_types::ChType::Int8 {
        return Err(Error::new(ErrorCode::BAD_TYPE_OF_FIELD, format!("Sign column ({name}) for storage {engine} must have type Int8. Provided column of type {t}.")));
    }
    Ok(index)
}

/// The index of a ReplacingMergeTree's `is_deleted` column: UInt8 (Bool is one too).
fn is_deleted_column(schema: &SchemaRef, name: &str) -> Result<usize> {
    let index = schema.index_of(name).map_err(|_| Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("is_deleted column {name} does not exist in table declaration.")))?;
    let t = granary_types::ChType::from_field(schema.field(index));
    if !matches!(t, granary_types::ChType::UInt8 | granary_types::ChType::Bool) {
        return Err(Error::new(
            ErrorCode::BAD_TYPE_OF_FIELD,
            format!("is_deleted column ({name}) for storage ReplacingMergeTree must have type UInt8. Provided column of type {t}."),
        ));
    }
    Ok(index)
}

/// The index of a Replacing/VersionedCollapsing engine's version column: an integer,
/// Date or DateTime column.
fn version_column(schema: &SchemaRef, name: &str, engine: &str) -> Result<usize> {
    let index = schema
        .index_of(name)
        .map_err(|_| Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("Version column {name} does not exist in table declaration.")))?;
    let t = granary_types::ChType::from_field(schema.field(index));
    use granary_types::ChType as T;
    let ok = matches!(t, T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 | T::Int8 | T::Int16 | T::Int32 | T::Int64 | T::Date | T::Date32 | T::DateTime(_) | T::DateTime64(..));
    if !ok {
        return Err(Error::new(
            ErrorCode::BAD_TYPE_OF_FIELD,
            format!("The column {name} cannot be used as a version column for storage {engine} because it is of type {t} (must be of an integer type or of type Date/DateTime/DateTime64)"),
        ));
    }
    Ok(index)
}

fn key_columns(meta: &TableMeta, schema: &SchemaRef) -> Result<Vec<usize>> {
    let keys = TableKeys::new(meta, schema)?;
    Ok(keys.sorting.iter().flat_map(|k| datafusion::physical_expr::utils::collect_columns(&k.expr).into_iter().map(|c| c.index())).collect())
}

/// The factory of `MergeTree` and its merge-time variants, by name.
pub struct MergeTreeFactory {
    pub name: &'static str,
    pub part_log: Option<Arc<dyn PartLogSink>>,
    /// The server configuration's `graphite_rollup` sections.
    pub graphite: Arc<crate::graphite::GraphiteConfigs>,
}

impl EngineFactory for MergeTreeFactory {
    fn name(&self) -> &'static str {
        self.name
    }

    fn validate(&self, meta: &TableMeta) -> Result<()> {
        MergeTreeSettings::from_pairs(&meta.engine.settings)?;
        let schema = meta.schema()?;
        for (c, field) in meta.columns.iter().zip(schema.fields()) {
            if let Some(codec) = &c.codec {
                ColumnCodec::parse(codec, field.data_type()).map_err(|e| e.context(format!("column {}", c.name)))?;
            }
        }
        MergeMode::from_meta(meta, &schema, &self.graphite)?;
        let keys = TableKeys::new(meta, &schema)?;
        crate::ttl::TableTtl::new(meta, &schema, &keys)?;
        crate::skip_index::SkipIndexes::new(meta, &schema, &keys)?;
        Ok(())
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
        Ok(Arc::new(MergeTreeEngine::open(context.meta, context.schema, &context.data_path, self.part_log.clone(), &self.graphite)?))
    }
}

/// `max_rows_to_read`, checked as ClickHouse does before reading: against the rows of
/// the granules index analysis (and a LIMIT without filters) selected.
fn check_rows_to_read(config: &datafusion::prelude::SessionConfig, ranges: &[crate::reader::GranuleRange]) -> Result<()> {
    let max_rows = config.get_extension::<granary_common::Settings>().map_or(0, |s| s.get_u64("max_rows_to_read"));
    let rows: u64 = ranges.iter().map(|r| r.rows()).sum();
    if max_rows > 0 && rows > max_rows {
        return Err(Error::new(
            ErrorCode::TOO_MANY_ROWS,
            format!(
                "Limit for rows (controlled by 'max_rows_to_read' setting) exceeded, max rows: {}, current rows: {}",
                readable_quantity(max_rows),
                readable_quantity(rows)
            ),
        ));
    }
    Ok(())
}

/// ClickHouse's `formatReadableQuantity`: `100.00 thousand`.
fn readable_quantity(value: u64) -> String {
    let mut value = value as f64;
    let mut unit = 0;
    const UNITS: [&str; 6] = ["", " thousand", " million", " billion", " trillion", " quadrillion"];
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.2}{}", UNITS[unit])
}

/// Each table column's files in a part, as `system.columns` sums them: zeros in a compact
/// part (its columns share `data.bin`), as ClickHouse reports them, and for a column the
/// part has no file of (added by ALTER after it was written).
fn column_sizes(schema: &SchemaRef, layout: PartLayout, sizes: &PartSizes, masked: bool) -> Vec<ColumnSizes> {
    let file = |file: String| sizes.column_files.get(&file).copied().unwrap_or_default();
    let mut columns: Vec<ColumnSizes> = schema
        .fields()
        .iter()
        .map(|field| {
            let name = field.name().clone();
            if layout != PartLayout::Wide {
                return ColumnSizes { name, ..Default::default() };
            }
            let (compressed, uncompressed) = file(bin_file_name(layout, &name));
            let (marks, _) = file(mark_file_name(layout, &name));
            ColumnSizes { name, data_compressed_bytes: compressed, data_uncompressed_bytes: uncompressed, marks_bytes: marks }
        })
        .collect();
    // The mask has files of its own in either layout.
    if masked {
        use crate::lightweight_delete::{ROW_EXISTS_BIN, ROW_EXISTS_COLUMN, ROW_EXISTS_MRK};
        let ((compressed, uncompressed), (marks, _)) = (file(ROW_EXISTS_BIN.to_string()), file(ROW_EXISTS_MRK.to_string()));
        columns.push(ColumnSizes { name: ROW_EXISTS_COLUMN.to_string(), data_compressed_bytes: compressed, data_uncompressed_bytes: uncompressed, marks_bytes: marks });
    }
    columns
}
