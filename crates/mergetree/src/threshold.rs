//! Skipping parts and granules by a TopK's running threshold.
//!
//! `ORDER BY t LIMIT n` keeps the n best rows seen so far; DataFusion's TopK publishes
//! "rows must be before the current n-th" as a dynamic filter (`t < threshold`, with
//! ties and NULLs spelled out), which the scan already evaluates on each block (see
//! `reader::ScanTask::read_filtered`). That still reads the filter column of every
//! granule. Here the same filter, as it stands at each moment, is also checked against
//! statistics, as the query's own filters are at planning time (`select`):
//!
//! * a part whose min/max of `t` (partition-key columns, the first sorting-key column)
//!   cannot hold a row before the threshold is skipped whole;
//! * granules whose key range cannot are skipped (`t` a sorting-key element);
//! * once the threshold is set, the rest of a scan's parts are read in the order of `t`
//!   (by lower bound for `<`, by upper bound, descending, for `>`), so the threshold
//!   tightens fast and most later parts are skipped: ClickHouse reaches the same with
//!   `__topKFilter` and reading in order of the sorting key.

use std::sync::Arc;

use arrow::array::{ArrayRef, UInt64Array};
use arrow::compute::{lexsort_to_indices, SortColumn, SortOptions};
use arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{BinaryExpr, Column, IsNullExpr, Literal};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::{snapshot_generation, snapshot_physical_expr};
use granary_common::Result;

use crate::keys::TableKeys;
use crate::monotonic::Pruning;
use crate::part::Part;
use crate::reader::GranuleRange;
use crate::select::{part_column_bounds, PartStatistics};

/// The dynamic filters of one scan and what they allow to skip, for one output
/// partition (each reads its own ranges).
pub(crate) struct ThresholdSkipping {
    /// The filters, over the scan's output columns.
    filters: Vec<Arc<dyn PhysicalExpr>>,
    /// Table column of each scan output column.
    columns: Vec<usize>,
    table_schema: SchemaRef,
    keys: Arc<TableKeys>,
    /// Generation of the filters `pruning` was planned from.
    generation: Option<u64>,
    pruning: Option<Pruning>,
    /// The order the threshold asks for, once known: (table column, descending).
    order: Option<(usize, bool)>,
    /// The current part's statistics and its granule answers under `granules_generation`.
    part: Option<(Arc<Part>, PartStatistics)>,
    granules: Vec<bool>,
    granules_generation: Option<u64>,
}

impl ThresholdSkipping {
    pub(crate) fn new(filters: Vec<Arc<dyn PhysicalExpr>>, columns: Vec<usize>, table_schema: SchemaRef, keys: Arc<TableKeys>) -> Self {
        ThresholdSkipping {
            filters,
            columns,
            table_schema,
            keys,
            generation: None,
            pruning: None,
            order: None,
            part: None,
            granules: Vec::new(),
            granules_generation: None,
        }
    }

    /// Plans pruning for the filters as they stand now, if they changed since.
    fn refresh(&mut self) {
        let generation = self.filters.iter().fold(0u64, |g, f| g.wrapping_add(snapshot_generation(f)));
        if self.generation == Some(generation) {
            return;
        }
        self.generation = Some(generation);
        let filter = self.current_filter();
        if self.order.is_none() {
            self.order = filter.as_ref().and_then(threshold_order);
        }
        // Before the TopK holds its rows the filter is `true`: nothing to prune by.
        self.pruning = filter.and_then(|f| Pruning::of_physical(&self.table_schema, &self.keys, f)).filter(|p| !p.predicate.always_true());
    }

    /// The conjunction of the filters' current values, over the table's columns.
    fn current_filter(&self) -> Option<Arc<dyn PhysicalExpr>> {
        let mut conjunction: Option<Arc<dyn PhysicalExpr>> = None;
        for filter in &self.filters {
            let current = snapshot_physical_expr(Arc::clone(filter)).ok()?;
            let over_table = current
                .transform(|e| {
                    if let Some(c) = e.downcast_ref::<Column>() {
                        let table_column = self.columns.get(c.index()).copied().unwrap_or(usize::MAX);
                        let name = self.table_schema.fields().get(table_column).map(|f| f.name().clone());
                        return match name {
                            Some(name) => Ok(Transformed::yes(Arc::new(Column::new(&name, table_column)) as Arc<dyn PhysicalExpr>)),
                            None => datafusion::common::internal_err!("dynamic filter column {} outside the scan", c.index()),
                        };
                    }
                    Ok(Transformed::no(e))
                })
                .ok()?
                .data;
            conjunction = Some(match conjunction {
                None => over_table,
                Some(before) => Arc::new(BinaryExpr::new(before, Operator::And, over_table)),
            });
        }
        conjunction
    }

    /// Reorders `ranges` (the scan's ranges not read yet) by the threshold's column, once
    /// the threshold is known; later calls keep the order.
    pub(crate) fn order_ranges(&mut self, ranges: &mut [GranuleRange], already_ordered: &mut bool) {
        self.refresh();
        let Some((column, descending)) = self.order.filter(|_| !*already_ordered) else {
            return;
        };
        *already_ordered = true;
        if ranges.len() < 2 {
            return;
        }
        let parts: Vec<Arc<Part>> = ranges.iter().map(|r| r.part.clone()).collect();
        let Some(bounds) = part_column_bounds(&parts, &self.keys, column, descending) else {
            return;
        };
        // Ranges of one part, and parts with equal bounds, keep their order.
        let position: ArrayRef = Arc::new(UInt64Array::from_iter_values(0..ranges.len() as u64));
        let sort = [
            SortColumn { values: bounds, options: Some(SortOptions { descending, nulls_first: false }) },
            SortColumn { values: position, options: None },
        ];
        let Ok(order) = lexsort_to_indices(&sort, None) else {
            return;
        };
        let sorted: Vec<GranuleRange> = order.values().iter().map(|&i| ranges[i as usize].clone()).collect();
        ranges.clone_from_slice(&sorted);
    }

    /// Whether `part` may still hold a row before the threshold.
    pub(crate) fn part_may_match(&mut self, part: &Arc<Part>) -> Result<bool> {
        self.refresh();
        let Some(pruning) = &self.pruning else {
            return Ok(true);
        };
        if !self.part.as_ref().is_some_and(|(p, _)| Arc::ptr_eq(p, part)) {
            self.part = Some((part.clone(), PartStatistics::new(part.clone(), &self.keys)?));
            self.granules_generation = None;
        }
        let (_, stats) = self.part.as_ref().expect("set above");
        stats.part_may_match(pruning, &self.table_schema, &self.keys)
    }

    /// The first granule at or after `from` (and before `end`) of `part` that may hold a
    /// row before the threshold, and the end of the run of such granules it starts.
    pub(crate) fn next_granules(&mut self, part: &Arc<Part>, from: usize, end: usize) -> Result<Option<(usize, usize)>> {
        if !self.part_may_match(part)? {
            return Ok(None);
        }
        let Some(pruning) = &self.pruning else {
            return Ok(Some((from, end)));
        };
        if self.granules_generation != self.generation {
            let (_, stats) = self.part.as_ref().expect("set by part_may_match");
            self.granules = stats.granules_may_match(pruning, &self.table_schema, &self.keys)?;
            self.granules_generation = self.generation;
        }
        let may = |g: usize| self.granules.get(g).copied().unwrap_or(true);
        let Some(start) = (from..end).find(|&g| may(g)) else {
            return Ok(None);
        };
        let run_end = (start..end).find(|&g| !may(g)).unwrap_or(end);
        Ok(Some((start, run_end)))
    }
}

/// The sorting a TopK threshold stands for: the comparison of its first ORDER BY key,
/// `column < literal` (ascending) or `column > literal` (descending). DataFusion spells
/// the threshold `first OR (first_equal AND second) OR ...`, where `first` may be
/// `column IS NULL OR column < literal` (NULLS FIRST).
fn threshold_order(filter: &Arc<dyn PhysicalExpr>) -> Option<(usize, bool)> {
    let binary = filter.downcast_ref::<BinaryExpr>()?;
    match binary.op() {
        Operator::And => threshold_order(binary.left()),
        Operator::Or if binary.left().downcast_ref::<IsNullExpr>().is_some() => threshold_order(binary.right()),
        Operator::Or => threshold_order(binary.left()),
        Operator::Lt | Operator::LtEq | Operator::Gt | Operator::GtEq => {
            let column = binary.left().downcast_ref::<Column>()?;
            binary.right().downcast_ref::<Literal>()?;
            Some((column.index(), matches!(binary.op(), Operator::Gt | Operator::GtEq)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::common::ScalarValue;
    use datafusion::physical_expr::expressions::is_null;

    fn column(index: usize) -> Arc<dyn PhysicalExpr> {
        Arc::new(Column::new(&format!("c{index}"), index))
    }

    fn binary(left: Arc<dyn PhysicalExpr>, op: Operator, right: Arc<dyn PhysicalExpr>) -> Arc<dyn PhysicalExpr> {
        Arc::new(BinaryExpr::new(left, op, right))
    }

    fn literal() -> Arc<dyn PhysicalExpr> {
        Arc::new(Literal::new(ScalarValue::UInt64(Some(7))))
    }

    #[test]
    fn threshold_order_is_that_of_the_first_key() {
        assert_eq!(threshold_order(&binary(column(2), Operator::Lt, literal())), Some((2, false)));
        assert_eq!(threshold_order(&binary(column(2), Operator::Gt, literal())), Some((2, true)));
        // NULLS FIRST: `c IS NULL OR c < t`.
        let nulls_first = binary(is_null(column(3)).unwrap(), Operator::Or, binary(column(3), Operator::Lt, literal()));
        assert_eq!(threshold_order(&nulls_first), Some((3, false)));
        // ORDER BY c1 DESC, c0: `c1 > t1 OR (c1 = t1 AND c0 < t0)`.
        let second = binary(binary(column(1), Operator::Eq, literal()), Operator::And, binary(column(0), Operator::Lt, literal()));
        assert_eq!(threshold_order(&binary(binary(column(1), Operator::Gt, literal()), Operator::Or, second.clone())), Some((1, true)));
        // A first key that is an expression gives no order, not the second key's.
        let first = binary(binary(column(1), Operator::Plus, literal()), Operator::Gt, literal());
        assert_eq!(threshold_order(&binary(first, Operator::Or, second)), None);
        let always: Arc<dyn PhysicalExpr> = Arc::new(Literal::new(ScalarValue::Boolean(Some(true))));
        assert_eq!(threshold_order(&always), None);
    }
}
