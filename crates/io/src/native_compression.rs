//! ClickHouse's own compressed-block framing, used by HTTP `compress=1` (responses) and
//! `decompress=1` (request bodies), as in its native protocol and column files:
//!
//! ```text
//! checksum: CityHash128 (v1.0.2) of everything after it, low then high half, 16 bytes
//! method:   1 byte (0x02 none, 0x82 LZ4 block, 0x90 ZSTD)
//! size:     u32 LE, compressed size including these 9 header bytes
//! raw size: u32 LE, size after decompression
//! payload
//! ```

use std::io::{self, Read};

use granary_common::hash::city_hash128;
use granary_common::{Error, ErrorCode, Result};

const HEADER: usize = 9;
const CHECKSUM: usize = 16;
/// Blocks larger than this are refused as corrupt rather than allocated.
const MAX_BLOCK: usize = 1 << 30;
/// How much a writer collects before it emits a block (ClickHouse's buffer size).
pub const BLOCK_SIZE: usize = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockMethod {
    None,
    Lz4,
    Zstd { level: i32 },
}

impl BlockMethod {
    fn byte(self) -> u8 {
        match self {
            BlockMethod::None => 0x02,
            BlockMethod::Lz4 => 0x82,
            BlockMethod::Zstd { .. } => 0x90,
        }
    }

    /// `network_compression_method` (`lz4`, `zstd`, `none`).
    pub fn from_setting(name: &str, zstd_level: i32) -> Result<BlockMethod> {
        match name.to_ascii_lowercase().as_str() {
            "lz4" | "lz4hc" => Ok(BlockMethod::Lz4),
            "zstd" => Ok(BlockMethod::Zstd { level: zstd_level }),
            "none" => Ok(BlockMethod::None),
            other => Err(Error::new(ErrorCode::UNKNOWN_COMPRESSION_METHOD, format!("Unknown compression method: {other}"))),
        }
    }
}

/// One framed block of `data`.
pub fn compress_block(data: &[u8], method: BlockMethod) -> Result<Vec<u8>> {
    let payload = match method {
        BlockMethod::None => data.to_vec(),
        BlockMethod::Lz4 => lz4_flex::block::compress(data),
        BlockMethod::Zstd { level } => zstd::bulk::compress(data, level)?,
    };
    let too_large = || Error::new(ErrorCode::CORRUPTED_DATA, format!("A block of {} bytes is too large to compress", data.len()));
    let compressed_size = u32::try_from(payload.len() + HEADER).map_err(|_| too_large())?;
    let raw_size = u32::try_from(data.len()).map_err(|_| too_large())?;
    let mut block = Vec::with_capacity(CHECKSUM + HEADER + payload.len());
    block.extend_from_slice(&[0u8; CHECKSUM]);
    block.push(method.byte());
    block.extend_from_slice(&compressed_size.to_le_bytes());
    block.extend_from_slice(&raw_size.to_le_bytes());
    block.extend_from_slice(&payload);
    let (low, high) = city_hash128(&block[CHECKSUM..]);
    block[..8].copy_from_slice(&low.to_le_bytes());
    block[8..CHECKSUM].copy_from_slice(&high.to_le_bytes());
    Ok(block)
}

/// Collects bytes and hands out framed blocks of about [`BLOCK_SIZE`].
pub struct BlockWriter {
    method: BlockMethod,
    pending: Vec<u8>,
}

impl BlockWriter {
    pub fn new(method: BlockMethod) -> Self {
        BlockWriter { method, pending: Vec::new() }
    }

    /// Appends `data`; returns the blocks that are complete.
    pub fn write(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        self.pending.extend_from_slice(data);
        let mut out = Vec::new();
        while self.pending.len() >= BLOCK_SIZE {
            let rest = self.pending.split_off(BLOCK_SIZE);
            out.extend(compress_block(&self.pending, self.method)?);
            self.pending = rest;
        }
        Ok(out)
    }

    /// The last, partial block.
    pub fn finish(&mut self) -> Result<Vec<u8>> {
        if self.pending.is_empty() {
            return Ok(Vec::new());
        }
        let block = compress_block(&self.pending, self.method)?;
        self.pending.clear();
        Ok(block)
    }
}

/// Reads framed blocks from `inner` and yields their decompressed bytes.
pub struct BlockReader<R> {
    inner: R,
    verify_checksums: bool,
    block: Vec<u8>,
    position: usize,
}

impl<R: Read> BlockReader<R> {
    pub fn new(inner: R, verify_checksums: bool) -> Self {
        BlockReader { inner, verify_checksums, block: Vec::new(), position: 0 }
    }

    /// The next block, or `false` at a clean end of input.
    fn next_block(&mut self) -> Result<bool> {
        let mut head = [0u8; CHECKSUM + HEADER];
        let mut filled = 0;
        while filled < head.len() {
            match self.inner.read(&mut head[filled..]) {
                Ok(0) if filled == 0 => return Ok(false),
                Ok(0) => return Err(Error::new(ErrorCode::CANNOT_READ_ALL_DATA, "Cannot read all data: the compressed stream ends inside a block header")),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(unwrap_io(e)),
            }
        }
        let method = head[CHECKSUM];
        let compressed_size = u32::from_le_bytes([head[17], head[18], head[19], head[20]]) as usize;
        let raw_size = u32::from_le_bytes([head[21], head[22], head[23], head[24]]) as usize;
        if !(HEADER..=MAX_BLOCK).contains(&compressed_size) || raw_size > MAX_BLOCK {
            return Err(Error::new(ErrorCode::CORRUPTED_DATA, format!("Too large or too small compressed block: {compressed_size} bytes, {raw_size} decompressed")));
        }
        let mut framed = Vec::with_capacity(compressed_size);
        framed.extend_from_slice(&head[CHECKSUM..]);
        framed.resize(compressed_size, 0);
        self.inner.read_exact(&mut framed[HEADER..]).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => Error::new(ErrorCode::CANNOT_READ_ALL_DATA, "Cannot read all data: the compressed stream ends inside a block"),
            _ => unwrap_io(e),
        })?;
        if self.verify_checksums {
            let expected = (u64::from_le_bytes(head[..8].try_into().unwrap_or_default()), u64::from_le_bytes(head[8..16].try_into().unwrap_or_default()));
            let actual = city_hash128(&framed);
            if expected != actual {
                return Err(Error::new(
                    ErrorCode::CHECKSUM_DOESNT_MATCH,
                    format!(
                        "Checksum doesn't match: corrupted data. Reference: {:016x}{:016x}. Actual: {:016x}{:016x}. Size of compressed block: {compressed_size}",
                        expected.1, expected.0, actual.1, actual.0
                    ),
                ));
            }
        }
        let payload = &framed[HEADER..];
        self.block = match method {
            0x02 => payload.to_vec(),
            0x82 => lz4_flex::block::decompress(payload, raw_size)
                .map_err(|e| Error::new(ErrorCode::CANNOT_DECOMPRESS, format!("Cannot decompress an LZ4 block: {e}")))?,
            0x90 => zstd::bulk::decompress(payload, raw_size).map_err(|e| Error::new(ErrorCode::CANNOT_DECOMPRESS, format!("Cannot decompress a ZSTD block: {e}")))?,
            other => return Err(Error::new(ErrorCode::UNKNOWN_COMPRESSION_METHOD, format!("Unknown compression method: 0x{other:02x}"))),
        };
        if self.block.len() != raw_size {
            return Err(Error::new(ErrorCode::CANNOT_DECOMPRESS, format!("A block decompressed to {} bytes instead of {raw_size}", self.block.len())));
        }
        self.position = 0;
        Ok(true)
    }
}

/// An error that travelled through `std::io`, back to what it was.
fn unwrap_io(e: io::Error) -> Error {
    match e.get_ref().map(|inner| inner.is::<Error>()) {
        Some(true) => match e.into_inner().map(|inner| inner.downcast::<Error>()) {
            Some(Ok(error)) => *error,
            _ => Error::new(ErrorCode::CANNOT_READ_ALL_DATA, "Cannot read the compressed stream"),
        },
        _ => Error::new(ErrorCode::CANNOT_READ_ALL_DATA, format!("Cannot read the compressed stream: {e}")),
    }
}

impl<R: Read> Read for BlockReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.position == self.block.len() {
            match self.next_block() {
                Ok(true) => {}
                Ok(false) => return Ok(0),
                Err(e) => return Err(io::Error::other(e)),
            }
        }
        let n = buf.len().min(self.block.len() - self.position);
        buf[..n].copy_from_slice(&self.block[self.position..self.position + n]);
        self.position += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_in_every_method() {
        let data: Vec<u8> = (0..3 * BLOCK_SIZE + 12345).map(|i| (i % 251) as u8).collect();
        for method in [BlockMethod::None, BlockMethod::Lz4, BlockMethod::Zstd { level: 1 }] {
            let mut writer = BlockWriter::new(method);
            let mut framed = Vec::new();
            for chunk in data.chunks(100_000) {
                framed.extend(writer.write(chunk).unwrap());
            }
            framed.extend(writer.finish().unwrap());
            let mut out = Vec::new();
            BlockReader::new(&framed[..], true).read_to_end(&mut out).unwrap();
            assert_eq!(out, data, "{method:?}");
        }
    }

    /// Column files of a MergeTree part written by ClickHouse (chdb): one block each, in
    /// LZ4, ZSTD and uncompressed, so the checksums and framing are ClickHouse's own.
    #[test]
    fn reads_blocks_written_by_clickhouse() {
        let mut numbers = Vec::new();
        BlockReader::new(&include_bytes!("../tests/fixtures/compressed/lz4_uint64.bin")[..], true).read_to_end(&mut numbers).unwrap();
        let expected: Vec<u8> = (0u64..1000).flat_map(|n| n.to_le_bytes()).collect();
        assert_eq!(numbers, expected);
        let mut strings = Vec::new();
        BlockReader::new(&include_bytes!("../tests/fixtures/compressed/none_strings.bin")[..], true).read_to_end(&mut strings).unwrap();
        assert_eq!(strings.len(), 2997);
        let mut zstd = Vec::new();
        BlockReader::new(&include_bytes!("../tests/fixtures/compressed/zstd_strings.bin")[..], true).read_to_end(&mut zstd).unwrap();
        assert_eq!(zstd.len(), 3628);
        assert_eq!(&zstd[..6], b"036912");
        // Our own framing of the same bytes carries the same checksum.
        let ours = compress_block(&strings, BlockMethod::None).unwrap();
        assert_eq!(&ours[..], &include_bytes!("../tests/fixtures/compressed/none_strings.bin")[..]);
    }

    #[test]
    fn corruption_is_detected() {
        let mut framed = compress_block(b"hello, compressed world", BlockMethod::Lz4).unwrap();
        let last = framed.len() - 1;
        framed[last] ^= 1;
        let error = BlockReader::new(&framed[..], true).read_to_end(&mut Vec::new()).unwrap_err();
        assert_eq!(unwrap_io(error).code(), ErrorCode::CHECKSUM_DOESNT_MATCH);
        let truncated = &compress_block(b"abc", BlockMethod::None).unwrap()[..20];
        let error = BlockReader::new(truncated, true).read_to_end(&mut Vec::new()).unwrap_err();
        assert_eq!(unwrap_io(error).code(), ErrorCode::CANNOT_READ_ALL_DATA);
    }
}
