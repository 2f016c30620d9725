//! The table-engine contract.
//!
//! Every engine (Memory, Null, MergeTree, Join, ...) implements [`TableEngine`]; the
//! interpreter and DataFusion drive engines only through it. Requests are plain structs
//! so the contract can cross a process boundary later (distributed execution), and so a
//! new option does not change every engine's signature.
//!
//! Reads go through DataFusion: [`TableEngine::scan`] returns an `ExecutionPlan`, and the
//! engine states which filters it applies exactly (see `supports_filters_pushdown`:
//! `Exact` filters are not re-applied by DataFusion, `Inexact` ones are, so an engine
//! that only prunes granules by a filter must answer `Inexact`).

use std::collections::HashMap;
use std::fmt::Debug;
use std::path::PathBuf;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::physical_plan::ExecutionPlan;
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result, Settings};

use crate::meta::TableMeta;

/// An INSERT into one table: batches already converted to the table's schema.
///
/// The rows come as one stream, or as several when the source runs in parallel (the
/// output partitions of an `INSERT ... SELECT` plan). An engine that writes in parallel
/// (MergeTree, up to `max_insert_threads` pipelines, as ClickHouse runs them) takes them
/// apart with [`InsertRequest::into_streams`]: each keeps its source's order, so sorted
/// sources stay sorted. Other engines read them as one with [`InsertRequest::into_stream`].
pub struct InsertRequest {
    /// Never empty.
    inputs: Vec<SendableRecordBatchStream>,
    /// The query's settings (insert block sizes, dedup, ...).
    pub settings: Settings,
}

impl InsertRequest {
    pub fn new(input: SendableRecordBatchStream, settings: Settings) -> Self {
        InsertRequest { inputs: vec![input], settings }
    }

    /// Rows from several streams of the same schema (at least one).
    pub fn partitioned(inputs: Vec<SendableRecordBatchStream>, settings: Settings) -> Result<Self> {
        if inputs.is_empty() {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, "an INSERT needs at least one input stream"));
        }
        Ok(InsertRequest { inputs, settings })
    }

    /// How many streams the rows arrive on.
    pub fn input_count(&self) -> usize {
        self.inputs.len()
    }

    /// Every input as one stream, batches interleaved as they arrive.
    pub fn into_stream(self) -> SendableRecordBatchStream {
        self.into_streams(1).pop().expect("into_streams returns at least one stream")
    }

    /// The inputs as at most `max` streams (at least one): when there are more inputs
    /// than that, inputs are grouped round-robin and each group is read as one stream.
    ///
    /// Each input of a group is still read (decoded, parsed, converted) by a task of its
    /// own, a couple of batches ahead, as ClickHouse reads an `INSERT ... SELECT` with
    /// `max_threads` sources however few `max_insert_threads` sinks it has: polling the
    /// inputs of a group from one task would decode them one after the other.
    pub fn into_streams(self, max: usize) -> Vec<SendableRecordBatchStream> {
        let max = max.max(1);
        if self.inputs.len() <= max {
            return self.inputs;
        }
        let schema = self.inputs[0].schema();
        let mut groups: Vec<Vec<SendableRecordBatchStream>> = (0..max).map(|_| Vec::new()).collect();
        for (i, input) in self.inputs.into_iter().enumerate() {
            groups[i % max].push(input);
        }
        groups.into_iter().map(|group| read_ahead_merged(schema.clone(), group)).collect()
    }
}

/// Batches read ahead per input by [`read_ahead_merged`]: enough to keep a reader busy
/// while its consumer takes the previous batch, little enough to bound memory.
const READ_AHEAD_BATCHES: usize = 2;

/// One stream of the batches of `inputs`, each input polled by its own task. Dropping
/// the stream stops the tasks.
fn read_ahead_merged(schema: SchemaRef, inputs: Vec<SendableRecordBatchStream>) -> SendableRecordBatchStream {
    if inputs.len() == 1 {
        return inputs.into_iter().next().expect("one input");
    }
    let mut builder = RecordBatchReceiverStream::builder(schema, READ_AHEAD_BATCHES * inputs.len());
    for mut input in inputs {
        let tx = builder.tx();
        builder.spawn(async move {
            while let Some(batch) = input.next().await {
                let failed = batch.is_err();
                if tx.send(batch).await.is_err() || failed {
                    break;
                }
            }
            Ok(())
        });
    }
    builder.build()
}

/// When inserted rows make a block (ClickHouse's squashing): at
/// `min_insert_block_size_rows` rows or `min_insert_block_size_bytes` bytes, whichever
/// comes first; a threshold of 0 is off, and with both off every batch is a block.
/// Engines cut parts at these blocks, and materialized views see the same blocks.
#[derive(Debug, Clone, Copy)]
pub struct InsertSquash {
    pub rows: usize,
    pub bytes: usize,
}

impl InsertSquash {
    pub fn from_settings(settings: &Settings) -> Self {
        InsertSquash {
            rows: settings.get_u64("min_insert_block_size_rows") as usize,
            bytes: settings.get_u64("min_insert_block_size_bytes") as usize,
        }
    }

    pub fn is_full(self, rows: usize, bytes: usize) -> bool {
        (self.rows == 0 && self.bytes == 0) || (self.rows > 0 && rows >= self.rows) || (self.bytes > 0 && bytes >= self.bytes)
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InsertResult {
    pub written_rows: u64,
    pub written_bytes: u64,
}

/// `SELECT cols FROM t WHERE column IN (keys)` (or `= key`), answered by the engine
/// directly from its index, without a query plan (the key-value fast path).
pub struct PointReadRequest {
    pub column: String,
    /// The wanted values (any type castable to the column's).
    pub keys: arrow::array::ArrayRef,
    /// Table columns to return, by schema index.
    pub projection: Vec<usize>,
    /// `use_uncompressed_cache` of the query.
    pub use_uncompressed_cache: bool,
}

/// Rows of a point read, in no particular order, with what was read to find them.
#[derive(Debug, Default)]
pub struct PointReadResult {
    pub batches: Vec<arrow::record_batch::RecordBatch>,
    pub read_rows: u64,
    pub read_bytes: u64,
}

/// A `SAMPLE` ratio as written: a decimal, or a fraction of two (`0.1`, `1/10`, `1e-1`),
/// kept as ClickHouse parses it, an unreduced fraction of 128-bit numbers. Above 1 it
/// is a number of rows (`SAMPLE 1000`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleRatio {
    pub numerator: u128,
    pub denominator: u128,
}

/// `SAMPLE size [OFFSET offset]` of one table in a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleClause {
    pub size: SampleRatio,
    pub offset: Option<SampleRatio>,
}

/// `OPTIMIZE TABLE`.
#[derive(Debug, Clone, Default)]
pub struct OptimizeRequest {
    pub partition: Option<String>,
    pub final_: bool,
    /// `FINAL CLEANUP`: a ReplacingMergeTree merge also drops deleted rows.
    pub cleanup: bool,
    /// `optimize_skip_merged_partitions`: FINAL leaves alone a partition whose only part
    /// was already merged.
    pub skip_merged_partitions: bool,
}

/// A change of an engine's parts, for `system.part_log`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PartLogEvent {
    /// `NewPart`, `MergeParts`, `MutatePart`, `RemovePart`.
    pub event_type: String,
    /// Microseconds since the epoch.
    pub event_time_us: i64,
    pub duration_ms: u64,
    pub database: String,
    pub table: String,
    pub part_name: String,
    pub partition_id: String,
    pub rows: u64,
    pub size_in_bytes: u64,
    /// Source parts of a merge or mutation.
    pub merged_from: Vec<String>,
    /// Rows read by a merge or mutation.
    pub read_rows: u64,
}

/// Where engines report part changes (the query layer keeps them as `system.part_log`).
pub trait PartLogSink: Send + Sync + std::fmt::Debug {
    fn record(&self, event: PartLogEvent);
}

/// A mutation (`ALTER ... DELETE/UPDATE`) of a table (`system.mutations`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MutationStatus {
    /// `mutation_<block number>.txt`, as ClickHouse names them.
    pub mutation_id: String,
    /// The command as ClickHouse shows it: `(DELETE WHERE x = 1)`.
    pub command: String,
    /// Unix seconds.
    pub create_time: i64,
    /// Unix seconds; 0 while not done.
    pub finish_time: i64,
    pub parts_to_do: i64,
    /// Active parts the mutation has still to rewrite, and the one it is rewriting now.
    pub parts_to_do_names: Vec<String>,
    pub parts_in_progress_names: Vec<String>,
    pub is_done: bool,
    pub latest_failed_part: String,
    pub latest_fail_time: i64,
    pub latest_fail_reason: String,
    /// The last failure's error code name (`FUNCTION_THROW_IF_VALUE_IS_NON_ZERO`).
    pub latest_fail_error_code_name: String,
}

/// A merge running now (`system.merges`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MergeStatus {
    pub elapsed: f64,
    /// 0..1: rows read over rows of the source parts.
    pub progress: f64,
    pub num_parts: u64,
    pub source_part_names: Vec<String>,
    pub result_part_name: String,
    pub partition_id: String,
    pub is_mutation: bool,
    pub total_size_bytes_compressed: u64,
    pub rows_read: u64,
    pub rows_written: u64,
}

/// One data part of an engine that stores parts (`system.parts`), in ClickHouse's terms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartStatus {
    /// The partition value as ClickHouse prints it (`202401`, `('a',202401)`, `tuple()`).
    pub partition: String,
    pub name: String,
    /// `Wide` or `Compact`.
    pub part_type: String,
    pub active: bool,
    pub marks: u64,
    pub rows: u64,
    pub files: u64,
    pub bytes_on_disk: u64,
    pub data_compressed_bytes: u64,
    pub data_uncompressed_bytes: u64,
    pub primary_key_size: u64,
    pub marks_bytes: u64,
    /// Unix seconds.
    pub modification_time: i64,
    /// Unix seconds when the part became inactive (0 while active).
    pub remove_time: i64,
    pub partition_id: String,
    pub min_block_number: i64,
    pub max_block_number: i64,
    pub level: u32,
    pub data_version: u64,
    /// Absolute directory of the part, with a trailing `/`.
    pub path: String,
    /// Per table column, its data in this part (`system.columns` sums them).
    pub columns: Vec<ColumnSizes>,
    /// Unix seconds of the earliest and latest row TTL (the DELETE rule without WHERE)
    /// of the part's rows; zeros when unknown.
    pub delete_ttl_info: (i64, i64),
    /// A lightweight delete masked rows of the part (they stay on disk until a merge).
    pub has_lightweight_delete: bool,
    /// Per data-skipping index file of the part (index name), its size in bytes.
    pub skip_indexes: Vec<(String, u64)>,
    /// Per RECOMPRESS, GROUP BY and DELETE ... WHERE rule: its expression and the Unix
    /// seconds of the earliest and latest of its values over the part's rows.
    pub recompression_ttl_info: Vec<(String, i64, i64)>,
    /// The codec of columns without one of their own (`LZ4`, `ZSTD(3)` after a RECOMPRESS).
    pub default_compression_codec: String,
    pub group_by_ttl_info: Vec<(String, i64, i64)>,
    pub rows_where_ttl_info: Vec<(String, i64, i64)>,
}

/// The files of one column in one part. All zero in a compact part, whose columns share
/// one file, as ClickHouse reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnSizes {
    pub name: String,
    pub data_compressed_bytes: u64,
    pub data_uncompressed_bytes: u64,
    pub marks_bytes: u64,
}

/// One line of `CHECK TABLE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    pub part_path: String,
    pub is_passed: bool,
    pub message: String,
}

/// `ALTER TABLE t {DROP|DETACH|ATTACH} PARTITION p`. `partition` is the expression as
/// written (`202401`, `'abc'`, `tuple()`, `ID '...'`); the engine evaluates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartitionCommand {
    Drop { partition: String },
    Detach { partition: String },
    Attach { partition: String },
}

/// `ALTER TABLE t DELETE WHERE predicate`: a mutation rewriting the parts with matching rows.
#[derive(Debug, Clone)]
pub struct DeleteRequest {
    /// The predicate as SQL text (ClickHouse dialect); the engine plans it against its schema.
    pub predicate: String,
    /// Wait for the mutation to finish (`mutations_sync > 0`).
    pub sync: bool,
    /// `DELETE FROM t WHERE ...`, which ClickHouse lists as `(UPDATE _row_exists = 0 WHERE ...)`.
    pub lightweight: bool,
}

/// `ALTER TABLE t UPDATE c = expr [, ...] WHERE predicate`: a mutation rewriting the parts
/// with matching rows.
#[derive(Debug, Clone)]
pub struct UpdateRequest {
    /// Column names and their new values as SQL text, evaluated over the rows' old values.
    pub assignments: Vec<(String, String)>,
    pub predicate: String,
    /// Wait for the mutation to finish (`mutations_sync > 0`).
    pub sync: bool,
}

/// Mutations that rewrite parts by the table's own rules rather than a predicate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleMutation {
    /// `ALTER TABLE ... MATERIALIZE TTL [IN PARTITION p]`: applies the TTL rules to
    /// every part (expired rows go, expired column values are reset).
    MaterializeTtl { partition: Option<String> },
    /// `ALTER TABLE ... CLEAR COLUMN c [IN PARTITION p]`: the column's values are reset
    /// to its default.
    ClearColumn { column: String, partition: Option<String> },
    /// `ALTER TABLE ... MATERIALIZE COLUMN c [IN PARTITION p]`: the column's values are
    /// computed again from its DEFAULT or MATERIALIZED expression.
    MaterializeColumn { column: String, partition: Option<String> },
    /// `ALTER TABLE ... MATERIALIZE INDEX i [IN PARTITION p]`: data-skipping index `i`
    /// is built for the existing parts.
    MaterializeIndex { name: String, partition: Option<String> },
    /// `ALTER TABLE ... CLEAR INDEX i [IN PARTITION p]` (`drop`: `DROP INDEX i`, after
    /// the index left the table's metadata): the parts' files of index `i` are removed.
    ClearIndex { name: String, partition: Option<String>, drop: bool },
}

#[async_trait]
pub trait TableEngine: Send + Sync + Debug {
    /// The engine name as in `ENGINE = <name>`.
    fn engine_name(&self) -> &str;

    fn schema(&self) -> SchemaRef;

    /// Columns the engine computes rather than stores (see [`crate::virtual_columns`]),
    /// without those a stored column's name hides. A scan's projection indexes them
    /// after the schema's columns.
    fn virtual_columns(&self) -> Vec<arrow::datatypes::FieldRef> {
        Vec::new()
    }

    /// A physical plan reading the table. `projection` indexes the schema, followed by
    /// the virtual columns when the provider shows them; columns used only by
    /// pushed-down filters may be absent from it.
    async fn scan(
        &self,
        session: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>>;

    /// Whether `SELECT ... FROM t SAMPLE k` can read the table: it has a sampling key
    /// (`SAMPLE BY`), or reads tables that may have one (Merge). Others fail such a
    /// query with SAMPLING_NOT_SUPPORTED before it is planned.
    fn supports_sampling(&self) -> bool {
        false
    }

    /// [`TableEngine::scan`] of the rows `sample` selects (`SAMPLE k [OFFSET m]`), with
    /// `_sample_factor` the factor it implies.
    async fn scan_sample(
        &self,
        _session: &dyn Session,
        _projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
        _sample: &SampleClause,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Err(Error::new(ErrorCode::SAMPLING_NOT_SUPPORTED, format!("Storage {} doesn't support sampling", self.engine_name())))
    }

    /// How the engine handles each filter (default: not at all).
    fn supports_filters_pushdown(&self, filters: &[&Expr]) -> Vec<TableProviderFilterPushDown> {
        vec![TableProviderFilterPushDown::Unsupported; filters.len()]
    }

    /// Appends rows. All or nothing: if the stream fails, nothing becomes visible.
    async fn insert(&self, request: InsertRequest) -> Result<InsertResult>;

    /// Removes all rows (`TRUNCATE`).
    async fn truncate(&self) -> Result<()>;

    /// Removes the table's data for good (`DROP TABLE`), after its metadata is gone.
    async fn drop_data(&self) -> Result<()>;

    /// True when `SELECT ... FROM t FINAL` means something for the engine (it merges rows
    /// at read time); ClickHouse refuses FINAL on other engines (ILLEGAL_FINAL).
    fn supports_final(&self) -> bool {
        false
    }

    /// `OPTIMIZE TABLE`: engines without merges have nothing to do.
    async fn optimize(&self, _request: OptimizeRequest) -> Result<()> {
        Ok(())
    }

    /// Rows held, if the engine knows cheaply (system.tables.total_rows).
    fn total_rows(&self) -> Option<u64> {
        None
    }

    /// Bytes held, if the engine knows cheaply (system.tables.total_bytes).
    fn total_bytes(&self) -> Option<u64> {
        None
    }

    /// Directories holding the table's data (system.tables.data_paths).
    fn data_paths(&self) -> Vec<PathBuf> {
        Vec::new()
    }

    /// Answers a point read if `request.column` is a column the engine can look rows up
    /// by cheaply (MergeTree: the first sorting-key column); `None` means "plan it".
    fn point_read(&self, _request: &PointReadRequest) -> Option<Result<PointReadResult>> {
        None
    }

    /// True when the engine's scans add read_rows / read_bytes to the query's
    /// `QueryProgress` themselves (rows read, which can be more than the rows returned
    /// when the scan filters); otherwise the rows a scan returns are counted.
    fn counts_reads(&self) -> bool {
        false
    }

    /// Key-value access (`dictGet`, `joinGet`), for engines that keep rows by key.
    fn key_lookup(&self) -> Option<&dyn crate::lookup::KeyLookup> {
        None
    }

    /// The engine's data parts (`system.parts`); engines without parts have none.
    fn parts(&self) -> Vec<PartStatus> {
        Vec::new()
    }

    /// `CHECK TABLE [PARTITION p]`: verifies the stored data, one result per part.
    async fn check(&self, _partition: Option<String>) -> Result<Vec<CheckResult>> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Check query is not supported for {} storage", self.engine_name())))
    }

    /// `ALTER TABLE ... DROP/DETACH/ATTACH PARTITION`.
    async fn alter_partition(&self, _command: PartitionCommand) -> Result<()> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Partition operations are not supported by storage {}", self.engine_name())))
    }

    /// `ALTER TABLE ... DELETE WHERE ...`.
    async fn delete_where(&self, _request: DeleteRequest) -> Result<()> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Mutations are not supported by storage {}", self.engine_name())))
    }

    /// `ALTER TABLE ... UPDATE ... WHERE ...`.
    async fn update_where(&self, _request: UpdateRequest) -> Result<()> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Mutations are not supported by storage {}", self.engine_name())))
    }

    /// `MATERIALIZE TTL`, `CLEAR COLUMN`: a mutation, waited for when `sync`.
    async fn mutate_by_rule(&self, _command: RuleMutation, _sync: bool) -> Result<()> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Mutations are not supported by storage {}", self.engine_name())))
    }

    /// Merges (and mutations) running now (`system.merges`).
    fn merges(&self) -> Vec<MergeStatus> {
        Vec::new()
    }

    /// The table's mutations, oldest first (`system.mutations`).
    fn mutations(&self) -> Vec<MutationStatus> {
        Vec::new()
    }

    /// `KILL MUTATION`: stops and forgets mutation `mutation_id`; false when there is none.
    fn kill_mutation(&self, _mutation_id: &str) -> Result<bool> {
        Ok(false)
    }

    /// Whether `ALTER TABLE` may change the columns, comments or settings: the catalog
    /// then writes the new metadata and reopens the table from its directory, so only
    /// engines that keep all their data there can.
    fn supports_alter_columns(&self) -> bool {
        false
    }

    /// Checks, before anything changes, that the data can take `meta`'s columns (a type
    /// change converts every value: one that does not convert fails the ALTER).
    async fn check_alter(&self, _meta: &TableMeta) -> Result<()> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Alter of columns is not supported by storage {}", self.engine_name())))
    }

    /// Stops background work and refuses further writes, before the table is reopened
    /// with new metadata.
    async fn close(&self) -> Result<()> {
        Ok(())
    }

    /// `SYSTEM STOP/START MERGES`: engines without background merges ignore it.
    fn set_merges_enabled(&self, _enabled: bool) {}
}

/// What an engine factory is given to open or create a table.
pub struct EngineContext<'a> {
    pub meta: &'a TableMeta,
    pub schema: SchemaRef,
    /// `<path>/store/<uuid>`: the engine's own directory (created by the engine if needed).
    pub data_path: PathBuf,
    /// True on CREATE, false when the server opens an existing table.
    pub is_new: bool,
}

pub trait EngineFactory: Send + Sync {
    fn name(&self) -> &'static str;

    /// Checks the engine clause at CREATE time (arguments, ORDER BY, settings).
    fn validate(&self, _meta: &TableMeta) -> Result<()> {
        Ok(())
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>>;
}

/// Engines by name.
#[derive(Default, Clone)]
pub struct EngineRegistry {
    factories: HashMap<String, Arc<dyn EngineFactory>>,
}

impl EngineRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn register(&mut self, factory: Arc<dyn EngineFactory>) {
        self.factories.insert(factory.name().to_string(), factory);
    }

    pub fn get(&self, name: &str) -> Result<&Arc<dyn EngineFactory>> {
        self.factories
            .get(name)
            .ok_or_else(|| Error::new(ErrorCode::UNKNOWN_STORAGE, format!("Unknown table engine {name}")))
    }

    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.factories.keys().cloned().collect();
        names.sort();
        names
    }
}
