//! `LIMIT n` without ORDER BY over one ordered stream (`system.numbers`, `numbers()`, a
//! single part) gives its first n rows, as ClickHouse does: DataFusion spreads such a
//! stream round-robin over partitions for the filter or projection below the limit, and
//! the limit then takes whichever partition answers first (`WHERE number > 5 LIMIT 2`
//! gave 65409, 65410 about one time in three). This rule removes that round-robin
//! repartition when only row-wise operators stand between it and a limit, and below a
//! projection calling `runningAccumulate`, which must see its rows in stream order.
//!
//! [`FilterBelowLimitKeepsBlocks`]: a LIMIT pushed into the filter under it (DataFusion's
//! `FilterExec: fetch=n`) is taken back out when the limit above still applies it, so
//! the filter passes whole blocks and its row count is ClickHouse's
//! `rows_before_limit_at_least` (the rows of the blocks that passed WHERE and reached the
//! LIMIT: 34 of 100 for `WHERE x % 3 = 0 LIMIT 2`, not 2). The limit above stops pulling
//! once it has its rows, so no more blocks are read than before.

//!
//! [`KeepNestedLimits`]: DataFusion's limit pushdown folds `(... LIMIT 5) LIMIT 3` into
//! one LIMIT 3, and ClickHouse's `rows_before_limit_at_least` is then lost: it counts the
//! rows that reached the outer LIMIT, the inner one's 5. The outer LIMIT of such a pair
//! is left where it is (the inner one is still pushed down as usual).
//!
//! [`KeepNestedOffsetLimits`]: the same for an inner LIMIT with an OFFSET, which the
//! logical plan keeps as its own limit but DataFusion's physical `LimitPushdown` merges
//! with the outer one (`(... LIMIT 5 OFFSET 3) LIMIT 2` ran as one `skip=3 fetch=2`, and
//! the rows before the limit were the 8 read, not the inner LIMIT's 5).

use std::sync::Arc;

use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::error::Result;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::limit::{GlobalLimitExec, LocalLimitExec};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::execution_plan::replace_children_if_necessary;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning, PlanProperties};

#[derive(Debug)]
pub(crate) struct FirstRowsInStreamOrder;

impl PhysicalOptimizerRule for FirstRowsInStreamOrder {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        let rewritten = plan.transform_down(|node| {
            let operator: &dyn std::any::Any = node.as_ref();
            let limits = operator.is::<GlobalLimitExec>() || operator.is::<CoalescePartitionsExec>() && node.fetch().is_some();
            if !limits && !calls_running_accumulate(&node) {
                return Ok(Transformed::no(node));
            }
            match without_round_robin(&node)? {
                Some(replaced) => Ok(Transformed::yes(replaced)),
                None => Ok(Transformed::no(node)),
            }
        })?;
        Ok(rewritten.data)
    }

    fn name(&self) -> &str {
        "first_rows_in_stream_order"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// A projection calling `runningAccumulate`, which folds rows in the order they come
/// (ClickHouse: over a sorted subquery); spreading its input over partitions would
/// interleave them.
fn calls_running_accumulate(node: &Arc<dyn ExecutionPlan>) -> bool {
    fn calls(expr: &Arc<dyn datafusion::physical_expr::PhysicalExpr>) -> bool {
        let any: &dyn std::any::Any = expr.as_ref();
        any.downcast_ref::<datafusion::physical_expr::ScalarFunctionExpr>().is_some_and(|f| f.name() == "runningAccumulate")
            || expr.children().into_iter().any(calls)
    }
    let operator: &dyn std::any::Any = node.as_ref();
    operator.downcast_ref::<ProjectionExec>().is_some_and(|p| p.expr().iter().any(|e| calls(&e.expr)))
}

/// `node` rebuilt without the round-robin repartition of a single stream found below it
/// through row-wise operators; None when there is none.
fn without_round_robin(node: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let children = node.children();
    let [child] = children.as_slice() else { return Ok(None) };
    let operator: &dyn std::any::Any = child.as_ref();
    if let Some(repartition) = operator.downcast_ref::<RepartitionExec>() {
        let single_input = repartition.input().output_partitioning().partition_count() == 1;
        if single_input && matches!(repartition.partitioning(), Partitioning::RoundRobinBatch(_)) && !repartition.preserve_order() {
            return Ok(Some(replace_children_if_necessary(Arc::clone(node), vec![Arc::clone(repartition.input())])?));
        }
        return Ok(None);
    }
    let row_wise = operator.is::<FilterExec>() || operator.is::<ProjectionExec>() || operator.is::<LocalLimitExec>();
    if !row_wise {
        return Ok(None);
    }
    match without_round_robin(child)? {
        Some(new_child) => Ok(Some(replace_children_if_necessary(Arc::clone(node), vec![new_child])?)),
        None => Ok(None),
    }
}

#[derive(Debug)]
pub(crate) struct FilterBelowLimitKeepsBlocks;

impl PhysicalOptimizerRule for FilterBelowLimitKeepsBlocks {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        let rewritten = plan.transform_down(|node| {
            let operator: &dyn std::any::Any = node.as_ref();
            let applies_limit = (operator.is::<GlobalLimitExec>() || operator.is::<CoalescePartitionsExec>() || operator.is::<LocalLimitExec>()) && node.fetch().is_some();
            if !applies_limit {
                return Ok(Transformed::no(node));
            }
            let children = node.children();
            let [child] = children.as_slice() else { return Ok(Transformed::no(node)) };
            let filter: &dyn std::any::Any = child.as_ref();
            if !filter.is::<FilterExec>() || child.fetch().is_none() {
                return Ok(Transformed::no(node));
            }
            let Some(unlimited) = child.with_fetch(None) else { return Ok(Transformed::no(node)) };
            Ok(Transformed::yes(replace_children_if_necessary(Arc::clone(&node), vec![unlimited])?))
        })?;
        Ok(rewritten.data)
    }

    fn name(&self) -> &str {
        "filter_below_limit_keeps_blocks"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// An `ORDER BY ... LIMIT n` (DataFusion's TopK) over a filter that a MergeTree scan
/// already applies as its PREWHERE: the filter is dropped. It only evaluated the same
/// conditions again, and it gathered the rows it passed into blocks of `max_block_size`
/// rows, so with a selective WHERE the TopK saw its first rows only after hundreds of
/// scanned blocks, and its threshold (see `granary-mergetree::threshold`) came too late
/// to skip anything.
#[derive(Debug)]
pub(crate) struct TopKOverScanFilter;

impl PhysicalOptimizerRule for TopKOverScanFilter {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        let rewritten = plan.transform_down(|node| {
            let operator: &dyn std::any::Any = node.as_ref();
            if !operator.is::<SortExec>() || node.fetch().is_none() {
                return Ok(Transformed::no(node));
            }
            match without_scan_filter(&node)? {
                Some(replaced) => Ok(Transformed::yes(replaced)),
                None => Ok(Transformed::no(node)),
            }
        })?;
        Ok(rewritten.data)
    }

    fn name(&self) -> &str {
        "topk_over_scan_filter"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// `node` rebuilt without a filter found below it through projections whose conditions
/// the MergeTree scan under it applies; None when there is none.
fn without_scan_filter(node: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let children = node.children();
    let [child] = children.as_slice() else { return Ok(None) };
    let operator: &dyn std::any::Any = child.as_ref();
    if let Some(filter) = operator.downcast_ref::<FilterExec>() {
        let input: &dyn std::any::Any = filter.input().as_ref();
        let applied = filter.projection().is_none()
            && filter.fetch().is_none()
            && input.downcast_ref::<granary_mergetree::reader::MergeTreeExec>().is_some_and(|scan| scan.applies_filter(filter.predicate()));
        if !applied {
            return Ok(None);
        }
        return Ok(Some(replace_children_if_necessary(Arc::clone(node), vec![Arc::clone(filter.input())])?));
    }
    if !operator.is::<ProjectionExec>() {
        return Ok(None);
    }
    match without_scan_filter(child)? {
        Some(new_child) => Ok(Some(replace_children_if_necessary(Arc::clone(node), vec![new_child])?)),
        None => Ok(None),
    }
}

/// DataFusion's `PushDownLimit`, except on a LIMIT whose input is another LIMIT seen
/// through projections and subquery aliases (see the module docs).
#[derive(Debug)]
pub(crate) struct KeepNestedLimits(pub(crate) Arc<dyn datafusion::optimizer::OptimizerRule + Send + Sync>);

impl KeepNestedLimits {
    /// The session's optimizer rules with `push_down_limit` wrapped.
    pub(crate) fn rules() -> Vec<Arc<dyn datafusion::optimizer::OptimizerRule + Send + Sync>> {
        datafusion::optimizer::Optimizer::new()
            .rules
            .into_iter()
            .map(|rule| {
                if rule.name() == "push_down_limit" {
                    Arc::new(KeepNestedLimits(rule)) as Arc<dyn datafusion::optimizer::OptimizerRule + Send + Sync>
                } else {
                    rule
                }
            })
            .collect()
    }
}

fn limit_below(plan: &datafusion::logical_expr::LogicalPlan) -> bool {
    use datafusion::logical_expr::LogicalPlan;
    match plan {
        LogicalPlan::Limit(_) => true,
        // `ORDER BY ... LIMIT n` already folded into the sort.
        LogicalPlan::Sort(sort) => sort.fetch.is_some(),
        LogicalPlan::Projection(p) => limit_below(&p.input),
        LogicalPlan::SubqueryAlias(s) => limit_below(&s.input),
        _ => false,
    }
}

impl datafusion::optimizer::OptimizerRule for KeepNestedLimits {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn apply_order(&self) -> Option<datafusion::optimizer::ApplyOrder> {
        self.0.apply_order()
    }

    fn rewrite(
        &self,
        plan: datafusion::logical_expr::LogicalPlan,
        config: &dyn datafusion::optimizer::OptimizerConfig,
    ) -> Result<Transformed<datafusion::logical_expr::LogicalPlan>> {
        if let datafusion::logical_expr::LogicalPlan::Limit(limit) = &plan {
            if limit_below(&limit.input) {
                return Ok(Transformed::no(plan));
            }
        }
        self.0.rewrite(plan, config)
    }
}

/// DataFusion's physical `LimitPushdown`, run with each LIMIT that has an OFFSET and sits
/// (through projections) under another LIMIT optimized on its own and hidden from the
/// outer one, so the two are not merged (see the module docs).
#[derive(Debug)]
pub(crate) struct KeepNestedOffsetLimits(pub(crate) Arc<dyn PhysicalOptimizerRule + Send + Sync>);

impl KeepNestedOffsetLimits {
    /// DataFusion's physical optimizer rules with `LimitPushdown` wrapped.
    pub(crate) fn rules() -> Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>> {
        datafusion::physical_optimizer::optimizer::PhysicalOptimizer::new()
            .rules
            .into_iter()
            .map(|rule| {
                if rule.name() == "LimitPushdown" {
                    Arc::new(KeepNestedOffsetLimits(rule)) as Arc<dyn PhysicalOptimizerRule + Send + Sync>
                } else {
                    rule
                }
            })
            .collect()
    }

    fn protect(&self, node: &Arc<dyn ExecutionPlan>, under_limit: bool, config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        let operator: &dyn std::any::Any = node.as_ref();
        if let Some(limit) = operator.downcast_ref::<GlobalLimitExec>() {
            if under_limit && limit.skip() > 0 {
                return Ok(Arc::new(LimitBarrier::new(self.0.optimize(Arc::clone(node), config)?)));
            }
        }
        let is_limit = operator.is::<GlobalLimitExec>() || operator.is::<LocalLimitExec>();
        let passes_rows = operator.is::<ProjectionExec>() || operator.is::<CoalescePartitionsExec>() && node.fetch().is_none();
        let under = is_limit || under_limit && passes_rows;
        let children = node.children();
        if children.is_empty() {
            return Ok(Arc::clone(node));
        }
        let new_children = children.into_iter().map(|c| self.protect(c, under, config)).collect::<Result<Vec<_>>>()?;
        replace_children_if_necessary(Arc::clone(node), new_children)
    }
}

impl PhysicalOptimizerRule for KeepNestedOffsetLimits {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        let protected = self.protect(&plan, false, config)?;
        let optimized = self.0.optimize(protected, config)?;
        let unwrapped = optimized.transform_up(|node| {
            let operator: &dyn std::any::Any = node.as_ref();
            match operator.downcast_ref::<LimitBarrier>() {
                Some(barrier) => Ok(Transformed::yes(Arc::clone(&barrier.input))),
                None => Ok(Transformed::no(node)),
            }
        })?;
        Ok(unwrapped.data)
    }

    fn name(&self) -> &str {
        self.0.name()
    }

    fn schema_check(&self) -> bool {
        self.0.schema_check()
    }
}

/// Hides an already optimized inner LIMIT from `LimitPushdown` (an operator that takes no
/// limit); only exists during [`KeepNestedOffsetLimits::optimize`], never executed.
#[derive(Debug)]
struct LimitBarrier {
    input: Arc<dyn ExecutionPlan>,
}

impl LimitBarrier {
    fn new(input: Arc<dyn ExecutionPlan>) -> Self {
        LimitBarrier { input }
    }
}

impl DisplayAs for LimitBarrier {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "LimitBarrier")
    }
}

#[allow(deprecated)]
impl ExecutionPlan for LimitBarrier {
    fn name(&self) -> &str {
        "LimitBarrier"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn datafusion::physical_expr::PhysicalExpr>) -> Result<datafusion::common::tree_node::TreeNodeRecursion>,
    ) -> Result<datafusion::common::tree_node::TreeNodeRecursion> {
        Ok(datafusion::common::tree_node::TreeNodeRecursion::Continue)
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        match children.pop() {
            Some(input) if children.is_empty() => Ok(Arc::new(LimitBarrier::new(input))),
            _ => datafusion::common::internal_err!("LimitBarrier takes exactly one child"),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<datafusion::execution::TaskContext>,
    ) -> Result<datafusion::physical_plan::SendableRecordBatchStream> {
        self.input.execute(partition, context)
    }
}
