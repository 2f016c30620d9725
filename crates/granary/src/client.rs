//! `granary client`: clickhouse-client over ClickHouse's HTTP interface.
//!
//! ```text
//! granary client [--host H] [--port P] [--user U] [--password X] [--database D]
//!                [--query SQL] [--format FMT] [--time] [--<setting>=<value>...]
//! ```
//!
//! * With `--query`, its statements (split at `;`) run in order, stopping at the first
//!   error. An `INSERT ... FORMAT X` / `INSERT ... VALUES` among them without inline
//!   data takes stdin as its data, streamed to the server as the request body.
//! * Without `--query` and with stdin not a terminal, stdin holds the statements.
//! * Otherwise an interactive prompt ([`interactive`]).
//!
//! Every other `--name=value` (or `--name value`) is a ClickHouse setting, sent as a URL
//! parameter. Results stream to stdout as they arrive. Each run of the client is one
//! HTTP session (`session_id`), so `SET`, `USE` and temporary tables carry over from one
//! statement to the next, as with clickhouse-client's native connection.
//!
//! Modules: [`script`] splits statements, [`http`] runs one query, [`report`] formats
//! progress and summaries, [`interactive`] is the prompt.

pub(crate) mod http;
mod interactive;
pub(crate) mod report;
mod script;

use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, FromArgMatches};

use granary_query::text_log::LogLevel;
use http::{Answer, Endpoint, Payload};
use report::ProgressLine;
use script::{InsertData, Statement};

/// Talk to a running server over ClickHouse's HTTP interface, like clickhouse-client.
//
// (The doc line above is the help text.) Defaults are applied in `Options::resolve`, so
// that a flag given after a setting, which clap cannot see (see `split_setting_flags`),
// can be told apart from one not given at all.
#[derive(Args, Debug)]
pub struct ClientArgs {
    /// Server host [default: 127.0.0.1].
    #[arg(long)]
    host: Option<String>,
    /// Server HTTP port [default: 8123].
    #[arg(long)]
    port: Option<u16>,
    /// User name [default: default].
    #[arg(long, short = 'u')]
    user: Option<String>,
    /// Password [default: empty].
    #[arg(long, allow_hyphen_values = true)]
    password: Option<String>,
    /// Default database [default: the server's].
    #[arg(long, short = 'd')]
    database: Option<String>,
    /// Statements to run, separated by `;`. Without it, they are read from stdin, or
    /// typed at a prompt when stdin is a terminal.
    #[arg(long, short = 'q', allow_hyphen_values = true)]
    query: Option<String>,
    /// Output format (the `default_format` URL parameter) [default: TabSeparated, or
    /// PrettyCompact at the prompt].
    #[arg(long)]
    format: Option<String>,
    /// Print each query's rows, elapsed time and rows processed to stderr.
    #[arg(long, short = 't')]
    time: bool,
    /// Accepted for compatibility with clickhouse-client: several statements are always allowed.
    #[arg(long, short = 'n', hide = true)]
    multiquery: bool,
    /// Accepted for compatibility with clickhouse-client: statements at the prompt always end with `;`.
    #[arg(long, short = 'm', hide = true)]
    multiline: bool,
    /// ClickHouse settings, sent as URL parameters: `--max_threads=2`,
    /// `--format_csv_delimiter ';'`, `--param_name=value`. A setting given without a
    /// value (followed by another flag or nothing) is set to 1.
    #[arg(value_name = "--SETTING=VALUE", allow_hyphen_values = true)]
    pub settings: Vec<String>,
}

/// Runs `granary client`; the exit code is 0, or the ClickHouse error code modulo 256
/// (never 0) of the first failure.
pub fn run(args: ClientArgs) -> ExitCode {
    let options = match Options::resolve(args) {
        Ok(options) => options,
        Err(ClientError::Usage(e)) => {
            // Help, or a usage error formatted by clap.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(e.exit_code());
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("Cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run_client(options));
    // A name lookup left running by a connect timeout must not hold up the exit.
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // `granary client -q '...' | head`: the reader has all it wanted. Nothing to say,
        // but the output was cut short, so not success either (like a SIGPIPE death).
        Err(ClientError::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(ClientError::Output(e).exit_code()),
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// What went wrong, with the ClickHouse error code the client exits with.
#[derive(Debug)]
pub(crate) enum ClientError {
    /// A command-line error or `--help`, rendered by clap.
    Usage(clap::Error),
    BadArguments(String),
    /// No connection, or it broke: 210 (NETWORK_ERROR), 209 (SOCKET_TIMEOUT) or 198
    /// (DNS_ERROR).
    Network { code: i32, message: String },
    /// The server's exception, as it sent it (`Code: 60. DB::Exception: ...`).
    Server { code: i32, message: String },
    /// An INSERT needing data, with none on stdin.
    NoData,
    /// Stdin could not be read.
    Input(String),
    /// Stdout could not be written (a closed pipe, a full disk).
    Output(std::io::Error),
    /// The prompt could not be set up.
    Terminal(String),
}

impl ClientError {
    pub fn code(&self) -> i32 {
        match self {
            ClientError::Usage(_) | ClientError::BadArguments(_) => 36,
            ClientError::Network { code, .. } | ClientError::Server { code, .. } => *code,
            ClientError::NoData => 108,
            ClientError::Input(_) => 74,
            ClientError::Output(_) => 24,
            ClientError::Terminal(_) => 1,
        }
    }

    /// clickhouse-client's exit code: the error code modulo 256, and never 0 on an error.
    pub fn exit_code(&self) -> u8 {
        match u8::try_from(self.code().rem_euclid(256)) {
            Ok(0) | Err(_) => 1,
            Ok(code) => code,
        }
    }
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Usage(e) => write!(f, "{e}"),
            ClientError::BadArguments(message) => write!(f, "Code: 36. DB::Exception: {message}. (BAD_ARGUMENTS)"),
            ClientError::Network { code, message } => {
                let name = match code {
                    198 => "DNS_ERROR",
                    209 => "SOCKET_TIMEOUT",
                    _ => "NETWORK_ERROR",
                };
                write!(f, "Code: {code}. DB::NetException: {message}. ({name})")
            }
            ClientError::Server { message, .. } => write!(f, "Received exception from server:\n{message}"),
            ClientError::NoData => write!(f, "Code: 108. DB::Exception: No data to insert. (NO_DATA_TO_INSERT)"),
            ClientError::Input(message) => write!(f, "Code: 74. DB::Exception: {message}. (CANNOT_READ_FROM_FILE_DESCRIPTOR)"),
            ClientError::Output(e) => write!(f, "Code: 24. DB::Exception: Cannot write to ostream: {e}. (CANNOT_WRITE_TO_OSTREAM)"),
            ClientError::Terminal(message) => write!(f, "Cannot use the terminal: {message}"),
        }
    }
}

impl std::error::Error for ClientError {}

/// The command line, resolved.
#[derive(Debug)]
struct Options {
    endpoint: Endpoint,
    database: Option<String>,
    query: Option<String>,
    format: Option<String>,
    time: bool,
    settings: Vec<(String, String)>,
}

impl Options {
    /// Applies defaults, and the flags clap left among the settings.
    ///
    /// clap cannot take unknown `--name=value` flags anywhere: the catch-all positional
    /// that accepts them also swallows every argument after the first of them
    /// (`--max_threads=1 --query 'SELECT 1'`). The swallowed arguments are split here
    /// into settings and our own flags, and the latter are parsed by clap on their own.
    fn resolve(args: ClientArgs) -> Result<Options, ClientError> {
        let mut args = args;
        let (own, settings) = split_setting_flags(std::mem::take(&mut args.settings));
        if !own.is_empty() {
            let command = ClientArgs::augment_args(clap::Command::new("granary client").no_binary_name(true));
            let matches = command.try_get_matches_from(&own).map_err(ClientError::Usage)?;
            let later = ClientArgs::from_arg_matches(&matches).map_err(ClientError::Usage)?;
            if let Some(stray) = later.settings.first() {
                return Err(ClientError::BadArguments(format!("Unexpected argument '{stray}': settings are given as --name=value, queries with --query")));
            }
            args = args.merge(later)?;
        }
        Ok(Options {
            endpoint: Endpoint {
                host: args.host.unwrap_or_else(|| "127.0.0.1".into()),
                port: args.port.unwrap_or(8123),
                user: args.user.unwrap_or_else(|| "default".into()),
                password: args.password.unwrap_or_default(),
            },
            database: args.database.filter(|d| !d.is_empty()),
            query: args.query,
            format: args.format.filter(|f| !f.is_empty()),
            time: args.time,
            settings: parse_setting_flags(&settings)?,
        })
    }
}

impl ClientArgs {
    /// Combines flags given before the first setting with those given after it.
    fn merge(self, later: ClientArgs) -> Result<ClientArgs, ClientError> {
        fn once<T>(a: Option<T>, b: Option<T>, flag: &str) -> Result<Option<T>, ClientError> {
            match (a, b) {
                (Some(_), Some(_)) => Err(ClientError::BadArguments(format!("The argument '--{flag}' was given more than once"))),
                (a, b) => Ok(a.or(b)),
            }
        }
        Ok(ClientArgs {
            host: once(self.host, later.host, "host")?,
            port: once(self.port, later.port, "port")?,
            user: once(self.user, later.user, "user")?,
            password: once(self.password, later.password, "password")?,
            database: once(self.database, later.database, "database")?,
            query: once(self.query, later.query, "query")?,
            format: once(self.format, later.format, "format")?,
            time: self.time || later.time,
            multiquery: self.multiquery || later.multiquery,
            multiline: self.multiline || later.multiline,
            settings: Vec::new(),
        })
    }
}

/// Splits `granary client` arguments into its own flags (with their values) and
/// settings (`--name=value`, or `--name value`), which may come in any order. Which flags
/// are our own, and which take a value, is read from [`ClientArgs`] itself. Anything
/// else (a stray positional, an unknown short flag) goes with our own flags, for clap to
/// report.
pub fn split_setting_flags(args: Vec<String>) -> (Vec<String>, Vec<String>) {
    let command = ClientArgs::augment_args(clap::Command::new("granary client"));
    let own_long = |name: &str| -> Option<bool> {
        if name == "help" {
            return Some(false);
        }
        command.get_arguments().find(|a| a.get_long() == Some(name)).map(|a| a.get_action().takes_values())
    };
    let own_short = |c: char| -> Option<bool> {
        if c == 'h' {
            return Some(false);
        }
        command.get_arguments().find(|a| a.get_short() == Some(c)).map(|a| a.get_action().takes_values())
    };
    let (mut own, mut settings) = (Vec::new(), Vec::new());
    let mut args = args.into_iter().peekable();
    while let Some(arg) = args.next() {
        if let Some(flag) = arg.strip_prefix("--").filter(|f| !f.is_empty()) {
            let (name, inline_value) = match flag.split_once('=') {
                Some((name, _)) => (name, true),
                None => (flag, false),
            };
            match own_long(name) {
                Some(takes_value) => {
                    own.push(arg.clone());
                    if takes_value && !inline_value {
                        own.extend(args.next());
                    }
                }
                None => {
                    settings.push(arg.clone());
                    // `--name value`; `--name` followed by a flag or nothing is `--name=1`.
                    if !inline_value && args.peek().is_some_and(|next| !next.starts_with("--")) {
                        settings.extend(args.next());
                    }
                }
            }
        } else if arg.len() > 1 && arg.starts_with('-') {
            // Short flags, possibly clustered (`-tq SQL`), the last with its value
            // attached (`-qSQL`). An attached value is passed on separately: with a
            // catch-all positional, clap takes `-qSELECT` for a positional value.
            let mut value_at = None;
            for (i, c) in arg.char_indices().skip(1) {
                match own_short(c) {
                    Some(true) => {
                        value_at = Some(i + c.len_utf8());
                        break;
                    }
                    Some(false) => {}
                    None => break,
                }
            }
            match value_at {
                Some(at) if at < arg.len() => {
                    own.push(arg[..at].to_string());
                    own.push(arg[at..].to_string());
                }
                Some(_) => {
                    own.push(arg);
                    own.extend(args.next());
                }
                None => own.push(arg),
            }
        } else {
            own.push(arg);
        }
    }
    (own, settings)
}

/// Parses settings split off by [`split_setting_flags`]: `--name=value`, `--name value`,
/// or a bare `--name` meaning 1 (for boolean settings).
fn parse_setting_flags(raw: &[String]) -> Result<Vec<(String, String)>, ClientError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        let Some(flag) = raw[i].strip_prefix("--") else {
            return Err(ClientError::BadArguments(format!("Unexpected argument '{}'", raw[i])));
        };
        let (name, value) = match flag.split_once('=') {
            Some((name, value)) => (name, value.to_string()),
            None => match raw.get(i + 1).filter(|next| !next.starts_with("--")) {
                Some(value) => {
                    i += 1;
                    (flag, value.clone())
                }
                None => (flag, "1".to_string()),
            },
        };
        // A name that cannot be a setting (`--max-threads`) is reported here; whether
        // it is one is for the server to say.
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(ClientError::BadArguments(format!("Unknown option '--{name}'")));
        }
        out.push((name.to_string(), value));
        i += 1;
    }
    Ok(out)
}

/// The client's state between queries.
pub(crate) struct Client {
    endpoint: Endpoint,
    database: Option<String>,
    /// `default_format`, when there is one to send.
    format: Option<String>,
    settings: Vec<(String, String)>,
    session_id: String,
    /// At the prompt, a session outlives pauses longer than the server's default 60 s.
    session_timeout: Option<u64>,
    /// Ask for progress headers and draw them (at the prompt, with stderr a terminal).
    progress: bool,
    /// Queries sent, to name them when their logs are wanted.
    queries_sent: u64,
}

impl Client {
    fn new(options: &Options, interactive: bool) -> Client {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default();
        Client {
            endpoint: options.endpoint.clone(),
            database: options.database.clone(),
            format: options.format.clone().or_else(|| interactive.then(|| "PrettyCompact".to_string())),
            settings: options.settings.clone(),
            session_id: format!("granary-client-{}-{nanos:x}", std::process::id()),
            session_timeout: interactive.then_some(3600),
            progress: interactive && std::io::stderr().is_terminal(),
            queries_sent: 0,
        }
    }

    /// `--send_logs_level`, when it asks for anything.
    fn logs_level(&self) -> Option<LogLevel> {
        let (_, value) = self.settings.iter().rev().find(|(name, _)| name == "send_logs_level")?;
        LogLevel::parse(value).ok().filter(|level| *level > LogLevel::None)
    }

    /// URL parameters for a query; `with_format` false to get the server's default
    /// (TabSeparated) whatever the client's format.
    fn params(&self, with_format: bool) -> Vec<(String, String)> {
        let mut params = vec![("session_id".to_string(), self.session_id.clone())];
        if let Some(timeout) = self.session_timeout {
            params.push(("session_timeout".into(), timeout.to_string()));
        }
        if let Some(database) = &self.database {
            params.push(("database".into(), database.clone()));
        }
        if let (true, Some(format)) = (with_format, &self.format) {
            params.push(("default_format".into(), format.clone()));
        }
        if self.progress {
            params.push(("send_progress_in_http_headers".into(), "1".into()));
        }
        // The user's settings last: they override ours (`--send_progress_in_http_headers=0`).
        params.extend(self.settings.iter().cloned());
        params
    }

    /// Runs one statement, writing its result to `out`.
    async fn run<W: Write>(&mut self, statement: &Statement<'_>, payload: Payload, out: &mut W, progress: Option<&mut ProgressLine<std::io::Stderr>>) -> Result<Answer, ClientError> {
        let mut params = self.params(true);
        if statement.vertical {
            // `\G`: clickhouse-client shows the result in the Vertical format.
            params.retain(|(name, _)| name != "default_format");
            params.push(("default_format".into(), "Vertical".into()));
        }
        let statement = statement.text;
        self.queries_sent += 1;
        // The server keeps the query's log records in system.text_log (send_logs_level
        // raises what it keeps); they are fetched by query id once the query is over,
        // failed or not.
        let logs = self.logs_level().map(|level| {
            let query_id = match params.iter().rev().find(|(name, _)| name == "query_id") {
                Some((_, id)) => id.clone(),
                None => {
                    let id = format!("{}-{}", self.session_id, self.queries_sent);
                    params.push(("query_id".into(), id.clone()));
                    id
                }
            };
            (level, query_id)
        });
        let answer = http::execute(&self.endpoint, &params, payload, out, progress).await;
        if let Some((level, query_id)) = logs {
            self.print_server_logs(&query_id, level).await;
        }
        let answer = answer?;
        // Every request names the database, which would undo a `USE` in the session.
        if let Some(database) = script::use_database(statement) {
            self.database = Some(database);
        }
        Ok(answer)
    }
}

impl Client {
    /// Prints what the server logged for `query_id` at `level` and above to stderr.
    async fn print_server_logs(&self, query_id: &str, level: LogLevel) {
        let quoted = query_id.replace('\\', "\\\\").replace('\'', "\\'");
        let query = format!(
            "SELECT event_time_microseconds AS time, thread_id, level, logger_name, message FROM system.text_log \
             WHERE query_id = '{quoted}' ORDER BY event_time_microseconds FORMAT JSONEachRow"
        );
        let params = vec![
            ("session_id".to_string(), self.session_id.clone()),
            ("output_format_json_quote_64bit_integers".to_string(), "0".to_string()),
        ];
        let mut rows = Vec::new();
        if let Err(e) = http::execute::<_, std::io::Stderr>(&self.endpoint, &params, Payload::Query(query), &mut rows, None).await {
            eprintln!("Cannot read the server logs of query {query_id}: {e}");
            return;
        }
        let mut stderr = std::io::stderr().lock();
        for row in rows.split(|b| *b == b'\n').filter(|r| !r.is_empty()) {
            let Ok(row) = serde_json::from_slice::<serde_json::Value>(row) else { continue };
            let text = |key: &str| row.get(key).and_then(|v| v.as_str()).unwrap_or_default().to_string();
            let record_level = text("level");
            if LogLevel::parse(&record_level).is_ok_and(|l| l > level) {
                continue;
            }
            let line = crate::logging::ClientLogLine {
                host: &self.endpoint.host,
                time: &text("time"),
                thread_id: row.get("thread_id").and_then(|v| v.as_u64()).unwrap_or(0),
                query_id,
                level: &record_level,
                logger_name: &text("logger_name"),
                message: &text("message"),
            };
            let _ = writeln!(stderr, "{line}");
        }
    }
}

async fn run_client(options: Options) -> Result<(), ClientError> {
    let stdin_is_terminal = std::io::stdin().is_terminal();
    if options.query.is_none() && stdin_is_terminal {
        let mut client = Client::new(&options, true);
        return interactive::run(&mut client).await;
    }
    let mut client = Client::new(&options, false);
    let (script, mut stdin_for_data) = match &options.query {
        Some(query) => (query.clone(), !stdin_is_terminal),
        None => (read_script(std::io::stdin())?, false),
    };
    let split = script::split(&script);
    let mut stdout = std::io::stdout();
    for statement in split.all() {
        let payload = match statement.insert {
            // The first INSERT without inline data takes stdin; stdin has no end to
            // tell one INSERT's data from the next one's.
            InsertData::Expected if stdin_for_data => {
                stdin_for_data = false;
                Payload::Insert { query: statement.text.to_string(), data: http::streamed_body(std::io::stdin())? }
            }
            InsertData::Expected => return Err(ClientError::NoData),
            InsertData::None | InsertData::Inline { .. } => Payload::Query(statement.text.to_string()),
        };
        let started = Instant::now();
        let answer = client.run(&statement, payload, &mut stdout, None).await?;
        if options.time {
            eprintln!("{}", report::summary_line(&answer.summary, started.elapsed()));
        }
    }
    Ok(())
}

/// The statements from stdin: all of it (an INSERT's inline data included).
fn read_script<R: Read>(mut input: R) -> Result<String, ClientError> {
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes).map_err(|e| ClientError::Input(format!("Cannot read the queries from stdin: {e}")))?;
    String::from_utf8(bytes).map_err(|e| ClientError::Input(format!("The queries on stdin are not valid UTF-8 (at byte {})", e.utf8_error().valid_up_to())))
}

/// How long to keep retrying a query whose session is still held by a query just
/// cancelled at the prompt (the server notices the closed connection soon, not at once).
const SESSION_LOCK_WAIT: Duration = Duration::from_secs(5);

#[cfg(test)]
mod tests;
