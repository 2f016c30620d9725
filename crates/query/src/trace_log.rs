//! `system.trace_log`: the stacks the sampling query profiler (`granary-profiler`) took of
//! threads working for queries, kept in memory.
//!
//! Unlike the other system logs it is not written to disk: its addresses belong to this
//! process (the binary is position-independent and loaded at a random address), so after
//! a restart `addressToSymbol` could only mislabel them.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::query_log::SystemLog;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TraceLogEntry {
    pub timestamp_ns: u64,
    /// `system.trace_log.trace_type`: 0 Real, 1 CPU (ClickHouse's Enum8 values).
    pub trace_type: i8,
    pub thread_id: u64,
    pub query_id: String,
    pub trace: Vec<u64>,
}

pub type TraceLog = SystemLog<TraceLogEntry>;

impl crate::query_log::LogEntry for TraceLogEntry {}

/// The profiler's samples go to `log` (the instance opened last, as for the text log).
pub fn attach(log: &Arc<TraceLog>) {
    let log = Arc::downgrade(log);
    granary_profiler::set_sink(move |sample| {
        if let Some(log) = log.upgrade() {
            log.push(TraceLogEntry {
                timestamp_ns: sample.timestamp_ns,
                trace_type: sample.trace_type.value(),
                thread_id: sample.thread_id,
                query_id: sample.query_id,
                trace: sample.trace,
            });
        }
    });
}

/// `query_profiler_real_time_period_ns` and `query_profiler_cpu_time_period_ns`.
pub(crate) fn periods(settings: &granary_common::Settings) -> (u64, u64) {
    (settings.get_u64("query_profiler_real_time_period_ns"), settings.get_u64("query_profiler_cpu_time_period_ns"))
}
