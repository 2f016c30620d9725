//! Table engines and table functions that are not MergeTree.
//!
//! * [`memory`]: `ENGINE = Memory`, rows kept in RAM (gone after a restart, as in ClickHouse).
//! * [`join`]: `ENGINE = Join(ANY|ALL, kind, keys)`, a keyed, durable right side for
//!   JOINs and `joinGet`; `ENGINE = Set` (distinct rows for `x IN t`) on the same storage.
//! * [`null`]: `ENGINE = Null`, accepts writes and keeps nothing.
//! * [`view`]: `View` and `MaterializedView`, the catalog entries of views (their
//!   queries are run by the interpreter).
//! * [`log`]: `ENGINE = Log`, `TinyLog`, `StripeLog`, append-only tables on disk.
//! * [`generate_random`]: `ENGINE = GenerateRandom` and the generator of the
//!   `generateRandom()` table function.
//! * [`merge`]: `ENGINE = Merge(db, 'regexp')` and the reading side of `merge()`.
//! * [`buffer`]: `ENGINE = Buffer(db, table, ...)`, rows held in memory and flushed to
//!   another table in bigger blocks (unflushed rows are lost on kill -9).
//! * [`numbers`]: `numbers(N)`, `numbers(start, N)`, `numbers_mt`, `system.numbers`,
//!   generated lazily, split into partitions for `max_threads`.
//!
//! [`register_engines`] adds the engine factories to a registry; the table functions
//! are registered on the DataFusion session by the interpreter.

pub mod buffer;
pub mod generate_random;
pub mod join;
pub mod log;
pub mod memory;
pub mod merge;
pub mod null;
pub mod numbers;
pub mod view;

use std::sync::Arc;

use granary_storage::EngineRegistry;

/// Registers every engine of this crate.
pub fn register_engines(registry: &mut EngineRegistry) {
    registry.register(Arc::new(memory::MemoryEngineFactory));
    registry.register(Arc::new(null::NullEngineFactory));
    registry.register(Arc::new(join::JoinEngineFactory));
    registry.register(Arc::new(join::SetEngineFactory));
    registry.register(Arc::new(view::ViewEngineFactory::view()));
    registry.register(Arc::new(view::ViewEngineFactory::materialized_view()));
    for factory in log::LogEngineFactory::all() {
        registry.register(Arc::new(factory));
    }
    registry.register(Arc::new(generate_random::GenerateRandomEngineFactory));
    registry.register(Arc::new(merge::MergeEngineFactory));
}

/// Collects an insert stream into memory, checking each batch's schema. Shared by the
/// engines whose INSERT is all-or-nothing because they publish the rows at the end.
pub(crate) async fn collect_insert(
    mut input: datafusion::execution::SendableRecordBatchStream,
) -> granary_common::Result<(Vec<arrow::record_batch::RecordBatch>, u64, u64)> {
    use futures::StreamExt;
    let mut batches = Vec::new();
    let (mut rows, mut bytes) = (0u64, 0u64);
    while let Some(batch) = input.next().await {
        let batch = batch?;
        rows += batch.num_rows() as u64;
        bytes += batch.get_array_memory_size() as u64;
        if batch.num_rows() > 0 {
            batches.push(batch);
        }
    }
    Ok((batches, rows, bytes))
}
