//! Format and compression from a file name, and decompressing readers.

use std::io::{Read, Write};

use granary_common::{Error, ErrorCode, Result};

/// How the bytes of a file are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
    Lz4,
    /// zlib (HTTP `Content-Encoding: deflate`).
    Deflate,
    Brotli,
    Xz,
    Bz2,
}

impl Compression {
    /// The `compression` argument of file()/s3() (`auto`, `none`, `gzip`/`gz`, `zstd`/`zst`,
    /// `lz4`, ...); `auto` is `None` here and decided from the name.
    pub fn from_argument(text: &str) -> Result<Option<Compression>> {
        Ok(Some(match text.to_ascii_lowercase().as_str() {
            "auto" | "" => return Ok(None),
            "none" => Compression::None,
            "gzip" | "gz" => Compression::Gzip,
            "deflate" | "zlib" => Compression::Deflate,
            "zstd" | "zst" => Compression::Zstd,
            "lz4" => Compression::Lz4,
            "br" | "brotli" => Compression::Brotli,
            "xz" | "lzma" => Compression::Xz,
            "bz2" | "bzip2" => Compression::Bz2,
            "snappy" => {
                return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Compression method '{text}' is not supported yet")))
            }
            _ => return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Unknown compression method '{text}'"))),
        }))
    }

    /// Compression from the last extension of a name.
    pub fn from_name(name: &str) -> Compression {
        match extension(name).map(|e| e.to_ascii_lowercase()).as_deref() {
            Some("gz" | "gzip") => Compression::Gzip,
            Some("zst" | "zstd") => Compression::Zstd,
            Some("lz4") => Compression::Lz4,
            Some("br") => Compression::Brotli,
            Some("xz" | "lzma") => Compression::Xz,
            Some("bz2") => Compression::Bz2,
            _ => Compression::None,
        }
    }

    /// [`Compression::from_name`] (every compression a name can say is readable).
    pub fn detect(name: &str) -> Result<Compression> {
        Ok(Compression::from_name(name))
    }

    /// Wraps a reader of compressed bytes.
    pub fn reader<'a>(self, inner: Box<dyn Read + Send + 'a>) -> Result<Box<dyn Read + Send + 'a>> {
        Ok(match self {
            Compression::None => inner,
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(inner)),
            Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(inner)?),
            Compression::Lz4 => Box::new(lz4_flex::frame::FrameDecoder::new(inner)),
            Compression::Deflate => Box::new(flate2::read::ZlibDecoder::new(inner)),
            Compression::Brotli => Box::new(brotli::Decompressor::new(inner, 64 << 10)),
            Compression::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(inner)),
            Compression::Bz2 => Box::new(bzip2::read::MultiBzDecoder::new(inner)),
        })
    }

    /// An HTTP content coding (`Content-Encoding`, `Accept-Encoding` entries).
    pub fn from_http_encoding(name: &str) -> Option<Compression> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "gzip" | "x-gzip" => Compression::Gzip,
            "deflate" => Compression::Deflate,
            "br" => Compression::Brotli,
            "zstd" => Compression::Zstd,
            "lz4" => Compression::Lz4,
            "xz" => Compression::Xz,
            "bz2" => Compression::Bz2,
            "identity" | "none" | "" => Compression::None,
            _ => return None,
        })
    }

    /// The name for `Content-Encoding`.
    pub fn http_name(self) -> &'static str {
        match self {
            Compression::None => "identity",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Lz4 => "lz4",
            Compression::Deflate => "deflate",
            Compression::Brotli => "br",
            Compression::Xz => "xz",
            Compression::Bz2 => "bz2",
        }
    }
}

fn extension(name: &str) -> Option<&str> {
    let file = name.rsplit('/').next().unwrap_or(name);
    file.rsplit_once('.').map(|(_, ext)| ext)
}

/// The format ClickHouse picks for a file name (compression extensions skipped); `None`
/// when the name says nothing.
pub fn format_from_name(name: &str) -> Option<&'static str> {
    let mut stem = name;
    if Compression::from_name(name) != Compression::None || matches!(extension(name), Some("xz" | "bz2" | "br")) {
        stem = name.rsplit_once('.').map(|(s, _)| s).unwrap_or(name);
    }
    Some(match extension(stem)?.to_ascii_lowercase().as_str() {
        "parquet" => "Parquet",
        "csv" => "CSV",
        "tsv" => "TSV",
        "jsonl" | "ndjson" | "json" => "JSONEachRow",
        "native" => "Native",
        "avro" => "Avro",
        "arrow" => "Arrow",
        "md" => "Markdown",
        _ => return None,
    })
}

/// Reads bytes of a possibly compressed stream; an error in the compressed data says
/// which file it came from.
pub fn corrupt(path: &str, e: std::io::Error) -> Error {
    // A failed download keeps its own code (S3_ERROR, ...) and names the object itself.
    if e.get_ref().is_some_and(|inner| inner.is::<Error>()) {
        return Error::from(e);
    }
    Error::new(ErrorCode::CANNOT_READ_ALL_DATA, format!("Cannot read from file {path}: {e}"))
}

/// A compressing stream whose output is taken out piece by piece (after every batch
/// of a file, every chunk of an HTTP response).
pub enum Encoder {
    Plain(Vec<u8>),
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
    Deflate(flate2::write::ZlibEncoder<Vec<u8>>),
    Zstd(zstd::stream::write::Encoder<'static, Vec<u8>>),
    Lz4(lz4_flex::frame::FrameEncoder<Vec<u8>>),
    Brotli(Box<brotli::CompressorWriter<Vec<u8>>>),
    Xz(liblzma::write::XzEncoder<Vec<u8>>),
    Bz2(bzip2::write::BzEncoder<Vec<u8>>),
}

impl Encoder {
    pub fn new(compression: Compression, level: u32) -> Result<Encoder> {
        Ok(match compression {
            Compression::None => Encoder::Plain(Vec::new()),
            Compression::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level.min(9)))),
            Compression::Zstd => Encoder::Zstd(zstd::stream::write::Encoder::new(Vec::new(), level as i32)?),
            Compression::Lz4 => Encoder::Lz4(lz4_flex::frame::FrameEncoder::new(Vec::new())),
            Compression::Deflate => Encoder::Deflate(flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(level.min(9)))),
            // Window 2^22, ClickHouse's default for br.
            Compression::Brotli => Encoder::Brotli(Box::new(brotli::CompressorWriter::new(Vec::new(), 64 << 10, level.min(11), 22))),
            Compression::Xz => Encoder::Xz(liblzma::write::XzEncoder::new(Vec::new(), level.min(9))),
            Compression::Bz2 => Encoder::Bz2(bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(level.clamp(1, 9)))),
        })
    }

    pub fn write_all(&mut self, data: &[u8]) -> Result<()> {
        match self {
            Encoder::Plain(out) => out.extend_from_slice(data),
            Encoder::Gzip(e) => e.write_all(data)?,
            Encoder::Deflate(e) => e.write_all(data)?,
            Encoder::Brotli(e) => e.write_all(data)?,
            Encoder::Xz(e) => e.write_all(data)?,
            Encoder::Bz2(e) => e.write_all(data)?,
            Encoder::Zstd(e) => e.write_all(data)?,
            Encoder::Lz4(e) => e.write_all(data).map_err(|e| Error::new(ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR, format!("lz4: {e}")))?,
        }
        Ok(())
    }

    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(match self {
            Encoder::Plain(out) => out,
            Encoder::Gzip(e) => e.get_mut(),
            Encoder::Deflate(e) => e.get_mut(),
            Encoder::Brotli(e) => e.get_mut(),
            Encoder::Xz(e) => e.get_mut(),
            Encoder::Bz2(e) => e.get_mut(),
            Encoder::Zstd(e) => e.get_mut(),
            Encoder::Lz4(e) => e.get_mut(),
        })
    }

    pub fn finish(self) -> Result<Vec<u8>> {
        Ok(match self {
            Encoder::Plain(out) => out,
            Encoder::Gzip(e) => e.finish()?,
            Encoder::Deflate(e) => e.finish()?,
            Encoder::Brotli(e) => e.into_inner(),
            Encoder::Xz(e) => e.finish()?,
            Encoder::Bz2(e) => e.finish()?,
            Encoder::Zstd(e) => e.finish()?,
            Encoder::Lz4(e) => e.finish().map_err(|e| Error::new(ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR, format!("lz4: {e}")))?,
        })
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(format_from_name("a/b.parquet"), Some("Parquet"));
        assert_eq!(format_from_name("a/b.native.zst"), Some("Native"));
        assert_eq!(format_from_name("x.csv.gz"), Some("CSV"));
        assert_eq!(format_from_name("x.tsv.zst"), Some("TSV"));
        assert_eq!(format_from_name("x.ndjson"), Some("JSONEachRow"));
        assert_eq!(format_from_name("x.jsonl.lz4"), Some("JSONEachRow"));
        assert_eq!(format_from_name("dir.d/x"), None);
        assert_eq!(format_from_name("x.gz"), None);
    }

    #[test]
    fn compressions() {
        assert_eq!(Compression::from_name("x.csv.gz"), Compression::Gzip);
        assert_eq!(Compression::from_name("x.csv.zst"), Compression::Zstd);
        assert_eq!(Compression::from_name("x.csv"), Compression::None);
        assert_eq!(Compression::detect("x.csv.xz").unwrap(), Compression::Xz);
        assert_eq!(Compression::detect("x.csv.bz2").unwrap(), Compression::Bz2);
        assert_eq!(Compression::detect("x.csv.gz").unwrap(), Compression::Gzip);
        assert_eq!(Compression::from_argument("auto").unwrap(), None);
        assert_eq!(Compression::from_argument("gzip").unwrap(), Some(Compression::Gzip));
        assert!(Compression::from_argument("foo").is_err());
    }

    #[test]
    fn round_trip_gzip_zstd_lz4() {
        use std::io::Write;
        let data = b"a,b\n1,2\n".repeat(1000);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&data).unwrap();
        let gz = gz.finish().unwrap();
        let zs = zstd::stream::encode_all(&data[..], 1).unwrap();
        let mut lz = lz4_flex::frame::FrameEncoder::new(Vec::new());
        lz.write_all(&data).unwrap();
        let lz = lz.finish().unwrap();
        for (c, bytes) in [(Compression::Gzip, gz), (Compression::Zstd, zs), (Compression::Lz4, lz)] {
            let mut out = Vec::new();
            c.reader(Box::new(&bytes[..])).unwrap().read_to_end(&mut out).unwrap();
            assert_eq!(out, data);
        }
    }

    #[test]
    fn encoders_round_trip() {
        for compression in [Compression::None, Compression::Gzip, Compression::Zstd, Compression::Lz4, Compression::Deflate, Compression::Brotli, Compression::Xz, Compression::Bz2] {
            let mut encoder = Encoder::new(compression, 3).unwrap();
            let mut out = Vec::new();
            for chunk in ["a,b\n", "1,2\n", "3,4\n"] {
                encoder.write_all(chunk.as_bytes()).unwrap();
                out.extend(encoder.take_output());
            }
            out.extend(encoder.finish().unwrap());
            let mut decoded = String::new();
            std::io::Read::read_to_string(&mut compression.reader(Box::new(std::io::Cursor::new(out))).unwrap(), &mut decoded).unwrap();
            assert_eq!(decoded, "a,b\n1,2\n3,4\n", "{compression:?}");
        }
    }
}
