//! `granary local`: the same engine in-process, on a data directory or a temporary one.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use granary_query::text_log::LogLevel;
use granary_query::{Instance, InstanceConfig, QueryRequest, Session};

#[derive(clap::Args, Debug)]
pub struct LocalArgs {
    /// Data directory; a temporary one when not given.
    #[arg(long)]
    path: Option<PathBuf>,
    /// Queries to run (separated by `;`); read from stdin when not given.
    #[arg(long, short = 'q')]
    query: Option<String>,
    /// Output format [default: TabSeparated].
    #[arg(long, short = 'f')]
    format: Option<String>,
    /// Print each query's log records down to this level to stderr (`trace`, `debug`,
    /// `information`, ...), as clickhouse-local does.
    #[arg(long = "send_logs_level", alias = "send-logs-level")]
    send_logs_level: Option<String>,
}

pub fn run(args: LocalArgs) -> ExitCode {
    let runtime = match crate::query_runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    match runtime.block_on(run_queries(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", e.to_clickhouse_string());
            ExitCode::from((e.code().number() % 256).max(1) as u8)
        }
    }
}

async fn run_queries(args: LocalArgs) -> granary_common::Result<()> {
    let logs_level = match &args.send_logs_level {
        Some(level) => LogLevel::parse(level)?,
        None => LogLevel::None,
    };
    // Nothing on stderr unless GRANARY_LOG asks; the records still reach system.text_log.
    crate::logging::init(LogLevel::None, None, LogLevel::None)?;
    let temporary;
    let path = match args.path {
        Some(p) => p,
        None => {
            temporary = tempfile::tempdir()?;
            temporary.path().to_path_buf()
        }
    };
    let instance = Instance::open(InstanceConfig::new(path))?;
    // With --query, stdin (when it is not a terminal) is the data of an INSERT ... FORMAT,
    // as with clickhouse-local; without it, stdin holds the queries.
    let (script, mut stdin_data) = match args.query {
        Some(q) => (q, (!std::io::stdin().is_terminal()).then(stdin_stream)),
        None => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text)?;
            (text, None)
        }
    };
    let mut session = instance.new_session("default");
    let stdout = std::io::stdout();
    for (n, statement) in granary_sql::split_statements(&script)?.into_iter().enumerate() {
        let mut request = QueryRequest::new(statement);
        request.default_format = args.format.clone();
        if is_insert_with_format(statement) {
            request.input = stdin_data.take();
        }
        let query_id = format!("local-{}-{n}", std::process::id());
        request.query_id = Some(query_id.clone());
        if let Some(level) = &args.send_logs_level {
            request.settings.push(("send_logs_level".into(), level.clone()));
        }
        let result = write_result(&instance, &mut session, request, &stdout).await;
        if logs_level > LogLevel::None {
            crate::logging::print_entries("local", &instance.text_log_of(&query_id), logs_level);
        }
        if result.is_err() {
            session.temporary_tables.flush_buffers().await;
            instance.flush_async_inserts().await;
            instance.flush_buffers().await;
        }
        result?;
    }
    // INSERTs queued with wait_for_async_insert = 0, and the rows of Buffer tables, are
    // written before the process ends.
    session.temporary_tables.flush_buffers().await;
    instance.flush_async_inserts().await;
    instance.flush_buffers().await;
    Ok(())
}

async fn write_result(instance: &std::sync::Arc<Instance>, session: &mut Session, request: QueryRequest, stdout: &std::io::Stdout) -> granary_common::Result<()> {
    let mut response = instance.execute(session, request).await?;
    while let Some(chunk) = response.body.recv().await {
        let chunk = chunk?;
        let mut out = stdout.lock();
        out.write_all(&chunk)?;
    }
    stdout.lock().flush()?;
    Ok(())
}

fn is_insert_with_format(statement: &str) -> bool {
    let upper = statement.to_ascii_uppercase();
    upper.trim_start().starts_with("INSERT") && upper.contains(" FORMAT ")
}

/// Stdin as a stream of 1 MiB chunks, never read whole.
fn stdin_stream() -> granary_query::ByteStream {
    use tokio::io::AsyncReadExt;
    let stdin = tokio::io::stdin();
    Box::pin(futures::stream::unfold(stdin, |mut stdin| async move {
        let mut buffer = vec![0u8; 1 << 20];
        match stdin.read(&mut buffer).await {
            Ok(0) => None,
            Ok(n) => {
                buffer.truncate(n);
                Some((Ok(bytes::Bytes::from(buffer)), stdin))
            }
            Err(e) => Some((Err(granary_common::Error::from(e)), stdin)),
        }
    }))
}
