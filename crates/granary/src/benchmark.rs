//! `granary benchmark`: runs queries over and over and reports QPS and latency
//! percentiles, like clickhouse-benchmark — against a server over HTTP (one keep-alive
//! connection per concurrent worker), or in-process on a data directory (`--path`),
//! which measures the engine without the protocol.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;

use crate::client::http::{connect, Endpoint};
use crate::client::report::Progress;

#[derive(clap::Args, Debug)]
pub struct BenchmarkArgs {
    /// Query to run; without it, queries are read from stdin, one per line.
    #[arg(long, short = 'q')]
    query: Option<String>,
    /// Queries run at the same time.
    #[arg(long, short = 'c', default_value_t = 1)]
    concurrency: usize,
    /// Stop after this many queries (0: no limit).
    #[arg(long, short = 'i', default_value_t = 0)]
    iterations: u64,
    /// Stop after this many seconds (0: no limit). Without it and --iterations, runs until Ctrl+C.
    #[arg(long, short = 't', default_value_t = 0.0)]
    timelimit: f64,
    /// Seconds between progress lines on stderr (0: none).
    #[arg(long, short = 'd', default_value_t = 1.0)]
    delay: f64,
    /// Pick the next query at random instead of in order.
    #[arg(long, short = 'r')]
    randomize: bool,
    /// Keep going after a failed query (they are counted).
    #[arg(long = "continue_on_errors", alias = "continue-on-errors")]
    continue_on_errors: bool,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// A setting for every query, `name=value` (repeatable).
    #[arg(long = "setting", short = 's')]
    settings: Vec<String>,
    /// Run in-process on this data directory instead of against a server.
    #[arg(long)]
    path: Option<PathBuf>,
    #[arg(long, default_value = "localhost")]
    host: String,
    #[arg(long, default_value_t = 8123)]
    port: u16,
    #[arg(long, default_value = "default")]
    user: String,
    #[arg(long, default_value = "")]
    password: String,
    #[arg(long)]
    database: Option<String>,
}

/// What one query cost and produced.
#[derive(Debug, Default, Clone, Copy)]
struct Measurement {
    seconds: f64,
    read_rows: u64,
    read_bytes: u64,
    result_rows: u64,
    result_bytes: u64,
}

/// Runs queries for one worker; returns its measurement or the error text.
enum Runner {
    Http { endpoint: Endpoint, params: String, sender: Option<hyper::client::conn::http1::SendRequest<Full<Bytes>>> },
    Local { instance: Arc<granary_query::Instance>, session: granary_query::Session, settings: Vec<(String, String)> },
}

impl Runner {
    async fn run(&mut self, sql: &str) -> Result<Measurement, String> {
        let started = Instant::now();
        match self {
            Runner::Local { instance, session, settings } => {
                let mut request = granary_query::QueryRequest::new(sql);
                request.settings = settings.clone();
                let mut response = instance.execute(session, request).await.map_err(|e| e.to_clickhouse_string())?;
                let mut result_bytes = 0u64;
                while let Some(chunk) = response.body.recv().await {
                    result_bytes += chunk.map_err(|e| e.to_clickhouse_string())?.len() as u64;
                }
                let seconds = started.elapsed().as_secs_f64();
                let p = response.progress.snapshot();
                Ok(Measurement { seconds, read_rows: p.read_rows, read_bytes: p.read_bytes, result_rows: p.result_rows, result_bytes })
            }
            Runner::Http { endpoint, params, sender } => {
                if sender.as_ref().is_none_or(|s| s.is_closed()) {
                    let stream = connect(endpoint).await.map_err(|e| e.to_string())?;
                    let (s, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
                    tokio::spawn(connection);
                    *sender = Some(s);
                }
                let Some(s) = sender.as_mut() else { return Err("no connection".into()) };
                s.ready().await.map_err(|e| e.to_string())?;
                let mut request = hyper::Request::post(format!("/?{params}"))
                    .header(hyper::header::HOST, endpoint.authority())
                    .header("X-ClickHouse-User", endpoint.user.as_str());
                if !endpoint.password.is_empty() {
                    request = request.header("X-ClickHouse-Key", endpoint.password.as_str());
                }
                let request = request.body(Full::new(Bytes::from(sql.to_string()))).map_err(|e| e.to_string())?;
                let response = s.send_request(request).await.map_err(|e| e.to_string())?;
                let status = response.status();
                let summary = response
                    .headers()
                    .get("X-ClickHouse-Summary")
                    .and_then(|v| Progress::from_json(v.as_bytes()))
                    .unwrap_or_default();
                let body = response.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
                if !status.is_success() {
                    return Err(String::from_utf8_lossy(&body).trim_end().to_string());
                }
                let seconds = started.elapsed().as_secs_f64();
                Ok(Measurement {
                    seconds,
                    read_rows: summary.read_rows,
                    read_bytes: summary.read_bytes,
                    result_rows: summary.result_rows,
                    result_bytes: body.len() as u64,
                })
            }
        }
    }
}

pub fn run(args: BenchmarkArgs) -> ExitCode {
    let runtime = match crate::query_runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    match runtime.block_on(benchmark(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

async fn benchmark(args: BenchmarkArgs) -> Result<(), String> {
    let queries: Vec<String> = match &args.query {
        Some(q) => vec![q.clone()],
        None => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|e| format!("Cannot read queries from stdin: {e}"))?;
            text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect()
        }
    };
    if queries.is_empty() {
        return Err("Empty list of queries.".into());
    }
    eprintln!("Loaded {} queries.", queries.len());
    let mut settings = Vec::new();
    for setting in &args.settings {
        let Some((name, value)) = setting.split_once('=') else { return Err(format!("--setting wants name=value, got {setting}")) };
        settings.push((name.trim().to_string(), value.trim().to_string()));
    }
    if let Some(database) = &args.database {
        settings.push(("database".into(), database.clone()));
    }
    let (label, mut runners) = match &args.path {
        Some(path) => {
            crate::logging::init(granary_query::text_log::LogLevel::None, None, granary_query::text_log::LogLevel::None).map_err(|e| e.to_clickhouse_string())?;
            let instance = granary_query::Instance::open(granary_query::InstanceConfig::new(path)).map_err(|e| e.to_clickhouse_string())?;
            let runners: Vec<Runner> = (0..args.concurrency.max(1))
                .map(|_| Runner::Local { instance: instance.clone(), session: instance.new_session("default"), settings: settings.clone() })
                .collect();
            ("local".to_string(), runners)
        }
        None => {
            let endpoint = Endpoint { host: args.host.clone(), port: args.port, user: args.user.clone(), password: args.password.clone() };
            let mut params = url::form_urlencoded::Serializer::new(String::new());
            for (name, value) in &settings {
                params.append_pair(name, value);
            }
            let params = params.finish();
            let runners = (0..args.concurrency.max(1)).map(|_| Runner::Http { endpoint: endpoint.clone(), params: params.clone(), sender: None }).collect();
            (endpoint.authority(), runners)
        }
    };

    let queries = Arc::new(queries);
    let started = Instant::now();
    let deadline = (args.timelimit > 0.0).then(|| started + Duration::from_secs_f64(args.timelimit));
    let issued = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    for (worker, mut runner) in runners.drain(..).enumerate() {
        let (queries, issued, done, stop) = (queries.clone(), issued.clone(), done.clone(), stop.clone());
        let (iterations, randomize, continue_on_errors) = (args.iterations, args.randomize, args.continue_on_errors);
        workers.push(tokio::spawn(async move {
            let mut measurements = Vec::new();
            let mut errors = 0u64;
            let mut random = 0x9E37_79B9_7F4A_7C15u64 ^ (worker as u64 + 1);
            while !stop.load(Ordering::Relaxed) && deadline.is_none_or(|d| Instant::now() < d) {
                let n = issued.fetch_add(1, Ordering::Relaxed);
                if iterations > 0 && n >= iterations {
                    break;
                }
                let index = if randomize {
                    random ^= random << 13;
                    random ^= random >> 7;
                    random ^= random << 17;
                    (random % queries.len() as u64) as usize
                } else {
                    (n % queries.len() as u64) as usize
                };
                match runner.run(&queries[index]).await {
                    Ok(m) => measurements.push(m),
                    Err(message) => {
                        errors += 1;
                        if !continue_on_errors {
                            stop.store(true, Ordering::Relaxed);
                            return (measurements, errors, Some(message));
                        }
                    }
                }
                done.fetch_add(1, Ordering::Relaxed);
            }
            (measurements, errors, None)
        }));
    }

    // Progress lines, and Ctrl+C stops the run with a report.
    let reporter = {
        let (done, stop) = (done.clone(), stop.clone());
        let delay = args.delay;
        tokio::spawn(async move {
            let mut ticker = (delay > 0.0).then(|| tokio::time::interval(Duration::from_secs_f64(delay)));
            loop {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {
                        stop.store(true, Ordering::Relaxed);
                        return;
                    }
                    _ = async { match ticker.as_mut() { Some(t) => { t.tick().await; } None => std::future::pending::<()>().await } } => {
                        eprintln!("Queries executed: {}.", done.load(Ordering::Relaxed));
                    }
                }
            }
        })
    };
    let mut measurements = Vec::new();
    let mut errors = 0u64;
    let mut first_error = None;
    for worker in workers {
        let (m, e, error) = worker.await.map_err(|e| format!("A benchmark worker failed: {e}"))?;
        measurements.extend(m);
        errors += e;
        first_error = first_error.or(error);
    }
    reporter.abort();
    let elapsed = started.elapsed().as_secs_f64();
    let report = Report::new(&label, &measurements, errors, elapsed);
    print!("{}", report.text());
    if let Some(path) = &args.json {
        std::fs::write(path, report.json()).map_err(|e| format!("Cannot write {}: {e}", path.display()))?;
    }
    match first_error {
        Some(message) => Err(message),
        None => Ok(()),
    }
}

const PERCENTILES: [f64; 14] = [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.9, 99.99];

struct Report {
    label: String,
    queries: usize,
    errors: u64,
    qps: f64,
    rps: f64,
    mib_per_second: f64,
    result_rps: f64,
    result_mib_per_second: f64,
    /// (percentile, seconds)
    percentiles: Vec<(f64, f64)>,
}

impl Report {
    fn new(label: &str, measurements: &[Measurement], errors: u64, elapsed: f64) -> Report {
        let per_second = |total: u64| if elapsed > 0.0 { total as f64 / elapsed } else { 0.0 };
        let sum = |f: fn(&Measurement) -> u64| measurements.iter().map(f).sum::<u64>();
        let mut times: Vec<f64> = measurements.iter().map(|m| m.seconds).collect();
        times.sort_by(f64::total_cmp);
        let percentiles = PERCENTILES
            .iter()
            .map(|&p| {
                let value = if times.is_empty() { 0.0 } else { times[((p / 100.0) * (times.len() - 1) as f64).round() as usize] };
                (p, value)
            })
            .collect();
        Report {
            label: label.to_string(),
            queries: measurements.len(),
            errors,
            qps: per_second(measurements.len() as u64),
            rps: per_second(sum(|m| m.read_rows)),
            mib_per_second: per_second(sum(|m| m.read_bytes)) / 1048576.0,
            result_rps: per_second(sum(|m| m.result_rows)),
            result_mib_per_second: per_second(sum(|m| m.result_bytes)) / 1048576.0,
            percentiles,
        }
    }

    /// clickhouse-benchmark's report; times in seconds with microseconds, since lookups
    /// take well under a millisecond.
    fn text(&self) -> String {
        let mut out = format!("\nQueries executed: {}.\n\n", self.queries);
        out.push_str(&format!(
            "{}, queries: {}, QPS: {:.3}, RPS: {:.3}, MiB/s: {:.3}, result RPS: {:.3}, result MiB/s: {:.3}.\n\n",
            self.label, self.queries, self.qps, self.rps, self.mib_per_second, self.result_rps, self.result_mib_per_second
        ));
        if self.errors > 0 {
            out.push_str(&format!("Errors: {}.\n\n", self.errors));
        }
        for (p, seconds) in &self.percentiles {
            out.push_str(&format!("{p:.3}%\t\t{seconds:.6} sec.\n"));
        }
        out.push('\n');
        out
    }

    fn json(&self) -> String {
        let percentiles: serde_json::Map<String, serde_json::Value> =
            self.percentiles.iter().map(|(p, s)| (format!("{p}"), serde_json::json!(s))).collect();
        serde_json::json!({
            self.label.clone(): {
                "statistics": {
                    "QPS": self.qps,
                    "RPS": self.rps,
                    "MiBPS": self.mib_per_second,
                    "RPS_result": self.result_rps,
                    "MiBPS_result": self.result_mib_per_second,
                    "num_queries": self.queries,
                    "num_errors": self.errors,
                },
                "query_time_percentiles": percentiles,
            }
        })
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_percentiles_and_rates() {
        let measurements: Vec<Measurement> =
            (1..=100).map(|i| Measurement { seconds: i as f64 / 1000.0, read_rows: 10, read_bytes: 1048576, result_rows: 1, result_bytes: 8 }).collect();
        let report = Report::new("local", &measurements, 0, 2.0);
        assert_eq!(report.queries, 100);
        assert_eq!((report.qps, report.rps, report.mib_per_second, report.result_rps), (50.0, 500.0, 50.0, 50.0));
        assert_eq!(report.percentiles[0], (0.0, 0.001));
        assert_eq!(report.percentiles[5], (50.0, 0.051));
        assert_eq!(report.percentiles[13], (99.99, 0.1));
        let text = report.text();
        assert!(text.contains("local, queries: 100, QPS: 50.000, RPS: 500.000, MiB/s: 50.000"), "{text}");
        assert!(text.contains("50.000%\t\t0.051000 sec."), "{text}");
        let json: serde_json::Value = serde_json::from_str(&report.json()).expect("json");
        assert_eq!(json["local"]["statistics"]["num_queries"], 100);
    }
}
