//! `ENGINE = Memory`: batches in RAM behind a lock. An INSERT collects its whole input
//! before taking the write lock, so readers never see part of an INSERT and a failed
//! INSERT leaves nothing behind.

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use granary_common::{Error, ErrorCode, Result};
use granary_storage::{EngineContext, EngineFactory, InsertRequest, InsertResult, TableEngine, TableMeta};
use parking_lot::RwLock;

use crate::collect_insert;

#[derive(Debug)]
pub struct MemoryEngine {
    schema: SchemaRef,
    state: RwLock<MemoryState>,
}

#[derive(Debug, Default)]
struct MemoryState {
    /// Shared so a scan copies only pointers, however large the table.
    batches: Arc<Vec<RecordBatch>>,
    rows: u64,
    bytes: u64,
}

impl MemoryEngine {
    pub fn new(schema: SchemaRef) -> Self {
        MemoryEngine { schema, state: RwLock::new(MemoryState::default()) }
    }
}

#[async_trait]
impl TableEngine for MemoryEngine {
    fn engine_name(&self) -> &str {
        "Memory"
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    async fn scan(
        &self,
        session: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let batches = self.state.read().batches.clone();
        let partitions = session.config().target_partitions().max(1).min(batches.len().max(1));
        let mut split: Vec<Vec<RecordBatch>> = vec![Vec::new(); partitions];
        for (i, batch) in batches.iter().enumerate() {
            split[i % partitions].push(batch.clone());
        }
        Ok(MemorySourceConfig::try_new_exec(&split, self.schema.clone(), projection.cloned())?)
    }

    async fn insert(&self, request: InsertRequest) -> Result<InsertResult> {
        let (batches, rows, bytes) = collect_insert(request.into_stream()).await?;
        for batch in &batches {
            if batch.schema().fields() != self.schema.fields() {
                return Err(Error::new(
                    ErrorCode::LOGICAL_ERROR,
                    format!("Inserted block structure does not match the table: {:?} vs {:?}", batch.schema(), self.schema),
                ));
            }
        }
        let mut state = self.state.write();
        let mut all = Vec::with_capacity(state.batches.len() + batches.len());
        all.extend(state.batches.iter().cloned());
        all.extend(batches);
        state.batches = Arc::new(all);
        state.rows += rows;
        state.bytes += bytes;
        Ok(InsertResult { written_rows: rows, written_bytes: bytes })
    }

    async fn truncate(&self) -> Result<()> {
        *self.state.write() = MemoryState::default();
        Ok(())
    }

    async fn drop_data(&self) -> Result<()> {
        self.truncate().await
    }

    fn total_rows(&self) -> Option<u64> {
        Some(self.state.read().rows)
    }

    fn total_bytes(&self) -> Option<u64> {
        Some(self.state.read().bytes)
    }
}

pub struct MemoryEngineFactory;

impl EngineFactory for MemoryEngineFactory {
    fn name(&self) -> &'static str {
        "Memory"
    }

    fn validate(&self, meta: &TableMeta) -> Result<()> {
        no_engine_arguments(meta)
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
        Ok(Arc::new(MemoryEngine::new(context.schema)))
    }
}

/// Memory and Null take no arguments and no sorting or partitioning clauses.
pub(crate) fn no_engine_arguments(meta: &TableMeta) -> Result<()> {
    let e = &meta.engine;
    if !e.args.is_empty() {
        return Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Engine {} doesn't support any arguments ({} given)", e.name, e.args.len())));
    }
    no_sorting_clauses(meta)
}

/// Engines that keep no sorted parts take no PARTITION BY / ORDER BY / PRIMARY KEY / SAMPLE BY.
pub(crate) fn no_sorting_clauses(meta: &TableMeta) -> Result<()> {
    let e = &meta.engine;
    if e.order_by.is_some() || e.partition_by.is_some() || e.primary_key.is_some() || e.sample_by.is_some() {
        return Err(Error::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Engine {} doesn't support PARTITION_BY, PRIMARY_KEY, ORDER_BY or SAMPLE_BY clauses", e.name),
        ));
    }
    Ok(())
}
