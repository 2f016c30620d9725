//! `ENGINE = Null`: writes are accepted and discarded, reads return nothing. Useful as
//! the source of materialized views and to measure ingestion without storage.

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::ExecutionPlan;
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result};
use granary_storage::{EngineContext, EngineFactory, InsertRequest, InsertResult, TableEngine, TableMeta};

use crate::memory::no_engine_arguments;

#[derive(Debug)]
pub struct NullEngine {
    schema: SchemaRef,
}

impl NullEngine {
    /// A Null table of these columns (the `null()` table function's INSERT target).
    pub fn new(schema: SchemaRef) -> NullEngine {
        NullEngine { schema }
    }
}

#[async_trait]
impl TableEngine for NullEngine {
    fn engine_name(&self) -> &str {
        "Null"
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    async fn scan(&self, _: &dyn Session, projection: Option<&Vec<usize>>, _: &[Expr], _: Option<usize>) -> Result<Arc<dyn ExecutionPlan>> {
        let schema = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => self.schema.clone(),
        };
        Ok(Arc::new(EmptyExec::new(schema)))
    }

    async fn insert(&self, request: InsertRequest) -> Result<InsertResult> {
        // The input is still consumed, so a bad row fails the INSERT as it would elsewhere.
        let mut result = InsertResult::default();
        let mut input = request.into_stream();
        while let Some(batch) = input.next().await {
            let batch = batch?;
            result.written_rows += batch.num_rows() as u64;
            result.written_bytes += batch.get_array_memory_size() as u64;
        }
        Ok(result)
    }

    async fn truncate(&self) -> Result<()> {
        // ClickHouse refuses rather than pretending: there is nothing a TRUNCATE could mean here.
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Truncate is not supported by storage Null"))
    }

    async fn drop_data(&self) -> Result<()> {
        Ok(())
    }

    fn total_rows(&self) -> Option<u64> {
        Some(0)
    }

    fn total_bytes(&self) -> Option<u64> {
        Some(0)
    }
}

pub struct NullEngineFactory;

impl EngineFactory for NullEngineFactory {
    fn name(&self) -> &'static str {
        "Null"
    }

    fn validate(&self, meta: &TableMeta) -> Result<()> {
        no_engine_arguments(meta)
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
        Ok(Arc::new(NullEngine { schema: context.schema }))
    }
}
