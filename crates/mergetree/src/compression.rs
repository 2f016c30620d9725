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
//! trusted. A column with the default LZ4 codec may have NONE blocks: the writer stores a
//! block uncompressed when LZ4 would save less than 1/32 of it (see [`BlockCompressor`]). Blocks are small (64 KiB - 1 MiB uncompressed), so a reader decompresses
//! only the blocks that hold the granules it selected.

use arrow::buffer::{Buffer, MutableBuffer};
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
        out.extend_from_slice(BlockCompressor::new(self).compress(data)?);
        Ok(())
    }
}

/// An LZ4 block is stored as NONE unless it saves at least 1/this of its size: the
/// decoder would spend a pass over the block for (almost) nothing, on every read.
const MIN_SAVING_DIVISOR: usize = 32;

/// Bytes of a block compressed to predict whether the whole block would shrink, once a
/// column's last block did not: random floats and hashes stay incompressible, so most of
/// the compressor's work on them is skipped.
const PROBE_LEN: usize = 8 * 1024;

/// Compresses a column's blocks one after the other into one reused buffer, which is never
/// zeroed again once grown (LZ4 writes into an initialized slice). LZ4 blocks that would not
/// shrink are stored as NONE blocks (method byte 0x02, which every reader accepts).
pub struct BlockCompressor {
    codec: Codec,
    buf: Vec<u8>,
    /// The last LZ4 block did not shrink: the next one is probed on a sample first.
    incompressible: bool,
}

impl BlockCompressor {
    pub fn new(codec: Codec) -> Self {
        BlockCompressor { codec, buf: Vec::new(), incompressible: false }
    }

    /// Compresses `data` into one block (header + payload), valid until the next call.
    pub fn compress(&mut self, data: &[u8]) -> Result<&[u8]> {
        let uncompressed = u32::try_from(data.len())
            .map_err(|_| Error::new(ErrorCode::LOGICAL_ERROR, format!("Block of {} bytes is too large to compress", data.len())))?;
        let (method, payload) = match self.codec {
            Codec::None => (METHOD_NONE, self.store(data)),
            Codec::Lz4 => {
                let probe_says_no = self.incompressible && data.len() >= 2 * PROBE_LEN && {
                    let sample = &data[..PROBE_LEN];
                    let written = self.lz4_into_buf(sample)?;
                    !saves_enough(sample.len(), written)
                };
                if probe_says_no {
                    (METHOD_NONE, self.store(data))
                } else {
                    let written = self.lz4_into_buf(data)?;
                    self.incompressible = !saves_enough(data.len(), written);
                    match self.incompressible {
                        true => (METHOD_NONE, self.store(data)),
                        false => (METHOD_LZ4, written),
                    }
                }
            }
            Codec::Zstd(level) => {
                let compressed = zstd::bulk::compress(data, level)
                    .map_err(|e| Error::with_source(ErrorCode::STD_EXCEPTION, "ZSTD compression failed", e))?;
                (METHOD_ZSTD, self.store(&compressed))
            }
        };
        let end = BLOCK_HEADER_LEN + payload;
        let buf = &mut self.buf[..end];
        buf[8] = method;
        buf[9..13].copy_from_slice(&(payload as u32).to_le_bytes());
        buf[13..17].copy_from_slice(&uncompressed.to_le_bytes());
        let checksum = xxh3_64(&buf[8..]);
        buf[0..8].copy_from_slice(&checksum.to_le_bytes());
        Ok(buf)
    }

    /// Makes the buffer hold at least `len` bytes; only growth is zeroed.
    fn reserve_len(&mut self, len: usize) {
        if self.buf.len() < len {
            self.buf.resize(len, 0);
        }
    }

    /// LZ4-compresses `data` after the header space; returns the payload's length.
    fn lz4_into_buf(&mut self, data: &[u8]) -> Result<usize> {
        self.reserve_len(BLOCK_HEADER_LEN + lz4_flex::block::get_maximum_output_size(data.len()));
        lz4_flex::block::compress_into(data, &mut self.buf[BLOCK_HEADER_LEN..])
            .map_err(|e| Error::with_source(ErrorCode::LOGICAL_ERROR, "LZ4 compression failed", e))
    }

    /// Copies `payload` after the header space; returns its length.
    fn store(&mut self, payload: &[u8]) -> usize {
        self.reserve_len(BLOCK_HEADER_LEN + payload.len());
        self.buf[BLOCK_HEADER_LEN..BLOCK_HEADER_LEN + payload.len()].copy_from_slice(payload);
        payload.len()
    }
}

fn saves_enough(uncompressed: usize, compressed: usize) -> bool {
    compressed + uncompressed / MIN_SAVING_DIVISOR <= uncompressed
}

/// Reads the header at the start of `bytes`: (total block length, uncompressed size).
pub fn block_len(bytes: &[u8], what: &dyn Fn() -> String) -> Result<usize> {
    if bytes.len() < BLOCK_HEADER_LEN {
        return Err(corrupted(what, "block header is truncated"));
    }
    let payload = u32::from_le_bytes([bytes[9], bytes[10], bytes[11], bytes[12]]) as usize;
    Ok(BLOCK_HEADER_LEN + payload)
}

/// Verifies and decompresses the block at the start of `bytes`; returns the data. Readers
/// use [`decompress_read_block`]; this and [`decompress_block_into`] check the codecs in
/// tests.
#[cfg(test)]
pub fn decompress_block(bytes: &[u8], what: &dyn Fn() -> String) -> Result<Vec<u8>> {
    let mut data = Vec::new();
    decompress_block_into(bytes, what, &mut data)?;
    Ok(data)
}

/// [`decompress_block`] into `out`, replacing its contents.
#[cfg(test)]
pub fn decompress_block_into(bytes: &[u8], what: &dyn Fn() -> String, out: &mut Vec<u8>) -> Result<()> {
    let block = VerifiedBlock::new(bytes, what)?;
    // Only growth is zeroed; the decompressor overwrites the rest.
    out.resize(block.uncompressed, 0);
    block.decompress(out, what)
}

/// Where a reader puts a compressed block in its read buffer: the NONE payload after the
/// 17-byte header then starts 32 bytes into the allocation, aligned as the encoding's
/// buffers want (`encoding::BUFFER_ALIGNMENT`) when the allocation is (the allocator
/// aligns to 16; the decoder checks the address anyway).
pub const COMPRESSED_READ_SLACK: usize = 32 - BLOCK_HEADER_LEN;

/// Decompresses the block read into `raw` from [`COMPRESSED_READ_SLACK`] on, into an
/// Arrow buffer (so decoded arrays can be slices of it). A NONE block is used where it
/// lies: `raw` becomes the block and nothing is given back. Other blocks are decompressed
/// into `reuse`'s allocation, and `raw` is given back for the next read.
pub fn decompress_read_block(raw: Vec<u8>, what: &dyn Fn() -> String, reuse: MutableBuffer) -> Result<(Buffer, Option<Vec<u8>>)> {
    let bytes = raw.get(COMPRESSED_READ_SLACK..).ok_or_else(|| corrupted(what, "block is truncated"))?;
    let block = VerifiedBlock::new(bytes, what)?;
    if block.method == METHOD_NONE {
        let len = block.uncompressed;
        if block.payload.len() != len {
            return Err(corrupted(what, "decompressed size differs from the header"));
        }
        return Ok((Buffer::from_vec(raw).slice_with_length(COMPRESSED_READ_SLACK + BLOCK_HEADER_LEN, len), None));
    }
    let mut out = reuse;
    out.resize(block.uncompressed, 0);
    block.decompress(out.as_slice_mut(), what)?;
    Ok((out.into(), Some(raw)))
}

/// A compressed block whose checksum matched.
struct VerifiedBlock<'a> {
    method: u8,
    payload: &'a [u8],
    uncompressed: usize,
}

impl<'a> VerifiedBlock<'a> {
    fn new(bytes: &'a [u8], what: &dyn Fn() -> String) -> Result<Self> {
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
        Ok(VerifiedBlock { method: bytes[8], payload: &bytes[BLOCK_HEADER_LEN..len], uncompressed })
    }

    /// Decompresses into `out`, which is `uncompressed` bytes long.
    fn decompress(&self, out: &mut [u8], what: &dyn Fn() -> String) -> Result<()> {
        let written = match self.method {
            METHOD_NONE => {
                let target = out.get_mut(..self.payload.len()).ok_or_else(|| corrupted(what, "decompressed size differs from the header"))?;
                target.copy_from_slice(self.payload);
                self.payload.len()
            }
            METHOD_LZ4 => lz4_flex::block::decompress_into(self.payload, out).map_err(|e| corrupted(what, &format!("LZ4: {e}")))?,
            METHOD_ZSTD => zstd::bulk::decompress_to_buffer(self.payload, out).map_err(|e| corrupted(what, &format!("ZSTD: {e}")))?,
            other => return Err(corrupted(what, &format!("unknown compression method byte 0x{other:02x}"))),
        };
        if written != self.uncompressed {
            return Err(corrupted(what, "decompressed size differs from the header"));
        }
        Ok(())
    }
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

    /// One buffer decompresses blocks of growing and shrinking sizes, every codec.
    #[test]
    fn blocks_decompress_into_a_reused_buffer() {
        let what = || "test".to_string();
        let mut buffer = Vec::new();
        for codec in [Codec::None, Codec::Lz4, Codec::Zstd(3)] {
            for n in [10_000u32, 50, 70_000, 0, 3] {
                let data: Vec<u8> = (0..n).flat_map(|i| (i % 777).to_le_bytes()).collect();
                let mut out = Vec::new();
                codec.compress_block(&data, &mut out).unwrap();
                decompress_block_into(&out, &what, &mut buffer).unwrap();
                assert_eq!(buffer, data);
            }
        }
    }

    /// A small deterministic generator: bytes LZ4 cannot shrink.
    fn noise(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    /// LZ4 blocks that would not shrink are stored as NONE; a compressible block after
    /// them is LZ4 again (the probe does not stick); every block reads back.
    #[test]
    fn read_blocks_decompress_into_buffers_and_none_blocks_stay_in_place() {
        let what = || "test".to_string();
        let compressible: Vec<u8> = (0..40_000u32).flat_map(|i| (i % 100).to_le_bytes()).collect();
        let mut compressor = BlockCompressor::new(Codec::Lz4);
        for (data, method) in [(noise(100_000, 5), METHOD_NONE), (compressible, METHOD_LZ4), (Vec::new(), METHOD_NONE)] {
            let block = compressor.compress(&data).unwrap().to_vec();
            assert_eq!(block[8], method);
            let mut raw = vec![0u8; COMPRESSED_READ_SLACK];
            raw.extend_from_slice(&block);
            let raw_range = raw.as_ptr() as usize..raw.as_ptr() as usize + raw.len();
            let (decompressed, back) = decompress_read_block(raw.clone(), &what, MutableBuffer::new(0)).unwrap();
            assert_eq!(decompressed.as_slice(), &data[..]);
            assert_eq!(back.is_none(), method == METHOD_NONE);
            if method == METHOD_NONE && !data.is_empty() {
                let (in_place, _) = decompress_read_block(raw, &what, MutableBuffer::new(0)).unwrap();
                assert!(raw_range.contains(&(in_place.as_ptr() as usize)), "a NONE block is not copied");
            }
            let mut bad = vec![0u8; COMPRESSED_READ_SLACK];
            bad.extend_from_slice(&block);
            let last = bad.len() - 1;
            bad[last] ^= 1;
            assert!(decompress_read_block(bad, &what, MutableBuffer::new(0)).is_err());
            assert!(decompress_read_block(block[..5].to_vec(), &what, MutableBuffer::new(0)).is_err());
        }
    }

    #[test]
    fn incompressible_lz4_blocks_are_stored_as_none() {
        let what = || "test".to_string();
        let compressible: Vec<u8> = (0..40_000u32).flat_map(|i| (i % 100).to_le_bytes()).collect();
        let mut compressor = BlockCompressor::new(Codec::Lz4);
        let mut buffer = Vec::new();
        for (data, method) in [
            (noise(100_000, 1), METHOD_NONE),
            (noise(70_000, 2), METHOD_NONE),
            (compressible.clone(), METHOD_LZ4),
            (noise(100, 3), METHOD_NONE),
            (compressible.clone(), METHOD_LZ4),
            (Vec::new(), METHOD_NONE),
        ] {
            let block = compressor.compress(&data).unwrap().to_vec();
            assert_eq!(block[8], method, "{} bytes", data.len());
            assert_eq!(block_len(&block, &what).unwrap(), block.len());
            decompress_block_into(&block, &what, &mut buffer).unwrap();
            assert_eq!(buffer, data);
        }
        // A compressible block whose first bytes are noise is still compressed after an
        // incompressible one when its sample shrinks; when the sample does not, it is
        // stored whole, which is still a valid block.
        let mut mixed = noise(100_000, 4);
        let block = compressor.compress(&mixed).unwrap().to_vec();
        assert_eq!(block[8], METHOD_NONE);
        mixed.extend_from_slice(&compressible);
        let block = compressor.compress(&mixed).unwrap().to_vec();
        assert_eq!(decompress_block(&block, &what).unwrap(), mixed);
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
