//! Where the process's log records go: stderr (human-readable), an optional log file
//! (text or ClickHouse's JSON lines) and `system.text_log` (see
//! [`granary_query::text_log`]), each with a level of its own.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use granary_common::{Error, ErrorCode, Result};
use granary_query::text_log::{entry_of, JsonLogLayer, LevelGate, LogLevel, TextLogEntry, TextLogLayer};
use tracing::Subscriber;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// The log file of `[logger] log`.
pub struct LogFile<'a> {
    pub path: &'a Path,
    pub json: bool,
}

/// Installs the process's logging. `stderr_level` applies unless `GRANARY_LOG` (an
/// `EnvFilter` directive such as `debug` or `granary_mergetree=trace`) is set.
pub fn init(stderr_level: LogLevel, file: Option<LogFile<'_>>, file_level: LogLevel) -> Result<()> {
    let stderr_filter = EnvFilter::try_from_env("GRANARY_LOG").unwrap_or_else(|_| EnvFilter::default().add_directive(stderr_level.level_filter().into()));
    let stderr = tracing_subscriber::fmt::layer().event_format(ServerLogFormat).with_writer(std::io::stderr).with_filter(stderr_filter);
    let file_present = file.is_some();
    let (json_file, text_file) = match file {
        None => (None, None),
        Some(file) => {
            if let Some(dir) = file.path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)?;
            }
            let out = OpenOptions::new()
                .create(true)
                .append(true)
                .open(file.path)
                .map_err(|e| Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot open log file {}: {e}", file.path.display())))?;
            let filter = file_level.level_filter();
            if file.json {
                (Some(JsonLogLayer::new(Box::new(out)).with_filter(filter)), None)
            } else {
                let layer = tracing_subscriber::fmt::layer().event_format(ServerLogFormat).with_writer(std::sync::Mutex::new(out)).with_filter(filter);
                (None, Some(layer))
            }
        }
    };
    // GRANARY_LOG may name any level for some targets: the gate then lets everything
    // through to the per-layer filters.
    let stderr_most = if std::env::var_os("GRANARY_LOG").is_some() { LogLevel::Trace } else { stderr_level };
    let outputs = if file_present { stderr_most.max(file_level) } else { stderr_most };
    tracing_subscriber::registry()
        .with(TextLogLayer.with_filter(TextLogLayer::filter()))
        .with(stderr)
        .with(json_file)
        .with(text_file)
        .with(LevelGate::new(outputs))
        .try_init()
        .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("Cannot set up logging: {e}")))
}

/// Server log lines as ClickHouse writes them (`clickhouse-server.log`):
/// `2026.11.23 10:00:00.123456 [ 7 ] {query_id} <Debug> executeQuery: message`. The query
/// id is the one the thread works for (`text_log::entry_of`); `{}` outside a query.
struct ServerLogFormat;

impl<S: Subscriber + for<'a> LookupSpan<'a>, N: for<'a> FormatFields<'a> + 'static> FormatEvent<S, N> for ServerLogFormat {
    fn format_event(&self, _ctx: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &tracing::Event<'_>) -> std::fmt::Result {
        let e = entry_of(event);
        let time = chrono::DateTime::from_timestamp_micros(e.event_time_us).unwrap_or_default().format("%Y.%m.%d %H:%M:%S%.6f");
        writeln!(writer, "{time} [ {} ] {{{}}} <{}> {}: {}", e.thread_id, e.query_id, e.level.name(), e.logger_name, e.message)
    }
}

/// A server log record as clickhouse-client prints it:
/// `[host] 2026.11.23 10:00:00.123456 [ 7 ] {query_id} <Debug> executeQuery: message`.
pub struct ClientLogLine<'a> {
    pub host: &'a str,
    /// `YYYY-MM-DD hh:mm:ss.ffffff`, as `system.text_log.event_time_microseconds` prints.
    pub time: &'a str,
    pub thread_id: u64,
    pub query_id: &'a str,
    pub level: &'a str,
    pub logger_name: &'a str,
    pub message: &'a str,
}

impl std::fmt::Display for ClientLogLine<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // clickhouse-client writes dates with dots.
        let time = self.time.get(..10).map(|date| date.replace('-', ".") + &self.time[10..]).unwrap_or_else(|| self.time.to_string());
        write!(f, "[{}] {time} [ {} ] {{{}}} <{}> {}: {}", self.host, self.thread_id, self.query_id, self.level, self.logger_name, self.message)
    }
}

/// Prints the records of `entries` at `level` and above to stderr (`granary local`).
pub fn print_entries(host: &str, entries: &[TextLogEntry], level: LogLevel) {
    let mut stderr = std::io::stderr().lock();
    for e in entries.iter().filter(|e| e.level <= level) {
        let time = chrono::DateTime::from_timestamp_micros(e.event_time_us).unwrap_or_default().format("%Y-%m-%d %H:%M:%S%.6f").to_string();
        let line = ClientLogLine {
            host,
            time: &time,
            thread_id: e.thread_id,
            query_id: &e.query_id,
            level: e.level.name(),
            logger_name: &e.logger_name,
            message: &e.message,
        };
        let _ = writeln!(stderr, "{line}");
    }
}
