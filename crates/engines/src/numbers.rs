//! `numbers(N)`, `numbers(start, N[, step])`, `numbers_mt(...)` and `system.numbers`:
//! one `number UInt64` column generated on demand.
//!
//! Rows are generated lazily batch by batch, so `system.numbers LIMIT 10` touches ten
//! rows and `numbers(1e9)` never exists in memory at once. A bounded range is split into
//! contiguous partitions (one per thread) so aggregations over it run in parallel.

use std::sync::Arc;

use arrow::array::UInt64Array;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{DataFusionError, ScalarValue};
use datafusion::datasource::TableType;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::ExecutionPlan;
use granary_common::{Error, ErrorCode};

/// Rows below which splitting into partitions costs more than it saves.
const MIN_ROWS_PER_PARTITION: u64 = 1 << 16;

fn numbers_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("number", DataType::UInt64, false)]))
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
    pub fn new(start: u64, count: Option<u64>, step: u64) -> Self {
        NumbersTable { schema: numbers_schema(), start, count, step: step.max(1) }
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

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        limit: Option<usize>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let batch_size = state.config().batch_size().max(1) as u64;
        let count = match (self.count, limit) {
            (Some(c), Some(l)) => Some(c.min(l as u64)),
            (None, Some(l)) => Some(l as u64),
            (c, None) => c,
        };
        let partitions: Vec<Arc<dyn PartitionStream>> = match count {
            None => vec![Arc::new(NumbersPartition { schema: self.schema.clone(), start: self.start, count: None, step: self.step, batch_size })],
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
                            start: self.start.wrapping_add(offset.wrapping_mul(self.step)),
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
            let values = UInt64Array::from_iter_values((0..n).map(|k| first.wrapping_add(k.wrapping_mul(step))));
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
        let values: Vec<u64> = args.exprs().iter().map(literal_u64).collect::<Result<_, _>>()?;
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

fn literal_u64(expr: &Expr) -> datafusion::common::Result<u64> {
    let bad = || -> DataFusionError {
        Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Table function 'numbers' requires non-negative integer constant arguments, got {expr}")).into()
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
        Expr::Cast(cast) => literal_u64(&cast.expr),
        Expr::TryCast(cast) => literal_u64(&cast.expr),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[tokio::test]
    async fn rejects_bad_arguments() {
        let ctx = SessionContext::new();
        ctx.register_udtf("numbers", Arc::new(NumbersFunction));
        assert!(ctx.sql("SELECT * FROM numbers(-1)").await.is_err());
        assert!(ctx.sql("SELECT * FROM numbers(1, 2, 3, 4)").await.is_err());
    }
}
