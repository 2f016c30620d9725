//! `View` and `MaterializedView`: tables that hold a query instead of rows.
//!
//! The interpreter expands a view into its query before planning, and sends reads and
//! writes of a materialized view to its target table, so these engines only keep the
//! view's place in the catalog (its columns for DESCRIBE and system tables). A read or
//! write that reaches them was not redirected, and says so instead of returning nothing.

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use granary_common::{Error, ErrorCode, Result};
use granary_storage::{EngineContext, EngineFactory, InsertRequest, InsertResult, TableEngine, TableMeta};

pub const VIEW_ENGINE: &str = "View";
pub const MATERIALIZED_VIEW_ENGINE: &str = "MaterializedView";

#[derive(Debug)]
pub struct ViewEngine {
    name: &'static str,
    schema: SchemaRef,
}

#[async_trait]
impl TableEngine for ViewEngine {
    fn engine_name(&self) -> &str {
        self.name
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    async fn scan(&self, _: &dyn Session, _: Option<&Vec<usize>>, _: &[Expr], _: Option<usize>) -> Result<Arc<dyn ExecutionPlan>> {
        Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("A {} is read through its query; this read was not expanded", self.name)))
    }

    async fn insert(&self, _: InsertRequest) -> Result<InsertResult> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Method write is not supported by storage {}", self.name)))
    }

    async fn truncate(&self) -> Result<()> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Truncate is not supported by storage {}", self.name)))
    }

    async fn drop_data(&self) -> Result<()> {
        Ok(())
    }
}

pub struct ViewEngineFactory {
    name: &'static str,
}

impl ViewEngineFactory {
    pub fn view() -> Self {
        ViewEngineFactory { name: VIEW_ENGINE }
    }

    pub fn materialized_view() -> Self {
        ViewEngineFactory { name: MATERIALIZED_VIEW_ENGINE }
    }
}

impl EngineFactory for ViewEngineFactory {
    fn name(&self) -> &'static str {
        self.name
    }

    fn validate(&self, meta: &TableMeta) -> Result<()> {
        match &meta.view {
            Some(view) if view.is_materialized() == (self.name == MATERIALIZED_VIEW_ENGINE) => Ok(()),
            _ => Err(Error::new(ErrorCode::INCORRECT_QUERY, format!("Engine {} is created by CREATE {}VIEW only", self.name, if self.name == VIEW_ENGINE { "" } else { "MATERIALIZED " }))),
        }
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
        Ok(Arc::new(ViewEngine { name: self.name, schema: context.schema }))
    }
}
