//! Streams a result through an output format into the response body.
//!
//! The first chunk is held until 1 MiB of output or the end of the result, so small
//! results arrive whole: headers (`X-ClickHouse-Summary`) are then complete and an error
//! becomes a proper error response. Larger results stream in 64 KiB chunks; an error
//! after that goes into the body as ClickHouse does. A receiver that goes away (client
//! disconnected) stops the query: dropping the DataFusion stream cancels its tasks.

use std::time::Duration;

use bytes::Bytes;
use datafusion::execution::SendableRecordBatchStream;
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result};
use granary_formats::{OutputFormat, QueryStatistics};
use tokio::sync::mpsc;

use crate::insert::timeout_error;
use crate::instance::QueryContext;
use crate::process_list::ProcessGuard;

const FIRST_FLUSH_BYTES: usize = 1 << 20;
const FLUSH_BYTES: usize = 64 << 10;

pub(crate) struct OutputJob {
    pub stream: SendableRecordBatchStream,
    pub output_format: Box<dyn OutputFormat>,
    /// The plan of the WITH TOTALS row, run after the result.
    pub totals: Option<std::sync::Arc<dyn datafusion::physical_plan::ExecutionPlan>>,
    /// The plan that produced `stream`, for `rows_before_limit_at_least`.
    pub plan: Option<std::sync::Arc<dyn datafusion::physical_plan::ExecutionPlan>>,
    pub ctx: QueryContext,
    pub tx: mpsc::Sender<Result<Bytes>>,
    pub guard: ProcessGuard,
}

/// Runs the job on the runtime; `finished` is called once with the error, if any.
/// Streams the result first on the calling task, then, if it is not done at once, on a
/// task of its own (which works for the caller's query: the profiler's runtime hooks
/// carry the attribution, and with it the query id of what it logs).
pub(crate) fn spawn_output(job: OutputJob, finished: impl FnOnce(&QueryContext, Option<&Error>) + Send + 'static) {
    let progress_headers = job.ctx.settings.get_bool("send_progress_in_http_headers");
    let task = async move {
        let OutputJob { stream, mut output_format, totals, plan, ctx, tx, guard } = job;
        let writing = std::panic::AssertUnwindSafe(write_all(&ctx, stream, totals, plan, output_format.as_mut(), &tx, &guard));
        let result = futures::FutureExt::catch_unwind(writing).await.unwrap_or_else(|panic| Err(Error::from_panic(panic.as_ref())));
        ctx.progress.peak_memory.store(ctx.peak_memory.peak_reserved() as u64, std::sync::atomic::Ordering::Relaxed);
        match result {
            Ok(()) => finished(&ctx, None),
            Err(e) => {
                finished(&ctx, Some(&e));
                let _ = tx.send(Err(e)).await;
            }
        }
        drop(guard);
    };
    let mut task = Box::pin(task);
    // A small result (a point lookup's row) is usually complete at the first poll: written
    // here, it skips a task spawn and a wake-up of the request's task. What is not done
    // (data still coming, or a full channel) goes on in a task of its own, whose first
    // poll registers the wakers the no-op one stood in for. Not with progress headers: a
    // plan that computes inside its first poll would hold up the caller's ticker.
    if progress_headers || futures::FutureExt::now_or_never(task.as_mut()).is_none() {
        tokio::spawn(task);
    }
}

async fn write_all(
    ctx: &QueryContext,
    mut stream: SendableRecordBatchStream,
    totals: Option<std::sync::Arc<dyn datafusion::physical_plan::ExecutionPlan>>,
    plan: Option<std::sync::Arc<dyn datafusion::physical_plan::ExecutionPlan>>,
    format: &mut dyn OutputFormat,
    tx: &mpsc::Sender<Result<Bytes>>,
    guard: &ProcessGuard,
) -> Result<()> {
    let max_result_rows = ctx.settings.get_u64("max_result_rows");
    let break_on_overflow = ctx.settings.get_str("result_overflow_mode") == "break";
    let mut buffer = Vec::with_capacity(8192);
    let mut flushed_once = false;
    format.write_prefix(&mut buffer)?;
    loop {
        let next = tokio::select! {
            biased;
            _ = guard.entry.cancelled() => return Err(Error::new(ErrorCode::QUERY_WAS_CANCELLED, "Query was cancelled")),
            _ = tx.closed() => return Err(Error::new(ErrorCode::QUERY_WAS_CANCELLED, "Query was cancelled: the client went away")),
            next = next_with_deadline(ctx, &mut stream) => next?,
        };
        let Some(batch) = next else { break };
        let mut batch = batch?;
        if batch.num_rows() == 0 {
            continue;
        }
        let so_far = ctx.progress.result_rows.load(std::sync::atomic::Ordering::Relaxed);
        if max_result_rows > 0 && so_far + batch.num_rows() as u64 > max_result_rows {
            if !break_on_overflow {
                return Err(Error::new(
                    ErrorCode::TOO_MANY_ROWS_OR_BYTES,
                    format!("Limit for result exceeded, max rows: {max_result_rows}, current rows: {}", so_far + batch.num_rows() as u64),
                ));
            }
            let keep = max_result_rows.saturating_sub(so_far) as usize;
            batch = batch.slice(0, keep);
        }
        let before = buffer.len();
        // Room for about the batch's own size up front: growing the buffer while a
        // large block is written copies it several times over.
        let estimate: usize = batch.columns().iter().map(|c| c.to_data().get_slice_memory_size().unwrap_or(0)).sum();
        buffer.reserve(estimate);
        format.write_batch(&batch, &mut buffer)?;
        ctx.progress.add_result(batch.num_rows() as u64, (buffer.len() - before) as u64);
        let threshold = if flushed_once { FLUSH_BYTES } else { FIRST_FLUSH_BYTES };
        if buffer.len() >= threshold {
            flushed_once = true;
            let chunk = Bytes::from(std::mem::replace(&mut buffer, Vec::with_capacity(FLUSH_BYTES * 2)));
            if tx.send(Ok(chunk)).await.is_err() {
                return Ok(());
            }
        }
        if max_result_rows > 0 && break_on_overflow && ctx.progress.result_rows.load(std::sync::atomic::Ordering::Relaxed) >= max_result_rows {
            break;
        }
    }
    if let Some(plan) = totals {
        let mut stream = crate::interpreter::execute_physical(ctx, ctx.state.config().clone(), plan)?;
        while let Some(batch) = next_with_deadline(ctx, &mut stream).await? {
            let batch = batch?;
            if batch.num_rows() > 0 {
                format.write_totals(&batch.slice(0, 1), &mut buffer)?;
                break;
            }
        }
    }
    let snapshot = ctx.progress.snapshot();
    let stats = QueryStatistics {
        elapsed: Duration::from_nanos(snapshot.elapsed_ns),
        rows_read: snapshot.read_rows,
        bytes_read: snapshot.read_bytes,
        rows_before_limit: plan.as_ref().and_then(rows_before_limit),
    };
    format.write_suffix(&stats, &mut buffer)?;
    if !buffer.is_empty() {
        let _ = tx.send(Ok(Bytes::from(buffer))).await;
    }
    Ok(())
}

async fn next_with_deadline(
    ctx: &QueryContext,
    stream: &mut SendableRecordBatchStream,
) -> Result<Option<datafusion::common::Result<arrow::record_batch::RecordBatch>>> {
    match ctx.deadline {
        Some(deadline) => tokio::time::timeout_at(deadline, stream.next()).await.map_err(|_| timeout_error(ctx)),
        None => Ok(stream.next().await),
    }
}


/// ClickHouse's `rows_before_limit_at_least`: how many rows reached the query's LIMIT.
/// The LIMIT is the first operator with a row limit (a limit, or a sort or merge keeping
/// the top rows) met from the top of the plan; through a chain of such operators (a
/// merge above a top-k sort above a partial limit) the deepest one counts, and its
/// input's output rows are the answer. None when the plan has no LIMIT or the input
/// kept no row count.
fn rows_before_limit(plan: &std::sync::Arc<dyn datafusion::physical_plan::ExecutionPlan>) -> Option<u64> {
    use datafusion::physical_plan::limit::{GlobalLimitExec, LocalLimitExec};
    let limits = |p: &std::sync::Arc<dyn datafusion::physical_plan::ExecutionPlan>| {
        let operator: &dyn std::any::Any = p.as_ref();
        p.fetch().is_some() || operator.is::<GlobalLimitExec>() || operator.is::<LocalLimitExec>()
    };
    let mut node = plan.clone();
    loop {
        if limits(&node) {
            break;
        }
        let children = node.children();
        let [only] = children.as_slice() else { return None };
        let next = std::sync::Arc::clone(only);
        node = next;
    }
    // Down the chain of operators of this one LIMIT to the last one. They keep the same
    // number of rows (offset + limit); one keeping another number is a nested LIMIT
    // (`(... ORDER BY x LIMIT 50) ORDER BY x DESC LIMIT 5`), whose output is what reached
    // the query's LIMIT, as ClickHouse counts it.
    let kept = |p: &std::sync::Arc<dyn datafusion::physical_plan::ExecutionPlan>| {
        let operator: &dyn std::any::Any = p.as_ref();
        let skip = operator.downcast_ref::<GlobalLimitExec>().map(|l| l.skip()).unwrap_or(0);
        p.fetch().map(|fetch| fetch + skip)
    };
    let top = kept(&node);
    loop {
        let children = node.children();
        let [only] = children.as_slice() else { break };
        if !limits(only) || (top.is_some() && kept(only).is_some() && kept(only) != top) {
            break;
        }
        let next = std::sync::Arc::clone(only);
        node = next;
    }
    // A filter that still has the LIMIT pushed into it stops early: the rows it let
    // through are what is known to have reached the LIMIT (see
    // stream_order::FilterBelowLimitKeepsBlocks for the usual case).
    let operator: &dyn std::any::Any = node.as_ref();
    let keeps_top_rows = operator.is::<GlobalLimitExec>()
        || operator.is::<LocalLimitExec>()
        || operator.is::<datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec>()
        || operator.is::<datafusion::physical_plan::sorts::sort::SortExec>()
        || operator.is::<datafusion::physical_plan::sorts::sort_preserving_merge::SortPreservingMergeExec>();
    if !keeps_top_rows {
        return node.metrics().and_then(|m| m.output_rows()).map(|rows| rows as u64);
    }
    let children = node.children();
    let [input] = children.as_slice() else { return None };
    // Wrappers that keep no count of their own (a scan inside its counter) are looked
    // through.
    let mut input = std::sync::Arc::clone(input);
    loop {
        if let Some(rows) = input.metrics().and_then(|m| m.output_rows()) {
            return Some(rows as u64);
        }
        let children = input.children();
        let [only] = children.as_slice() else { return None };
        let next = std::sync::Arc::clone(only);
        input = next;
    }
}
