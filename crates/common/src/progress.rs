//! Live counters of one query, shared by everything that reads or writes for it (table
//! scans, inserts, the output writer) and read by the protocol layer for
//! `X-ClickHouse-Summary`, progress headers and `system.query_log`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

#[derive(Debug)]
pub struct QueryProgress {
    pub started: Instant,
    pub read_rows: AtomicU64,
    pub read_bytes: AtomicU64,
    pub written_rows: AtomicU64,
    pub written_bytes: AtomicU64,
    pub result_rows: AtomicU64,
    pub result_bytes: AtomicU64,
    /// Rows the query expects to read, when known up front (progress bars).
    pub total_rows_to_read: AtomicU64,
    /// Peak memory reserved by the query's operators.
    pub peak_memory: AtomicU64,
}

impl Default for QueryProgress {
    fn default() -> Self {
        QueryProgress {
            started: Instant::now(),
            read_rows: AtomicU64::new(0),
            read_bytes: AtomicU64::new(0),
            written_rows: AtomicU64::new(0),
            written_bytes: AtomicU64::new(0),
            result_rows: AtomicU64::new(0),
            result_bytes: AtomicU64::new(0),
            total_rows_to_read: AtomicU64::new(0),
            peak_memory: AtomicU64::new(0),
        }
    }
}

/// A consistent-enough copy of the counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProgressSnapshot {
    pub read_rows: u64,
    pub read_bytes: u64,
    pub written_rows: u64,
    pub written_bytes: u64,
    pub result_rows: u64,
    pub result_bytes: u64,
    pub total_rows_to_read: u64,
    pub peak_memory: u64,
    pub elapsed_ns: u64,
}

impl QueryProgress {
    pub fn add_read(&self, rows: u64, bytes: u64) {
        self.read_rows.fetch_add(rows, Ordering::Relaxed);
        self.read_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn add_written(&self, rows: u64, bytes: u64) {
        self.written_rows.fetch_add(rows, Ordering::Relaxed);
        self.written_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn add_result(&self, rows: u64, bytes: u64) {
        self.result_rows.fetch_add(rows, Ordering::Relaxed);
        self.result_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn snapshot(&self) -> ProgressSnapshot {
        ProgressSnapshot {
            read_rows: self.read_rows.load(Ordering::Relaxed),
            read_bytes: self.read_bytes.load(Ordering::Relaxed),
            written_rows: self.written_rows.load(Ordering::Relaxed),
            written_bytes: self.written_bytes.load(Ordering::Relaxed),
            result_rows: self.result_rows.load(Ordering::Relaxed),
            result_bytes: self.result_bytes.load(Ordering::Relaxed),
            total_rows_to_read: self.total_rows_to_read.load(Ordering::Relaxed),
            peak_memory: self.peak_memory.load(Ordering::Relaxed),
            elapsed_ns: self.started.elapsed().as_nanos() as u64,
        }
    }
}

impl ProgressSnapshot {
    /// The `X-ClickHouse-Summary` JSON (numbers as strings, as ClickHouse sends them).
    pub fn summary_json(&self) -> String {
        format!(
            "{{\"read_rows\":\"{}\",\"read_bytes\":\"{}\",\"written_rows\":\"{}\",\"written_bytes\":\"{}\",\"total_rows_to_read\":\"{}\",\"result_rows\":\"{}\",\"result_bytes\":\"{}\",\"elapsed_ns\":\"{}\"}}",
            self.read_rows, self.read_bytes, self.written_rows, self.written_bytes, self.total_rows_to_read, self.result_rows, self.result_bytes, self.elapsed_ns
        )
    }

    /// The `X-ClickHouse-Progress` JSON: the same fields as the summary, sent while running.
    pub fn progress_json(&self) -> String {
        self.summary_json()
    }
}
