//! Tests of the command line, and of queries against a throwaway HTTP/1.1 server that
//! answers what each test scripts.

use std::time::Duration;

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::http::{self, Endpoint, Payload};
use super::report::ProgressLine;
use super::*;

fn resolve(argv: &[&str]) -> Result<Options, ClientError> {
    let command = ClientArgs::augment_args(clap::Command::new("client"));
    let matches = command.try_get_matches_from(std::iter::once("client").chain(argv.iter().copied())).map_err(ClientError::Usage)?;
    Options::resolve(ClientArgs::from_arg_matches(&matches).map_err(ClientError::Usage)?)
}

fn pairs(settings: &[(&str, &str)]) -> Vec<(String, String)> {
    settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn defaults() {
    let options = resolve(&[]).expect("no arguments");
    assert_eq!((options.endpoint.host.as_str(), options.endpoint.port, options.endpoint.user.as_str(), options.endpoint.password.as_str()), ("127.0.0.1", 8123, "default", ""));
    assert_eq!((options.database, options.query, options.format, options.time), (None, None, None, false));
    assert!(options.settings.is_empty());
}

#[test]
fn settings_before_own_flags() {
    // clap alone would swallow `--query` into the settings here.
    let options = resolve(&["--max_threads=1", "--query", "SELECT 1"]).expect("valid");
    assert_eq!(options.query.as_deref(), Some("SELECT 1"));
    assert_eq!(options.settings, pairs(&[("max_threads", "1")]));

    let options = resolve(&[
        "--host", "localhost", "--max_threads", "2", "-q", "SELECT 2", "--format_csv_delimiter", ";", "--port=9000", "-t",
        "--param_x=5", "--format", "CSV", "--readonly", "--database", "db", "--user=u", "--password", "-secret",
    ])
    .expect("valid");
    assert_eq!(options.endpoint.host, "localhost");
    assert_eq!(options.endpoint.port, 9000);
    assert_eq!(options.endpoint.user, "u");
    assert_eq!(options.endpoint.password, "-secret");
    assert_eq!(options.query.as_deref(), Some("SELECT 2"));
    assert_eq!(options.format.as_deref(), Some("CSV"));
    assert_eq!(options.database.as_deref(), Some("db"));
    assert!(options.time);
    assert_eq!(options.settings, pairs(&[("max_threads", "2"), ("format_csv_delimiter", ";"), ("param_x", "5"), ("readonly", "1")]));
}

#[test]
fn short_flags_and_hyphen_values() {
    let options = resolve(&["-tq", "-- comment\nSELECT 1", "--max_threads=1", "-qSELECT 3"]);
    assert!(matches!(options, Err(ClientError::BadArguments(m)) if m.contains("--query")));
    let options = resolve(&["--max_threads=1", "-tq", "-- comment\nSELECT 1", "--offset", "-1"]).expect("valid");
    assert!(options.time);
    assert_eq!(options.query.as_deref(), Some("-- comment\nSELECT 1"));
    assert_eq!(options.settings, pairs(&[("max_threads", "1"), ("offset", "-1")]));
    let options = resolve(&["--max_threads=1", "-qSELECT 3", "-n", "--multiline"]).expect("valid");
    assert_eq!(options.query.as_deref(), Some("SELECT 3"));
    let options = resolve(&["-tqSELECT 4"]).expect("valid");
    assert_eq!((options.query.as_deref(), options.time), (Some("SELECT 4"), true));
}

#[test]
fn command_line_errors() {
    assert!(matches!(resolve(&["--port", "1", "--max_threads=1", "--port", "2"]), Err(ClientError::BadArguments(m)) if m.contains("--port")));
    assert!(matches!(resolve(&["--max_threads=1", "--port", "many"]), Err(ClientError::Usage(_))));
    assert!(matches!(resolve(&["--port", "many"]), Err(ClientError::Usage(_))));
    assert!(matches!(resolve(&["SELECT 1"]), Err(ClientError::BadArguments(m)) if m.contains("SELECT 1")));
    assert!(matches!(resolve(&["--max_threads=1", "SELECT 1"]), Err(ClientError::BadArguments(m)) if m.contains("SELECT 1")));
    assert!(matches!(resolve(&["--max-threads=1"]), Err(ClientError::BadArguments(m)) if m.contains("--max-threads")));
    assert!(matches!(resolve(&["--max_threads=1", "-x"]), Err(ClientError::BadArguments(m)) if m.contains("-x")));
    let help = resolve(&["--max_threads=1", "--help"]);
    assert!(matches!(help, Err(ClientError::Usage(e)) if e.exit_code() == 0));
}

#[test]
fn presplit_arguments() {
    // main.rs may split settings off before clap and hand them over in `settings`.
    let (own, settings) = split_setting_flags(["--max_threads=1", "--query", "SELECT 1", "--format_csv_delimiter", ";", "-t", "--password", "--x"].map(String::from).to_vec());
    assert_eq!(own, ["--query", "SELECT 1", "-t", "--password", "--x"]);
    assert_eq!(settings, ["--max_threads=1", "--format_csv_delimiter", ";"]);
    let command = ClientArgs::augment_args(clap::Command::new("client"));
    let matches = command.try_get_matches_from(std::iter::once("client".to_string()).chain(own)).expect("own flags parse");
    let mut args = ClientArgs::from_arg_matches(&matches).expect("own flags");
    args.settings = settings;
    let options = Options::resolve(args).expect("valid");
    assert_eq!(options.endpoint.password, "--x");
    assert_eq!(options.settings, pairs(&[("max_threads", "1"), ("format_csv_delimiter", ";")]));
}

#[test]
fn exit_codes() {
    assert_eq!(ClientError::Server { code: 60, message: String::new() }.exit_code(), 60);
    assert_eq!(ClientError::Server { code: 516, message: String::new() }.exit_code(), 4);
    assert_eq!(ClientError::Server { code: 512, message: String::new() }.exit_code(), 1);
    assert_eq!(ClientError::Server { code: -3, message: String::new() }.exit_code(), 253);
    assert_eq!(ClientError::Network { code: 210, message: "Connection refused (127.0.0.1:8123)".into() }.exit_code(), 210);
    assert_eq!(
        ClientError::Network { code: 210, message: "Connection refused (127.0.0.1:8123)".into() }.to_string(),
        "Code: 210. DB::NetException: Connection refused (127.0.0.1:8123). (NETWORK_ERROR)"
    );
    assert_eq!(ClientError::Server { code: 60, message: "Code: 60. DB::Exception: x".into() }.to_string(), "Received exception from server:\nCode: 60. DB::Exception: x");
}

#[test]
fn session_parameters() {
    let options = resolve(&["--database", "db", "--format", "CSV", "--send_progress_in_http_headers=0"]).expect("valid");
    let mut client = Client::new(&options, false);
    let params = client.params(true);
    let names: Vec<&str> = params.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["session_id", "database", "default_format", "send_progress_in_http_headers"]);
    assert!(!client.params(false).iter().any(|(k, _)| k == "default_format"));
    client.progress = true;
    client.session_timeout = Some(3600);
    let params = client.params(true);
    // The user's setting comes last, and so wins over the client's own.
    let progress: Vec<&str> = params.iter().filter(|(k, _)| k == "send_progress_in_http_headers").map(|(_, v)| v.as_str()).collect();
    assert_eq!(progress, ["1", "0"]);
    assert!(params.contains(&("session_timeout".to_string(), "3600".to_string())));
    let interactive = Client::new(&resolve(&[]).expect("valid"), true);
    assert_eq!(interactive.format.as_deref(), Some("PrettyCompact"));
}

#[test]
fn script_from_stdin_must_be_utf8() {
    assert_eq!(read_script(&b"SELECT 1"[..]).expect("utf-8"), "SELECT 1");
    assert!(matches!(read_script(&b"SELECT '\xff'"[..]), Err(ClientError::Input(_))));
}

/// A request as the fake server saw it.
#[derive(Debug, Default)]
struct Seen {
    head: String,
    body: Vec<u8>,
    body_len: u64,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    fn params(&self) -> Vec<(String, String)> {
        let target = self.head.split(' ').nth(1).unwrap_or("");
        let query = target.split_once('?').map_or("", |(_, q)| q);
        url::form_urlencoded::parse(query.as_bytes()).into_owned().collect()
    }
}

/// How the fake server answers.
struct Script {
    /// Pieces of the response, written with `pause` between them.
    pieces: Vec<Vec<u8>>,
    pause: Duration,
    /// Answer before reading the request body, then close.
    answer_early: bool,
    /// Keep the body (or only count it).
    keep_body: bool,
    /// Say `100 Continue` to `Expect: 100-continue` before reading the body, as hyper's
    /// server does.
    send_continue: bool,
}

impl Script {
    fn new(pieces: Vec<Vec<u8>>) -> Script {
        Script { pieces, pause: Duration::ZERO, answer_early: false, keep_body: true, send_continue: true }
    }
}

/// Serves one connection as scripted; the task returns what it was sent.
async fn fake_server(script: Script) -> (Endpoint, tokio::task::JoinHandle<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    let task = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.expect("accept");
        let mut buffer = BytesMut::new();
        let mut seen = Seen::default();
        let head_end = loop {
            if let Some(p) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break p;
            }
            assert!(stream.read_buf(&mut buffer).await.expect("read") > 0, "request head cut short");
        };
        seen.head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
        buffer.advance(head_end + 4);
        if !script.answer_early {
            if script.send_continue && seen.header("expect") == Some("100-continue") {
                stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await.expect("write");
            }
            read_body(&mut stream, &mut buffer, &mut seen, script.keep_body).await;
        }
        for (i, piece) in script.pieces.iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(script.pause).await;
            }
            if stream.write_all(piece).await.is_err() {
                break;
            }
        }
        let _ = stream.shutdown().await;
        seen
    });
    let endpoint = Endpoint { host: "127.0.0.1".into(), port, user: "default".into(), password: String::new() };
    (endpoint, task)
}

async fn read_body(stream: &mut TcpStream, buffer: &mut BytesMut, seen: &mut Seen, keep: bool) {
    let take = |seen: &mut Seen, data: &[u8]| {
        seen.body_len += data.len() as u64;
        if keep {
            seen.body.extend_from_slice(data);
        }
    };
    if let Some(length) = seen.header("content-length").and_then(|l| l.parse::<usize>().ok()) {
        while buffer.len() < length {
            assert!(stream.read_buf(buffer).await.expect("read") > 0, "body cut short");
        }
        take(seen, &buffer[..length]);
        return;
    }
    assert_eq!(seen.header("transfer-encoding"), Some("chunked"), "{}", seen.head);
    loop {
        let line_end = loop {
            if let Some(p) = buffer.windows(2).position(|w| w == b"\r\n") {
                break p;
            }
            assert!(stream.read_buf(buffer).await.expect("read") > 0, "chunk size cut short");
        };
        let size = usize::from_str_radix(std::str::from_utf8(&buffer[..line_end]).expect("size"), 16).expect("hex size");
        buffer.advance(line_end + 2);
        while buffer.len() < size + 2 {
            assert!(stream.read_buf(buffer).await.expect("read") > 0, "chunk cut short");
        }
        take(seen, &buffer[..size]);
        buffer.advance(size + 2);
        if size == 0 {
            return;
        }
    }
}

fn response(status: &str, headers: &[&str], body: &str) -> Vec<u8> {
    let mut text = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\n", body.len());
    for header in headers {
        text.push_str(header);
        text.push_str("\r\n");
    }
    text.push_str("\r\n");
    text.push_str(body);
    text.into_bytes()
}

fn chunk(data: &str) -> Vec<u8> {
    format!("{:x}\r\n{data}\r\n", data.len()).into_bytes()
}

async fn run(endpoint: &Endpoint, params: &[(String, String)], payload: Payload) -> (Result<http::Answer, ClientError>, Vec<u8>) {
    let mut out = Vec::new();
    let result = http::execute::<_, Vec<u8>>(endpoint, params, payload, &mut out, None).await;
    (result, out)
}

#[tokio::test]
async fn query_goes_in_the_body_and_the_result_streams_out() {
    let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-ClickHouse-Query-Id: q1\r\nX-ClickHouse-Summary: {\"read_rows\":\"2000\",\"read_bytes\":\"16000\",\"result_rows\":\"2\"}\r\n\r\n";
    let mut pieces = vec![head.as_bytes().to_vec(), chunk("1\n"), chunk("2\n")];
    pieces.push(b"0\r\n\r\n".to_vec());
    let (mut endpoint, server) = fake_server(Script { pause: Duration::from_millis(20), ..Script::new(pieces) }).await;
    endpoint.password = "secret".into();
    let params = pairs(&[("max_threads", "2"), ("database", "my db")]);
    let (result, out) = run(&endpoint, &params, Payload::Query("SELECT number FROM numbers(2)".into())).await;
    let answer = result.expect("success");
    assert_eq!(out, b"1\n2\n");
    assert_eq!(answer.output_bytes, 4);
    assert_eq!((answer.summary.read_rows, answer.summary.result_rows), (2000, 2));
    let seen = server.await.expect("server");
    assert!(seen.head.starts_with("POST /?max_threads=2&database=my+db HTTP/1.1\r\n"), "{}", seen.head);
    assert_eq!(seen.body, b"SELECT number FROM numbers(2)");
    assert_eq!(seen.header("host"), Some(endpoint.authority().as_str()));
    assert_eq!(seen.header("x-clickhouse-user"), Some("default"));
    assert_eq!(seen.header("x-clickhouse-key"), Some("secret"));
}

#[tokio::test]
async fn insert_data_streams_as_the_body() {
    let (endpoint, server) = fake_server(Script::new(vec![response("200 OK", &[], "")])).await;
    let body = http::streamed_body(&b"1,a\n2,b\n"[..]).expect("reader thread");
    let (result, _) = run(&endpoint, &[], Payload::Insert { query: "INSERT INTO t FORMAT CSV".into(), data: body }).await;
    result.expect("success");
    let seen = server.await.expect("server");
    assert_eq!(seen.header("expect"), Some("100-continue"));
    assert_eq!(seen.body, b"1,a\n2,b\n");

    // A server that never says `100 Continue` gets the data after a pause.
    let (endpoint, server) = fake_server(Script { send_continue: false, ..Script::new(vec![response("200 OK", &[], "")]) }).await;
    let data: Vec<u8> = (0..300_000).flat_map(|i| format!("{i},x\n").into_bytes()).collect();
    let body = http::streamed_body(std::io::Cursor::new(data.clone())).expect("reader thread");
    let (result, out) = run(&endpoint, &[], Payload::Insert { query: "INSERT INTO t FORMAT CSV".into(), data: body }).await;
    let answer = result.expect("success");
    assert!(out.is_empty() && answer.output_bytes == 0);
    let seen = server.await.expect("server");
    assert_eq!(seen.params(), pairs(&[("query", "INSERT INTO t FORMAT CSV")]));
    assert!(seen.body == data, "{} bytes arrived of {}", seen.body.len(), data.len());
}

/// Much more data than the pipeline holds: it must flow through, not pile up.
#[tokio::test]
async fn large_insert_streams() {
    const TOTAL: u64 = 256 << 20;
    let (endpoint, server) = fake_server(Script { keep_body: false, ..Script::new(vec![response("200 OK", &[], "")]) }).await;
    let body = http::streamed_body(std::io::Read::take(std::io::repeat(b'7'), TOTAL)).expect("reader thread");
    let (result, _) = run(&endpoint, &[], Payload::Insert { query: "INSERT INTO t FORMAT TSV".into(), data: body }).await;
    result.expect("success");
    assert_eq!(server.await.expect("server").body_len, TOTAL);
}

#[tokio::test]
async fn server_exception() {
    let body = "Code: 60. DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE)\n";
    let (endpoint, _server) = fake_server(Script::new(vec![response("404 Not Found", &["X-ClickHouse-Exception-Code: 60"], body)])).await;
    let (result, out) = run(&endpoint, &[], Payload::Query("SELECT * FROM x".into())).await;
    assert!(out.is_empty());
    let error = result.expect_err("an exception");
    assert_eq!(error.to_string(), "Received exception from server:\nCode: 60. DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE)");
    assert_eq!(error.exit_code(), 60);
}

#[tokio::test]
async fn error_without_clickhouse_header() {
    let (endpoint, _server) = fake_server(Script::new(vec![response("502 Bad Gateway", &[], "")])).await;
    let (result, _) = run(&endpoint, &[], Payload::Query("SELECT 1".into())).await;
    let error = result.expect_err("an error");
    assert_eq!(error.code(), 86);
    assert!(error.to_string().contains("502"), "{error}");
    // The code is taken from the message when the header is missing.
    let (endpoint, _server) = fake_server(Script::new(vec![response("500 Internal Server Error", &[], "Code: 62. DB::Exception: Syntax error")])).await;
    let (result, _) = run(&endpoint, &[], Payload::Query("SELEC 1".into())).await;
    assert_eq!(result.expect_err("an error").code(), 62);
}

#[tokio::test]
async fn exception_after_the_status() {
    // ClickHouse's way: the exception is written into the body, then the connection is
    // broken instead of ending the chunked body.
    let head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    let pieces = vec![head, chunk("1\n"), chunk("\nCode: 241. DB::Exception: Memory limit exceeded. (MEMORY_LIMIT_EXCEEDED)\n")];
    let (endpoint, _server) = fake_server(Script::new(pieces)).await;
    let (result, out) = run(&endpoint, &[], Payload::Query("SELECT 1".into())).await;
    assert!(out.starts_with(b"1\n"));
    let error = result.expect_err("an exception");
    assert_eq!(error.code(), 241);
    assert!(error.to_string().ends_with("Code: 241. DB::Exception: Memory limit exceeded. (MEMORY_LIMIT_EXCEEDED)"), "{error}");

    // Cut short without an exception: a network error.
    let head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    let (endpoint, _server) = fake_server(Script::new(vec![head, chunk("1\n")])).await;
    let (result, _) = run(&endpoint, &[], Payload::Query("SELECT 1".into())).await;
    assert_eq!(result.expect_err("cut short").code(), 210);
}

#[tokio::test]
async fn early_answer_stops_the_upload() {
    // The server refuses the INSERT before reading its data; the client must report
    // that, not wait to send endless data.
    let body = "Code: 60. DB::Exception: Table default.t does not exist. (UNKNOWN_TABLE)\n";
    let script = Script { answer_early: true, ..Script::new(vec![response("404 Not Found", &["X-ClickHouse-Exception-Code: 60", "Connection: close"], body)]) };
    let (endpoint, _server) = fake_server(script).await;
    let data = http::streamed_body(std::io::repeat(b'1')).expect("reader thread");
    let query = run(&endpoint, &[], Payload::Insert { query: "INSERT INTO t FORMAT CSV".into(), data });
    let (result, _) = tokio::time::timeout(Duration::from_secs(20), query).await.expect("no hang");
    let error = result.expect_err("an exception");
    assert_eq!(error.to_string(), format!("Received exception from server:\n{}", body.trim_end()));
}

#[tokio::test]
async fn connection_refused() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    drop(listener);
    let endpoint = Endpoint { host: "127.0.0.1".into(), port, user: "default".into(), password: String::new() };
    let (result, _) = run(&endpoint, &[], Payload::Query("SELECT 1".into())).await;
    let error = result.expect_err("refused");
    assert_eq!(error.to_string(), format!("Code: 210. DB::NetException: Connection refused (127.0.0.1:{port}). (NETWORK_ERROR)"));
    assert_eq!(error.exit_code(), 210);
}

#[tokio::test]
async fn not_http() {
    let (endpoint, _server) = fake_server(Script::new(vec![b"SSH-2.0-OpenSSH\r\n\r\n".to_vec()])).await;
    let (result, _) = run(&endpoint, &[], Payload::Query("SELECT 1".into())).await;
    assert_eq!(result.expect_err("not HTTP").code(), 210);
}

#[tokio::test]
async fn progress_headers_are_shown_while_the_query_runs() {
    let pieces = vec![
        b"HTTP/1.1 200 OK\r\nX-ClickHouse-Progress: {\"read_rows\":\"1000\",\"read_bytes\":\"8000\",\"total_rows_to_read\":\"4000\"}\r\n".to_vec(),
        b"X-ClickHouse-Progress: {\"read_rows\":\"3000\",\"read_bytes\":\"24000\",\"total_rows_to_read\":\"4000\"}\r\n".to_vec(),
        b"X-ClickHouse-Summary: {\"read_rows\":\"4000\",\"read_bytes\":\"32000\",\"result_rows\":\"1\"}\r\nContent-Length: 5\r\n\r\n4000\n".to_vec(),
    ];
    let (endpoint, _server) = fake_server(Script { pause: Duration::from_millis(350), ..Script::new(pieces) }).await;
    let mut line = ProgressLine::new(Vec::new(), 200);
    let mut out = Vec::new();
    let answer = http::execute(&endpoint, &[], Payload::Query("SELECT count() FROM t".into()), &mut out, Some(&mut line)).await.expect("success");
    assert_eq!(out, b"4000\n");
    assert_eq!((answer.summary.read_rows, answer.summary.result_rows), (4000, 1));
    let drawn = String::from_utf8(line.writer().clone()).expect("utf-8");
    assert!(drawn.contains("Progress: 1.00 thousand rows, 8.00 KB") && drawn.contains(" 24%"), "{drawn:?}");
    assert!(drawn.contains("Progress: 3.00 thousand rows, 24.00 KB") && drawn.contains(" 74%"), "{drawn:?}");
    // Cleared before the result was written.
    assert!(drawn.ends_with("\r\x1b[K"), "{drawn:?}");
}

#[tokio::test]
async fn summary_falls_back_to_the_last_progress_header() {
    let head = "HTTP/1.1 200 OK\r\nX-ClickHouse-Progress: {\"read_rows\":\"5\",\"result_rows\":\"5\"}\r\nContent-Length: 0\r\n\r\n";
    let (endpoint, _server) = fake_server(Script::new(vec![head.as_bytes().to_vec()])).await;
    let (result, _) = run(&endpoint, &[], Payload::Query("SELECT 1".into())).await;
    assert_eq!(result.expect("success").summary.result_rows, 5);
}

#[tokio::test]
async fn use_changes_the_database_of_later_queries() {
    let (endpoint, _server) = fake_server(Script::new(vec![response("200 OK", &[], "")])).await;
    let options = resolve(&["--database", "a", "--port", &endpoint.port.to_string()]).expect("valid");
    let mut client = Client::new(&options, false);
    let mut out = Vec::new();
    let statement = Statement { text: "USE `b`", insert: InsertData::None, vertical: false };
    client.run(&statement, Payload::Query("USE `b`".into()), &mut out, None).await.expect("success");
    assert_eq!(client.database.as_deref(), Some("b"));
    assert!(client.params(true).contains(&("database".to_string(), "b".to_string())));
}
