//! One query over ClickHouse's HTTP interface.
//!
//! Each query gets its own HTTP/1.1 connection, driven by hyper's low-level client:
//! there is no pool whose idle connections the server could close behind our back (the
//! prompt can sit idle for hours), and dropping a query's future closes its socket,
//! which is how the server learns that a query was cancelled.
//!
//! hyper hands over response headers only once the whole head has arrived, but a
//! ClickHouse server asked for `send_progress_in_http_headers=1` sends
//! `X-ClickHouse-Progress` headers one by one *while* the query runs, before the body.
//! To show them live, the socket is wrapped in [`HeadSniffer`], which watches the bytes
//! of the response head go by on their way to hyper and publishes each progress header.
//!
//! The same watch serves INSERTs: their data goes with `Expect: 100-continue` and is held
//! back until the server's `100 Continue`. A server that refuses the INSERT (no such
//! table) answers at once without reading any data, and that answer is shown; had the
//! data been sent regardless, the server would close the connection on unread data and
//! the client would only see a broken pipe. hyper's client has no support for
//! 100-continue, hence [`Gated`].

use std::future::Future;
use std::io::Write;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch};

use super::report::{Progress, ProgressLine};
use super::ClientError;

/// The request body: the query text, or INSERT data streamed from stdin.
pub(crate) type RequestBody = UnsyncBoxBody<Bytes, std::io::Error>;

/// clickhouse-client's default connect_timeout.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Stdin is read and sent in pieces of at most this size.
const STDIN_CHUNK: usize = 1 << 20;
/// An error response's body is read up to this size (it is a message, not data).
const MAX_ERROR_BODY: usize = 1 << 20;
/// How much of the end of a result is kept to find an exception the server wrote into
/// the body after the status was sent.
const TAIL: usize = 64 << 10;
/// How often the progress line is redrawn.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);
/// How long INSERT data waits for `100 Continue` from a server that may not send it
/// (curl waits as long).
const CONTINUE_TIMEOUT: Duration = Duration::from_secs(1);

/// Where and as whom to connect.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
}

impl Endpoint {
    /// `host:port`, with an IPv6 address in brackets: for messages and the Host header.
    pub fn authority(&self) -> String {
        if self.host.contains(':') && !self.host.starts_with('[') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// What to send.
pub(crate) enum Payload {
    /// `POST /` with the query (and any inline INSERT data) as the body.
    Query(String),
    /// `POST /?query=...` with INSERT data as the body.
    Insert { query: String, data: RequestBody },
}

/// A query that succeeded.
#[derive(Debug, Default)]
pub(crate) struct Answer {
    /// `X-ClickHouse-Summary`, or the last progress header when there was none.
    pub summary: Progress,
    /// Bytes of output written.
    pub output_bytes: u64,
}

/// Runs one query: connects, sends it with `params` as URL parameters, and writes the
/// result to `out` as it arrives. While waiting for the response head, `progress` (when
/// given) is redrawn with what the server reports.
pub(crate) async fn execute<W: Write, P: Write>(
    endpoint: &Endpoint,
    params: &[(String, String)],
    payload: Payload,
    out: &mut W,
    mut progress: Option<&mut ProgressLine<P>>,
) -> Result<Answer, ClientError> {
    let started = Instant::now();
    let (progress_tx, progress_rx) = watch::channel(None);
    let (continue_tx, continue_rx) = watch::channel(false);
    let request = build_request(endpoint, params, payload, continue_rx)?;
    let stream = connect(endpoint).await?;
    let io = TokioIo::new(HeadSniffer { inner: stream, scanner: Some(HeadScanner::default()), progress: progress_tx, continued: continue_tx });
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io).await.map_err(|e| network_error(endpoint, &e))?;
    // The connection's driver. Its own result is not needed: a failure surfaces in the
    // response or its body. Aborted when this query ends or is dropped (cancelled).
    let _driver = AbortOnDrop(tokio::spawn(connection));

    let response = {
        let response = sender.send_request(request);
        tokio::pin!(response);
        match progress.as_deref_mut() {
            None => response.await,
            Some(line) => {
                let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + PROGRESS_INTERVAL, PROGRESS_INTERVAL);
                loop {
                    tokio::select! {
                        r = &mut response => break r,
                        _ = ticker.tick() => {
                            let current = progress_rx.borrow().unwrap_or_default();
                            line.draw(&current, started.elapsed());
                        }
                    }
                }
            }
        }
    };
    if let Some(line) = progress {
        line.clear();
    }
    let response = response.map_err(|e| network_error(endpoint, &e))?;

    let status = response.status();
    let headers = response.headers();
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let exception_code = header("X-ClickHouse-Exception-Code").and_then(|c| c.trim().parse::<i32>().ok());
    let summary = header("X-ClickHouse-Summary")
        .and_then(|s| Progress::from_json(s.as_bytes()))
        .or_else(|| *progress_rx.borrow())
        .unwrap_or_default();
    let mut body = response.into_body();

    if !status.is_success() {
        let mut text = Vec::new();
        while let Some(frame) = body.frame().await {
            // A broken error body still has a status to report: keep what arrived.
            let Ok(frame) = frame else { break };
            if let Some(data) = frame.data_ref() {
                text.extend_from_slice(&data[..data.len().min(MAX_ERROR_BODY - text.len())]);
                if text.len() >= MAX_ERROR_BODY {
                    break;
                }
            }
        }
        let text = String::from_utf8_lossy(&text).trim_end().to_string();
        let message = if text.is_empty() { format!("HTTP status {status}") } else { text };
        // Without ClickHouse's header (a proxy's answer, say): RECEIVED_ERROR_FROM_REMOTE_IO_SERVER.
        let code = exception_code.or_else(|| exception_in(message.as_bytes()).map(|(code, _)| code)).unwrap_or(86);
        return Err(ClientError::Server { code, message });
    }

    let mut tail = Vec::new();
    let mut output_bytes = 0u64;
    while let Some(frame) = body.frame().await {
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => {
                // The status was sent before the query failed: ClickHouse then writes the
                // exception at the end of the body and breaks the connection.
                let _ = out.flush();
                if let Some((code, message)) = exception_in(&tail) {
                    return Err(ClientError::Server { code, message });
                }
                return Err(ClientError::Network {
                    code: 210,
                    message: format!("Connection to {} broke while reading the result: {}", endpoint.authority(), error_chain(&e)),
                });
            }
        };
        let Some(data) = frame.data_ref() else { continue };
        out.write_all(data).and_then(|()| out.flush()).map_err(ClientError::Output)?;
        output_bytes += data.len() as u64;
        keep_tail(&mut tail, data);
    }
    Ok(Answer { summary, output_bytes })
}

/// The request; INSERT data is held back until `continued` turns true (the server's
/// `100 Continue`) or [`CONTINUE_TIMEOUT`] passes.
fn build_request(
    endpoint: &Endpoint,
    params: &[(String, String)],
    payload: Payload,
    continued: watch::Receiver<bool>,
) -> Result<hyper::Request<RequestBody>, ClientError> {
    let mut query_string = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in params {
        query_string.append_pair(name, value);
    }
    let mut expect_continue = false;
    let body = match payload {
        Payload::Query(text) => Full::new(Bytes::from(text)).map_err(|never| match never {}).boxed_unsync(),
        Payload::Insert { query, data } => {
            query_string.append_pair("query", &query);
            expect_continue = true;
            Gated::new(data, continued).boxed_unsync()
        }
    };
    let query_string = query_string.finish();
    let uri = if query_string.is_empty() { "/".to_string() } else { format!("/?{query_string}") };
    let mut builder = hyper::Request::post(uri)
        .header(hyper::header::HOST, endpoint.authority())
        .header(hyper::header::USER_AGENT, concat!("granary-client/", env!("CARGO_PKG_VERSION")))
        .header("X-ClickHouse-User", header_value(&endpoint.user, "user")?);
    if !endpoint.password.is_empty() {
        builder = builder.header("X-ClickHouse-Key", header_value(&endpoint.password, "password")?);
    }
    if expect_continue {
        builder = builder.header(hyper::header::EXPECT, "100-continue");
    }
    builder.body(body).map_err(|e| ClientError::BadArguments(format!("Cannot build the request: {e}")))
}

fn header_value(text: &str, what: &str) -> Result<hyper::header::HeaderValue, ClientError> {
    hyper::header::HeaderValue::from_str(text).map_err(|_| ClientError::BadArguments(format!("The {what} contains characters that cannot be sent in an HTTP header")))
}

pub(crate) async fn connect(endpoint: &Endpoint) -> Result<TcpStream, ClientError> {
    let attempt = async {
        let addresses: Vec<std::net::SocketAddr> = tokio::net::lookup_host((endpoint.host.as_str(), endpoint.port))
            .await
            .map_err(|e| ClientError::Network { code: 198, message: format!("Not found address of host: {}: {e}", endpoint.host) })?
            .collect();
        // Each address in turn: `localhost` may be ::1 first, with the server on 127.0.0.1 only.
        let mut last_error = None;
        for address in addresses {
            match TcpStream::connect(address).await {
                Ok(stream) => return Ok(stream),
                Err(e) => last_error = Some(e),
            }
        }
        let reason = match last_error {
            Some(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => "Connection refused".to_string(),
            Some(e) => e.to_string(),
            None => format!("No address found for {}", endpoint.host),
        };
        Err(ClientError::Network { code: 210, message: format!("{reason} ({})", endpoint.authority()) })
    };
    let stream = match tokio::time::timeout(CONNECT_TIMEOUT, attempt).await {
        Ok(result) => result?,
        Err(_) => {
            return Err(ClientError::Network {
                code: 209,
                message: format!("Timeout exceeded while connecting to {} ({} s)", endpoint.authority(), CONNECT_TIMEOUT.as_secs()),
            });
        }
    };
    // Small requests and results should not wait for Nagle's algorithm.
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

fn network_error(endpoint: &Endpoint, e: &hyper::Error) -> ClientError {
    ClientError::Network { code: 210, message: format!("{} ({})", error_chain(e), endpoint.authority()) }
}

/// An error and its sources: hyper's own message ("connection closed before message
/// completed") says less than the I/O error under it.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

fn keep_tail(tail: &mut Vec<u8>, data: &[u8]) {
    if data.len() >= TAIL {
        tail.clear();
        tail.extend_from_slice(&data[data.len() - TAIL..]);
    } else {
        tail.extend_from_slice(data);
        // Trimmed in batches so that small chunks do not each move the whole tail.
        if tail.len() > 2 * TAIL {
            tail.drain(..tail.len() - TAIL);
        }
    }
}

/// The last ClickHouse exception (`Code: N. DB::Exception: ...`) starting a line in
/// `text`, with its code.
pub(crate) fn exception_in(text: &[u8]) -> Option<(i32, String)> {
    let mut search_end = text.len();
    loop {
        let at = text[..search_end].windows(6).rposition(|w| w == b"Code: ")?;
        if at == 0 || text[at - 1] == b'\n' {
            let rest = &text[at + 6..];
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 && rest.get(digits) == Some(&b'.') {
                let code = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
                let message = String::from_utf8_lossy(&text[at..]).trim_end().to_string();
                return Some((code, message));
            }
        }
        search_end = at;
    }
}

/// Aborts a spawned task when dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A body that streams `reader` (stdin) in pieces of up to 1 MiB, read on a thread of
/// its own: reads from a pipe or a file block, and a channel of two pieces keeps memory
/// flat however much data there is. Reading stops when the request is gone.
pub(crate) fn streamed_body<R: std::io::Read + Send + 'static>(reader: R) -> Result<RequestBody, ClientError> {
    let (tx, mut rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(2);
    std::thread::Builder::new()
        .name("granary-stdin".into())
        .spawn(move || pump(reader, &tx))
        .map_err(|e| ClientError::Input(format!("Cannot start the stdin reader: {e}")))?;
    let frames = futures::stream::poll_fn(move |cx| rx.poll_recv(cx).map(|item| item.map(|chunk| chunk.map(Frame::data))));
    Ok(StreamBody::new(frames).boxed_unsync())
}

fn pump<R: std::io::Read>(mut reader: R, tx: &mpsc::Sender<Result<Bytes, std::io::Error>>) {
    let mut buffer = vec![0u8; STDIN_CHUNK];
    loop {
        let chunk = match reader.read(&mut buffer) {
            Ok(0) => return,
            // Copied out at its own size: the buffer is reused and a short read from a
            // pipe must not pin a whole MiB while queued.
            Ok(n) => Ok(Bytes::copy_from_slice(&buffer[..n])),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => Err(std::io::Error::new(e.kind(), format!("Cannot read stdin: {e}"))),
        };
        let failed = chunk.is_err();
        if tx.blocking_send(chunk).is_err() || failed {
            return;
        }
    }
}

/// A request body that yields nothing until the server has said `100 Continue` (or
/// has had [`CONTINUE_TIMEOUT`] to say it). Should the server answer for good instead,
/// the body is never sent: hyper reads the response while the body is pending.
pub(crate) struct Gated {
    /// Resolves when the data may go; `None` once it has.
    open: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    inner: RequestBody,
}

impl Gated {
    fn new(inner: RequestBody, mut continued: watch::Receiver<bool>) -> Gated {
        let open = async move {
            tokio::select! {
                // An error means the connection is gone; hyper reports that.
                _ = continued.wait_for(|c| *c) => {}
                _ = tokio::time::sleep(CONTINUE_TIMEOUT) => {}
            }
        };
        Gated { open: Some(Box::pin(open)), inner }
    }
}

impl hyper::body::Body for Gated {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let this = self.get_mut();
        if let Some(open) = this.open.as_mut() {
            if open.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            this.open = None;
        }
        Pin::new(&mut this.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.open.is_none() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

/// The socket, with an eye on the response head: each `X-ClickHouse-Progress` header is
/// published on `progress` as soon as its line has arrived, and a `100 Continue` on
/// `continued`.
struct HeadSniffer<T> {
    inner: T,
    /// `None` once the head is over: the body passes unexamined.
    scanner: Option<HeadScanner>,
    progress: watch::Sender<Option<Progress>>,
    continued: watch::Sender<bool>,
}

impl<T: AsyncRead + Unpin> AsyncRead for HeadSniffer<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let result = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let (Poll::Ready(Ok(())), Some(scanner)) = (&result, this.scanner.as_mut()) {
            if let Some(progress) = scanner.feed(&buf.filled()[before..]) {
                this.progress.send_replace(Some(progress));
            }
            if scanner.continued() && !*this.continued.borrow() {
                this.continued.send_replace(true);
            }
            if scanner.is_done() {
                this.scanner = None;
            }
        }
        result
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for HeadSniffer<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[std::io::IoSlice<'_>]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// Follows an HTTP/1.1 response head line by line, as it arrives in arbitrary pieces.
#[derive(Debug, Default)]
pub(crate) struct HeadScanner {
    line: Vec<u8>,
    /// The current line outgrew [`MAX_LINE`]: it is skipped, not parsed.
    overlong: bool,
    state: HeadState,
    /// An informational (1xx) response, `100 Continue`, has been seen.
    continued: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum HeadState {
    #[default]
    StatusLine,
    /// Headers of a response; `informational` for a 1xx one, after which the real
    /// response's status line follows.
    Headers { informational: bool },
    Done,
}

/// Longer header lines are not progress headers.
const MAX_LINE: usize = 16 << 10;

impl HeadScanner {
    /// Takes the next bytes from the connection; returns the last progress header that
    /// they completed. Bytes after the head are ignored.
    pub fn feed(&mut self, bytes: &[u8]) -> Option<Progress> {
        let mut latest = None;
        for &b in bytes {
            if self.state == HeadState::Done {
                break;
            }
            if b != b'\n' {
                if self.line.len() < MAX_LINE {
                    self.line.push(b);
                } else {
                    self.overlong = true;
                }
                continue;
            }
            let mut line = std::mem::take(&mut self.line);
            if !self.overlong {
                let content = line.strip_suffix(b"\r").unwrap_or(&line);
                if let Some(progress) = self.end_of_line(content) {
                    latest = Some(progress);
                }
            }
            // The buffer is kept for the next line.
            line.clear();
            self.line = line;
            self.overlong = false;
        }
        latest
    }

    pub fn is_done(&self) -> bool {
        self.state == HeadState::Done
    }

    pub fn continued(&self) -> bool {
        self.continued
    }

    fn end_of_line(&mut self, line: &[u8]) -> Option<Progress> {
        match self.state {
            HeadState::StatusLine => {
                // `HTTP/1.1 100 Continue`: headers, a blank line, then the real response.
                let informational = line.split(|b| *b == b' ').nth(1).is_some_and(|code| code.len() == 3 && code[0] == b'1');
                self.continued |= informational;
                self.state = HeadState::Headers { informational };
                None
            }
            HeadState::Headers { informational } => {
                if line.is_empty() {
                    self.state = if informational { HeadState::StatusLine } else { HeadState::Done };
                    return None;
                }
                let colon = line.iter().position(|b| *b == b':')?;
                let (name, value) = (&line[..colon], &line[colon + 1..]);
                if name.eq_ignore_ascii_case(b"X-ClickHouse-Progress") {
                    Progress::from_json(value)
                } else {
                    None
                }
            }
            HeadState::Done => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scanner_finds_progress_headers_in_pieces() {
        let head = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-ClickHouse-Progress: {\"read_rows\":\"1\"}\r\nx-clickhouse-progress: {\"read_rows\":\"2\",\"total_rows_to_read\":\"4\"}\r\nContent-Type: text/plain\r\n\r\nX-ClickHouse-Progress: {\"read_rows\":\"9\"}\r\n";
        // Byte by byte: each header is seen when its line completes.
        let mut scanner = HeadScanner::default();
        assert_eq!(scanner.feed(b"HTTP/1.1 100 Continue"), None);
        assert!(!scanner.continued());
        let seen: Vec<u64> = head[21..].iter().filter_map(|b| scanner.feed(std::slice::from_ref(b))).map(|p| p.read_rows).collect();
        assert_eq!(seen, [1, 2]);
        assert!(scanner.is_done() && scanner.continued());
        // All at once: the last one wins; nothing after the head counts.
        let mut scanner = HeadScanner::default();
        assert_eq!(scanner.feed(head), Some(Progress { read_rows: 2, total_rows_to_read: 4, ..Progress::default() }));
    }

    #[test]
    fn scanner_skips_overlong_and_malformed_lines() {
        let mut scanner = HeadScanner::default();
        let mut head = b"HTTP/1.1 200 OK\r\nX-Long: ".to_vec();
        head.extend(std::iter::repeat_n(b'a', MAX_LINE * 2));
        head.extend_from_slice(b"\r\nX-ClickHouse-Progress: nonsense\r\nX-ClickHouse-Progress: {\"read_rows\":\"7\"}\r\n\r\n");
        assert_eq!(scanner.feed(&head).map(|p| p.read_rows), Some(7));
        assert!(scanner.is_done());
    }

    #[test]
    fn exceptions_in_result_tails() {
        let tail = b"1\n2\n\nCode: 241. DB::Exception: Memory limit exceeded. (MEMORY_LIMIT_EXCEEDED)\n";
        assert_eq!(exception_in(tail), Some((241, "Code: 241. DB::Exception: Memory limit exceeded. (MEMORY_LIMIT_EXCEEDED)".to_string())));
        assert_eq!(exception_in(b"Code: 60. DB::Exception: x"), Some((60, "Code: 60. DB::Exception: x".to_string())));
        // Not at a line start, or no number: data, not an exception.
        assert_eq!(exception_in(b"a Code: 60. x"), None);
        assert_eq!(exception_in(b"Code: x.\nCode: .\n"), None);
        assert_eq!(exception_in(b""), None);
    }

    #[test]
    fn tail_keeps_the_end() {
        let mut tail = Vec::new();
        for i in 0..10_000u32 {
            keep_tail(&mut tail, format!("{i}\n").as_bytes());
        }
        assert!(tail.len() <= 2 * TAIL && tail.ends_with(b"9998\n9999\n"));
        keep_tail(&mut tail, &vec![b'x'; TAIL * 3]);
        assert_eq!(tail.len(), TAIL);
    }

    #[test]
    fn authority_brackets_ipv6() {
        let endpoint = |host: &str| Endpoint { host: host.into(), port: 8123, user: "default".into(), password: String::new() };
        assert_eq!(endpoint("127.0.0.1").authority(), "127.0.0.1:8123");
        assert_eq!(endpoint("::1").authority(), "[::1]:8123");
        assert_eq!(endpoint("localhost").authority(), "localhost:8123");
    }
}
