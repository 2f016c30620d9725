//! `ENGINE = Merge(db, 'regexp')` and the `merge([db,] 'regexp')` table function: a
//! read-only union of the tables of a database whose names match a regular expression,
//! with the `_database` and `_table` virtual columns saying where each row comes from.
//!
//! The tables are found when a query is planned, through the query's own DataFusion
//! catalog (so tables created after the Merge table are read too, and access goes
//! through the same providers as a direct read). The Merge table itself, views,
//! materialized views and dictionaries are not read, nor, unlike ClickHouse, other Merge
//! tables (two Merge tables matching each other would read each other without end). A column a source table lacks is its
//! type's default; a column of another type is cast. Filters are applied above the union
//! (none is pushed into the sources).

use std::sync::Arc;

use arrow::array::{new_null_array, ArrayRef, RecordBatch, StringArray};
use arrow::datatypes::{Field, FieldRef, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::ScalarValue;
use datafusion::error::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties};
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result};
use granary_storage::{EngineContext, EngineFactory, EngineTableProvider, InsertRequest, InsertResult, SampleClause, TableEngine, TableMeta};
use granary_types::ChType;
use regex::Regex;

/// Engines whose tables a Merge table does not read.
const SKIPPED_ENGINES: [&str; 4] = ["View", "MaterializedView", "Dictionary", "Merge"];

/// Which tables a Merge table or `merge()` reads.
#[derive(Debug, Clone)]
pub struct MergeSource {
    pub database: String,
    pub pattern: Regex,
    /// The Merge table itself, as (database, name).
    pub exclude: Option<(String, String)>,
}

/// The virtual columns, as ClickHouse types them.
pub fn merge_virtual_columns() -> Vec<FieldRef> {
    let name = ChType::LowCardinality(Box::new(ChType::String));
    vec![
        granary_storage::virtual_columns::field("_database", &name, "The name of database which the row comes from.", ""),
        granary_storage::virtual_columns::field("_table", &name, "The name of table which the row comes from.", ""),
    ]
}

impl MergeSource {
    /// The matching tables of the query's catalog, by name.
    pub async fn tables(&self, session: &dyn Session) -> Result<Vec<(String, Arc<dyn TableProvider>)>> {
        let catalog_name = session.config().options().catalog.default_catalog.clone();
        let Some(catalog) = session.catalog_list().catalog(&catalog_name) else {
            return Ok(Vec::new());
        };
        let Some(schema) = catalog.schema(&self.database) else {
            return Err(Error::new(ErrorCode::UNKNOWN_DATABASE, format!("Database {} does not exist", self.database)));
        };
        let mut names: Vec<String> = schema.table_names().into_iter().filter(|name| self.pattern.is_match(name)).collect();
        names.sort();
        let mut tables = Vec::new();
        for name in names {
            if self.exclude.as_ref().is_some_and(|(db, table)| *db == self.database && *table == name) {
                continue;
            }
            let Some(provider) = schema.table(&name).await? else { continue };
            let skipped = (provider.as_ref() as &dyn std::any::Any)
                .downcast_ref::<EngineTableProvider>()
                .is_some_and(|p| SKIPPED_ENGINES.contains(&p.table().engine.engine_name()));
            if !skipped {
                tables.push((name, provider));
            }
        }
        Ok(tables)
    }

    /// A plan reading `projection` of `schema` (the table's columns followed by
    /// [`merge_virtual_columns`]) from every matching table; with `sample`, the sample
    /// of each, which every table must be able to take (as in ClickHouse).
    pub async fn scan(
        &self,
        session: &dyn Session,
        schema: &SchemaRef,
        projection: Option<&Vec<usize>>,
        limit: Option<usize>,
        sample: Option<&SampleClause>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let wanted: Vec<usize> = match projection {
            Some(p) => p.clone(),
            None => (0..schema.fields().len()).collect(),
        };
        let output: SchemaRef = Arc::new(Schema::new(wanted.iter().map(|&i| schema.field(i).clone()).collect::<Vec<_>>()));
        let mut streams: Vec<Arc<dyn PartitionStream>> = Vec::new();
        for (name, provider) in self.tables(session).await? {
            let provider = match sample {
                Some(sample) => self.sampled(&name, &provider, sample)?,
                None => provider,
            };
            let constant = |field: &Field| match field.name().as_str() {
                "_database" if granary_storage::virtual_columns::is_virtual(field) => Some(self.database.clone()),
                "_table" if granary_storage::virtual_columns::is_virtual(field) => Some(name.clone()),
                _ => None,
            };
            streams.extend(converted_streams(session, provider.as_ref(), &output, limit, &constant).await?);
        }
        if streams.is_empty() {
            return Ok(Arc::new(EmptyExec::new(output)));
        }
        Ok(Arc::new(StreamingTableExec::try_new(output, streams, None, Vec::new(), false, limit)?))
    }
}

/// Partition streams reading the columns of `output` from `provider`, by name: a column
/// the table lacks is its type's default, a column of another type is cast, and the
/// columns `constant` gives a value are that value (Merge's `_database` / `_table`).
pub(crate) async fn converted_streams(
    session: &dyn Session,
    provider: &dyn TableProvider,
    output: &SchemaRef,
    limit: Option<usize>,
    constant: &(dyn Fn(&Field) -> Option<String> + Sync),
) -> Result<Vec<Arc<dyn PartitionStream>>> {
    let source_schema = provider.schema();
    // For each output column, where it comes from in this table's scan.
    let mut source_projection = Vec::new();
    let columns: Vec<Column> = output
        .fields()
        .iter()
        .map(|field| match constant(field) {
            Some(value) => Column::Constant(value),
            None => match source_schema.index_of(field.name()) {
                Ok(index) => {
                    source_projection.push(index);
                    Column::Source(source_projection.len() - 1)
                }
                Err(_) => Column::Default,
            },
        })
        .collect();
    let plan = provider.scan(session, Some(&source_projection), &[], limit).await?;
    let columns = Arc::new(columns);
    Ok((0..plan.output_partitioning().partition_count())
        .map(|partition| Arc::new(MergePartition { schema: output.clone(), plan: plan.clone(), partition, columns: columns.clone() }) as Arc<dyn PartitionStream>)
        .collect())
}

impl MergeSource {
    /// `provider` (table `name`) reading `sample`.
    fn sampled(&self, name: &str, provider: &Arc<dyn TableProvider>, sample: &SampleClause) -> Result<Arc<dyn TableProvider>> {
        let engine_table = (provider.as_ref() as &dyn std::any::Any).downcast_ref::<EngineTableProvider>();
        match engine_table {
            Some(table) if table.table().engine.supports_sampling() => Ok(Arc::new(table.with_sample(*sample))),
            _ => {
                let child = match engine_table {
                    Some(table) => format!("{}.{name} ({})", self.database, table.table().meta.uuid),
                    None => format!("{}.{name}", self.database),
                };
                Err(Error::new(ErrorCode::SAMPLING_NOT_SUPPORTED, format!("Illegal SAMPLE: table {child} doesn't support sampling: Child table: {child}")))
            }
        }
    }
}

/// Where an output column's values come from.
#[derive(Debug)]
enum Column {
    /// This column of the source scan.
    Source(usize),
    /// The type's default: the source table has no such column.
    Default,
    /// `_database` / `_table`.
    Constant(String),
}

/// One output partition of one source table, converted to the Merge table's columns.
#[derive(Debug)]
struct MergePartition {
    schema: SchemaRef,
    plan: Arc<dyn ExecutionPlan>,
    partition: usize,
    columns: Arc<Vec<Column>>,
}

impl PartitionStream for MergePartition {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let schema = self.schema.clone();
        let columns = self.columns.clone();
        let stream = match self.plan.execute(self.partition, ctx) {
            Ok(stream) => stream,
            Err(e) => return Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::once(async move { Err(e) }))),
        };
        let converted = stream.map(move |batch| convert(&schema, &columns, &batch?).map_err(DataFusionError::from));
        Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), converted))
    }
}

fn convert(schema: &SchemaRef, columns: &[Column], batch: &RecordBatch) -> Result<RecordBatch> {
    let rows = batch.num_rows();
    let arrays = schema
        .fields()
        .iter()
        .zip(columns)
        .map(|(field, column)| -> Result<ArrayRef> {
            Ok(match column {
                Column::Source(i) => {
                    let array = batch.column(*i);
                    if array.data_type() == field.data_type() {
                        array.clone()
                    } else {
                        arrow::compute::cast(array, field.data_type())?
                    }
                }
                Column::Default if field.is_nullable() => new_null_array(field.data_type(), rows),
                Column::Default => ScalarValue::new_default(field.data_type())?.to_array_of_size(rows)?,
                Column::Constant(text) => {
                    let array: ArrayRef = Arc::new(StringArray::from(vec![text.as_str(); rows]));
                    arrow::compute::cast(&array, field.data_type())?
                }
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let options = arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(schema.clone(), arrays, &options)?)
}

/// The pattern of a Merge table or `merge()`: ClickHouse's re2 syntax is close enough to
/// the `regex` crate's for table names.
pub fn table_pattern(text: &str) -> Result<Regex> {
    Regex::new(text).map_err(|e| Error::new(ErrorCode::CANNOT_COMPILE_REGEXP, format!("Cannot compile regexp '{text}': {e}")))
}

/// `ENGINE = Merge`.
#[derive(Debug)]
pub struct MergeEngine {
    schema: SchemaRef,
    source: MergeSource,
}

impl MergeEngine {
    /// What a scan's projection indexes: the columns, then the virtual columns.
    fn scan_schema(&self) -> SchemaRef {
        let fields: Vec<FieldRef> = self.schema.fields().iter().cloned().chain(merge_virtual_columns()).collect();
        Arc::new(Schema::new(fields))
    }
}

#[async_trait]
impl TableEngine for MergeEngine {
    fn engine_name(&self) -> &str {
        "Merge"
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn virtual_columns(&self) -> Vec<FieldRef> {
        merge_virtual_columns()
    }

    async fn scan(&self, session: &dyn Session, projection: Option<&Vec<usize>>, _filters: &[Expr], limit: Option<usize>) -> Result<Arc<dyn ExecutionPlan>> {
        self.source.scan(session, &self.scan_schema(), projection, limit, None).await
    }

    /// ClickHouse's Merge takes SAMPLE and hands it to each table, which must take it.
    fn supports_sampling(&self) -> bool {
        true
    }

    async fn scan_sample(
        &self,
        session: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        limit: Option<usize>,
        sample: &SampleClause,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.source.scan(session, &self.scan_schema(), projection, limit, Some(sample)).await
    }

    async fn insert(&self, _request: InsertRequest) -> Result<InsertResult> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Method write is not supported by storage Merge"))
    }

    async fn truncate(&self) -> Result<()> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Truncate is not supported by storage Merge"))
    }

    async fn drop_data(&self) -> Result<()> {
        Ok(())
    }
}

pub struct MergeEngineFactory;

impl MergeEngineFactory {
    fn source(meta: &TableMeta) -> Result<MergeSource> {
        let [database, pattern] = meta.engine.args.as_slice() else {
            return Err(Error::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                "Storage Merge requires exactly 2 parameters - name of source database and regexp for table names.",
            ));
        };
        // ClickHouse evaluates constant expressions here; the one used in practice is
        // the table's own database.
        let database = match database.trim() {
            "currentDatabase()" => meta.database.clone(),
            other => unquote(other),
        };
        Ok(MergeSource {
            database,
            pattern: table_pattern(&unquote(pattern))?,
            exclude: Some((meta.database.clone(), meta.name.clone())),
        })
    }
}

/// An engine argument as written: `'text'`, an identifier, or `currentDatabase()`-like
/// text taken as it is.
pub(crate) fn unquote(text: &str) -> String {
    let text = text.trim();
    match text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        Some(inner) => inner.replace("\\'", "'").replace("''", "'").replace("\\\\", "\\"),
        None => text.trim_matches('`').trim_matches('"').to_string(),
    }
}

impl EngineFactory for MergeEngineFactory {
    fn name(&self) -> &'static str {
        "Merge"
    }

    fn validate(&self, meta: &TableMeta) -> Result<()> {
        crate::memory::no_sorting_clauses(meta)?;
        Self::source(meta).map(|_| ())
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
        Ok(Arc::new(MergeEngine { schema: context.schema, source: Self::source(context.meta)? }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_unquoted() {
        assert_eq!(unquote("'d1'"), "d1");
        assert_eq!(unquote(" d1 "), "d1");
        assert_eq!(unquote("'^t\\\\d'"), "^t\\d");
        assert!(table_pattern("(").is_err());
    }
}
