//! The byte stream of one HTTP connection, with a side door for response headers that
//! must go out while the query still runs.
//!
//! ClickHouse sends `X-ClickHouse-Progress` headers during a long query
//! (`send_progress_in_http_headers`), which keeps proxies and clients from timing out a
//! long `INSERT ... SELECT`. hyper writes a response head only once, when the handler
//! returns, so the handler writes the status line and progress headers itself through
//! [`EarlyHead`]; when hyper then writes its own head, the connection drops hyper's
//! status line and lets the rest of its headers follow the progress lines. The status
//! is then fixed at 200, as in ClickHouse: a later error is reported by the
//! `X-ClickHouse-Exception-Code` header and the body.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf, ReadHalf, WriteHalf};

/// Anything a connection can run over (TCP, TLS).
pub trait Transport: AsyncRead + AsyncWrite + Send + Unpin + 'static {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> Transport for T {}

type BoxedTransport = Box<dyn Transport>;

/// The connection as hyper sees it.
pub struct ConnectionIo {
    read: ReadHalf<BoxedTransport>,
    head: Arc<EarlyHead>,
}

/// The handler's way to write response head lines before hyper does.
pub struct EarlyHead {
    write: Mutex<WriteHalf<BoxedTransport>>,
    /// Set once the handler wrote a status line of the current response: the next
    /// status line hyper writes is dropped.
    status_line_written: AtomicBool,
    /// Whether hyper's status line is being skipped (it may arrive in pieces).
    skipping: AtomicBool,
}

impl ConnectionIo {
    pub fn new(transport: impl Transport) -> (ConnectionIo, Arc<EarlyHead>) {
        let (read, write) = tokio::io::split(Box::new(transport) as BoxedTransport);
        let head = Arc::new(EarlyHead { write: Mutex::new(write), status_line_written: AtomicBool::new(false), skipping: AtomicBool::new(false) });
        (ConnectionIo { read, head: head.clone() }, head)
    }
}

impl EarlyHead {
    /// Whether the status line of the current response is already on the wire.
    pub fn started(&self) -> bool {
        self.status_line_written.load(Ordering::Acquire)
    }

    /// Writes one header line, preceded by `HTTP/1.1 200 OK` the first time.
    pub async fn write_header(&self, name: &str, value: &str) -> io::Result<()> {
        let mut bytes = Vec::with_capacity(name.len() + value.len() + 32);
        if !self.status_line_written.swap(true, Ordering::AcqRel) {
            bytes.extend_from_slice(b"HTTP/1.1 200 OK\r\n");
        }
        bytes.extend_from_slice(name.as_bytes());
        bytes.extend_from_slice(b": ");
        bytes.extend_from_slice(value.as_bytes());
        bytes.extend_from_slice(b"\r\n");
        let mut written = 0;
        while written < bytes.len() {
            written += std::future::poll_fn(|cx| self.poll_write_raw(cx, &bytes[written..])).await?;
        }
        std::future::poll_fn(|cx| self.poll_flush_raw(cx)).await
    }

    fn poll_write_raw(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let mut write = self.write.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        Pin::new(&mut *write).poll_write(cx, buf)
    }

    fn poll_flush_raw(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut write = self.write.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        Pin::new(&mut *write).poll_flush(cx)
    }

    /// hyper's bytes: its status line is dropped when the handler wrote one already.
    fn poll_write_from_hyper(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.status_line_written.swap(false, Ordering::AcqRel) {
            self.skipping.store(true, Ordering::Release);
        }
        if self.skipping.load(Ordering::Acquire) {
            return Poll::Ready(Ok(match buf.iter().position(|&b| b == b'\n') {
                Some(end) => {
                    self.skipping.store(false, Ordering::Release);
                    end + 1
                }
                None => buf.len(),
            }));
        }
        self.poll_write_raw(cx, buf)
    }
}

impl AsyncRead for ConnectionIo {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.read).poll_read(cx, buf)
    }
}

impl AsyncWrite for ConnectionIo {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.head.poll_write_from_hyper(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.head.poll_flush_raw(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut write = self.head.write.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        Pin::new(&mut *write).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn early_headers_replace_hypers_status_line() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (mut io, head) = ConnectionIo::new(server);
        head.write_header("X-ClickHouse-Progress", "{\"read_rows\":\"1\"}").await.unwrap();
        assert!(head.started());
        head.write_header("X-ClickHouse-Progress", "{\"read_rows\":\"2\"}").await.unwrap();
        // hyper's head, in two pieces that split the status line.
        io.write_all(b"HTTP/1.1 500 Inter").await.unwrap();
        io.write_all(b"nal Server Error\r\ncontent-length: 2\r\n\r\nok").await.unwrap();
        // The next response on the connection is untouched.
        io.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await.unwrap();
        io.flush().await.unwrap();
        drop(io);
        drop(head);
        let mut received = String::new();
        let mut client = client;
        client.read_to_string(&mut received).await.unwrap();
        assert_eq!(
            received,
            "HTTP/1.1 200 OK\r\nX-ClickHouse-Progress: {\"read_rows\":\"1\"}\r\nX-ClickHouse-Progress: {\"read_rows\":\"2\"}\r\n\
             content-length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n\r\n"
        );
    }
}
