//! Asynchronous inserts (`async_insert = 1`): many small INSERTs into one table written as
//! one part.
//!
//! ```text
//!  INSERT (data in the query or the body, at most async_insert_max_data_size bytes)
//!    ─► parsed and conformed to the table now (a bad row fails this INSERT only)
//!    ─► queue entry of (table, column list, format, changed settings)
//!    ─► written as one TableEngine::insert when the entry holds
//!       async_insert_max_data_size bytes or async_insert_max_query_number INSERTs, or
//!       async_insert_busy_timeout_ms after its first INSERT, or at SYSTEM FLUSH ASYNC
//!       INSERT QUEUE / shutdown
//!    ─► wait_for_async_insert = 1: each INSERT answers once the write returned (the part
//!       is fsynced and renamed: durable); 0: it answered when queued, so its rows are lost
//!       if the process dies before the write, as in ClickHouse
//! ```
//! An INSERT with more data than async_insert_max_data_size is written synchronously, as
//! ClickHouse does; INSERT ... SELECT is never queued. Writes run in their own tasks, so an
//! INSERT whose client went away does not stop the others of its batch from being written.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use arrow::record_batch::RecordBatch;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use granary_common::{Error, ErrorCode, Result, Settings};
use granary_storage::{InsertRequest, Table};
use parking_lot::Mutex;
use tokio::sync::oneshot;

use crate::instance::Instance;

/// What makes INSERTs batchable together: ClickHouse's key of the queue.
#[derive(Clone, PartialEq, Eq, Hash)]
struct QueueKey {
    database: String,
    table: String,
    /// Tells a table from one dropped and created again under its name.
    uuid: String,
    columns: Vec<usize>,
    format: String,
    settings: Vec<(&'static str, String)>,
}

/// INSERTs queued under one key, not yet written.
struct Batch {
    /// Tells this batch from a later one of the same key (a timer fires for its own batch only).
    id: u64,
    table: Arc<Table>,
    settings: Settings,
    /// The first INSERT's text up to its data (`system.asynchronous_inserts.query`).
    query: String,
    format: String,
    first_update_us: i64,
    bytes: u64,
    batches: Vec<RecordBatch>,
    entries: Vec<Entry>,
}

struct Entry {
    query_id: String,
    bytes: u64,
    /// Told the outcome of the write; None when the INSERT did not wait.
    done: Option<oneshot::Sender<Result<()>>>,
}

/// One row of `system.asynchronous_inserts`.
pub(crate) struct QueuedInsert {
    pub query: String,
    pub database: String,
    pub table: String,
    pub format: String,
    pub first_update_us: i64,
    pub total_bytes: u64,
    pub query_ids: Vec<String>,
    pub bytes: Vec<u64>,
}

#[derive(Default)]
pub(crate) struct AsyncInsertQueue {
    /// Set once the instance exists; writes need it to make a query context (materialized
    /// views reading the table run in it).
    instance: std::sync::OnceLock<Weak<Instance>>,
    state: Mutex<QueueState>,
}

#[derive(Default)]
struct QueueState {
    batches: HashMap<QueueKey, Batch>,
    next_id: u64,
}

/// One INSERT's data, parsed and conformed to the table's columns.
pub(crate) struct QueuedData<'a> {
    pub table: &'a Arc<Table>,
    pub targets: &'a [usize],
    pub format: &'a str,
    pub query: &'a str,
    pub batches: Vec<RecordBatch>,
    pub bytes: u64,
}

impl AsyncInsertQueue {
    pub(crate) fn set_instance(&self, instance: Weak<Instance>) {
        let _ = self.instance.set(instance);
    }

    /// Queues one INSERT's rows; with `wait_for_async_insert`, returns once they are
    /// written (or the write failed).
    pub(crate) async fn push(self: &Arc<Self>, query_id: &str, settings: &Settings, data: QueuedData<'_>) -> Result<()> {
        let wait = settings.get_bool("wait_for_async_insert");
        let key = QueueKey {
            database: data.table.meta.database.clone(),
            table: data.table.meta.name.clone(),
            uuid: data.table.meta.uuid.clone(),
            columns: data.targets.to_vec(),
            format: data.format.to_string(),
            settings: settings.changed().map(|(name, value)| (name, value.to_string())).collect(),
        };
        let (done, outcome) = if wait {
            let (tx, rx) = oneshot::channel();
            (Some(tx), Some(rx))
        } else {
            (None, None)
        };
        let max_bytes = settings.get_u64("async_insert_max_data_size");
        let max_queries = settings.get_u64("async_insert_max_query_number").max(1);
        let (timer, full) = {
            let mut state = self.state.lock();
            let id = state.next_id;
            let mut timer = None;
            let batch = state.batches.entry(key.clone()).or_insert_with(|| {
                timer = Some(id);
                Batch {
                    id,
                    table: data.table.clone(),
                    settings: settings.clone(),
                    query: data.query.trim().to_string(),
                    format: data.format.to_string(),
                    first_update_us: crate::instance::now_us(),
                    bytes: 0,
                    batches: Vec::new(),
                    entries: Vec::new(),
                }
            });
            batch.bytes += data.bytes;
            batch.batches.extend(data.batches);
            batch.entries.push(Entry { query_id: query_id.to_string(), bytes: data.bytes, done });
            let full = batch.bytes >= max_bytes || batch.entries.len() as u64 >= max_queries;
            if timer.is_some() {
                state.next_id += 1;
            }
            let full = if full { state.batches.remove(&key) } else { None };
            (timer, full)
        };
        if let Some(batch) = full {
            let queue = self.clone();
            tokio::spawn(async move { queue.write(batch).await });
        } else if let Some(id) = timer {
            let queue = self.clone();
            let timeout = busy_timeout(settings);
            tokio::spawn(async move {
                tokio::time::sleep(timeout).await;
                let batch = {
                    let mut state = queue.state.lock();
                    match state.batches.get(&key) {
                        Some(batch) if batch.id == id => state.batches.remove(&key),
                        _ => None,
                    }
                };
                if let Some(batch) = batch {
                    queue.write(batch).await;
                }
            });
        }
        let Some(outcome) = outcome else { return Ok(()) };
        let limit = Duration::from_secs_f64(settings.get_f64("wait_for_async_insert_timeout").max(0.0));
        let answer = if limit.is_zero() { Ok(outcome.await) } else { tokio::time::timeout(limit, outcome).await };
        match answer {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(Error::new(ErrorCode::LOGICAL_ERROR, "The asynchronous insert was dropped before it was written")),
            Err(_) => Err(Error::new(ErrorCode::TIMEOUT_EXCEEDED, format!("Wait for async insert timeout ({} s) exceeded", limit.as_secs_f64()))),
        }
    }

    /// Writes every queued batch (of the given tables, or all) and waits for the writes.
    pub(crate) async fn flush(self: &Arc<Self>, tables: Option<&[(String, String)]>) {
        let batches: Vec<Batch> = {
            let mut state = self.state.lock();
            let keys: Vec<QueueKey> = state
                .batches
                .keys()
                .filter(|k| tables.is_none_or(|tables| tables.iter().any(|(db, t)| *db == k.database && *t == k.table)))
                .cloned()
                .collect();
            keys.iter().filter_map(|k| state.batches.remove(k)).collect()
        };
        let writes = batches.into_iter().map(|batch| {
            let queue = self.clone();
            tokio::spawn(async move { queue.write(batch).await })
        });
        for write in writes.collect::<Vec<_>>() {
            let _ = write.await;
        }
    }

    pub(crate) fn snapshot(&self) -> Vec<QueuedInsert> {
        let state = self.state.lock();
        let mut rows: Vec<QueuedInsert> = state
            .batches
            .iter()
            .map(|(key, batch)| QueuedInsert {
                query: batch.query.clone(),
                database: key.database.clone(),
                table: key.table.clone(),
                format: batch.format.clone(),
                first_update_us: batch.first_update_us,
                total_bytes: batch.bytes,
                query_ids: batch.entries.iter().map(|e| e.query_id.clone()).collect(),
                bytes: batch.entries.iter().map(|e| e.bytes).collect(),
            })
            .collect();
        rows.sort_by_key(|r| r.first_update_us);
        rows
    }

    /// Writes one batch as one INSERT and tells every waiting INSERT of it the outcome.
    async fn write(self: Arc<Self>, batch: Batch) {
        let Batch { table, settings, query, batches, entries, .. } = batch;
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        let result = match self.instance.get().and_then(Weak::upgrade) {
            Some(instance) => write_batches(&instance, &table, settings, &query, batches).await,
            None => Err(Error::new(ErrorCode::ABORTED, "The server is shutting down")),
        };
        match &result {
            Ok(()) => tracing::debug!(target: "AsynchronousInsertQueue", "Flushed {rows} rows of {} INSERTs into {}.{}", entries.len(), table.meta.database, table.meta.name),
            Err(e) => tracing::error!(target: "AsynchronousInsertQueue", "Failed to write {} INSERTs into {}.{}: {}", entries.len(), table.meta.database, table.meta.name, e.message()),
        }
        for entry in entries {
            if let Some(done) = entry.done {
                let _ = done.send(result.as_ref().map(|_| ()).map_err(|e| Error::new(e.code(), e.message())));
            }
        }
    }
}

/// How long the first INSERT of a batch waits for others: ClickHouse's
/// `async_insert_busy_timeout_ms` is the older name of `async_insert_busy_timeout_max_ms`.
fn busy_timeout(settings: &Settings) -> Duration {
    let ms = if settings.is_changed("async_insert_busy_timeout_ms") {
        settings.get_u64("async_insert_busy_timeout_ms")
    } else {
        settings.get_u64("async_insert_busy_timeout_max_ms")
    };
    Duration::from_millis(ms)
}

async fn write_batches(instance: &Instance, table: &Table, settings: Settings, query: &str, batches: Vec<RecordBatch>) -> Result<()> {
    let ctx = instance.internal_context(&table.meta.database, query, settings.clone())?;
    let schema = table.schema();
    let stream = futures::stream::iter(batches.into_iter().map(Ok));
    let stream: SendableRecordBatchStream = Box::pin(RecordBatchStreamAdapter::new(schema, stream));
    crate::insert::write_to_engine(&ctx, table, InsertRequest::new(stream, settings)).await
}
