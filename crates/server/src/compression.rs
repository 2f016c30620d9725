//! HTTP content codings: compressed request bodies (`Content-Encoding`) and compressed
//! responses (`enable_http_compression=1` with `Accept-Encoding`); and ClickHouse's own
//! checksummed blocks, `compress=1` for responses and `decompress=1` for request bodies.
//!
//! Decoders are blocking `Read` adapters, so a compressed body is decoded on a blocking
//! thread that pulls the raw chunks from the connection through a small channel and
//! pushes decoded chunks out through another: memory stays bounded by the two channels
//! however large the upload is.

use std::io::Read;

use bytes::Bytes;
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result};
use granary_io::detect::{Compression, Encoder};
use granary_io::native_compression::{BlockMethod, BlockReader, BlockWriter};
use granary_query::ByteStream;
use http::HeaderMap;
use tokio::sync::mpsc;

/// Size of the decoded chunks handed to the INSERT parser.
const DECODED_CHUNK: usize = 1 << 20;

/// The coding of the request body, from `Content-Encoding`.
pub fn request_coding(headers: &HeaderMap) -> Result<Compression> {
    let Some(value) = headers.get(http::header::CONTENT_ENCODING) else {
        return Ok(Compression::None);
    };
    let name = value.to_str().unwrap_or_default();
    Compression::from_http_encoding(name).ok_or_else(|| {
        Error::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!("Unknown compression method '{name}'. Only 'gzip', 'deflate', 'br', 'zstd', 'lz4' and 'none' are supported as HTTP content encodings"),
        )
    })
}

/// The coding of the response: the first of ClickHouse's preferred methods that the
/// client accepts, when compression is enabled. `None` answers uncompressed.
pub fn response_coding(headers: &HeaderMap, enabled: bool) -> Option<Compression> {
    if !enabled {
        return None;
    }
    let accepted: Vec<String> = headers
        .get_all(http::header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|item| {
            let mut parts = item.split(';');
            let name = parts.next()?.trim().to_ascii_lowercase();
            // `q=0` means "not acceptable".
            let refused = parts.any(|p| p.trim().strip_prefix("q=").and_then(|q| q.parse::<f32>().ok()) == Some(0.0));
            (!refused).then_some(name)
        })
        .collect();
    // ClickHouse's order of preference (zstd, br, lz4, snappy, gzip, deflate, xz, bz2),
    // whatever order the client lists them in; snappy is not offered.
    ["zstd", "br", "lz4", "gzip", "deflate", "xz", "bz2"]
        .into_iter()
        .find(|name| accepted.iter().any(|a| a == name))
        .and_then(Compression::from_http_encoding)
}

/// Decodes a compressed request body as it arrives.
pub fn decode_body(raw: ByteStream, coding: Compression) -> ByteStream {
    if coding == Compression::None {
        return raw;
    }
    decode_with(raw, move |source| coding.reader(source), move |e| decode_error(coding, e))
}

/// Decodes ClickHouse's checksummed blocks (`decompress=1`).
pub fn decode_native_blocks(raw: ByteStream, verify_checksums: bool) -> ByteStream {
    decode_with(
        raw,
        move |source| Ok(Box::new(BlockReader::new(source, verify_checksums)) as Box<dyn Read + Send>),
        |e| travelled(e).unwrap_or_else(|text| Error::new(ErrorCode::CANNOT_DECOMPRESS, format!("Cannot decompress the request body: {text}"))),
    )
}

type Decoder = Box<dyn Read + Send>;

/// Runs a blocking decoder over the body on a thread of its own.
fn decode_with(
    raw: ByteStream,
    make_decoder: impl FnOnce(Decoder) -> Result<Decoder> + Send + 'static,
    on_error: impl Fn(std::io::Error) -> Error + Send + 'static,
) -> ByteStream {
    let (raw_tx, raw_rx) = mpsc::channel::<Result<Bytes>>(4);
    let (decoded_tx, decoded_rx) = mpsc::channel::<Result<Bytes>>(4);
    tokio::spawn(async move {
        let mut raw = raw;
        while let Some(chunk) = raw.next().await {
            let failed = chunk.is_err();
            if raw_tx.send(chunk).await.is_err() || failed {
                break;
            }
        }
    });
    tokio::task::spawn_blocking(move || {
        let source = ChannelReader { rx: raw_rx, current: Bytes::new(), error: None };
        let mut decoder = match make_decoder(Box::new(source)) {
            Ok(decoder) => decoder,
            Err(e) => {
                let _ = decoded_tx.blocking_send(Err(e));
                return;
            }
        };
        loop {
            let mut buffer = vec![0u8; DECODED_CHUNK];
            let mut filled = 0;
            // Fill whole chunks: decoders return a few KiB per read.
            let outcome = loop {
                match decoder.read(&mut buffer[filled..]) {
                    Ok(0) => break Ok(true),
                    Ok(n) => {
                        filled += n;
                        if filled == buffer.len() {
                            break Ok(false);
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => break Err(e),
                }
            };
            if filled > 0 {
                buffer.truncate(filled);
                if decoded_tx.blocking_send(Ok(Bytes::from(buffer))).is_err() {
                    return;
                }
            }
            match outcome {
                Ok(false) => {}
                Ok(true) => return,
                Err(e) => {
                    let _ = decoded_tx.blocking_send(Err(on_error(e)));
                    return;
                }
            }
        }
    });
    let mut decoded_rx = decoded_rx;
    // A receiver answers `None` again when polled after its end, as consumers may do.
    futures::stream::poll_fn(move |cx| decoded_rx.poll_recv(cx)).boxed()
}

/// A Granary error that travelled through `std::io` (from the connection or a decoder),
/// or the text of a plain I/O error.
fn travelled(e: std::io::Error) -> std::result::Result<Error, String> {
    let text = e.to_string();
    match e.into_inner() {
        Some(inner) => match inner.downcast::<TransportError>() {
            Ok(transport) => Ok(transport.0),
            Err(inner) => inner.downcast::<Error>().map(|e| *e).map_err(|_| text),
        },
        None => Err(text),
    }
}

fn decode_error(coding: Compression, e: std::io::Error) -> Error {
    let text = match travelled(e) {
        Ok(error) => return error,
        Err(text) => text,
    };
    let code = match coding {
        Compression::Gzip | Compression::Deflate => ErrorCode::ZLIB_INFLATE_FAILED,
        Compression::Zstd => ErrorCode::ZSTD_DECODER_FAILED,
        Compression::Brotli => ErrorCode::BROTLI_READ_FAILED,
        Compression::Xz => ErrorCode::LZMA_STREAM_DECODER_FAILED,
        Compression::Bz2 => ErrorCode::BZIP2_STREAM_DECODER_FAILED,
        Compression::Lz4 | Compression::None => ErrorCode::LZ4_DECODER_FAILED,
    };
    Error::new(code, format!("Cannot decompress the request body ({}): {text}", coding.http_name()))
}

#[derive(Debug)]
struct TransportError(Error);

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for TransportError {}

/// The raw body chunks as a blocking reader.
struct ChannelReader {
    rx: mpsc::Receiver<Result<Bytes>>,
    current: Bytes,
    error: Option<Error>,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_empty() {
            if let Some(e) = self.error.take() {
                return Err(std::io::Error::other(TransportError(e)));
            }
            match self.rx.blocking_recv() {
                Some(Ok(chunk)) => self.current = chunk,
                Some(Err(e)) => self.error = Some(e),
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len());
        buf[..n].copy_from_slice(&self.current.split_to(n));
        Ok(n)
    }
}

/// Compresses response chunks as they are produced: ClickHouse's blocks (`compress=1`)
/// inside, the HTTP content coding outside, either or both. Each chunk goes through at
/// once, so a slow query still streams.
pub struct ResponseEncoder {
    blocks: Option<BlockWriter>,
    http: Option<Encoder>,
    finished: bool,
}

impl ResponseEncoder {
    pub fn new(http: Option<(Compression, u32)>, blocks: Option<BlockMethod>) -> Result<Self> {
        let http = http.map(|(coding, level)| Encoder::new(coding, level)).transpose()?;
        Ok(ResponseEncoder { blocks: blocks.map(BlockWriter::new), http, finished: false })
    }

    fn through_http(&mut self, data: Vec<u8>) -> Result<Bytes> {
        match &mut self.http {
            Some(encoder) => {
                encoder.write_all(&data)?;
                Ok(Bytes::from(encoder.take_output()))
            }
            None => Ok(Bytes::from(data)),
        }
    }

    pub fn encode(&mut self, chunk: &[u8]) -> Result<Bytes> {
        if self.finished {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, "response encoder used after finish"));
        }
        let data = match &mut self.blocks {
            Some(blocks) => blocks.write(chunk)?,
            None => chunk.to_vec(),
        };
        self.through_http(data)
    }

    pub fn finish(&mut self) -> Result<Bytes> {
        if std::mem::replace(&mut self.finished, true) {
            return Ok(Bytes::new());
        }
        let last_block = match &mut self.blocks {
            Some(blocks) => blocks.finish()?,
            None => Vec::new(),
        };
        let mut out = self.through_http(last_block)?.to_vec();
        if let Some(encoder) = self.http.take() {
            out.extend(encoder.finish()?);
        }
        Ok(Bytes::from(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(accept: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(http::header::ACCEPT_ENCODING, HeaderValue::from_str(accept).unwrap());
        h
    }

    #[test]
    fn response_coding_follows_clickhouse_preference() {
        assert_eq!(response_coding(&headers("lz4, zstd, br, gzip"), true), Some(Compression::Zstd));
        assert_eq!(response_coding(&headers("gzip, deflate, lz4"), true), Some(Compression::Lz4));
        assert_eq!(response_coding(&headers("lz4"), true), Some(Compression::Lz4));
        assert_eq!(response_coding(&headers("br"), true), Some(Compression::Brotli));
        assert_eq!(response_coding(&headers("snappy"), true), None);
        assert_eq!(response_coding(&headers("snappy, xz, bz2"), true), Some(Compression::Xz));
        assert_eq!(response_coding(&headers("zstd;q=0, gzip"), true), Some(Compression::Gzip));
        assert_eq!(response_coding(&headers("gzip"), false), None);
    }

    #[test]
    fn unknown_request_coding_is_an_error() {
        let mut h = HeaderMap::new();
        h.insert(http::header::CONTENT_ENCODING, HeaderValue::from_static("snappy"));
        assert_eq!(request_coding(&h).unwrap_err().code(), ErrorCode::NOT_IMPLEMENTED);
        h.insert(http::header::CONTENT_ENCODING, HeaderValue::from_static("LZ4"));
        assert_eq!(request_coding(&h).unwrap(), Compression::Lz4);
    }

    #[tokio::test]
    async fn bodies_decode_in_chunks_and_errors_surface() {
        let text: String = (0..200_000).map(|i| format!("{i},row\n")).collect();
        for coding in [Compression::Gzip, Compression::Deflate, Compression::Zstd, Compression::Lz4, Compression::Brotli, Compression::Xz, Compression::Bz2] {
            let mut encoder = Encoder::new(coding, 3).unwrap();
            encoder.write_all(text.as_bytes()).unwrap();
            let compressed = encoder.finish().unwrap();
            let pieces: Vec<Result<Bytes>> = compressed.chunks(777).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
            let mut decoded = decode_body(futures::stream::iter(pieces).boxed(), coding);
            let mut out = Vec::new();
            while let Some(chunk) = decoded.next().await {
                out.extend_from_slice(&chunk.unwrap());
            }
            assert_eq!(out, text.as_bytes(), "{coding:?}");
        }
        let garbage = futures::stream::iter([Ok(Bytes::from_static(b"definitely not gzip"))]).boxed();
        let mut decoded = decode_body(garbage, Compression::Gzip);
        let error = loop {
            match decoded.next().await {
                Some(Err(e)) => break e,
                Some(Ok(_)) => {}
                None => panic!("garbage decoded without an error"),
            }
        };
        assert_eq!(error.code(), ErrorCode::ZLIB_INFLATE_FAILED);
    }
}
