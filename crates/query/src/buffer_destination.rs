//! Where Buffer tables flush (`granary_engines::buffer`): an INSERT of the buffered rows
//! into the destination table, the columns both tables have by name, so the
//! destination's types, defaults and materialized views apply as to any INSERT.

use std::sync::{Arc, Weak};

use arrow::record_batch::RecordBatch;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use futures::future::BoxFuture;
use granary_common::{Error, ErrorCode, Result, Settings};
use granary_engines::buffer::BufferDestination;

use crate::instance::Instance;

pub(crate) struct InstanceBufferDestination {
    pub instance: Weak<Instance>,
}

impl BufferDestination for InstanceBufferDestination {
    fn write<'a>(&'a self, database: &'a str, table: &'a str, batches: Vec<RecordBatch>) -> BoxFuture<'a, Result<bool>> {
        Box::pin(async move {
            let Some(instance) = self.instance.upgrade() else {
                return Err(Error::new(ErrorCode::ABORTED, "The server is shutting down"));
            };
            let Ok(target) = instance.catalog().table(database, table) else { return Ok(false) };
            let Some(source) = batches.first().map(RecordBatch::schema) else { return Ok(true) };
            let target_schema = target.schema();
            let (sources, targets): (Vec<usize>, Vec<usize>) =
                source.fields().iter().enumerate().filter_map(|(i, field)| target_schema.index_of(field.name()).ok().map(|t| (i, t))).unzip();
            if targets.is_empty() {
                return Ok(false);
            }
            let schema = Arc::new(source.project(&sources)?);
            let projected = batches.iter().map(|batch| batch.project(&sources)).collect::<std::result::Result<Vec<_>, _>>()?;
            let query = format!("INSERT INTO {database}.{table} (flush of a Buffer table)");
            let ctx = instance.internal_context(database, &query, Settings::new())?;
            let stream: SendableRecordBatchStream = Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::iter(projected.into_iter().map(Ok))));
            crate::insert::insert_stream(&ctx, &target, &targets, stream).await?;
            Ok(true)
        })
    }

    fn total_rows(&self, database: &str, table: &str) -> Option<u64> {
        self.instance.upgrade()?.catalog().table(database, table).ok()?.engine.total_rows()
    }
}
