//! `granary client`: clickhouse-client over the HTTP interface.
//!
//! Queries go as `POST /` bodies; an `INSERT ... FORMAT X` given by `--query` takes its
//! data from stdin, streamed as the request body (never read whole). Results stream to
//! stdout as they arrive. Unknown `--name=value` flags are ClickHouse settings.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Instant;

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{BodyExt, Empty, Full, StreamBody};
use hyper::body::Frame;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

#[derive(clap::Args, Debug)]
pub struct ClientArgs {
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    #[arg(long, default_value_t = 8123)]
    port: u16,
    #[arg(long, short = 'u', default_value = "default")]
    user: String,
    #[arg(long, default_value = "")]
    password: String,
    #[arg(long, short = 'd')]
    database: Option<String>,
    /// Queries separated by `;`. Without it, queries come from stdin (or the prompt).
    #[arg(long, short = 'q')]
    query: Option<String>,
    /// Output format (sent as default_format).
    #[arg(long, short = 'f')]
    format: Option<String>,
    /// Print elapsed time and rows read to stderr after each query.
    #[arg(long, short = 't')]
    time: bool,
    /// Settings: any other `--name=value` or `--name value` (split off by [`split_setting_flags`]).
    #[arg(skip)]
    pub settings: Vec<String>,
}

type BoxBody = http_body_util::combinators::BoxBody<Bytes, std::io::Error>;

struct Connection {
    client: Client<hyper_util::client::legacy::connect::HttpConnector, BoxBody>,
    base: String,
    args_params: Vec<(String, String)>,
    user: String,
    password: String,
}

/// What a query returned: its exit code (0 when it succeeded).
struct QueryOutcome {
    code: i32,
}

pub fn run(args: ClientArgs) -> ExitCode {
    let settings = match parse_setting_flags(&args.settings) {
        Ok(s) => s,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(36);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("Cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(async move { run_async(args, settings).await });
    ExitCode::from(code)
}

/// Flags of `granary client` itself; every other `--name` is a setting.
const CLIENT_FLAGS: &[&str] = &["--host", "--port", "--user", "-u", "--password", "--database", "-d", "--query", "-q", "--format", "-f"];
const CLIENT_SWITCHES: &[&str] = &["--time", "-t", "--help", "-h"];

/// Splits `granary client` arguments into its own flags and settings, which may appear
/// anywhere (`granary client --max_threads=1 --query ...`).
pub fn split_setting_flags(args: Vec<String>) -> (Vec<String>, Vec<String>) {
    let (mut own, mut settings) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let name = arg.split_once('=').map(|(n, _)| n).unwrap_or(arg);
        if CLIENT_SWITCHES.contains(&name) || !arg.starts_with('-') {
            own.push(arg.clone());
        } else if CLIENT_FLAGS.contains(&name) {
            own.push(arg.clone());
            if !arg.contains('=') {
                if let Some(value) = args.get(i + 1) {
                    own.push(value.clone());
                    i += 1;
                }
            }
        } else {
            settings.push(arg.clone());
            if !arg.contains('=') {
                if let Some(value) = args.get(i + 1) {
                    settings.push(value.clone());
                    i += 1;
                }
            }
        }
        i += 1;
    }
    (own, settings)
}

/// `--max_threads=2`, `--max_threads 2`, `--format_csv_delimiter ';'`.
fn parse_setting_flags(raw: &[String]) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        let flag = raw[i].strip_prefix("--").ok_or_else(|| format!("Unexpected argument: {}", raw[i]))?;
        if let Some((name, value)) = flag.split_once('=') {
            out.push((name.to_string(), value.to_string()));
            i += 1;
        } else {
            let value = raw.get(i + 1).ok_or_else(|| format!("Setting --{flag} needs a value"))?;
            out.push((flag.to_string(), value.clone()));
            i += 2;
        }
    }
    Ok(out)
}

async fn run_async(args: ClientArgs, settings: Vec<(String, String)>) -> u8 {
    let interactive = args.query.is_none() && std::io::stdin().is_terminal();
    let mut params = settings;
    if let Some(db) = &args.database {
        params.push(("database".into(), db.clone()));
    }
    match (&args.format, interactive) {
        (Some(f), _) => params.push(("default_format".into(), f.clone())),
        (None, true) => params.push(("default_format".into(), "PrettyCompact".into())),
        _ => {}
    }
    let connection = Connection {
        client: Client::builder(TokioExecutor::new()).build_http(),
        base: format!("http://{}:{}/", args.host, args.port),
        args_params: params,
        user: args.user.clone(),
        password: args.password.clone(),
    };
    if interactive {
        return interactive_loop(&connection).await;
    }
    let (script, mut stdin_data) = match &args.query {
        Some(q) => (q.clone(), !std::io::stdin().is_terminal()),
        None => {
            let mut text = String::new();
            if let Err(e) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut text) {
                eprintln!("Cannot read stdin: {e}");
                return 74;
            }
            (text, false)
        }
    };
    let statements = match granary_sql::split_statements(&script) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{}", e.to_clickhouse_string());
            return 62;
        }
    };
    for statement in statements {
        let with_stdin = stdin_data && is_insert_with_format(statement);
        if with_stdin {
            stdin_data = false;
        }
        let outcome = run_query(&connection, statement, with_stdin, args.time).await;
        if outcome.code != 0 {
            return (outcome.code % 256).max(1) as u8;
        }
    }
    0
}

fn is_insert_with_format(statement: &str) -> bool {
    let upper = statement.to_ascii_uppercase();
    upper.trim_start().starts_with("INSERT") && upper.contains(" FORMAT ")
}

async fn interactive_loop(connection: &Connection) -> u8 {
    let mut editor = match rustyline::DefaultEditor::new() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("Cannot start the prompt: {e}");
            return 1;
        }
    };
    let history = std::env::var("HOME").map(|h| std::path::PathBuf::from(h).join(".granary_client_history")).ok();
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    eprintln!("Connected to Granary at {}", connection.base);
    let mut pending = String::new();
    loop {
        let prompt = if pending.is_empty() { "granary :) " } else { "         :-] " };
        match editor.readline(prompt) {
            Ok(line) => {
                let trimmed = line.trim();
                if pending.is_empty() && matches!(trimmed, "exit" | "quit" | "q" | "exit;" | "quit;") {
                    break;
                }
                pending.push_str(&line);
                pending.push('\n');
                if !trimmed.ends_with(';') {
                    continue;
                }
                let text = std::mem::take(&mut pending);
                let _ = editor.add_history_entry(text.trim());
                let statements = granary_sql::split_statements(&text).unwrap_or_default();
                for statement in statements {
                    tokio::select! {
                        _ = run_query(connection, statement, false, true) => {}
                        _ = tokio::signal::ctrl_c() => eprintln!("Query was cancelled."),
                    }
                }
            }
            Err(rustyline::error::ReadlineError::Interrupted) => pending.clear(),
            Err(_) => break,
        }
    }
    if let Some(path) = &history {
        let _ = editor.save_history(path);
    }
    0
}

async fn run_query(connection: &Connection, sql: &str, stdin_body: bool, show_time: bool) -> QueryOutcome {
    let started = Instant::now();
    let mut url = url::Url::parse(&connection.base).unwrap_or_else(|_| url::Url::parse("http://127.0.0.1:8123/").expect("static URL"));
    {
        let mut pairs = url.query_pairs_mut();
        for (k, v) in &connection.args_params {
            pairs.append_pair(k, v);
        }
        if stdin_body {
            pairs.append_pair("query", sql);
        }
    }
    let body: BoxBody = if stdin_body {
        BodyExt::boxed(StreamBody::new(stdin_chunks().map(|chunk| chunk.map(Frame::data))))
    } else if sql.is_empty() {
        BodyExt::boxed(Empty::new().map_err(|never| match never {}))
    } else {
        BodyExt::boxed(Full::new(Bytes::from(sql.to_string())).map_err(|never| match never {}))
    };
    let request = hyper::Request::post(url.as_str())
        .header("X-ClickHouse-User", &connection.user)
        .header("X-ClickHouse-Key", &connection.password)
        .body(body);
    let request = match request {
        Ok(r) => r,
        Err(e) => {
            eprintln!("Cannot build the request: {e}");
            return QueryOutcome { code: 36 };
        }
    };
    let response = match connection.client.request(request).await {
        Ok(r) => r,
        Err(e) => {
            let host = connection.base.trim_start_matches("http://").trim_end_matches('/');
            eprintln!("Code: 210. DB::NetException: Connection refused ({host}): {e}. (NETWORK_ERROR)");
            return QueryOutcome { code: 210 };
        }
    };
    let status = response.status();
    let exception_code = response
        .headers()
        .get("X-ClickHouse-Exception-Code")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i32>().ok());
    let summary = response.headers().get("X-ClickHouse-Summary").and_then(|v| v.to_str().ok()).map(str::to_string);
    let mut body = response.into_body();
    let mut stdout = std::io::stdout();
    let mut error_text = Vec::new();
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(frame) => {
                if let Some(data) = frame.data_ref() {
                    if status.is_success() {
                        let _ = stdout.write_all(data);
                    } else {
                        error_text.extend_from_slice(data);
                    }
                }
            }
            Err(e) => {
                let _ = stdout.flush();
                eprintln!("The response was cut short: {e}");
                return QueryOutcome { code: 210 };
            }
        }
    }
    let _ = stdout.flush();
    if !status.is_success() {
        eprintln!("Received exception from server:\n{}", String::from_utf8_lossy(&error_text).trim_end());
        return QueryOutcome { code: exception_code.unwrap_or(1000) };
    }
    if show_time {
        eprintln!("{}", summary_line(summary.as_deref(), started.elapsed().as_secs_f64()));
    }
    QueryOutcome { code: 0 }
}

fn stdin_chunks() -> impl futures::Stream<Item = Result<Bytes, std::io::Error>> + Send {
    use tokio::io::AsyncReadExt;
    futures::stream::unfold(tokio::io::stdin(), |mut stdin| async move {
        let mut buffer = vec![0u8; 1 << 20];
        match stdin.read(&mut buffer).await {
            Ok(0) => None,
            Ok(n) => {
                buffer.truncate(n);
                Some((Ok(Bytes::from(buffer)), stdin))
            }
            Err(e) => Some((Err(e), stdin)),
        }
    })
}

/// `N rows in set. Elapsed: 0.003 sec. Processed 1.00 million rows, 8.00 MB (...)`.
fn summary_line(summary: Option<&str>, elapsed: f64) -> String {
    let field = |name: &str| -> u64 {
        summary
            .and_then(|s| serde_json::from_str::<serde_json::Value>(s).ok())
            .and_then(|v| v.get(name).and_then(|x| x.as_str().and_then(|s| s.parse().ok()).or_else(|| x.as_u64())))
            .unwrap_or(0)
    };
    let (rows, read_rows, read_bytes) = (field("result_rows"), field("read_rows"), field("read_bytes"));
    let mut line = format!("{rows} row{} in set. Elapsed: {elapsed:.3} sec.", if rows == 1 { "" } else { "s" });
    if read_rows > 0 {
        let rate = |v: u64| if elapsed > 0.0 { v as f64 / elapsed } else { 0.0 };
        line.push_str(&format!(
            " Processed {} rows, {} ({} rows/s., {}/s.)",
            readable_quantity(read_rows as f64),
            readable_size(read_bytes as f64),
            readable_quantity(rate(read_rows)),
            readable_size(rate(read_bytes))
        ));
    }
    line
}

/// ClickHouse's formatReadableQuantity: `1.00 million`.
fn readable_quantity(value: f64) -> String {
    const UNITS: [&str; 6] = ["", " thousand", " million", " billion", " trillion", " quadrillion"];
    let mut v = value;
    let mut i = 0;
    while v >= 1000.0 && i + 1 < UNITS.len() {
        v /= 1000.0;
        i += 1;
    }
    if i == 0 {
        format!("{}", value.round() as u64)
    } else {
        format!("{v:.2}{}", UNITS[i])
    }
}

/// ClickHouse's formatReadableSizeWithDecimalSuffix: `8.00 MB`.
fn readable_size(value: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KB", "MB", "GB", "TB", "PB"];
    let mut v = value;
    let mut i = 0;
    while v >= 1000.0 && i + 1 < UNITS.len() {
        v /= 1000.0;
        i += 1;
    }
    format!("{v:.2} {}", UNITS[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_flags() {
        let raw: Vec<String> = ["--max_threads=2", "--format_csv_delimiter", ";"].iter().map(|s| s.to_string()).collect();
        assert_eq!(
            parse_setting_flags(&raw).unwrap(),
            vec![("max_threads".to_string(), "2".to_string()), ("format_csv_delimiter".to_string(), ";".to_string())]
        );
        assert!(parse_setting_flags(&["oops".to_string()]).is_err());
    }

    #[test]
    fn readable_numbers() {
        assert_eq!(readable_quantity(1_000_000.0), "1.00 million");
        assert_eq!(readable_quantity(314_150_000.0), "314.15 million");
        assert_eq!(readable_size(8_000_000.0), "8.00 MB");
        assert_eq!(readable_size(2_510_000_000.0), "2.51 GB");
        assert_eq!(readable_quantity(12.0), "12");
    }

    #[test]
    fn summary_from_header() {
        let s = summary_line(Some(r#"{"read_rows":"1000000","read_bytes":"8000000","result_rows":"1"}"#), 1.0);
        assert_eq!(s, "1 row in set. Elapsed: 1.000 sec. Processed 1.00 million rows, 8.00 MB (1.00 million rows/s., 8.00 MB/s.)");
    }
}
