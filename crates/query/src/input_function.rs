//! `input(structure)`: the data sent with `INSERT INTO t SELECT ... FROM input('a T, ...')
//! FORMAT X`, read as a table of that structure, so the SELECT converts it on its way into
//! `t` with no temporary table.
//!
//! The INSERT hands the body over through a task-local slot around its planning and
//! execution ([`with_input`]); the table function finds it there when the SELECT is
//! planned (as often as planning calls it), and the scan takes the body when it runs,
//! once. Outside such an INSERT there is no slot, and `input()` is an error.

use std::sync::Arc;

use arrow::datatypes::{Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::datasource::TableType;
use datafusion::error::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::ExecutionPlan;
use futures::StreamExt;
use granary_common::{Error, ErrorCode};
use granary_formats::{create_input_format, FormatSettings};
use granary_io::function::{parse_structure, string_arg};
use parking_lot::Mutex;

use crate::ByteStream;

/// The data of the INSERT being run: its format and body.
pub(crate) struct PendingInput {
    pub format: String,
    pub format_settings: FormatSettings,
    pub body: Option<ByteStream>,
}

type Slot = Arc<Mutex<Option<PendingInput>>>;

tokio::task_local! {
    static INPUT: Slot;
}

/// Runs `future` (planning and running an INSERT's SELECT) with `input` readable by
/// `input()`.
pub(crate) async fn with_input<F: std::future::Future>(input: PendingInput, future: F) -> F::Output {
    INPUT.scope(Arc::new(Mutex::new(Some(input))), future).await
}

fn not_in_insert() -> Error {
    Error::new(ErrorCode::INVALID_USAGE_OF_INPUT, "Input stream is not initialized, input() must be used only in INSERT SELECT query")
}

/// The `input` table function.
#[derive(Debug)]
pub(crate) struct InputFunction;

impl TableFunctionImpl for InputFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        let [structure] = args.exprs() else {
            return Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Table function 'input' requires exactly 1 argument: structure").into());
        };
        let columns = parse_structure(&string_arg("input", structure)?)?;
        let slot = INPUT.try_with(|slot| slot.clone()).map_err(|_| not_in_insert())?;
        let schema: SchemaRef = Arc::new(Schema::new(columns.iter().map(|(n, t)| t.to_arrow_field(n)).collect::<Vec<_>>()));
        Ok(Arc::new(InputTable { schema, slot }))
    }
}

#[derive(Debug)]
struct InputTable {
    schema: SchemaRef,
    slot: Slot,
}

impl std::fmt::Debug for PendingInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingInput").field("format", &self.format).finish_non_exhaustive()
    }
}

#[async_trait]
impl TableProvider for InputTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(&self, _state: &dyn Session, projection: Option<&Vec<usize>>, _filters: &[Expr], _limit: Option<usize>) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let partition: Arc<dyn PartitionStream> = Arc::new(InputPartition { schema: self.schema.clone(), slot: self.slot.clone() });
        Ok(Arc::new(StreamingTableExec::try_new(self.schema.clone(), vec![partition], projection, Vec::new(), false, None)?))
    }
}

#[derive(Debug)]
struct InputPartition {
    schema: SchemaRef,
    slot: Slot,
}

impl PartitionStream for InputPartition {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let schema = self.schema.clone();
        let Some(input) = self.slot.lock().take() else {
            let failed = futures::stream::once(async { Err(Error::new(ErrorCode::BAD_ARGUMENTS, "The data of input() can be read only once").into()) });
            return Box::pin(RecordBatchStreamAdapter::new(schema, failed));
        };
        let parser = match create_input_format(&input.format, schema.clone(), &input.format_settings) {
            Ok(parser) => parser,
            Err(e) => return Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::once(async move { Err(e.into()) }))),
        };
        let body = input.body.unwrap_or_else(|| Box::pin(futures::stream::empty()));
        // State: the parser (None once finished) and the body; each step yields the
        // batches one chunk of the body completed.
        let batches = futures::stream::unfold((Some(parser), body), |(parser, mut body)| async move {
            let mut parser = parser?;
            let mut out = Vec::new();
            let step = match body.next().await {
                Some(Ok(chunk)) => parser.push(&chunk, &mut out).map(|_| Some(parser)),
                Some(Err(e)) => Err(e),
                None => parser.finish(&mut out).map(|_| None),
            };
            let (items, next): (Vec<std::result::Result<arrow::record_batch::RecordBatch, DataFusionError>>, _) = match step {
                Ok(next) => (out.into_iter().map(Ok).collect(), next),
                Err(e) => (vec![Err(e.into())], None),
            };
            Some((futures::stream::iter(items), (next, body)))
        })
        .flatten();
        Box::pin(RecordBatchStreamAdapter::new(schema, batches))
    }
}

/// The data: what followed `FORMAT X` in the query text, then the request body.
pub(crate) fn with_head(head: bytes::Bytes, body: Option<ByteStream>) -> Option<ByteStream> {
    if head.iter().all(u8::is_ascii_whitespace) {
        return body;
    }
    let first = futures::stream::once(async move { Ok(head) });
    Some(match body {
        Some(body) => Box::pin(first.chain(body)),
        None => Box::pin(first),
    })
}
