//! `numbers(N)`, `numbers(start, N[, step])`, `numbers_mt(...)`, `system.numbers` and
//! `generateSeries(start, stop[, step])`:
//! one `number UInt64` column (`generate_series` for the last) generated on demand.
//!
//! Rows are generated lazily batch by batch, so `system.numbers LIMIT 10` touches ten
//! rows and `numbers(1e9)` never exists in memory at once. A bounded range is split into
//! contiguous partitions (one per thread) so aggregations over it run in parallel.
//! Like ClickHouse's, the scan reads only the numbers a WHERE on `number` can keep
//! (`numbers(1e9) WHERE number < 10` generates ten rows, and `system.numbers WHERE number
//! < 10` ends): the filter stays above the scan, the range only narrows what is generated.

use std::sync::Arc;

use arrow::array::UInt64Array;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{DataFusionError, ScalarValue};
use datafusion::datasource::TableType;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{BinaryExpr, Expr, Operator, TableProviderFilterPushDown};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::ExecutionPlan;
use granary_common::{Error, ErrorCode};

/// Rows below which splitting into partitions costs more than it saves.
const MIN_ROWS_PER_PARTITION: u64 = 1 << 16;

fn numbers_schema(column: &str) -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(column, DataType::UInt64, false)]))
}

/// The `numbers` family of tables.
#[derive(Debug, Clone)]
pub struct NumbersTable {
    schema: SchemaRef,
    start: u64,
    /// `None` for the endless `system.numbers`.
    count: Option<u64>,
    step: u64,
}

impl NumbersTable {
    /// Whether the numbers only go up: bounded, and not wrapping past `u64::MAX`.
    fn generates_increasing(&self) -> bool {
        self.count.is_some_and(|count| self.start as i128 + (count as i128 - 1) * self.step as i128 <= u64::MAX as i128)
    }

    pub fn new(start: u64, count: Option<u64>, step: u64) -> Self {
        NumbersTable { schema: numbers_schema("number"), start, count, step: step.max(1) }
    }

    /// The same numbers in a column of another name (`generate_series`).
    pub fn with_column_name(self, column: &str) -> Self {
        NumbersTable { schema: numbers_schema(column), ..self }
    }

    /// `system.numbers`.
    pub fn unbounded() -> Self {
        Self::new(0, None, 1)
    }
}

#[async_trait]
impl TableProvider for NumbersTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    fn supports_filters_pushdown(&self, filters: &[&Expr]) -> datafusion::common::Result<Vec<TableProviderFilterPushDown>> {
        // Exact filters are dropped from the plan: a table generating increasing numbers
        // keeps exactly the rows of a range, so `WHERE number < N` costs nothing per row.
        let increasing = self.generates_increasing();
        Ok(filters
            .iter()
            .map(|f| match number_range(f) {
                None => TableProviderFilterPushDown::Unsupported,
                Some(_) if increasing && is_exact_range(f) => TableProviderFilterPushDown::Exact,
                Some(_) => TableProviderFilterPushDown::Inexact,
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let batch_size = state.config().batch_size().max(1) as u64;
        let range = filters.iter().filter_map(number_range).fold(ValueRange::ALL, ValueRange::intersect);
        let narrowed = self.narrowed(range);
        let (start, count) = (narrowed.start, narrowed.count);
        let count = match (count, limit) {
            (Some(c), Some(l)) => Some(c.min(l as u64)),
            (None, Some(l)) => Some(l as u64),
            (c, None) => c,
        };
        let partitions: Vec<Arc<dyn PartitionStream>> = match count {
            None => vec![Arc::new(NumbersPartition { schema: self.schema.clone(), start, count: None, step: self.step, batch_size })],
            Some(count) => {
                let threads = state.config().target_partitions().max(1) as u64;
                let parts = (count / MIN_ROWS_PER_PARTITION).clamp(1, threads);
                let per_part = count.div_ceil(parts);
                (0..parts)
                    .map(|i| {
                        let offset = i * per_part;
                        let n = per_part.min(count.saturating_sub(offset));
                        Arc::new(NumbersPartition {
                            schema: self.schema.clone(),
                            start: start.wrapping_add(offset.wrapping_mul(self.step)),
                            count: Some(n),
                            step: self.step,
                            batch_size,
                        }) as Arc<dyn PartitionStream>
                    })
                    .collect()
            }
        };
        // Declared bounded even when endless: DataFusion refuses to aggregate an unbounded
        // input, while ClickHouse lets `SELECT count() FROM system.numbers` run until
        // max_execution_time stops it. The rows are generated lazily either way.
        let exec = StreamingTableExec::try_new(self.schema.clone(), partitions, projection, vec![], false, limit)?;
        Ok(granary_storage::ScanCounterExec::wrap(Arc::new(exec)))
    }
}

impl NumbersTable {
    /// The part of the table whose numbers lie in `range` (the whole table when its
    /// numbers wrap around past `u64::MAX`, where they are not in increasing order).
    fn narrowed(&self, range: ValueRange) -> NumbersTable {
        let (start, step) = (self.start as i128, self.step as i128);
        let last = self.count.map(|count| start + (count as i128 - 1) * step);
        if range == ValueRange::ALL || last.is_some_and(|last| last > u64::MAX as i128) {
            return self.clone();
        }
        // Indexes k with lo <= start + k * step <= hi.
        let first_index = if range.lo <= start { 0 } else { (range.lo - start + step - 1) / step };
        let end_index = if range.hi < start { 0 } else { (range.hi - start) / step + 1 };
        let end_index = match self.count {
            Some(count) => end_index.min(count as i128),
            // Past u64::MAX the endless table wraps: keep the range below it.
            None => end_index.min((u64::MAX as i128 - start) / step + 1),
        };
        let count = (end_index - first_index).max(0);
        let first_index = first_index.min(end_index).max(0);
        // Only a bounded range gives a bounded table: `system.numbers WHERE number > 5` stays endless.
        let count = if range.hi == ValueRange::ALL.hi && self.count.is_none() { None } else { Some(count as u64) };
        NumbersTable { schema: self.schema.clone(), ..NumbersTable::new((start + first_index * step) as u64, count, self.step) }
    }
}

/// The values of `number` a filter can keep, inclusive bounds (wider than u64 so that
/// `number < 0` is an empty range rather than an overflow).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ValueRange {
    lo: i128,
    hi: i128,
}

impl ValueRange {
    const ALL: ValueRange = ValueRange { lo: 0, hi: u64::MAX as i128 };

    fn intersect(self, other: ValueRange) -> ValueRange {
        ValueRange { lo: self.lo.max(other.lo), hi: self.hi.min(other.hi) }
    }

    fn hull(self, other: ValueRange) -> ValueRange {
        ValueRange { lo: self.lo.min(other.lo), hi: self.hi.max(other.hi) }
    }
}

/// The range of `number` outside which `filter` is never true, when it is a comparison
/// of `number` with constants (and AND / OR / BETWEEN / IN of those); `None` for
/// anything else.
fn number_range(filter: &Expr) -> Option<ValueRange> {
    match filter {
        Expr::BinaryExpr(BinaryExpr { left, op: Operator::And, right }) => match (number_range(left), number_range(right)) {
            (Some(l), Some(r)) => Some(l.intersect(r)),
            (one, None) | (None, one) => one,
        },
        Expr::BinaryExpr(BinaryExpr { left, op: Operator::Or, right }) => Some(number_range(left)?.hull(number_range(right)?)),
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
            let (op, value) = match (is_number_column(left), is_number_column(right)) {
                (true, false) => (*op, integer_literal(right)?),
                (false, true) => (op.swap()?, integer_literal(left)?),
                _ => return None,
            };
            let all = ValueRange::ALL;
            Some(match op {
                Operator::Eq => ValueRange { lo: value, hi: value },
                Operator::Lt => ValueRange { lo: all.lo, hi: value - 1 },
                Operator::LtEq => ValueRange { lo: all.lo, hi: value },
                Operator::Gt => ValueRange { lo: value + 1, hi: all.hi },
                Operator::GtEq => ValueRange { lo: value, hi: all.hi },
                _ => return None,
            })
        }
        Expr::Between(between) if !between.negated && is_number_column(&between.expr) => {
            Some(ValueRange { lo: integer_literal(&between.low)?, hi: integer_literal(&between.high)? })
        }
        Expr::InList(list) if !list.negated && is_number_column(&list.expr) => {
            let mut values = list.list.iter().map(integer_literal);
            let first = values.next()??;
            values.try_fold(ValueRange { lo: first, hi: first }, |range, value| Some(range.hull(ValueRange { lo: value?, hi: value? })))
        }
        _ => None,
    }
}

/// Whether [`number_range`] describes exactly the rows `filter` keeps: comparisons,
/// BETWEEN and one-value IN, and AND of those (OR and IN lists keep a hull).
fn is_exact_range(filter: &Expr) -> bool {
    match filter {
        Expr::BinaryExpr(BinaryExpr { left, op: Operator::And, right }) => is_exact_range(left) && is_exact_range(right),
        Expr::BinaryExpr(BinaryExpr { op: Operator::Eq | Operator::Lt | Operator::LtEq | Operator::Gt | Operator::GtEq, .. })
        | Expr::Between(_) => number_range(filter).is_some(),
        Expr::InList(list) => list.list.len() == 1 && number_range(filter).is_some(),
        _ => false,
    }
}

/// The table has one column, so any column a pushed-down filter names is it.
fn is_number_column(expr: &Expr) -> bool {
    matches!(expr, Expr::Column(_))
}

fn integer_literal(expr: &Expr) -> Option<i128> {
    let Expr::Literal(value, _) = expr else { return None };
    Some(match value {
        ScalarValue::Int8(Some(v)) => *v as i128,
        ScalarValue::Int16(Some(v)) => *v as i128,
        ScalarValue::Int32(Some(v)) => *v as i128,
        ScalarValue::Int64(Some(v)) => *v as i128,
        ScalarValue::UInt8(Some(v)) => *v as i128,
        ScalarValue::UInt16(Some(v)) => *v as i128,
        ScalarValue::UInt32(Some(v)) => *v as i128,
        ScalarValue::UInt64(Some(v)) => *v as i128,
        _ => return None,
    })
}

#[derive(Debug)]
struct NumbersPartition {
    schema: SchemaRef,
    start: u64,
    count: Option<u64>,
    step: u64,
    batch_size: u64,
}

impl PartitionStream for NumbersPartition {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (start, step, batch_size, schema) = (self.start, self.step, self.batch_size, self.schema.clone());
        let total = self.count.unwrap_or(u64::MAX);
        let batches = (0..total.div_ceil(batch_size)).map(move |i| {
            let offset = i * batch_size;
            let n = batch_size.min(total - offset);
            let first = start.wrapping_add(offset.wrapping_mul(step));
            // Step 1 (nearly always) without the multiplication, which vectorizes badly.
            let values = if step == 1 {
                UInt64Array::from_iter_values((0..n).map(|k| first.wrapping_add(k)))
            } else {
                UInt64Array::from_iter_values((0..n).map(|k| first.wrapping_add(k.wrapping_mul(step))))
            };
            RecordBatch::try_new(schema.clone(), vec![Arc::new(values)]).map_err(DataFusionError::from)
        });
        Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), futures::stream::iter(batches)))
    }
}

/// The `numbers` / `numbers_mt` table function.
#[derive(Debug, Default)]
pub struct NumbersFunction;

impl TableFunctionImpl for NumbersFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        let values: Vec<u64> = args.exprs().iter().map(|expr| literal_u64("numbers", expr)).collect::<Result<_, _>>()?;
        let table = match values.as_slice() {
            [count] => NumbersTable::new(0, Some(*count), 1),
            [start, count] => NumbersTable::new(*start, Some(*count), 1),
            [start, count, step] => {
                if *step == 0 {
                    return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Table function 'numbers' requires step to be a positive number").into());
                }
                NumbersTable::new(*start, Some(count.div_ceil(*step)), *step)
            }
            _ => {
                return Err(Error::new(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    "Table function 'numbers' requires 'length' or 'offset, length' or 'offset, length, step'",
                )
                .into())
            }
        };
        Ok(Arc::new(table))
    }
}

/// `generateSeries(start, stop[, step])` (alias `generate_series`): the numbers from
/// `start` to `stop` inclusive, in a column named `generate_series`.
#[derive(Debug, Default)]
pub struct GenerateSeriesFunction;

impl TableFunctionImpl for GenerateSeriesFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        let values: Vec<u64> = args.exprs().iter().map(|expr| literal_u64("generateSeries", expr)).collect::<Result<_, _>>()?;
        let (start, stop, step) = match values.as_slice() {
            [start, stop] => (*start, *stop, 1),
            [start, stop, step] => (*start, *stop, *step),
            _ => {
                return Err(Error::new(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    "Table function 'generateSeries' requires 'start, stop' or 'start, stop, step'",
                )
                .into())
            }
        };
        if step == 0 {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Table function 'generateSeries' requires step to be a non-zero number").into());
        }
        let count = if stop < start { 0 } else { (stop - start) / step + 1 };
        Ok(Arc::new(NumbersTable::new(start, Some(count), step).with_column_name("generate_series")))
    }
}

fn literal_u64(function: &str, expr: &Expr) -> datafusion::common::Result<u64> {
    let bad = || -> DataFusionError {
        Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Table function '{function}' requires non-negative integer constant arguments, got {expr}")).into()
    };
    match expr {
        Expr::Literal(value, _) => match value {
            ScalarValue::Int8(Some(v)) => u64::try_from(*v).map_err(|_| bad()),
            ScalarValue::Int16(Some(v)) => u64::try_from(*v).map_err(|_| bad()),
            ScalarValue::Int32(Some(v)) => u64::try_from(*v).map_err(|_| bad()),
            ScalarValue::Int64(Some(v)) => u64::try_from(*v).map_err(|_| bad()),
            ScalarValue::UInt8(Some(v)) => Ok(*v as u64),
            ScalarValue::UInt16(Some(v)) => Ok(*v as u64),
            ScalarValue::UInt32(Some(v)) => Ok(*v as u64),
            ScalarValue::UInt64(Some(v)) => Ok(*v),
            ScalarValue::Float64(Some(v)) if *v >= 0.0 && v.fract() == 0.0 => Ok(*v as u64),
            _ => Err(bad()),
        },
        Expr::Cast(cast) => literal_u64(function, &cast.expr),
        Expr::TryCast(cast) => literal_u64(function, &cast.expr),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::physical_plan::ExecutionPlanProperties;
    use datafusion::prelude::SessionContext;

    async fn run(sql: &str) -> Vec<RecordBatch> {
        let ctx = SessionContext::new();
        ctx.register_udtf("numbers", Arc::new(NumbersFunction));
        ctx.register_table("sys_numbers", Arc::new(NumbersTable::unbounded())).unwrap();
        ctx.sql(sql).await.unwrap().collect().await.unwrap()
    }

    fn single_u64(batches: &[RecordBatch]) -> u64 {
        let col = batches[0].column(0);
        if let Some(a) = col.as_any().downcast_ref::<UInt64Array>() {
            a.value(0)
        } else {
            col.as_any().downcast_ref::<arrow::array::Int64Array>().unwrap().value(0) as u64
        }
    }

    #[tokio::test]
    async fn bounded_forms() {
        assert_eq!(single_u64(&run("SELECT count(*) FROM numbers(1000000)").await), 1_000_000);
        assert_eq!(single_u64(&run("SELECT sum(number) FROM numbers(1000000)").await), 499_999_500_000);
        assert_eq!(single_u64(&run("SELECT min(number) FROM numbers(10, 5)").await), 10);
        assert_eq!(single_u64(&run("SELECT max(number) FROM numbers(10, 5)").await), 14);
        assert_eq!(single_u64(&run("SELECT count(*) FROM numbers(0, 10, 3)").await), 4);
    }

    #[tokio::test]
    async fn unbounded_with_limit() {
        let batches = run("SELECT number FROM sys_numbers LIMIT 3 OFFSET 5").await;
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        assert_eq!(rows, 3);
        assert_eq!(single_u64(&batches), 5);
    }

    fn rows(batches: &[RecordBatch]) -> Vec<u64> {
        batches.iter().flat_map(|b| b.column(0).as_any().downcast_ref::<UInt64Array>().unwrap().values().to_vec()).collect()
    }

    #[tokio::test]
    async fn filters_narrow_the_generated_range() {
        let ctx = SessionContext::new();
        ctx.register_udtf("numbers", Arc::new(NumbersFunction));
        for (sql, generated) in [
            ("SELECT number FROM numbers(1000000) WHERE number < 10", 10),
            ("SELECT number FROM numbers(1000000) WHERE number >= 999990 AND number < 2000000", 10),
            ("SELECT number FROM numbers(1000000) WHERE number BETWEEN 5 AND 9 OR number IN (3, 20)", 18),
            ("SELECT number FROM numbers(100, 1000000, 7) WHERE 30 > number", 0),
            ("SELECT number FROM numbers(100, 1000000, 7) WHERE number > 130 AND number <= 170", 6),
            ("SELECT number FROM numbers(1000000) WHERE number < 10 OR number % 2 = 0", 1000000),
        ] {
            let plan = ctx.sql(sql).await.unwrap().create_physical_plan().await.unwrap();
            let leaf = std::iter::successors(Some(plan), |p| p.children().first().map(|c| (*c).clone())).last().unwrap();
            let task = ctx.task_ctx();
            let mut scanned = 0;
            for partition in 0..leaf.output_partitioning().partition_count() {
                let batches = datafusion::physical_plan::common::collect(leaf.execute(partition, task.clone()).unwrap()).await.unwrap();
                scanned += batches.iter().map(RecordBatch::num_rows).sum::<usize>();
            }
            assert_eq!(scanned, generated, "{sql}");
        }
        let kept = rows(&run("SELECT number FROM numbers(100, 1000000, 7) WHERE number > 130 AND number <= 170 ORDER BY number").await);
        assert_eq!(kept, vec![135, 142, 149, 156, 163, 170]);
    }

    #[tokio::test]
    async fn exact_ranges_leave_no_filter_above_the_scan() {
        let ctx = SessionContext::new();
        ctx.register_udtf("numbers", Arc::new(NumbersFunction));
        for (sql, filtered, expected) in [
            ("SELECT number FROM numbers(100) WHERE number < 3", false, vec![0, 1, 2]),
            ("SELECT number FROM numbers(100) WHERE number >= 97 AND 99 >= number", false, vec![97, 98, 99]),
            ("SELECT number FROM numbers(10, 100, 5) WHERE number BETWEEN 14 AND 26", false, vec![15, 20, 25]),
            ("SELECT number FROM numbers(100) WHERE number IN (42)", false, vec![42]),
            ("SELECT number FROM numbers(100) WHERE number IN (1, 3)", true, vec![1, 3]),
            ("SELECT number FROM numbers(100) WHERE number = 1 OR number = 4", true, vec![1, 4]),
            ("SELECT number FROM numbers(100) WHERE number < 3 AND number % 2 = 0", true, vec![0, 2]),
            // Wrapping past u64::MAX: not in order, so the filter stays.
            ("SELECT number FROM numbers(18446744073709551614, 4) WHERE number < 2", true, vec![0, 1]),
        ] {
            let df = ctx.sql(sql).await.unwrap();
            let plan = df.clone().create_physical_plan().await.unwrap();
            let text = datafusion::physical_plan::displayable(plan.as_ref()).indent(true).to_string();
            assert_eq!(text.contains("FilterExec"), filtered, "{sql}: {text}");
            let mut kept = rows(&df.collect().await.unwrap());
            kept.sort_unstable();
            assert_eq!(kept, expected, "{sql}");
        }
    }

    #[test]
    fn narrowing_at_the_ends_of_u64() {
        let range = |lo: u64, hi: u64| ValueRange { lo: lo as i128, hi: hi as i128 };
        let bounds = |t: NumbersTable| (t.start, t.count);
        let endless = NumbersTable::unbounded();
        assert_eq!(bounds(endless.narrowed(range(1000, 1004))), (1000, Some(5)));
        assert_eq!(bounds(endless.narrowed(range(u64::MAX - 5, u64::MAX - 1))), (u64::MAX - 5, Some(5)));
        assert_eq!(bounds(endless.narrowed(range(7, u64::MAX))), (7, None), "a lower bound alone stays endless");
        // Numbers that wrap past u64::MAX are not in order: not narrowed.
        let wrapping = NumbersTable::new(u64::MAX - 5, Some(100), 1);
        assert_eq!(bounds(wrapping.narrowed(range(0, 3))), (u64::MAX - 5, Some(100)));
        let stepped = NumbersTable::new(u64::MAX - 20, Some(3), 10);
        assert_eq!(bounds(stepped.narrowed(range(u64::MAX - 15, u64::MAX))), (u64::MAX - 10, Some(2)));
        assert_eq!(bounds(stepped.narrowed(ValueRange { lo: 0, hi: -1 })), (u64::MAX - 20, Some(0)));
    }

    #[tokio::test]
    async fn rejects_bad_arguments() {
        let ctx = SessionContext::new();
        ctx.register_udtf("numbers", Arc::new(NumbersFunction));
        assert!(ctx.sql("SELECT * FROM numbers(-1)").await.is_err());
        assert!(ctx.sql("SELECT * FROM numbers(1, 2, 3, 4)").await.is_err());
    }
}
