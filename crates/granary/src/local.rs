//! `granary local`: the same engine in-process, on a data directory or a temporary one.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use granary_query::{Instance, InstanceConfig, QueryRequest};

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
}

pub fn run(args: LocalArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("Cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
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
    let temporary;
    let path = match args.path {
        Some(p) => p,
        None => {
            temporary = tempfile::tempdir()?;
            temporary.path().to_path_buf()
        }
    };
    let instance = Instance::open(InstanceConfig::new(path))?;
    let script = match args.query {
        Some(q) => q,
        None => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text)?;
            text
        }
    };
    let mut session = instance.new_session("default");
    let stdout = std::io::stdout();
    for statement in granary_sql::split_statements(&script)? {
        let mut request = QueryRequest::new(statement);
        request.default_format = args.format.clone();
        let mut response = instance.execute(&mut session, request).await?;
        while let Some(chunk) = response.body.recv().await {
            let chunk = chunk?;
            let mut out = stdout.lock();
            out.write_all(&chunk)?;
        }
        stdout.lock().flush()?;
    }
    Ok(())
}
