//! Counts what table scans produce into the query's [`QueryProgress`], so read_rows and
//! read_bytes in `X-ClickHouse-Summary` and `system.query_log` are measured, not guessed.
//!
//! The wrapper is transparent to planning (same properties, same order); the progress
//! object travels in the DataFusion session config as an extension, set per query by
//! the interpreter.

use std::fmt;
use std::sync::Arc;

use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::Result;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricBuilder, MetricsSet};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};
use futures::StreamExt;
use granary_common::QueryProgress;

#[derive(Debug)]
pub struct ScanCounterExec {
    input: Arc<dyn ExecutionPlan>,
    /// `output_rows`, so what a scan produced is known after the query too (JSON's
    /// `rows_before_limit_at_least` reads it).
    metrics: ExecutionPlanMetricsSet,
}

impl ScanCounterExec {
    pub fn wrap(input: Arc<dyn ExecutionPlan>) -> Arc<dyn ExecutionPlan> {
        Arc::new(ScanCounterExec { input, metrics: ExecutionPlanMetricsSet::new() })
    }
}

impl DisplayAs for ScanCounterExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "ScanCounterExec")
    }
}

#[allow(deprecated)]
impl ExecutionPlan for ScanCounterExec {
    fn name(&self) -> &str {
        "ScanCounterExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
    }

    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(&self, _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        match children.pop() {
            Some(input) if children.is_empty() => Ok(ScanCounterExec::wrap(input)),
            _ => datafusion::common::internal_err!("ScanCounterExec takes exactly one child"),
        }
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let stream = self.input.execute(partition, context.clone())?;
        let progress = context.session_config().get_extension::<QueryProgress>();
        let output_rows = MetricBuilder::new(&self.metrics).output_rows(partition);
        let schema = stream.schema();
        let counted = stream.inspect(move |batch| {
            if let Ok(batch) = batch {
                output_rows.add(batch.num_rows());
                if let Some(progress) = &progress {
                    progress.add_read(batch.num_rows() as u64, batch.get_array_memory_size() as u64);
                }
            }
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, counted)))
    }
}
