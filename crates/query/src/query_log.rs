//! `system.query_log`: a bounded in-memory ring of finished (and failed) queries.
//! Appending is one short lock; the oldest entries fall off when the ring is full. It
//! moves onto disk with the MergeTree engine.

use std::collections::VecDeque;

use parking_lot::Mutex;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryLogType {
    QueryStart,
    QueryFinish,
    ExceptionBeforeStart,
    ExceptionWhileProcessing,
}

impl QueryLogType {
    pub fn name(self) -> &'static str {
        match self {
            QueryLogType::QueryStart => "QueryStart",
            QueryLogType::QueryFinish => "QueryFinish",
            QueryLogType::ExceptionBeforeStart => "ExceptionBeforeStart",
            QueryLogType::ExceptionWhileProcessing => "ExceptionWhileProcessing",
        }
    }
}

#[derive(Debug, Clone)]
pub struct QueryLogEntry {
    pub log_type: QueryLogType,
    /// Microseconds since the epoch.
    pub event_time_us: i64,
    pub query_start_time_us: i64,
    pub query_duration_ms: u64,
    pub read_rows: u64,
    pub read_bytes: u64,
    pub written_rows: u64,
    pub written_bytes: u64,
    pub result_rows: u64,
    pub result_bytes: u64,
    pub memory_usage: u64,
    pub current_database: String,
    pub query: String,
    pub query_kind: String,
    pub exception_code: i32,
    pub exception: String,
    pub user: String,
    pub query_id: String,
    pub log_comment: String,
}

pub struct QueryLog {
    capacity: usize,
    entries: Mutex<VecDeque<QueryLogEntry>>,
}

impl QueryLog {
    pub fn new(capacity: usize) -> Self {
        QueryLog { capacity: capacity.max(1), entries: Mutex::new(VecDeque::new()) }
    }

    pub fn push(&self, entry: QueryLogEntry) {
        let mut entries = self.entries.lock();
        if entries.len() == self.capacity {
            entries.pop_front();
        }
        entries.push_back(entry);
    }

    pub fn snapshot(&self) -> Vec<QueryLogEntry> {
        self.entries.lock().iter().cloned().collect()
    }
}
