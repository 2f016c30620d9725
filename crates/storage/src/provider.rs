//! DataFusion adapters: the catalog as a `CatalogProvider`, each database as a
//! `SchemaProvider`, each table as a `TableProvider` that forwards to its engine.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{CatalogProvider, SchemaProvider, Session, TableProvider};
use datafusion::common::DataFusionError;
use datafusion::datasource::TableType;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;

use crate::catalog::{Catalog, Database, Table};
use crate::scan_counter::ScanCounterExec;

/// A table as DataFusion sees it.
#[derive(Debug)]
pub struct EngineTableProvider {
    table: Arc<Table>,
    /// The table's columns, and its virtual columns when the query being planned names
    /// one (see [`crate::virtual_columns`]).
    schema: SchemaRef,
    /// `SAMPLE k` of the table reference this provider was planned for.
    sample: Option<crate::engine::SampleClause>,
}

impl EngineTableProvider {
    pub fn new(table: Arc<Table>) -> Self {
        let schema = table.schema();
        let virtual_columns = if crate::virtual_columns::visible() { table.engine.virtual_columns() } else { Vec::new() };
        let schema = match virtual_columns.is_empty() {
            true => schema,
            false => {
                let fields: Vec<_> = schema.fields().iter().cloned().chain(virtual_columns).collect();
                Arc::new(arrow::datatypes::Schema::new_with_metadata(fields, schema.metadata().clone()))
            }
        };
        EngineTableProvider { table, schema, sample: None }
    }

    /// The provider of a table reference with `SAMPLE k`: its scans read the sample.
    pub fn with_sample(&self, sample: crate::engine::SampleClause) -> Self {
        EngineTableProvider { table: self.table.clone(), schema: self.schema.clone(), sample: Some(sample) }
    }

    pub fn sample(&self) -> Option<&crate::engine::SampleClause> {
        self.sample.as_ref()
    }

    pub fn table(&self) -> &Arc<Table> {
        &self.table
    }
}

#[async_trait]
impl TableProvider for EngineTableProvider {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let plan = match &self.sample {
            Some(sample) => self.table.engine.scan_sample(state, projection, filters, limit, sample).await,
            None => self.table.engine.scan(state, projection, filters, limit).await,
        }
        .map_err(DataFusionError::from)?;
        if self.table.engine.counts_reads() {
            return Ok(plan);
        }
        Ok(ScanCounterExec::wrap(plan))
    }

    fn supports_filters_pushdown(&self, filters: &[&Expr]) -> datafusion::common::Result<Vec<TableProviderFilterPushDown>> {
        Ok(self.table.engine.supports_filters_pushdown(filters))
    }
}

#[derive(Debug)]
struct DatabaseSchemaProvider {
    database: Arc<Database>,
}

#[async_trait]
impl SchemaProvider for DatabaseSchemaProvider {
    fn table_names(&self) -> Vec<String> {
        self.database.table_names()
    }

    async fn table(&self, name: &str) -> datafusion::common::Result<Option<Arc<dyn TableProvider>>> {
        let table = crate::temporary::lookup(&self.database.name, name).or_else(|| self.database.table(name));
        Ok(table.map(|t| Arc::new(EngineTableProvider::new(t)) as Arc<dyn TableProvider>))
    }

    fn table_exist(&self, name: &str) -> bool {
        crate::temporary::lookup(&self.database.name, name).is_some() || self.database.table(name).is_some()
    }
}

/// The whole catalog as one DataFusion catalog; `extra` holds schemas the interpreter
/// serves itself (`system`).
#[derive(Debug)]
pub struct GranaryCatalogProvider {
    catalog: Arc<Catalog>,
    extra: HashMap<String, Arc<dyn SchemaProvider>>,
}

impl GranaryCatalogProvider {
    pub fn new(catalog: Arc<Catalog>, extra: HashMap<String, Arc<dyn SchemaProvider>>) -> Self {
        GranaryCatalogProvider { catalog, extra }
    }
}

impl CatalogProvider for GranaryCatalogProvider {
    fn schema_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.catalog.databases().iter().map(|d| d.name.clone()).collect();
        names.extend(self.extra.keys().cloned());
        names
    }

    fn schema(&self, name: &str) -> Option<Arc<dyn SchemaProvider>> {
        if let Some(extra) = self.extra.get(name) {
            return Some(extra.clone());
        }
        self.catalog.database(name).map(|database| Arc::new(DatabaseSchemaProvider { database }) as Arc<dyn SchemaProvider>)
    }
}
