//! One HTTP request of the ClickHouse interface.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::{FutureExt, StreamExt};
use granary_common::{Error, ErrorCode, Result, Settings};
use granary_query::{Instance, QueryRequest, Session};
use http::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use http::{Method, Request, Response, StatusCode};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, BodyStream, Full, StreamBody};
use hyper::body::{Frame, Incoming};

use crate::compression::{self, ResponseEncoder};
use granary_io::native_compression::BlockMethod;
use crate::connection::EarlyHead;
use crate::sessions::Sessions;

pub type Body = UnsyncBoxBody<Bytes, std::io::Error>;

pub struct HandlerState {
    pub instance: Arc<Instance>,
    pub sessions: Sessions,
    pub default_session_timeout: Duration,
}

/// URL parameters that are not settings.
const RESERVED_PARAMS: &[&str] = &[
    "query",
    "database",
    "default_format",
    "query_id",
    "session_id",
    "session_timeout",
    "session_check",
    "close_session",
    "user",
    "password",
    "quota_key",
    "buffer_size",
    "stacktrace",
    "role",
];

pub async fn handle(state: Arc<HandlerState>, request: Request<Incoming>, peer: SocketAddr, head: Arc<EarlyHead>) -> Response<Body> {
    let path = request.uri().path().to_string();
    let has_query_param = request.uri().query().is_some_and(|q| q.split('&').any(|kv| kv.starts_with("query=")));
    match (request.method(), path.as_str()) {
        (&Method::GET | &Method::HEAD, "/" | "/ping") if !has_query_param => return text_response(StatusCode::OK, "Ok.\n"),
        (&Method::GET, "/replicas_status") => return text_response(StatusCode::OK, "Ok.\n"),
        (&Method::GET, "/metrics") => {
            let mut response = Response::new(BodyExt::boxed_unsync(Full::new(Bytes::from(state.instance.prometheus_metrics())).map_err(|never| match never {})));
            response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=UTF-8"));
            return response;
        }
        (_, "/" | "/query") => {}
        _ => {
            let e = Error::new(ErrorCode::UNKNOWN_TYPE_OF_QUERY, format!("There is no handle {path}"));
            return error_response(&e, None);
        }
    }
    let mut query_id = None;
    // A bug must cost one query, answered with an error, not the connection.
    let outcome = std::panic::AssertUnwindSafe(Box::pin(run_query(&state, request, peer, &head, &mut query_id))).catch_unwind().await;
    match outcome.unwrap_or_else(|panic| Err(Error::from_panic(panic.as_ref()))) {
        Ok(response) => response,
        Err(e) => error_response(&e, query_id.as_deref()),
    }
}

struct Params {
    query: Option<String>,
    database: Option<String>,
    default_format: Option<String>,
    query_id: Option<String>,
    session_id: Option<String>,
    session_timeout: Option<String>,
    /// `session_check=1`: the session must exist already.
    session_check: bool,
    /// `close_session=1`: end the session after this request.
    close_session: bool,
    user: Option<String>,
    password: Option<String>,
    /// `buffer_size`: bytes of a `wait_end_of_query` response kept in memory before the
    /// rest goes to a temporary file.
    buffer_size: Option<usize>,
    /// `compress=1`: the response in ClickHouse's checksummed blocks.
    compress: bool,
    /// `decompress=1`: the request body is in ClickHouse's checksummed blocks.
    decompress: bool,
    settings: Vec<(String, String)>,
    params: HashMap<String, String>,
}

fn parse_params(query_string: Option<&str>) -> Result<Params> {
    let mut p = Params {
        query: None,
        database: None,
        default_format: None,
        query_id: None,
        session_id: None,
        session_timeout: None,
        session_check: false,
        close_session: false,
        user: None,
        password: None,
        buffer_size: None,
        compress: false,
        decompress: false,
        settings: Vec::new(),
        params: HashMap::new(),
    };
    for (key, value) in url::form_urlencoded::parse(query_string.unwrap_or("").as_bytes()) {
        let (key, value) = (key.into_owned(), value.into_owned());
        match key.as_str() {
            "query" => p.query = Some(value),
            "database" => p.database = Some(value).filter(|v| !v.is_empty()),
            "default_format" => p.default_format = Some(value).filter(|v| !v.is_empty()),
            "query_id" => p.query_id = Some(value),
            "session_id" => p.session_id = Some(value).filter(|v| !v.is_empty()),
            "session_timeout" => p.session_timeout = Some(value),
            "session_check" => p.session_check = value == "1" || value.eq_ignore_ascii_case("true"),
            "close_session" => p.close_session = value == "1" || value.eq_ignore_ascii_case("true"),
            "user" => p.user = Some(value),
            "password" => p.password = Some(value),
            "compress" => p.compress = value == "1" || value.eq_ignore_ascii_case("true"),
            "decompress" => p.decompress = value == "1" || value.eq_ignore_ascii_case("true"),
            "buffer_size" => {
                p.buffer_size = Some(value.parse().map_err(|_| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Invalid buffer_size: '{value}'")))?)
            }
            k if k.starts_with("param_") => {
                p.params.insert(k["param_".len()..].to_string(), value);
            }
            k if RESERVED_PARAMS.contains(&k) => {}
            _ => {
                // Validated here so a typo answers before any work starts.
                Settings::new().set(&key, &value)?;
                p.settings.push((key, value));
            }
        }
    }
    Ok(p)
}

/// The user and password from headers, Basic auth or URL parameters.
fn credentials(request: &Request<Incoming>, params: &Params) -> Result<(String, String)> {
    let headers = request.headers();
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    if let Some(user) = header("X-ClickHouse-User") {
        return Ok((user, header("X-ClickHouse-Key").unwrap_or_default()));
    }
    if let Some(auth) = header("Authorization") {
        if let Some(encoded) = auth.strip_prefix("Basic ") {
            let decoded = decode_base64(encoded.trim()).ok_or_else(|| Error::new(ErrorCode::AUTHENTICATION_FAILED, "Malformed Basic authorization header"))?;
            let text = String::from_utf8_lossy(&decoded).into_owned();
            let (user, password) = text.split_once(':').unwrap_or((&text, ""));
            return Ok((user.to_string(), password.to_string()));
        }
    }
    Ok((params.user.clone().unwrap_or_else(|| "default".into()), params.password.clone().unwrap_or_default()))
}

fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let bytes: Vec<u8> = text.bytes().filter(|b| *b != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, b) in chunk.iter().enumerate() {
            acc |= value(*b)? << (18 - 6 * i);
        }
        let produced = chunk.len().saturating_sub(1);
        for i in 0..produced {
            out.push((acc >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

/// Only the passwordless `default` user exists until access control lands; anyone else
/// is refused without telling which part was wrong.

async fn run_query(
    state: &HandlerState,
    request: Request<Incoming>,
    peer: SocketAddr,
    head: &EarlyHead,
    query_id_out: &mut Option<String>,
) -> Result<Response<Body>> {
    let params = parse_params(request.uri().query())?;
    *query_id_out = params.query_id.clone();
    let (user, password) = credentials(&request, &params)?;
    let access = state.instance.access_control().authenticate(&user, &password, peer.ip())?;
    let is_get = request.method() == Method::GET;
    let mut settings = params.settings.clone();
    if is_get && access.readonly() == 0 && !settings.iter().any(|(k, _)| k == "readonly") {
        // ClickHouse: a GET request may read and change settings, nothing else.
        settings.push(("readonly".into(), "2".into()));
    }
    let max_query_size = settings
        .iter()
        .rev()
        .find(|(k, _)| k == "max_query_size")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(262_144);
    let request_coding = compression::request_coding(request.headers())?;
    // Only what the response's coding depends on; no copy of the whole request head.
    let mut response_headers = http::HeaderMap::new();
    for value in request.headers().get_all(http::header::ACCEPT_ENCODING) {
        response_headers.append(http::header::ACCEPT_ENCODING, value.clone());
    }
    let mut body = compression::decode_body(body_stream(request.into_body()), request_coding);
    if params.decompress {
        let skip_checksums = setting_value(&settings, "http_native_compression_disable_checksumming_on_decompress").is_some_and(|v| v == "1" || v == "true");
        body = compression::decode_native_blocks(body, !skip_checksums);
    }
    let (text, input) = split_query_and_data(params.query.clone(), body, max_query_size).await?;
    if text.trim().is_empty() {
        return Err(Error::new(ErrorCode::SYNTAX_ERROR, "Empty query"));
    }

    let mut lease = None;
    let mut fresh_session;
    let session: &mut Session = match &params.session_id {
        Some(id) => {
            let timeout = match &params.session_timeout {
                Some(t) => Duration::from_secs(t.parse::<u64>().map_err(|_| {
                    Error::new(ErrorCode::INVALID_SESSION_TIMEOUT, format!("Invalid session timeout: '{t}'"))
                })?),
                None => state.default_session_timeout,
            };
            if params.session_check && !state.sessions.contains(id) {
                return Err(Error::new(ErrorCode::SESSION_NOT_FOUND, format!("Session {id} not found")));
            }
            let acquired = state.sessions.acquire(id, &user, timeout, || Session::for_user(access.clone()))?;
            let session = &mut *lease.insert(acquired).session;
            // Rights, profile and quotas as of this login: a GRANT shows from the next request.
            session.access = access.clone();
            session
        }
        None => {
            fresh_session = Session::for_user(access.clone())?;
            &mut fresh_session
        }
    };
    let response_coding = compression::response_coding(&response_headers, setting_is_on(&settings, session, "enable_http_compression"));
    let compression_level = request_setting(&settings, session, "http_zlib_compression_level").and_then(|v| v.parse::<u32>().ok()).unwrap_or(3);
    let wait_end_of_query = setting_is_on(&settings, session, "wait_end_of_query");
    let block_method = if params.compress {
        let method = request_setting(&settings, session, "network_compression_method").unwrap_or("lz4");
        let level = request_setting(&settings, session, "network_zstd_compression_level").and_then(|v| v.parse().ok()).unwrap_or(1);
        Some(BlockMethod::from_setting(method, level)?)
    } else {
        None
    };
    let progress = Arc::new(granary_common::QueryProgress::default());
    let mut progress_ticker = setting_is_on(&settings, session, "send_progress_in_http_headers").then(|| {
        let every = request_setting(&settings, session, "http_headers_progress_interval_ms").and_then(|v| v.parse::<u64>().ok()).unwrap_or(100);
        let every = Duration::from_millis(every.max(1));
        let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        interval
    });
    if let Some(database) = &params.database {
        if database != "system" {
            state.instance.catalog().require_database(database)?;
        }
        session.current_database = database.clone();
    }
    let query_request = QueryRequest {
        text,
        query_id: params.query_id.clone(),
        settings,
        params: params.params.clone(),
        default_format: params.default_format.clone(),
        input,
        progress: Some(progress.clone()),
        client_address: Some(peer),
    };
    // Boxed so that passing the query's (large) future around moves a pointer.
    let execution = Box::pin(state.instance.execute(session, query_request));
    let executed = tick_while(async { Some(execution.await) }, head, &mut progress_ticker, &progress)
        .await
        .unwrap_or_else(|| Err(Error::new(ErrorCode::LOGICAL_ERROR, "the query ended without an outcome")));
    drop(lease);
    if params.close_session {
        if let Some(id) = &params.session_id {
            state.sessions.close(id);
        }
    }
    let mut response = executed?;
    *query_id_out = Some(response.query_id.clone());
    // Hold the headers until the first chunk: a small result then has a complete summary,
    // and an early error still gets a proper status.
    let first = tick_while(response.body.recv(), head, &mut progress_ticker, &progress).await;
    let first = match first {
        Some(Err(e)) => return Err(e),
        Some(Ok(chunk)) => Some(chunk),
        None => None,
    };
    // wait_end_of_query: the whole result before the headers, so a late error still
    // gets its status and the summary is final.
    let buffered = if wait_end_of_query {
        let mut buffer = ResponseBuffer::new(params.buffer_size.unwrap_or(DEFAULT_RESPONSE_BUFFER));
        if let Some(chunk) = first.clone() {
            buffer.push(chunk).await?;
        }
        while let Some(chunk) = tick_while(response.body.recv(), head, &mut progress_ticker, &progress).await {
            buffer.push(chunk?).await?;
        }
        Some(buffer.into_stream().await?)
    } else {
        None
    };
    let summary = summary_header(&response.progress.snapshot())?;
    // Header names made at compile time, and values checked once each: parsing the names
    // and copying them was a few percent of a short query's instructions.
    let mut headers = http::HeaderMap::with_capacity(8);
    headers.insert(CONTENT_TYPE, header_value(&response.content_type)?);
    headers.insert(QUERY_ID, header_value(&response.query_id)?);
    headers.insert(FORMAT, header_value(&response.format)?);
    headers.insert(TIMEZONE, header_value(&response.timezone)?);
    headers.insert(SERVER_DISPLAY_NAME, HeaderValue::from_static("granary"));
    headers.insert(SUMMARY, summary);
    if let Some(id) = &params.session_id {
        headers.insert(SESSION_ID, header_value(id)?);
    }
    if let Some(coding) = response_coding {
        headers.insert(http::header::CONTENT_ENCODING, HeaderValue::from_static(coding.http_name()));
    }
    let encoder = match (response_coding, block_method) {
        (None, None) => None,
        (http, blocks) => Some(ResponseEncoder::new(http.map(|c| (c, compression_level)), blocks)?),
    };
    let chunks = match buffered {
        Some(stream) => stream,
        None => {
            let rest = futures::stream::poll_fn(move |cx| response.body.poll_recv(cx));
            futures::stream::iter(first.map(Ok)).chain(rest).boxed()
        }
    };
    let frames = body_frames(chunks, encoder);
    let mut built = Response::new(BodyExt::boxed_unsync(StreamBody::new(frames)));
    *built.headers_mut() = headers;
    Ok(built)
}

const QUERY_ID: HeaderName = HeaderName::from_static("x-clickhouse-query-id");
const FORMAT: HeaderName = HeaderName::from_static("x-clickhouse-format");
const TIMEZONE: HeaderName = HeaderName::from_static("x-clickhouse-timezone");
const SERVER_DISPLAY_NAME: HeaderName = HeaderName::from_static("x-clickhouse-server-display-name");
const SUMMARY: HeaderName = HeaderName::from_static("x-clickhouse-summary");
const SESSION_ID: HeaderName = HeaderName::from_static("x-clickhouse-session-id");

/// `X-ClickHouse-Summary`: the text of `ProgressSnapshot::summary_json`, written without
/// the formatting machinery (it is on every response).
fn summary_header(p: &granary_common::ProgressSnapshot) -> Result<HeaderValue> {
    let fields = [
        ("read_rows", p.read_rows),
        ("read_bytes", p.read_bytes),
        ("written_rows", p.written_rows),
        ("written_bytes", p.written_bytes),
        ("total_rows_to_read", p.total_rows_to_read),
        ("result_rows", p.result_rows),
        ("result_bytes", p.result_bytes),
        ("elapsed_ns", p.elapsed_ns),
    ];
    let mut out = Vec::with_capacity(256);
    for (i, (name, value)) in fields.into_iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"{\"" } else { b",\"" });
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":\"");
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut rest = value;
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        out.extend_from_slice(&digits[at..]);
        out.push(b'"');
    }
    out.push(b'}');
    HeaderValue::from_maybe_shared(Bytes::from(out)).map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("Cannot build response: {e}")))
}

fn header_value(text: &str) -> Result<HeaderValue> {
    HeaderValue::from_str(text).map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("Cannot build response: {e}")))
}

/// A setting given as a URL parameter.
fn setting_value<'a>(url_settings: &'a [(String, String)], name: &str) -> Option<&'a str> {
    url_settings.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// A setting of this request as text: URL parameters first, then the session.
fn request_setting<'a>(url_settings: &'a [(String, String)], session: &'a Session, name: &str) -> Option<&'a str> {
    url_settings.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).or_else(|| session.settings.get(name))
}

/// Whether a boolean setting is on for this request.
fn setting_is_on(url_settings: &[(String, String)], session: &Session, name: &str) -> bool {
    matches!(request_setting(url_settings, session, name).map(str::to_ascii_lowercase).as_deref(), Some("1" | "true"))
}

/// Awaits `work`; meanwhile an `X-ClickHouse-Progress` header goes out at every tick
/// (`send_progress_in_http_headers`) until the response head is sent. A client that went
/// away ends the wait with an error, and dropping `work` cancels the query.
async fn tick_while<T>(
    work: impl std::future::Future<Output = Option<Result<T>>>,
    head: &EarlyHead,
    ticker: &mut Option<tokio::time::Interval>,
    progress: &granary_common::QueryProgress,
) -> Option<Result<T>> {
    let Some(interval) = ticker.as_mut() else {
        return work.await;
    };
    tokio::pin!(work);
    loop {
        tokio::select! {
            outcome = &mut work => return outcome,
            _ = interval.tick() => {
                if let Err(e) = head.write_header("X-ClickHouse-Progress", &progress.snapshot().progress_json()).await {
                    return Some(Err(Error::new(ErrorCode::NETWORK_ERROR, format!("Cannot send progress: {e}"))));
                }
            }
        }
    }
}

/// Bytes of a `wait_end_of_query` response kept in memory (ClickHouse's `buffer_size`
/// default); the rest waits in an anonymous temporary file.
const DEFAULT_RESPONSE_BUFFER: usize = 1 << 20;

/// A whole response held back until the query ends, bounded in memory.
struct ResponseBuffer {
    memory: Vec<Bytes>,
    memory_bytes: usize,
    limit: usize,
    spill: Option<tokio::fs::File>,
}

impl ResponseBuffer {
    fn new(limit: usize) -> Self {
        ResponseBuffer { memory: Vec::new(), memory_bytes: 0, limit, spill: None }
    }

    async fn push(&mut self, chunk: Bytes) -> Result<()> {
        use tokio::io::AsyncWriteExt;
        if self.spill.is_none() && self.memory_bytes + chunk.len() <= self.limit {
            self.memory_bytes += chunk.len();
            self.memory.push(chunk);
            return Ok(());
        }
        let file = match &mut self.spill {
            Some(file) => file,
            None => self.spill.insert(tokio::fs::File::from_std(tempfile::tempfile()?)),
        };
        file.write_all(&chunk).await?;
        Ok(())
    }

    async fn into_stream(self) -> Result<futures::stream::BoxStream<'static, Result<Bytes>>> {
        use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
        let memory = futures::stream::iter(self.memory.into_iter().map(Ok));
        let Some(mut file) = self.spill else {
            return Ok(memory.boxed());
        };
        file.flush().await?;
        file.seek(std::io::SeekFrom::Start(0)).await?;
        let from_file = futures::stream::unfold(Some(file), |file| async move {
            let mut file = file?;
            let mut buffer = vec![0u8; DEFAULT_RESPONSE_BUFFER];
            match file.read(&mut buffer).await {
                Ok(0) => None,
                Ok(n) => {
                    buffer.truncate(n);
                    Some((Ok(Bytes::from(buffer)), Some(file)))
                }
                Err(e) => Some((Err(Error::from(e)), None)),
            }
        });
        Ok(memory.chain(from_file).boxed())
    }
}

type Frames = Vec<std::result::Result<Frame<Bytes>, std::io::Error>>;

/// The response body: output chunks, compressed when asked. An error after the status
/// went out is written where ClickHouse writes it, at the end of the body, and then the
/// chunked encoding is broken so clients see a truncated response, not a complete one.
fn body_frames(
    chunks: futures::stream::BoxStream<'static, Result<Bytes>>,
    encoder: Option<ResponseEncoder>,
) -> impl futures::Stream<Item = std::result::Result<Frame<Bytes>, std::io::Error>> {
    fn data(frames: &mut Frames, bytes: Bytes) {
        if !bytes.is_empty() {
            frames.push(Ok(Frame::data(bytes)));
        }
    }
    fn broken(frames: &mut Frames, e: &Error) {
        frames.push(Err(std::io::Error::other(e.to_clickhouse_string())));
    }
    // `pending_break` holds the error whose text was just sent: the break comes one step
    // later, after a pause, so hyper flushes the text to the socket before aborting.
    futures::stream::unfold((chunks, encoder, false, None::<Error>), |(mut chunks, mut encoder, done, pending_break)| async move {
        if let Some(e) = pending_break {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let mut frames = Frames::new();
            broken(&mut frames, &e);
            return Some((futures::stream::iter(frames), (chunks, encoder, true, None)));
        }
        if done {
            return None;
        }
        let mut frames = Frames::new();
        let mut finished = false;
        match chunks.next().await {
            Some(Ok(chunk)) => match encoder.as_mut().map(|e| e.encode(&chunk)) {
                None => data(&mut frames, chunk),
                Some(Ok(encoded)) => data(&mut frames, encoded),
                Some(Err(e)) => {
                    broken(&mut frames, &e);
                    finished = true;
                }
            },
            Some(Err(e)) => {
                let text = Bytes::from(format!("\n{}\n", e.to_clickhouse_string()));
                match encoder.as_mut() {
                    None => data(&mut frames, text),
                    Some(encoder) => {
                        if let Ok(encoded) = encoder.encode(&text) {
                            data(&mut frames, encoded);
                        }
                        if let Ok(tail) = encoder.finish() {
                            data(&mut frames, tail);
                        }
                    }
                }
                return Some((futures::stream::iter(frames), (chunks, encoder, true, Some(e))));
            }
            None => {
                finished = true;
                match encoder.as_mut().map(ResponseEncoder::finish) {
                    Some(Ok(tail)) => data(&mut frames, tail),
                    Some(Err(e)) => broken(&mut frames, &e),
                    None => {}
                }
                if frames.is_empty() {
                    return None;
                }
            }
        }
        Some((futures::stream::iter(frames), (chunks, encoder, finished, None)))
    })
    .flatten()
    .fuse()
}

/// The request body as a stream of data chunks.
fn body_stream(body: Incoming) -> granary_query::ByteStream {
    BodyStream::new(body)
        .filter_map(|frame| async move {
            match frame {
                Ok(frame) => frame.into_data().ok().map(Ok),
                Err(e) => Some(Err(Error::new(ErrorCode::NETWORK_ERROR, format!("Cannot read the request body: {e}")))),
            }
        })
        .boxed()
}

/// Separates the query text from INSERT data. With `?query=`, the body is data appended
/// after a line break (ClickHouse concatenates them); without it, the body starts with
/// the query. At most `max_query_size` bytes are read before the query is known; the
/// rest streams on as data, never buffered whole.
async fn split_query_and_data(
    url_query: Option<String>,
    mut stream: granary_query::ByteStream,
    max_query_size: usize,
) -> Result<(String, Option<granary_query::ByteStream>)> {
    if let Some(query) = url_query {
        if query.trim_start().get(..6).is_some_and(|w| w.eq_ignore_ascii_case("INSERT")) {
            return Ok((format!("{query}\n"), Some(stream)));
        }
        let mut text = query;
        let mut prefix = BytesMut::new();
        while let Some(chunk) = stream.next().await {
            prefix.extend_from_slice(&chunk?);
            if prefix.len() > max_query_size {
                return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Max query size exceeded (max_query_size = {max_query_size})")));
            }
        }
        if !prefix.is_empty() {
            text.push('\n');
            text.push_str(&String::from_utf8_lossy(&prefix));
        }
        return Ok((text, None));
    }
    let mut prefix = BytesMut::new();
    let mut finished = false;
    while prefix.len() <= max_query_size {
        match stream.next().await {
            Some(chunk) => prefix.extend_from_slice(&chunk?),
            None => {
                finished = true;
                break;
            }
        }
    }
    let prefix = prefix.freeze();
    let valid = match std::str::from_utf8(&prefix) {
        Ok(_) => prefix.len(),
        Err(e) => e.valid_up_to(),
    };
    let text = String::from_utf8_lossy(&prefix[..valid]).into_owned();
    let rest = prefix.slice(valid..);
    if finished && rest.is_empty() {
        return Ok((text, None));
    }
    let head = futures::stream::iter([Ok(rest)]);
    Ok((text, Some(head.chain(stream).boxed())))
}

fn text_response(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(BodyExt::boxed_unsync(Full::new(Bytes::from_static(text.as_bytes())).map_err(|never| match never {})));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=UTF-8"));
    response
}

fn error_response(error: &Error, query_id: Option<&str>) -> Response<Body> {
    let body = format!("{}\n", error.to_clickhouse_string());
    let mut response = Response::new(BodyExt::boxed_unsync(Full::new(Bytes::from(body)).map_err(|never| match never {})));
    *response.status_mut() = StatusCode::from_u16(error.code().http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=UTF-8"));
    headers.insert("X-ClickHouse-Exception-Code", HeaderValue::from(error.code().number()));
    if let Some(id) = query_id.and_then(|id| HeaderValue::from_str(id).ok()) {
        headers.insert("X-ClickHouse-Query-Id", id);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_split_settings_and_reserved() {
        let p = parse_params(Some("query=SELECT%201&max_threads=2&param_x=5&database=db&compress=0")).unwrap();
        assert_eq!(p.query.as_deref(), Some("SELECT 1"));
        assert_eq!(p.settings, vec![("max_threads".to_string(), "2".to_string())]);
        assert_eq!(p.params.get("x").map(String::as_str), Some("5"));
        assert_eq!(p.database.as_deref(), Some("db"));
        assert_eq!(parse_params(Some("nonsense_setting=1")).err().map(|e| e.code()), Some(ErrorCode::UNKNOWN_SETTING));
    }

    #[test]
    fn summary_header_is_the_summary_json() {
        let mut p = granary_common::QueryProgress::default().snapshot();
        assert_eq!(summary_header(&p).unwrap().to_str().unwrap(), p.summary_json());
        (p.read_rows, p.read_bytes, p.written_rows, p.written_bytes) = (1, 10, 987_654_321, u64::MAX);
        (p.total_rows_to_read, p.result_rows, p.result_bytes, p.elapsed_ns) = (100, 7, 12_345, 1_000_000_007);
        assert_eq!(summary_header(&p).unwrap().to_str().unwrap(), p.summary_json());
    }

    #[test]
    fn basic_auth_decoding() {
        assert_eq!(decode_base64("ZGVmYXVsdDo=").unwrap(), b"default:");
        assert_eq!(decode_base64("dTpwYXNz").unwrap(), b"u:pass");
        assert!(decode_base64("!!").is_none());
    }
}
