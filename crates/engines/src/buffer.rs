//! `ENGINE = Buffer(database, table, num_layers, min_time, max_time, min_rows, max_rows,
//! min_bytes, max_bytes [, flush_time [, flush_rows [, flush_bytes]]])`: rows inserted
//! are held in memory, in `num_layers` independent buffers, and written to the
//! destination table later, in bigger blocks, as ClickHouse's StorageBuffer does.
//!
//! A layer is flushed when all of the min thresholds are passed (seconds since its first
//! row, rows, bytes) or any of the max thresholds is; the flush_* thresholds, when
//! given, also flush it, but only from the background task (every
//! [`BACKGROUND_CHECK`]), never from an INSERT. An INSERT that would take a layer past
//! the thresholds flushes the layer's old rows first; an INSERT bigger than max_rows or
//! max_bytes alone goes straight to the destination. Comparisons are strict (`>`) and
//! time counts whole seconds, as ClickHouse's. `OPTIMIZE TABLE`, `DROP TABLE` and a
//! graceful shutdown (the query layer's `Instance::flush_buffers`) flush every layer.
//!
//! Unflushed rows live only in this process's memory: a kill -9 or a crash loses them,
//! as in ClickHouse. That is the engine's contract; a table that must not lose an
//! acknowledged row is written directly.
//!
//! Reading the table returns the buffered rows and the destination's rows (columns the
//! destination lacks at their defaults, others cast to the Buffer's types). A flush writes
//! the columns both tables have through the query layer's INSERT path
//! ([`BufferDestination`]), so the destination's defaults and materialized views apply.
//! With `Buffer('', '', ...)`, or a destination that does not exist when a flush comes,
//! the rows are discarded, as ClickHouse does. A failed write keeps the rows in the
//! layer for the next flush.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use arrow::datatypes::{Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::streaming::StreamingTableExec;
use datafusion::physical_plan::union::UnionExec;
use datafusion::physical_plan::ExecutionPlan;
use futures::future::BoxFuture;
use granary_common::{Error, ErrorCode, Result};
use granary_storage::{EngineContext, EngineFactory, InsertRequest, InsertResult, OptimizeRequest, ScanCounterExec, TableEngine, TableMeta};
use tokio::sync::Mutex;

use crate::collect_insert;
use crate::merge::unquote;

/// How often the background task looks at the layers' thresholds.
pub const BACKGROUND_CHECK: Duration = Duration::from_millis(250);

/// Where flushed rows go: the query layer's INSERT into the destination table.
pub trait BufferDestination: Send + Sync {
    /// Writes `batches` (of the Buffer's columns) into `database.table`: the columns
    /// both tables have, the others at the destination's defaults. `Ok(false)` when the
    /// table does not exist or has no column in common (the rows are then dropped).
    fn write<'a>(&'a self, database: &'a str, table: &'a str, batches: Vec<RecordBatch>) -> BoxFuture<'a, Result<bool>>;

    /// The rows of `database.table`, if it exists and its engine knows cheaply.
    fn total_rows(&self, database: &str, table: &str) -> Option<u64>;
}

/// What the Buffer factory shares with its tables: the destination writer, set once the
/// query layer exists (tables are opened before it).
#[derive(Default)]
pub struct BufferHost {
    destination: OnceLock<Arc<dyn BufferDestination>>,
}

impl BufferHost {
    pub fn set_destination(&self, destination: Arc<dyn BufferDestination>) {
        let _ = self.destination.set(destination);
    }
}

/// One group of thresholds: seconds since the layer's first row, rows, bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Limits {
    time: u64,
    rows: u64,
    bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct BufferParams {
    /// Empty: no destination, flushed rows are dropped.
    database: String,
    table: String,
    layers: usize,
    min: Limits,
    max: Limits,
    /// Background-only thresholds; 0 is off.
    flush: Limits,
}

const ARGUMENTS_ERROR: &str = "Storage Buffer requires from 9 to 12 parameters: destination_database, destination_table, num_buckets, min_time, max_time, min_rows, max_rows, min_bytes, max_bytes[, flush_time, flush_rows, flush_bytes].";

impl BufferParams {
    fn parse(meta: &TableMeta) -> Result<Self> {
        let args = &meta.engine.args;
        if !(9..=12).contains(&args.len()) {
            return Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, ARGUMENTS_ERROR));
        }
        let number = |i: usize| -> Result<u64> {
            match args.get(i) {
                None => Ok(0),
                Some(text) => unquote(text).parse::<u64>().map_err(|_| {
                    Error::new(ErrorCode::BAD_ARGUMENTS, format!("Storage Buffer: argument {} must be a non-negative integer, got {text}", i + 1))
                }),
            }
        };
        let layers = number(2)?;
        if layers == 0 {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Storage Buffer: num_layers must be positive"));
        }
        let (database, table) = (unquote(&args[0]), unquote(&args[1]));
        let database = if database.is_empty() && !table.is_empty() { meta.database.clone() } else { database };
        if database == meta.database && table == meta.name {
            return Err(Error::new(ErrorCode::INFINITE_LOOP, "Destination table is myself. Write will cause infinite loop."));
        }
        Ok(BufferParams {
            database,
            table,
            layers: layers as usize,
            min: Limits { time: number(3)?, rows: number(5)?, bytes: number(7)? },
            max: Limits { time: number(4)?, rows: number(6)?, bytes: number(8)? },
            flush: Limits { time: number(9)?, rows: number(10)?, bytes: number(11)? },
        })
    }

    /// ClickHouse's `checkThresholdsImpl`: `direct` is an INSERT's check, which leaves out
    /// the flush_* thresholds.
    fn reached(&self, direct: bool, seconds: u64, rows: u64, bytes: u64) -> bool {
        let (min, max, flush) = (&self.min, &self.max, &self.flush);
        (seconds > min.time && rows > min.rows && bytes > min.bytes)
            || seconds > max.time
            || rows > max.rows
            || bytes > max.bytes
            || (!direct && ((flush.time > 0 && seconds > flush.time) || (flush.rows > 0 && rows > flush.rows) || (flush.bytes > 0 && bytes > flush.bytes)))
    }
}

/// The first two engine arguments as CREATE stores them: string literals, with
/// `currentDatabase()` (or an empty database before a table name) replaced by
/// `current_database`, as ClickHouse shows them in SHOW CREATE TABLE.
pub fn normalize_arguments(args: &mut [String], current_database: &str) {
    if args.len() < 2 {
        return;
    }
    let table = unquote(&args[1]);
    let database = match args[0].trim() {
        "currentDatabase()" => current_database.to_string(),
        other => match unquote(other) {
            database if database.is_empty() && !table.is_empty() => current_database.to_string(),
            database => database,
        },
    };
    args[0] = granary_storage::meta::quote_string(&database);
    args[1] = granary_storage::meta::quote_string(&table);
}

#[derive(Debug, Default)]
struct Layer {
    batches: Vec<RecordBatch>,
    rows: u64,
    bytes: u64,
    first_write: Option<Instant>,
}

impl Layer {
    fn seconds(&self) -> u64 {
        self.first_write.map_or(0, |t| t.elapsed().as_secs())
    }
}

pub struct BufferEngine {
    schema: SchemaRef,
    params: BufferParams,
    /// Locked across a flush's write, so readers never miss rows in flight.
    layers: Vec<Mutex<Layer>>,
    next_layer: AtomicUsize,
    /// Rows and bytes held in all layers (system.tables), kept beside the locks.
    rows: AtomicU64,
    bytes: AtomicU64,
    host: Arc<BufferHost>,
}

impl std::fmt::Debug for BufferEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferEngine").field("params", &self.params).finish()
    }
}

/// The data size of a batch, as ClickHouse's `Block::bytes` counts it (values, not
/// allocated capacity).
fn data_bytes(batch: &RecordBatch) -> u64 {
    batch.columns().iter().map(|c| c.to_data().get_slice_memory_size().unwrap_or(0) as u64).sum()
}

impl BufferEngine {
    /// Writes `batches` to the destination (or drops them when there is none).
    async fn write_to_destination(&self, batches: Vec<RecordBatch>) -> Result<()> {
        if self.params.table.is_empty() || batches.is_empty() {
            return Ok(());
        }
        let destination = self.host.destination.get().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "Buffer tables have no destination writer"))?;
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        let (database, table) = (&self.params.database, &self.params.table);
        if !destination.write(database, table, batches).await? {
            tracing::error!(target: "StorageBuffer", "Destination table {database}.{table} doesn't exist or has no common columns with the buffer. Block of data ({rows} rows) is discarded.");
        }
        Ok(())
    }

    /// Flushes `layer` (locked by the caller). On failure the rows stay in it.
    async fn flush_layer(&self, layer: &mut Layer) -> Result<()> {
        if layer.batches.is_empty() {
            layer.first_write = None;
            return Ok(());
        }
        self.write_to_destination(layer.batches.clone()).await?;
        self.rows.fetch_sub(layer.rows, Ordering::Relaxed);
        self.bytes.fetch_sub(layer.bytes, Ordering::Relaxed);
        *layer = Layer::default();
        Ok(())
    }

    /// Flushes every layer (OPTIMIZE, DROP, shutdown).
    async fn flush_all(&self) -> Result<()> {
        for layer in &self.layers {
            let mut layer = layer.lock().await;
            self.flush_layer(&mut layer).await?;
        }
        Ok(())
    }

    /// The background check: flushes the layers whose thresholds are reached.
    async fn flush_due(&self) {
        for layer in &self.layers {
            let mut layer = layer.lock().await;
            if layer.first_write.is_none() || !self.params.reached(false, layer.seconds(), layer.rows, layer.bytes) {
                continue;
            }
            if let Err(e) = self.flush_layer(&mut layer).await {
                tracing::error!(target: "StorageBuffer", "Failed to flush a buffer into {}.{}: {}", self.params.database, self.params.table, e.message());
            }
        }
    }

    fn spawn_background_flushes(engine: &Arc<BufferEngine>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let weak: Weak<BufferEngine> = Arc::downgrade(engine);
        runtime.spawn(async move {
            let mut tick = tokio::time::interval(BACKGROUND_CHECK);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(engine) = weak.upgrade() else { break };
                engine.flush_due().await;
            }
        });
    }
}

#[async_trait]
impl TableEngine for BufferEngine {
    fn engine_name(&self) -> &str {
        "Buffer"
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    async fn scan(&self, session: &dyn Session, projection: Option<&Vec<usize>>, _filters: &[Expr], _limit: Option<usize>) -> Result<Arc<dyn ExecutionPlan>> {
        let mut batches = Vec::new();
        for layer in &self.layers {
            batches.extend(layer.lock().await.batches.iter().cloned());
        }
        let buffered = ScanCounterExec::wrap(MemorySourceConfig::try_new_exec(&[batches], self.schema.clone(), projection.cloned())?);
        let wanted: Vec<usize> = projection.cloned().unwrap_or_else(|| (0..self.schema.fields().len()).collect());
        let output: SchemaRef = Arc::new(Schema::new(wanted.iter().map(|&i| self.schema.field(i).clone()).collect::<Vec<_>>()));
        let Some(destination) = destination_provider(session, &self.params).await? else { return Ok(buffered) };
        let streams = crate::merge::converted_streams(session, destination.as_ref(), &output, None, &|_| None).await?;
        if streams.is_empty() {
            return Ok(buffered);
        }
        let stored: Arc<dyn ExecutionPlan> = Arc::new(StreamingTableExec::try_new(output, streams, None, Vec::new(), false, None)?);
        Ok(UnionExec::try_new(vec![buffered, stored])?)
    }

    async fn insert(&self, request: InsertRequest) -> Result<InsertResult> {
        let (batches, rows, _) = collect_insert(request.into_stream()).await?;
        let bytes: u64 = batches.iter().map(data_bytes).sum();
        if rows == 0 {
            return Ok(InsertResult::default());
        }
        let params = &self.params;
        if rows > params.max.rows || bytes > params.max.bytes {
            // Bigger than a full buffer: straight to the destination, as ClickHouse writes it.
            self.write_to_destination(batches).await?;
            return Ok(InsertResult { written_rows: rows, written_bytes: bytes });
        }
        let index = self.next_layer.fetch_add(1, Ordering::Relaxed) % self.layers.len();
        let mut layer = self.layers[index].lock().await;
        if layer.first_write.is_some() && params.reached(true, layer.seconds(), layer.rows + rows, layer.bytes + bytes) {
            self.flush_layer(&mut layer).await?;
        }
        layer.first_write.get_or_insert_with(Instant::now);
        layer.batches.extend(batches);
        layer.rows += rows;
        layer.bytes += bytes;
        self.rows.fetch_add(rows, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        Ok(InsertResult { written_rows: rows, written_bytes: bytes })
    }

    async fn truncate(&self) -> Result<()> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Truncate is not supported by storage Buffer"))
    }

    /// The table is gone: what it holds goes to the destination, as ClickHouse's DROP flushes.
    async fn drop_data(&self) -> Result<()> {
        self.flush_all().await
    }

    async fn optimize(&self, _request: OptimizeRequest) -> Result<()> {
        self.flush_all().await
    }

    async fn close(&self) -> Result<()> {
        self.flush_all().await
    }

    fn counts_reads(&self) -> bool {
        // The buffered rows are counted here, the destination's by its own scan.
        true
    }

    /// Buffered rows and the destination's, as ClickHouse counts them.
    fn total_rows(&self) -> Option<u64> {
        let stored = match (self.params.table.is_empty(), self.host.destination.get()) {
            (false, Some(destination)) => destination.total_rows(&self.params.database, &self.params.table).unwrap_or(0),
            _ => 0,
        };
        Some(self.rows.load(Ordering::Relaxed) + stored)
    }

    fn total_bytes(&self) -> Option<u64> {
        Some(self.bytes.load(Ordering::Relaxed))
    }
}

/// The destination as the query's catalog has it, if it exists.
async fn destination_provider(session: &dyn Session, params: &BufferParams) -> Result<Option<Arc<dyn datafusion::catalog::TableProvider>>> {
    if params.table.is_empty() {
        return Ok(None);
    }
    let catalog_name = &session.config().options().catalog.default_catalog;
    let Some(schema) = session.catalog_list().catalog(catalog_name).and_then(|c| c.schema(&params.database)) else { return Ok(None) };
    Ok(schema.table(&params.table).await?)
}

pub struct BufferEngineFactory {
    pub host: Arc<BufferHost>,
}

impl EngineFactory for BufferEngineFactory {
    fn name(&self) -> &'static str {
        "Buffer"
    }

    fn validate(&self, meta: &TableMeta) -> Result<()> {
        crate::memory::no_sorting_clauses(meta)?;
        BufferParams::parse(meta).map(|_| ())
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
        let params = BufferParams::parse(context.meta)?;
        let engine = Arc::new(BufferEngine {
            schema: context.schema,
            layers: (0..params.layers).map(|_| Mutex::new(Layer::default())).collect(),
            params,
            next_layer: AtomicUsize::new(0),
            rows: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            host: self.host.clone(),
        });
        BufferEngine::spawn_background_flushes(&engine);
        Ok(engine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(min: (u64, u64, u64), max: (u64, u64, u64), flush: (u64, u64, u64)) -> BufferParams {
        BufferParams {
            database: "db".into(),
            table: "t".into(),
            layers: 1,
            min: Limits { time: min.0, rows: min.1, bytes: min.2 },
            max: Limits { time: max.0, rows: max.1, bytes: max.2 },
            flush: Limits { time: flush.0, rows: flush.1, bytes: flush.2 },
        }
    }

    #[test]
    fn all_min_or_any_max_threshold() {
        let p = params((10, 100, 1000), (60, 1000, 10000), (0, 0, 0));
        assert!(!p.reached(true, 11, 101, 999));
        assert!(p.reached(true, 11, 101, 1001));
        assert!(p.reached(true, 0, 1001, 0));
        assert!(p.reached(true, 61, 0, 0));
        assert!(!p.reached(true, 60, 100, 10000));
    }

    #[test]
    fn flush_thresholds_only_in_the_background() {
        let p = params((10, 100, 1000), (60, 1000, 10000), (5, 50, 0));
        assert!(!p.reached(true, 6, 1, 1));
        assert!(p.reached(false, 6, 1, 1));
        assert!(p.reached(false, 0, 51, 1));
        assert!(!p.reached(false, 5, 50, 1));
    }

    #[test]
    fn arguments_are_stored_as_literals() {
        let mut args: Vec<String> = ["currentDatabase()", "dst", "1"].iter().map(|s| s.to_string()).collect();
        normalize_arguments(&mut args, "db1");
        assert_eq!(args[..2], ["'db1'".to_string(), "'dst'".to_string()]);
        let mut args: Vec<String> = ["''", "''"].iter().map(|s| s.to_string()).collect();
        normalize_arguments(&mut args, "db1");
        assert_eq!(args, ["''", "''"]);
    }
}
