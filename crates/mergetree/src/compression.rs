//! Compressed blocks of `.bin` files, and the column codecs that produce them.
//!
//! A `.bin` file is a sequence of blocks, each:
//!
//! ```text
//! u64 LE  xxh3-64 of everything after this field (header rest + payload)
//! u8      codec: 0x02 NONE, 0x82 LZ4, 0x90 ZSTD  (ClickHouse's method bytes)
//! u32 LE  compressed payload size (bytes after the header)
//! u32 LE  uncompressed size
//! ...     payload
//! ```
//!
//! The checksum covers the header too, so a flipped size field is caught before it is
//! trusted. Blocks are small (64 KiB - 1 MiB uncompressed), so a reader decompresses
//! only the blocks that hold the granules it selected.

use arrow::datatypes::DataType;
use granary_common::{Error, ErrorCode, Result};
use xxhash_rust::xxh3::xxh3_64;

use crate::transform::Transform;

/// Size of a block header in bytes.
pub const BLOCK_HEADER_LEN: usize = 8 + 1 + 4 + 4;

const METHOD_NONE: u8 = 0x02;
const METHOD_LZ4: u8 = 0x82;
const METHOD_ZSTD: u8 = 0x90;

/// How a column's blocks are compressed, from its `CODEC(...)` clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    None,
    Lz4,
    Zstd(i32),
}

impl Default for Codec {
    /// LZ4, as ClickHouse's default `compression` setting.
    fn default() -> Self {
        Codec::Lz4
    }
}

/// A column's `CODEC(...)`: an optional value transform (`Delta`, `DoubleDelta`,
/// `Gorilla`; see `transform.rs`) followed by the codec that compresses its blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ColumnCodec {
    pub transform: Option<Transform>,
    pub block: Codec,
}

impl ColumnCodec {
    /// Parses the column's codec text for a column of `data_type`: `CODEC(LZ4)`,
    /// `CODEC(ZSTD(3))`, `CODEC(NONE)`, `LZ4HC` (stored as LZ4: same format, shared
    /// decoder), `CODEC(Delta, ZSTD)`, `CODEC(DoubleDelta)`, `CODEC(Gorilla, LZ4)`.
    /// Anything Granary cannot honour is refused rather than silently ignored, so a
    /// user never believes data is encoded in a way it is not.
    pub fn parse(text: &str, data_type: &DataType) -> Result<ColumnCodec> {
        let mut t = text.trim();
        if let Some(rest) = strip_prefix_ci(t, "CODEC") {
            t = rest.trim();
            t = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')).ok_or_else(|| bad_codec(text))?.trim();
        }
        let mut transform: Option<Transform> = None;
        let mut block: Option<Codec> = None;
        for item in split_top_level(t) {
            let upper = item.trim().to_ascii_uppercase();
            let (name, arg) = match upper.split_once('(') {
                Some((name, rest)) => (name.trim().to_string(), Some(rest.strip_suffix(')').ok_or_else(|| bad_codec(text))?.trim().to_string())),
                None => (upper.clone(), None),
            };
            let stage_transform = match name.as_str() {
                "DELTA" => Some(Transform::Delta),
                "DOUBLEDELTA" => Some(Transform::DoubleDelta),
                "GORILLA" => Some(Transform::Gorilla),
                _ => None,
            };
            if let Some(stage) = stage_transform {
                if block.is_some() {
                    return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Codec {} must come before the general-purpose codec in {text}", stage.name())));
                }
                if let Some(first) = transform {
                    return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Only one of Delta, DoubleDelta and Gorilla per column is supported: {} and {} in {text}", first.name(), stage.name())));
                }
                let width = stage.width_for(data_type)?;
                if let Some(arg) = arg.filter(|_| stage == Transform::Delta) {
                    let bytes: usize = arg.parse().map_err(|_| bad_codec(text))?;
                    if bytes != width {
                        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Delta({bytes}) does not match the {width}-byte values of {data_type}; write Delta or Delta({width})")));
                    }
                }
                transform = Some(stage);
                continue;
            }
            if let Some(first) = block {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Only one general-purpose codec per column is supported: {first:?} and {name} in {text}")));
            }
            block = Some(match (name.as_str(), arg) {
                ("NONE", None) => Codec::None,
                ("LZ4", None) | ("LZ4HC", _) => Codec::Lz4,
                ("ZSTD", None) => Codec::Zstd(1),
                ("ZSTD", Some(level)) => {
                    let level: i32 = level.parse().map_err(|_| bad_codec(text))?;
                    if !(1..=22).contains(&level) {
                        return Err(Error::new(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("ZSTD codec can't have level {level}: it must be 1..22")));
                    }
                    Codec::Zstd(level)
                }
                _ => {
                    return Err(Error::new(
                        ErrorCode::BAD_ARGUMENTS,
                        format!("Unknown or unsupported codec {item} in {text}: MergeTree supports LZ4, LZ4HC, ZSTD(level) and NONE, after Delta, DoubleDelta or Gorilla", item = item.trim()),
                    ))
                }
            });
        }
        let block = match (transform, block) {
            (_, Some(block)) => block,
            // As ClickHouse (without allow_suspicious_codecs): Delta alone only reorders
            // bytes. DoubleDelta and Gorilla compress on their own there, so they get LZ4.
            (Some(Transform::Delta), None) => {
                return Err(Error::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Compression codec Delta does not compress anything: add a general-purpose codec after it, like CODEC(Delta, LZ4) or CODEC(Delta, ZSTD) (in {text})"),
                ))
            }
            (Some(_), None) => Codec::Lz4,
            (None, None) => return Err(bad_codec(text)),
        };
        Ok(ColumnCodec { transform, block })
    }
}

/// Splits `a, b(1, 2), c` at commas outside parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&text[start..]);
    items
}

impl Codec {
    /// Compresses `data` into one block (header + payload) appended to `out`.
    pub fn compress_block(self, data: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let uncompressed = u32::try_from(data.len())
            .map_err(|_| Error::new(ErrorCode::LOGICAL_ERROR, format!("Block of {} bytes is too large to compress", data.len())))?;
        let start = out.len();
        out.extend_from_slice(&[0u8; BLOCK_HEADER_LEN]);
        let method = match self {
            Codec::None => {
                out.extend_from_slice(data);
                METHOD_NONE
            }
            Codec::Lz4 => {
                // Straight into `out`: no block-sized allocation and copy per block.
                let at = out.len();
                out.resize(at + lz4_flex::block::get_maximum_output_size(data.len()), 0);
                let written = lz4_flex::block::compress_into(data, &mut out[at..])
                    .map_err(|e| Error::with_source(ErrorCode::LOGICAL_ERROR, "LZ4 compression failed", e))?;
                out.truncate(at + written);
                METHOD_LZ4
            }
            Codec::Zstd(level) => {
                let compressed = zstd::bulk::compress(data, level)
                    .map_err(|e| Error::with_source(ErrorCode::STD_EXCEPTION, "ZSTD compression failed", e))?;
                out.extend_from_slice(&compressed);
                METHOD_ZSTD
            }
        };
        let payload = (out.len() - start - BLOCK_HEADER_LEN) as u32;
        out[start + 8] = method;
        out[start + 9..start + 13].copy_from_slice(&payload.to_le_bytes());
        out[start + 13..start + 17].copy_from_slice(&uncompressed.to_le_bytes());
        let checksum = xxh3_64(&out[start + 8..]);
        out[start..start + 8].copy_from_slice(&checksum.to_le_bytes());
        Ok(())
    }
}

/// Reads the header at the start of `bytes`: (total block length, uncompressed size).
pub fn block_len(bytes: &[u8], what: &dyn Fn() -> String) -> Result<usize> {
    if bytes.len() < BLOCK_HEADER_LEN {
        return Err(corrupted(what, "block header is truncated"));
    }
    let payload = u32::from_le_bytes([bytes[9], bytes[10], bytes[11], bytes[12]]) as usize;
    Ok(BLOCK_HEADER_LEN + payload)
}

/// Verifies and decompresses the block at the start of `bytes`; returns the data.
pub fn decompress_block(bytes: &[u8], what: &dyn Fn() -> String) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    decompress_block_into(bytes, what, &mut out)?;
    Ok(out)
}

/// [`decompress_block`] into `out` (replacing its contents), so a reader can reuse one
/// buffer for every block instead of allocating (and the kernel zeroing) fresh pages.
pub fn decompress_block_into(bytes: &[u8], what: &dyn Fn() -> String, out: &mut Vec<u8>) -> Result<()> {
    let len = block_len(bytes, what)?;
    if bytes.len() < len {
        return Err(corrupted(what, "block is truncated"));
    }
    let stored = u64::from_le_bytes(bytes[0..8].try_into().map_err(|_| corrupted(what, "bad header"))?);
    let actual = xxh3_64(&bytes[8..len]);
    if stored != actual {
        return Err(Error::new(
            ErrorCode::CHECKSUM_DOESNT_MATCH,
            format!("Checksum doesn't match in {}: stored {stored:016x}, computed {actual:016x}", what()),
        ));
    }
    let uncompressed = u32::from_le_bytes([bytes[13], bytes[14], bytes[15], bytes[16]]) as usize;
    let payload = &bytes[BLOCK_HEADER_LEN..len];
    // Only grown space is zeroed; what the previous block left is overwritten.
    if out.len() < uncompressed {
        out.resize(uncompressed, 0);
    }
    out.truncate(uncompressed);
    let written = match bytes[8] {
        METHOD_NONE => {
            if payload.len() != uncompressed {
                return Err(corrupted(what, "decompressed size differs from the header"));
            }
            out.copy_from_slice(payload);
            uncompressed
        }
        METHOD_LZ4 => lz4_flex::block::decompress_into(payload, out).map_err(|e| corrupted(what, &format!("LZ4: {e}")))?,
        METHOD_ZSTD => zstd::bulk::decompress_to_buffer(payload, out).map_err(|e| corrupted(what, &format!("ZSTD: {e}")))?,
        other => return Err(corrupted(what, &format!("unknown compression method byte 0x{other:02x}"))),
    };
    if written != uncompressed {
        return Err(corrupted(what, "decompressed size differs from the header"));
    }
    Ok(())
}

fn corrupted(what: &dyn Fn() -> String, detail: &str) -> Error {
    Error::new(ErrorCode::CORRUPTED_DATA, format!("Corrupted compressed block in {}: {detail}", what()))
}

fn bad_codec(text: &str) -> Error {
    Error::new(ErrorCode::BAD_ARGUMENTS, format!("Cannot parse codec {text}"))
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    if s.len() >= prefix.len() && s.is_char_boundary(prefix.len()) && s[..prefix.len()].eq_ignore_ascii_case(prefix) {
        Some(&s[prefix.len()..])
    } else {
        None
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ColumnCodec> {
        ColumnCodec::parse(text, &DataType::UInt64)
    }

    fn plain(block: Codec) -> ColumnCodec {
        ColumnCodec { transform: None, block }
    }

    #[test]
    fn codecs_parse() {
        assert_eq!(parse("CODEC(LZ4)").unwrap(), plain(Codec::Lz4));
        assert_eq!(parse("CODEC(ZSTD(3))").unwrap(), plain(Codec::Zstd(3)));
        assert_eq!(parse("codec(zstd)").unwrap(), plain(Codec::Zstd(1)));
        assert_eq!(parse("CODEC(NONE)").unwrap(), plain(Codec::None));
        assert_eq!(parse("CODEC(Delta, ZSTD(5))").unwrap(), ColumnCodec { transform: Some(Transform::Delta), block: Codec::Zstd(5) });
        assert_eq!(parse("CODEC(Delta(8), LZ4)").unwrap(), ColumnCodec { transform: Some(Transform::Delta), block: Codec::Lz4 });
        assert_eq!(parse("CODEC(DoubleDelta)").unwrap(), ColumnCodec { transform: Some(Transform::DoubleDelta), block: Codec::Lz4 });
        assert_eq!(parse("CODEC(Gorilla, NONE)").unwrap(), ColumnCodec { transform: Some(Transform::Gorilla), block: Codec::None });
    }

    #[test]
    fn codecs_that_cannot_be_honoured_are_refused() {
        for bad in ["CODEC(Delta)", "CODEC(LZ4, Delta)", "CODEC(Delta, Gorilla, LZ4)", "CODEC(LZ4, ZSTD)", "CODEC(T64, LZ4)", "CODEC(Delta(4), LZ4)", "CODEC()", "CODEC(ZSTD(x))"] {
            assert_eq!(parse(bad).unwrap_err().code(), ErrorCode::BAD_ARGUMENTS, "{bad}");
        }
        assert_eq!(ColumnCodec::parse("CODEC(Delta, LZ4)", &DataType::Utf8).unwrap_err().code(), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(parse("CODEC(ZSTD(23))").unwrap_err().code(), ErrorCode::ARGUMENT_OUT_OF_BOUND);
    }

    #[test]
    fn blocks_round_trip_and_detect_damage() {
        let data: Vec<u8> = (0..100_000u32).flat_map(|i| (i % 1000).to_le_bytes()).collect();
        for codec in [Codec::None, Codec::Lz4, Codec::Zstd(3)] {
            let mut out = Vec::new();
            codec.compress_block(&data, &mut out).unwrap();
            let what = || "test".to_string();
            assert_eq!(block_len(&out, &what).unwrap(), out.len());
            assert_eq!(decompress_block(&out, &what).unwrap(), data);
            let mut bad = out.clone();
            let last = bad.len() - 1;
            bad[last] ^= 1;
            assert_eq!(decompress_block(&bad, &what).unwrap_err().code(), ErrorCode::CHECKSUM_DOESNT_MATCH);
            assert!(decompress_block(&out[..out.len() - 1], &what).is_err());
        }
    }
}
