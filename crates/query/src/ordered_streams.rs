//! Single ordered streams stay whole.
//!
//! DataFusion spreads a source of one partition over every thread (round-robin) so that
//! filters above it run in parallel. For a source that declares an order, such as
//! `system.numbers`, that makes `WHERE ... LIMIT n` return whichever rows a thread
//! finished first (`number > 5 LIMIT 2` gave 65409, 65410), where ClickHouse reads such
//! a source in one thread and returns the first ones (6, 7). This rule, run after
//! DataFusion's, takes that round-robin away again; the source was one stream anyway.

use std::sync::Arc;

use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties, Partitioning};

#[derive(Debug, Default)]
pub(crate) struct KeepOrderedStreamsWhole;

impl PhysicalOptimizerRule for KeepOrderedStreamsWhole {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            let Some(repartition) = node.downcast_ref::<RepartitionExec>() else { return Ok(Transformed::no(node)) };
            let input = repartition.input();
            let ordered_single_stream = matches!(repartition.partitioning(), Partitioning::RoundRobinBatch(_))
                && !repartition.preserve_order()
                && input.output_partitioning().partition_count() == 1
                && input.output_ordering().is_some();
            Ok(if ordered_single_stream { Transformed::yes(Arc::clone(input)) } else { Transformed::no(node) })
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "keep_ordered_streams_whole"
    }

    fn schema_check(&self) -> bool {
        true
    }
}
