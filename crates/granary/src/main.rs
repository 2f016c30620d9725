//! `granary`: the server, the embedded `local` mode and the client, in one binary.
//!
//! ```text
//! granary server [--config FILE] [--path DIR] [--http-port PORT] [--listen ADDR] [--user-files-path DIR]
//! granary local  [--path DIR] [--query SQL] [--format FMT]
//! granary benchmark [--path DIR | --host H --port P] [-c N] [-i N] [-t SEC] [--query SQL] [--setting name=value...]
//! granary client [--host H] [--port P] [--user U] [--password X] [--database D] [--query SQL] [--format FMT] [--<setting>=<value>...]
//! ```

mod benchmark;
mod client;
mod local;
mod logging;
mod server;

use std::process::ExitCode;

// Short queries allocate many small objects (plans, expressions, batches) on every
// request; mimalloc's per-thread free lists cut that cost under concurrency.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "granary", version, about = "Granary: a ClickHouse-compatible analytical database")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the server (ClickHouse HTTP interface).
    Server(server::ServerArgs),
    /// Run queries in-process on a data directory, like clickhouse-local.
    Local(local::LocalArgs),
    /// Talk to a running server, like clickhouse-client.
    Client(client::ClientArgs),
    /// Run queries repeatedly and report QPS and latency percentiles, like
    /// clickhouse-benchmark (against a server, or in-process with --path).
    Benchmark(benchmark::BenchmarkArgs),
}

/// The runtime queries run on, with the profiler's hooks that tell which query each task
/// works for (system.trace_log).
fn query_runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    granary_profiler::runtime_hooks(tokio::runtime::Builder::new_multi_thread().enable_all().thread_name("granary")).build().map_err(|e| {
        eprintln!("Cannot start the runtime: {e}");
        ExitCode::FAILURE
    })
}

fn main() -> ExitCode {
    granary_profiler::allocator::configure_allocator();
    let cli = Cli::parse();
    match cli.command {
        Command::Server(args) => server::run(args),
        Command::Local(args) => local::run(args),
        Command::Client(args) => client::run(args),
        Command::Benchmark(args) => benchmark::run(args),
    }
}
