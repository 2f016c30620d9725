//! System logs kept on disk: `system.query_log` (finished and failed queries) and
//! `system.part_log` (parts created, merged, mutated, removed).
//!
//! A log is a bounded in-memory ring (what `SELECT` reads) backed by an append-only
//! file of JSON lines under `<path>/system_logs/`, so the log survives restarts. A
//! writer thread per log appends entries as they come (batched under load, no fsync:
//! the page cache survives a killed process, and ClickHouse's logs are not fsynced
//! either); `SYSTEM FLUSH LOGS` waits for it. A torn last line after a crash is skipped
//! at load. When the file holds the ring's capacity, the writer renames it to
//! `<name>.1` (replacing the one before) and starts a new one: the two files hold the
//! ring's entries and at most as many older ones, and keeping them bounded costs a rename
//! instead of a rewrite. (Rewriting the file with its last lines read 100 MB and took a
//! core for a moment every few seconds at 20K queries/s, which showed in the p99 latency.)

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// What the query read (and an INSERT wrote): `db`, `db.table`, `db.table.column`,
    /// sorted. Lines written before these existed read back empty.
    #[serde(default)]
    pub databases: Vec<String>,
    #[serde(default)]
    pub tables: Vec<String>,
    #[serde(default)]
    pub columns: Vec<String>,
}

/// The databases, tables and columns one query touched, gathered while it is planned.
#[derive(Debug, Default, Clone)]
pub struct AccessedObjects {
    pub databases: std::collections::BTreeSet<String>,
    pub tables: std::collections::BTreeSet<String>,
    pub columns: std::collections::BTreeSet<String>,
}

impl AccessedObjects {
    /// Records `columns` of `database.table`.
    pub fn add<'c>(&mut self, database: &str, table: &str, columns: impl IntoIterator<Item = &'c str>) {
        self.databases.insert(database.to_string());
        self.tables.insert(format!("{database}.{table}"));
        for column in columns {
            self.columns.insert(format!("{database}.{table}.{column}"));
        }
    }
}

impl LogEntry for QueryLogEntry {
    /// Written field by field: the same object `serde_json` writes (a unit test compares
    /// them), without escaping each key and going through a map serializer for every
    /// finished query (a third of the cost of logging a key-value lookup).
    fn write_json(&self, out: &mut Vec<u8>) {
        fn number(out: &mut Vec<u8>, key: &[u8], value: impl itoa::Integer) {
            out.extend_from_slice(key);
            out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
        }
        fn string(out: &mut Vec<u8>, key: &[u8], value: &str) {
            out.extend_from_slice(key);
            json_string(out, value);
        }
        fn strings(out: &mut Vec<u8>, key: &[u8], values: &[String]) {
            out.extend_from_slice(key);
            out.push(b'[');
            for (i, value) in values.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                json_string(out, value);
            }
            out.push(b']');
        }
        out.extend_from_slice(b"{\"log_type\":\"");
        out.extend_from_slice(self.log_type.name().as_bytes());
        out.push(b'"');
        number(out, b",\"event_time_us\":", self.event_time_us);
        number(out, b",\"query_start_time_us\":", self.query_start_time_us);
        number(out, b",\"query_duration_ms\":", self.query_duration_ms);
        number(out, b",\"read_rows\":", self.read_rows);
        number(out, b",\"read_bytes\":", self.read_bytes);
        number(out, b",\"written_rows\":", self.written_rows);
        number(out, b",\"written_bytes\":", self.written_bytes);
        number(out, b",\"result_rows\":", self.result_rows);
        number(out, b",\"result_bytes\":", self.result_bytes);
        number(out, b",\"memory_usage\":", self.memory_usage);
        string(out, b",\"current_database\":", &self.current_database);
        string(out, b",\"query\":", &self.query);
        string(out, b",\"query_kind\":", &self.query_kind);
        number(out, b",\"exception_code\":", self.exception_code);
        string(out, b",\"exception\":", &self.exception);
        string(out, b",\"user\":", &self.user);
        string(out, b",\"query_id\":", &self.query_id);
        string(out, b",\"log_comment\":", &self.log_comment);
        strings(out, b",\"databases\":", &self.databases);
        strings(out, b",\"tables\":", &self.tables);
        strings(out, b",\"columns\":", &self.columns);
        out.push(b'}');
    }
}

/// `value` as a JSON string: plain text copied as is, the rest through `serde_json`.
fn json_string(out: &mut Vec<u8>, value: &str) {
    if value.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(value.as_bytes());
        out.push(b'"');
    } else {
        // Writing to a Vec cannot fail, and a str always serializes.
        let _ = serde_json::to_writer(&mut *out, value);
    }
}

/// An entry of a [`SystemLog`]: one line of its file.
pub trait LogEntry: Serialize + DeserializeOwned + Clone + Send + 'static {
    /// Appends the entry as one JSON object (no newline).
    fn write_json(&self, out: &mut Vec<u8>) {
        // Writing to a Vec cannot fail; an entry that does not serialize is not logged.
        let _ = serde_json::to_writer(out, self);
    }
}

impl LogEntry for granary_storage::PartLogEvent {}
impl LogEntry for u64 {}

pub type QueryLog = SystemLog<QueryLogEntry>;
pub type PartLog = SystemLog<granary_storage::PartLogEvent>;

struct LogFile {
    path: PathBuf,
    /// Where the file goes when it is full (`<path>.1`).
    previous: PathBuf,
    file: File,
    lines: usize,
}

/// `<path>.1`: the file before the current one.
fn previous_file(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".1");
    PathBuf::from(name)
}

/// Appends the entries of the file at `path` (if any) to `entries`, keeping the last
/// `capacity`; returns how many lines it has. A line that does not parse (a torn last
/// line after a kill -9) is skipped.
fn load_lines<T: DeserializeOwned>(path: &Path, entries: &mut VecDeque<T>, capacity: usize) -> usize {
    let Ok(file) = File::open(path) else { return 0 };
    let mut lines = 0;
    for line in BufReader::new(file).lines() {
        let Ok(line) = line else { break };
        lines += 1;
        if let Ok(entry) = serde_json::from_str::<T>(&line) {
            if entries.len() == capacity {
                entries.pop_front();
            }
            entries.push_back(entry);
        }
    }
    lines
}

fn ends_with_newline(file: &mut File) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let mut last = [0u8; 1];
    match file.seek(SeekFrom::End(-1)) {
        Ok(_) => file.read_exact(&mut last).map(|_| last[0] == b'\n').unwrap_or(true),
        // An empty file.
        Err(_) => true,
    }
}

pub struct SystemLog<T> {
    capacity: usize,
    entries: Arc<Mutex<VecDeque<T>>>,
    /// None: in memory only (tests, or the file could not be opened).
    writer: Option<Arc<LogWriter>>,
}

/// Lines waiting for the log's writer thread, and how far it has got.
struct LogWriter {
    pending: Mutex<Pending>,
    /// Signalled when lines are queued (or the log closes).
    queued: Condvar,
    /// Signalled when queued lines reached the file.
    written: Condvar,
}

#[derive(Default)]
struct Pending {
    lines: Vec<u8>,
    count: usize,
    /// Lines handed to the writer so far, and how many of them it has written.
    queued_total: u64,
    written_total: u64,
    closed: bool,
    /// The writer sleeps on `queued`: the next push must wake it.
    writer_idle: bool,
}

/// How long `flush` and closing wait for a writer that makes no progress.
const FLUSH_STALL: std::time::Duration = std::time::Duration::from_secs(10);

/// Under load the writer waits this long between writes so that one `write` (and one
/// wake-up) covers many entries instead of one per query.
const MIN_WRITE_INTERVAL: std::time::Duration = std::time::Duration::from_millis(2);

impl<T: LogEntry> SystemLog<T> {
    /// A log kept only in memory.
    pub fn new(capacity: usize) -> Self {
        SystemLog { capacity: capacity.max(1), entries: Arc::default(), writer: None }
    }

    /// A log backed by `path` (and `path.1`, its previous file): its last `capacity`
    /// entries are loaded. A file that cannot be opened leaves the log in memory (logged),
    /// it never stops the server.
    pub fn open(path: &Path, capacity: usize) -> Self {
        let mut log = Self::new(capacity);
        let previous = previous_file(path);
        let lines = {
            let mut entries = log.entries.lock();
            load_lines(&previous, &mut entries, log.capacity);
            load_lines(path, &mut entries, log.capacity)
        };
        match OpenOptions::new().create(true).append(true).open(path) {
            Ok(mut file) => {
                // After a torn write the next entry must start on a line of its own.
                if !ends_with_newline(&mut file) {
                    let _ = file.write_all(b"\n");
                }
                let writer = Arc::new(LogWriter { pending: Mutex::default(), queued: Condvar::new(), written: Condvar::new() });
                let log_file = LogFile { path: path.to_path_buf(), previous, file, lines };
                let (thread_writer, capacity) = (writer.clone(), log.capacity);
                let spawned = std::thread::Builder::new()
                    .name("SystemLogFlush".into())
                    .spawn(move || write_lines(&thread_writer, log_file, capacity));
                match spawned {
                    Ok(_) => log.writer = Some(writer),
                    Err(e) => tracing::error!("system log {} stays in memory: {e}", path.display()),
                }
            }
            Err(e) => tracing::error!("system log {} stays in memory: {e}", path.display()),
        }
        log
    }

    /// Adds an entry: visible to `SELECT` at once, in the file as soon as the writer
    /// thread gets to it (microseconds when idle; under load one `write` covers many
    /// entries, so a query never waits for the disk).
    pub fn push(&self, entry: T) {
        let line = self.writer.as_ref().map(|_| {
            let mut line = Vec::with_capacity(512);
            entry.write_json(&mut line);
            line
        });
        {
            let mut entries = self.entries.lock();
            if entries.len() == self.capacity {
                entries.pop_front();
            }
            entries.push_back(entry);
        }
        let (Some(writer), Some(line)) = (&self.writer, line) else { return };
        let mut pending = writer.pending.lock();
        pending.lines.extend_from_slice(&line);
        pending.lines.push(b'\n');
        pending.count += 1;
        pending.queued_total += 1;
        let wake = std::mem::take(&mut pending.writer_idle);
        drop(pending);
        if wake {
            writer.queued.notify_one();
        }
    }

    /// Waits until every entry pushed so far is in the file (`SYSTEM FLUSH LOGS`), or
    /// until the writer has made no progress for [`FLUSH_STALL`] (a disk that hangs
    /// must not hang the query).
    pub fn flush(&self) {
        let Some(writer) = &self.writer else { return };
        let mut pending = writer.pending.lock();
        let target = pending.queued_total;
        while pending.written_total < target && !pending.closed {
            if writer.written.wait_for(&mut pending, FLUSH_STALL).timed_out() {
                tracing::warn!("system log flush gave up: its writer made no progress for {FLUSH_STALL:?}");
                return;
            }
        }
    }

    pub fn snapshot(&self) -> Vec<T> {
        self.entries.lock().iter().cloned().collect()
    }
}

impl<T> Drop for SystemLog<T> {
    fn drop(&mut self) {
        if let Some(writer) = &self.writer {
            let mut pending = writer.pending.lock();
            pending.closed = true;
            // The writer drains what is queued before it stops.
            let target = pending.queued_total;
            writer.queued.notify_one();
            while pending.written_total < target {
                if writer.written.wait_for(&mut pending, FLUSH_STALL).timed_out() {
                    break;
                }
            }
        }
    }
}

/// The writer thread of one log: appends queued lines, compacts the file when it holds
/// twice the ring's capacity, and stops once the log is closed and drained.
fn write_lines(writer: &LogWriter, mut log_file: LogFile, capacity: usize) {
    let mut batch = Vec::new();
    loop {
        let count = {
            let mut pending = writer.pending.lock();
            while pending.lines.is_empty() && !pending.closed {
                pending.writer_idle = true;
                writer.queued.wait(&mut pending);
            }
            pending.writer_idle = false;
            if pending.lines.is_empty() {
                writer.written.notify_all();
                return;
            }
            std::mem::swap(&mut batch, &mut pending.lines);
            std::mem::take(&mut pending.count)
        };
        if let Err(e) = log_file.file.write_all(&batch) {
            tracing::error!("cannot append to {}: {e}", log_file.path.display());
        }
        batch.clear();
        log_file.lines += count;
        if log_file.lines >= capacity {
            if let Err(e) = rotate(&mut log_file) {
                tracing::error!("cannot rotate {}: {e}", log_file.path.display());
            }
        }
        let mut pending = writer.pending.lock();
        pending.written_total += count as u64;
        let closed = pending.closed;
        drop(pending);
        writer.written.notify_all();
        if !closed {
            std::thread::sleep(MIN_WRITE_INTERVAL);
        }
    }
}

/// Moves the full file to `<path>.1` (replacing the previous one, atomically) and starts
/// an empty one. A crash in between leaves no current file: it is created at the next start.
fn rotate(log_file: &mut LogFile) -> std::io::Result<()> {
    std::fs::rename(&log_file.path, &log_file.previous)?;
    log_file.file = OpenOptions::new().create(true).append(true).open(&log_file.path)?;
    log_file.lines = 0;
    Ok(())
}

impl granary_storage::PartLogSink for SystemLog<granary_storage::PartLogEvent> {
    fn record(&self, event: granary_storage::PartLogEvent) {
        self.push(event);
    }
}

impl<T> std::fmt::Debug for SystemLog<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SystemLog").field("capacity", &self.capacity).finish()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn query_log_lines_are_what_serde_writes() {
        let mut entry = QueryLogEntry {
            log_type: QueryLogType::ExceptionWhileProcessing,
            event_time_us: 1_764_300_000_123_456,
            query_start_time_us: -5,
            query_duration_ms: 12,
            read_rows: u64::MAX,
            read_bytes: 0,
            written_rows: 3,
            written_bytes: 4,
            result_rows: 5,
            result_bytes: 6,
            memory_usage: 7,
            current_database: "default".into(),
            query: "SELECT 'a\"b\\c\n\t\u{1}', 'é✓' FROM t".into(),
            query_kind: "Select".into(),
            exception_code: -1,
            exception: "Code: 60. DB::Exception: Table \"x\" does not exist".into(),
            user: "default".into(),
            query_id: "q-1".into(),
            log_comment: String::new(),
            databases: vec!["default".into()],
            tables: vec![],
            columns: vec!["default.t.a".into(), "default.t.\"b\"".into()],
        };
        for _ in 0..2 {
            let mut written = Vec::new();
            entry.write_json(&mut written);
            assert_eq!(String::from_utf8(written.clone()).unwrap(), serde_json::to_string(&entry).unwrap());
            let read: QueryLogEntry = serde_json::from_slice(&written).unwrap();
            assert_eq!(serde_json::to_string(&read).unwrap(), serde_json::to_string(&entry).unwrap());
            entry.log_type = QueryLogType::QueryFinish;
            entry.query = "SELECT 1".into();
        }
    }

    #[test]
    fn survives_reopen_skips_torn_lines_and_stays_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let log: SystemLog<u64> = SystemLog::open(&path, 3);
        for i in 0..5u64 {
            log.push(i);
        }
        assert_eq!(log.snapshot(), vec![2, 3, 4]);
        drop(log);
        // A torn line at the end, as after a kill -9 mid-write.
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"torn").unwrap();
        let log: SystemLog<u64> = SystemLog::open(&path, 3);
        assert_eq!(log.snapshot(), vec![2, 3, 4]);
        for i in 5..20u64 {
            log.push(i);
            // One write per entry: the files are bounded up to one write's batch.
            log.flush();
        }
        assert_eq!(log.snapshot(), vec![17, 18, 19]);
        log.flush();
        let lines = |p: &Path| std::fs::read_to_string(p).map(|t| t.lines().count()).unwrap_or(0);
        let on_disk = lines(&path) + lines(&previous_file(&path));
        assert!(on_disk <= 6, "{on_disk} lines: the files are rotated");
        let log: SystemLog<u64> = SystemLog::open(&path, 3);
        assert_eq!(log.snapshot(), vec![17, 18, 19]);
        drop(log);
        // Killed between the rename and the new file: the previous one still loads.
        std::fs::rename(&path, previous_file(&path)).unwrap();
        let kept: Vec<u64> = std::fs::read_to_string(previous_file(&path)).unwrap().lines().map(|l| l.parse().unwrap()).collect();
        let log: SystemLog<u64> = SystemLog::open(&path, 3);
        assert_eq!(log.snapshot(), kept[kept.len().saturating_sub(3)..]);
        assert_eq!(log.snapshot().last(), Some(&19));
    }
}
