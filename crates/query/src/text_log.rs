//! The server's log records as data: `system.text_log`, and `send_logs_level`, which
//! asks for one query's records down to a level (`granary client --send_logs_level=trace`
//! prints them, as clickhouse-client does).
//!
//! Every crate logs with `tracing`. [`TextLogLayer`] is a `tracing` layer installed
//! once per process (by the binary) next to the human-readable one. It keeps a record
//! when its level is at or above the text log's level (`[logger] text_log_level`), or
//! when it is emitted while working for a query that asked for that level with
//! `send_logs_level`. Records land in the [`TextLog`] of the [`Instance`] attached last
//! ([`attach`]); they carry the id of the query they were emitted for.
//!
//! Which query a thread works for is the profiler's attribution
//! ([`granary_profiler::QueryProfile`], a thread-local pointer set around each poll of a
//! query's future, inherited by the tasks it spawns and carried into blocking threads),
//! not a `tracing` span: a `trace!` in a query that did not ask for traces costs two
//! level comparisons.
//!
//! [`Instance`]: crate::Instance

use std::cell::Cell;
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, RwLock, Weak};

use granary_common::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use tracing::field::{Field, Visit};
use tracing::subscriber::Interest;
use tracing::{Metadata, Subscriber};
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::{Context, Filter, Layer};

use crate::query_log::SystemLog;

/// ClickHouse's log levels (`system.text_log.level`, `send_logs_level`), most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum LogLevel {
    None = 0,
    Fatal = 1,
    Critical = 2,
    Error = 3,
    Warning = 4,
    Notice = 5,
    Information = 6,
    Debug = 7,
    Trace = 8,
    Test = 9,
}

impl LogLevel {
    const ALL: [LogLevel; 10] = [
        LogLevel::None,
        LogLevel::Fatal,
        LogLevel::Critical,
        LogLevel::Error,
        LogLevel::Warning,
        LogLevel::Notice,
        LogLevel::Information,
        LogLevel::Debug,
        LogLevel::Trace,
        LogLevel::Test,
    ];

    /// The name as `system.text_log` prints it (`Debug`).
    pub fn name(self) -> &'static str {
        match self {
            LogLevel::None => "None",
            LogLevel::Fatal => "Fatal",
            LogLevel::Critical => "Critical",
            LogLevel::Error => "Error",
            LogLevel::Warning => "Warning",
            LogLevel::Notice => "Notice",
            LogLevel::Information => "Information",
            LogLevel::Debug => "Debug",
            LogLevel::Trace => "Trace",
            LogLevel::Test => "Test",
        }
    }

    /// Parses a `send_logs_level` / config value: `none`, `fatal`, ..., `information`
    /// (or `info`), `debug`, `trace`, `test`, in any case.
    pub fn parse(text: &str) -> Result<LogLevel> {
        let lower = text.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "info" => "information",
            "warn" => "warning",
            other => other,
        };
        LogLevel::ALL.into_iter().find(|l| l.name().eq_ignore_ascii_case(alias)).ok_or_else(|| {
            Error::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Unexpected value of LogsLevel: '{text}'. Must be one of ['none', 'fatal', 'error', 'warning', 'information', 'debug', 'trace', 'test']"),
            )
        })
    }

    /// The most detailed `tracing` level this level shows.
    pub fn level_filter(self) -> LevelFilter {
        match self {
            LogLevel::None => LevelFilter::OFF,
            LogLevel::Fatal | LogLevel::Critical | LogLevel::Error => LevelFilter::ERROR,
            LogLevel::Warning | LogLevel::Notice => LevelFilter::WARN,
            LogLevel::Information => LevelFilter::INFO,
            LogLevel::Debug => LevelFilter::DEBUG,
            LogLevel::Trace | LogLevel::Test => LevelFilter::TRACE,
        }
    }

    fn of(level: &tracing::Level) -> LogLevel {
        match *level {
            tracing::Level::ERROR => LogLevel::Error,
            tracing::Level::WARN => LogLevel::Warning,
            tracing::Level::INFO => LogLevel::Information,
            tracing::Level::DEBUG => LogLevel::Debug,
            tracing::Level::TRACE => LogLevel::Trace,
        }
    }

    fn from_u8(value: u8) -> LogLevel {
        LogLevel::ALL.get(value as usize).copied().unwrap_or(LogLevel::None)
    }
}

/// One row of `system.text_log`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TextLogEntry {
    /// Microseconds since the epoch.
    pub event_time_us: i64,
    pub thread_name: String,
    pub thread_id: u64,
    pub level: LogLevel,
    pub query_id: String,
    /// What logged it: the `logger` field of the record when it has one (ClickHouse's
    /// `default.t (SelectExecutor)`), else its target (`executeQuery`, a module path).
    pub logger_name: String,
    pub message: String,
    pub source_file: String,
    pub source_line: u64,
}

pub type TextLog = SystemLog<TextLogEntry>;

impl crate::query_log::LogEntry for TextLogEntry {}

/// Where records go: the text log of the last attached instance.
static SINK: RwLock<Option<Weak<TextLog>>> = RwLock::new(None);
/// The text log's own level, as a `LogLevel` number.
static TEXT_LOG_LEVEL: AtomicU8 = AtomicU8::new(LogLevel::Information as u8);

/// Sends records to `log`, keeping those at `level` or above (plus what queries ask for).
pub fn attach(log: &Arc<TextLog>, level: LogLevel) {
    TEXT_LOG_LEVEL.store(level as u8, Ordering::Relaxed);
    if let Ok(mut sink) = SINK.write() {
        *sink = Some(Arc::downgrade(log));
    }
}

fn text_log_level() -> LogLevel {
    LogLevel::from_u8(TEXT_LOG_LEVEL.load(Ordering::Relaxed))
}

/// Sets the `send_logs_level` of the query the calling thread works for (its SETTINGS
/// clause is read after the query started). The query is the one of the profiler's
/// attribution ([`granary_profiler::QueryProfile`]), which follows it into the tasks and
/// blocking threads it spawns.
pub fn set_query_level(level: LogLevel) {
    granary_profiler::with_current(|query| {
        if let Some(query) = query {
            query.set_logs_level(level as u8);
        }
    });
}

/// The `send_logs_level` of the query the calling thread works for.
fn query_level() -> LogLevel {
    granary_profiler::with_current(|query| query.map_or(LogLevel::None, |q| LogLevel::from_u8(q.logs_level())))
}

/// The `tracing` layer feeding the text log; install it with [`TextLogLayer::filter`]
/// as its per-layer filter.
pub struct TextLogLayer;

impl TextLogLayer {
    pub fn filter() -> TextLogFilter {
        TextLogFilter
    }
}

/// Keeps records at the text log's level, and records the current query asked for.
pub struct TextLogFilter;

impl<S: Subscriber> Filter<S> for TextLogFilter {
    fn enabled(&self, meta: &Metadata<'_>, _cx: &Context<'_, S>) -> bool {
        if meta.is_span() {
            return false;
        }
        let level = LogLevel::of(meta.level());
        level <= text_log_level() || level <= query_level()
    }

    fn callsite_enabled(&self, _meta: &'static Metadata<'static>) -> Interest {
        // Whether a record is kept depends on the query it is in: ask every time.
        Interest::sometimes()
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::TRACE)
    }
}

/// The outermost layer of the process's logging: turns a record off for every layer at
/// once when no output wants it (not the server log's outputs at their levels, not the
/// text log, not the query being worked for).
///
/// Per-layer filters alone do not do that: `tracing-subscriber` still builds and
/// dispatches a record every one of them refused, so each `debug!` of a finished query
/// was formatted (byte sizes, rates) on every request for nobody.
pub struct LevelGate {
    /// The most detailed level the server log's outputs show (stderr, log file).
    outputs: LogLevel,
}

impl LevelGate {
    pub fn new(outputs: LogLevel) -> Self {
        LevelGate { outputs }
    }

    fn wants(&self, meta: &Metadata<'_>) -> bool {
        let level = LogLevel::of(meta.level());
        level <= self.outputs || level <= text_log_level() || level <= query_level()
    }
}

impl<S: Subscriber> Layer<S> for LevelGate {
    fn register_callsite(&self, _meta: &'static Metadata<'static>) -> Interest {
        // The text log's level and a query's `send_logs_level` change at run time.
        Interest::sometimes()
    }

    fn enabled(&self, meta: &Metadata<'_>, _cx: Context<'_, S>) -> bool {
        self.wants(meta)
    }
}

thread_local! {
    /// Set while a record is being stored: the log's own error reporting must not loop.
    static STORING: Cell<bool> = const { Cell::new(false) };
    static THREAD_ID: u64 = {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed)
    };
}

impl<S: Subscriber> Layer<S> for TextLogLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if STORING.with(Cell::get) {
            return;
        }
        let Some(log) = SINK.read().ok().and_then(|s| s.as_ref().and_then(Weak::upgrade)) else { return };
        let entry = entry_of(event);
        STORING.with(|s| s.set(true));
        log.push(entry);
        STORING.with(|s| s.set(false));
    }
}

/// A record as a `system.text_log` row.
pub fn entry_of(event: &tracing::Event<'_>) -> TextLogEntry {
    let meta = event.metadata();
    let mut fields = EventFields::default();
    event.record(&mut fields);
    let query_id = granary_profiler::with_current(|query| query.map(|q| q.query_id().to_string())).unwrap_or_default();
    let thread = std::thread::current();
    TextLogEntry {
        event_time_us: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_micros() as i64).unwrap_or(0),
        thread_name: thread.name().unwrap_or_default().to_string(),
        thread_id: THREAD_ID.with(|id| *id),
        level: LogLevel::of(meta.level()),
        query_id,
        logger_name: fields.logger.unwrap_or_else(|| meta.target().to_string()),
        message: fields.message,
        source_file: meta.file().unwrap_or_default().to_string(),
        source_line: meta.line().unwrap_or(0) as u64,
    }
}

/// The server log as JSON lines with ClickHouse's keys (`<formatting><type>json`):
/// `date_time`, `thread_name`, `thread_id`, `level`, `query_id`, `logger_name`,
/// `message`, `source_file`, `source_line`. One `write` per record, unbuffered: a
/// killed server loses no line it wrote.
pub struct JsonLogLayer {
    out: std::sync::Mutex<Box<dyn std::io::Write + Send>>,
}

impl JsonLogLayer {
    pub fn new(out: Box<dyn std::io::Write + Send>) -> Self {
        JsonLogLayer { out: std::sync::Mutex::new(out) }
    }
}

impl<S: Subscriber> Layer<S> for JsonLogLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let e = entry_of(event);
        let time = chrono::DateTime::from_timestamp_micros(e.event_time_us).unwrap_or_default();
        let line = serde_json::json!({
            "date_time": time.format("%Y.%m.%d %H:%M:%S%.6f").to_string(),
            "thread_name": e.thread_name,
            "thread_id": e.thread_id.to_string(),
            "level": e.level.name(),
            "query_id": e.query_id,
            "logger_name": e.logger_name,
            "message": e.message,
            "source_file": e.source_file,
            "source_line": e.source_line.to_string(),
        });
        let mut text = line.to_string();
        text.push('\n');
        if let Ok(mut out) = self.out.lock() {
            let _ = out.write_all(text.as_bytes());
        }
    }
}

/// The message of a record, its other fields appended as `name=value`.
#[derive(Default)]
struct EventFields {
    message: String,
    logger: Option<String>,
}

impl EventFields {
    fn append(&mut self, name: &str, value: std::fmt::Arguments<'_>) {
        match name {
            "message" => {
                let rest = std::mem::take(&mut self.message);
                let _ = write!(self.message, "{value}");
                if !rest.is_empty() {
                    self.message.push(' ');
                    self.message.push_str(&rest);
                }
            }
            "logger" => self.logger = Some(value.to_string()),
            _ => {
                if !self.message.is_empty() {
                    self.message.push(' ');
                }
                let _ = write!(self.message, "{name}={value}");
            }
        }
    }
}

impl Visit for EventFields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.append(field.name(), format_args!("{value}"));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.append(field.name(), format_args!("{value:?}"));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    #[test]
    fn levels_parse_like_clickhouse() {
        assert_eq!(LogLevel::parse("trace").unwrap(), LogLevel::Trace);
        assert_eq!(LogLevel::parse("Information").unwrap(), LogLevel::Information);
        assert_eq!(LogLevel::parse("info").unwrap(), LogLevel::Information);
        assert_eq!(LogLevel::parse("none").unwrap(), LogLevel::None);
        assert_eq!(LogLevel::parse("loud").unwrap_err().code(), ErrorCode::BAD_ARGUMENTS);
        assert!(LogLevel::Error < LogLevel::Debug);
    }

    /// The one test touching the process-wide sink: records at the log's level are
    /// kept, more detailed ones only while working for a query that asked for them.
    #[test]
    fn keeps_what_the_level_or_the_query_asks_for() {
        let log = Arc::new(TextLog::new(100));
        attach(&log, LogLevel::Information);
        let subscriber = tracing_subscriber::registry().with(TextLogLayer.with_filter(TextLogLayer::filter()));
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(target: "startup", "listening");
            tracing::debug!("not kept outside a verbose query");
            let quiet = granary_profiler::QueryProfile::new("q1", 0, 0);
            {
                let _working = quiet.enter();
                tracing::debug!("not kept: q1 asked for nothing");
            }
            let verbose = granary_profiler::QueryProfile::new("q2", 0, 0);
            let carried = {
                let _working = verbose.enter();
                tracing::debug!("not kept yet: q2 asks for traces in its SETTINGS clause");
                set_query_level(LogLevel::Trace);
                tracing::trace!(logger = "default.t (SelectExecutor)", rows = 3, "Selected 1/2 parts");
                granary_profiler::carry(|| tracing::warn!(target: "executeQuery", "slow"))
            };
            tracing::debug!("not kept: no longer working for q2");
            // What q2 hands to other work (a blocking thread's closure) is still q2's.
            carried();
        });
        let entries = log.snapshot();
        let seen: Vec<_> = entries.iter().map(|e| (e.level, e.query_id.as_str(), e.logger_name.as_str(), e.message.as_str())).collect();
        assert_eq!(
            seen,
            vec![
                (LogLevel::Information, "", "startup", "listening"),
                (LogLevel::Trace, "q2", "default.t (SelectExecutor)", "Selected 1/2 parts rows=3"),
                (LogLevel::Warning, "q2", "executeQuery", "slow"),
            ]
        );
    }
}
