//! `granary server`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use granary_query::{Instance, InstanceConfig};
use granary_common::{Error, ErrorCode};
use granary_query::text_log::LogLevel;
use granary_server::config::LoggerConfig;
use granary_server::{run_server, ServerConfig};

#[derive(clap::Args, Debug)]
pub struct ServerArgs {
    /// TOML configuration file.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Data directory [default: ./granary-data].
    #[arg(long)]
    path: Option<PathBuf>,
    /// HTTP port [default: 8123].
    #[arg(long = "http-port")]
    http_port: Option<u16>,
    /// Address to listen on [default: 127.0.0.1].
    #[arg(long)]
    listen: Option<String>,
    /// Directory that file() may access [default: <path>/user_files].
    #[arg(long = "user-files-path")]
    user_files_path: Option<PathBuf>,
}

pub fn run(args: ServerArgs) -> ExitCode {
    let mut config = match &args.config {
        Some(file) => match ServerConfig::from_file(file) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{}", e.to_clickhouse_string());
                return ExitCode::from(2);
            }
        },
        None => ServerConfig::default(),
    };
    if let Some(path) = args.path {
        config.path = path;
    }
    if let Some(port) = args.http_port {
        config.http_port = port;
    }
    if let Some(listen) = args.listen {
        config.listen_host = listen;
    }
    if let Some(dir) = args.user_files_path {
        config.user_files_path = Some(dir);
    }
    if let Err(e) = init_logging(&config.logger) {
        eprintln!("{}", e.to_clickhouse_string());
        return ExitCode::from(2);
    }
    let runtime = match crate::query_runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    match runtime.block_on(serve(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", e.to_clickhouse_string());
            ExitCode::FAILURE
        }
    }
}

async fn serve(config: ServerConfig) -> granary_common::Result<()> {
    let mut instance_config = InstanceConfig::new(&config.path);
    instance_config.user_files_path = config.user_files_path();
    instance_config.s3_endpoints = std::sync::Arc::new(config.s3.values().cloned().collect());
    instance_config.max_concurrent_queries = config.max_concurrent_queries;
    instance_config.query_log_capacity = config.query_log_capacity;
    instance_config.text_log_level = LogLevel::parse(&config.logger.text_log_level)?;
    instance_config.uncompressed_cache_size = config.uncompressed_cache_size;
    instance_config.mark_cache_size = config.mark_cache_size;
    instance_config.access = config.access_entities()?;
    instance_config.dictionaries_config = config.dictionaries_config_pattern();
    instance_config.named_collections = config.named_collections()?;
    instance_config.graphite_rollups = std::sync::Arc::new(config.graphite_rollups()?);
    let instance = Instance::open(instance_config)?;
    let handle = run_server(&config, instance.clone()).await?;
    tracing::info!("Granary {} listening on http://{} (data in {})", env!("CARGO_PKG_VERSION"), handle.local_addr, config.path.display());
    match handle.tls_addr {
        Some(tls) => eprintln!("Granary is ready: http://{} and https://{tls}", handle.local_addr),
        None => eprintln!("Granary is ready: http://{}", handle.local_addr),
    }
    wait_for_shutdown_signal().await;
    tracing::info!("shutting down");
    handle.shutdown(Duration::from_secs(config.shutdown_wait_seconds)).await;
    // INSERTs acknowledged with wait_for_async_insert = 0 are written before exiting.
    instance.flush_async_inserts().await;
    instance.flush_buffers().await;
    Ok(())
}

async fn wait_for_shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

fn init_logging(logger: &LoggerConfig) -> granary_common::Result<()> {
    let level = LogLevel::parse(&logger.level)?;
    let json = match logger.formatting.to_ascii_lowercase().as_str() {
        "text" => false,
        "json" => true,
        other => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Bad config: [logger] formatting must be text or json, not {other}"))),
    };
    let file = logger.log.as_deref().map(|path| crate::logging::LogFile { path, json });
    crate::logging::init(level, file, level)
}
